#!/usr/bin/env python3
"""Random instruction words: wavejit's decoder + printer against llvm-mc-22's disassembler.

Draws seeded random candidates of four 32-bit words (the first word's top bits biased toward
the target's encodings, plus a share of uniform words), disassembles them with
`llvm-mc-22 --disassemble` and with wavejit (`translator/examples/decode_words.rs`), and
compares the first instruction of each candidate:

* LLVM rejects it ("invalid instruction encoding") -> wavejit must reject it too;
* LLVM accepts it -> wavejit must print the same text and consume the same number of bytes
  (checked by disassembling exactly wavejit's bytes followed by `s_nop`s again);
* LLVM decodes it but flags an operand (`/*Invalid register...*/`) -> don't care: wavejit may
  reject it or must print the same text without the comment, or with it (see `flagged`);
* LLVM decodes it as an instruction of another generation (`LLVM_QUIRKS`: GFX9's VOP3P
  `v_fma_mix*` in RDNA code) -> wavejit must reject it.

llvm-mc-22 crashes (SIGSEGV) on some invalid GFX9 words and then prints nothing, so the input
goes in chunks and a crashing chunk is bisected down to the word that crashes it, which is
skipped and counted.

Usage: random_words.py --target gfx942 [--count N] [--seed S] [--show K] [--decoder PATH]
                       [--known FILE] [--allow N] [--mcpu CPU]

`--mcpu` runs a target's candidates as another GPU of its family, for both llvm-mc-22's
`-mcpu` and wavejit (`--target gfx1100 --mcpu gfx1102`, `--target gfx1150 --mcpu gfx1153`).
Exit status 1 on any difference not listed in FILE (or when llvm-mc-22 is missing), 0
otherwise; with --allow N, exactly N such differences are expected (a rule set still being
completed: the differences are printed, and the count may only go down).
"""

