"""GFX9 modifier bits that LLVM 22 fixes per opcode, probed through its disassembler.

LLVM's GFX9 encodings fix the modifier fields of operands or modifiers an opcode does not
have (`op_sel` of an absent source, `abs`/`neg` of integer or absent sources, `clamp`/`omod`
of integer opcodes, SDWA `sext`/`sel` of absent sources, an explicit VOPC SDWA `sdst` where
the target has none, MFMA `blgp`/`abid` fields, ...), and its disassembler rejects words with
other values there. Rather than restating those rules by hand, this module finds them the
way `rdna.fixed_bits` does for RDNA: every modifier bit of an opcode's accepted base word is
flipped on its own; a bit LLVM then rejects (or flags an operand for) is flipped again
together with each modifier bit LLVM accepts on its own and in the other accepted base words
(SDWA selects of other values, DPP row_newbcast): a bit is fixed when every such word is
rejected and no accepted oracle case of the opcode has another value there.

Only modifier fields and the operand fields of operands the opcode does not have (VDST,
SRC0-2 of VOP3/VOP3P: `v_mfma_ld_scale_b32` has no VDST) are probed, never the fields of
operands it has (their validity depends on the value: `fix_operand` and the decoder check
those) nor the DPP control (a value rule).

Result per target: ({(encoding, opcode): {form: (mask, value) per word}}, {(encoding,
opcode, form) LLVM has no word of}) with forms
  "vop3"/"vop3p": words 0 and 1 of the VOP3/VOP3P instruction;
  "sdwa"/"dpp":   the extension word of a VOP1/VOP2/VOPC opcode (word 1).
"""

# Modifier bits probed, per form: (word, mask).
# VOP3:  word 0 [10:8] ABS, [14:11] OP_SEL, [15] CLAMP; word 1 [28:27] OMOD, [31:29] NEG
#        (VOP3B: word 0 [14:8] is SDST, a register field, so only CLAMP).
# VOP3P: word 0 [10:8] NEG_HI, [13:11] OP_SEL, [14] OP_SEL_HI[2], [15] CLAMP; word 1 [28:27]
#        OP_SEL_HI[1:0], [31:29] NEG (MFMA: CBSZ, ABID, ACC_CD; ACC, BLGP).
# SDWA:  every bit but SRC0 [7:0] (DST_SEL, DST_UNUSED, CLAMP, OMOD, SRC0_SEL/SEXT/NEG/ABS/S0,
#        SRC1_SEL/SEXT/NEG/ABS/S1; VOPC: SDST [14:8] and SD [15]).
# DPP:   [17] and [18] (reserved on GFX9), [19] BOUND_CTRL, [23:20] SRC0/SRC1 NEG and ABS.
# (notes/cdna.md section 3.2; CDNA3 ISA sections 12.x "microcode formats".)
PROBE = {
    "vop3": [(0, 0xFF00), (1, 0xF8000000)],
    "vop3b": [(0, 0x8000), (1, 0xF8000000)],
    "vop3p": [(0, 0xFF00), (1, 0xF8000000)],
    "sdwa": [(1, 0xFFFFFF00)],
    "dpp": [(1, 0x00FE0000)],
}

# Operand fields of VOP3/VOP3P (`widths` slots vdst, src0, src1, src2): (word, mask).
OPERAND_FIELDS = [(0, 0xFF), (1, 0x1FF), (1, 0x1FF << 9), (1, 0x1FF << 18)]

SRC_SDWA = 0xF9
SRC_DPP = 0xFA


def sdwa_words(w0, vopc):
    """Candidate SDWA forms of a VOP1/VOP2/VOPC word (SRC0 = v4), preferred first: BYTE_0
    selects (a single flipped select bit never gives the reserved select 7, on which LLVM 22
    crashes), then DWORD ones (the FP8/BF8 converts take DST_SEL DWORD only), DST_UNUSED pad
    and preserve, SRC1_SEL 0 (VOP1 has no SRC1)."""
    w0 = (w0 & ~0x1FF) | SRC_SDWA
    out = []
    if vopc:
        for s0 in (0, 6):
            for s1 in (0, 6):
                out.append([w0, 4 | (s0 << 16) | (s1 << 24)])
        return out
    for ds in (0, 6):
        for du in (0, 2):
            for s0 in (0, 6):
                for s1 in (0, 6):
                    out.append([w0, 4 | (ds << 8) | (du << 11) | (s0 << 16) | (s1 << 24)])
    return out


def dpp_words(w0):
    """Candidate DPP forms (SRC0 = v4, all rows and banks): quad_perm identity, and
    row_newbcast:0 (the only control of 64-bit operands on gfx90a+)."""
    w0 = (w0 & ~0x1FF) | SRC_DPP
    return [[w0, 4 | (ctrl << 8) | (0xF << 24) | (0xF << 28)] for ctrl in (0xE4, 0x150)]


def is_vop3b(txt, split_text):
    """VOP3B: the canonical word (SDST field 0) prints `vN, s[0:1], ...`."""
    ops = split_text(txt)[1]
    return len(ops) >= 2 and ops[0].startswith("v") and ops[1] == "s[0:1]"


def bad_text(txt):
    return "/*" in txt or "; Warning" in txt


