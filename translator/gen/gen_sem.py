#!/usr/bin/env python3
"""Generates the semantic key of every opcode: `src/isa/generated/sem.rs`.

The key (`isa::Sem`) says what an instruction does, for the lifter to match on instead of
mnemonic text: its instruction class (one Rust enum per class: `SaluSem`, `SoppSem`,
`SmemSem`, `ValuSem`, `VcmpSem`, `MfmaSem`, `WmmaSem`, `DualSem`, `DsSem`, `VmemSem`, `GraphicsSem`)
and, within the class, one variant per operation. Opcodes with the same semantics share a
variant: the `_e32/_e64/_dpp/_sdwa` forms already share an `Op`, and an RDNA opcode listed
in `rdna_equivalents.txt` takes the variant of its GFX9 equivalent. A variant is named after
the GFX9 mnemonic of its operation (upper case, as `Op`'s variants).

Inputs: the opcode listings that gen_tables.py writes (`gfx9_opcodes.txt`,
`gfx1100_opcodes.txt`, `gfx1200_opcodes.txt`, `gfx1150_opcodes.txt`: the encodings of each
mnemonic, hence its class) and `rdna_equivalents.txt`. gen_tables.py calls `generate`;
run alone (`python3 translator/gen/gen_sem.py [--check]`) it takes the opcode names from the
checked-in `op.rs`, so the key can be regenerated without LLVM.
"""

import os
import re
import subprocess
import shutil
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # translator/
RUSTFMT = os.environ.get("RUSTFMT", "rustfmt")
EQUIVALENTS = os.path.join(HERE, "rdna_equivalents.txt")
LISTINGS = ["gfx9_opcodes.txt", "gfx1100_opcodes.txt", "gfx1200_opcodes.txt", "gfx1150_opcodes.txt"]
GFX9_TARGETS = 1 | 2  # TARGET_GFX942 | TARGET_GFX950

# (Sem variant, class enum, doc, encodings of the class). Compares and matrix operations are
# vector encodings told apart by mnemonic (below).
CLASSES = [
    ("Salu", "SaluSem", "Scalar ALU: SOP1, SOP2, SOPK, SOPC.", {"sop1", "sop2", "sopk", "sopc"}),
    ("Sopp", "SoppSem", "Program control: SOPP (branches, barriers, waits, messages).", {"sopp"}),
    ("Smem", "SmemSem", "Scalar memory: SMEM.", {"smem"}),
    ("Valu", "ValuSem", "Vector ALU: VOP1, VOP2, VOP3, VOP3P other than compares and matrix ops.",
     {"vop1", "vop2", "vop3", "vop3p"}),
    ("Vcmp", "VcmpSem", "Vector compares: VOPC and their VOP3 forms (`v_cmp*`, `v_cmpx*`).", set()),
    ("Mfma", "MfmaSem", "CDNA matrix multiply: MFMA, SMFMAC.", set()),
    ("Wmma", "WmmaSem", "RDNA matrix multiply: WMMA, SWMMAC.", set()),
    ("Dual", "DualSem", "Halves of an RDNA VOPD (dual-issue) instruction (`v_dual_*`).", {"vopdx", "vopdy"}),
    ("Ds", "DsSem", "LDS and cross-lane DS operations.", {"ds"}),
    ("Vmem", "VmemSem", "Vector memory: FLAT, GLOBAL, SCRATCH, MUBUF, MTBUF.",
     {"flat", "global", "scratch", "mubuf", "mtbuf"}),
    ("Graphics", "GraphicsSem", "Graphics-only encodings: images, exports, LDS parameter loads, interpolation.",
     {"mimg", "vimage", "vsample", "exp", "ldsdir", "vinterp"}),
]
VECTOR = {"vop1", "vop2", "vop3", "vop3p", "vopc"}
MFMA_PREFIXES = ("v_mfma", "v_smfmac")
WMMA_PREFIXES = ("v_wmma_", "v_swmmac_")

