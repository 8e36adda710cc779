"""RDNA (GFX11 = gfx1100, GFX12 = gfx1200/gfx1201) opcode tables from LLVM's disassembler.

Used by `gen_tables.py` (which owns the command line, the child-process LLVM worker and the
shared `Op` enum). Same method as for GFX9: every opcode value of every encoding is put
into an instruction word with simple operands (several operand variants, the most
populated one LLVM accepts wins) and disassembled by libLLVM-22 in a child process. From
the printed text come the mnemonic, the semantic `Op` (encoding suffix stripped), each
operand slot's register count and register file (`v4.l`/`v4.h` marks a true16 half), and
probes with modifier bits set tell which optional syntax LLVM prints for the opcode. A
second pass with `+wavefrontsize64` records the operand widths of wave64 code (lane masks
double, WMMA fragments halve).

gfx12 is disassembled with `+real-true16` (LLVM 22 defaults gfx12 to fake16, which does not
decode the `.h` VOP1 forms). gfx1201 is enumerated too and must give exactly gfx1200's
listing (the generator fails otherwise), so gfx1201 uses the gfx1200 tables. gfx1150 is
enumerated in full and gets its own tables for the encodings whose listing differs from
gfx1100's (SOP1/SOP2/SOPC: the SALU float opcodes); gfx1101..3 and gfx1151..3 are checked
against gfx1100/gfx1150 on canonical words.

Validity: per opcode, the bits LLVM requires to hold one value (`fixed_bits`: single-bit
flips of canonical words and accepted cases), the source codes it accepts per role and
operand width (`src_codes`), the scalar register tuples it accepts per role (`sreg_maps`),
whether DPP forms exist and which DPP16 source-modifier bits are valid (`probe_mods`). Image encodings (MIMG; VIMAGE, VSAMPLE) get operand
grids: the data/address register counts LLVM prints for every DMASK/D16/TFE/A16/DIM (and
NSA) combination (`enumerate_images`).
"""

import os
import re

V = lambda r: 256 + r  # VGPR operand code in a 9-bit source field
NULL = 0x7C  # RDNA scalar code of `null` (also `off` in SADDR fields)

# Targets: (name, LLVM CPU, features). The family tables are named after the first.
FAMILIES = {
    "gfx1100": ("gfx1100", "+real-true16"),
    "gfx1200": ("gfx1200", "+real-true16"),
}
CHECK_SAME = {"gfx1201": "gfx1200"}
# Targets of a family whose LLVM decoding differs from it in some encodings (gfx1150 adds
# the SALU float opcodes): they get their own tables for those encodings only.
VARIANTS = {"gfx1150": "gfx1100"}
# Targets checked to decode exactly like a family or variant (canonical words of every
# opcode value, see `check_same_quick`).
CHECK_QUICK = {"gfx1101": "gfx1100", "gfx1102": "gfx1100", "gfx1103": "gfx1100", "gfx1151": "gfx1150", "gfx1152": "gfx1150", "gfx1153": "gfx1150"}
W64 = ",+wavefrontsize64"


def enc(count, base, *fields):
    """An encoding: `count` opcodes, `base(op)` -> words, operand `fields`.

    Each field is (word, shift, [values], slot, kind); with more than one value the last is
    the "absent" value. Kinds: "r" register (9-bit codes: 256+ = VGPR), "p" SGPR pair index,
    "q" SGPR quad index, "i" immediate, "-" a bit without an operand of its own.
    """
    return (count, base, fields)


def gfx11_encodings():
    return {
        "sop2": enc(0x60, lambda op: [0x80000000 | (op << 23)], (0, 16, [8, 0], "sdst", "r"), (0, 0, [2, 0], "ssrc0", "r"), (0, 8, [4, 0], "ssrc1", "r")),
        "sopk": enc(0x1D, lambda op: [0xB0000000 | (op << 23)], (0, 16, [8, 0], "sdst", "r"), (0, 0, [0x1234, 0], "simm16", "i")),
        "sop1": enc(0x100, lambda op: [0xBE800000 | (op << 8)], (0, 16, [8, 0], "sdst", "r"), (0, 0, [4, 0], "ssrc0", "r")),
        "sopc": enc(0x80, lambda op: [0xBF000000 | (op << 16)], (0, 0, [2, 0], "ssrc0", "r"), (0, 8, [4, 0], "ssrc1", "r")),
        "sopp": enc(0x80, lambda op: [0xBF800000 | (op << 16)], (0, 0, [3, 0], "simm16", "i")),
        "smem": enc(
            0x100,
            lambda op: [0xF4000000 | (op << 18), 0],
            (0, 6, [8, 0], "sdata", "r"),
            (0, 0, [2, 0], "sbase", "p"),
            (1, 0, [0x10, 0], "offset", "i"),
            (1, 25, [9, NULL], "soffset", "r"),
        ),
        # VDST 0 (absent): `v_pipeflush` decodes only with VDST = 0.
        "vop1": enc(0x100, lambda op: [0x7E000000 | (op << 9)], (0, 17, [2, 0], "vdst", "r"), (0, 0, [V(4), 4, 0], "src0", "r")),
        "vop2": enc(0x3E, lambda op: [op << 25], (0, 17, [2], "vdst", "r"), (0, 0, [V(4), 4, 0], "src0", "r"), (0, 9, [8, 0], "vsrc1", "r")),
        "vopc": enc(0x100, lambda op: [0x7C000000 | (op << 17)], (0, 0, [V(4), 4], "src0", "r"), (0, 9, [8], "vsrc1", "r")),
        "vop3": enc(
            0x400,
            lambda op: [0xD4000000 | (op << 16), 0],
            # `v_cmpx_*_e64` needs VDST = exec_lo (LLVM's C API rejects other values);
            # `v_pipeflush_e64` VDST = 0.
            (0, 0, [2, 0, 0x7E], "vdst", "r"),
            (1, 0, [V(4), 4, 0], "src0", "r"),
            (1, 9, [V(8), 6, 0], "src1", "r"),
            (1, 18, [V(16), 12, 0], "src2", "r"),
        ),
        "vop3p": enc(
            0x80,
            lambda op: [0xCC000000 | (op << 16), 0],
            (0, 0, [2], "vdst", "r"),
            (1, 0, [V(24), 4, 0], "src0", "r"),
            (1, 9, [V(40), 6, 0], "src1", "r"),
            (1, 18, [V(56), 12, 0], "src2", "r"),
            # OP_SEL_HI all ones (the default of most opcodes; gfx12 WMMA requires it).
            (0, 14, [1, 0], "opsel_hi2", "-"),
            (1, 27, [3, 0], "opsel_hi", "-"),
        ),
        "ds": enc(
            0x100,
            lambda op: [0xD8000000 | (op << 18), 0],
            (1, 24, [8, 0], "vdst", "r"),
            (1, 0, [1, 0], "addr", "r"),
            (1, 8, [2, 0], "data0", "r"),
            (1, 16, [4, 0], "data1", "r"),
        ),
        "flat": enc(
            0x80,
            lambda op: [0xDC000000 | (op << 18), NULL << 16],
            (1, 24, [8, 0], "vdst", "r"),
            (1, 0, [2, 0], "vaddr", "r"),
            (1, 8, [4, 0], "vdata", "r"),
        ),
        "global": enc(
            0x80,
            lambda op: [0xDC020000 | (op << 18), NULL << 16],
            (1, 24, [8, 0], "vdst", "r"),
            (1, 0, [2, 0], "vaddr", "r"),
            (1, 8, [4, 0], "vdata", "r"),
        ),
        "scratch": enc(
            0x80,
            lambda op: [0xDC010000 | (op << 18), NULL << 16],
            (1, 24, [8, 0], "vdst", "r"),
            (1, 0, [2, 0], "vaddr", "r"),
            (1, 8, [4, 0], "vdata", "r"),
            (1, 23, [1, 0], "sve", "-"),
        ),
        "mubuf": enc(
            0x100,
            lambda op: [0xE0000000 | (op << 18), (1 << 16) | (0x80 << 24)],
            (1, 8, [4, 0], "vdata", "r"),
            (1, 0, [1, 0], "vaddr", "r"),
            (1, 22, [1, 0], "offen", "-"),
        ),
        "mtbuf": enc(
            0x10,
            lambda op: [0xE8000000 | (op << 15) | (1 << 19), (1 << 16) | (0x80 << 24)],
            (1, 8, [4, 0], "vdata", "r"),
            (1, 0, [1, 0], "vaddr", "r"),
            (1, 22, [1, 0], "offen", "-"),
        ),
        "vinterp": enc(
            0x20,
            lambda op: [0xCD000000 | (op << 16), 0],
            (0, 0, [2], "vdst", "r"),
            (1, 0, [V(4)], "src0", "r"),
            (1, 9, [V(8)], "src1", "r"),
            (1, 18, [V(16)], "src2", "r"),
        ),
        "ldsdir": enc(4, lambda op: [0xCE000000 | (op << 20)], (0, 0, [2], "vdst", "r")),
        # Export has no opcode: one entry (`exp`/`export mrt0`, all four sources enabled).
        "exp": enc(1, lambda op: [0xF800000F, 0x04030201]),
    }


def gfx12_encodings():
    e = gfx11_encodings()
    e["smem"] = enc(
        0x40,
        lambda op: [0xF4000000 | (op << 13), 0],
        (0, 6, [8, 0], "sdata", "r"),
        (0, 0, [2, 0], "sbase", "p"),
        (1, 0, [0x10, 0], "offset", "i"),
        (1, 25, [9, NULL], "soffset", "r"),
    )
    del e["mtbuf"]
    for name, seg in (("flat", 0xEC), ("global", 0xEE), ("scratch", 0xED)):
        fields = [
            (1, 0, [8, 0], "vdst", "r"),
            (2, 0, [2, 0], "vaddr", "r"),
            (1, 23, [4, 0], "vdata", "r"),
        ]
        if name == "scratch":
            fields.append((1, 17, [1, 0], "sve", "-"))
        e[name] = enc(0x100, (lambda s: lambda op: [(s << 24) | (op << 14) | NULL, 0, 0])(seg), *fields)
    # VBUFFER: MUBUF opcodes 0x00..0x7F, MTBUF (`tbuffer_*`, FORMAT field) 0x80..0xFF.
    e["mubuf"] = enc(
        0x100,
        lambda op: [0xC4000000 | (op << 14) | NULL, (4 << 9) | ((1 if op >= 0x80 else 0) << 23), 0],
        (1, 0, [4, 0], "vdata", "r"),
        (2, 0, [1, 0], "vaddr", "r"),
        (1, 30, [1, 0], "offen", "-"),
    )
    return e


def vopd_words(opx, opy, vals=(1, V(4), 8, V(12), 16, 3)):
    """A VOPD word pair: X = vdstx, srcx0, vsrcx1; Y = srcy0, vsrcy1, vdsty (without LSB)."""
    vdx, sx0, vsx1, sy0, vsy1, vdy = vals
    w0 = 0xC8000000 | (opx << 22) | (opy << 17) | (vsx1 << 9) | sx0
    w1 = (vdx << 24) | (vdy << 17) | (vsy1 << 9) | sy0
    return [w0, w1]


# Bits the case generator randomises, per encoding and word (never opcode/encoding bits).
MUTABLE11 = {
    "sop2": [0x007FFFFF],
    "sopk": [0x007FFFFF],
    "sop1": [0x007F00FF],
    "sopc": [0x0000FFFF],
    "sopp": [0x0000FFFF],
    "smem": [0x00037FFF, 0xFE1FFFFF],
    "vop1": [0x01FE01FF],
    "vop2": [0x01FFFFFF],
    "vopc": [0x0001FFFF],
    "vop3": [0x0000FFFF, 0xFFFFFFFF],
    "vop3p": [0x0000FFFF, 0xFFFFFFFF],
    "ds": [0x0002FFFF, 0xFFFFFFFF],
    "flat": [0x0000FFFF, 0xFFFFFFFF],
    "global": [0x0000FFFF, 0xFFFFFFFF],
    "scratch": [0x0000FFFF, 0xFFFFFFFF],
    "mubuf": [0x00007FFF, 0xFFFFFFFF],
    "mtbuf": [0x03F87FFF, 0xFFFFFFFF],
    "vinterp": [0x0000FFFF, 0xFFFFFFFF],
    "ldsdir": [0x00CFFFFF],
    "exp": [0x00003FFF, 0xFFFFFFFF],
}
MUTABLE12 = dict(MUTABLE11)
MUTABLE12.update(
    {
        "smem": [0x01E01FFF, 0xFEFFFFFF],
        "ds": [0x0000FFFF, 0xFFFFFFFF],
        "flat": [0x0000007F, 0xFFFE00FF, 0xFFFFFFFF],
        "global": [0x0000007F, 0xFFFE00FF, 0xFFFFFFFF],
        "scratch": [0x0000007F, 0xFFFE00FF, 0xFFFFFFFF],
        "mubuf": [0x0040007F, 0xFFFFFFFF, 0xFFFFFFFF],
    }
)


def encodings(fam):
    return gfx11_encodings() if fam == "gfx1100" else gfx12_encodings()


def mutable(fam):
    return MUTABLE11 if fam == "gfx1100" else MUTABLE12


# ---------------------------------------------------------------------------------------
# Enumeration

def variants(spec, op):
    """All operand variants of opcode `op`, most populated first, as (words, field values)."""
    count, base, fields = spec
    combos = [[]]
    for f in fields:
        combos = [c + [i] for c in combos for i in range(len(f[2]))]
    absent = lambda f, i: len(f[2]) > 1 and i == len(f[2]) - 1
    combos.sort(key=lambda c: (sum(1 for f, i in zip(fields, c) if absent(f, i)), c))
    out = []
    for c in combos:
        words = list(base(op))
        vals = []
        for f, i in zip(fields, c):
            words[f[0]] |= f[2][i] << f[1]
            vals.append(None if absent(f, i) else f[2][i])
        out.append((words, vals))
    return out


OPND_RE = re.compile(r"^([vs])(?:\[(\d+):(\d+)\]|(\d+))(\.[lh])?$")


def parse_opnds(ops):
    """Printed operands -> (lo, count, kind) with kind 0 VGPR, 1 SGPR, 3 VGPR half; None."""
    out = []
    for o in ops:
        o = o.strip("|-")
        for p in ("neg(", "abs("):
            if o.startswith(p):
                o = o[len(p) : -1]
        m = OPND_RE.match(o)
        if not m:
            out.append(None)
            continue
        lo = int(m.group(2) if m.group(2) is not None else m.group(4))
        hi = int(m.group(3)) if m.group(3) is not None else lo
        kind = 3 if m.group(5) else "vs".index(m.group(1))
        out.append((lo, hi - lo + 1, kind))
    return out


def slot_widths(fields, vals, ops):
    """Register count and kind per operand slot (0 = absent; 1 for immediates)."""
    parsed = parse_opnds(ops)
    used = [False] * len(parsed)
    widths, kinds = [], []
    for f, v in zip(fields, vals):
        kind = f[4]
        if kind == "-":
            continue
        if kind == "i":
            w = 0
            if v is not None:
                for k, p in enumerate(parsed):
                    if not used[k] and p is None:
                        used[k] = True
                        w = 1
                        break
            widths.append(w)
            kinds.append(0)
            continue
        if v is None:
            widths.append(0)
            kinds.append(0)
            continue
        reg = v * 2 if kind == "p" else v * 4 if kind == "q" else (v - 256 if v >= 256 else v)
        w, kd = 0, 0
        for k, p in enumerate(parsed):
            if not used[k] and p is not None and p[0] == reg:
                used[k] = True
                w, kd = p[1], p[2]
                break
        widths.append(w)
        kinds.append(kd)
    return widths, kinds


def split_text(txt):
    parts = txt.split(None, 1)
    ops = []
    if len(parts) > 1:
        for o in parts[1].split(","):
            o = o.strip()
            if o:
                ops.append(o.split()[0])
    return parts[0], ops


def bad_text(txt):
    return "/*" in txt or "; Warning" in txt


