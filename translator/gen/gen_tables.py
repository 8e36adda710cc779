#!/usr/bin/env python3
"""Generates wavejit's GFX9 opcode tables from LLVM's own disassembler.

Source of truth: LLVM 22's AMDGPU disassembler (libLLVM-22 through its C API, the same
decoder and printer as `llvm-mc-22 --disassemble` and `llvm-objdump-22`) for gfx942 and
gfx950. For every encoding the decoder supports, every opcode value is assembled into an
instruction word with fixed, simple operands (operand variants per encoding, first valid
one wins) and disassembled in persistent child processes, one per target and thread (LLVM
can crash on invalid words: a worker answers every word, so the crashing word is known,
skipped, and a new worker goes on after it). The printed mnemonic gives the opcode's name; its encoding suffix (`_e32`, `_e64`,
`_dpp`, `_sdwa`) is stripped to get the semantic opcode `Op` (naming contract in
`translator/src/isa/inst.rs`). The printed operands give each operand's register count.

Outputs (deterministic, sorted):
  translator/src/isa/generated/op.rs      enum Op + Op::name()
  translator/src/isa/generated/gfx9.rs    per-encoding tables: opcode -> OpInfo
  translator/gen/gfx9_opcodes.txt         the raw listing (encoding, opcode, target, text)
  translator/gen/gfx9{42,50}_cases.txt    oracle cases (words | LLVM text) for the decoder test

Usage:
  python3 translator/gen/gen_tables.py           regenerate in place
  python3 translator/gen/gen_tables.py --check   regenerate into a temp dir, diff, exit 1 on change

Without LLVM: fails when CI=true, otherwise prints a skip notice and exits 0.
"""

import atexit
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_sem  # noqa: E402
import gfx9_fix  # noqa: E402
import rdna  # noqa: E402

RUSTFMT = os.environ.get("RUSTFMT", "rustfmt")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # translator/
TARGETS = ["gfx942", "gfx950"]
LLVM_MC = os.environ.get("LLVM_MC", "llvm-mc-22")
SNOP = 0xBF800000  # s_nop 0: padding between candidates so the byte stream resyncs
PAD = 3  # s_nop words after each candidate (the longest GFX9 instruction is 16 bytes)
CHUNK = 3000

# ---------------------------------------------------------------------------------------
# Candidate words per encoding. Register choices keep every multi-dword operand aligned
# (gfx90a+ requires even VGPR tuples): v4, v8, v16 as sources, v0 as destination.

V = lambda r: 256 + r  # VGPR operand code in a 9-bit source field


def enc(count, base, *fields):
    """An encoding: `count` opcodes, `base(op)` -> words, operand `fields`.

    Each field is (word index, bit shift, [values], slot name, kind). LLVM rejects words
    whose unused operand fields are non-zero, so every combination of field values is
    tried, the combinations with the most non-zero fields first: the first that decodes
    sets exactly the fields the opcode uses. Kinds say how a value shows in the printed
    operand: "r" register number (9-bit source codes: 256+ = VGPR), "p" SGPR pair index,
    "q" SGPR quad index, "i" immediate, "-" a flag bit (no slot). The printed operand
    whose register number matches gives the slot's register count.
    """
    return (count, base, fields)


ENCODINGS = {
    "sop2": enc(
        0x60,
        lambda op: [0x80000000 | (op << 23)],
        (0, 16, [8, 0], "sdst", "r"),
        (0, 0, [2, 0], "ssrc0", "r"),
        (0, 8, [4, 0], "ssrc1", "r"),
    ),
    "sopk": enc(0x1D, lambda op: [0xB0000000 | (op << 23)], (0, 16, [8, 0], "sdst", "r"), (0, 0, [0x1234, 0], "simm16", "i")),
    "sop1": enc(0x100, lambda op: [0xBE800000 | (op << 8)], (0, 16, [8, 0], "sdst", "r"), (0, 0, [4, 0], "ssrc0", "r")),
    "sopc": enc(0x80, lambda op: [0xBF000000 | (op << 16)], (0, 0, [2, 0], "ssrc0", "r"), (0, 8, [4, 0], "ssrc1", "r")),
    "sopp": enc(0x80, lambda op: [0xBF800000 | (op << 16)], (0, 0, [3, 0], "simm16", "i")),
    "smem": enc(
        0x100,
        lambda op: [0xC0000000 | (op << 18), 0],
        (0, 6, [8, 0], "sdata", "r"),
        (0, 0, [1, 0], "sbase", "p"),
        (1, 0, [0x10, 0], "offset", "i"),
        (0, 17, [1, 0], "imm", "-"),
    ),
    "vop1": enc(0x100, lambda op: [0x7E000000 | (op << 9)], (0, 17, [0], "vdst", "r"), (0, 0, [V(4), 4, 0], "src0", "r")),
    "vop2": enc(
        0x3E,
        lambda op: [op << 25],
        (0, 17, [0], "vdst", "r"),
        (0, 0, [V(4), 4, 0], "src0", "r"),
        (0, 9, [8, 0], "vsrc1", "r"),
    ),
    "vopc": enc(0x100, lambda op: [0x7C000000 | (op << 17)], (0, 0, [V(4), 4], "src0", "r"), (0, 9, [8], "vsrc1", "r")),
    "vop3": enc(
        0x380,
        lambda op: [0xD0000000 | (op << 16), 0],
        (0, 0, [0], "vdst", "r"),
        (1, 0, [V(4), 4, 0], "src0", "r"),
        (1, 9, [V(8), 6, 0], "src1", "r"),
        (1, 18, [V(16), 12, 0], "src2", "r"),
    ),
    "vop3p": enc(
        0x80,
        lambda op: [0xD3800000 | (op << 16), 0],
        (0, 0, [0], "vdst", "r"),
        (1, 0, [V(4), 4, 0], "src0", "r"),
        (1, 9, [V(8), 6, 0], "src1", "r"),
        (1, 18, [V(16), 12, 0], "src2", "r"),
    ),
    "ds": enc(
        0x100,
        lambda op: [0xD8000000 | (op << 17), 0],
        (1, 24, [8, 0], "vdst", "r"),
        (1, 0, [1, 0], "addr", "r"),
        (1, 8, [2, 0], "data0", "r"),
        (1, 16, [4, 0], "data1", "r"),
    ),
    "flat": enc(
        0x80,
        lambda op: [0xDC000000 | (op << 18), 0],
        (1, 24, [8, 0], "vdst", "r"),
        (1, 0, [2, 0], "vaddr", "r"),
        (1, 8, [4, 0], "vdata", "r"),
    ),
    "global": enc(
        0x80,
        lambda op: [0xDC008000 | (op << 18), 0x7F << 16],
        (1, 24, [8, 0], "vdst", "r"),
        (1, 0, [2, 0], "vaddr", "r"),
        (1, 8, [4, 0], "vdata", "r"),
    ),
    "scratch": enc(
        0x80,
        lambda op: [0xDC004000 | (op << 18), 0],
        (1, 24, [8, 0], "vdst", "r"),
        (1, 0, [2, 0], "vaddr", "r"),
        (1, 8, [4, 0], "vdata", "r"),
        (0, 13, [1, 0], "sve", "-"),
        (1, 16, [0x7F, 10], "saddr", "-"),
    ),
    "mubuf": enc(
        0x80,
        lambda op: [0xE0000000 | (op << 18), (2 << 16) | (0x80 << 24)],
        (1, 8, [4, 0], "vdata", "r"),
        (1, 0, [1, 0], "vaddr", "r"),
        (0, 12, [1, 0], "offen", "-"),
    ),
    "mtbuf": enc(
        0x10,
        lambda op: [0xE8000000 | (op << 15) | (4 << 19) | (1 << 23), (2 << 16) | (0x80 << 24)],
        (1, 8, [4, 0], "vdata", "r"),
        (1, 0, [1, 0], "vaddr", "r"),
        (0, 12, [1, 0], "offen", "-"),
    ),
}