import argparse
import os
import random
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Every candidate is followed by PAD (three `s_nop 0`, so an instruction that starts in the
# candidate's tail cannot reach past it) and a sentinel instruction whose text delimits the
# candidates in llvm-mc's output (the same encoding on GFX9, GFX11 and GFX12).
PAD = [0xBF800000] * 3
SENTINEL = [0xBEE500FF, 0xA55A1234]
SENTINEL_TEXT = "s_mov_b32 s101, 0xa55a1234"
WORDS = 4  # candidate length: the longest instruction (gfx950 scaled MFMA) is 16 bytes

# (value, mask) of the first word per encoding; a candidate picks one and keeps random bits
# outside the mask. GFX9: notes/cdna.md section 3.2; RDNA: notes/rdna.md section 3.1.
GFX9_ENC = [
    ("SOP2", 0x80000000, 0xC0000000),
    ("SOPK", 0xB0000000, 0xF0000000),
    ("SOP1", 0xBE800000, 0xFF800000),
    ("SOPC", 0xBF000000, 0xFF800000),
    ("SOPP", 0xBF800000, 0xFF800000),
    ("SMEM", 0xC0000000, 0xFC000000),
    ("VOP2", 0x00000000, 0x80000000),
    ("VOP1", 0x7E000000, 0xFE000000),
    ("VOPC", 0x7C000000, 0xFE000000),
    ("VOP3", 0xD0000000, 0xFC000000),
    ("VOP3P", 0xD3800000, 0xFF800000),
    ("DS", 0xD8000000, 0xFC000000),
    ("FLAT", 0xDC000000, 0xFC000000),
    ("MUBUF", 0xE0000000, 0xFC000000),
    ("MTBUF", 0xE8000000, 0xFC000000),
]
RDNA_COMMON = [
    ("SOP2", 0x80000000, 0xC0000000),
    ("SOPK", 0xB0000000, 0xF0000000),
    ("SOP1", 0xBE800000, 0xFF800000),
    ("SOPC", 0xBF000000, 0xFF800000),
    ("SOPP", 0xBF800000, 0xFF800000),
    ("SMEM", 0xF4000000, 0xFC000000),
    ("VOP2", 0x00000000, 0x80000000),
    ("VOP1", 0x7E000000, 0xFE000000),
    ("VOPC", 0x7C000000, 0xFE000000),
    ("VOP3", 0xD4000000, 0xFC000000),
    ("VOP3P", 0xCC000000, 0xFF000000),
    ("VINTERP", 0xCD000000, 0xFF000000),
    ("LDSDIR", 0xCE000000, 0xFF000000),
    ("VOPD", 0xC8000000, 0xFC000000),
    ("DS", 0xD8000000, 0xFC000000),
    ("EXP", 0xF8000000, 0xFC000000),
]
GFX11_ENC = RDNA_COMMON + [
    ("FLAT", 0xDC000000, 0xFC000000),
    ("MUBUF", 0xE0000000, 0xFC000000),
    ("MTBUF", 0xE8000000, 0xFC000000),
    ("MIMG", 0xF0000000, 0xFC000000),
]
GFX12_ENC = RDNA_COMMON + [
    ("VFLAT", 0xEC000000, 0xFC000000),
    ("VBUFFER", 0xC4000000, 0xFC000000),
    ("VIMAGE", 0xD0000000, 0xFC000000),
    ("VSAMPLE", 0xE4000000, 0xFC000000),
]

# target -> (llvm-mc -mcpu, extra llvm-mc arguments, decode_words arguments, encodings)
TARGETS = {
    "gfx942": ("gfx942", [], ["gfx942"], GFX9_ENC),
    "gfx950": ("gfx950", [], ["gfx950"], GFX9_ENC),
    "gfx1100": ("gfx1100", [], ["gfx1100"], GFX11_ENC),
    "gfx1100w64": ("gfx1100", ["-mattr=+wavefrontsize64"], ["gfx1100", "wave64"], GFX11_ENC),
    "gfx1200": ("gfx1200", ["-mattr=+real-true16"], ["gfx1200"], GFX12_ENC),
    "gfx1201": ("gfx1201", ["-mattr=+real-true16"], ["gfx1201"], GFX12_ENC),
    "gfx1200w64": ("gfx1200", ["-mattr=+real-true16,+wavefrontsize64"], ["gfx1200", "wave64"], GFX12_ENC),
    "gfx1150": ("gfx1150", [], ["gfx1150"], GFX11_ENC),
}

# Source-field values worth hitting more often than 1 in 512: literal, DPP, SDWA (GFX9) or
# DPP8/DPP16 (RDNA), and the inline constants.
SPECIAL_SRC0 = [0xFF, 0xFA, 0xF9, 0xE9, 0xEA, 0x80, 0xF0, 0xF2, 0xC1]


def draw(rng, encs, uniform_share):
    """One candidate: WORDS random words, the first biased toward an encoding."""
    words = [rng.getrandbits(32) for _ in range(WORDS)]
    if rng.random() >= uniform_share:
        name, value, mask = rng.choice(encs)
        w0 = (words[0] & ~mask & 0xFFFFFFFF) | value
        if name in ("VOP1", "VOP2", "VOPC") and rng.random() < 0.4:
            w0 = (w0 & ~0x1FF) | rng.choice(SPECIAL_SRC0)
        if name in ("SOP1", "SOP2", "SOPC") and rng.random() < 0.3:
            w0 = (w0 & ~0xFF) | 0xFF
        words[0] = w0
        if name in ("VOP3", "VOP3P") and rng.random() < 0.3:
            words[1] = (words[1] & ~0x1FF) | rng.choice(SPECIAL_SRC0)
    return words


def llvm_line(words):
    data = []
    for w in words + PAD + SENTINEL:
        data += [(w >> (8 * i)) & 0xFF for i in range(4)]
    return " ".join(f"0x{b:02x}" for b in data)


WARN = re.compile(r"^<stdin>:(\d+):(\d+): warning: (.*)$")
COMMENT = re.compile(r" ?/\*.*?\*/")
# LLVM's notes on operands it decodes but considers wrong for the target: an invalid
# register/immediate/dpp_ctrl, a DPP control of a later generation (`row_xmask` on GFX9), a
# 64-bit DPP (DP ALU) control other than row_newbcast.
INVALID_NOTE = re.compile(r"/\*\s*(Invalid|row_\w+ is not supported|DP ALU dpp only supports)")
BIG_VREG = re.compile(r"\b[va]\[\d+:(\d+)\]")
# Words LLVM 22 decodes although the target has no such instruction: (targets, value, mask of
# the first word, mnemonic prefix LLVM prints). LLVM decodes GFX9's VOP3P `v_fma_mix_f32`,
# `v_fma_mixlo_f16`, `v_fma_mixhi_f16` (0xD3A0..0xD3A2, GFX9 opcodes 0x20..0x22) on every
# RDNA target; RDNA's VOP3P is 0xCCxx (RDNA4 ISA 15.3.6, `V_FMA_MIX_F32` = opcode 32 there),
# and 0xD0..0xD3 is VIMAGE on GFX12 and no encoding on GFX11.
RDNA_TARGETS = ("gfx1100", "gfx1100w64", "gfx1150", "gfx1200", "gfx1200w64", "gfx1201")
LLVM_QUIRKS = [(RDNA_TARGETS, 0xD3A00000, 0xFFFC0000, "v_fma_mix")]


class Crash(Exception):
    pass


def run_llvm(mcpu, extra, cands):
    """Disassembles each candidate (followed by PAD and SENTINEL); per candidate, the list of
    instruction texts LLVM printed for it, or None if its first word was rejected. Raises
    Crash if llvm-mc-22 died."""
    src = "\n".join(llvm_line(c) for c in cands) + "\n"
    p = subprocess.run(
        ["llvm-mc-22", "-arch=amdgcn", f"-mcpu={mcpu}", *extra, "--disassemble"],
        input=src,
        capture_output=True,
        text=True,
        # A crash would otherwise run llvm-symbolizer for its stack dump (seconds each).
        env=dict(os.environ, LLVM_DISABLE_SYMBOLIZATION="1"),
    )
    if p.returncode != 0:
        raise Crash(p.returncode)
    invalid = set()
    for line in p.stderr.splitlines():
        m = WARN.match(line)
        if m and m.group(2) == "1" and "invalid instruction encoding" in m.group(3):
            invalid.add(int(m.group(1)) - 1)
    groups = [[]]
    for line in p.stdout.splitlines():
        text = line.strip()
        if not text or text.startswith("."):
            continue
        if text == SENTINEL_TEXT:
            groups.append([])
        else:
            groups[-1].append(text)
    if len(groups) != len(cands) + 1:
        raise RuntimeError(f"llvm-mc output has {len(groups) - 1} groups for {len(cands)} candidates")
    res = []
    for i, g in enumerate(groups[:-1]):
        if i in invalid:
            res.append(None)
        elif not g:
            raise RuntimeError(f"no instruction and no warning for candidate {i}")
        else:
            res.append(g)
    return res


def llvm_all(mcpu, extra, cands, chunk):
    """run_llvm over all candidates in chunks, bisecting a crashing chunk; a word that crashes
    llvm-mc-22 on its own gives "crash"."""
    out = []
    stack = [cands[i : i + chunk] for i in range(0, len(cands), chunk)][::-1]
    while stack:
        part = stack.pop()
        try:
            out += run_llvm(mcpu, extra, part)
        except Crash:
            if len(part) == 1:
                out.append("crash")
            else:
                h = len(part) // 2
                stack.append(part[h:])
                stack.append(part[:h])
    return out


def flagged(text):
    """LLVM decoded the word but marked an operand as wrong (`/*Invalid register...*/`,
    `/*Invalid immediate*/`, `/* Invalid dpp_ctrl value */`: a misaligned VGPR tuple on gfx90a+, an SGPR or constant where
    the operand class has none; `/* row_xmask is not supported ... */`: a DPP control the
    target does not have) or printed a register past v255/a255. Such words are
    don't-care: wavejit may reject them, or must print LLVM's text without the comment."""
    return INVALID_NOTE.search(text) is not None or any(int(m.group(1)) > 255 for m in BIG_VREG.finditer(text))


def run_ours(decoder, args, cands):
    src = "\n".join(" ".join(f"{w:08X}" for w in c) for c in cands) + "\n"
    p = subprocess.run([decoder, *args], input=src, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"decode_words failed ({p.returncode}): {p.stderr[-2000:]}")
    res = []
    for line in p.stdout.splitlines():
        if line.startswith("OK "):
            _, size, text = line.split(" ", 2)
            res.append((text, int(size)))
        else:
            res.append(("<" + line[4:] + ">", None))
    if len(res) != len(cands):
        sys.exit(f"decode_words printed {len(res)} lines for {len(cands)} candidates")
    return res


def build_decoder():
    subprocess.run(
        # The test profile and the whole workspace's features, as `cargo test --workspace`
        # builds the example: that build is reused instead of compiling the translator again.
        ["cargo", "build", "--quiet", "--profile", "test", "--workspace", "--example", "decode_words"],
        cwd=ROOT,
        check=True,
    )
    target_dir = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target_dir, "debug", "examples", "decode_words")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", required=True, choices=sorted(TARGETS))
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--uniform", type=float, default=0.15, help="share of uniform random words")
    ap.add_argument("--chunk", type=int, default=2500)
    ap.add_argument("--show", type=int, default=30, help="differences to print")
    ap.add_argument("--decoder", help="prebuilt decode_words binary (default: cargo build)")
    ap.add_argument("--dump", help="write every difference to this file")
    ap.add_argument(
        "--known",
        help="file of known differences (`TARGET WORD WORD WORD WORD  # why`): those do not fail "
        "the run, but one that no longer differs does (so the list only shrinks)",
    )
    ap.add_argument(
        "--allow",
        type=int,
        default=0,
        help="number of new differences tolerated (rules not modelled yet, listed in the output); "
        "more fail the run, and fewer do too (so the allowance only shrinks)",
    )
    ap.add_argument(
        "--mcpu",
        help="run the target's candidates as this GPU of the same family (llvm-mc-22 -mcpu and "
        "wavejit), e.g. gfx1101..gfx1103 for gfx1100, gfx1151..gfx1153 for gfx1150",
    )
    a = ap.parse_args()

    if shutil.which("llvm-mc-22") is None:
        sys.exit("llvm-mc-22 not found (install LLVM 22: scripts/setup.sh)")
    mcpu, extra, dargs, encs = TARGETS[a.target]
    if a.mcpu:
        if not re.fullmatch(r"gfx[0-9a-f]{3,4}", a.mcpu) or a.mcpu[:6] != mcpu[:6]:
            sys.exit(f"--mcpu {a.mcpu}: not a GPU of {a.target}'s family")
        mcpu, dargs = a.mcpu, [a.mcpu] + dargs[1:]
    rng = random.Random(f"{a.target}:{a.seed}")
    cands = [draw(rng, encs, a.uniform) for _ in range(a.count)]
    decoder = a.decoder or build_decoder()
    ours = run_ours(decoder, dargs, cands)
    theirs = llvm_all(mcpu, extra, cands, a.chunk)
    # Size check: the words wavejit consumed, then PAD, must give LLVM's instruction followed
    # by exactly the three `s_nop 0` of PAD (a literal LLVM expects but wavejit did not take
    # would swallow a pad word; one wavejit took but LLVM did not would print before them).
    cut_idx = [i for i, (o, t) in enumerate(zip(ours, theirs)) if o[1] is not None and t not in (None, "crash")]
    cut = llvm_all(mcpu, extra, [cands[i][: ours[i][1] // 4] for i in cut_idx], a.chunk)
    sized = dict(zip(cut_idx, cut))

    known = set()
    if a.known:
        with open(a.known) as f:
            for line in f:
                fields = line.split("#", 1)[0].split()
                if fields and fields[0] == a.target:
                    known.add(" ".join(w.upper() for w in fields[1:]))
    crashes = accepted = rejected = dontcare = quirks = 0
    diffs = []
    for i, (c, o, t) in enumerate(zip(cands, ours, theirs)):
        words = " ".join(f"{w:08X}" for w in c)
        if t == "crash":
            crashes += 1
            continue
        if t is None:
            rejected += 1
            if o[1] is not None:
                diffs.append(f"{words}\n  llvm: <invalid>\n  ours: {o[0]} (size {o[1]})")
            continue
        text = t[0]
        quirk = any(
            a.target in ts and c[0] & m == v and text.startswith(p) for ts, v, m, p in LLVM_QUIRKS
        )
        if quirk:
            quirks += 1
            if o[1] is not None:
                diffs.append(f"{words}\n  llvm: {text} (an LLVM quirk: must be rejected)\n  ours: {o[0]} (size {o[1]})")
            continue
        if flagged(text):
            dontcare += 1
            text = COMMENT.sub("", text)
            if o[1] is None:
                continue
        else:
            accepted += 1
        if o[1] is None:
            diffs.append(f"{words}\n  llvm: {text}\n  ours: {o[0]}")
        elif o[0] != text and o[0] != t[0]:
            diffs.append(f"{words}\n  llvm: {text}\n  ours: {o[0]} (size {o[1]})")
        elif i in sized and sized[i] != "crash" and sized[i] != [t[0]] + ["s_nop 0"] * len(PAD):
            got = " ; ".join(sized[i] or ["<invalid>"])
            diffs.append(f"{words}\n  llvm: {text}\n  ours: size {o[1]}, but LLVM on those bytes + s_nops: {got}")
    print(
        f"{a.target}{' as ' + a.mcpu if a.mcpu else ''}: {a.count} candidates (seed {a.seed}): {accepted} accepted and {rejected} "
        f"rejected by llvm-mc-22, {dontcare} flagged by it (don't care), {quirks} decoded by "
        f"it as another generation's, {crashes} crashed it (skipped); {len(diffs)} differences"
    )
    diff_words = {d.split("\n", 1)[0] for d in diffs}
    drawn = {" ".join(f"{w:08X}" for w in c) for c in cands}
    new = [d for d in diffs if d.split("\n", 1)[0] not in known]
    stale = sorted((known & drawn) - diff_words)
    if known:
        print(f"  {len(diffs) - len(new)} of them known ({a.known}), {len(new)} new; {len(stale)} known entries fixed")
    for d in new[: a.show]:
        print(d)
    for w in stale:
        print(f"{w}: listed as a known difference but matches LLVM now: remove it from {a.known}")
    if a.dump:
        with open(a.dump, "w") as f:
            f.write("\n".join(diffs) + "\n")
    if len(new) != a.allow:
        if a.allow:
            print(f"  {len(new)} new differences, {a.allow} allowed (--allow): update the allowance")
        return 1
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
