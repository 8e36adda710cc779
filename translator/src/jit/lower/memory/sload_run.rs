//! Runs of scalar loads from one base: the dwords of an `s_load_dwordxN` and the loads of
//! one kernel-argument block read addresses `base + c` for constants `c`. The first load of
//! such a run selects one window for the whole run's span (and tests the alignment once);
//! each load of the run then reads its dword there, at its place, while that holds, and
//! takes its own checked path (window selection, else the helper, with its own pc) when it
//! did not, or when a call that may reach the environment came since (it ends the
//! window's validity, `MemWindow::new`): such a call, and a load's own checked path, give
//! up the run's window for the loads after it ([`Gen::sload_runs_end`]). Nothing between
//! the loads can fault on the run's behalf (the window test is the only early one).

use super::super::Gen;
use crate::ir::{BinOp, Op, Ty, Val};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder};
use cranelift_frontend::Variable;

/// Fewest loads a run has: for two, one window test and two branches on it cost as much as
/// the plain path (a selection, then a test of the second offset against its window).
const MIN_LOADS: usize = 3;
/// Most loads one run reads ahead.
const MAX_LOADS: usize = 16;
/// Largest span in bytes one run reads ahead.
const MAX_SPAN: i64 = 512;
/// How deep address chains are followed back to their root.
const MAX_DEPTH: usize = 8;

/// How a load of a run reads its dword ([`Gen::sload_read_ahead`]).
#[derive(Clone, Copy)]
pub(in crate::jit::lower) struct Ahead {
    /// `I8`: the run's window holds every dword of the run (aligned) and is still valid.
    go: Variable,
    /// `I64`: the host address of the run's lowest dword (valid while `go`).
    host: Variable,
    /// The load's byte offset from there.
    off: i32,
}

/// An address `root + off`, or `(root & !3) + off` when `masked` (wrapping, 64 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Parts {
    root: Val,
    masked: bool,
    off: i64,
}

impl Gen<'_, '_> {
    /// The value of the constant op `v`, if it is one.
    fn sload_const(&self, v: Val) -> Option<i64> {
        match self.block.ops.get(v.0 as usize) {
            Some(Op::Const { bits, .. }) => Some(*bits as i64),
            _ => None,
        }
    }

    /// `v` (an `S64` address) as a root and a constant offset: through adds of constants
    /// and one mask of the low two bits (`(r + c) & !3 == (r & !3) + c` when `c % 4 == 0`).
    fn sload_parts(&self, v: Val, depth: usize) -> Parts {
        let whole = Parts {
            root: v,
            masked: false,
            off: 0,
        };
        let s64 = matches!(self.block.types.get(v.0 as usize), Some(Some(Ty::S64)));
        if depth == 0 || !s64 {
            return whole;
        }
        match self.block.ops.get(v.0 as usize) {
            Some(Op::Bin(BinOp::Add, x, y)) => {
                let (base, c) = match (self.sload_const(*x), self.sload_const(*y)) {
                    (_, Some(c)) => (*x, c),
                    (Some(c), None) => (*y, c),
                    (None, None) => return whole,
                };
                let p = self.sload_parts(base, depth - 1);
                Parts {
                    off: p.off.wrapping_add(c),
                    ..p
                }
            }
            Some(Op::Bin(BinOp::And, x, y)) if self.sload_const(*y) == Some(!3) => {
                let p = self.sload_parts(*x, depth - 1);
                if !p.masked && p.off % 4 == 0 {
                    Parts { masked: true, ..p }
                } else {
                    whole
                }
            }
            _ => whole,
        }
    }

    /// Whether roots `a` and `b` are the same value: one op, or two packs of the same halves.
    fn same_root(&self, a: Val, b: Val) -> bool {
        let ops = &self.block.ops;
        a == b
            || matches!(
                (ops.get(a.0 as usize), ops.get(b.0 as usize)),
                (Some(Op::Pack { lo: l1, hi: h1 }), Some(Op::Pack { lo: l2, hi: h2 }))
                    if l1 == l2 && h1 == h2
            )
    }

