//! IR interpreter: the slow path and the reference meaning of every IR op.
//!
//! [`run_block`] evaluates a [`Block`] op by op. Vector values have the block's lanes
//! computed ([`Block::lanes`]: 64, or 32 for wave32, whose lanes 32..63 stay 0 here and are
//! never observed); writes to registers honour their masks. Element semantics live in [`sem`], which
//! the JIT reuses for the ops it calls out to.
//!
//! Counters: the block's per-class instruction counts are added to `state.counters.by_class`
//! when the block starts executing (also when it later faults); `Op::CountVector` adds to the
//! vector counters where it stands, `Op::CountRegion` adds an if-converted region's counts.

#[cfg(any(test, feature = "testkit"))]
pub mod test_env;

use crate::env::{ExecFault, ExitCode, WaveEnv};
use crate::ir::{Block, Exit, Op, Ty, Val};
use crate::sem;
use crate::wave::{sreg, WaveState, MAX_LANES, NUM_SREGS, NUM_VREGS};

/// One evaluated SSA value: a uniform element or 64 lane elements (32-bit values are kept
/// zero-extended in the low half).
#[derive(Clone, Debug)]
enum Value {
    /// Placeholder for ops without a result.
    None,
    /// Uniform value.
    S(u64),
    /// Lane vector.
    V(Box<[u64; MAX_LANES]>),
}

impl Value {
    /// Element `l`: the uniform value itself, or lane `l`.
    #[inline]
    fn lane(&self, l: usize) -> u64 {
        match self {
            Value::S(x) => *x,
            Value::V(v) => v[l],
            Value::None => 0,
        }
    }
}

fn malformed(i: usize, msg: &str) -> ExecFault {
    ExecFault::Unsupported(format!("malformed IR at op {i}: {msg}"))
}

struct Ctx<'a> {
    block: &'a Block,
    vals: Vec<Value>,
    /// The block's lane count (32 or 64).
    lanes: usize,
    /// Its lanes as a mask ([`Block::lane_mask`]).
    lane_mask: u64,
}

impl Ctx<'_> {
    /// The value `v` used by op `i`; must be defined earlier with a result.
    fn get(&self, i: usize, v: Val) -> Result<&Value, ExecFault> {
        let j = v.0 as usize;
        match self.vals.get(j) {
            Some(Value::None) => Err(malformed(i, &format!("operand {v:?} has no result"))),
            Some(x) if j < i => Ok(x),
            _ => Err(malformed(
                i,
                &format!("operand {v:?} is not an earlier value"),
            )),
        }
    }

    /// Width (32/64) of value `v`.
    fn bits(&self, v: Val) -> u32 {
        match self.block.types.get(v.0 as usize) {
            Some(Some(t)) => t.bits(),
            _ => 32,
        }
    }

    /// The uniform value `v` (lane 0 if it is a vector).
    fn scalar(&self, i: usize, v: Val) -> Result<u64, ExecFault> {
        Ok(self.get(i, v)?.lane(0))
    }

    /// The lane mask `v` limited to the block's lanes.
    fn mask(&self, i: usize, v: Val) -> Result<u64, ExecFault> {
        Ok(self.scalar(i, v)? & self.lane_mask)
    }

    /// A value of type `ty` whose element `l` is `f(l)` for the block's lanes (lanes past
    /// them 0; one element for uniform types).
    #[inline]
    fn build(&self, ty: Ty, f: impl FnMut(usize) -> u64) -> Value {
        build(ty, self.lanes, f)
    }
}

/// Builds a value of type `ty` whose element `l` is `f(l)` for lanes `0..lanes` (the others
/// 0; one element for uniform types).
#[inline]
fn build(ty: Ty, lanes: usize, mut f: impl FnMut(usize) -> u64) -> Value {
    let bits = ty.bits();
    if ty.is_vector() {
        let mut v = Box::new([0u64; MAX_LANES]);
        for (l, x) in v.iter_mut().take(lanes).enumerate() {
            *x = sem::trunc_to(bits, f(l));
        }
        Value::V(v)
    } else {
        Value::S(sem::trunc_to(bits, f(0)))
    }
}