def forms(per, canon, split_text, slot_widths):
    """{(key, form): (probe [(word, mask)], [base words...])} for every VALU opcode.
    `slot_widths(encoding, vals, text)` gives the operand slots' widths (0 = absent)."""
    out = {}
    for key, words in canon.items():
        name = key[0]
        if name in ("vop3", "vop3p"):
            size, txt, vals = per[key]
            widths = slot_widths(name, vals, txt)[0]
            absent = [f for f, w in zip(OPERAND_FIELDS, widths) if w == 0]
            form = "vop3b" if name == "vop3" and is_vop3b(txt, split_text) else name
            out[(key, name)] = (PROBE[form] + absent, [list(words[:2])])
        elif name in ("vop1", "vop2", "vopc"):
            out[(key, "sdwa")] = (PROBE["sdwa"], sdwa_words(words[0], name == "vopc"))
            out[(key, "dpp")] = (PROBE["dpp"], dpp_words(words[0]))
    return out


def form_of(name, words):
    """The form an oracle case of encoding `name` is in (None: not probed)."""
    if name in ("vop3", "vop3p"):
        return "vop3" if name == "vop3" else "vop3p"
    if name in ("vop1", "vop2", "vopc") and len(words) >= 2:
        code = words[0] & 0x1FF
        return {SRC_SDWA: "sdwa", SRC_DPP: "dpp"}.get(code)
    return None


def fixed_mods(target, per, canon, accepted, decode, split_text, slot_widths):
    """Returns ({(encoding, opcode): {form: [(mask, value) for words 0, 1]}}, the set of
    (encoding, opcode, form) of which LLVM accepts no word) (see the module doc); `accepted` is [(encoding, opcode, words)] of oracle cases LLVM decodes cleanly,
    `decode(target, cands)` -> {index: (size, text)}, `slot_widths` as for [`forms`]."""
    fs = forms(per, canon, split_text, slot_widths)
    # Pass 1: which base words LLVM accepts.
    cands, keys = [], []
    for fk, (probe, bases) in sorted(fs.items()):
        for bi, b in enumerate(bases):
            cands.append(b)
            keys.append((fk, bi))
    res = decode(target, cands)
    good, size = {}, {}
    for i, (fk, bi) in enumerate(keys):
        # (An SDWA/DPP form takes the extension word: v_clrexcp with SRC0 = DPP decodes as
        # the 4-byte v_clrexcp, which has no DPP form.)
        if i in res and not bad_text(res[i][1]) and (fk[1] in ("vop3", "vop3p") or res[i][0] == 8):
            good.setdefault(fk, []).append(fs[fk][1][bi])
            size.setdefault(fk, res[i][0])
    # A flipped word is accepted if LLVM decodes it cleanly in the same form (same size: a
    # DPP v_nop whose DPP word LLVM rejects decodes as the 4-byte v_nop).
    same = lambda i, fk: i in res and not bad_text(res[i][1]) and res[i][0] == size[fk]
    # Pass 2: every probed bit of the first accepted base, flipped on its own.
    cands, keys = [], []
    for fk, bases in sorted(good.items()):
        base = bases[0]
        for wi, mask in fs[fk][0]:
            for b in range(32):
                if mask >> b & 1:
                    w = list(base)
                    w[wi] ^= 1 << b
                    cands.append(w)
                    keys.append((fk, wi, b))
    res = decode(target, cands)
    rej, ok = {}, {}
    for i, (fk, wi, b) in enumerate(keys):
        if same(i, fk):
            ok.setdefault(fk, []).append((wi, b))
        else:
            rej.setdefault(fk, []).append((wi, b))
    # Pass 3: each rejected bit again, flipped in the other accepted bases and together
    # with each bit accepted alone (a field that is valid only with another one set).
    cands, keys = [], []
    for fk, bits in sorted(rej.items()):
        base = good[fk][0]
        alts = good[fk][1:]
        for wi, b in bits:
            for alt in alts:
                w = list(alt)
                w[wi] ^= 1 << b
                cands.append(w)
                keys.append((fk, wi, b))
            for wj, c in ok.get(fk, []):
                w = list(base)
                w[wi] ^= 1 << b
                w[wj] ^= 1 << c
                cands.append(w)
                keys.append((fk, wi, b))
    res = decode(target, cands)
    free = set()
    for i, (fk, wi, b) in enumerate(keys):
        if same(i, fk):
            free.add((fk, wi, b))
    out = {}
    for fk, bits in rej.items():
        key, form = fk
        masks = [0, 0]
        for wi, b in bits:
            if (fk, wi, b) not in free:
                masks[wi] |= 1 << b
        base = good[fk][0]
        out.setdefault(key, {})[form] = [[masks[0], base[0] & masks[0]], [masks[1], base[1] & masks[1]]]
    # Oracle cases LLVM accepts keep their values: clear the bits in which one differs.
    for name, op, words in accepted:
        form = form_of(name, words)
        f = out.get((name, op), {}).get(form)
        if f is None:
            continue
        for wi in range(2):
            diff = (words[wi] ^ f[wi][1]) & f[wi][0]
            f[wi][0] &= ~diff
            f[wi][1] &= f[wi][0]
    # No SDWA/DPP form: LLVM rejects every base word and every oracle case in that form.
    seen = {(name, op, form_of(name, words)) for name, op, words in accepted}
    missing = {fk[0] + (fk[1],) for fk in fs if fk not in good and fk[0] + (fk[1],) not in seen}
    return out, missing
