#!/usr/bin/env python3
"""Generates wavejit's GFX9 opcode tables from LLVM's own disassembler.

Source of truth: `llvm-mc-22 --disassemble` for gfx942 and gfx950. For every encoding the
decoder supports, every opcode value is assembled into an instruction word with fixed,
simple operands (a few operand variants per encoding, first valid one wins) and fed to
llvm-mc. The printed mnemonic gives the opcode's name; its encoding suffix (`_e32`, `_e64`,
`_dpp`, `_sdwa`) is stripped to get the semantic opcode `Op` (naming contract in
`translator/src/isa/inst.rs`). The printed operands give each operand's register count.

Outputs (deterministic, sorted):
  translator/src/isa/generated/op.rs      enum Op + Op::name()
  translator/src/isa/generated/gfx9.rs    per-encoding tables: opcode -> OpInfo
  translator/gen/gfx9_opcodes.txt         the raw listing (encoding, opcode, target, text)

Usage:
  python3 translator/gen/gen_tables.py           regenerate in place
  python3 translator/gen/gen_tables.py --check   regenerate into a temp dir, diff, exit 1 on change

Without LLVM: fails when CI=true, otherwise prints a skip notice and exits 0.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

RUSTFMT = os.environ.get("RUSTFMT", "rustfmt")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # translator/
TARGETS = ["gfx942", "gfx950"]
SNOP = 0xBF800000  # s_nop 0: padding between candidates so the byte stream resyncs
PAD = 3  # s_nop words after each candidate (the longest GFX9 instruction is 16 bytes)
CHUNK = 3000

# ---------------------------------------------------------------------------------------
# Candidate words per encoding. Register choices keep every multi-dword operand aligned
# (gfx90a+ requires even VGPR tuples): v4, v8, v16 as sources, v0 as destination.

V = lambda r: 256 + r  # VGPR operand code in a 9-bit source field


def enc(count, base, *fields):
    """An encoding: `count` opcodes, `base(op)` -> words, optional `fields`.

    Each field is (word index, bit shift, [values]). LLVM rejects words whose unused
    operand fields are non-zero, so every combination of field values is tried, the
    combinations with the most non-zero fields first: the first that decodes sets exactly
    the fields the opcode uses.
    """
    return (count, base, fields)


ENCODINGS = {
    "sop2": enc(0x60, lambda op: [0x80000000 | (op << 23)], (0, 16, [8, 0]), (0, 8, [4, 0]), (0, 0, [2, 0])),
    "sopk": enc(0x1D, lambda op: [0xB0000000 | (op << 23)], (0, 16, [8, 0]), (0, 0, [0x1234, 0])),
    "sop1": enc(0x100, lambda op: [0xBE800000 | (op << 8)], (0, 16, [8, 0]), (0, 0, [4, 0])),
    "sopc": enc(0x80, lambda op: [0xBF000000 | (op << 16)], (0, 8, [4, 0]), (0, 0, [2, 0])),
    "sopp": enc(0x80, lambda op: [0xBF800000 | (op << 16)], (0, 0, [3, 0])),
    "smem": enc(
        0x100,
        lambda op: [0xC0020000 | (op << 18), 0],
        (0, 6, [8, 0]),
        (0, 0, [1, 0]),
        (1, 0, [0x10, 0]),
    ),
    "vop1": enc(0x100, lambda op: [0x7E000000 | (op << 9)], (0, 0, [V(4), 4, 0])),
    "vop2": enc(0x3E, lambda op: [op << 25], (0, 0, [V(4), 4, 0]), (0, 9, [8, 0])),
    "vopc": enc(0x100, lambda op: [0x7C000000 | (op << 17)], (0, 0, [V(4), 4]), (0, 9, [8])),
    "vop3": enc(
        0x380,
        lambda op: [0xD0000000 | (op << 16), 0],
        (1, 0, [V(4), 4, 0]),
        (1, 9, [V(8), 0]),
        (1, 18, [V(16), 4, 0]),
    ),
    "vop3p": enc(
        0x80,
        lambda op: [0xD3800000 | (op << 16), 0],
        (1, 0, [V(4), 0]),
        (1, 9, [V(8), 0]),
        (1, 18, [V(16), 0]),
    ),
    "ds": enc(
        0x100,
        lambda op: [0xD8000000 | (op << 17), 0],
        (1, 0, [1, 0]),
        (1, 8, [2, 0]),
        (1, 16, [4, 0]),
        (1, 24, [8, 0]),
    ),
    "flat": enc(
        0x80,
        lambda op: [0xDC000000 | (op << 18), 0],
        (1, 0, [2, 0]),
        (1, 8, [4, 0]),
        (1, 24, [8, 0]),
    ),
    "global": enc(
        0x80,
        lambda op: [0xDC008000 | (op << 18), 0x7F << 16],
        (1, 0, [2, 0]),
        (1, 8, [4, 0]),
        (1, 24, [8, 0]),
    ),
    "scratch": enc(
        0x80,
        lambda op: [0xDC004000 | (op << 18), 0],
        (0, 13, [1, 0]),
        (1, 16, [0x7F, 2]),
        (1, 0, [2, 0]),
        (1, 8, [4, 0]),
        (1, 24, [8, 0]),
    ),
    "mubuf": enc(
        0x80,
        lambda op: [0xE0000000 | (op << 18), (2 << 16) | (0x80 << 24)],
        (0, 12, [1, 0]),
        (1, 0, [1, 0]),
        (1, 8, [4, 0]),
    ),
    "mtbuf": enc(
        0x10,
        lambda op: [0xE8000000 | (op << 15) | (4 << 19) | (1 << 23), (2 << 16) | (0x80 << 24)],
        (0, 12, [1, 0]),
        (1, 0, [1, 0]),
        (1, 8, [4, 0]),
    ),
}


def variants(spec, op):
    """All operand variants of opcode `op`, most populated first (deterministic order)."""
    count, base, fields = spec
    combos = [[]]
    for _, _, vals in fields:
        combos = [c + [i] for c in combos for i in range(len(vals))]
    nz = lambda c: sum(1 for f, i in zip(fields, c) if f[2][i] != 0)
    combos.sort(key=lambda c: (-nz(c), c))
    out = []
    for c in combos:
        words = list(base(op))
        for (wi, sh, vals), i in zip(fields, c):
            words[wi] |= vals[i] << sh
        out.append(words)
    return out


SUFFIXES = ("_e32", "_e64", "_dpp", "_sdwa")


def base_mnemonic(m):
    for s in SUFFIXES:
        if m.endswith(s):
            return m[: -len(s)]
    return m


def words_to_bytes(words):
    out = []
    for w in words:
        out += [(w >> (8 * i)) & 0xFF for i in range(4)]
    return out


LIBLLVM_CANDIDATES = [
    os.environ.get("LIBLLVM", ""),
    "/usr/lib/llvm-22/lib/libLLVM.so.1",
    "/usr/lib/llvm-22/lib/libLLVM-22.so",
    "/usr/lib/x86_64-linux-gnu/libLLVM-22.so",
]


def find_libllvm():
    for p in LIBLLVM_CANDIDATES:
        if p and os.path.exists(p):
            return p
    return None


def worker(target):
    """Child process: disassembles one candidate per stdin line with LLVM's C API.

    Runs in its own process because LLVM 22 can crash on some invalid GFX9 words; the
    parent bisects a crashed chunk. Prints `index size text` per decodable candidate.
    """
    import ctypes

    lib = ctypes.CDLL(find_libllvm())
    for fn in ("LLVMInitializeAMDGPUTargetInfo", "LLVMInitializeAMDGPUTargetMC", "LLVMInitializeAMDGPUDisassembler"):
        getattr(lib, fn)()
    lib.LLVMCreateDisasmCPU.restype = ctypes.c_void_p
    lib.LLVMCreateDisasmCPU.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    lib.LLVMDisasmInstruction.restype = ctypes.c_size_t
    lib.LLVMDisasmInstruction.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t]
    dc = lib.LLVMCreateDisasmCPU(b"amdgcn-amd-amdhsa", target.encode(), None, 0, None, None)
    if not dc:
        raise SystemExit("cannot create an LLVM disassembler for " + target)
    buf = ctypes.create_string_buffer(512)
    out = sys.stdout
    for i, line in enumerate(sys.stdin):
        words = [int(x, 16) for x in line.split()] + [SNOP] * PAD
        data = bytes(words_to_bytes(words))
        cbuf = ctypes.create_string_buffer(data, len(data))
        n = lib.LLVMDisasmInstruction(dc, cbuf, len(data), 0, buf, 512)
        if n:
            out.write("%d %d %s\n" % (i, n, buf.value.decode().strip().replace("\t", " ")))
            out.flush()


def decode_chunk(target, cands):
    """cands: list of word lists. Returns {index: (size, text)} for the candidates LLVM decodes."""
    text = "".join(" ".join("%08x" % w for w in c) + "\n" for c in cands)
    p = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--worker", target],
        input=text,
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        if len(cands) == 1:
            return {}  # LLVM crashed on this word: treat it as undecodable
        h = len(cands) // 2
        a = decode_chunk(target, cands[:h])
        b = decode_chunk(target, cands[h:])
        return {**a, **{k + h: v for k, v in b.items()}}
    res = {}
    for line in p.stdout.splitlines():
        i, n, txt = line.split(" ", 2)
        res[int(i)] = (int(n), txt)
    return res


def enumerate_target(target):
    """Returns {(encoding, opcode): (size, text)} for every decodable opcode."""
    jobs = []  # (enc, op, variant index, words)
    for name, spec in ENCODINGS.items():
        for op in range(spec[0]):
            for vi, words in enumerate(variants(spec, op)):
                jobs.append((name, op, vi, words))
    found = {}
    for i in range(0, len(jobs), CHUNK):
        part = jobs[i : i + CHUNK]
        res = decode_chunk(target, [j[3] for j in part])
        for k, (size, txt) in res.items():
            enc, op, vi, _ = part[k]
            key = (enc, op)
            if key not in found or found[key][0] > vi:
                found[key] = (vi, size, txt)
    return {k: (v[1], v[2]) for k, v in found.items()}


def split_text(txt):
    parts = txt.split(None, 1)
    mnem = parts[0]
    ops = []
    if len(parts) > 1:
        for o in parts[1].split(","):
            o = o.strip()
            if o:
                ops.append(o.split()[0])
    return mnem, ops


def opnd_width(o):
    m = re.match(r"^[vsa]\[(\d+):(\d+)\]$", o)
    if m:
        return int(m.group(2)) - int(m.group(1)) + 1
    if re.match(r"^[vsa]\d+$", o):
        return 1
    if o in ("vcc", "exec", "flat_scratch", "xnack_mask", "tba", "tma"):
        return 2
    if o in ("vcc_lo", "vcc_hi", "exec_lo", "exec_hi", "m0", "scc"):
        return 1
    return 0


ENC_ORDER = list(ENCODINGS.keys())
ENC_SIZE = {k: v[0] for k, v in ENCODINGS.items()}


def generate(outdir):
    per_target = {t: enumerate_target(t) for t in TARGETS}
    ops = {}  # base -> target mask
    for ti, t in enumerate(TARGETS):
        for (_, op), (size, txt) in per_target[t].items():
            b = base_mnemonic(split_text(txt)[0])
            ops[b] = ops.get(b, 0) | (1 << ti)
    names = sorted(ops)
    for n in names:
        if not re.match(r"^[a-z0-9_]+$", n):
            raise SystemExit("unexpected mnemonic %r" % n)

    # --- listing
    lines = ["# encoding opcode target size text  (generated by gen_tables.py; do not edit)"]
    for enc in ENC_ORDER:
        for op in range(ENC_SIZE[enc]):
            for t in TARGETS:
                if (enc, op) in per_target[t]:
                    size, txt = per_target[t][(enc, op)]
                    lines.append("%s 0x%03x %s %d %s" % (enc, op, t, size, txt))
    os.makedirs(os.path.join(outdir, "gen"), exist_ok=True)
    with open(os.path.join(outdir, "gen", "gfx9_opcodes.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")

    gdir = os.path.join(outdir, "src", "isa", "generated")
    os.makedirs(gdir, exist_ok=True)

    # --- op.rs
    o = []
    o.append("// @generated by translator/gen/gen_tables.py from llvm-mc-22. Do not edit.\n")
    o.append("//! Semantic opcodes: one per LLVM mnemonic with the encoding suffix removed.\n")
    o.append("/// A semantic opcode (see the naming contract in `isa::inst`).")
    o.append("#[allow(non_camel_case_types)]")
    o.append("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]")
    o.append("#[repr(u16)]")
    o.append("pub enum Op {")
    for n in names:
        o.append("    /// `%s`" % n)
        o.append("    %s," % n.upper())
    o.append("}\n")
    o.append("/// Targets an opcode exists on: bit 0 = gfx942, bit 1 = gfx950.")
    o.append("pub const TARGET_GFX942: u8 = 1;")
    o.append("/// See [`TARGET_GFX942`].")
    o.append("pub const TARGET_GFX950: u8 = 2;\n")
    o.append("impl Op {")
    o.append("    /// Every opcode, in declaration (alphabetical) order.")
    o.append("    pub const ALL: [Op; %d] = [" % len(names))
    for n in names:
        o.append("        Op::%s," % n.upper())
    o.append("    ];\n")
    o.append("    /// The lower-case base mnemonic (LLVM spelling without `_e32`/`_e64`/`_dpp`/`_sdwa`).")
    o.append("    pub const fn name(self) -> &'static str {")
    o.append("        NAMES[self as usize]")
    o.append("    }\n")
    o.append("    /// The targets this opcode exists on ([`TARGET_GFX942`] | [`TARGET_GFX950`]).")
    o.append("    pub const fn targets(self) -> u8 {")
    o.append("        TARGET_MASKS[self as usize]")
    o.append("    }\n")
    o.append("    /// The opcode whose [`Op::name`] is `name`, if any.")
    o.append("    pub fn from_name(name: &str) -> Option<Op> {")
    o.append("        NAMES.binary_search(&name).ok().map(|i| Op::ALL[i])")
    o.append("    }")
    o.append("}\n")
    o.append("static NAMES: [&str; %d] = [" % len(names))
    for n in names:
        o.append('    "%s",' % n)
    o.append("];\n")
    o.append("static TARGET_MASKS: [u8; %d] = [" % len(names))
    for n in names:
        o.append("    %d," % ops[n])
    o.append("];")
    with open(os.path.join(gdir, "op.rs"), "w") as f:
        f.write("\n".join(o) + "\n")

    # --- gfx9.rs
    g = []
    g.append("// @generated by translator/gen/gen_tables.py from llvm-mc-22. Do not edit.\n")
    g.append("//! GFX9 (gfx942, gfx950) opcode tables, indexed by the encoding's opcode field.\n")
    g.append("use super::{Op, OpInfo};\n")
    for ti, t in enumerate(TARGETS):
        for enc in ENC_ORDER:
            n = ENC_SIZE[enc]
            g.append("/// %s %s opcodes (`None` = not a valid opcode)." % (t, enc.upper()))
            g.append("pub static %s_%s: [Option<OpInfo>; %d] = [" % (t.upper(), enc.upper(), n))
            for op in range(n):
                e = per_target[t].get((enc, op))
                if e is None:
                    g.append("    None,")
                    continue
                size, txt = e
                mnem, opnds = split_text(txt)
                widths = [opnd_width(x) for x in opnds][:6]
                widths += [0] * (6 - len(widths))
                g.append(
                    '    Some(OpInfo { op: Op::%s, mnemonic: "%s", widths: [%s] }), // 0x%03x %s'
                    % (base_mnemonic(mnem).upper(), mnem, ", ".join(map(str, widths)), op, txt)
                )
            g.append("];\n")
    with open(os.path.join(gdir, "gfx9.rs"), "w") as f:
        f.write("\n".join(g) + "\n")

    # --- mod.rs
    m = []
    m.append("// @generated by translator/gen/gen_tables.py from llvm-mc-22. Do not edit.\n")
    m.append("//! Tables generated from LLVM's disassembler by `translator/gen/gen_tables.py`.\n")
    m.append("pub mod gfx9;")
    m.append("mod op;\n")
    m.append("pub use op::{Op, TARGET_GFX942, TARGET_GFX950};\n")
    m.append("/// What an opcode table says about one opcode of one encoding.")
    m.append("#[derive(Clone, Copy, Debug, PartialEq, Eq)]")
    m.append("pub struct OpInfo {")
    m.append("    /// The semantic opcode.")
    m.append("    pub op: Op,")
    m.append("    /// The mnemonic exactly as LLVM prints it for this encoding (`v_add_f32_e32`).")
    m.append("    pub mnemonic: &'static str,")
    m.append("    /// Registers spanned by each printed operand, in LLVM's order (0 = not a register).")
    m.append("    pub widths: [u8; 6],")
    m.append("}")
    with open(os.path.join(gdir, "mod.rs"), "w") as f:
        f.write("\n".join(m) + "\n")

    if shutil.which(RUSTFMT):
        for fn in ("op.rs", "gfx9.rs", "mod.rs"):
            subprocess.run([RUSTFMT, "--edition", "2021", os.path.join(gdir, fn)], check=True)


GENERATED = [
    "gen/gfx9_opcodes.txt",
    "src/isa/generated/op.rs",
    "src/isa/generated/gfx9.rs",
    "src/isa/generated/mod.rs",
]


def main():
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2])
        return 0
    check = "--check" in sys.argv[1:]
    if find_libllvm() is None:
        if os.environ.get("CI") == "true":
            print("gen_tables.py: libLLVM 22 not found (required in CI)", file=sys.stderr)
            return 1
        print("gen_tables.py: libLLVM 22 not found; skipping table generation")
        return 0
    if not check:
        generate(ROOT)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        bad = 0
        for rel in GENERATED:
            a = os.path.join(ROOT, rel)
            b = os.path.join(tmp, rel)
            old = open(a).read() if os.path.exists(a) else None
            if old != open(b).read():
                print("gen_tables.py --check: %s is out of date" % rel, file=sys.stderr)
                bad = 1
        if bad:
            print("regenerate with: python3 translator/gen/gen_tables.py", file=sys.stderr)
        else:
            print("gen_tables.py --check: generated files are up to date")
        return bad


if __name__ == "__main__":
    sys.exit(main())