def variants(spec, op):
    """All operand variants of opcode `op`, most populated first, as (words, field values)."""
    count, base, fields = spec
    combos = [[]]
    for f in fields:
        combos = [c + [i] for c in combos for i in range(len(f[2]))]
    nz = lambda c: sum(1 for f, i in zip(fields, c) if f[2][i] != 0)
    combos.sort(key=lambda c: (-nz(c), c))
    out = []
    for c in combos:
        words = list(base(op))
        vals = []
        for f, i in zip(fields, c):
            words[f[0]] |= f[2][i] << f[1]
            vals.append(f[2][i])
        out.append((words, vals))
    return out


def slot_names(name):
    return [f[3] for f in ENCODINGS[name][2] if f[4] != "-"]


def slot_widths(name, vals, txt):
    """Register count per slot of encoding `name` (0 = operand absent, 1 for immediates)."""
    _, opnds = split_text(txt)
    parsed = []
    for o in opnds:
        m = re.match(r"^([vsa])\[(\d+):(\d+)\]$", o) or re.match(r"^([vsa])(\d+)()$", o)
        if m:
            lo = int(m.group(2))
            hi = int(m.group(3)) if m.group(3) else lo
            parsed.append((lo, hi - lo + 1, "vsa".index(m.group(1))))
        else:
            parsed.append((None, 0, 0))
    used = [False] * len(parsed)
    out = []
    kinds = []
    for f, v in zip(ENCODINGS[name][2], vals):
        kind = f[4]
        if kind == "-":
            continue
        if kind == "i":
            # An immediate slot is present if LLVM printed a non-register operand for it.
            w = 0
            if v:
                for k, (lo, cnt, rk) in enumerate(parsed):
                    if not used[k] and lo is None:
                        used[k] = True
                        w = 1
                        break
            out.append(w)
            kinds.append(0)
            continue
        if v == 0 and len(f[2]) > 1:
            # An optional field left at 0 by the winning variant is unused.
            out.append(0)
            kinds.append(0)
            continue
        reg = v * 2 if kind == "p" else v * 4 if kind == "q" else (v - 256 if v >= 256 else v)
        w = 0
        kd = 0
        for k, (lo, cnt, rk) in enumerate(parsed):
            if not used[k] and lo == reg:
                used[k] = True
                w = cnt
                kd = rk
                break
        out.append(w)
        kinds.append(kd)
    return out, kinds


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
    """Child process: disassembles candidates with LLVM's C API, one stdin line each, until
    stdin closes; prints one line per candidate: `size text`, or `0` where LLVM rejects it,
    and answers a line `.` (end of a batch) with `.`.

    One such process per target and thread serves every batch (`Worker`), in its own
    process because LLVM 22 can crash on some invalid words: the parent then knows from the
    answered lines which word crashed it, skips that word and goes on in a new process.
    """
    import ctypes

    lib = ctypes.CDLL(find_libllvm())
    for fn in ("LLVMInitializeAMDGPUTargetInfo", "LLVMInitializeAMDGPUTargetMC", "LLVMInitializeAMDGPUDisassembler"):
        getattr(lib, fn)()
    lib.LLVMCreateDisasmCPUFeatures.restype = ctypes.c_void_p
    lib.LLVMCreateDisasmCPUFeatures.argtypes = [
        ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p
    ]
    lib.LLVMDisasmInstruction.restype = ctypes.c_size_t
    lib.LLVMDisasmInstruction.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t]
    # `target` is a CPU name, optionally followed by `:` and LLVM feature flags.
    cpu, _, feats = target.partition(":")
    dc = lib.LLVMCreateDisasmCPUFeatures(b"amdgcn-amd-amdhsa", cpu.encode(), feats.encode(), None, 0, None, None)
    if not dc:
        raise SystemExit("cannot create an LLVM disassembler for " + target)
    buf = ctypes.create_string_buffer(512)
    out = sys.stdout
    for line in sys.stdin:
        if line == ".\n":
            out.write(".\n")
            out.flush()
            continue
        words = [int(x, 16) for x in line.split()] + [SNOP] * PAD
        data = bytes(words_to_bytes(words))
        cbuf = ctypes.create_string_buffer(data, len(data))
        n = lib.LLVMDisasmInstruction(dc, cbuf, len(data), 0, buf, 512)
        if n:
            out.write("%d %s\n" % (n, buf.value.decode().strip().replace("\t", " ")))
        else:
            out.write("0\n")
        out.flush()  # everything answered before a crash reaches the parent


class Crashed(Exception):
    """The worker died after answering `answered` candidates (results in `partial`)."""

    def __init__(self, answered, partial):
        super().__init__(answered)
        self.answered, self.partial = answered, partial


class Worker:
    """A persistent `--worker` child process for one target."""

    def __init__(self, target):
        self.target = target
        self.p = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", target],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def decode(self, cands):
        """{index: (size, text)} for the candidates LLVM decodes; raises Crashed."""
        text = "".join(" ".join("%08x" % w for w in c) + "\n" for c in cands) + ".\n"
        # A writer thread, so a full stdout pipe never blocks the batch's input.
        writer = threading.Thread(target=self._write, args=(text,))
        writer.start()
        res, k = {}, 0
        for line in self.p.stdout:
            if line == ".\n":
                break
            n, _, txt = line.rstrip("\n").partition(" ")
            if n != "0":
                res[k] = (int(n), txt)
            k += 1
        else:
            writer.join()
            self.close()
            raise Crashed(k, res)
        writer.join()
        return res

    def _write(self, text):
        try:
            self.p.stdin.write(text)
            self.p.stdin.flush()
        except OSError:
            pass  # the child died: `decode` sees its stdout end

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        self.p.wait()


# Idle workers, most recently used last; at most MAX_IDLE are kept.
_IDLE = []
_IDLE_LOCK = threading.Lock()
MAX_IDLE = 2 * (os.cpu_count() or 1)


def take_worker(target):
    with _IDLE_LOCK:
        for i in range(len(_IDLE) - 1, -1, -1):
            if _IDLE[i].target == target:
                return _IDLE.pop(i)
    return Worker(target)


def give_back(w):
    with _IDLE_LOCK:
        _IDLE.append(w)
        old = _IDLE[:-MAX_IDLE] if len(_IDLE) > MAX_IDLE else []
        del _IDLE[: len(old)]
    for o in old:
        o.close()


@atexit.register
def close_workers():
    with _IDLE_LOCK:
        ws = list(_IDLE)
        _IDLE.clear()
    for w in ws:
        w.close()


def decode_chunk(target, cands):
    """cands: list of word lists. Returns {index: (size, text)} for the candidates LLVM
    decodes; a candidate that crashes LLVM counts as undecodable."""
    res, start = {}, 0
    while start < len(cands):
        w = take_worker(target)
        try:
            r = w.decode(cands[start:])
        except Crashed as c:
            res.update({k + start: v for k, v in c.partial.items()})
            start += c.answered + 1  # skip the word that crashed LLVM
            continue
        give_back(w)
        res.update({k + start: v for k, v in r.items()})
        break
    return res


def chunked(target, cands):
    """decode_chunk over CHUNK-sized slices of `cands`, in parallel (as many worker
    processes at a time as the machine has CPUs); results in slice order."""
    starts = list(range(0, len(cands), CHUNK))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        parts = list(pool.map(lambda i: decode_chunk(target, cands[i : i + CHUNK]), starts))
    return list(zip(starts, parts))


def decode_all(target, cands):
    """decode_chunk over any number of candidates, CHUNK at a time."""
    res = {}
    for i, r in chunked(target, cands):
        res.update({k + i: v for k, v in r.items()})
    return res