    /// The run of scalar loads that starts with the one at op `i` (address `addr`): the op
    /// indices and offsets of its loads (`i` first), when there are at least [`MIN_LOADS`]. Ops that
    /// already belong to a run start none.
    fn sload_run(&self, i: usize, addr: Val) -> Option<(Parts, Vec<(usize, i64)>)> {
        let first = self.sload_parts(addr, MAX_DEPTH);
        let mut run = vec![(i, first.off)];
        let (mut lo, mut hi) = (first.off, first.off);
        for (j, op) in self.block.ops.iter().enumerate().skip(i + 1) {
            match op {
                Op::Store { .. } | Op::Atomic { .. } | Op::SStore { .. } => break,
                Op::SLoad { addr, .. } => {
                    let p = self.sload_parts(*addr, MAX_DEPTH);
                    let (l, h) = (lo.min(p.off), hi.max(p.off));
                    let fits = self.same_root(p.root, first.root)
                        && p.masked == first.masked
                        && p.off.wrapping_sub(first.off) % 4 == 0
                        && h.checked_sub(l).is_some_and(|s| s <= MAX_SPAN - 4);
                    if fits {
                        run.push((j, p.off));
                        (lo, hi) = (l, h);
                        if run.len() == MAX_LOADS {
                            break;
                        }
                    }
                }
                _ => {}
            }
        }
        (run.len() >= MIN_LOADS).then_some((first, run))
    }

    /// At the scalar load `i` (address `addr`): when it starts a run ([`Gen::sload_run`]),
    /// selects one window for the run's span and records for each load how to read its
    /// dword there ([`Ahead`], in `sload_ahead`).
    pub(super) fn sload_read_ahead(&mut self, i: usize, addr: Val) -> super::GenResult<()> {
        let Some((first, run)) = self.sload_run(i, addr) else {
            return Ok(());
        };
        let lo = run.iter().map(|r| r.1).min().unwrap_or(0);
        let hi = run.iter().map(|r| r.1).max().unwrap_or(0);
        let mut root = self.s_as(first.root, types::I64)?;
        if first.masked {
            root = self.b.ins().band_imm_s(root, !3);
        }
        let a0 = self.b.ins().iadd_imm_s(root, lo);
        let span = self.iconst(types::I64, (hi - lo + 4) as u64);
        let w = self.window_of(crate::env::Space::Global, a0, span)?;
        let low = self.b.ins().band_imm_u(a0, 3);
        let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
        let go = self.b.ins().band(w.hit, aligned);
        // Computed either way (no access): used only where `go` says the window holds it.
        let off = self.b.ins().isub(a0, w.start);
        let host = self.b.ins().iadd(w.host, off);
        let (gv, hv) = (
            self.b.declare_var(types::I8),
            self.b.declare_var(types::I64),
        );
        self.b.def_var(gv, go);
        self.b.def_var(hv, host);
        for &(j, o) in &run {
            let ahead = Ahead {
                go: gv,
                host: hv,
                off: (o - lo) as i32,
            };
            self.sload_ahead.insert(j, ahead);
        }
        Ok(())
    }

    /// At a load of a run: branches to `join` with its dword when the run's window still
    /// holds it, else continues (in a new cold block) to the load's own checked code,
    /// where the run's window is given up for the loads after it.
    pub(super) fn sload_ahead_read(&mut self, a: Ahead, join: cranelift_codegen::ir::Block) {
        let go = self.b.use_var(a.go);
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        self.b.set_cold_block(slow);
        self.b.ins().brif(go, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        self.b.seal_block(fast);
        let host = self.b.use_var(a.host);
        let x = self.b.ins().load(types::I32, super::le(), host, a.off);
        self.b.ins().jump(join, &[BlockArg::Value(x)]);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        self.end_run(a);
    }

    /// Gives up the window of every run with loads still to come (before a call that may
    /// reach the environment, which ends the window's validity).
    pub(in crate::jit::lower) fn sload_runs_end(&mut self) {
        let runs: Vec<Ahead> = self.sload_ahead.values().copied().collect();
        for a in runs {
            self.end_run(a);
        }
    }

    /// The loads of `a`'s run from here on take their checked code (nothing stays live
    /// for them across it).
    fn end_run(&mut self, a: Ahead) {
        let no = self.iconst(types::I8, 0);
        let none = self.iconst(types::I64, 0);
        self.b.def_var(a.go, no);
        self.b.def_var(a.host, none);
    }
}
