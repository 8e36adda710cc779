//! The GCN fork/join branches: `s_cbranch_g_fork` (SOP2), `s_cbranch_i_fork` (SOPK),
//! `s_cbranch_join` (SOP1); see [`fork`] and [`join`].

use super::super::operand::K;
use super::super::{Flow, LiftResult, Lifter};
use crate::ir::{CmpOp, Exit, Op, Ty, UnOp, Val};
use crate::isa::Inst;
use crate::wave::InstClass;

// ---- Fork/join (CDNA4 ISA 4.6 "Arbitrary Divergent Control Flow") ----
//
// The control-stack pointer CSP is MODE[31:29] (CDNA4 ISA Table 4, "CSP 31:29 Conditional
// branch stack pointer"), so it lives in `WaveState::mode`, starts at 0 (the kernel
// descriptor sets only the float bits), and `s_getreg`/`s_setreg` of MODE read and write it.
// Entry `i` of the stack is SGPR[4i .. 4i+3]. Interpretations where the ISA text is silent or
// ambiguous (also in ARCHITECTURE.md, "Open ISA questions"):
// * Entry layout: the pseudocode writes `SGPR[CSP*4] = {pc, mask}` and reads
//   `{PC, EXEC} = SGPR[CSP*4]`, i.e. (concatenation high part first) EXEC in the low 64 bits
//   and PC in the high 64: SGPR[4i], SGPR[4i+1] = EXEC lo/hi, SGPR[4i+2], SGPR[4i+3] = PC
//   lo/hi. (The entry heading lists `{exec[63:0], PC[47:2]}` in the other order.)
// * The PC is stored as its byte address (bits 1:0 are 0 for the addresses the pseudocode
//   stores); a join restores PC[47:2] of the entry (the bits the heading names).
// * CSP is a 3-bit field: CSP++ and CSP-- wrap modulo 8, and SGPR[CSP*4] exists for every
//   CSP (s0..s31). The fewer-threads-first rule keeps properly nested code at depth <= 6
//   (each push at least halves the active lanes), so wrapping only concerns malformed code.
// * `s_cbranch_join` compares all 32 bits of SGPR[arg0] with CSP.
// * With EXEC = 0 both masks equal EXEC; the pseudocode tests `mask_pass == exec` first, so
//   the fork jumps to the target without pushing.

/// Bit position of CSP in MODE.
const CSP_SHIFT: u64 = 29;
/// Entries addressable by the 3-bit CSP.
const CSP_ENTRIES: u8 = 8;

/// MODE with CSP replaced by `csp & 7` (`S32`s).
fn with_csp(l: &mut Lifter, mode: Val, csp: Val) -> Val {
    let keep = l.and_imm(mode, !(7u64 << CSP_SHIFT) & 0xffff_ffff);
    let c = l.and_imm(csp, 7);
    let c = l.shl_imm(c, CSP_SHIFT);
    l.or(keep, c)
}

