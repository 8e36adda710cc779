//! SOPP: branches, program end, barriers, traps, waits, hints, and the system messages and
//! debug controls that have a meaning off-GPU (see the comments at each). The GCN fork/join
//! branches are SOP1/SOP2/SOPK instructions, in `salu::fork`.

use super::{Flow, LiftResult, Lifter};
use crate::ir::{Exit, Op, Ty};
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