MATRIX_PREFIXES = [("v_mfma_scale_", "MfmaScale"), ("v_mfma_", "Mfma"), ("v_smfmac_", "Smfmac"),
                   ("v_wmma_", "Wmma"), ("v_swmmac_", "Swmmac")]
MATRIX_TOKS = {"f32": "F32", "xf32": "Xf32", "f16": "F16", "bf16": "Bf16", "f64": "F64",
               "i32": "I32", "i8": "I8", "iu8": "Iu8", "iu4": "Iu4", "fp8": "Fp8", "bf8": "Bf8",
               "f8f6f4": "F8f6f4"}


def matrix_spelling(name):
    """The Rust `MatrixSpelling` expression of matrix mnemonic `name` (as
    `MatrixSpelling::parse` reads it), or None when the mnemonic spells no matrix product
    (`v_mfma_ld_scale_b32`)."""
    for pre, variant in MATRIX_PREFIXES:
        if name.startswith(pre):
            rest = name[len(pre):]
            break
    else:
        return None
    parts = rest.split("_")
    if len(parts) < 3 or parts[0] not in MATRIX_TOKS:
        return None
    dims = parts[1].split("x")
    if len(dims) != 3 or not all(d.isdigit() for d in dims):
        return None
    ty = parts[2:]
    blocks = 1
    if ty[0].endswith("b") and ty[0][:-1].isdigit():
        blocks = int(ty[0][:-1])
        ty = ty[1:]
    if not 1 <= len(ty) <= 2 or not all(t in MATRIX_TOKS for t in ty):
        return None
    f8 = [t in ("fp8", "bf8") for t in ty]
    if (len(ty) == 1 and f8[0]) or (len(ty) == 2 and not all(f8)):
        return None
    a, b = ty[0], ty[-1]
    m, n, k = (int(d) for d in dims)
    return "sp(P::%s, T::%s, %d, %d, %d, %d, T::%s, T::%s)" % (
        variant, MATRIX_TOKS[parts[0]], m, n, k, blocks, MATRIX_TOKS[a], MATRIX_TOKS[b])


def base_mnemonic(m):
    for s in ("_e32", "_e64", "_dpp", "_sdwa"):
        if m.endswith(s):
            return m[: -len(s)]
    return m


def encodings(gendir):
    """Mnemonic -> the set of encodings it is listed in."""
    enc = {}
    for fn in LISTINGS:
        path = os.path.join(gendir, fn)
        text_col = 4 if fn == "gfx9_opcodes.txt" else 3
        for line in open(path):
            if line.startswith("#") or not line.strip():
                continue
            parts = line.split()
            enc.setdefault(base_mnemonic(parts[text_col]), set()).add(parts[0])
    return enc


def class_of(name, encs):
    if name.startswith("v_cmp"):
        if not encs <= {"vopc", "vop3"}:
            raise SystemExit("gen_sem: compare %s in encodings %s" % (name, sorted(encs)))
        return "Vcmp"
    if "vopc" in encs:
        raise SystemExit("gen_sem: VOPC opcode %s is not named v_cmp*" % name)
    if name.startswith(MFMA_PREFIXES + WMMA_PREFIXES):
        if not encs <= {"vop3p"}:
            raise SystemExit("gen_sem: matrix op %s in encodings %s" % (name, sorted(encs)))
        return "Mfma" if name.startswith(MFMA_PREFIXES) else "Wmma"
    found = {c for c, _, _, e in CLASSES if encs & e}
    if len(found) != 1 or not encs <= next(e for c, _, _, e in CLASSES if c in found):
        raise SystemExit("gen_sem: %s spans classes (encodings %s)" % (name, sorted(encs)))
    return found.pop()