fn lanes_of(v: &Value) -> [u64; MAX_LANES] {
    let mut out = [0u64; MAX_LANES];
    for (l, x) in out.iter_mut().enumerate() {
        *x = v.lane(l);
    }
    out
}

fn vreg_index(i: usize, reg: usize) -> Result<usize, ExecFault> {
    if reg < NUM_VREGS {
        Ok(reg)
    } else {
        Err(malformed(
            i,
            &format!("vector register slot {reg} out of range"),
        ))
    }
}

/// Executes `block` on `state`. On return `state.pc` holds the address to continue at (the
/// next block, the barrier's continuation, or the trapping instruction). On a memory fault
/// `state.pc` is the faulting instruction's address; on [`Exit::Unsupported`] it is the
/// unsupported instruction's address.
pub fn run_block(
    block: &Block,
    state: &mut WaveState,
    env: &mut dyn WaveEnv,
) -> Result<ExitCode, ExecFault> {
    if block.ops.len() != block.types.len() {
        return Err(malformed(0, "ops and types differ in length"));
    }
    for (c, n) in state
        .counters
        .by_class
        .iter_mut()
        .zip(block.class_counts.iter())
    {
        *c += *n as u64;
    }
    let mut cx = Ctx {
        block,
        vals: Vec::with_capacity(block.ops.len()),
        lanes: block.lanes(),
        lane_mask: block.lane_mask(),
    };
    for (i, op) in block.ops.iter().enumerate() {
        let ty = block.types[i];
        let v = exec_op(&cx, i, op, ty, state, env)?;
        cx.vals.push(v);
    }
    let i = block.ops.len();
    match &block.exit {
        Exit::Jump(t) => {
            state.pc = *t;
            Ok(ExitCode::Continue)
        }
        Exit::Branch {
            cond,
            taken,
            not_taken,
        } => {
            let c = cx.scalar(i, *cond)? as u32;
            state.pc = if c != 0 { *taken } else { *not_taken };
            Ok(ExitCode::Continue)
        }
        Exit::JumpIndirect(t) => {
            state.pc = cx.scalar(i, *t)?;
            Ok(ExitCode::Continue)
        }
        Exit::EndPgm => {
            state.pc = block.end_pc;
            Ok(ExitCode::EndPgm)
        }
        Exit::Barrier { next } => {
            state.pc = *next;
            Ok(ExitCode::Barrier)
        }
        Exit::Trap { pc, .. } => {
            state.pc = *pc;
            Ok(ExitCode::Trap)
        }
        Exit::Yield { next } => {
            state.pc = *next;
            Ok(ExitCode::Yield)
        }
        Exit::Unsupported { pc, reason } => {
            state.pc = *pc;
            Err(ExecFault::Unsupported(reason.clone()))
        }
        Exit::Illegal { pc, reason } => {
            state.pc = *pc;
            Err(ExecFault::Illegal(reason.clone()))
        }
    }
}

fn need_ty(i: usize, ty: Option<Ty>) -> Result<Ty, ExecFault> {
    ty.ok_or_else(|| malformed(i, "op has a result but no type"))
}

