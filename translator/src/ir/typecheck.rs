//! The type rules of the IR: each op's operand and result types ([`Ty`]), as the module doc
//! of [`crate::ir`] states them. A block that breaks them is a lifter bug.

use super::{BinOp, Block, Exit, Op, Ty, Val, VerifyError};

/// Checks every op's operand and result types, and the exit's operand, against the IR's
/// type rules.
pub(super) fn typecheck(block: &Block) -> Result<(), VerifyError> {
    let ty = |i: usize, v: Val| -> Result<Ty, VerifyError> {
        let j = v.0 as usize;
        match block.types.get(j) {
            Some(Some(t)) if j < i => Ok(*t),
            _ => Err(VerifyError {
                op: i,
                msg: format!("operand {v:?} is not an earlier value"),
            }),
        }
    };
    for (i, op) in block.ops.iter().enumerate() {
        let rt = block.types.get(i).copied().flatten();
        let want = |ok: bool, what: &str| -> Result<(), VerifyError> {
            if ok {
                Ok(())
            } else {
                Err(VerifyError {
                    op: i,
                    msg: format!("{what} ({op:?}, result {rt:?})"),
                })
            }
        };
        let res = |t: Ty| rt == Some(t);
        let scalar = |t: Ty| !t.is_vector();
        match op {
            Op::Const { .. } => want(rt.is_some_and(scalar), "constant type")?,
            Op::LaneConst(_) | Op::LaneId | Op::GetVgpr(_) => want(res(Ty::V32), "V32 result")?,
            Op::GetSgpr(_) | Op::GetScc | Op::GetMode => want(res(Ty::S32), "S32 result")?,
            Op::SetSgpr(_, v) | Op::SetScc(v) | Op::SetMode(v) => {
                want(scalar(ty(i, *v)?), "uniform operand")?
            }
            Op::SetVgpr { val, mask, .. } => want(
                ty(i, *val)? == Ty::V32 && ty(i, *mask)? == Ty::S64,
                "V32 value, S64 mask",
            )?,
            Op::GetVgprDyn { index, .. } => {
                want(scalar(ty(i, *index)?) && res(Ty::V32), "uniform index")?
            }
            Op::SetVgprDyn {
                index, val, mask, ..
            } => want(
                scalar(ty(i, *index)?) && ty(i, *val)? == Ty::V32 && ty(i, *mask)? == Ty::S64,
                "SetVgprDyn operands",
            )?,
            Op::Un(_, a) => want(Some(ty(i, *a)?) == rt, "result type = operand type")?,
            Op::Bin(o, a, b) => {
                let (ta, tb) = (ty(i, *a)?, ty(i, *b)?);
                // Shift amounts and ldexp exponents may have the other width.
                let b_ok = if matches!(o, BinOp::Shl | BinOp::LShr | BinOp::AShr | BinOp::FLdexp) {
                    tb.is_vector() == ta.is_vector()
                } else {
                    tb == ta
                };
                want(Some(ta) == rt && b_ok, "operands and result of one type")?
            }
            Op::Tern(_, a, b, c) => want(
                Some(ty(i, *a)?) == rt && Some(ty(i, *b)?) == rt && Some(ty(i, *c)?) == rt,
                "operands and result of one type",
            )?,
            Op::Cmp(_, a, b) => {
                let (ta, tb) = (ty(i, *a)?, ty(i, *b)?);
                let r = if ta.is_vector() { Ty::S64 } else { Ty::S32 };
                want(ta == tb && res(r), "compare operand/result types")?
            }
            Op::Select { cond, a, b } => {
                let (ta, tb, tc) = (ty(i, *a)?, ty(i, *b)?, ty(i, *cond)?);
                let c_ok = if ta.is_vector() {
                    tc == Ty::S64
                } else {
                    scalar(tc)
                };
                want(ta == tb && res(ta) && c_ok, "select types")?
            }
            Op::Broadcast(a) => {
                let t = ty(i, *a)?;
                want(scalar(t) && res(t.to_vector()), "broadcast types")?
            }
            Op::Conv(c, a) => {
                let t = ty(i, *a)?;
                let rb = c.result_bits(t.bits());
                let ok = rt.is_some_and(|r| r.is_vector() == t.is_vector() && r.bits() == rb);
                want(ok, "conversion types")?
            }
            Op::Pack { lo, hi } => {
                let (a, b) = (ty(i, *lo)?, ty(i, *hi)?);
                let ok =
                    a == b && a.bits() == 32 && res(if a.is_vector() { Ty::V64 } else { Ty::S64 });
                want(ok, "pack types")?
            }
            Op::ReadLane { v, lane } => want(
                ty(i, *v)? == Ty::V32 && scalar(ty(i, *lane)?) && res(Ty::S32),
                "readlane types",
            )?,
            Op::WriteLane { v, lane, x } => want(
                ty(i, *v)? == Ty::V32
                    && scalar(ty(i, *lane)?)
                    && scalar(ty(i, *x)?)
                    && res(Ty::V32),
                "writelane types",
            )?,
            Op::Gather { v, idx } => want(
                ty(i, *v)? == Ty::V32 && ty(i, *idx)? == Ty::V32 && res(Ty::V32),
                "gather types",
            )?,
            Op::MaskToLanes(m) => want(ty(i, *m)? == Ty::S64 && res(Ty::V32), "mask types")?,
            Op::Lane { args, .. } => {
                let mut ok = args.len() <= 4 && rt.is_some_and(|t| t.is_vector());
                for a in args {
                    ok &= ty(i, *a)?.is_vector();
                }
                want(ok, "lane function types")?
            }
            Op::Load {
                addr, mask, size, ..
            } => {
                let r = if *size == 8 { Ty::V64 } else { Ty::V32 };
                want(
                    ty(i, *addr)? == Ty::V64 && ty(i, *mask)? == Ty::S64 && res(r),
                    "load types",
                )?
            }
            Op::Store {
                addr, data, mask, ..
            } => want(
                ty(i, *addr)? == Ty::V64 && ty(i, *data)?.is_vector() && ty(i, *mask)? == Ty::S64,
                "store types",
            )?,
            Op::Atomic {
                addr,
                data,
                cmp,
                mask,
                ..
            } => {
                let d = ty(i, *data)?;
                let mut ok =
                    ty(i, *addr)? == Ty::V64 && d.is_vector() && ty(i, *mask)? == Ty::S64 && res(d);
                if let Some(c) = cmp {
                    ok &= ty(i, *c)? == d;
                }
                want(ok, "atomic types")?
            }
            Op::SLoad { addr, .. } => want(
                ty(i, *addr)? == Ty::S64 && res(Ty::S32),
                "scalar load types",
            )?,
            Op::SStore { addr, data, .. } => want(
                ty(i, *addr)? == Ty::S64 && scalar(ty(i, *data)?),
                "scalar store types",
            )?,
            Op::Clock => want(res(Ty::S64), "clock type")?,
            Op::InstCount => want(res(Ty::S64), "instruction count type")?,
            Op::BarrierState => want(res(Ty::S32), "barrier state type")?,
            Op::CountVector { mask } => want(ty(i, *mask)? == Ty::S64, "count mask type")?,
            Op::CountRegion { exec, .. } => want(ty(i, *exec)? == Ty::S64, "region mask type")?,
            Op::Matrix(_) => {}
        }
    }
    let n = block.ops.len();
    let exit_err = |msg: &str| {
        Err(VerifyError {
            op: n,
            msg: msg.into(),
        })
    };
    match &block.exit {
        Exit::Branch { cond, .. } => {
            if !ty(n, *cond)?.is_vector() {
                Ok(())
            } else {
                exit_err("branch condition is a vector")
            }
        }
        Exit::JumpIndirect(t) => {
            if !ty(n, *t)?.is_vector() {
                Ok(())
            } else {
                exit_err("jump target is a vector")
            }
        }
        _ => Ok(()),
    }
}