/// `s_cbranch_g_fork arg0, arg1` (target = the 64-bit `arg1`) and `s_cbranch_i_fork arg0,
/// simm16` (target = PC + 4 + simm16 * 4). `arg0` holds the condition mask.
///
/// ```text
/// mask_pass = SGPR[arg0] & exec; mask_fail = ~SGPR[arg0] & exec
/// if mask_pass == exec: PC = target
/// elif mask_fail == exec: PC += 4
/// elif popcount(mask_fail) < popcount(mask_pass):
///     exec = mask_fail; SGPR[CSP*4] = {target, mask_pass}; CSP++; PC += 4
/// else: exec = mask_pass; SGPR[CSP*4] = {PC + 4, mask_fail}; CSP++; PC = target
/// ```
pub(super) fn fork(l: &mut Lifter, inst: &Inst, g_fork: bool) -> LiftResult {
    let next = l.next_pc;
    // I_FORK's target is known at lift time; G_FORK's is the value of an SGPR pair.
    let (cond_opnd, fixed, tval) = if g_fork {
        let t = l.s64(inst.src[1], K::B64)?;
        (inst.src[0], None, t)
    } else {
        let o = if inst.dst[0].is_some() {
            inst.dst[0]
        } else {
            inst.src[0]
        };
        // PC + 4 + SIMM16 * 4.
        let t =
            l.pc.wrapping_add(4)
                .wrapping_add((inst.imm as i64 * 4) as u64);
        (o, Some(t), l.c64(t))
    };
    let cond = l.mask_opnd(cond_opnd)?;
    let exec = l.exec();
    let pass = l.and(cond, exec);
    let ncond = l.not(cond);
    let fail = l.and(ncond, exec);
    let all_pass = l.cmp(CmpOp::Eq, pass, exec);
    let all_fail = l.cmp(CmpOp::Eq, fail, exec);
    let npass = l.un(UnOp::Popcnt, pass);
    let nfail = l.un(UnOp::Popcnt, fail);
    let fewer_fail = l.cmp(CmpOp::ULt, nfail, npass);
    // Diverging: neither all pass nor all fail.
    let any = l.or(all_pass, all_fail);
    let diverge = l.eq0(any);
    // PC = target when all pass, or when diverging with the pass side not larger.
    let not_fewer = l.eq0(fewer_fail);
    let not_all_fail = l.eq0(all_fail);
    let t1 = l.and(not_all_fail, not_fewer);
    let go = l.or(all_pass, t1);
    let next_v = l.c64(next);
    // The entry pushed when diverging: the side not taken first.
    let entry_pc = l.select(fewer_fail, tval, next_v);
    let entry_exec = l.select(fewer_fail, pass, fail);
    let run_exec = l.select(fewer_fail, fail, pass);
    let mode = l.push_op(Op::GetMode, Ty::S32);
    let csp = l.lshr_imm(mode, CSP_SHIFT);
    let csp = l.and_imm(csp, 7);
    let words = [
        l.lo(entry_exec),
        l.hi(entry_exec),
        l.lo(entry_pc),
        l.hi(entry_pc),
    ];
    for e in 0..CSP_ENTRIES {
        let ec = l.c32(e as u32);
        let at = l.cmp(CmpOp::Eq, csp, ec);
        let hit = l.and(at, diverge);
        for (j, w) in words.iter().enumerate() {
            let r = 4 * e + j as u8;
            let old = l.get_sreg(r);
            let v = l.select(hit, *w, old);
            l.set_sreg(r, v);
        }
    }
    let new_exec = l.select(diverge, run_exec, exec);
    l.set_exec(new_exec);
    let inc = l.add_imm(csp, 1);
    let pushed = with_csp(l, mode, inc);
    let new_mode = l.select(diverge, pushed, mode);
    // MODE changes only in CSP, which no translation depends on; the block ends here anyway.
    l.effect(Op::SetMode(new_mode));
    let exit = match fixed {
        Some(t) => Exit::Branch {
            cond: go,
            taken: t,
            not_taken: next,
        },
        None => Exit::JumpIndirect(l.select(go, tval, next_v)),
    };
    Ok((InstClass::Control, Flow::End(exit)))
}

/// `s_cbranch_join arg0`:
///
/// ```text
/// if CSP == SGPR[arg0]: PC += 4                      // second arrival: continue
/// else: CSP--; {PC, EXEC} = SGPR[CSP*4 .. CSP*4+3]   // first arrival: run the other side
/// ```
pub(super) fn join(l: &mut Lifter, inst: &Inst) -> LiftResult {
    let arg = l.s32(inst.src[0], K::B32)?;
    let mode = l.push_op(Op::GetMode, Ty::S32);
    let csp = l.lshr_imm(mode, CSP_SHIFT);
    let csp = l.and_imm(csp, 7);
    let second = l.cmp(CmpOp::Eq, csp, arg);
    let dec = l.add_imm(csp, 0xffff_ffff);
    let dec = l.and_imm(dec, 7);
    // Read the entry at the decremented CSP: a select over the eight entries.
    let mut words: [Val; 4] = [l.c32(0); 4];
    for e in 0..CSP_ENTRIES {
        let ec = l.c32(e as u32);
        let at = l.cmp(CmpOp::Eq, dec, ec);
        for (j, w) in words.iter_mut().enumerate() {
            let x = l.get_sreg(4 * e + j as u8);
            *w = l.select(at, x, *w);
        }
    }
    let popped_exec = l.pack(words[0], words[1]);
    let popped_pc = l.pack(words[2], words[3]);
    let popped_pc = l.and_imm(popped_pc, 0x0000_ffff_ffff_fffc);
    let exec = l.exec();
    let new_exec = l.select(second, exec, popped_exec);
    l.set_exec(new_exec);
    let popped_mode = with_csp(l, mode, dec);
    let new_mode = l.select(second, mode, popped_mode);
    l.effect(Op::SetMode(new_mode));
    let next = l.c64(l.next_pc);
    let pc = l.select(second, next, popped_pc);
    Ok((InstClass::Control, Flow::End(Exit::JumpIndirect(pc))))
}