def enumerate_family(fam, decode):
    """{(enc, op): (size, text, vals, words)} for every opcode LLVM decodes on `fam`."""
    cpu, feats = FAMILIES[fam]
    encs = encodings(fam)
    jobs = []
    for name, spec in encs.items():
        for op in range(spec[0]):
            for vi, (words, vals) in enumerate(variants(spec, op)):
                jobs.append((name, op, vi, words, vals))
    res = decode(cpu + ":" + feats, [j[3] for j in jobs])
    found = {}
    for k, (size, txt) in res.items():
        name, op, vi, words, vals = jobs[k]
        rank = (bad_text(txt), vi)
        key = (name, op)
        if key not in found or found[key][0] > rank:
            found[key] = (rank, size, txt, vals, words)
    return {k: v[1:] for k, v in found.items()}


def enumerate_vopd(fam, decode):
    """{("vopdx", opx) or ("vopdy", opy): text of that half} from every X/Y pairing."""
    cpu, feats = FAMILIES[fam]
    # One-source opcodes (`v_dual_mov_b32`) need VSRC1 = 0 on their side.
    vals = [(1, V(4), 8, V(12), 16, 3), (1, V(4), 0, V(12), 16, 3), (1, V(4), 8, V(12), 0, 3), (1, V(4), 0, V(12), 0, 3)]
    jobs = [(x, y, v) for v in vals for x in range(16) for y in range(32)]
    res = decode(cpu + ":" + feats, [vopd_words(x, y, v) for x, y, v in jobs])
    out = {}
    for k, (size, txt) in sorted(res.items()):
        if bad_text(txt) or "::" not in txt:
            continue
        x, y, _ = jobs[k]
        tx, ty = [t.strip() for t in txt.split("::")]
        out.setdefault(("vopdx", x), (size, tx))
        out.setdefault(("vopdy", y), (size, ty))
    return out


M_OPSEL, M_CLAMP, M_OMOD, M_OPSEL_HI, M_NEG_LO, M_NEG_HI, M_GLC, M_GDS, M_LIT16, M_OPSEL_HI_DEF1 = (1 << i for i in range(10))
M_ABS0, M_NEG0 = 1 << 10, 1 << 13
M_LITF16 = 1 << 16
M_SD = 1 << 17  # VOP3SD: SDST in word 0 bits [14:8]
M_HEX16 = 1 << 21  # 16-bit operand whose float inline constants print as f16 hex (`0x3c00`)
# Decoder hints from the mnemonic, so the decoder compares no strings.
M_CARRY = 1 << 22  # VOP2 `_e32` with implicit VCC carry-out and carry-in (`v_add_co_ci_u32`)
M_VCCIN = 1 << 23  # VOP2 `_e32` reading VCC as a third source (`v_cndmask_b32`)
M_CMPX = 1 << 24  # VOPC writing EXEC (`v_cmpx_*`)
M_SENDMSG = 1 << 25  # SOP1 whose SSRC0 is a message id (`s_sendmsg_rtn_*`)
M_IMM32 = 1 << 26  # SOPK followed by a 32-bit immediate (`s_setreg_imm32_b32`)
M_NODPP16 = 1 << 27  # no DPP16 form (source code 0xFA is invalid)
M_NODPP8 = 1 << 28  # no DPP8 form (source codes 0xE9/0xEA are invalid)
M_DPPMOD0 = 1 << 29  # VOP1/VOP2/VOPC DPP16: the DPP word's src0 neg/abs bits [21:20] are valid
M_DPPMOD1 = 1 << 30  # VOP1/VOP2/VOPC DPP16: the DPP word's src1 neg/abs bits [23:22] are valid
M_FAKE16_NOMODS = 1 << 31  # VOP3 true16: in the fake16 form, neg/abs of a source without them is invalid
# `RdnaInfo::extra` flags, kept above bit 32 of the `probe_mods` flags (shifted down on output).
X_SHIFT = 32
X_FAKE16 = 0xF  # VOP3 true16: the OP_SEL bits with which LLVM decodes the fake16 form
X_LDS_DIRECT = 0x10  # SALU, VOP1: the source takes `src_lds_direct` (code 0xFE; `s_barrier_*`, `v_readfirstlane_b32`)
X_SREG_ONLY = 0x20  # SOP1: the source takes no constant (`s_movrels_b32/b64`, `s_setpc_b64`): SRC_MAPS' register-only maps
X_OPSEL_IGN_SHIFT = 6
X_OPSEL_IGN = 0xF << X_OPSEL_IGN_SHIFT  # VOP3: the OP_SEL bits LLVM decodes and ignores (the packed sources of `v_dot2_f16_f16`)
# VOP3P: how LLVM shows a constant or literal in a source of several VGPRs (WMMA's C), in
# wave32 (bits 10..12) and wave64 (bits 13..15): one of the `WIDE_*` kinds (0: not probed).
X_WIDE_SHIFT = 10
X_WIDE64_SHIFT = 13
WIDE_B32, WIDE_F16, WIDE_BF16, WIDE_F64 = 1, 2, 3, 4
# VOP3 `byte_sel:N` (gfx12 FP8 converts): the OP_SEL bits that add 1 to N (bits 18..21) and
# those that add 2 (bits 22..25), probed one bit at a time.
X_BYTE_SEL1_SHIFT, X_BYTE_SEL2_SHIFT = 18, 22
# VOP3/VOP3P DPP16: LLVM decodes DPP_CTRL[7:0] like a source code (the tied-destination
# `v_fma_mixlo/mixhi_f16`, `v_cvt_pk_fp8_f32`): 128..192 show as the integer, the other
# constants are invalid.
X_DPP_CTRL_SRC = 1 << 17


def hint_flags(mnem):
    f = 0
    if re.match(r"v_(add|sub|subrev)_co_ci_u32", mnem):
        f |= M_CARRY
    if mnem.startswith("v_cndmask"):
        f |= M_VCCIN
    if mnem.startswith("v_cmpx"):
        f |= M_CMPX
    if mnem.startswith("s_sendmsg_rtn"):
        f |= M_SENDMSG
    if mnem == "s_setreg_imm32_b32":
        f |= M_IMM32
    return f
M_SRCMODS = 0x3F << 10
LIT_PROBE = 0x56781234


def probe_mods(fam, found, decode):
    """Returns {(enc, op): MOD flags} from canonical words with modifier bits set."""
    cpu, feats = FAMILIES[fam]
    cands, keys = [], []

    def add(key, words, kw, flag):
        cands.append(words)
        keys.append((key, kw, flag))

    for key, (size, txt, vals, words) in sorted(found.items()):
        name = key[0]
        if name == "vop3":
            w = list(words)
            w[0] |= 10 << 8
            add(key, w, "SD", M_SD)
            for wi, bits, kw, flag in [(0, 0x0800 << i, "op_sel:", M_OPSEL) for i in range(4)] + [(0, 0x8000, " clamp", M_CLAMP), (1, 1 << 27, " mul:2", M_OMOD)] + [
                (0, 0x100 << i, "|", M_ABS0 << i) for i in range(3)
            ] + [(1, 1 << (29 + i), "-", M_NEG0 << i) for i in range(3)]:
                w = list(words)
                w[wi] |= bits
                add(key, w, kw, flag)
        if name == "vop3p":
            # NEG_LO/NEG_HI of each source: the FP8/BF8 WMMAs take them on C only.
            for wi, bits, kw, flag in [
                (0, 0x0800, "op_sel:", M_OPSEL),
                (1, 1 << 29, "neg_lo:", M_NEG_LO),
                (1, 1 << 30, "neg_lo:", M_NEG_LO),
                (1, 1 << 31, "neg_lo:", M_NEG_LO),
                (0, 0x100, "neg_hi:", M_NEG_HI),
                (0, 0x200, "neg_hi:", M_NEG_HI),
                (0, 0x400, "neg_hi:", M_NEG_HI),
                (0, 0x8000, " clamp", M_CLAMP),
            ]:
                w = list(words)
                w[wi] |= bits
                add(key, w, kw, flag)
            # OP_SEL_HI cleared: printed when the default is all ones.
            add(key, [words[0] & ~0x4000, words[1] & ~(3 << 27)], "op_sel_hi:", M_OPSEL_HI | M_OPSEL_HI_DEF1)
        if name == "vinterp":
            for wi, bits, kw, flag in [(0, 0x0800 << i, "op_sel:", M_OPSEL) for i in range(4)] + [(0, 0x8000, " clamp", M_CLAMP)] + [
                (1, 1 << (29 + i), "-", M_NEG0 << i) for i in range(3)
            ]:
                w = list(words)
                w[wi] |= bits
                add(key, w, kw, flag)
        if name == "smem" and fam == "gfx1100":
            w = list(words)
            w[0] |= 1 << 14
            add(key, w, " glc", M_GLC)
        if name == "ds" and fam == "gfx1100":
            w = list(words)
            w[0] |= 1 << 17
            add(key, w, " gds", M_GDS)
        if name in ("vop1", "vop2", "vopc"):
            add(key, [(words[0] & ~0x1FF) | 0xFF, LIT_PROBE], "0x%x" % (LIT_PROBE & 0xFFFF), M_LIT16)
            add(key, [(words[0] & ~0x1FF) | 0xFF, 0x3C00], "lit(0x3c00)", M_LITF16)
            add(key, [(words[0] & ~0x1FF) | 0xF2], "0x3c00", M_HEX16)
        if name in ("sop1", "sop2", "sopc") and vals[1 if name != "sopc" else 0] is not None:
            add(key, [(words[0] & ~0xFF) | 0xFF, LIT_PROBE], "0x%x" % (LIT_PROBE & 0xFFFF), M_LIT16)
            add(key, [(words[0] & ~0xFF) | 0xFF, 0x3C00], "lit(0x3c00)", M_LITF16)
            add(key, [(words[0] & ~0xFF) | 0xF2], "0x3c00", M_HEX16)
        if name in ("vop3", "vop3p"):
            add(key, [words[0], (words[1] & ~0x1FF) | 0xFF, LIT_PROBE], "0x%x" % (LIT_PROBE & 0xFFFF), M_LIT16)
            add(key, [words[0], (words[1] & ~0x1FF) | 0xFF, 0x3C00], "lit(0x3c00)", M_LITF16)
            add(key, [words[0], (words[1] & ~0x1FF) | 0xF2], "0x3c00", M_HEX16)
    res = decode(cpu + ":" + feats, cands)
    flags = {}
    opsel_bit = {}
    for i, (key, kw, flag) in enumerate(keys):
        f = flags.get(key, 0)
        if key[0] == "vop3" and flag == M_OPSEL:
            # Which OP_SEL bit this probe sets (the four probes of an opcode in order).
            b = opsel_bit[key] = opsel_bit.get(key, -1) + 1
            # A bit LLVM accepts without any change to the text is ignored (not printed,
            # no `.h`): the decoder clears it.
            if i in res and not bad_text(res[i][1]) and res[i][1] == found[key][1]:
                f |= (1 << b) << (X_OPSEL_IGN_SHIFT + X_SHIFT)
            m = i in res and not bad_text(res[i][1]) and re.search(r" byte_sel:([12])\b", res[i][1])
            if m:
                f |= (1 << b) << ((X_BYTE_SEL1_SHIFT if m.group(1) == "1" else X_BYTE_SEL2_SHIFT) + X_SHIFT)
        if i in res and not bad_text(res[i][1]):
            txt = res[i][1]
            ops = split_text(txt)[1]
            if flag == M_SD:
                if len(ops) > 1 and ops[1] == "s10":
                    f |= flag
            elif kw == "-":
                if "-" in " ".join(ops):
                    f |= flag
            elif flag == M_LIT16:
                if re.search(r"\b%s\b" % kw, txt):
                    f |= flag
            elif kw in txt:
                f |= flag
        flags[key] = f
    for key, (size, txt, vals, words) in found.items():
        if key[0] == "vop3p" and "op_sel_hi:" in txt:
            flags[key] = flags.get(key, 0) | M_OPSEL_HI  # printed although all ones: default 0
        if key[0] == "vop3" and flags.get(key, 0) & M_SD:
            # ABS/OPSEL bits are the SDST field: the modifier probes above misread them.
            flags[key] &= ~(M_OPSEL | M_ABS0 * 7 | X_OPSEL_IGN << X_SHIFT)
        if key[0] == "vop3" and not flags.get(key, 0) & M_OPSEL:
            # Without any OP_SEL syntax the decoder ignores OP_SEL anyway.
            flags[key] = flags.get(key, 0) & ~(X_OPSEL_IGN << X_SHIFT)
    # DPP forms: the canonical word with DPP16 (quad_perm identity, all rows and banks) or
    # DPP8 (identity) on source 0.
    cands, keys = [], []
    for key, (size, txt, vals, words) in sorted(found.items()):
        if key[0] in ("vop1", "vop2", "vopc"):
            w0, rest = (words[0] & ~0x1FF), []
        elif key[0] in ("vop3", "vop3p"):
            w0, rest = words[0], [words[1] & ~0x1FF]
        else:
            continue
        for code, ext, flag in ((0xFA, 0xFF00E404, M_NODPP16), (0xE9, 0x00FAC688 << 8 | 4, M_NODPP8)):
            ext &= 0xFFFFFFFF
            if rest:
                cands.append([w0, rest[0] | code, ext])
            else:
                cands.append([w0 | code, ext])
            keys.append((key, flag))
    # DPP16 source modifier bits of the 32-bit encodings (DPP word bits 20..23: neg/abs of
    # src0, src1), one at a time: LLVM rejects the word where the opcode lacks them.
    for key, (size, txt, vals, words) in sorted(found.items()):
        if key[0] in ("vop1", "vop2", "vopc"):
            for b in range(20, 24):
                cands.append([(words[0] & ~0x1FF) | 0xFA, 0xFF00E404 | (1 << b)])
                keys.append((key, b))
    res = decode(cpu + ":" + feats, cands)
    dppmod = {}
    for i, (key, flag) in enumerate(keys):
        ok = i in res and not bad_text(res[i][1])
        if flag in range(20, 24):
            dppmod.setdefault(key, []).append(ok)
        elif not ok:
            flags[key] = flags.get(key, 0) | flag
    for key, (neg0, abs0, neg1, abs1) in dppmod.items():
        if neg0 != abs0 or neg1 != abs1:
            raise SystemExit("%s %r: DPP16 neg and abs bits of a source differ in validity" % (fam, key))
        flags[key] = flags.get(key, 0) | (M_DPPMOD0 if neg0 else 0) | (M_DPPMOD1 if neg1 else 0)
    # true16 VOP3 opcodes with an OP_SEL bit of a missing source set: LLVM falls back to the
    # fake16 form, where neg/abs bits of a source without modifiers may be invalid.
    cands, keys = [], []
    def nsrc_of(key):
        # Printed operands minus the destination (`v_cmpx_*_e64` has none).
        return len(split_text(found[key][1])[1]) - (found[key][2][0] is not None)

    for key, (size, txt, vals, words) in sorted(found.items()):
        if key[0] != "vop3":
            continue
        nsrc = nsrc_of(key)
        if flags.get(key, 0) & M_SD or not re.search(r"\.[lh]\b", txt) or nsrc >= 3:
            continue
        base = [words[0] | (0x800 << nsrc), words[1]]
        cands.append(base)
        keys.append((key, 0))
        for i in range(nsrc):
            for wi, bit, flag in ((0, 8 + i, M_ABS0 << i), (1, 29 + i, M_NEG0 << i)):
                w = list(base)
                w[wi] |= 1 << bit
                cands.append(w)
                keys.append((key, flag))
    res = decode(cpu + ":" + feats, cands)
    rejected, base_ok = {}, set()
    for i, (key, flag) in enumerate(keys):
        ok = i in res and not bad_text(res[i][1])
        if flag == 0 and ok:
            base_ok.add(key)
        elif not ok:
            rejected[key] = rejected.get(key, 0) | flag
    for key, r in rejected.items():
        if key not in base_ok:
            continue  # no fake16 form: the OP_SEL bit is a fixed bit
        nsrc = nsrc_of(key)
        mine = sum((M_ABS0 | M_NEG0) << i for i in range(nsrc))
        if r != mine & ~flags.get(key, 0):
            raise SystemExit("%s %r: fake16 rejects neg/abs bits %#x, not those of its sources without modifiers" % (fam, key, r))
        flags[key] = flags.get(key, 0) | M_FAKE16_NOMODS
    # true16 VOP3: each OP_SEL bit on its own; where LLVM then prints the operands without
    # `.l`/`.h` it has fallen back to the fake16 form (OP_SEL of an operand the true16 form
    # lacks: a missing source or destination, `v_fmac_f16`'s tied accumulator, the lane mask
    # of `v_cndmask_b16`). SALU: the source field set to 0xFE (`src_lds_direct`), which the
    # SALU source map rejects but the `s_barrier_*` operand class accepts.
    cands, keys = [], []
    for key, (size, txt, vals, words) in sorted(found.items()):
        if key[0] == "vop3" and not flags.get(key, 0) & M_SD and re.search(r"\.[lh]\b", txt):
            for b in range(4):
                cands.append([words[0] | (0x800 << b), words[1]])
                keys.append((key, 1 << b))
        if key[0] == "sop1" and vals[1] is not None and not hint_flags(split_text(txt)[0]) & M_SENDMSG:
            cands.append([(words[0] & ~0xFF) | 0xFE])
            keys.append((key, X_LDS_DIRECT))
            cands.append([(words[0] & ~0xFF) | 0x80])
            keys.append((key, X_SREG_ONLY))
        if key[0] == "vop1" and vals[1] is not None:
            # VOP1: a VGPR-only SRC0 that takes `src_lds_direct` (`v_readfirstlane_b32`).
            cands.append([(words[0] & ~0x1FF) | 0xFE])
            keys.append((key, X_LDS_DIRECT))
    res = decode(cpu + ":" + feats, cands)
    for i, (key, x) in enumerate(keys):
        if x == X_SREG_ONLY:
            if i in res and "Invalid immediate" in res[i][1]:
                flags[key] = flags.get(key, 0) | x << X_SHIFT
            continue
        if i not in res or bad_text(res[i][1]):
            continue
        if x == X_LDS_DIRECT and "src_lds_direct" in res[i][1] or x != X_LDS_DIRECT and not re.search(r"\.[lh]\b", res[i][1]):
            flags[key] = flags.get(key, 0) | x << X_SHIFT
    # VOP3/VOP3P DPP16 with quad_perm:[1,1,0,2] (control 0x85): shown as [1,1,0,0] where
    # LLVM reads the control as a source code (0x85 = the integer 5; opcodes with a tied
    # destination, `v_fma_mixlo_f16`, `v_cvt_pk_fp8_f32`).
    cands, keys = [], []
    for key, (size, txt, vals, words) in sorted(found.items()):
        if key[0] in ("vop3", "vop3p") and not flags.get(key, 0) & M_NODPP16:
            cands.append([words[0], (words[1] & ~0x1FF) | 0xFA, 0xFF008500 | 4])
            keys.append(key)
    res = decode(cpu + ":" + feats, cands)
    for i, key in enumerate(keys):
        if i in res and "quad_perm:[1,1,0,0]" in res[i][1]:
            flags[key] = flags.get(key, 0) | X_DPP_CTRL_SRC << X_SHIFT
    # VOP3: per source, whether LLVM shows the f16 inline constant 1.0 (code 0xF2) as
    # `0x3c00` (a 16-bit integer or packed operand) or `1.0`: `v_dot2_f16_f16 v2.l, 0x3c00,
    # v8, 1.0`.
    cands, keys = [], []
    fields = encodings(fam)["vop3"][2]
    for key, (size, txt, vals, words) in sorted(found.items()):
        if key[0] != "vop3" or flags.get(key, 0) & M_SD:
            continue
        widths = slot_widths(fields, vals, split_text(txt)[1])[0]
        for i in range(3):
            if widths[i + 1] == 1:
                cands.append([words[0], (words[1] & ~(0x1FF << (9 * i))) | 0xF2 << (9 * i)])
                keys.append((key, i))
    res = decode(cpu + ":" + feats, cands)
    for j, (key, i) in enumerate(keys):
        r = res.get(j)
        if r is None or bad_text(r[1]):
            continue
        ops = split_text(r[1])[1]
        if "0x3c00" in ops:
            flags[key] = flags.get(key, 0) | ((1 << i) << X_HEX16_SRC_SHIFT | X_HEX16_PROBED) << X_SHIFT
        elif "1.0" in ops:
            flags[key] = flags.get(key, 0) | X_HEX16_PROBED << X_SHIFT
    for key, bits in vop3_packed_lits(fam, found, decode, flags).items():
        flags[key] = flags.get(key, 0) | bits << X_SHIFT
    for key, bits in vop3p_lit_kinds(fam, found, decode, flags).items():
        flags[key] = flags.get(key, 0) | bits << X_SHIFT
    for key, bits in e32_lit_kinds(fam, found, decode).items():
        flags[key] = flags.get(key, 0) | bits << X_SHIFT
    for key, kinds in wide_src_kinds(fam, found, decode).items():
        flags[key] = flags.get(key, 0) | (kinds[0] << X_WIDE_SHIFT | kinds[1] << X_WIDE64_SHIFT) << X_SHIFT
    e64 = {}
    for key, (size, txt, vals, words) in found.items():
        if key[0] == "vop3":
            e64[base_mnemonic(split_text(txt)[0])] = flags.get(key, 0) & M_SRCMODS
    for key, (size, txt, vals, words) in found.items():
        if key[0] in ("vop1", "vop2", "vopc"):
            b = base_mnemonic(split_text(txt)[0])
            # Opcodes without a VOP3 form (`v_dot2acc_f32_f16`) take every DPP modifier.
            flags[key] = flags.get(key, 0) | e64.get(b, M_SRCMODS)
    return flags


