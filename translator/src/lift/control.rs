//! SOPP: branches, program end, barriers, traps, waits, hints, and the system messages and
//! debug controls that have a meaning off-GPU (see the comments at each); and the GCN
//! fork/join branches (`s_cbranch_g_fork` SOP2, `s_cbranch_i_fork` SOPK, `s_cbranch_join`
//! SOP1, see [`fork`] and [`join`]).

use super::operand::K;
use super::{Flow, LiftResult, Lifter};
use crate::ir::{CmpOp, Exit, Op, Ty, UnOp, Val};
use crate::isa::generated::SoppSem;
use crate::isa::{Inst, Opnd};
use crate::wave::{sreg, InstClass};

/// Branch target of a SOPP branch: `pc + 4 + simm16 * 4`.
fn target(l: &Lifter, inst: &Inst) -> u64 {
    l.pc.wrapping_add(4)
        .wrapping_add((inst.imm as i64 * 4) as u64)
}

/// Lifts a SOPP instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: SoppSem) -> LiftResult {
    use SoppSem::*;
    let next = l.next_pc;
    let rdna = l.gpu.family() != Some(crate::isa::Family::Gfx9);
    let flow = match op {
        // Waits, hints and cache maintenance have no architectural effect here: memory
        // operations complete in order.
        S_NOP | S_WAITCNT | S_SETPRIO | S_ICACHE_INV | S_TTRACEDATA | S_INCPERFLEVEL
        | S_DECPERFLEVEL | S_WAKEUP => Flow::Next,
        S_ENDPGM => Flow::End(Exit::EndPgm),
        // "End of program; signal that a wave has been saved by the context-switch trap
        // handler and terminate wavefront" (RDNA4 ISA 16.5): no context switch happens
        // off-GPU, the wave ends as at s_endpgm. On GFX9 only the trap handler uses it.
        S_ENDPGM_SAVED if rdna => Flow::End(Exit::EndPgm),
        S_ENDPGM_SAVED => return Err("trap-handler only (context save)".into()),
        // The debug-condition flags are set only by a debugger or the host, neither of which
        // exists here: they are 0, so these branches are never taken.
        S_CBRANCH_CDBGSYS
        | S_CBRANCH_CDBGUSER
        | S_CBRANCH_CDBGSYS_OR_USER
        | S_CBRANCH_CDBGSYS_AND_USER => Flow::Next,
        // MSG_DEALLOC_VGPRS (RDNA message 3): the wave gives up its VGPRs before s_endpgm;
        // no effect here.
        S_SENDMSG if rdna && inst.imm & 0xff == 3 => Flow::Next,
        // MSG_INTERRUPT (id 1) raises a host interrupt; no host handler exists here, so it has
        // no effect. Other messages (graphics, wave save, doorbell) have no meaning off-GPU.
        S_SENDMSG if inst.imm & 0xf == 1 => Flow::Next,
        S_SENDMSG => return Err("not supported".into()),
        // SIMM16[0] = 0 clears KILL: no effect; setting it kills the wave, which then stops as
        // if it had reached s_endpgm.
        S_SETKILL if inst.imm & 1 == 0 => Flow::Next,
        S_SETKILL => Flow::End(Exit::EndPgm),
        // SIMM16[0] = 0 resumes a halted wave (a running wave is not halted): no effect.
        // Halting needs a debugger to resume the wave and stays unsupported.
        S_SETHALT if inst.imm & 1 == 0 => Flow::Next,
        // Halting stops the wave until the host or a debugger resumes it (CDNA4 ISA 3.4
        // STATUS.HALT); wavejit has neither, so the wave would never finish: a clear error.
        S_SETHALT | S_SENDMSGHALT => {
            return Err(
                "halts the wave; only a host or debugger command resumes a halted \
                        wave, and wavejit has none"
                    .into(),
            )
        }
        S_SET_GPR_IDX_OFF => {
            // Clears MODE.GPR_IDX_EN; MODE changed, so the block ends.
            let mode = l.push_op(Op::GetMode, Ty::S32);
            let nm = l.and_imm(mode, !(1u64 << 27) & 0xffff_ffff);
            l.effect(Op::SetMode(nm));
            Flow::End(Exit::Jump(next))
        }
        S_SET_GPR_IDX_MODE => {
            // M0[15:12] = SIMM16[3:0].
            let m0 = l.get_sreg(crate::wave::sreg::M0);
            let keep = l.and_imm(m0, !0xf000u64 & 0xffff_ffff);
            let bits = l.c32(((inst.imm as u32) & 0xf) << 12);
            let nm0 = l.or(keep, bits);
            l.set_sreg(crate::wave::sreg::M0, nm0);
            Flow::Next
        }
        // RDNA: MODE[3:0] (round) or MODE[7:4] (denorm) = SIMM16[3:0]; translation depends
        // on MODE, so the block ends.
        S_ROUND_MODE | S_DENORM_MODE => {
            let (shift, mask) = if op == S_ROUND_MODE {
                (0, 0xf)
            } else {
                (4, 0xf0)
            };
            let old = l.push_op(Op::GetMode, Ty::S32);
            let kept = l.and_imm(old, !(mask as u32) as u64);
            let v = l.c32(((inst.imm as u32) & 0xf) << shift);
            let new = l.or(kept, v);
            l.effect(Op::SetMode(new));
            Flow::End(Exit::Jump(next))
        }
        S_BARRIER => Flow::End(Exit::Barrier { next }),
        S_SLEEP => Flow::End(Exit::Yield { next }),
        S_TRAP => Flow::End(Exit::Trap {
            pc: l.pc,
            code: (inst.imm & 0xff) as u8,
        }),
        // An illegal instruction (RDNA4 ISA 16.5, S_CODE_END: "Generate an illegal
        // instruction interrupt"; it pads code objects after the last `s_endpgm`).
        S_CODE_END => {
            let reason = "s_code_end (end-of-code padding; the hardware raises an \
                          illegal-instruction exception)"
                .to_string();
            Flow::End(Exit::Illegal { pc: l.pc, reason })
        }
        S_BRANCH => Flow::End(Exit::Jump(target(l, inst))),
        S_CBRANCH_SCC0 | S_CBRANCH_SCC1 => {
            let scc = l.get_scc();
            let cond = if op == S_CBRANCH_SCC1 {
                scc
            } else {
                l.eq0(scc)
            };
            branch(l, inst, cond)
        }
        S_CBRANCH_VCCZ | S_CBRANCH_VCCNZ => {
            let vcc = l.mask_opnd(Opnd::scalar(sreg::VCC_LO, 2))?;
            let cond = if op == S_CBRANCH_VCCZ {
                l.eq0(vcc)
            } else {
                l.ne0(vcc)
            };
            branch(l, inst, cond)
        }
        S_CBRANCH_EXECZ | S_CBRANCH_EXECNZ => {
            let e = l.exec();
            let cond = if op == S_CBRANCH_EXECZ {
                l.eq0(e)
            } else {
                l.ne0(e)
            };
            branch(l, inst, cond)
        }
        S_ENDPGM_ORDERED_PS_DONE => return Err("graphics-only (pixel shaders)".into()),
        S_BARRIER_LEAVE => return Err("named barriers are not in the RDNA4 ISA".into()),
    };
    Ok((InstClass::Control, flow))
}

fn branch(l: &mut Lifter, inst: &Inst, cond: crate::ir::Val) -> Flow {
    Flow::End(Exit::Branch {
        cond,
        taken: target(l, inst),
        not_taken: l.next_pc,
    })
}

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
        let t = target(l, inst);
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