def read_equivalents(names, masks):
    eq = {}
    for n, line in enumerate(open(EQUIVALENTS), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise SystemExit("rdna_equivalents.txt:%d: expected `rdna_name gfx9_name`" % n)
        src, dst = parts
        if src not in masks:
            raise SystemExit("rdna_equivalents.txt:%d: %s is not an opcode" % (n, src))
        if masks[src] & GFX9_TARGETS:
            raise SystemExit("rdna_equivalents.txt:%d: %s is a GFX9 opcode too" % (n, src))
        if src in eq:
            raise SystemExit("rdna_equivalents.txt:%d: %s listed twice" % (n, src))
        if dst in eq:
            raise SystemExit("rdna_equivalents.txt:%d: %s is itself renamed" % (n, dst))
        eq[src] = dst
    return eq


def rust(names, masks, gendir):
    """The text of sem.rs for opcodes `names` (sorted) with target masks `masks`."""
    enc = encodings(gendir)
    missing = set(names) ^ set(enc)
    if missing:
        raise SystemExit("gen_sem: listings and opcodes differ: %s" % sorted(missing)[:10])
    eq = read_equivalents(names, masks)
    # opcode -> (class, key name); key -> the opcodes that have it
    key = {}
    for n in names:
        canon = eq.get(n, n)
        # An equivalent that is an opcode lends its class (`buffer_gl0_inv` is an `s_nop`);
        # one that is not (`s_andn2_saveexec_b32`) keeps the opcode's own.
        cls = class_of(canon if canon in enc else n, enc[canon] if canon in enc else enc[n])
        if cls != class_of(n, enc[n]) and canon != "s_nop":
            raise SystemExit("rdna_equivalents.txt: %s and %s are of different classes" % (n, canon))
        key[n] = (cls, canon)
    members = {}
    for n in names:
        members.setdefault(key[n], []).append(n)
    o = []
    o.append("// @generated by translator/gen/gen_sem.py from the opcode listings and")
    o.append("// translator/gen/rdna_equivalents.txt. Do not edit.\n")
    o.append("//! Semantic keys: what each opcode does, as an instruction class and an operation.")
    o.append("//!")
    o.append("//! Opcodes with the same semantics share a key: an RDNA opcode that LLVM spells")
    o.append("//! differently from its GFX9 equivalent (`s_load_b32`, `ds_store_b32`), or a hint")
    o.append("//! that has no effect here (`s_clause`, `s_wait_*`: `s_nop`) takes the key of that")
    o.append("//! equivalent (`translator/gen/rdna_equivalents.txt`). Variants are named after the")
    o.append("//! GFX9 mnemonic of their operation.\n")
    o.append("use super::op::Op;")
    o.append("use crate::matrix::{MatrixPrefix as P, MatrixSpelling, MatrixTok as T};\n")
    o.append("/// The semantic key of an opcode ([`Op::sem`]): its instruction class and operation.")
    o.append("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]")
    o.append("pub enum Sem {")
    for c, e, doc, _ in CLASSES:
        o.append("    /// %s" % doc)
        o.append("    %s(%s)," % (c, e))
    o.append("}\n")
    o.append("impl Sem {")
    o.append("    /// The GFX9 mnemonic of the operation (the opcode's own when it has no equivalent).")
    o.append("    pub const fn name(self) -> &'static str {")
    o.append("        match self {")
    for c, e, _, _ in CLASSES:
        o.append("            Sem::%s(s) => s.name()," % c)
    o.append("        }")
    o.append("    }")
    o.append("}\n")
    for c, e, doc, _ in CLASSES:
        keys = sorted(k for k in members if k[0] == c)
        o.append("/// Operations of class [`Sem::%s`]: %s" % (c, doc[0].lower() + doc[1:]))
        o.append("#[allow(non_camel_case_types)]")
        o.append("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]")
        o.append("#[repr(u16)]")
        o.append("pub enum %s {" % e)
        for k in keys:
            others = [m for m in members[k] if m != k[1]]
            doc = "`%s`" % k[1]
            if others:
                doc += "; also " + ", ".join("`%s`" % m for m in others)
            for line in textwrap.wrap(doc, 92):
                o.append("    /// %s" % line)
            o.append("    %s," % k[1].upper())
        o.append("}\n")
        o.append("impl %s {" % e)
        o.append("    /// Every operation of the class, in declaration (alphabetical) order.")
        o.append("    pub const ALL: [%s; %d] = [" % (e, len(keys)))
        for k in keys:
            o.append("        %s::%s," % (e, k[1].upper()))
        o.append("    ];\n")
        o.append("    /// The GFX9 mnemonic of the operation (see [`Sem::name`]).")
        o.append("    pub const fn name(self) -> &'static str {")
        o.append("        %s_NAMES[self as usize]" % c.upper())
        o.append("    }")
        if c in ("Mfma", "Wmma"):
            o.append("")
            o.append("    /// What the mnemonic spells (M, N, K, blocks, type tokens), GPU-independently;")
            o.append("    /// `MatrixOp::from_spelling` applies the GPU's rules. `None` for an operation")
            o.append("    /// that is no matrix product (`v_mfma_ld_scale_b32`).")
            o.append("    pub const fn spelling(self) -> Option<MatrixSpelling> {")
            o.append("        %s_SPELLINGS[self as usize]" % c.upper())
            o.append("    }")
        o.append("}\n")
        if c in ("Mfma", "Wmma"):
            o.append("static %s_SPELLINGS: [Option<MatrixSpelling>; %d] = [" % (c.upper(), len(keys)))
            for k in keys:
                e_ = matrix_spelling(k[1])
                o.append("    %s," % ("Some(%s)" % e_ if e_ else "None"))
            o.append("];\n")
        o.append("static %s_NAMES: [&str; %d] = [" % (c.upper(), len(keys)))
        for k in keys:
            o.append('    "%s",' % k[1])
        o.append("];\n")
    o.append("/// A [`MatrixSpelling`], positionally.")
    o.append("#[allow(clippy::too_many_arguments)]")
    o.append("const fn sp(prefix: P, out: T, m: usize, n: usize, k: usize, blocks: usize, a: T, b: T) -> MatrixSpelling {")
    o.append("    MatrixSpelling { prefix, out, m, n, k, blocks, a, b }")
    o.append("}\n")
    o.append("impl Op {")
    o.append("    /// The semantic key of the opcode.")
    o.append("    pub const fn sem(self) -> Sem {")
    o.append("        SEMS[self as usize]")
    o.append("    }")
    o.append("}\n")
    o.append("/// [`Op::sem`] of every opcode, in [`Op::ALL`] order.")
    o.append("static SEMS: [Sem; %d] = [" % len(names))
    enums = {c: e for c, e, _, _ in CLASSES}
    for n in names:
        c, k = key[n]
        o.append("    Sem::%s(%s::%s)," % (c, enums[c], k.upper()))
    o.append("];")
    return "\n".join(o) + "\n"


def write(gendir, names, masks, gdir):
    """Writes `gdir/sem.rs` (rustfmt-formatted when rustfmt is present)."""
    path = os.path.join(gdir, "sem.rs")
    with open(path, "w") as f:
        f.write(rust(names, masks, gendir))
    if shutil.which(RUSTFMT):
        subprocess.run([RUSTFMT, "--edition", "2021", path], check=True)


def names_from_op_rs(path):
    """Opcode names and target masks from a generated op.rs."""
    src = open(path).read()
    names = re.findall(r'^    "([a-z0-9_]+)",$', src.split("static NAMES")[1].split("];")[0], re.M)
    masks = [int(x) for x in re.findall(r"\d+", src.split("static TARGET_MASKS")[1].split("=", 1)[1].split("];")[0])]
    if len(names) != len(masks):
        raise SystemExit("gen_sem: cannot read %s" % path)
    return names, dict(zip(names, masks))


def main():
    gdir = os.path.join(ROOT, "src", "isa", "generated")
    names, masks = names_from_op_rs(os.path.join(gdir, "op.rs"))
    if "--check" not in sys.argv[1:]:
        write(HERE, names, masks, gdir)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        write(HERE, names, masks, tmp)
        if open(os.path.join(tmp, "sem.rs")).read() != open(os.path.join(gdir, "sem.rs")).read():
            print("gen_sem.py --check: src/isa/generated/sem.rs is out of date", file=sys.stderr)
            return 1
    print("gen_sem.py --check: sem.rs is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