fn exec_op(
    cx: &Ctx<'_>,
    i: usize,
    op: &Op,
    ty: Option<Ty>,
    state: &mut WaveState,
    env: &mut dyn WaveEnv,
) -> Result<Value, ExecFault> {
    Ok(match op {
        Op::Const { bits, .. } => {
            let t = need_ty(i, ty)?;
            cx.build(t, |_| *bits)
        }
        Op::LaneConst(c) => cx.build(need_ty(i, ty)?, |l| c[l] as u64),
        Op::LaneId => cx.build(need_ty(i, ty)?, |l| l as u64),
        Op::GetSgpr(code) => {
            let c = *code as usize;
            if c >= NUM_SREGS {
                return Err(malformed(i, &format!("scalar slot {c} out of range")));
            }
            let x = if *code == sreg::NULL {
                0
            } else {
                state.sgpr[c]
            };
            Value::S(x as u64)
        }
        Op::SetSgpr(code, v) => {
            let c = *code as usize;
            if c >= NUM_SREGS {
                return Err(malformed(i, &format!("scalar slot {c} out of range")));
            }
            let x = cx.scalar(i, *v)? as u32;
            if *code != sreg::NULL {
                state.sgpr[c] = x;
            }
            Value::None
        }
        Op::GetVgpr(reg) => {
            let r = vreg_index(i, *reg as usize)?;
            let row = &state.vgpr[r];
            cx.build(Ty::V32, |l| row[l] as u64)
        }
        Op::SetVgpr { reg, val, mask } => {
            let r = vreg_index(i, *reg as usize)?;
            let m = cx.mask(i, *mask)?;
            let v = cx.get(i, *val)?;
            let row = &mut state.vgpr[r];
            for (l, x) in row.iter_mut().enumerate().take(cx.lanes) {
                if m >> l & 1 == 1 {
                    *x = v.lane(l) as u32;
                }
            }
            Value::None
        }
        Op::GetVgprDyn { base, index } => {
            let idx = cx.scalar(i, *index)? as u32 as usize;
            let r = vreg_index(i, *base as usize + idx)?;
            let row = &state.vgpr[r];
            cx.build(Ty::V32, |l| row[l] as u64)
        }
        Op::SetVgprDyn {
            base,
            index,
            val,
            mask,
        } => {
            let idx = cx.scalar(i, *index)? as u32 as usize;
            let r = vreg_index(i, *base as usize + idx)?;
            let m = cx.mask(i, *mask)?;
            let v = cx.get(i, *val)?;
            let row = &mut state.vgpr[r];
            for (l, x) in row.iter_mut().enumerate().take(cx.lanes) {
                if m >> l & 1 == 1 {
                    *x = v.lane(l) as u32;
                }
            }
            Value::None
        }
        Op::GetScc => Value::S(state.scc as u64 & 1),
        Op::SetScc(v) => {
            state.scc = cx.scalar(i, *v)? as u32 & 1;
            Value::None
        }
        Op::GetMode => Value::S(state.mode as u64),
        Op::SetMode(v) => {
            state.mode = cx.scalar(i, *v)? as u32;
            Value::None
        }
        Op::Un(u, a) => {
            let t = need_ty(i, ty)?;
            let a = cx.get(i, *a)?;
            cx.build(t, |l| sem::un(*u, t.bits(), a.lane(l)))
        }
        Op::Bin(b, x, y) => {
            let t = need_ty(i, ty)?;
            let (x, y) = (cx.get(i, *x)?, cx.get(i, *y)?);
            cx.build(t, |l| sem::bin(*b, t.bits(), x.lane(l), y.lane(l)))
        }
        Op::Tern(o, x, y, z) => {
            let t = need_ty(i, ty)?;
            let (x, y, z) = (cx.get(i, *x)?, cx.get(i, *y)?, cx.get(i, *z)?);
            cx.build(t, |l| {
                sem::tern(*o, t.bits(), x.lane(l), y.lane(l), z.lane(l))
            })
        }
        Op::Cmp(c, x, y) => {
            let bits = cx.bits(*x);
            let vector = matches!(
                cx.block.types.get(x.0 as usize),
                Some(Some(Ty::V32 | Ty::V64))
            );
            let (x, y) = (cx.get(i, *x)?, cx.get(i, *y)?);
            if vector {
                let mut m = 0u64;
                for l in 0..cx.lanes {
                    if sem::cmp(*c, bits, x.lane(l), y.lane(l)) {
                        m |= 1 << l;
                    }
                }
                Value::S(m)
            } else {
                Value::S(sem::cmp(*c, bits, x.lane(0), y.lane(0)) as u64)
            }
        }
        Op::Select { cond, a, b } => {
            let t = need_ty(i, ty)?;
            let c = cx.scalar(i, *cond)?;
            let (a, b) = (cx.get(i, *a)?, cx.get(i, *b)?);
            if t.is_vector() {
                cx.build(t, |l| {
                    if c >> l & 1 == 1 {
                        a.lane(l)
                    } else {
                        b.lane(l)
                    }
                })
            } else {
                cx.build(t, |_| if c as u32 != 0 { a.lane(0) } else { b.lane(0) })
            }
        }
        Op::Broadcast(a) => {
            let t = need_ty(i, ty)?;
            let x = cx.scalar(i, *a)?;
            cx.build(t, |_| x)
        }
        Op::Conv(c, a) => {
            let t = need_ty(i, ty)?;
            let a = cx.get(i, *a)?;
            cx.build(t, |l| sem::conv(*c, a.lane(l)))
        }
        Op::Pack { lo, hi } => {
            let t = need_ty(i, ty)?;
            let (lo, hi) = (cx.get(i, *lo)?, cx.get(i, *hi)?);
            cx.build(t, |l| (lo.lane(l) & 0xFFFF_FFFF) | hi.lane(l) << 32)
        }
        Op::ReadLane { v, lane } => {
            let n = cx.scalar(i, *lane)? as usize & (cx.lanes - 1);
            Value::S(cx.get(i, *v)?.lane(n) & 0xFFFF_FFFF)
        }
        Op::WriteLane { v, lane, x } => {
            let t = need_ty(i, ty)?;
            let n = cx.scalar(i, *lane)? as usize & (cx.lanes - 1);
            let x = cx.scalar(i, *x)?;
            let v = cx.get(i, *v)?;
            cx.build(t, |l| if l == n { x } else { v.lane(l) })
        }
        Op::Gather { v, idx } => {
            let t = need_ty(i, ty)?;
            let (v, idx) = (cx.get(i, *v)?, cx.get(i, *idx)?);
            cx.build(t, |l| v.lane(idx.lane(l) as usize & (cx.lanes - 1)))
        }
        Op::MaskToLanes(m) => {
            let t = need_ty(i, ty)?;
            let m = cx.scalar(i, *m)?;
            cx.build(t, |l| m >> l & 1)
        }
        Op::Lane { f, args } => {
            let t = need_ty(i, ty)?;
            if args.len() > 4 {
                return Err(malformed(i, "lane function with more than 4 arguments"));
            }
            let mut vs: [Option<&Value>; 4] = [None; 4];
            for (k, a) in args.iter().enumerate() {
                vs[k] = Some(cx.get(i, *a)?);
            }
            cx.build(t, |l| {
                let mut xs = [0u64; 4];
                for (x, v) in xs.iter_mut().zip(vs.iter()) {
                    *x = v.map_or(0, |v| v.lane(l));
                }
                sem::lane_fn(*f, xs)
            })
        }
        Op::Load {
            pc,
            space,
            addr,
            size,
            signed,
            mask,
        } => {
            let t = need_ty(i, ty)?;
            check_size(i, *size)?;
            let m = cx.mask(i, *mask)?;
            let addrs = lanes_of(cx.get(i, *addr)?);
            let mut out = [0u64; MAX_LANES];
            if let Err(e) = env.load(*space, &addrs, m, *size as u32, &mut out) {
                state.pc = *pc;
                return Err(e.into());
            }
            cx.build(t, |l| {
                if m >> l & 1 == 1 {
                    extend(out[l], *size, *signed)
                } else {
                    0
                }
            })
        }
        Op::Store {
            pc,
            space,
            addr,
            size,
            data,
            mask,
        } => {
            check_size(i, *size)?;
            let m = cx.mask(i, *mask)?;
            let addrs = lanes_of(cx.get(i, *addr)?);
            let data = lanes_of(cx.get(i, *data)?);
            if let Err(e) = env.store(*space, &addrs, m, *size as u32, &data) {
                state.pc = *pc;
                return Err(e.into());
            }
            Value::None
        }
        Op::Atomic {
            pc,
            space,
            op,
            addr,
            size,
            data,
            cmp,
            mask,
        } => {
            let t = need_ty(i, ty)?;
            check_size(i, *size)?;
            let m = cx.mask(i, *mask)?;
            let addrs = lanes_of(cx.get(i, *addr)?);
            let data = lanes_of(cx.get(i, *data)?);
            let cmp = match cmp {
                Some(c) => lanes_of(cx.get(i, *c)?),
                None => [0u64; MAX_LANES],
            };
            let mut out = [0u64; MAX_LANES];
            if let Err(e) = env.atomic(*space, *op, &addrs, m, *size as u32, &data, &cmp, &mut out)
            {
                state.pc = *pc;
                return Err(e.into());
            }
            cx.build(t, |l| {
                if m >> l & 1 == 1 {
                    extend(out[l], *size, false)
                } else {
                    0
                }
            })
        }
        Op::SLoad { pc, addr } => {
            let a = cx.scalar(i, *addr)?;
            let mut out = [0u32; 1];
            if let Err(e) = env.scalar_load(a, &mut out) {
                state.pc = *pc;
                return Err(e.into());
            }
            Value::S(out[0] as u64)
        }
        Op::SStore { pc, addr, data } => {
            let a = cx.scalar(i, *addr)?;
            let d = [cx.scalar(i, *data)? as u32];
            if let Err(e) = env.scalar_store(a, &d) {
                state.pc = *pc;
                return Err(e.into());
            }
            Value::None
        }
        Op::Clock => Value::S(env.clock()),
        Op::InstCount => Value::S(state.counters.by_class.iter().sum()),
        Op::BarrierState => Value::S(env.barrier_state() as u64),
        Op::CountVector { mask } => {
            let m = cx.scalar(i, *mask)?;
            state.counters.active_lanes += m.count_ones() as u64;
            state.counters.vector_insts += 1;
            Value::None
        }
        Op::CountRegion { exec, counts } => {
            let m = cx.scalar(i, *exec)?;
            if m != 0 {
                let c = &mut state.counters;
                for (total, n) in c.by_class.iter_mut().zip(counts.classes) {
                    *total += u64::from(n);
                }
                c.vector_insts += u64::from(counts.vector);
                c.active_lanes += u64::from(counts.vector) * u64::from(m.count_ones());
            }
            Value::None
        }
        Op::Matrix(call) => {
            run_matrix(call, state)?;
            Value::None
        }
    })
}

