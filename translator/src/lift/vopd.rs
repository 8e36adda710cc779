//! RDNA VOPD (dual issue, wave32): `v_dual_X ... :: v_dual_Y ...` as two VALU operations.
//!
//! Both halves read their sources before either writes (RDNA ISA, VOPD: "the two
//! instructions ... read before write"). The halves are lifted one after the other through
//! the ordinary VALU lifting, in an order in which neither overwrites a register the other
//! still reads; when each writes a register the other reads, the instruction is Unsupported
//! (the assembler rejects most such pairs; LLVM does not emit them).
//!
//! Operand layout from the decoder (`isa::rdna`): `dst` = [VDSTX, VDSTY], `src` = [SRCX0,
//! VSRCX1, SRCY0, VSRCY1], `imm` = the Y opcode field, `literal` = the shared constant.

use super::{Flow, LiftResult, Lifter};
use crate::isa::generated::Sem;
use crate::isa::{Format, Inst, Op, Opnd, Target};
use crate::wave::InstClass;

/// One half as an ordinary VOP1/VOP2 instruction, with the GFX9 mnemonic that lifts it.
fn half(
    op: Op,
    dst: Opnd,
    s0: Opnd,
    s1: Opnd,
    wave: u32,
    base: &Inst,
) -> Result<(Inst, &'static str), String> {
    let dual = op.name();
    let plain = dual.strip_prefix("v_dual_").ok_or("not a VOPD half")?;
    let name: &'static str = match plain {
        "mov_b32" => "v_mov_b32",
        "add_f32" => "v_add_f32",
        "sub_f32" => "v_sub_f32",
        "subrev_f32" => "v_subrev_f32",
        "mul_f32" => "v_mul_f32",
        "max_f32" | "max_num_f32" => "v_max_f32",
        "min_f32" | "min_num_f32" => "v_min_f32",
        "fmac_f32" => "v_fmac_f32",
        "fmamk_f32" => "v_fmamk_f32",
        "fmaak_f32" => "v_fmaak_f32",
        "cndmask_b32" => "v_cndmask_b32",
        "add_nc_u32" => "v_add_u32",
        "lshlrev_b32" => "v_lshlrev_b32",
        "and_b32" => "v_and_b32",
        "mul_dx9_zero_f32" => "v_mul_dx9_zero_f32",
        "dot2acc_f32_f16" => "v_dot2acc_f32_f16",
        "dot2acc_f32_bf16" => "v_dot2acc_f32_bf16",
        other => return Err(format!("VOPD half v_dual_{other} is not lifted yet")),
    };
    let mut inst = *base;
    // A half with no VOP2 opcode of its own (gfx11 `v_dual_dot2acc_f32_bf16`) keeps the
    // dual opcode; `rdna_ops` lifts it by name.
    inst.op = Op::from_name(name).unwrap_or(op);
    inst.format = if name == "v_mov_b32" {
        Format::Vop1
    } else {
        Format::Vop2
    };
    inst.dst = [dst, Opnd::NONE];
    let lit = Opnd::scalar(Opnd::LITERAL as u8, 1);
    inst.src = match name {
        "v_mov_b32" => [s0, Opnd::NONE, Opnd::NONE, Opnd::NONE],
        // LLVM's operand order: the constant K second (fmamk) or third (fmaak).
        "v_fmamk_f32" => [s0, lit, s1, Opnd::NONE],
        "v_fmaak_f32" => [s0, s1, lit, Opnd::NONE],
        // The selector is VCC (vcc_lo in wave32), explicit as in the GFX9 decoder.
        "v_cndmask_b32" => [
            s0,
            s1,
            Opnd::scalar(106, if wave == 64 { 2 } else { 1 }),
            Opnd::NONE,
        ],
        _ => [s0, s1, Opnd::NONE, Opnd::NONE],
    };
    Ok((inst, name))
}

/// VGPR slots a half reads (its accumulator included) and the slot it writes.
fn reads_writes(inst: &Inst, name: &str) -> (Vec<u16>, Option<u16>) {
    let mut reads: Vec<u16> = inst.src.iter().filter_map(|o| o.vreg()).collect();
    if name == "v_fmac_f32" || name.starts_with("v_dot2acc") {
        reads.extend(inst.dst[0].vreg());
    }
    (reads, inst.dst[0].vreg())
}

/// Lifts one VOPD instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst) -> LiftResult {
    if l.wave == 64 {
        // RDNA ISA 2.1/7.8: every instruction exists in both wave sizes except VOPD.
        return Err("VOPD is illegal in wave64".into());
    }
    let target = Target {
        gpu: l.gpu,
        wave_size: l.wave,
    };
    let y_op = crate::isa::rdna::tables(&target)
        .vopdy
        .get(inst.imm as usize)
        .copied()
        .flatten()
        .ok_or("VOPD Y opcode not in the table")?
        .op;
    let x = half(inst.op, inst.dst[0], inst.src[0], inst.src[1], l.wave, inst)?;
    let y = half(y_op, inst.dst[1], inst.src[2], inst.src[3], l.wave, inst)?;
    let (xr, xw) = reads_writes(&x.0, x.1);
    let (yr, yw) = reads_writes(&y.0, y.1);
    let x_clobbers_y = xw.is_some_and(|w| yr.contains(&w));
    let y_clobbers_x = yw.is_some_and(|w| xr.contains(&w));
    let order = match (x_clobbers_y, y_clobbers_x) {
        (false, _) => [x, y],
        (true, false) => [y, x],
        (true, true) => return Err("VOPD halves that each overwrite the other's source".into()),
    };
    let (pc, next) = (l.pc, l.next_pc);
    for (h, name) in order {
        l.begin(&h, pc, next);
        match super::rdna_ops::lift(l, &h, name) {
            Some(r) => {
                r?;
            }
            None => {
                match h.op.sem() {
                    Sem::Valu(op) => super::valu::lift(l, &h, op)?,
                    _ => return Err("not supported".into()),
                };
            }
        }
    }
    Ok((InstClass::Valu, Flow::Next))
}