# Literals probed in a multi-VGPR VOP3P source, and the inline constants of each kind of
# `wide_src_kinds` (f32 bit patterns; bf16 and f16 ones in the low half; f64 high dwords).
WIDE_LITERALS = [0x3FF00000, 0x00000000, 0x3FC45F30, 0x12343C00, 0x12343F80, 0x3E22F983, 0xFFFF0000, 0x00000001, 0x00003118]
F32_INLINE = [0x3F000000, 0xBF000000, 0x3F800000, 0xBF800000, 0x40000000, 0xC0000000, 0x40800000, 0xC0800000, 0x3E22F983]
F16_INLINE = [0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000, 0xC000, 0x4400, 0xC400, 0x3118]
BF16_INLINE = [0x3F00, 0xBF00, 0x3F80, 0xBF80, 0x4000, 0xC000, 0x4080, 0xC080, 0x3E22]
F64_HI_INLINE = {0x3FE00000: "0.5", 0xBFE00000: "-0.5", 0x3FF00000: "1.0", 0xBFF00000: "-1.0", 0x40000000: "2.0", 0xC0000000: "-2.0", 0x40100000: "4.0", 0xC0100000: "-4.0", 0: "0"}


def wide_text(kind, v):
    """How a decoder of `kind` would show literal `v` (the rules the printer implements)."""
    sint = lambda x, bits: x - (1 << bits) if x >> (bits - 1) else x
    lo = v & 0xFFFF
    if kind == WIDE_B32:
        return "lit(0x%x)" % v if -16 <= sint(v, 32) <= 64 or v in F32_INLINE else "0x%x" % v
    if kind == WIDE_F16:
        return "lit(0x%x)" % v if -16 <= sint(lo, 16) <= 64 or lo in F16_INLINE else "0x%x" % lo
    if kind == WIDE_BF16:
        return "lit(0x%x)" % v if -16 <= sint(lo, 16) <= 64 or lo in BF16_INLINE else "0x%x" % v
    # The literal is the high dword of an f64: shown as the inline constant it then equals.
    return F64_HI_INLINE.get(v, "0x%x" % v)


def wide_src_kinds(fam, found, decode):
    """{VOP3P key: (wave32 kind, wave64 kind)} for the opcodes whose SRC2 spans several VGPRs
    (WMMA's C): the `WIDE_*` rule under which LLVM shows 1/(2*pi) (code 0xF8) and the
    `WIDE_LITERALS` there, probed in each wave size; the generator fails if no rule fits."""
    cpu, feats = FAMILIES[fam]
    keys = [k for k, v in sorted(found.items()) if k[0] == "vop3p" and len(split_text(v[1])[1]) > 3 and re.match(r"v\[\d+:\d+\]$", split_text(v[1])[1][3])]
    out = {}
    for wi, extra in enumerate(("", W64)):
        cands = []
        for k in keys:
            w0, w1 = found[k][3][:2]
            w1 &= ~(0x1FF << 18)
            cands.append([w0, w1 | 0xF8 << 18])
            cands += [[w0, w1 | 0xFF << 18, v] for v in WIDE_LITERALS]
        res = decode(cpu + ":" + feats + extra, cands)
        n = 1 + len(WIDE_LITERALS)
        for i, k in enumerate(keys):
            got = []
            for j in range(n):
                r = res.get(i * n + j)
                got.append(None if r is None or bad_text(r[1]) else split_text(r[1])[1][3])
            if None in got:
                continue  # constants are not valid there: nothing to show
            kinds = [
                kind
                for kind in (WIDE_B32, WIDE_F16, WIDE_BF16, WIDE_F64)
                if got[0] == ("0.15915494309189532" if kind == WIDE_F64 else "0.15915494")
                and got[1:] == [wide_text(kind, v) for v in WIDE_LITERALS]
            ]
            if len(kinds) != 1:
                raise SystemExit("%s %r: LLVM shows wide-source literals %r, which fit %d rules" % (fam, k, got, len(kinds)))
            out.setdefault(k, [0, 0])[wi] = kinds[0]
    return out


# VOP3P: per source, the rule under which LLVM marks a literal `lit(...)` (2 bits per source
# from bit 26 of `RdnaInfo::extra`): LIT_B32 a 32-bit inline value (integer or f32 constant),
# LIT_V2F16 an integer or a zero-high f16 constant, LIT_V2BF16 the same with bf16
# constants, LIT_INT an integer only (LLVM's inline encodings per operand type).
X_LITK_SHIFT = 26
# VOP3 (bits 26..28): source i shows the f16 inline constants in hex (`0x3c00`, not `1.0`);
# bit 29: those bits were probed (some source takes inline constants).
X_HEX16_SRC_SHIFT = 26
X_HEX16_PROBED = 1 << 29
LIT_B32, LIT_V2F16, LIT_V2BF16, LIT_INT = 0, 1, 2, 3
# VOP3 (bits 10..15, 2 per source): `LIT_V2F16`/`LIT_V2BF16` where a 32-bit source marks
# literals by a packed rule, else 0 (the opcode's rule).
X_LITK3_SHIFT = 10
# VOP3P: LLVM marks a literal of any source by the f32 or the f16 rule (`v_fma_mix*`).
X_LIT_MIX = 1 << 16
# Probe literals: only an f32 / f16 / bf16 constant marked, then an integer (all kinds).
LITK_PROBES = (0x3F800000, 0x00003C00, 0x00003F80, 0xFFFFFFF0)


# The inline-constant source codes (integers 0..64, -1..-16, the float constants; RDNA4 ISA
# 7.1 "Scalar Operands"): probed as a class in the sources that may refuse them.
INLINE_CODES = tuple(range(0x80, 0xD1)) + tuple(range(0xF0, 0xF9))
# A few of them first (0, -1, 0.5, 1/(2*pi)); the whole class where one is flagged.
INLINE_PROBES = (0x80, 0xC1, 0xF0, 0xF8)
# `*_VOP3_NOLIT` bits per source i: a literal is flagged (i), an inline constant is (3 + i);
# wave32 in bits 0..5, wave64 in bits 6..11.
NOLIT_CONST = 3
NOLIT_W64 = 6


def vop3_nolit(fam, found, flags, decode):
    """{VOP3 opcode: source bits} of the sources where LLVM decodes a literal or an inline
    constant but flags it (`/*Invalid immediate*/`: the lane mask of `v_cndmask_b32_e64` and
    of the carry-in `v_*_co_ci_u32_e64`, the VGPR-only source of gfx12 `v_movrels_b32_e64`),
    per wave size (`NOLIT_*` layout); the decoder rejects such words. The generator fails
    where LLVM flags some inline constants of a source and not others."""
    cpu, feats = FAMILIES[fam]
    fields = encodings(fam)["vop3"][2]
    srcs = []
    for key, (size, txt, vals, words) in sorted(found.items()):
        if key[0] != "vop3":
            continue
        widths = slot_widths(fields, vals, split_text(txt)[1])[0]
        for i in range(3):
            if widths[i + 1] == 1:
                srcs.append((key, i, words))

    def probe(codes, which):
        jobs, cands = [], []
        for key, i, words in which:
            for c in codes:
                cands.append([words[0], (words[1] & ~(0x1FF << (9 * i))) | (c << (9 * i)), 0x12345678])
                jobs.append((key, i, c))
        got = {}
        for w, wf in ((0, ""), (NOLIT_W64, W64)):
            res = decode(cpu + ":" + feats + wf, cands)
            for j, (key, i, c) in enumerate(jobs):
                r = res.get(j)
                got[(key, i, c, w)] = r is not None and "Invalid immediate" in r[1]
        return got

    first = probe((0xFF,) + INLINE_PROBES, srcs)
    again = [(k, i, ws) for k, i, ws in srcs if any(first[(k, i, c, w)] for c in INLINE_PROBES for w in (0, NOLIT_W64))]
    full = probe(INLINE_CODES, again)
    out = {}
    for key, i, _ in srcs:
        for w in (0, NOLIT_W64):
            if first[(key, i, 0xFF, w)]:
                out[key[1]] = out.get(key[1], 0) | 1 << (w + i)
            if (key, i, 0x80, w) in full:
                flagged = {c for c in INLINE_CODES if full[(key, i, c, w)]}
                if flagged and flagged != set(INLINE_CODES):
                    raise SystemExit("%s %r: LLVM flags inline constants %s of source %d, not all" % (fam, key, sorted(flagged), i))
                if flagged:
                    out[key[1]] = out.get(key[1], 0) | 1 << (w + NOLIT_CONST + i)
    return out


def rust_vop3_nolit(fam, nolit):
    return [
        "/// %s VOP3 opcodes whose sources take no literal or no inline constant (LLVM flags it):" % fam,
        "/// bit i: source i takes no literal, bit 3 + i: no inline constant; wave32 in bits 0..5,",
        "/// wave64 in bits 6..11.",
        "pub static %s_VOP3_NOLIT: [(u16, u16); %d] = [%s];\n" % (fam.upper(), len(nolit), ", ".join("(0x%03x, 0x%03x)" % kv for kv in sorted(nolit.items()))),
    ]


# VOP3 `X_LITK3` kind 3: a 16-bit bf16 source (`v_dot2_bf16_bf16`'s accumulator) whose
# literal LLVM shows as the whole dword, marked when its low half is an integer (-16..64)
# or a bf16 float inline constant; probed with these literals and LLVM's texts for them.
LIT_BF16LO = 3
BF16LO_PROBES = ((0x12343F80, "lit(0x12343f80)"), (0x3E22F983, "0x3e22f983"), (0x12340040, "lit(0x12340040)"), (0x12343C00, "0x12343c00"))


