//! SOPP: branches, program end, barriers, traps, waits and hints.

use super::{Flow, LiftResult, Lifter};
use crate::ir::Exit;
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