def enumerate_target(target):
    """Returns {(encoding, opcode): (size, text)} for every decodable opcode."""
    jobs = []  # (enc, op, variant index, words)
    for name, spec in ENCODINGS.items():
        for op in range(spec[0]):
            for vi, (words, vals) in enumerate(variants(spec, op)):
                jobs.append((name, op, vi, words, vals))
    found = {}
    for i, res in chunked(target, [j[3] for j in jobs]):
        part = jobs[i : i + CHUNK]
        for k, (size, txt) in res.items():
            name, op, vi, words, vals = part[k]
            key = (name, op)
            # Prefer variants LLVM prints without operand complaints (`/*Invalid...*/`).
            rank = (("/*" in txt or "; Warning" in txt), vi)
            if key not in found or found[key][0] > rank:
                found[key] = (rank, size, txt, vals, words)
    return {k: (v[1], v[2], v[3]) for k, v in found.items()}, {k: v[4] for k, v in found.items()}


# Modifier flags (OpInfo::mods): which optional syntax LLVM prints for an opcode, found by
# decoding the canonical word with the modifier bits set.
M_OPSEL, M_CLAMP, M_OMOD, M_OPSEL_HI, M_NEG_LO, M_NEG_HI, M_GLC, M_GDS, M_LIT16, M_OPSEL_HI_DEF1 = (
    1 << i for i in range(10)
)
M_ABS0, M_NEG0 = 1 << 10, 1 << 13  # + source index: VOP3 abs/neg printed for that source
M_LITF16 = 1 << 16  # a 16-bit literal source is floating point (f16 inline values)
M_NOSDWA, M_NODPP = 1 << 17, 1 << 18  # VOP1/VOP2/VOPC without SDWA / DPP form (gfx9_fix.py)
M_OPSEL4 = 1 << 19  # VOP3 op_sel is printed with four entries whatever the source count
M_SRCMODS = 0x3F << 10
PROBES = {
    # encoding: [(word, bits, keyword, flag)]
    "vop3": [(0, 0x0800, "op_sel:", M_OPSEL), (0, 0x8000, " clamp", M_CLAMP), (1, 1 << 27, " mul:2", M_OMOD)]
    + [(0, 0x0800, "op_sel:[_,_,_,_]", M_OPSEL4)]
    + [(0, 0x100 << i, "|", M_ABS0 << i) for i in range(3)]
    + [(1, 1 << (29 + i), "-", M_NEG0 << i) for i in range(3)],
    "vop3p": [
        (0, 0x0800, "op_sel:", M_OPSEL),
        (0, 0x4000, "op_sel_hi:", M_OPSEL_HI),
        (1, 1 << 29, "neg_lo:", M_NEG_LO),
        (0, 0x100, "neg_hi:", M_NEG_HI),
        (0, 0x8000, " clamp", M_CLAMP),
    ],
    "smem": [(0, 1 << 16, " glc", M_GLC)],
    "ds": [(0, 1 << 16, " gds", M_GDS)],
}
LIT_PROBE = 0x56781234
VOP3_LITERAL_TARGETS = {"gfx950"}  # GFX9 targets whose VOP3 takes a literal source


def probe_mods(target, canon, per):
    """Returns {(encoding, opcode): flags}."""
    cands = []
    keys = []
    for (name, op), words in sorted(canon.items()):
        for wi, bits, kw, flag in PROBES.get(name, []):
            w = list(words)
            w[wi] |= bits
            if name == "vop3p" and flag == M_OPSEL_HI:
                w[1] |= 3 << 27
            cands.append(w)
            keys.append((name, op, kw, flag))
        if name in ("vop1", "vop2", "vopc"):
            cands.append([(words[0] & ~0x1FF) | 0xFF, LIT_PROBE])
            keys.append((name, op, "0x%x" % (LIT_PROBE & 0xFFFF), M_LIT16))
            # 1.0 in f16: LLVM marks it `lit(...)` only where the operand is f16.
            cands.append([(words[0] & ~0x1FF) | 0xFF, 0x3C00])
            keys.append((name, op, "lit(0x3c00)", M_LITF16))
        # Literals in VOP3 exist on gfx950 only. LLVM 22 crashes on every gfx942 VOP3 word
        # with a literal source, and each crash costs a new worker process (~880 of them,
        # most of `--check`'s time), so gfx942 is not probed: it never has the flags.
        if name == "vop3" and target in VOP3_LITERAL_TARGETS:
            cands.append([words[0], (words[1] & ~0x1FF) | 0xFF, LIT_PROBE])
            keys.append((name, op, "0x%x" % (LIT_PROBE & 0xFFFF), M_LIT16))
            cands.append([words[0], (words[1] & ~0x1FF) | 0xFF, 0x3C00])
            keys.append((name, op, "lit(0x3c00)", M_LITF16))
    res = decode_all(target, cands)
    flags = {}
    for i, (name, op, kw, flag) in enumerate(keys):
        f = flags.setdefault((name, op), 0)
        if i in res:
            txt = res[i][1]
            if kw == "-":
                txt = " ".join(split_text(txt)[1])  # operands only
            if flag == M_LITF16:
                if kw in txt:
                    f |= flag
            elif flag == M_LIT16:
                if re.search(r"\b%s\b" % kw, txt):
                    f |= flag
            elif flag == M_OPSEL4:
                if re.search(r"op_sel:\[\d,\d,\d,\d\]", txt):
                    f |= flag
            elif kw in txt:
                f |= flag
        flags[(name, op)] = f
    for (name, op), (size, txt, _) in per.items():
        if name == "vop3p" and "op_sel_hi:" in txt:
            flags[(name, op)] = flags.get((name, op), 0) | M_OPSEL_HI_DEF1 | M_OPSEL_HI
    # 32-bit forms (DPP/SDWA source modifiers) take the e64 form's source-modifier flags.
    e64 = {}
    for (name, op), (size, txt, _) in per.items():
        if name == "vop3":
            e64[base_mnemonic(split_text(txt)[0])] = flags.get((name, op), 0) & M_SRCMODS
    for (name, op), (size, txt, _) in per.items():
        if name in ("vop1", "vop2", "vopc"):
            b = base_mnemonic(split_text(txt)[0])
            flags[(name, op)] = flags.get((name, op), 0) | e64.get(b, M_SRCMODS)
    return flags


# Opcode classes (OpInfo::class), from the mnemonic, so the decoder never compares strings.
CLASSES = [
    ("STORE", "writes memory from its data operand (`store` mnemonics)", lambda m: "store" in m),
    ("ATOMIC", "an atomic (data operand read, old value returned with GLC/SC0)", lambda m: "atomic" in m),
    (
        "TWO_OFFSETS",
        "DS with `offset0`/`offset1`",
        lambda m: m.startswith("ds_") and ("2_" in m or "2st64" in m or "2addr" in m) and "bvh" not in m,
    ),
    ("MAI", "MFMA/SMFMAC matrix opcode", lambda m: (m.startswith("v_mfma") and "ld_scale" not in m) or m.startswith("v_smfmac")),
    ("ACCMOV", "`v_accvgpr_*` move", lambda m: m.startswith("v_accvgpr")),
    ("MADMK", "VOP2 with the K constant as the second source (`madmk`/`fmamk`)", lambda m: "madmk" in m or "fmamk" in m),
    ("MADAK", "VOP2 with the K constant as the third source (`madak`/`fmaak`)", lambda m: "madak" in m or "fmaak" in m),
    ("CMPSWAP", "compare-and-swap (data is two values)", lambda m: "cmpswap" in m),
    ("SBUFFER", "SMEM with a buffer resource (quad) base", lambda m: m.startswith("s_buffer") or m == "s_atc_probe_buffer"),
    ("SDST_READ", "SOPK whose SDST field is a source (`s_cmpk_*`, `s_setreg_*`)", lambda m: m.startswith("s_cmpk") or m.startswith("s_setreg")),
]