def vop3_packed_lits(fam, found, decode, flags):
    """{VOP3 key: X_LITK3 bits}: the 32-bit sources of VOP3 opcodes where LLVM marks a literal
    by a packed rule (`LIT_V2F16`, `LIT_V2BF16`: `v_dot2_f16_f16 v2.l, lit(0x3c00), v8,
    v12.l` but `0x3f800000`); the other sources keep the opcode's rule."""
    cpu, feats = FAMILIES[fam]
    jobs, cands = [], []
    fields = encodings(fam)["vop3"][2]
    for key, (size, txt, vals, words) in sorted(found.items()):
        if key[0] != "vop3" or flags.get(key, 0) & M_SD:
            continue
        widths, kinds = slot_widths(fields, vals, split_text(txt)[1])
        for i in range(3):
            if widths[i + 1] != 1 or kinds[i + 1] != 0:
                continue
            for v in LITK_PROBES:
                w1 = (words[1] & ~(0x1FF << (9 * i))) | (0xFF << (9 * i))
                cands.append([words[0], w1, v])
                jobs.append((key, i, v))
                if i and not flags.get(key, 0) & M_NODPP16:
                    cands.append([words[0], (w1 & ~0x1FF) | 0xFA, 0xFF00E404, v])
                    jobs.append((key + ("dpp",), i, v))
    res = decode(cpu + ":" + feats, cands)
    marks = {}
    for j, (key, i, v) in enumerate(jobs):
        r = res.get(j)
        ok = r is not None and not bad_text(r[1]) and (len(key) == 2 or "_dpp" in split_text(r[1])[0])
        ops = split_text(r[1])[1] if ok else []
        marks.setdefault((key, i), {})[v] = any(o.startswith("lit(") for o in ops) if ok else None
    out = {}
    packed = {LIT_V2F16: (False, True, False, True), LIT_V2BF16: (False, False, True, True)}
    for (key, i), m in sorted(marks.items()):
        got = tuple(m[v] for v in LITK_PROBES)
        for kind, p in packed.items():
            if len(key) == 2 and got == p:
                out[key] = out.get(key, 0) | kind << (X_LITK3_SHIFT + 2 * i)
    # A bf16 source LLVM shows whole and marks by its low half (`LIT_BF16LO`).
    jobs, cands = [], []
    for key, (size, txt, vals, words) in sorted(found.items()):
        if key[0] != "vop3" or flags.get(key, 0) & M_SD:
            continue
        for i in range(3):
            # Every present source: the 16-bit ones (`v16.l`) have no register width here.
            if vals[1 + i] is None or out.get(key, 0) >> (X_LITK3_SHIFT + 2 * i) & 3:
                continue
            for v, _ in BF16LO_PROBES:
                cands.append([words[0], (words[1] & ~(0x1FF << (9 * i))) | (0xFF << (9 * i)), v])
                jobs.append((key, i))
    res = decode(cpu + ":" + feats, cands)
    shown = {}
    for j, (key, i) in enumerate(jobs):
        r = res.get(j)
        ops = split_text(r[1])[1] if r is not None and not bad_text(r[1]) else []
        shown.setdefault((key, i), []).append(next((o for o in ops if "0x" in o), None))
    for (key, i), texts in sorted(shown.items()):
        if texts == [t for _, t in BF16LO_PROBES]:
            out[key] = out.get(key, 0) | LIT_BF16LO << (X_LITK3_SHIFT + 2 * i)
    # In the DPP16 form a packed source marks by the f32 rule as well (the printer's rule).
    for (key, i), m in sorted(marks.items()):
        kind = out.get(key[:2], 0) >> (X_LITK3_SHIFT + 2 * i) & 3
        got = tuple(m[v] for v in LITK_PROBES)
        if len(key) == 3 and kind in packed and None not in got and got != tuple(a or b for a, b in zip((True, False, False, True), packed[kind])):
            raise SystemExit("%s %r: DPP16 source %d marks literals %r, not by the f32 or its packed rule" % (fam, key[:2], i, got))
    return out


def e32_lit_kinds(fam, found, decode):
    """{VOP1/VOP2/VOPC key: X_LITK bits of source 0}: the `_e32` opcodes whose 32-bit SRC0
    LLVM marks a literal of by a packed or integer rule instead of the f32 one
    (`v_pk_fmac_f16 v2, 0x3f800000, v8` but `lit(0x40)`: `LIT_INT`; `v_dot2acc_f32_f16 v2,
    lit(0x3c00), v8`: `LIT_V2F16`); 0 (the opcode's rule) elsewhere."""
    cpu, feats = FAMILIES[fam]
    jobs, cands = [], []
    for key, (size, txt, vals, words) in sorted(found.items()):
        if key[0] not in ("vop1", "vop2", "vopc"):
            continue
        for v in LITK_PROBES:
            cands.append([(words[0] & ~0x1FF) | 0xFF, v])
            jobs.append((key, v))
    res = decode(cpu + ":" + feats, cands)
    marks = {}
    for j, (key, v) in enumerate(jobs):
        r = res.get(j)
        ops = split_text(r[1])[1] if r is not None and not bad_text(r[1]) else []
        lit = next((o for o in ops if "0x" in o or o.startswith("lit(")), None)
        marks.setdefault(key, {})[v] = lit
    rules = {LIT_V2F16: (False, True, False, True), LIT_V2BF16: (False, False, True, True), LIT_INT: (False, False, False, True)}
    out = {}
    for key, m in sorted(marks.items()):
        # Only 32-bit sources (the whole dword shown).
        if m[0x3F800000] not in ("0x3f800000", "lit(0x3f800000)"):
            continue
        got = tuple(m[v] is not None and m[v].startswith("lit(") for v in LITK_PROBES)
        for kind, p in rules.items():
            if got == p:
                out[key] = kind << X_LITK_SHIFT
    return out


def vopd_lit_kinds(fam, vopd, decode):
    """{("vopdx"/"vopdy", op): X_LITK bits of SRC0 << X_SHIFT}: the VOPD halves whose SRC0
    LLVM marks a literal of by a packed or integer rule (`v_dual_dot2acc_f32_f16 v2,
    lit(0x3c00), v8 :: ...`), probed with `v_dual_mov_b32` as the other half."""
    cpu, feats = FAMILIES[fam]
    mov = {k[0]: k[1] for k, (size, txt) in vopd.items() if split_text(txt)[0] == "v_dual_mov_b32"}
    if len(mov) != 2:
        raise SystemExit("%s: no v_dual_mov_b32 in both VOPD halves" % fam)
    jobs, cands = [], []
    for key in sorted(vopd):
        for v1 in (8, 0):
            for v in LITK_PROBES:
                if key[0] == "vopdx":
                    w = vopd_words(key[1], mov["vopdy"], (1, 0xFF, v1, V(5), 0, 3))
                else:
                    w = vopd_words(mov["vopdx"], key[1], (1, V(5), 0, 0xFF, v1, 3))
                cands.append(w + [v])
                jobs.append((key, v1, v))
    res = decode(cpu + ":" + feats, cands)
    marks = {}
    for j, (key, v1, v) in enumerate(jobs):
        r = res.get(j)
        if r is None or bad_text(r[1]) or "::" not in r[1]:
            continue
        half = r[1].split("::")[0 if key[0] == "vopdx" else 1]
        ops = split_text(half.strip())[1]
        marks.setdefault((key, v1), {})[v] = ops[1] if len(ops) > 1 else None
    rules = {LIT_V2F16: (False, True, False, True), LIT_V2BF16: (False, False, True, True), LIT_INT: (False, False, False, True)}
    out = {}
    for (key, v1), m in sorted(marks.items()):
        if key in out or len(m) != len(LITK_PROBES) or m[0x3F800000] not in ("0x3f800000", "lit(0x3f800000)"):
            continue
        got = tuple(m[v] is not None and m[v].startswith("lit(") for v in LITK_PROBES)
        for kind, p in rules.items():
            if got == p:
                out[key] = (kind << X_LITK_SHIFT) << X_SHIFT
    return out


def vop3p_lit_kinds(fam, found, decode, flags):
    """{VOP3P key: X_LITK bits} for the 32-bit sources of every VOP3P opcode that prints its
    literals whole (no `M_LIT16`): which `LIT_*` rule LLVM marks a literal by there
    (`v_dot2_f32_f16`: packed f16 sources, an f32 accumulator; `v_pk_add_f16 v2,
    0x3f800000, v4` but `lit(0x3c00)`). In the DPP16 form (sources 1 and 2) LLVM marks by
    the f32 rule as well (`v_dot2_f32_f16_e64_dpp v2, v4, lit(0x3f800000), v12`): checked
    here. The generator fails where no rule fits."""
    cpu, feats = FAMILIES[fam]
    jobs, cands = [], []
    fields = encodings(fam)["vop3p"][2]
    for key, (size, txt, vals, words) in sorted(found.items()):
        if key[0] != "vop3p":
            continue
        widths = slot_widths(fields, vals, split_text(txt)[1])[0]
        for i in range(3):
            if widths[i + 1] != 1:
                continue
            for v in LITK_PROBES:
                w1 = (words[1] & ~(0x1FF << (9 * i))) | (0xFF << (9 * i))
                cands.append([words[0], w1, v])
                jobs.append((key, i, v))
                if i and not flags.get(key, 0) & M_NODPP16:
                    cands.append([words[0], (w1 & ~0x1FF) | 0xFA, 0xFF00E404, v])
                    jobs.append((key + ("dpp",), i, v))
    res = decode(cpu + ":" + feats, cands)
    marks, dpp = {}, {}
    for j, (key, i, v) in enumerate(jobs):
        r = res.get(j)
        if len(key) == 3:
            ok = r is not None and not bad_text(r[1]) and "_dpp" in split_text(r[1])[0]
            dpp.setdefault((key[:2], i), {})[v] = ("lit(" in split_text(r[1])[1][i + 1]) if ok else None
            continue
        if r is None or bad_text(r[1]):
            marks.setdefault((key, i), {})[v] = None
            continue
        marks.setdefault((key, i), {})[v] = "lit(" in split_text(r[1])[1][i + 1]
    out = {}
    patterns = {LIT_B32: (True, False, False, True), LIT_V2F16: (False, True, False, True), LIT_V2BF16: (False, False, True, True), LIT_INT: (False, False, False, True)}
    mix = {}
    for (key, i), m in sorted(marks.items()):
        got = tuple(m[v] for v in LITK_PROBES)
        if None in got:
            continue  # no literal there
        mix.setdefault(key, set()).add(got == (True, True, False, True))
        kinds = [k for k, p in patterns.items() if p == got]
        if len(kinds) != 1 and got != (True, True, False, True):
            raise SystemExit("%s %r: LLVM marks the literals %r of source %d as no known rule" % (fam, key, got, i))
        out[key] = out.get(key, 0) | (kinds[0] if kinds else 0) << (X_LITK_SHIFT + 2 * i)
    for key, m in mix.items():
        if m == {True}:
            out[key] = X_LIT_MIX
        elif True in m:
            raise SystemExit("%s %r: some sources mark literals by the f32-or-f16 rule, some not" % (fam, key))
    for (key, i), m in sorted(dpp.items()):
        got = tuple(m[v] for v in LITK_PROBES)
        if None in got or (key, i) not in marks or None in marks[(key, i)].values():
            continue
        want = tuple(a or b for a, b in zip(patterns[LIT_B32], (marks[(key, i)][v] for v in LITK_PROBES)))
        if got != want:
            raise SystemExit("%s %r: DPP16 source %d marks literals %r, not by the f32 rule or its own" % (fam, key, i, got))
    return out


M_MASK0 = 1 << 18  # + source index: a VOP3 source that is a lane mask (wave-size SGPRs)


def wave64_widths(fam, found, decode):
    """({key: widths} of the VALU and FLAT opcodes under +wavefrontsize64 (canonical words),
    {key: M_MASK flags}): VOP3 sources that, given SGPRs, span one SGPR in wave32 and two
    in wave64 are lane masks (`v_cndmask_b32_e64`, carry-in)."""
    cpu, feats = FAMILIES[fam]
    # FLAT too: wave64 `global_load_tr_b64`/`b128` return half the VGPRs.
    keys = [k for k in sorted(found) if k[0] in ("vop1", "vop2", "vopc", "vop3", "vop3p", "flat", "global", "scratch")]
    res = decode(cpu + ":" + feats + W64, [found[k][3] for k in keys])
    out = {}
    for i, k in enumerate(keys):
        if i in res:
            fields = encodings(fam)[k[0]][2]
            out[k] = slot_widths(fields, found[k][2], split_text(res[i][1])[1])[0]
    # SGPR sources s4, s6, s12 in place of the present VOP3 sources.
    fields = encodings(fam)["vop3"][2]
    keys3, cands = [], []
    for k in sorted(found):
        if k[0] != "vop3":
            continue
        words, vals = found[k][3], found[k][2]
        w = list(words)
        sv = list(vals)
        for si, (shift, sg) in enumerate(((0, 4), (9, 6), (18, 12))):
            if vals[1 + si] is not None:
                w[1] = (w[1] & ~(0x1FF << shift)) | (sg << shift)
                sv[1 + si] = sg
        keys3.append((k, sv))
        cands.append(w)
    r32 = decode(cpu + ":" + feats, cands)
    r64 = decode(cpu + ":" + feats + W64, cands)
    masks = {}
    for i, (k, sv) in enumerate(keys3):
        if i in r32 and i in r64:
            a = slot_widths(fields, sv, split_text(r32[i][1])[1])
            b = slot_widths(fields, sv, split_text(r64[i][1])[1])
            for si in range(3):
                if a[1][1 + si] == 1 and a[0][1 + si] == 1 and b[0][1 + si] == 2:
                    masks[k] = masks.get(k, 0) | (M_MASK0 << si)
    return out, masks


SUFFIXES = ("_e32", "_e64", "_dpp", "_sdwa")


def base_mnemonic(m):
    for s in SUFFIXES:
        if m.endswith(s):
            return m[: -len(s)]
    return m


# ---------------------------------------------------------------------------------------
# Fixed bits

def fixed_bits(fam, found, decode, accepted=()):
    """{key: [(mask, value) per word]}: the bits of an opcode's instruction words that LLVM
    requires to have one value (unused operand fields that must be zero, reserved bits,
    VGPR-only source fields whose bit 8 must be set, ...). Each bit of the canonical words is
    flipped on its own, and each bit that LLVM then rejects (or flags an operand for) is
    flipped again in up to four accepted oracle cases of the opcode (`accepted`: (key, words)
    pairs); a bit is fixed when every such flip is rejected and every accepted case has the
    canonical value there (`unfix`). Several base words keep a register field's bits free
    where one value's neighbour is merely an invalid register (`null` SADDR flipped to `m0`)."""
    cpu, feats = FAMILIES[fam]
    tgt = cpu + ":" + feats
    # Pass 1: every bit of the canonical words.
    cands, keys = [], []
    for key in sorted(found):
        words = found[key][3]
        for wi in range(len(words)):
            for b in range(32):
                w = list(words)
                w[wi] ^= 1 << b
                cands.append(w)
                keys.append((key, wi, b))
    res = decode(tgt, cands)
    rej = {k: [0] * len(found[k][3]) for k in found}
    for i, (key, wi, b) in enumerate(keys):
        if i not in res or bad_text(res[i][1]):
            rej[key][wi] |= 1 << b
    # Pass 2: the bits still fixed, flipped in up to 4 accepted cases of the opcode.
    bases = {}
    # Sources as inline constants (`0`, `-1`): where an SGPR is invalid, a constant may not be.
    alt, akeys = [], []
    for key in sorted(found):
        words = found[key][3]
        if key[0] in ("vop1", "vop2", "vopc"):
            alt += [[(words[0] & ~0x1FF) | c] + words[1:] for c in (0x80, 0xC1)]
            akeys += [key, key]
        elif key[0] in ("vop3", "vop3p"):
            for sh in (0, 9, 18):
                alt += [[words[0], (words[1] & ~(0x1FF << sh)) | (c << sh)] for c in (0x80, 0xC1)]
                akeys += [key, key]
        elif key[0] in ("sop1", "sop2", "sopc"):
            for sh in (0, 8):
                alt.append([(words[0] & ~(0xFF << sh)) | (0x81 << sh)])
                akeys.append(key)
    res = decode(tgt, alt)
    for i, key in enumerate(akeys):
        if i in res and not bad_text(res[i][1]):
            bases.setdefault(key, []).append(alt[i])
            accepted = list(accepted) + [(key, alt[i])]
    for key, words in accepted:
        if key in found and len(bases.setdefault(key, [])) < 8:
            bases[key].append(words)
    cands, keys = [], []
    for key, bs in sorted(bases.items()):
        for base in bs:
            for wi in range(len(found[key][3])):
                for b in range(32):
                    # Bit 8 of a VOP1/VOP2/VOPC SRC0 selects VGPRs: flipped from a VGPR it
                    # only tells something as an SGPR s0..s105 (a VGPR-only SRC0 also takes
                    # LLVM's special registers, which the decoder allows by value).
                    if key[0] in ("vop1", "vop2", "vopc") and (wi, b) == (0, 8) and (base[0] ^ 0x100) & 0x1FF >= 106:
                        continue
                    if rej[key][wi] >> b & 1:
                        w = list(base)
                        w[wi] ^= 1 << b
                        cands.append(w)
                        keys.append((key, wi, b))
    res = decode(tgt, cands)
    for i, (key, wi, b) in enumerate(keys):
        if i in res and not bad_text(res[i][1]):
            rej[key][wi] &= ~(1 << b)
    for k in found:
        for wi, m in reg_fields(fam, k, found[k][2], found[k][1]):
            if wi < len(rej[k]):
                rej[k][wi] &= ~m
    out = {k: [[rej[k][wi], found[k][3][wi] & rej[k][wi]] for wi in range(len(found[k][3]))] for k in found}
    unfix(out, accepted)
    return out


