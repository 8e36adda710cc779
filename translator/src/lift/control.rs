//! SOPP: branches, program end, barriers, traps, waits, hints, and the system messages and
//! debug controls that have a meaning off-GPU (see the comments at each).

use super::{Flow, LiftResult, Lifter};
use crate::ir::{Exit, Op, Ty};
use crate::isa::{Inst, Opnd};
use crate::wave::{sreg, InstClass};

/// Branch target of a SOPP branch: `pc + 4 + simm16 * 4`.
fn target(l: &Lifter, inst: &Inst) -> u64 {
    l.pc.wrapping_add(4)
        .wrapping_add((inst.imm as i64 * 4) as u64)
}

/// Lifts a SOPP instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, name: &str) -> LiftResult {
    let next = l.next_pc;
    let c = InstClass::Control;
    let flow = match name {
        // Waits, hints and cache maintenance have no architectural effect here: memory
        // operations complete in order.
        "s_nop" | "s_waitcnt" | "s_setprio" | "s_icache_inv" | "s_ttracedata"
        | "s_incperflevel" | "s_decperflevel" | "s_wakeup" => Flow::Next,
        "s_endpgm" => Flow::End(Exit::EndPgm),
        // The debug-condition flags are set only by a debugger or the host, neither of which
        // exists here: they are 0, so these branches are never taken.
        "s_cbranch_cdbgsys"
        | "s_cbranch_cdbguser"
        | "s_cbranch_cdbgsys_or_user"
        | "s_cbranch_cdbgsys_and_user" => Flow::Next,
        // MSG_INTERRUPT (id 1) raises a host interrupt; no host handler exists here, so it has
        // no effect. Other messages (graphics, wave save, doorbell) have no meaning off-GPU.
        "s_sendmsg" if inst.imm & 0xf == 1 => Flow::Next,
        // SIMM16[0] = 0 clears KILL: no effect; setting it kills the wave, which then stops as
        // if it had reached s_endpgm.
        "s_setkill" if inst.imm & 1 == 0 => Flow::Next,
        "s_setkill" => Flow::End(Exit::EndPgm),
        // SIMM16[0] = 0 resumes a halted wave (a running wave is not halted): no effect.
        // Halting needs a debugger to resume the wave and stays unsupported.
        "s_sethalt" if inst.imm & 1 == 0 => Flow::Next,
        "s_set_gpr_idx_off" => {
            // Clears MODE.GPR_IDX_EN; MODE changed, so the block ends.
            let mode = l.push_op(Op::GetMode, Ty::S32);
            let nm = l.and_imm(mode, !(1u64 << 27) & 0xffff_ffff);
            l.effect(Op::SetMode(nm));
            Flow::End(Exit::Jump(next))
        }
        "s_set_gpr_idx_mode" => {
            // M0[15:12] = SIMM16[3:0].
            let m0 = l.get_sreg(crate::wave::sreg::M0);
            let keep = l.and_imm(m0, !0xf000u64 & 0xffff_ffff);
            let bits = l.c32(((inst.imm as u32) & 0xf) << 12);
            let nm0 = l.or(keep, bits);
            l.set_sreg(crate::wave::sreg::M0, nm0);
            Flow::Next
        }
        "s_barrier" => Flow::End(Exit::Barrier { next }),
        "s_sleep" => Flow::End(Exit::Yield { next }),
        "s_trap" => Flow::End(Exit::Trap {
            pc: l.pc,
            code: (inst.imm & 0xff) as u8,
        }),
        "s_branch" => Flow::End(Exit::Jump(target(l, inst))),
        "s_cbranch_scc0" | "s_cbranch_scc1" => {
            let scc = l.get_scc();
            let cond = if name == "s_cbranch_scc1" {
                scc
            } else {
                l.eq0(scc)
            };
            branch(l, inst, cond)
        }
        "s_cbranch_vccz" | "s_cbranch_vccnz" => {
            let vcc = l.mask_opnd(Opnd::scalar(sreg::VCC_LO, 2))?;
            let cond = if name == "s_cbranch_vccz" {
                l.eq0(vcc)
            } else {
                l.ne0(vcc)
            };
            branch(l, inst, cond)
        }
        "s_cbranch_execz" | "s_cbranch_execnz" => {
            let e = l.exec();
            let cond = if name == "s_cbranch_execz" {
                l.eq0(e)
            } else {
                l.ne0(e)
            };
            branch(l, inst, cond)
        }
        _ => return Err("not supported".into()),
    };
    Ok((c, flow))
}

fn branch(l: &mut Lifter, inst: &Inst, cond: crate::ir::Val) -> Flow {
    Flow::End(Exit::Branch {
        cond,
        taken: target(l, inst),
        not_taken: l.next_pc,
    })
}