def op_class(mnem):
    return sum(1 << i for i, (_, _, f) in enumerate(CLASSES) if f(mnem))


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


ENC_ORDER = list(ENCODINGS.keys())
ENC_SIZE = {k: v[0] for k, v in ENCODINGS.items()}


# Bits of each encoding that the case generator randomises (operands and modifiers, never
# the opcode or the encoding/segment bits), per word.
MUTABLE = {
    "sop2": [0x007FFFFF],
    "sopk": [0x007FFFFF],
    "sop1": [0x007F00FF],
    "sopc": [0x0000FFFF],
    "sopp": [0x0000FFFF],
    "smem": [0x0003FFFF, 0xFFFFFFFF],
    "vop1": [0x01FE01FF],
    "vop2": [0x01FFFFFF],
    "vopc": [0x0001FFFF],
    "vop3": [0x0000FFFF, 0xFFFFFFFF],
    "vop3p": [0x0000FFFF, 0xFFFFFFFF],
    "ds": [0x0001FFFF, 0xFFFFFFFF],
    "flat": [0x00033FFF, 0xFFFFFFFF],
    "global": [0x00033FFF, 0xFFFFFFFF],
    "scratch": [0x00033FFF, 0xFFFFFFFF],
    "mubuf": [0x0003FFFF, 0xFFFFFFFF],
    "mtbuf": [0x03F87FFF, 0xFFFFFFFF],
}
CASES_PER_OP = 10


def assemble_extra(path, target, mattr=""):
    """Words of the hand-picked instructions in `path`, assembled by llvm-mc-22."""
    if not os.path.exists(path):
        return []
    src = "".join(l for l in open(path) if not l.startswith("//"))
    p = subprocess.run(
        [LLVM_MC, "-arch=amdgcn", "-mcpu=" + target, "-show-encoding"] + (["-mattr=" + mattr] if mattr else []),
        input=src,
        capture_output=True,
        text=True,
    )
    if p.returncode != 0 or p.stderr.strip():
        raise SystemExit("%s: llvm-mc-22 failed:\n%s" % (path, p.stderr))
    out = []
    for line in p.stdout.splitlines():
        m = re.search(r"; encoding: \[(.*)\]", line)
        if m:
            b = [int(x, 16) for x in m.group(1).split(",")]
            out.append([int.from_bytes(bytes(b[i : i + 4]), "little") for i in range(0, len(b), 4)])
    return out