# Register fields outside an encoding's operand `fields` (set in its base words): (word, mask).
# (FLAT's SADDR is no operand: LLVM requires `off` there.)
BASE_REGS11 = {
    "global": [(1, 0x7F << 16)],
    "scratch": [(1, 0x7F << 16)],
    "mubuf": [(1, 0x1F << 16), (1, 0xFF << 24)],
    "mtbuf": [(1, 0x1F << 16), (1, 0xFF << 24)],
}
BASE_REGS12 = {
    "global": [(0, 0x7F)],
    "scratch": [(0, 0x7F)],
    "mubuf": [(0, 0x7F), (1, 0x1FF << 9)],
}
# Image register fields: VDATA, RSRC, sampler (listed second-to-last where the encoding has
# one: zero for opcodes without a sampler), then the address fields VADDR0.. in order.
# GFX12 address fields past the opcode's most address operands must be zero (LLVM
# decodes each opcode with that many VADDR operands); GFX11's NSA dword stays free (an
# 8-byte MIMG word has none).
IMG_REGS = {
    "mimg": [(1, 0xFF << 8), (1, 0x1F << 16), (1, 0x1F << 26), (1, 0xFF), (2, 0xFFFFFFFF)],
    "vimage": [(1, 0xFF), (1, 0x1FF << 9), (2, 0xFF), (2, 0xFF << 8), (2, 0xFF << 16), (2, 0xFF << 24), (1, 0xFF << 24)],
    "vsample": [(1, 0xFF), (1, 0x1FF << 9), (1, 0x1FF << 23), (2, 0xFF), (2, 0xFF << 8), (2, 0xFF << 16), (2, 0xFF << 24)],
}


# Register fields narrower than 8 bits (by slot name; the bits above belong to other fields).
FIELD_MASKS = {"sdst": 0x7F, "sdata": 0x7F, "soffset": 0x7F, "sbase": 0x3F}


def reg_fields(fam, key, vals, txt=None):
    """(word, mask) of the register fields the opcode uses (printed as registers in `txt`,
    its canonical text): their value rules (alignment, register file) depend on the value,
    so their bits are never fixed, except bit 8 of a 9-bit VALU source (VGPR only where LLVM
    says so; VINTERP's special sources are checked by value). A field LLVM prints as a
    number (`s_prefetch_data`'s SDATA) keeps its fixed bits."""
    name = key[0]
    if name in IMG_REGS:
        # `vals` = (has a sampler, most address operands).
        samp, nops = vals
        regs = IMG_REGS[name]
        fixed = 3 if name != "vimage" else 2  # VDATA, RSRC (, sampler)
        out = [r for r in regs[:fixed] if samp or r not in ((1, 0x1F << 26), (1, 0x1FF << 23))]
        return out + (regs[fixed:] if name == "mimg" else regs[fixed : fixed + nops])
    ops = split_text(txt)[1] if txt is not None else None
    # Base-word register fields (SADDR, SOFFSET, ...) of an opcode without operands
    # (`global_wb`) must keep their base values.
    out = list((BASE_REGS11 if fam == "gfx1100" else BASE_REGS12).get(name, [])) if ops != [] else []
    if name == "vop3" and key[1] < 0x100 and vals is not None and vals[0] is None:
        out.append((0, 0xFF))  # VOPC promoted to VOP3 without a VDST (`v_cmpx_*_e64`)
    if vals is None or name not in encodings(fam):
        return out
    fields = encodings(fam)[name][2]
    widths = slot_widths(fields, vals, ops)[0] if ops is not None else None
    slot = 0
    for f, v in zip(fields, vals):
        if f[4] == "-":
            continue
        printed = widths is None or widths[slot] > 0
        slot += 1
        if f[4] in ("r", "p", "q") and v is not None and printed:
            mask = 0x1FF if name == "vinterp" else FIELD_MASKS.get(f[3], 0xFF)
            out.append((f[0], mask << f[1]))
    return out


def unfix(fixed, accepted):
    """Clears from `fixed` the bits in which an accepted word of the same opcode differs."""
    for key, words in accepted:
        f = fixed.get(key)
        if f is None:
            continue
        for wi, m in enumerate(f):
            if wi < len(words):
                diff = (words[wi] ^ m[1]) & m[0]
                if key[0] in ("vop1", "vop2", "vopc") and wi == 0 and 106 <= words[0] & 0x1FF < 0x100:
                    # A VGPR-only SRC0 also takes LLVM's special registers (`null`,
                    # `src_*`), which the decoder allows by value: bit 8 stays fixed.
                    diff &= ~0x100
                m[0] &= ~diff
                m[1] &= m[0]


# ---------------------------------------------------------------------------------------
# DPP forms of VOP3/VOP3P (`_e64_dpp`)

# (form, SRC0 code, canonical extension word): DPP16 with quad_perm:[0,1,2,3], all rows and
# banks; DPP8 with the identity selects (both on v4, the canonical SRC0).
DPP_FORMS = ((1, 0xFA, 0xFF00E404), (2, 0xE9, 0x00FAC688 << 8 | 4))
# Source codes tried in SRC1/SRC2 of every DPP form (an SGPR, `vcc_lo`, `null`, `m0`,
# `exec_lo`, integer and float inline constants, the literal code, `src_scc`,
# `src_shared_base`); a (form, source) where LLVM flags any of them is probed code by code.
DPP_SRC_PROBES = (0x01, 0x6A, 0x7C, 0x7D, 0x7E, 0x80, 0xA3, 0xC1, 0xF2, 0xF8, 0xFF, 0xFD, 0xEB)


def dpp_form(key, words):
    """1 (DPP16) or 2 (DPP8) for a VOP3/VOP3P word whose SRC0 selects a DPP extension word,
    else 0."""
    if key is None or key[0] not in ("vop3", "vop3p") or len(words) < 2:
        return 0
    c = words[1] & 0x1FF
    return 1 if c == 0xFA else 2 if c in (0xE9, 0xEA) else 0


def dpp_bases(found, flags):
    """{(enc, op, form): canonical DPP words} of the VOP3/VOP3P opcodes with that DPP form."""
    out = {}
    for key, (size, txt, vals, words) in sorted(found.items()):
        if key[0] not in ("vop3", "vop3p"):
            continue
        for form, code, ext in DPP_FORMS:
            if not flags.get(key, 0) & (M_NODPP16 if form == 1 else M_NODPP8):
                out[key + (form,)] = [words[0], (words[1] & ~0x1FF) | code, ext]
    return out


def dpp_fixed_bits(fam, found, flags, fixed, accepted, decode):
    """{(enc, op, form): [(mask, value) per word]} for the VOP3/VOP3P opcodes whose DPP16
    (form 1) or DPP8 (form 2) words LLVM requires other fixed bits in than the VOP3 word
    (`fixed`): LLVM 22 accepts `v_cvt_sr_fp8_f32_e64_dpp` with OP_SEL[1] set but rejects it
    in plain VOP3; SRC0's VGPR-only bit 8 (`v_movrels_b32`) is the DPP code there. Each bit
    of the canonical DPP words (not the opcode, the sources, the DPP16 control [16:8] and
    VGPR [7:0], which have their own checks, nor a register field) is flipped on its own; a bit fixed in VOP3
    but accepted here is free, a bit free in VOP3 but rejected here is fixed when it is
    rejected in up to 4 accepted DPP oracle cases of the form too (`accepted`); then
    `unfix` with those cases."""
    cpu, feats = FAMILIES[fam]
    tgt = cpu + ":" + feats
    bases = dpp_bases(found, flags)
    # Word 0's opcode and encoding bits [31:16] select the table entry, and the sources
    # [26:0] of word 1 are checked by value (`dpp_src_maps`: a VGPR-only source also takes
    # `null`): not probed.
    probe = {1: [0xFFFF, 0xF8000000, 0xFFFE0000], 2: [0xFFFF, 0xF8000000, 0]}
    regs = {}
    for dk in bases:
        key = dk[:2]
        m = [probe[dk[2]][i] for i in range(3)]
        for wi, rm in reg_fields(fam, key, found[key][2], found[key][1]):
            m[wi] &= ~rm
        regs[dk] = m
    cands, keys = [], []
    for dk, words in sorted(bases.items()):
        for wi in range(3):
            for b in range(32):
                if regs[dk][wi] >> b & 1:
                    w = list(words)
                    w[wi] ^= 1 << b
                    cands.append(w)
                    keys.append((dk, wi, b))
    res = decode(tgt, cands)
    rej = {dk: [0, 0, 0] for dk in bases}
    for i, (dk, wi, b) in enumerate(keys):
        if i not in res or bad_text(res[i][1]):
            rej[dk][wi] |= 1 << b
    # Bits rejected here but free in VOP3: confirmed on accepted DPP cases of the form.
    cases = {}
    for key, words in accepted:
        f = dpp_form(key, words)
        if f and key + (f,) in bases and len(cases.setdefault(key + (f,), [])) < 4:
            cases[key + (f,)].append(list(words[:3]))
    cands, keys = [], []
    for dk in sorted(bases):
        vop3 = (fixed[dk[:2]] + [[0, 0]] * 3)[:3]
        for wi in range(3):
            new = rej[dk][wi] & ~vop3[wi][0]
            for b in range(32):
                if new >> b & 1:
                    for base in cases.get(dk, []):
                        w = list(base)
                        w[wi] ^= 1 << b
                        cands.append(w)
                        keys.append((dk, wi, b))
    res = decode(tgt, cands)
    for i, (dk, wi, b) in enumerate(keys):
        if i in res and not bad_text(res[i][1]):
            rej[dk][wi] &= ~(1 << b)
    out = {}
    for dk, words in sorted(bases.items()):
        vop3 = (fixed[dk[:2]] + [[0, 0]] * 3)[:3]
        m = []
        for wi in range(3):
            # Probed bits as probed, the others (register fields) as in VOP3 minus SRC0.
            keep = vop3[wi][0] & ~probe[dk[2]][wi] & ~(0x1FF if wi == 1 else 0) & (0xFFFFFFFF if wi < 2 else 0)
            keep &= 0xFFFFFFFF
            mask = (rej[dk][wi] | keep) & 0xFFFFFFFF
            m.append([mask, 0])
        for wi in range(3):
            m[wi][1] = words[wi] & m[wi][0]
        out[dk] = m
    unfix(out, [(key + (dpp_form(key, w),), w) for key, w in accepted if dpp_form(key, w)])
    # Only the forms whose bits differ from VOP3 (with SRC0 free: it holds the DPP code).
    diff = {}
    for dk, m in out.items():
        vop3 = (fixed[dk[:2]] + [[0, 0]] * 3)[:3]
        v = [[vop3[0][0], vop3[0][1]], [vop3[1][0] & ~0x1FF, vop3[1][1] & ~0x1FF], [0, 0]]
        if m != v or vop3[1][0] & 0x1FF:
            diff[dk] = m
    return diff


def dpp_src_maps(fam, found, flags, decode):
    """({(enc, op, form, source 1 or 2): 256-bit map (8 words)} of the 8-bit source codes LLVM
    accepts unflagged in SRC1/SRC2 of a VOP3/VOP3P DPP form, for the (form, source) pairs
    where it flags one of `DPP_SRC_PROBES` (`v_fma_mix*` SRC1 is a VGPR there, the lane mask
    of `v_cndmask_b32`/`v_add_co_ci_u32` takes no constant: `/*Invalid immediate*/`), in
    wave32 and wave64 (a code is accepted if LLVM takes it in either); {(enc, op, form,
    source)} where LLVM prints a constant as the raw field (`v_fmac_f32_e64_dpp`))."""
    cpu, feats = FAMILIES[fam]
    bases = dpp_bases(found, flags)

    def words_with(words, slot, c):
        sh = 9 * slot
        w = list(words) + [0x3F800000]
        w[1] = (w[1] & ~(0x1FF << sh)) | (c << sh)
        return w

    texts = {}

    def probe(jobs):
        cands = [words_with(bases[dk], slot, c) for dk, slot, c in jobs]
        ok = set()
        for x in ("", W64):
            for i, r in decode(cpu + ":" + feats + x, cands).items():
                if not bad_text(r[1]) and "_dpp" in split_text(r[1])[0]:
                    ok.add(jobs[i])
                    if not x:
                        texts[jobs[i]] = r[1]
        return ok

    jobs = []
    for dk in sorted(bases):
        key = dk[:2]
        widths = slot_widths(encodings(fam)[key[0]][2], found[key][2], split_text(found[key][1])[1])[0]
        for slot in (1, 2):
            # Only sources the opcode has (a VGPR in the canonical word: widths > 0).
            if slot < len(widths) - 1 and widths[slot + 1]:
                jobs += [(dk, slot, c) for c in DPP_SRC_PROBES]
    ok = probe(jobs)
    # Sources whose constants LLVM prints as the raw field (`v_fmac_f32_e64_dpp v2, v4, 0x80`,
    # 0xff without reading a literal): the integer constants 0 and -1 show so.
    raw = set()
    for dk, slot, c in jobs:
        if c == 0x80 and all(re.search(r", \|?0x%x\b" % k, texts.get((dk, slot, k), "")) for k in (0x80, 0xC1, 0xFF)):
            raw.add(dk + (slot,))
    odd = sorted({(dk, slot) for dk, slot, c in jobs if (dk, slot, c) not in ok})
    full = [(dk, slot, c) for dk, slot in odd for c in range(256)]
    ok = probe(full)
    out = {}
    for dk, slot in odd:
        m = [0] * 8
        for c in range(256):
            if (dk, slot, c) in ok:
                m[c >> 5] |= 1 << (c & 31)
        out[dk + (slot,)] = m
    return out, raw


def rust_dpp_forms(fam, dfix, dsrc_raw):
    dsrc, raw = dsrc_raw
    up = fam.upper()
    enc = {"vop3": 0, "vop3p": 1}
    fx = ["(%d, 0x%03x, %d, [%s], [%s])" % (enc[k[0]], k[1], k[2], ", ".join("0x%x" % m[0] for m in v), ", ".join("0x%x" % m[1] for m in v)) for k, v in sorted(dfix.items())]
    sx = ["(%d, 0x%03x, %d, %d, [%s])" % (enc[k[0]], k[1], k[2], k[3], ", ".join("0x%x" % x for x in v)) for k, v in sorted(dsrc.items())]
    return [
        "/// %s VOP3 (0)/VOP3P (1) opcodes whose DPP16 (1) or DPP8 (2) form LLVM requires other" % fam,
        "/// fixed bits in than the VOP3 word: (encoding, opcode, form, mask, value), sorted.",
        "pub static %s_DPP_FIX: [DppFix; %d] = [%s];" % (up, len(fx), ", ".join(fx)),
        "/// %s VOP3 (0)/VOP3P (1) DPP16 (1)/DPP8 (2) forms whose source 1 or 2 LLVM accepts only" % fam,
        "/// some 8-bit codes in (bit c of word c / 32): (encoding, opcode, form, source, map), sorted.",
        "pub static %s_DPP_SRC: [DppSrc; %d] = [%s];" % (up, len(sx), ", ".join(sx)),
        "/// %s VOP3 (0)/VOP3P (1) DPP16 (1)/DPP8 (2) forms whose source 1 or 2 LLVM shows as" % fam,
        "/// its raw field when it holds a constant (`0x80`; 0xff reads no literal): (encoding,",
        "/// opcode, form, source), sorted.",
        "pub static %s_DPP_RAW: [(u8, u16, u8, u8); %d] = [%s];\n" % (up, len(raw), ", ".join("(%d, 0x%03x, %d, %d)" % (enc[k[0]], k[1], k[2], k[3]) for k in sorted(raw))),
    ]