/// Executes one matrix instruction on the register file with the wave's MODE (both engines
/// run [`Op::Matrix`] through this): its plan, resolved with its owner
/// ([`crate::matrix::plans`]). On failure `state.pc` is the instruction's address.
pub fn run_matrix(call: &crate::ir::MatrixCall, state: &mut WaveState) -> Result<(), ExecFault> {
    let Some(planned) = crate::matrix::plans::get(call.plan) else {
        state.pc = call.pc;
        return Err(ExecFault::Unsupported(format!(
            "malformed IR: matrix instruction with unknown plan {:?}",
            call.plan
        )));
    };
    run_planned(planned, call.pc, state)
}

/// Executes the resolved plan of the matrix instruction at `pc` ([`run_matrix`]; the JIT
/// resolves the handle when compiling).
pub fn run_planned(
    planned: &crate::matrix::plans::Planned,
    pc: u64,
    state: &mut WaveState,
) -> Result<(), ExecFault> {
    let isa = crate::matrix::gemm::best_isa();
    if let Err(e) = planned.run(isa, &mut state.vgpr, state.mode) {
        state.pc = pc;
        return Err(ExecFault::Unsupported(format!("matrix instruction: {e}")));
    }
    Ok(())
}

fn check_size(i: usize, size: u8) -> Result<(), ExecFault> {
    if matches!(size, 1 | 2 | 4 | 8) {
        Ok(())
    } else {
        Err(malformed(i, &format!("memory access size {size}")))
    }
}

/// Zero- or sign-extends the low `size` bytes of `x` (the caller truncates to the result type).
pub fn extend(x: u64, size: u8, signed: bool) -> u64 {
    match (size, signed) {
        (1, false) => x & 0xFF,
        (1, true) => x as u8 as i8 as i64 as u64,
        (2, false) => x & 0xFFFF,
        (2, true) => x as u16 as i16 as i64 as u64,
        (4, false) => x & 0xFFFF_FFFF,
        (4, true) => x as u32 as i32 as i64 as u64,
        _ => x,
    }
}