def write_cases(path, target, canon):
    """Oracle cases: canonical and randomised operand variants of every opcode, plus
    literal, DPP and SDWA forms, each with LLVM's text. Deterministic (fixed seed).
    Returns the generated cases LLVM accepts without complaint: [(encoding, opcode, words)]."""
    import random

    rng = random.Random(942)
    cands = assemble_extra(os.path.join(HERE, "%s_extra.s" % target), target)
    ckeys = [None] * len(cands)
    for name in ENC_ORDER:
        for op in range(ENC_SIZE[name]):
            words = canon.get((name, op))
            if words is None:
                continue
            cands.append(words)
            ckeys.append((name, op))
            masks = MUTABLE[name]
            for _ in range(CASES_PER_OP):
                w = list(words)
                for i, m in enumerate(masks):
                    r = rng.getrandbits(32)
                    # Bias register fields towards small numbers and inline constants.
                    if rng.random() < 0.5:
                        r &= 0x3F3F3F3F | 0x80808080 if rng.random() < 0.5 else 0x0F0F0F0F
                    w[i] = (w[i] & ~m) | (r & m)
                if name in ("vop1", "vop2", "vopc"):
                    pick = rng.random()
                    if pick < 0.2:
                        w[0] = (w[0] & ~0x1FF) | 0xFA  # DPP
                    elif pick < 0.4:
                        w[0] = (w[0] & ~0x1FF) | 0xF9  # SDWA
                    elif pick < 0.55:
                        w[0] = (w[0] & ~0x1FF) | 0xFF  # literal
                elif name.startswith("sop") and rng.random() < 0.3:
                    w[0] = (w[0] & ~0xFF) | 0xFF
                cands.append(w + [rng.getrandbits(32)])
                ckeys.append((name, op))
    res = decode_all(target, cands)
    seen = set()
    acc = []
    lines = ["# %s decoder oracle: hex words (as many as LLVM used) | LLVM 22's text. Generated." % target]
    for i, c in enumerate(cands):
        if i not in res:
            continue
        size, txt = res[i]
        if txt.startswith("s_setreg_imm32_b32") and size == 4:
            continue  # LLVM 22 prints the imm32 but reports a 4-byte size
        if "/*" in txt or ";" in txt:
            continue  # LLVM flags the operands as invalid (misaligned tuple, wrong class)
        key = tuple((c + [SNOP] * PAD)[: size // 4])
        if ckeys[i] is not None:
            acc.append(ckeys[i] + (list(key),))
        if key in seen:
            continue
        seen.add(key)
        lines.append("%s | %s" % (" ".join("%08x" % w for w in key), txt))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return acc


def generate(outdir):
    os.makedirs(os.path.join(outdir, "gen"), exist_ok=True)
    per_target = {}
    canon = {}
    mods = {}
    for t in TARGETS:
        per_target[t], canon[t] = enumerate_target(t)
        mods[t] = probe_mods(t, canon[t], per_target[t])
    fixes = {}
    for t in TARGETS:
        acc = write_cases(os.path.join(outdir, "gen", "%s_cases.txt" % t), t, canon[t])
        fixes[t], missing = gfx9_fix.fixed_mods(t, per_target[t], canon[t], acc, decode_all, split_text, slot_widths)
        for name, op, form in missing:
            mods[t][(name, op)] = mods[t].get((name, op), 0) | (M_NOSDWA if form == "sdwa" else M_NODPP)
    ops = {}  # base -> target mask
    for ti, t in enumerate(TARGETS):
        for (_, op), (size, txt, _) in per_target[t].items():
            b = base_mnemonic(split_text(txt)[0])
            ops[b] = ops.get(b, 0) | (1 << ti)

    # --- RDNA (gfx1100; gfx1200 = gfx1201, checked)
    rd = {}
    dppf = {}
    nolit = {}
    syms = {}
    imgs = {}
    for fam in rdna.FAMILIES:
        imgs[fam] = [rdna.enumerate_images(fam, decode_all, op_class), None]
        found = rdna.enumerate_family(fam, decode_all)
        vopd = rdna.enumerate_vopd(fam, decode_all)
        rd[fam] = (
            found,
            vopd,
            rdna.probe_mods(fam, found, decode_all),
            rdna.wave64_widths(fam, found, decode_all),
            None,  # fixed bits: from the canonical words and the oracle cases, below
        )
        rd[fam][2].update(rdna.vopd_lit_kinds(fam, vopd, decode_all))
        syms[fam] = rdna.symbol_tables(fam, found, decode_all)
        syms[fam] = syms[fam] + (rdna.src_codes(fam, found, decode_all), rdna.sreg_maps(fam, found, imgs[fam][0], decode_all))
        syms[fam] = syms[fam] + (rdna.dpp_ctrls(fam, found, decode_all),)
    for other, fam in rdna.CHECK_SAME.items():
        saved = rdna.FAMILIES[fam]
        rdna.FAMILIES[fam] = (other, saved[1])
        try:
            same = rdna.listing(fam, rdna.enumerate_family(fam, decode_all), rdna.enumerate_vopd(fam, decode_all))
            same += rdna.image_listing(rdna.enumerate_images(fam, decode_all, op_class))
        finally:
            rdna.FAMILIES[fam] = saved
        if same != rdna.listing(fam, rd[fam][0], rd[fam][1]) + rdna.image_listing(imgs[fam][0]):
            raise SystemExit("%s no longer decodes exactly like %s: give it its own tables" % (other, fam))
    # gfx1150 (and gfx1151..3): gfx1100's encodings; own tables where LLVM decodes differently.
    var = {}
    for vt, fam in rdna.VARIANTS.items():
        with rdna.as_cpu(fam, vt):
            vfound = rdna.enumerate_family(fam, decode_all)
            vvopd = rdna.enumerate_vopd(fam, decode_all)
            diff = rdna.encodings_differing(rdna.listing(fam, rd[fam][0], rd[fam][1]), rdna.listing(fam, vfound, vvopd))
            if rdna.image_listing(rdna.enumerate_images(fam, decode_all, op_class)) != rdna.image_listing(imgs[fam][0]):
                raise SystemExit("%s decodes image instructions unlike %s: give it its own tables" % (vt, fam))
            if "vopdx" in diff or "vopdy" in diff:
                raise SystemExit("%s decodes VOPD unlike %s: not supported by the generator" % (vt, fam))
            valu = {"vop1", "vop2", "vopc"}
            sub = {k: v for k, v in vfound.items() if k[0] in diff or (k[0] == "vop3" and valu & set(diff))}
            own = {k: v for k, v in sub.items() if k[0] in diff}
            vmods = rdna.probe_mods(fam, sub, decode_all)
            vw64 = rdna.wave64_widths(fam, sub, decode_all)
            acc = rdna.write_cases(os.path.join(outdir, "gen", "%s_cases.txt" % vt), fam, vt, own, decode_all, [])
            vfixed = rdna.fixed_bits(fam, own, decode_all, acc)
        var[vt] = (fam, vfound, vvopd, vmods, vw64, vfixed, diff)
    for t, base in rdna.CHECK_QUICK.items():
        fam = rdna.VARIANTS.get(base, base)
        found = var[base][1] if base in var else rd[base][0]
        with rdna.as_cpu(fam, base):
            if not rdna.check_same_quick(fam, t, found, decode_all):
                raise SystemExit("%s no longer decodes like %s: give it its own tables" % (t, base))
    rdna_bits = {"gfx1100": 4, "gfx1200": 8 | 16, "gfx1150": 32}
    for vt, (fam, vfound, vvopd, _, _, _, _) in var.items():
        for txt in [v[1] for v in vfound.values()] + [v[1] for v in vvopd.values()]:
            b = base_mnemonic(split_text(txt)[0])
            ops[b] = ops.get(b, 0) | rdna_bits[vt]
        for ents in imgs[fam][0].values():
            for e in ents.values():
                ops[e["mnem"]] = ops.get(e["mnem"], 0) | rdna_bits[vt]
        with open(os.path.join(outdir, "gen", "%s_opcodes.txt" % vt), "w") as f:
            f.write("# encoding opcode size text  (%s, the encodings that differ from %s; generated by gen_tables.py; do not edit)\n" % (vt, fam))
            f.write("\n".join(l for l in rdna.listing(fam, vfound, vvopd) if l.split()[0] in var[vt][6]) + "\n")
    for fam, (found, vopd, _, _, _) in rd.items():
        for txt in [v[1] for v in found.values()] + [v[1] for v in vopd.values()]:
            b = base_mnemonic(split_text(txt)[0])
            ops[b] = ops.get(b, 0) | rdna_bits[fam]
        for ents in imgs[fam][0].values():
            for e in ents.values():
                ops[e["mnem"]] = ops.get(e["mnem"], 0) | rdna_bits[fam]
        extra = assemble_extra(os.path.join(HERE, "%s_extra.s" % fam), fam, rdna.FAMILIES[fam][1])
        acc = rdna.write_cases(os.path.join(outdir, "gen", "%s_cases.txt" % fam), fam, fam, found, decode_all, extra)
        acc += rdna.write_cases(os.path.join(outdir, "gen", "%s_w64_cases.txt" % fam), fam, fam, found, decode_all, [], True)
        # VOP3 words' fixed bits from the VOP3 cases; the DPP forms' own (where they differ).
        vop3_acc = [a for a in acc if not rdna.dpp_form(*a)]
        rd[fam] = rd[fam][:4] + (rdna.fixed_bits(fam, found, decode_all, vop3_acc),)
        dppf[fam] = (
            rdna.dpp_fixed_bits(fam, found, rd[fam][2], rd[fam][4], acc, decode_all),
            rdna.dpp_src_maps(fam, found, rd[fam][2], decode_all),
        )
        nolit[fam] = rdna.vop3_nolit(fam, found, rd[fam][2], decode_all)
        img_lines, img_acc = rdna.write_image_cases(fam, imgs[fam][0], decode_all)
        imgs[fam][1] = rdna.fixed_bits(fam, rdna.image_found(imgs[fam][0]), decode_all, img_acc)
        with open(os.path.join(outdir, "gen", "%s_cases.txt" % fam), "a") as f:
            f.write("\n".join(img_lines) + "\n")
        with open(os.path.join(outdir, "gen", "%s_opcodes.txt" % fam), "w") as f:
            f.write("# encoding opcode size text  (%s; generated by gen_tables.py; do not edit)\n" % fam)
            f.write("\n".join(rdna.listing(fam, found, vopd) + rdna.image_listing(imgs[fam][0])) + "\n")
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
                    size, txt, _ = per_target[t][(enc, op)]
                    lines.append("%s 0x%03x %s %d %s" % (enc, op, t, size, txt))
    os.makedirs(os.path.join(outdir, "gen"), exist_ok=True)
    with open(os.path.join(outdir, "gen", "gfx9_opcodes.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")

    gdir = os.path.join(outdir, "src", "isa", "generated")
    os.makedirs(gdir, exist_ok=True)

    # --- op.rs
    o = []
    o.append("// @generated by translator/gen/gen_tables.py from LLVM 22's disassembler. Do not edit.\n")
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
    o.append("/// Targets an opcode exists on: bit 0 = gfx942, bit 1 = gfx950, bit 2 = gfx1100,")
    o.append("/// bit 3 = gfx1200, bit 4 = gfx1201, bit 5 = gfx1150.")
    o.append("pub const TARGET_GFX942: u8 = 1;")
    o.append("/// See [`TARGET_GFX942`].")
    o.append("pub const TARGET_GFX950: u8 = 2;")
    o.append("/// See [`TARGET_GFX942`] (gfx1100..gfx1103).")
    o.append("pub const TARGET_GFX1100: u8 = 4;")
    o.append("/// See [`TARGET_GFX942`].")
    o.append("pub const TARGET_GFX1200: u8 = 8;")
    o.append("/// See [`TARGET_GFX942`].")
    o.append("pub const TARGET_GFX1201: u8 = 16;")
    o.append("/// See [`TARGET_GFX942`] (gfx1150..gfx1153).")
    o.append("pub const TARGET_GFX1150: u8 = 32;\n")
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
    o.append("    /// The targets this opcode exists on (`TARGET_*` bits).")
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
    g.append("// @generated by translator/gen/gen_tables.py from LLVM 22's disassembler. Do not edit.\n")
    g.append("//! GFX9 (gfx942, gfx950) opcode tables, indexed by the encoding's opcode field.\n")
    g.append("use super::{Op, OpInfo};\n")
    for ti, t in enumerate(TARGETS):
        for enc in ENC_ORDER:
            n = ENC_SIZE[enc]
            g.append("/// %s %s opcodes (`None` = not a valid opcode)." % (t, enc.upper()))
            g.append("/// Operand slots of `widths`: %s." % ", ".join("`%s`" % s for s in slot_names(enc)))
            g.append("pub static %s_%s: [Option<OpInfo>; %d] = [" % (t.upper(), enc.upper(), n))
            for op in range(n):
                e = per_target[t].get((enc, op))
                if e is None:
                    g.append("    None,")
                    continue
                size, txt, vals = e
                mnem, _ = split_text(txt)
                widths, kinds = slot_widths(enc, vals, txt)
                widths += [0] * (4 - len(widths))
                kinds += [0] * (4 - len(kinds))
                fx = fixes[t].get((enc, op), {})
                own = fx.get(enc, [[0, 0], [0, 0]])
                sdwa = fx.get("sdwa", [[0, 0], [0, 0]])[1]
                dpp = fx.get("dpp", [[0, 0], [0, 0]])[1]
                g.append(
                    '    Some(OpInfo { op: Op::%s, mnemonic: "%s", widths: [%s], kinds: [%s], mods: %d, class: %d, '
                    "fixmask: [%#x, %#x], fixval: [%#x, %#x], sdwa_fix: [%#x, %#x], dpp_fix: [%#x, %#x] }), // 0x%03x %s"
                    % (
                        base_mnemonic(mnem).upper(),
                        mnem,
                        ", ".join(map(str, widths)),
                        ", ".join(map(str, kinds)),
                        mods[t].get((enc, op), 0),
                        op_class(mnem),
                        own[0][0],
                        own[1][0],
                        own[0][1],
                        own[1][1],
                        sdwa[0],
                        sdwa[1],
                        dpp[0],
                        dpp[1],
                        op,
                        txt,
                    )
                )
            g.append("];\n")
    with open(os.path.join(gdir, "gfx9.rs"), "w") as f:
        f.write("\n".join(g) + "\n")

    # --- rdna.rs
    g = []
    g.append("// @generated by translator/gen/gen_tables.py from LLVM 22's disassembler. Do not edit.\n")
    g.append("//! RDNA opcode tables: GFX11 (gfx1100, wave32 and wave64) and GFX12 (gfx1200 = gfx1201),")
    g.append("//! indexed by the encoding's opcode field.\n")
    g.append("use super::{DppFix, DppSrc, Op, RdnaImage, RdnaInfo};\n")
    for fam, (found, vopd, mods_, w64, fixed) in rd.items():
        g += rdna.rust_tables(fam, found, vopd, mods_, w64, op_class, fixed)
        g += rdna.rust_symbols(fam, *syms[fam][:4])
        g += rdna.rust_src_codes(fam, syms[fam][4])
        g += rdna.rust_sreg_maps(fam, syms[fam][5])
        g += rdna.rust_dpp_ctrls(fam, syms[fam][6])
        g += rdna.rust_dpp_forms(fam, *dppf[fam])
        g += rdna.rust_vop3_nolit(fam, nolit[fam])
        g += rdna.rust_images(fam, *imgs[fam])
    for vt, (fam, vfound, vvopd, vmods, vw64, vfixed, diff) in var.items():
        g += rdna.rust_tables(fam, vfound, vvopd, vmods, vw64, op_class, vfixed, variant=vt, only=diff)
    with open(os.path.join(gdir, "rdna.rs"), "w") as f:
        f.write("\n".join(g) + "\n")

    # --- mod.rs
    m = []
    m.append("// @generated by translator/gen/gen_tables.py from LLVM 22's disassembler. Do not edit.\n")
    m.append("//! Tables generated from LLVM's disassembler by `translator/gen/gen_tables.py`.\n")
    m.append("pub mod gfx9;")
    m.append("mod op;")
    m.append("pub mod rdna;")
    m.append("mod sem;\n")
    m.append("pub use op::{Op, TARGET_GFX1100, TARGET_GFX1150, TARGET_GFX1200, TARGET_GFX1201, TARGET_GFX942, TARGET_GFX950};")
    m.append("pub use sem::{%s, Sem};\n" % ", ".join(sorted(e for _, e, _, _ in gen_sem.CLASSES)))
    for i, n in enumerate(["OPSEL", "CLAMP", "OMOD", "OPSEL_HI", "NEG_LO", "NEG_HI", "GLC", "GDS", "LIT16", "OPSEL_HI_DEF1", "ABS0", "ABS1", "ABS2", "NEG0", "NEG1", "NEG2", "LITF16", "NOSDWA", "NODPP", "OPSEL4"]):
        doc = {
            "OPSEL": "`op_sel` is printed (the opcode has the operand).",
            "CLAMP": "`clamp` is printed.",
            "OMOD": "the output modifier (`mul:2`, `div:2`) is printed.",
            "OPSEL_HI": "VOP3P `op_sel_hi` is printed when not the default.",
            "NEG_LO": "VOP3P `neg_lo` is printed.",
            "NEG_HI": "VOP3P `neg_hi` is printed.",
            "GLC": "SMEM `glc` is printed.",
            "GDS": "DS `gds` is printed.",
            "LIT16": "a literal source is a 16-bit value (LLVM prints its low half).",
            "OPSEL_HI_DEF1": "VOP3P `op_sel_hi` defaults to all ones (else all zeros).",
            "ABS0": "source 0 takes `abs` (VOP3, DPP, SDWA).",
            "ABS1": "source 1 takes `abs`.",
            "ABS2": "source 2 takes `abs`.",
            "NEG0": "source 0 takes `neg`.",
            "NEG1": "source 1 takes `neg`.",
            "NEG2": "source 2 takes `neg`.",
            "LITF16": "a 16-bit literal source is f16 (f16 inline values are marked `lit()`).",
            "NOSDWA": "VOP1/VOP2/VOPC: LLVM has no SDWA form (source code 0xF9 is invalid).",
            "NODPP": "VOP1/VOP2/VOPC: LLVM has no DPP form (source code 0xFA is invalid).",
            "OPSEL4": "VOP3 `op_sel` is printed with four entries (sources and byte selects), else with one per source and the destination's.",
        }[n]
        m.append("/// Flag of [`OpInfo::mods`]: %s" % doc)
        m.append("pub const MOD_%s: u32 = %d;" % (n, 1 << i))
    m.append("/// Flag of [`RdnaInfo::mods`]: a VOP3SD opcode (word 0 bits `[14:8]` are SDST, not ABS/OPSEL).")
    m.append("pub const MOD_SD: u32 = %d;" % rdna.M_SD)
    m.append("/// Flag of [`RdnaInfo::mods`]: 16-bit integer sources; float inline constants print as f16 hex.")
    m.append("pub const MOD_HEX16: u32 = %d;" % rdna.M_HEX16)
    for n, doc in [
        ("CARRY", "VOP2 `_e32` with implicit VCC carry-out and carry-in (`v_add_co_ci_u32`)"),
        ("VCCIN", "VOP2 `_e32` reading VCC as a third source (`v_cndmask_b32`)"),
        ("CMPX", "VOPC writing EXEC (`v_cmpx_*`)"),
        ("SENDMSG", "SOP1 whose SSRC0 field is a message id (`s_sendmsg_rtn_*`)"),
        ("IMM32", "SOPK followed by a 32-bit immediate (`s_setreg_imm32_b32`)"),
        ("NODPP16", "no DPP16 form: source code 0xFA is invalid"),
        ("NODPP8", "no DPP8 form: source codes 0xE9/0xEA are invalid"),
        ("DPPMOD0", "VOP1/VOP2/VOPC DPP16: the DPP word's src0 neg/abs bits are valid"),
        ("DPPMOD1", "VOP1/VOP2/VOPC DPP16: the DPP word's src1 neg/abs bits are valid"),
        ("FAKE16_NOMODS", "VOP3 true16: in the fake16 form (OP_SEL of a missing operand) neg/abs bits of a source without modifiers are invalid"),
    ]:
        m.append("/// Flag of [`RdnaInfo::mods`]: %s." % doc)
        m.append("pub const MOD_%s: u32 = %d;" % (n, getattr(rdna, "M_" + n)))
    for i in range(3):
        m.append("/// Flag of [`RdnaInfo::mods`]: VOP3 source %d is a lane mask (one SGPR in wave32, a pair in wave64)." % i)
        m.append("pub const MOD_MASK%d: u32 = %d;" % (i, rdna.M_MASK0 << i))
    m.append("/// Mask of [`RdnaInfo::extra`]: VOP3 true16: the OP_SEL bits with which LLVM decodes the fake16 form.")
    m.append("pub const EXTRA_FAKE16_OPSEL: u32 = %d;" % rdna.X_FAKE16)
    m.append("/// Flag of [`RdnaInfo::extra`]: SALU, VOP1: the source also takes `src_lds_direct` (code 0xFE),")
    m.append("/// a VGPR-only VOP1 SRC0 too (`v_readfirstlane_b32`).")
    m.append("pub const EXTRA_LDS_DIRECT: u32 = %d;" % rdna.X_LDS_DIRECT)
    m.append("/// Flag of [`RdnaInfo::extra`]: SOP1: the source takes no constant (the SALU register-only source maps).")
    m.append("pub const EXTRA_SREG_ONLY: u32 = %d;" % rdna.X_SREG_ONLY)
    m.append("/// Mask of [`RdnaInfo::extra`]: VOP3: the OP_SEL bits LLVM accepts and ignores (a packed")
    m.append("/// source of a true16 opcode, `v_dot2_f16_f16`), shifted left by [`EXTRA_OPSEL_IGN_SHIFT`].")
    m.append("pub const EXTRA_OPSEL_IGN: u32 = %d;" % rdna.X_OPSEL_IGN)
    m.append("/// Position of [`EXTRA_OPSEL_IGN`] in [`RdnaInfo::extra`].")
    m.append("pub const EXTRA_OPSEL_IGN_SHIFT: u32 = %d;" % rdna.X_OPSEL_IGN_SHIFT)
    m.append("/// Position in [`RdnaInfo::extra`] of the `WIDE_*` kind (3 bits) of a VOP3P source of")
    m.append("/// several VGPRs (WMMA's C) in wave32: how LLVM shows a constant or literal there.")
    m.append("pub const EXTRA_WIDE_SHIFT: u32 = %d;" % rdna.X_WIDE_SHIFT)
    m.append("/// The same in wave64.")
    m.append("pub const EXTRA_WIDE64_SHIFT: u32 = %d;" % rdna.X_WIDE64_SHIFT)
    for n, doc in [("B32", "a 32-bit operand"), ("F16", "an f16 operand (the low half decides the marking and is shown)"), ("BF16", "a bf16 operand (the low half decides the marking, the dword is shown)"), ("F64", "the high dword of an f64, shown as the inline constant it equals, never marked")]:
        m.append("/// `EXTRA_WIDE*` kind: LLVM shows constants and literals as for %s." % doc)
        m.append("pub const WIDE_%s: u32 = %d;" % (n, getattr(rdna, "WIDE_" + n)))
    m.append("/// Position in [`RdnaInfo::extra`] of the OP_SEL bits (4) that add 1 to a VOP3 `byte_sel:N`.")
    m.append("pub const EXTRA_BYTE_SEL1_SHIFT: u32 = %d;" % rdna.X_BYTE_SEL1_SHIFT)
    m.append("/// Position in [`RdnaInfo::extra`] of the OP_SEL bits (4) that add 2 to a VOP3 `byte_sel:N`.")
    m.append("pub const EXTRA_BYTE_SEL2_SHIFT: u32 = %d;" % rdna.X_BYTE_SEL2_SHIFT)
    m.append("/// Flag of [`RdnaInfo::extra`]: VOP3/VOP3P DPP16: LLVM reads `DPP_CTRL[7:0]` as a source code (codes")
    m.append("/// 128..=192 show as the control `code - 128`, the other constants are invalid).")
    m.append("pub const EXTRA_DPP_CTRL_SRC: u32 = %d;" % rdna.X_DPP_CTRL_SRC)
    m.append("/// Position in [`RdnaInfo::extra`] of VOP3's per-source bits (3): a 16-bit source shows the f16")
    m.append("/// inline constants in hex (`0x3c00`), else by value (`1.0`; `v_dot2_f16_f16`'s accumulator).")
    m.append("pub const EXTRA_HEX16_SRC_SHIFT: u32 = %d;" % rdna.X_HEX16_SRC_SHIFT)
    m.append("/// Flag of [`RdnaInfo::extra`]: VOP3: the `EXTRA_HEX16_SRC` bits were probed.")
    m.append("pub const EXTRA_HEX16_PROBED: u32 = %d;" % rdna.X_HEX16_PROBED)
    m.append("/// Position in [`RdnaInfo::extra`] of VOP3's per-source packed literal rules (2 bits per source:")
    m.append("/// `LIT_V2F16`, `LIT_V2BF16`, `LIT_BF16LO`, or 0 for the opcode's rule).")
    m.append("pub const EXTRA_LITK3_SHIFT: u32 = %d;" % rdna.X_LITK3_SHIFT)
    m.append("/// `EXTRA_LITK3` rule of a 16-bit bf16 source: LLVM shows the literal's whole dword and marks")
    m.append("/// it `lit(...)` when its low half is an integer (-16..=64) or a bf16 float constant.")
    m.append("pub const LIT_BF16LO: u32 = %d;" % rdna.LIT_BF16LO)
    m.append("/// Position in [`RdnaInfo::extra`] of VOP3P's per-source literal rules (2 bits per source, `LIT_*`);")
    m.append("/// VOP1/VOP2/VOPC: SRC0's rule where it is not the f32 one (0: the opcode's rule).")
    m.append("pub const EXTRA_LITK_SHIFT: u32 = %d;" % rdna.X_LITK_SHIFT)
    for n, doc in [("B32", "a 32-bit inline value (integer -16..=64 or f32 constant)"), ("V2F16", "an integer, or an f16 constant with a zero high half"), ("V2BF16", "an integer, or a bf16 constant with a zero high half"), ("INT", "an integer only")]:
        m.append("/// `EXTRA_LITK` rule: LLVM marks a literal `lit(...)` when it is %s." % doc)
        m.append("pub const LIT_%s: u32 = %d;" % (n, getattr(rdna, "LIT_" + n)))
    m.append("/// Flag of [`RdnaInfo::extra`]: VOP3P: a literal is marked when it is a 32-bit inline value")
    m.append("/// or an f16 constant with a zero high half, in any source (`v_fma_mix*`).")
    m.append("pub const EXTRA_LIT_MIX: u32 = %d;" % rdna.X_LIT_MIX)
    for i, (n, doc, _) in enumerate(CLASSES):
        m.append("/// Flag of [`OpInfo::class`]: %s." % doc)
        m.append("pub const CLASS_%s: u16 = %d;" % (n, 1 << i))
    m.append("")
    m.append("/// What an opcode table says about one opcode of one encoding.")
    m.append("#[derive(Clone, Copy, Debug, PartialEq, Eq)]")
    m.append("pub struct OpInfo {")
    m.append("    /// The semantic opcode.")
    m.append("    pub op: Op,")
    m.append("    /// The mnemonic exactly as LLVM prints it for this encoding (`v_add_f32_e32`).")
    m.append("    pub mnemonic: &'static str,")
    m.append("    /// Registers spanned by each operand slot of the encoding (slot names are listed on")
    m.append("    /// each table; 0 = the opcode has no such operand, 1 for immediates).")
    m.append("    pub widths: [u8; 4],")
    m.append("    /// Register file of each slot as LLVM prints it with canonical operands:")
    m.append("    /// 0 = VGPR (or not a register), 1 = SGPR, 2 = AGPR.")
    m.append("    pub kinds: [u8; 4],")
    m.append("    /// Optional syntax LLVM prints for this opcode: the `MOD_*` flags.")
    m.append("    pub mods: u32,")
    m.append("    /// What kind of opcode this is: the `CLASS_*` flags.")
    m.append("    pub class: u16,")
    m.append("    /// VOP3/VOP3P: modifier bits of instruction words 0 and 1 that must equal `fixval`")
    m.append("    /// (`op_sel`/`abs`/`neg` of absent or integer sources, `clamp`/`omod` the opcode does")
    m.append("    /// not take, ...): LLVM rejects the word otherwise (`translator/gen/gfx9_fix.py`).")
    m.append("    pub fixmask: [u32; 2],")
    m.append("    /// The required values of the `fixmask` bits.")
    m.append("    pub fixval: [u32; 2],")
    m.append("    /// VOP1/VOP2/VOPC: (mask, value) of the SDWA extension word's fixed bits.")
    m.append("    pub sdwa_fix: [u32; 2],")
    m.append("    /// VOP1/VOP2/VOPC: (mask, value) of the DPP extension word's fixed bits.")
    m.append("    pub dpp_fix: [u32; 2],")
    m.append("}")
    m.append("")
    m.append("/// What an RDNA opcode table says about one opcode of one encoding.")
    m.append("#[derive(Clone, Copy, Debug, PartialEq, Eq)]")
    m.append("pub struct RdnaInfo {")
    m.append("    /// The semantic opcode.")
    m.append("    pub op: Op,")
    m.append("    /// The mnemonic exactly as LLVM prints it for this encoding (`v_add_f32_e32`).")
    m.append("    pub mnemonic: &'static str,")
    m.append("    /// Registers spanned by each operand slot in wave32 code (slot names are listed on")
    m.append("    /// each table; 0 = the opcode has no such operand, 1 for immediates).")
    m.append("    pub widths: [u8; 4],")
    m.append("    /// The same in wave64 code (lane masks span two SGPRs, WMMA fragments fewer VGPRs).")
    m.append("    pub widths64: [u8; 4],")
    m.append("    /// Register file of each slot as LLVM prints it with canonical operands:")
    m.append("    /// 0 = VGPR (or not a register), 1 = SGPR, 3 = a 16-bit VGPR half (`v1.l`, true16).")
    m.append("    pub kinds: [u8; 4],")
    m.append("    /// Optional syntax LLVM prints for this opcode: the `MOD_*` flags.")
    m.append("    pub mods: u32,")
    m.append("    /// Further decoding rules: the `EXTRA_*` flags.")
    m.append("    pub extra: u32,")
    m.append("    /// What kind of opcode this is: the `CLASS_*` flags.")
    m.append("    pub class: u16,")
    m.append("    /// Bits of instruction words 0..3 that must equal `fixval` (unused operand fields,")
    m.append("    /// reserved bits): LLVM rejects the word otherwise. 0 for VOPD halves.")
    m.append("    pub fixmask: [u32; 3],")
    m.append("    /// The required values of the `fixmask` bits.")
    m.append("    pub fixval: [u32; 3],")
    m.append("}")
    m.append("")
    m.append("/// What an RDNA image opcode table (MIMG, VIMAGE, VSAMPLE) says about one opcode.")
    m.append("#[derive(Clone, Copy, Debug, PartialEq, Eq)]")
    m.append("pub struct RdnaImage {")
    m.append("    /// The semantic opcode.")
    m.append("    pub op: Op,")
    m.append("    /// The mnemonic with the spaces LLVM prints after it: for an address register")
    m.append("    /// tuple (0) and for an NSA address list `[v1, v2, ...]` (1).")
    m.append("    pub heads: [&'static str; 2],")
    m.append("    /// SGPRs of the resource descriptor operand (8, or 4 for BVH).")
    m.append("    pub rsrc: u8,")
    m.append("    /// The opcode has a sampler operand (`image_sample*`, `image_gather4*`).")
    m.append("    pub sampler: bool,")
    m.append("    /// Optional syntax LLVM prints for this opcode: the `IMG_*` flags.")
    m.append("    pub mods: u16,")
    m.append("    /// What kind of opcode this is: the `CLASS_*` flags.")
    m.append("    pub class: u16,")
    m.append("    /// Offset of this opcode's operand grid in the family's `*_IMG_GRIDS`: data VGPRs |")
    m.append("    /// address VGPRs << 4 per operand cell (0 = invalid), see `isa::rdna`.")
    m.append("    pub grid: u32,")
    m.append("    /// The operand sizes (as in the grid) LLVM keeps when the computed ones would run past")
    m.append("    /// v255: without NSA, with NSA (GFX11).")
    m.append("    pub defaults: [u16; 2],")
    m.append("    /// BVH opcodes: registers per NSA address operand without / with A16 (else zeros).")
    m.append("    pub groups: [[u8; 5]; 2],")
    m.append("    /// As [`RdnaInfo::fixmask`].")
    m.append("    pub fixmask: [u32; 3],")
    m.append("    /// As [`RdnaInfo::fixval`].")
    m.append("    pub fixval: [u32; 3],")
    m.append("}")
    m.append("/// A VOP3/VOP3P DPP form's own fixed bits: (encoding: 0 VOP3, 1 VOP3P; opcode; form: 1")
    m.append("/// DPP16, 2 DPP8; mask as [`RdnaInfo::fixmask`]; value as [`RdnaInfo::fixval`]).")
    m.append("pub type DppFix = (u8, u16, u8, [u32; 3], [u32; 3]);")
    m.append("/// The source codes a VOP3/VOP3P DPP form takes in source 1 or 2: (encoding, opcode,")
    m.append("/// form as in [`DppFix`]; source; bit c of word c / 32 for codes 0..=255).")
    m.append("pub type DppSrc = (u8, u16, u8, u8, [u32; 8]);")
    for i, n in enumerate(rdna.IMG_MODS):
        m.append("/// Flag of [`RdnaImage::mods`]: `%s` is printed." % n.lower())
        m.append("pub const IMG_%s: u16 = %d;" % (n, 1 << i))
    with open(os.path.join(gdir, "mod.rs"), "w") as f:
        f.write("\n".join(m) + "\n")

    gen_sem.write(os.path.join(outdir, "gen"), names, ops, gdir)
    if shutil.which(RUSTFMT):
        for fn in ("op.rs", "gfx9.rs", "rdna.rs", "mod.rs"):
            subprocess.run([RUSTFMT, "--edition", "2021", os.path.join(gdir, fn)], check=True)


GENERATED = [
    "gen/gfx9_opcodes.txt",
    "gen/gfx942_cases.txt",
    "gen/gfx950_cases.txt",
    "src/isa/generated/op.rs",
    "src/isa/generated/sem.rs",
    "src/isa/generated/gfx9.rs",
    "src/isa/generated/rdna.rs",
    "src/isa/generated/mod.rs",
    "gen/gfx1100_opcodes.txt",
    "gen/gfx1200_opcodes.txt",
    "gen/gfx1100_cases.txt",
    "gen/gfx1200_cases.txt",
    "gen/gfx1100_w64_cases.txt",
    "gen/gfx1200_w64_cases.txt",
    "gen/gfx1150_cases.txt",
    "gen/gfx1150_opcodes.txt",
]


def main():
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2])
        return 0
    check = "--check" in sys.argv[1:]
    if find_libllvm() is None or shutil.which(LLVM_MC) is None:
        if os.environ.get("CI") == "true":
            print("gen_tables.py: libLLVM 22 / %s not found (required in CI)" % LLVM_MC, file=sys.stderr)
            return 1
        print("gen_tables.py: libLLVM 22 / %s not found; skipping table generation" % LLVM_MC)
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