# ---------------------------------------------------------------------------------------
# Oracle cases

CASES_PER_OP = 8
DPP16_CTRLS = [0x0E4, 0x01B, 0x101, 0x10F, 0x111, 0x11F, 0x121, 0x12F, 0x141, 0x140, 0x150, 0x15F, 0x160, 0x16F]


def dpp16_word(rng, src):
    ctrl = rng.choice(DPP16_CTRLS) if rng.random() < 0.7 else rng.getrandbits(9)
    return src | (ctrl << 8) | (rng.getrandbits(6) << 18) | (rng.getrandbits(8) << 24)


def write_cases(path, fam, target, found, decode, extra, wave64=False):
    """Canonical and randomised operand variants of every opcode (DPP16/DPP8/literal forms
    included) plus the hand-picked `extra` words, each with LLVM's text. `wave64`: VALU
    encodings only, fewer variants, disassembled with +wavefrontsize64."""
    import random

    rng = random.Random(int(fam[3:]) + (64 if wave64 else 0))
    cpu, feats = FAMILIES[fam]
    if wave64:
        feats += W64
    masks = mutable(fam)
    cands = list(extra)
    ckeys = [None] * len(cands)
    valu = ("vop1", "vop2", "vopc", "vop3", "vop3p")
    for key in sorted(found, key=lambda k: (list(encodings(fam)).index(k[0]), k[1])):
        name, op = key
        if wave64 and name not in valu:
            continue
        words = found[key][3]
        cands.append(words)
        ckeys.append(key)
        for _ in range(3 if wave64 else CASES_PER_OP):
            w = list(words)
            for i, m in enumerate(masks[name]):
                r = rng.getrandbits(32)
                if rng.random() < 0.5:
                    r &= 0x3F3F3F3F | 0x80808080 if rng.random() < 0.5 else 0x0F0F0F0F
                w[i] = (w[i] & ~m) | (r & m)
            tail = [rng.getrandbits(32)]
            pick = rng.random()
            if name in ("vop1", "vop2", "vopc"):
                if pick < 0.2:
                    w[0] = (w[0] & ~0x1FF) | 0xFA
                    tail = [dpp16_word(rng, rng.getrandbits(8))]
                elif pick < 0.35:
                    w[0] = (w[0] & ~0x1FF) | rng.choice([0xE9, 0xEA])
                elif pick < 0.5:
                    w[0] = (w[0] & ~0x1FF) | 0xFF
                elif pick < 0.6:
                    w[0] = (w[0] & ~0x1FF) | 0x100 | rng.getrandbits(8)  # VGPR (true16 .h)
            elif name in ("vop3", "vop3p"):
                if pick < 0.15:
                    w[1] = (w[1] & ~0x1FF) | 0xFA
                    tail = [dpp16_word(rng, rng.getrandbits(8))]
                elif pick < 0.25:
                    w[1] = (w[1] & ~0x1FF) | rng.choice([0xE9, 0xEA])
                elif pick < 0.35:
                    w[1] = (w[1] & ~0x1FF) | 0xFF
                elif pick < 0.6:
                    # Mostly VGPR sources, no modifiers: the common compiled form.
                    w[1] = (w[1] & 0x07FFFFFF) | 0x40201 | (rng.getrandbits(8)) | (rng.getrandbits(8) << 9) | (rng.getrandbits(8) << 18)
                    w[0] &= ~0x7F00 if name == "vop3" else ~0
            elif name.startswith("sop") and pick < 0.3:
                w[0] = (w[0] & ~0xFF) | 0xFF
            cands.append(w + tail)
            ckeys.append(key)
    # VOPD pairs with random operands (VOPD is wave32 only).
    for _ in range(0 if wave64 else 1200):
        x, y = rng.randrange(16), rng.randrange(32)
        vals = (rng.getrandbits(8), rng.choice([V(rng.getrandbits(8)), rng.getrandbits(8), 0xFF]), rng.getrandbits(8),
                rng.choice([V(rng.getrandbits(8)), rng.getrandbits(8), 0xFF]), rng.getrandbits(8), rng.getrandbits(7))
        cands.append(vopd_words(x, y, vals) + [rng.getrandbits(32)])
        ckeys.append(None)
    res = decode(cpu + ":" + feats, cands)
    # The hand-picked words belong to the opcode LLVM names (first encoding with it).
    by_mnem = {}
    for key in sorted(found, key=lambda k: (list(encodings(fam)).index(k[0]), k[1])):
        by_mnem.setdefault(split_text(found[key][1])[0], key)
    for i in range(len(extra)):
        if i in res:
            ckeys[i] = by_mnem.get(split_text(res[i][1])[0])
    seen = set()
    accepted = []
    lines = ["# %s decoder oracle: hex words (as many as LLVM used) | LLVM 22's text (%s). Generated." % (target, feats)]
    for i, c in enumerate(cands):
        if i not in res:
            continue
        size, txt = res[i]
        if bad_text(txt) or ";" in txt:
            continue
        if size % 4 or size // 4 > len(c) + 3:
            continue
        key = tuple((c + [0xBF800000] * 3)[: size // 4])
        if key in seen:
            continue
        seen.add(key)
        lines.append("%s | %s" % (" ".join("%08x" % w for w in key), txt))
        if ckeys[i] is not None:
            accepted.append((ckeys[i], c))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return accepted


# ---------------------------------------------------------------------------------------
# Rust tables

def rdna_class(op_class, mnem):
    """The shared CLASS_* flags, except that RDNA's `ds_condxchg32_rtn_b64` has one 16-bit
    offset (LLVM prints `offset:`), unlike GFX9's."""
    c = op_class(mnem)
    if "condxchg" in mnem:
        c &= ~4  # CLASS_TWO_OFFSETS
    return c


def slot_names(fam, enc_name):
    if enc_name in ("vopdx", "vopdy"):
        return ["vdst", "src0", "vsrc1"]
    return [f[3] for f in encodings(fam)[enc_name][2] if f[4] != "-"]


def rust_tables(fam, found, vopd, mods, w64masks, op_class, fixed, variant=None, only=None):
    """Rust source of one family's tables (`RdnaInfo` per opcode, per encoding). For a
    `variant` target: its own tables for the encodings in `only`, every table also as a
    slice `<VARIANT>_<ENC>` (the family's where the variant decodes alike)."""
    g = []
    encs = encodings(fam)
    up = fam.upper()
    w64, masks = w64masks
    for name, spec in list(encs.items()) + [("vopdx", (16, None, ())), ("vopdy", (32, None, ()))]:
        n = spec[0]
        if variant is not None:
            vu = variant.upper()
            own = name in only
            g.append("/// %s %s opcodes (%s)." % (variant, name.upper(), "its own table" if own else "as %s" % fam))
            g.append("pub static %s_%s: &[Option<RdnaInfo>] = &%s_%s%s;" % (vu, name.upper(), vu if own else up, name.upper(), "_OWN" if own else ""))
            if not own:
                continue
        g.append("/// %s %s opcodes (`None` = not a valid opcode)." % (variant or fam, name.upper()))
        g.append("/// Operand slots of `widths`: %s." % ", ".join("`%s`" % s for s in slot_names(fam, name)))
        if variant is not None:
            g.append("pub static %s_%s_OWN: [Option<RdnaInfo>; %d] = [" % (variant.upper(), name.upper(), n))
        else:
            g.append("pub static %s_%s: [Option<RdnaInfo>; %d] = [" % (up, name.upper(), n))
        for op in range(n):
            key = (name, op)
            if name.startswith("vopd"):
                e = vopd.get(key)
                if e is None:
                    g.append("    None,")
                    continue
                size, txt = e
                mnem, ops = split_text(txt)
                parsed = parse_opnds(ops)
                widths = [p[1] if p else (1 if i < len(ops) else 0) for i, p in enumerate(parsed)][:3]
                kinds = [p[2] if p else 0 for p in parsed][:3]
                # fmamk/fmaak print the K literal as an operand: it is not a register slot.
                widths += [0] * (4 - len(widths))
                kinds += [0] * (4 - len(kinds))
                w64s = widths
                flags = 0
                extra = mods.get(key, 0) >> X_SHIFT
                fx = [[0, 0]] * 3
            else:
                e = found.get(key)
                if e is None:
                    g.append("    None,")
                    continue
                size, txt, vals, words = e
                mnem, ops = split_text(txt)
                widths, kinds = slot_widths(spec[2], vals, ops)
                w64s = w64.get(key, widths)
                widths += [0] * (4 - len(widths))
                kinds += [0] * (4 - len(kinds))
                w64s = list(w64s) + [0] * (4 - len(w64s))
                flags = mods.get(key, 0) | masks.get(key, 0) | hint_flags(mnem)
                extra = flags >> X_SHIFT
                flags &= (1 << X_SHIFT) - 1
                fx = (fixed[key] + [[0, 0]] * 3)[:3]
            g.append(
                '    Some(RdnaInfo { op: Op::%s, mnemonic: "%s", widths: [%s], widths64: [%s], kinds: [%s], mods: %d, extra: %d, class: %d, fixmask: [%s], fixval: [%s] }), // 0x%03x %s'
                % (
                    base_mnemonic(mnem).upper(),
                    mnem,
                    ", ".join(map(str, widths[:4])),
                    ", ".join(map(str, w64s[:4])),
                    ", ".join(map(str, kinds[:4])),
                    flags,
                    extra,
                    rdna_class(op_class, mnem),
                    ", ".join("0x%x" % m[0] for m in fx),
                    ", ".join("0x%x" % m[1] for m in fx),
                    op,
                    txt,
                )
            )
        g.append("];\n")
    return g


def listing(fam, found, vopd):
    lines = []
    encs = encodings(fam)
    for name in list(encs) + ["vopdx", "vopdy"]:
        for op in range(encs[name][0] if name in encs else (16 if name == "vopdx" else 32)):
            key = (name, op)
            if key in found:
                lines.append("%s 0x%03x %d %s" % (name, op, found[key][0], found[key][1]))
            elif key in vopd:
                lines.append("%s 0x%03x %d %s" % (name, op, vopd[key][0], vopd[key][1]))
    return lines


def symbol_tables(fam, found, decode):
    """Names LLVM prints inside `hwreg(...)` (by register id) and `sendmsg(...)` (by message
    id), probed through `s_getreg_b32` and `s_sendmsg`; "" where LLVM prints a number."""
    cpu, feats = FAMILIES[fam]
    getreg = next(k for k, v in found.items() if k[0] == "sopk" and v[1].startswith("s_getreg_b32"))
    sendmsg = next(k for k, v in found.items() if k[0] == "sopp" and v[1].startswith("s_sendmsg "))
    cands = [[0xB0000000 | (getreg[1] << 23) | (31 << 11) | i] for i in range(64)]
    cands += [[0xBF800000 | (sendmsg[1] << 16) | i] for i in range(256)]
    # `format:[...]` names of the typed buffer opcodes' FORMAT field.
    if fam == "gfx1100":
        tbuf = next(k for k, v in found.items() if k[0] == "mtbuf" and v[1].startswith("tbuffer_load_format_x "))
        cands += [[0xE8000000 | (tbuf[1] << 15) | (f << 19), (1 << 16) | (9 << 24) | (4 << 8)] for f in range(128)]
    else:
        tbuf = next(k for k, v in found.items() if k[0] == "mubuf" and v[1].startswith("tbuffer_load_format_x "))
        cands += [[0xC4000000 | (tbuf[1] << 14) | 9, (4 << 9) | (f << 23) | 4, 0] for f in range(128)]
    cands += [[0xF8000001 | (tg << 4), 0x01] for tg in range(64)]
    res = decode(cpu + ":" + feats, cands)
    hw, msg, fmt, exp = [""] * 64, [""] * 256, [""] * 128, [""] * 64
    for i in range(64):
        t = res.get(448 + i, (0, ""))[1].split()
        if len(t) > 1 and not t[1].startswith("v"):
            exp[i] = t[1]
    for i in range(128):
        m = re.search(r"format:(\S+)", res.get(320 + i, (0, ""))[1])
        if m:
            fmt[i] = m.group(1)
    for i in range(64):
        m = re.search(r"hwreg\(([A-Z_0-9]+)\)", res.get(i, (0, ""))[1])
        if m and not m.group(1).isdigit():
            hw[i] = m.group(1)
    for i in range(256):
        m = re.search(r"sendmsg\(([A-Z_0-9]+)", res.get(64 + i, (0, ""))[1])
        if m and not m.group(1).isdigit():
            msg[i] = m.group(1)
    return hw, msg, fmt, exp


def rust_symbols(fam, hw, msg, fmt, exp):
    up = fam.upper()
    g = ["/// %s `hwreg(...)` register names by id (\"\" = printed as a number)." % fam]
    g.append("pub static %s_HWREG: [&str; 64] = [%s];" % (up, ", ".join('"%s"' % n for n in hw)))
    g.append("/// %s `sendmsg(...)` message names by id (\"\" = printed as a number)." % fam)
    g.append("pub static %s_SENDMSG: [&str; 256] = [%s];" % (up, ", ".join('"%s"' % n for n in msg)))
    g.append("/// %s typed-buffer `format:` operand by FORMAT value (\"\" = the default, not printed)." % fam)
    g.append("pub static %s_BUFFMT: [&str; 128] = [%s];" % (up, ", ".join('"%s"' % n for n in fmt)))
    g.append("/// %s export targets by TARGET value (\"\" = invalid)." % fam)
    g.append("pub static %s_EXPTGT: [&str; 64] = [%s];\n" % (up, ", ".join('"%s"' % n for n in exp)))
    return g


# ---------------------------------------------------------------------------------------
# Image encodings: MIMG (GFX11), VIMAGE and VSAMPLE (GFX12)
#
# LLVM's disassembler sizes an image instruction's data and address operands from DMASK,
# D16, TFE, DIM and A16 (and keeps the first-decoded operand sizes when no variant of the
# opcode has the computed ones), so every combination is decoded here and the printed
# register counts are recorded per opcode in a grid (`IMG_*` below).

IMG_ENCS = {"gfx1100": ["mimg"], "gfx1200": ["vimage", "vsample"]}
# Image-modifier flags (`RdnaImage::mods`): which optional syntax LLVM prints for an opcode.
IMG_MODS = ["DMASK", "DIM", "UNORM", "GLC", "SLC", "DLC", "R128", "A16", "TFE", "LWE", "D16", "CPOL"]
IMG_M = {n: 1 << i for i, n in enumerate(IMG_MODS)}


def img_words(enc, op, dim=1, dmask=1, a16=0, d16=0, tfe=0, nsa=0, zero=False, extra=0, nosamp=False):
    """Image words with vdata v0, vaddr v4 (NSA: v4, v5, v6, ...), resource s[8:15] and
    sampler s[16:19] (`zero`: the sampler field / VADDR2..4 left zero); `extra` is OR-ed
    into word 0. `nosamp`: VSAMPLE's SAMP field zero (opcodes without a sampler that LLVM
    also decodes in VSAMPLE, such as `image_msaa_load`)."""
    if enc == "mimg":
        # NSA[0] DIM[4:2] UNORM[7] DMASK[11:8] DLC,GLC,SLC[14:12] R128[15] A16[16] D16[17]
        # OP[25:18]; VADDR[39:32] VDATA[47:40] SRSRC[52:48] TFE[53] LWE[54] SSAMP[62:58];
        # NSA: VADDR1..4 in the third dword.
        w0 = 0xF0000000 | (op << 18) | nsa | (dim << 2) | (dmask << 8) | (a16 << 16) | (d16 << 17)
        w1 = 4 | (2 << 16) | (tfe << 21) | ((0 if zero else 4) << 26)
        return [w0 | extra, w1, 0x08070605] if nsa else [w0 | extra, w1]
    if enc == "vimage":
        # RDNA4 guide 15.13.1: DIM[2:0] R128[4] D16[5] A16[6] OP[21:14] DMASK[25:22];
        # VDATA[39:32] RSRC[49:41] SCOPE[51:50] TH[54:52] TFE[55] VADDR4[63:56]; VADDR0..3.
        w0 = 0xD0000000 | dim | (d16 << 5) | (a16 << 6) | (op << 14) | (dmask << 22)
        w1 = (8 << 9) | (tfe << 23) | ((0 if zero else 8) << 24)
        return [w0 | extra, w1, 0x504 if zero else 0x07060504]
    # VSAMPLE (15.13.2): DIM[2:0] TFE[3] R128[4] D16[5] A16[6] UNRM[13] OP[21:14] DMASK[25:22];
    # VDATA[39:32] LWE[40] RSRC[49:41] SCOPE[51:50] TH[54:52] SAMP[63:55]; VADDR0..3.
    w0 = 0xE4000000 | dim | (tfe << 3) | (d16 << 5) | (a16 << 6) | (op << 14) | (dmask << 22)
    w1 = (8 << 9) | ((0 if nosamp else 16) << 23)
    return [w0 | extra, w1, 0x504 if zero else 0x07060504]


# Modifier probes: (enc, word, bit, keyword, flag).
IMG_PROBES = [
    ("mimg", 0, 7, "unorm", "UNORM"),
    ("mimg", 0, 12, "slc", "SLC"),
    ("mimg", 0, 13, "dlc", "DLC"),
    ("mimg", 0, 14, "glc", "GLC"),
    ("mimg", 0, 15, "r128", "R128"),
    ("mimg", 0, 16, "a16", "A16"),
    ("mimg", 0, 17, "d16", "D16"),
    ("mimg", 1, 21, "tfe", "TFE"),
    ("mimg", 1, 22, "lwe", "LWE"),
    ("vimage", 0, 4, "r128", "R128"),
    ("vimage", 0, 6, "a16", "A16"),
    ("vimage", 0, 5, "d16", "D16"),
    ("vimage", 1, 23, "tfe", "TFE"),
    ("vimage", 1, 19, "scope:", "CPOL"),
    ("vsample", 0, 13, "unorm", "UNORM"),
    ("vsample", 0, 4, "r128", "R128"),
    ("vsample", 0, 6, "a16", "A16"),
    ("vsample", 0, 5, "d16", "D16"),
    ("vsample", 0, 3, "tfe", "TFE"),
    ("vsample", 1, 8, "lwe", "LWE"),
    ("vsample", 1, 19, "scope:", "CPOL"),
]


def split_img(txt):
    """`image_x  v0, [v4, v5], s[8:15] dmask:0x1` -> (head with its spaces, [operands], [modifiers])."""
    m = re.match(r"^(\S+\s+)(.*)$", txt)
    if not m:
        return txt, [], []
    head, rest = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in rest:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    last = cur.strip().split()
    parts.append(last[0] if last else "")
    return head, parts, last[1:]


COMMENT_RE = re.compile(r" ?/\*.*?\*/")


def reg_count(o):
    m = OPND_RE.match(o)
    if not m:
        return None
    return (int(m.group(3)) - int(m.group(2)) + 1) if m.group(2) is not None else 1


def img_groups(o):
    """Register counts of a printed address operand: [n] for a tuple, one per NSA element."""
    if o.startswith("["):
        return [reg_count(x.strip()) for x in o[1:-1].split(",")]
    return [reg_count(o)]


def img_cells(gfx11):
    """Grid cells (index, nsa, dmask, d16, tfe, a16, dim): index = ((((nsa * 4 + pc - 1) * 2 +
    d16) * 2 + tfe) * 2 + a16) * 8 + dim, pc = popcount(DMASK) (0 counts as 1); GFX12 has no
    NSA bit (always its NSA-style layout)."""
    out = []
    for nsa in (0, 1) if gfx11 else (0,):
        for pc in range(1, 5):
            for d16 in (0, 1):
                for tfe in (0, 1):
                    for a16 in (0, 1):
                        for dim in range(8):
                            i = ((((nsa * 4 + pc - 1) * 2 + d16) * 2 + tfe) * 2 + a16) * 8 + dim
                            out.append((i, nsa, (1 << pc) - 1, d16, tfe, a16, dim))
    return out


def img_max_ops(enc, bvh):
    return 5 if enc == "mimg" or bvh else 4


def enumerate_images(fam, decode, op_class):
    """{enc: {op: entry}} of every image opcode LLVM decodes on `fam`; entry = dict(mnem,
    heads, rsrc, samp, mods, grid, groups, class, words, size)."""
    cpu, feats = FAMILIES[fam]
    tgt = cpu + ":" + feats
    out = {}
    for enc in IMG_ENCS[fam]:
        # BVH opcodes need DMASK 0xf, R128 (and UNORM on GFX11) and no DIM.
        bvh = (1 << 7) | (1 << 15) if enc == "mimg" else 1 << 4
        # (zero, extra, dim, dmask, nosamp); VSAMPLE also decodes some opcodes without a
        # sampler (SAMP 0: `image_msaa_load`), tried last.
        vars_ = [(False, 0, 1, 1, False), (True, 0, 1, 1, False), (True, bvh, 0, 15, False)]
        if enc == "vsample":
            vars_.append((True, 0, 1, 1, True))
        cands = [img_words(enc, op, dim, dm, zero=z, extra=x, nosamp=ns) for op in range(256) for z, x, dim, dm, ns in vars_]
        res = decode(tgt, cands)
        ents = {}
        for op in range(256):
            for vi, (z, x, dim, dm, ns) in enumerate(vars_):
                r = res.get(len(vars_) * op + vi)
                if r and not bad_text(r[1]):
                    ents[op] = {"words": cands[len(vars_) * op + vi], "txt": r[1], "size": r[0], "zero": z, "extra": x, "nosamp": ns}
                    break
        # Grid, modifiers.
        cells = img_cells(enc == "mimg")
        jobs, cands = [], []
        for op, e in sorted(ents.items()):
            for c in cells:
                i, nsa, dmask, d16, tfe, a16, dim = c
                cands.append(img_words(enc, op, dim, dmask, a16, d16, tfe, nsa, e["zero"] or enc != "mimg", e["extra"], e["nosamp"]))
                jobs.append((op, "cell", c))
            for pe, wi, bit, kw, flag in IMG_PROBES:
                if pe == enc:
                    w = list(e["words"])
                    w[wi] |= 1 << bit
                    cands.append(w)
                    jobs.append((op, "mod", (kw, flag)))
        # Defaults: the sizes LLVM keeps when the computed ones would run past v255 (data v255,
        # DMASK 0xf), without and with NSA.
        for op, e in sorted(ents.items()):
            for nsa in (0, 1) if enc == "mimg" else (0,):
                w = img_words(enc, op, 1 if not e["extra"] else 0, 15, 0, 0, 0, nsa, e["zero"], e["extra"], e["nosamp"])
                w[1] |= 255 << 8 if enc == "mimg" else 255
                cands.append(w)
                jobs.append((op, "default", nsa))
        res = decode(tgt, cands)
        for op, e in ents.items():
            e["default"] = [0, 0]
            head, ops, mods = split_img(e["txt"])
            e["mnem"] = head.strip()
            e["samp"] = len(ops) > 3
            e["rsrc"] = reg_count(ops[2])
            m = 0
            if any(x.startswith("dmask:") for x in mods):
                m |= IMG_M["DMASK"]
            if any(x.startswith("dim:") for x in mods):
                m |= IMG_M["DIM"]
            e["mods"] = m
            e["grid"] = [0] * (512 if enc == "mimg" else 256)
            e["heads"] = ["", ""]
            e["groups"] = None
            e["cls"] = op_class(e["mnem"])
        for k, (op, kind, c) in enumerate(jobs):
            e = ents[op]
            r = res.get(k)
            if kind == "mod":
                if r and not bad_text(r[1]) and re.search(r"(^|\s)%s" % re.escape(c[0]), r[1]):
                    e["mods"] |= IMG_M[c[1]]
                continue
            if kind == "default":
                if r:
                    _, ops, _ = split_img(COMMENT_RE.sub("", r[1]))
                    e["default"][c] = reg_count(ops[0]) | (sum(img_groups(ops[1])) << 4)
                continue
            if not r or bad_text(r[1]):
                continue
            i, nsa, dmask, d16, tfe, a16, dim = c
            head, ops, mods = split_img(r[1])
            if head.strip() != e["mnem"]:
                raise SystemExit("%s %s 0x%x: %r decodes as another opcode" % (fam, enc, op, r[1]))
            want = (12 if nsa else 8) if enc == "mimg" else 12
            if r[0] != want:
                raise SystemExit("%s %s 0x%x: size %d, expected %d: %r" % (fam, enc, op, r[0], want, r[1]))
            vd = reg_count(ops[0])
            g = img_groups(ops[1])
            va = sum(g)
            if vd > 15 or va > 31:
                raise SystemExit("%s %s 0x%x: operand sizes out of range: %r" % (fam, enc, op, r[1]))
            e["grid"][i] = vd | (va << 4)
            lst = ops[1].startswith("[")
            if e["heads"][lst] not in ("", head):
                raise SystemExit("%s %s 0x%x: mnemonic spacing varies: %r" % (fam, enc, op, r[1]))
            e["heads"][lst] = head
            if lst:
                k_ = min(va, img_max_ops(enc, False))
                rule = [1] * (k_ - 1) + [va - (k_ - 1)]
                if g != rule:
                    # BVH: fixed operand groups (ray origin, direction, ...), by A16.
                    if e["groups"] is None:
                        e["groups"] = [None, None]
                    if e["groups"][a16] not in (None, g):
                        raise SystemExit("%s %s 0x%x: NSA groups vary: %r" % (fam, enc, op, r[1]))
                    e["groups"][a16] = g
        out[enc] = ents
    return out


def img_nops(enc, e):
    """The most address operands an image opcode's valid cells have."""
    if e["groups"]:
        return max(len([n for n in g if n]) for g in e["groups"] if g)
    va = max(g >> 4 for g in e["grid"])
    return min(va, img_max_ops(enc, False))


def image_found(imgs):
    """The image opcodes as `found`-style entries for `fixed_bits` ({(enc, op): (.., (has a
    sampler, most address operands), words)})."""
    return {(enc, op): (e["size"], e["txt"], (e["samp"], img_nops(enc, e)), e["words"]) for enc, ents in imgs.items() for op, e in ents.items()}


GRID_CASES = 12  # valid-by-construction variants per image opcode (`img_variant`)


def img_variant(rng, enc, op, e):
    """Image words LLVM should accept: a random grid cell it accepted (DMASK of that popcount,
    D16, TFE, A16, DIM, GFX11 NSA), registers that fit below v256 and in the SGPRs/TTMPs,
    and random modifier and cache-policy bits among those the opcode prints (BVH opcodes
    keep their required bits)."""
    gfx11 = enc == "mimg"
    cells = [c for c in img_cells(gfx11) if e["grid"][c[0]]]
    i, nsa, dmask, d16, tfe, a16, dim = rng.choice(cells)
    pc = bin(dmask).count("1")
    dmask = sum(1 << b for b in rng.sample(range(4), pc))
    if e["extra"]:
        dmask = 15  # BVH: DMASK 0xf
    w = img_words(enc, op, dim, dmask, a16, d16, tfe, nsa, True, e["extra"], e["nosamp"])
    if len(w) < 3:
        w.append(0)
    vd, va = e["grid"][i] & 15, e["grid"][i] >> 4
    groups = None
    if not gfx11 or nsa:
        if e["groups"]:
            groups = [n for n in e["groups"][a16] if n]
        else:
            k = min(va, img_max_ops(enc, False))
            groups = [1] * (k - 1) + [va - (k - 1)]
    reg = lambda n: rng.randrange(0, 257 - n) if rng.random() < 0.5 else rng.randrange(0, 64)
    sh = 8 if gfx11 else 0
    w[1] = (w[1] & ~(0xFF << sh)) | (reg(vd) << sh)
    if groups is None:
        w[1] = (w[1] & ~0xFF) | reg(va)
    elif gfx11:
        # VADDR0 in word 1, VADDR1..4 in word 2.
        w[1] = (w[1] & ~0xFF) | reg(groups[0])
        w[2] = sum(reg(n) << (8 * j) for j, n in enumerate(groups[1:]))
    else:
        # VADDR0..3 in word 2, VADDR4 (VIMAGE only) in word 1 [31:24].
        w[2] = sum(reg(n) << (8 * j) for j, n in enumerate(groups[:4]))
        if len(groups) > 4:
            w[1] = (w[1] & ~(0xFF << 24)) | (reg(groups[4]) << 24)
    n = e["rsrc"]
    rsrc = rng.choice([4 * rng.randrange(0, (106 - n) // 4 + 1), 108 + 4 * rng.randrange(0, (16 - n) // 4 + 1)])
    samp = rng.choice([4 * rng.randrange(0, 26), 108 + 4 * rng.randrange(0, 4)])
    m = e["mods"]
    bits = lambda name, p=0.3: 1 if m & IMG_M[name] and not e["extra"] and rng.random() < p else 0
    if gfx11:
        w[1] = (w[1] & ~(0x1F << 16)) | ((rsrc >> 2) << 16)
        if e["samp"]:
            w[1] = (w[1] & ~(0x1F << 26)) | ((samp >> 2) << 26)
        w[0] |= bits("UNORM") << 7 | bits("SLC") << 12 | bits("DLC") << 13 | bits("GLC") << 14 | bits("R128") << 15
        w[1] |= bits("LWE") << 22
    else:
        w[1] = (w[1] & ~(0x1FF << 9)) | (rsrc << 9)
        if enc == "vsample":
            if e["samp"]:
                w[1] = (w[1] & ~(0x1FF << 23)) | (samp << 23)
            w[0] |= bits("UNORM") << 13
            w[1] |= bits("LWE") << 8
        w[0] |= bits("R128") << 4 | bits("CPOL", 0.2) << 7
        if m & IMG_M["CPOL"]:
            w[1] |= rng.getrandbits(5) << 18  # SCOPE, TH
    return w


def write_image_cases(fam, imgs, decode):
    """Oracle cases of the image opcodes: canonical words with random DMASK, DIM, modifier
    bits, registers and NSA addresses. Returns (lines, accepted (key, words))."""
    import random

    rng = random.Random(int(fam[3:]) + 7)
    cpu, feats = FAMILIES[fam]
    cands, keys = [], []
    masks = {
        "mimg": [0x0003FFFF, 0x7FFFFFFF, 0xFFFFFFFF],
        "vimage": [0x03C0007F, 0xFFFFFFFF, 0xFFFFFFFF],
        "vsample": [0x03C0207F, 0xFFFFFFFF, 0xFFFFFFFF],
    }
    for enc, ents in imgs.items():
        for op, e in sorted(ents.items()):
            cands.append(e["words"] + [0x0C0B0A09])
            keys.append((enc, op))
            for _ in range(12):
                w = list(e["words"]) + [0x0C0B0A09]
                for i, m in enumerate(masks[enc]):
                    r = rng.getrandbits(32)
                    if rng.random() < 0.7:
                        r &= 0x7F3F3F3F  # mostly small register numbers
                    w[i] = (w[i] & ~m) | (r & m)
                if enc == "mimg" and rng.random() < 0.5:
                    w[0] &= ~1  # non-NSA (8 bytes)
                cands.append(w)
                keys.append((enc, op))
    grng = random.Random(int(fam[3:]) + 11)
    for enc, ents in imgs.items():
        for op, e in sorted(ents.items()):
            for _ in range(GRID_CASES):
                cands.append(img_variant(grng, enc, op, e))
                keys.append((enc, op))
    res = decode(cpu + ":" + feats, cands)
    lines, accepted, seen = [], [], set()
    for i, c in enumerate(cands):
        if i not in res:
            continue
        size, txt = res[i]
        if bad_text(txt) or ";" in txt or size % 4:
            continue
        if txt.split()[0] != imgs[keys[i][0]][keys[i][1]]["mnem"]:
            continue  # LLVM 22 decodes 0xd3a0xxxx as GFX9's `v_fma_mix_f32` on every target
        key = tuple((c + [0xBF800000] * 3)[: size // 4])
        if key in seen:
            continue
        seen.add(key)
        lines.append("%s | %s" % (" ".join("%08x" % w for w in key), txt))
        accepted.append((keys[i], c))
    return lines, accepted


def rust_images(fam, imgs, fixed):
    """Rust source of one family's image tables (`RdnaImage` per opcode) and operand grids."""
    up = fam.upper()
    grids = []
    g = []
    for enc, ents in imgs.items():
        g.append("/// %s %s opcodes (`None` = not a valid opcode)." % (fam, enc.upper()))
        g.append("pub static %s_%s: [Option<RdnaImage>; 256] = [" % (up, enc.upper()))
        for op in range(256):
            e = ents.get(op)
            if e is None:
                g.append("    None,")
                continue
            if e["grid"] not in grids:
                grids.append(e["grid"])
            cells = len(e["grid"])
            groups = e["groups"] or [None, None]
            cells = len(e["grid"])
            gs = ["[%s]" % ", ".join(map(str, ((x or []) + [0] * 5)[:5])) for x in groups]
            fx = (fixed[(enc, op)] + [[0, 0]] * 3)[:3]
            g.append(
                '    Some(RdnaImage { op: Op::%s, heads: ["%s", "%s"], rsrc: %d, sampler: %s, mods: %d, class: %d, grid: %d, defaults: [%d, %d], groups: [%s], fixmask: [%s], fixval: [%s] }), // 0x%02x %s'
                % (
                    e["mnem"].upper(),
                    e["heads"][0] or e["heads"][1],
                    e["heads"][1] or e["heads"][0],
                    e["rsrc"],
                    "true" if e["samp"] else "false",
                    e["mods"],
                    e["cls"],
                    grids.index(e["grid"]) * cells,
                    e["default"][0],
                    e["default"][1],
                    ", ".join(gs),
                    ", ".join("0x%x" % m[0] for m in fx),
                    ", ".join("0x%x" % m[1] for m in fx),
                    op,
                    e["txt"],
                )
            )
        g.append("];\n")
    flat = [x for gr in grids for x in gr]
    g.append("/// %s image operand grids, one after the other: data VGPRs | address VGPRs << 4 per" % fam)
    g.append("/// (NSA, DMASK popcount, D16, TFE, A16, DIM) cell (0 = LLVM rejects the combination).")
    g.append("pub static %s_IMG_GRIDS: [u16; %d] = [%s];\n" % (up, len(flat), ", ".join(map(str, flat))))
    return g


def image_listing(imgs):
    return ["%s 0x%03x %d %s" % (enc, op, e["size"], e["txt"]) for enc, ents in imgs.items() for op, e in sorted(ents.items())]


class as_cpu:
    """Within `with as_cpu(fam, cpu)`, the functions above disassemble `fam`'s encodings as
    LLVM CPU `cpu` (same features)."""

    def __init__(self, fam, cpu):
        self.fam, self.cpu = fam, cpu

    def __enter__(self):
        self.saved = FAMILIES[self.fam]
        FAMILIES[self.fam] = (self.cpu, self.saved[1])

    def __exit__(self, *a):
        FAMILIES[self.fam] = self.saved


def encodings_differing(a, b):
    """Encodings (plus "vopdx"/"vopdy") whose opcode listing differs between two
    `listing`-style line lists."""
    ea = {}
    for l in a:
        ea.setdefault(l.split()[0], []).append(l)
    eb = {}
    for l in b:
        eb.setdefault(l.split()[0], []).append(l)
    return sorted(e for e in set(ea) | set(eb) if ea.get(e) != eb.get(e))


def check_same_quick(fam, cpu, found, decode):
    """The canonical words of every opcode `fam` decodes, and of every opcode value of every
    encoding with its first operand variant, must disassemble identically as `cpu`."""
    cands = [found[k][3] for k in sorted(found)]
    for name, spec in encodings(fam).items():
        for op in range(spec[0]):
            if (name, op) not in found:
                cands.append(variants(spec, op)[0][0])
    feats = FAMILIES[fam][1]
    a = decode(FAMILIES[fam][0] + ":" + feats, cands)
    b = decode(cpu + ":" + feats, cands)
    return a == b


# Source-code maps of `src_codes`, in `<FAM>_SRC_OK` order: (role, opcode probed, word,
# mask of its field at bit 0, the field's shift, features added). The 64-bit maps say which codes LLVM accepts as a 64-bit
# operand (not `vcc_hi`/`exec_hi`, ...); VINTERP's is for its 32-bit sources below v0.
SRC_MAPS = [
    ("VOP1/VOP2/VOPC SRC0", "v_mov_b32_e32", 0, 0x1FF, 0, ""),
    ("VOP3 sources", "v_add_f32_e64", 1, 0x1FF, 0, ""),
    ("SALU sources", "s_mov_b32", 0, 0xFF, 0, ""),
    ("VOP1/VOP2/VOPC 64-bit SRC0", "v_cvt_f32_f64_e32", 0, 0x1FF, 0, ""),
    ("VOP3 64-bit sources", "v_cvt_f32_f64_e64", 1, 0x1FF, 0, ""),
    ("SALU 64-bit sources", "s_mov_b64", 0, 0xFF, 0, ""),
    ("VINTERP 32-bit sources", "v_interp_p10_f32", 1, 0x1FF, 0, ""),
    ("VGPR-only SRC0 of VOP1/VOP2/VOPC", "v_swap_b32", 0, 0x1FF, 0, ""),
    ("SALU 64-bit SDST", "s_mov_b64", 0, 0x7F, 16, ""),
    ("VOP1 SGPR VDST (`v_readfirstlane_b32`)", "v_readfirstlane_b32", 0, 0xFF, 17, ""),
    ("SALU register-only sources", "s_movrels_b32", 0, 0xFF, 0, ""),
    ("SALU 64-bit register-only sources", "s_movrels_b64", 0, 0xFF, 0, ""),
    # The lane mask a VOP3-encoded compare writes (VDST, 8 bits): one SGPR in wave32, a
    # pair in wave64 (LLVM takes `src_lds_direct` in wave32, the `src_*` apertures in wave64).
    ("VOPC VOP3 SDST in wave32", "v_cmp_eq_i32_e64", 0, 0xFF, 0, ""),
    ("VOPC VOP3 SDST in wave64", "v_cmp_eq_i32_e64", 0, 0xFF, 0, W64),
    # A VOP3P source of 8 (4) VGPRs: WMMA's C in wave32 (wave64); LLVM rejects SGPR tuples
    # past s105 and the special registers there.
    ("VOP3P 8-VGPR sources", "v_wmma_f32_16x16x16_f16", 1, 0x1FF, 18, ""),
    ("VOP3P 4-VGPR sources", "v_wmma_f32_16x16x16_f16", 1, 0x1FF, 18, W64),
]


def src_codes(fam, found, decode):
    """Bitmaps of the 8-bit source codes LLVM accepts (256 bits as 8 words) in each role of
    `SRC_MAPS`: the reserved codes (0xF9 = GFX9's SDWA, ...) are invalid instructions. (A
    9-bit field's codes 256.. are VGPRs, VINTERP's only ones LLVM does not flag.)"""
    cpu, feats = FAMILIES[fam]
    by = {split_text(v[1])[0]: (k, v[3]) for k, v in found.items()}
    res = {}
    for extra in sorted({m[5] for m in SRC_MAPS}):
        cands, idx = [], []
        for t, (_, mnem, wi, mask, sh, x_feats) in enumerate(SRC_MAPS):
            if x_feats != extra:
                continue
            w = by[mnem][1]
            for c in range(256):
                x = list(w)
                x[wi] = (x[wi] & ~(mask << sh)) | ((c & mask) << sh)
                cands.append(x)
                idx.append(t * 256 + c)
        for i, r in decode(cpu + ":" + feats + extra, cands).items():
            res[idx[i]] = r
    maps = []
    for t in range(len(SRC_MAPS)):
        m = [0] * 8
        for c in range(256):
            r = res.get(t * 256 + c)
            # A misaligned 64-bit SGPR source is accepted (LLVM aligns it, with a warning).
            if r and "/*" not in r[1] and c <= SRC_MAPS[t][3]:
                m[c >> 5] |= 1 << (c & 31)
        maps.append(m)
    return maps


# Scalar-register maps of `sreg_maps`, in `<FAM>_SREG_OK` order: which 7-bit codes LLVM
# accepts (unflagged) as the first register of a tuple in that role. A misaligned tuple is
# accepted (LLVM aligns it down, with a warning); one that runs past s105 or the TTMPs, or
# starts at a register its class excludes (`exec` as SDATA, `vcc` as a buffer resource) is not.
SREG_MAPS = [
    "SMEM SDATA of 1 SGPR", "SMEM SDATA of 2", "SMEM SDATA of 3", "SMEM SDATA of 4",
    "SMEM SDATA of 8", "SMEM SDATA of 16", "SMEM SBASE pair (code = field << 1)",
    "SMEM SBASE quad (buffer opcodes)", "GFX12 VBUFFER resource", "GFX12 BVH resource (4 SGPRs)",
    "GFX12 VIMAGE/VSAMPLE resource (8 SGPRs)", "GFX12 VSAMPLE sampler", "GLOBAL SADDR pair",
]
SDATA_MAP = {1: 0, 2: 1, 3: 2, 4: 3, 8: 4, 16: 5}


def sreg_maps(fam, found, imgs, decode):
    """The `SREG_MAPS` bitmaps (128 bits as 4 words each), probed field value by field value
    on canonical words; every SMEM opcode of a width must agree (the generator fails
    otherwise), and GFX12 image/buffer register fields must reject codes 128.. (VGPRs,
    constants)."""
    cpu, feats = FAMILIES[fam]
    # jobs: (map index or None for a must-reject check, opcode key, code)
    jobs, cands = [], []

    def probe(idx, key, words, wi, sh, mask, codes, scale=1):
        for c in codes:
            w = list(words)
            w[wi] = (w[wi] & ~(mask << sh)) | (c << sh)
            cands.append(w)
            jobs.append((idx, key, c * scale))

    fields = encodings(fam)["smem"][2]
    for key, (size, txt, vals, words) in sorted(found.items()):
        if key[0] != "smem":
            continue
        widths, kinds = slot_widths(fields, vals, split_text(txt)[1])
        if widths[0] and kinds[0] == 1:
            probe(SDATA_MAP[widths[0]], key, words, 0, 6, 0x7F, range(128))
        if widths[1] in (2, 4):
            probe(6 if widths[1] == 2 else 7, key, words, 0, 0, 0x3F, range(64), 2)
    glob = next(k for k in sorted(found) if k[0] == "global" and split_text(found[k][1])[1][-1:] == ["off"])
    if fam == "gfx1100":
        probe(12, glob, found[glob][3], 1, 16, 0x7F, range(128))
    else:
        probe(12, glob, found[glob][3], 0, 0, 0x7F, range(128))
        mub = next(k for k in sorted(found) if k[0] == "mubuf")
        probe(8, mub, found[mub][3], 1, 9, 0x1FF, range(512))
        ents = imgs["vimage"]
        bvh = next(op for op, e in sorted(ents.items()) if e["rsrc"] == 4)
        img = next(op for op, e in sorted(ents.items()) if e["rsrc"] == 8)
        smp = min(op for op, e in imgs["vsample"].items() if e["samp"])  # one with a sampler
        probe(9, ("vimage", bvh), ents[bvh]["words"], 1, 9, 0x1FF, range(512))
        probe(10, ("vimage", img), ents[img]["words"], 1, 9, 0x1FF, range(512))
        probe(10, ("vsample", smp), imgs["vsample"][smp]["words"], 1, 9, 0x1FF, range(512))
        probe(11, ("vsample", smp), imgs["vsample"][smp]["words"], 1, 23, 0x1FF, range(512))
    res = decode(cpu + ":" + feats, cands)
    per = {}
    for i, (idx, key, c) in enumerate(jobs):
        r = res.get(i)
        ok = r is not None and "/*" not in r[1]  # a `; Warning` (misaligned) is accepted
        m = per.setdefault((idx, key), [0] * 4)
        if ok and c >= 128:
            raise SystemExit("%s %r: LLVM accepts code %d in a scalar register field" % (fam, key, c))
        if ok:
            m[c >> 5] |= 1 << (c & 31)
    maps = [None] * len(SREG_MAPS)
    for (idx, key), m in sorted(per.items()):
        if maps[idx] not in (None, m):
            raise SystemExit("%s %r: its %s codes differ from other opcodes'" % (fam, key, SREG_MAPS[idx]))
        maps[idx] = m
    return [m or [0] * 4 for m in maps]


def rust_sreg_maps(fam, maps):
    g = ["/// %s scalar register codes LLVM accepts as the first register of a tuple (bit c of" % fam]
    g.append("/// word c / 32), per role: %s." % "; ".join("%d: %s" % (i, n) for i, n in enumerate(SREG_MAPS)))
    g.append("pub static %s_SREG_OK: [[u32; 4]; %d] = [%s];\n" % (fam.upper(), len(maps), ", ".join("[%s]" % ", ".join("0x%x" % x for x in m) for m in maps)))
    return g


def rust_src_codes(fam, maps):
    return [
        "/// %s source codes LLVM accepts (bit c of word c / 32): %s." % (fam, ", ".join(m[0] for m in SRC_MAPS)),
        "pub static %s_SRC_OK: [[u32; 8]; %d] = [%s];\n" % (fam.upper(), len(maps), ", ".join("[%s]" % ", ".join("0x%x" % x for x in m) for m in maps)),
    ]


# ---------------------------------------------------------------------------------------
# DPP16 controls

DPP_NOTE_RE = re.compile(r"/\*\s*(.*?)\s*\*/")


def dpp_ctrls(fam, found, decode):
    """(bitmap of the 512 DPP16 controls LLVM prints as a control (16 words), [(control,
    comment)] of those it prints only as a comment, `/* wave_shl is not supported starting
    from GFX10 */`: the GFX9 wave shifts/rotates and row broadcasts). Probed on
    `v_mov_b32_dpp`; other controls are `/* Invalid dpp_ctrl value */` (rejected)."""
    cpu, feats = FAMILIES[fam]
    w = [k for k, v in found.items() if split_text(v[1])[0] == "v_mov_b32_e32"][0]
    w0 = (found[w][3][0] & ~0x1FF) | 0xFA
    res = decode(cpu + ":" + feats, [[w0, 0xFF000004 | c << 8] for c in range(512)])
    ok, notes = [0] * 16, []
    for c in range(512):
        txt = res[c][1] if c in res else None
        if txt is None:
            raise SystemExit("%s: DPP16 control %#x is not decoded at all" % (fam, c))
        m = DPP_NOTE_RE.search(txt)
        if m is None:
            ok[c >> 5] |= 1 << (c & 31)
        elif "Invalid" not in m.group(1):
            notes.append((c, m.group(1)))
    return ok, notes


def rust_dpp_ctrls(fam, ctrls):
    ok, notes = ctrls
    up = fam.upper()
    return [
        "/// %s DPP16 controls LLVM prints as a control (bit c of word c / 32)." % fam,
        "pub static %s_DPP_OK: [u32; 16] = [%s];" % (up, ", ".join("0x%x" % x for x in ok)),
        "/// %s DPP16 controls LLVM prints only as a comment (the text inside `/* */`): GFX9" % fam,
        "/// controls the target does not have.",
        "pub static %s_DPP_NOTES: [(u16, &str); %d] = [%s];\n" % (up, len(notes), ", ".join('(0x%x, "%s")' % n for n in notes)),
    ]
