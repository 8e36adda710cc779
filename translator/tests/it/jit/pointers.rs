//! Load results read through the window's host pointer and stores written from the
//! lane-group loop (`jit::lower::memory::pending`, `jit::lower::memory::direct_store`)
//! against the interpreter, on a vadd-shaped block: two loads, a lane op on their values,
//! the result stored. Between the loads and their use: a store (one dword or two) over the
//! loaded bytes, or a call into the environment (a scratch load, a load across two
//! windows, an atomic on the loaded bytes, a scalar store into them, a scalar load off the
//! inline path); and the loaded values used again after the final store. The final store in place, overlapping
//! its operands from below and from above, or apart. Addresses lane-affine (as the lifter
//! builds them from the workitem id), affine but with v0 not holding ids (the general
//! code), and from a table (the fixed-stride path). Full, partial, single-lane and empty
//! EXEC, wave32 and wave64, global memory and LDS; accesses at and past the windows' edges
//! (faults: pc, lane and address must match).
//!
//! The JIT's environment moves its memory at every call into it, poisoning the old bytes
//! (as `MemWindow::new`'s contract allows: a window is valid until the next call), so a
//! pointer read after such a call reads poison. Registers start poisoned; memory holds a
//! non-repeating pattern.

use super::affine::{address, c32, c64, full, ids, Shape};
use super::memory::{env, state, BASE, GLOBAL_LEN, LDS_LEN};
use wavejit_translator::env::{AtomicOp, FastMemory, MemError, Space, WaveEnv};
use wavejit_translator::interp::{run_block, test_env::FlatEnv};
use wavejit_translator::ir::*;
use wavejit_translator::jit::Jit;

/// A [`FlatEnv`] whose global memory and LDS move to a new allocation at every call (the
/// old bytes poisoned and kept, so a stale pointer reads poison instead of faulting).
struct Moving {
    inner: FlatEnv,
    old: Vec<Vec<u8>>,
    calls: u32,
}

impl Moving {
    fn moved(&mut self) {
        self.calls += 1;
        for mem in [&mut self.inner.global, &mut self.inner.lds] {
            let fresh = mem.clone();
            let mut old = std::mem::replace(mem, fresh);
            old.fill(0xEE);
            self.old.push(old);
        }
    }
}

impl WaveEnv for Moving {
    fn fast_memory(&mut self) -> FastMemory {
        self.inner.fast_memory()
    }
    fn load(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        out: &mut [u64; 64],
    ) -> Result<(), MemError> {
        let r = self.inner.load(space, addrs, mask, size, out);
        self.moved();
        r
    }
    fn store(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        data: &[u64; 64],
    ) -> Result<(), MemError> {
        let r = self.inner.store(space, addrs, mask, size, data);
        self.moved();
        r
    }
    fn atomic(
        &mut self,
        space: Space,
        op: AtomicOp,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        data: &[u64; 64],
        cmp: &[u64; 64],
        out: &mut [u64; 64],
    ) -> Result<(), MemError> {
        let r = self
            .inner
            .atomic(space, op, addrs, mask, size, data, cmp, out);
        self.moved();
        r
    }
    fn scalar_load(&mut self, addr: u64, out: &mut [u32]) -> Result<(), MemError> {
        let r = self.inner.scalar_load(addr, out);
        self.moved();
        r
    }
    fn scalar_store(&mut self, addr: u64, data: &[u32]) -> Result<(), MemError> {
        let r = self.inner.scalar_store(addr, data);
        self.moved();
        r
    }
    fn clock(&mut self) -> u64 {
        self.moved();
        self.inner.clock()
    }
}

/// What runs between the loads and the op using their values.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Between {
    Nothing,
    /// A vector store at the first load's address plus this many bytes.
    Overwrite(i64),
    /// A scratch load (always the helper: a call into the environment).
    Scratch,
    /// A global load across the two windows (the helper, which does not fault).
    Straddle,
    /// An atomic add on the first load's bytes.
    Atomic,
    /// A scalar store into the first load's bytes.
    ScalarStore,
    /// A two-dword store (one instruction's pieces, lowered as one) over the first load's
    /// bytes.
    MultiStore,
    /// An unaligned scalar load (its helper).
    ScalarLoad,
}

/// How the addresses are made.
#[derive(Clone, Copy, Debug)]
enum Addr {
    /// Lane-affine from v0 ([`Shape`]).
    Affine(Shape),
    /// From a table of per-lane offsets, 4 bytes apart (the fixed-stride path).
    Table,
}

#[derive(Clone, Copy, Debug)]
struct Case {
    wave: u32,
    mask: u64,
    space: Space,
    addr: Addr,
    /// Offsets of the two loads and of the store from the space's base (wrapping).
    a: u64,
    b: u64,
    c: u64,
    between: Between,
    /// The loaded values used again after the store (the first one written to v6 in
    /// every lane, active or not).
    again: bool,
    /// `FAdd` (NaN lanes: the slow loop copy redoes their group) rather than `Add`.
    float: bool,
}

impl Case {
    fn new(wave: u32, a: u64, b: u64, c: u64) -> Case {
        Case {
            wave,
            mask: full(wave),
            space: Space::Global,
            addr: Addr::Affine(Shape::SextShl),
            a,
            b,
            c,
            between: Between::Nothing,
            again: false,
            float: false,
        }
    }
}

fn lane_table(b: &mut Builder, f: impl Fn(u32) -> u64) -> Val {
    let lo: [u32; 64] = std::array::from_fn(|l| f(l as u32) as u32);
    let hi: [u32; 64] = std::array::from_fn(|l| (f(l as u32) >> 32) as u32);
    let lo = b.push(Op::LaneConst(Box::new(lo)), Some(Ty::V32));
    let hi = b.push(Op::LaneConst(Box::new(hi)), Some(Ty::V32));
    b.push(Op::Pack { lo, hi }, Some(Ty::V64))
}

fn base_of(space: Space) -> u64 {
    if space == Space::Lds {
        0
    } else {
        BASE
    }
}

/// The address of `c`'s kind at `off` from the space's base.
fn addr(b: &mut Builder, c: &Case, off: u64, m: Val) -> Val {
    let at = base_of(c.space).wrapping_add(off);
    match c.addr {
        Addr::Affine(shape) => address(b, shape, at, m, c.wave),
        Addr::Table => lane_table(b, |l| at.wrapping_add(4 * l as u64)),
    }
}

fn block(c: &Case) -> Block {
    let mut b = Builder::new(0x100, c.wave);
    let m = c64(&mut b, c.mask);
    let load = |b: &mut Builder, off: u64, pc: u64| {
        let addr = addr(b, c, off, m);
        b.push(
            Op::Load {
                pc,
                space: c.space,
                addr,
                size: 4,
                signed: false,
                mask: m,
            },
            Some(Ty::V32),
        )
    };
    let x = load(&mut b, c.a, 0x100);
    let y = load(&mut b, c.b, 0x104);
    between(&mut b, c, m);
    let op = if c.float { BinOp::FAdd } else { BinOp::Add };
    let s = b.push(Op::Bin(op, x, y), Some(Ty::V32));
    b.push(
        Op::SetVgpr {
            reg: 4,
            val: s,
            mask: m,
        },
        None,
    );
    let to = addr(&mut b, c, c.c, m);
    b.push(
        Op::Store {
            pc: 0x10c,
            space: c.space,
            addr: to,
            size: 4,
            data: s,
            mask: m,
        },
        None,
    );
    if c.again {
        let t = b.push(Op::Bin(BinOp::Xor, x, y), Some(Ty::V32));
        b.push(
            Op::SetVgpr {
                reg: 5,
                val: t,
                mask: m,
            },
            None,
        );
        // Every lane: inactive lanes of a load are 0.
        let all = c64(&mut b, u64::MAX);
        b.push(
            Op::SetVgpr {
                reg: 6,
                val: x,
                mask: all,
            },
            None,
        );
    }
    let k = c32(&mut b, 0x5EED);
    b.push(Op::SetSgpr(9, k), None);
    b.finish(Exit::Jump(0x200))
}

fn between(b: &mut Builder, c: &Case, m: Val) {
    let pc = 0x108;
    match c.between {
        Between::Nothing => {}
        Between::Overwrite(d) => {
            let to = addr(b, c, c.a.wrapping_add(d as u64), m);
            let data = b.push(Op::GetVgpr(3), Some(Ty::V32));
            b.push(
                Op::Store {
                    pc,
                    space: c.space,
                    addr: to,
                    size: 4,
                    data,
                    mask: m,
                },
                None,
            );
        }
        Between::Scratch | Between::Straddle => {
            let (space, at) = if c.between == Between::Scratch {
                (Space::Scratch, lane_table(b, |l| 4 * (l as u64 % 4)))
            } else {
                let mid = BASE + GLOBAL_LEN as u64 / 2 - 8;
                (Space::Global, lane_table(b, |l| mid + 4 * l as u64))
            };
            let v = b.push(
                Op::Load {
                    pc,
                    space,
                    addr: at,
                    size: 4,
                    signed: false,
                    mask: m,
                },
                Some(Ty::V32),
            );
            b.push(
                Op::SetVgpr {
                    reg: 7,
                    val: v,
                    mask: m,
                },
                None,
            );
        }
        Between::Atomic => {
            let to = addr(b, c, c.a.wrapping_add(8), m);
            let data = b.push(Op::GetVgpr(3), Some(Ty::V32));
            let v = b.push(
                Op::Atomic {
                    pc,
                    space: c.space,
                    op: AtomicOp::Add,
                    addr: to,
                    size: 4,
                    data,
                    cmp: None,
                    mask: m,
                },
                Some(Ty::V32),
            );
            b.push(
                Op::SetVgpr {
                    reg: 7,
                    val: v,
                    mask: m,
                },
                None,
            );
        }
        Between::MultiStore => {
            let at = base_of(c.space).wrapping_add(c.a).wrapping_add(4);
            let first = lane_table(b, |l| at.wrapping_add(8 * l as u64));
            for k in 0..2u16 {
                let off = c64(b, 4 * k as u64);
                let off = b.push(Op::Broadcast(off), Some(Ty::V64));
                let to = b.push(Op::Bin(BinOp::Add, first, off), Some(Ty::V64));
                let data = b.push(Op::GetVgpr(2 + k), Some(Ty::V32));
                b.push(
                    Op::Store {
                        pc,
                        space: c.space,
                        addr: to,
                        size: 4,
                        data,
                        mask: m,
                    },
                    None,
                );
            }
        }
        Between::ScalarStore => {
            let to = c64(b, BASE.wrapping_add(c.a).wrapping_add(12));
            let data = c32(b, 0x0BAD_F00D);
            b.push(Op::SStore { pc, addr: to, data }, None);
        }
        Between::ScalarLoad => {
            let at = c64(b, BASE + 0x802);
            let v = b.push(Op::SLoad { pc, addr: at }, Some(Ty::S32));
            b.push(Op::SetSgpr(20, v), None);
        }
    }
}

/// Runs case `c` with v0 holding lane ids (`ids_affine`: else permuted) in both engines:
/// exits (faults with pc, lane and address), pc, v0..v7, SGPRs and memory agree. Returns
/// the JIT's calls into its environment and memory helper calls.
fn agree_with(c: &Case, ids_affine: bool) -> (u32, u32) {
    agree_block_with(&block(c), c, ids_affine)
}

fn agree_block(blk: &Block, c: &Case) -> (u32, u32) {
    agree_block_with(blk, c, true)
}

/// [`agree_with`] for the block `blk` (`c` names the case in messages).
fn agree_block_with(blk: &Block, c: &Case, ids_affine: bool) -> (u32, u32) {
    let blk = blk.clone();
    let jit = Jit::new().expect("host JIT");
    let mut s0 = state();
    for l in 0..64 {
        s0.vgpr[2][l] = 0xA1B2_C3D4 ^ (l as u32).wrapping_mul(0x0101_0101);
        s0.vgpr[3][l] = 0x1F2E_3D4C ^ (l as u32) << 20;
    }
    s0.wave_size = blk.wave_size;
    ids(0, ids_affine)(&mut s0);
    let fresh = || {
        let mut s = state();
        s.wave_size = s0.wave_size;
        s.vgpr = s0.vgpr;
        s.sgpr = s0.sgpr;
        s
    };
    let two_windows = || {
        let mut e = env();
        e.windows = 2;
        e
    };
    let (mut si, mut ei) = (fresh(), two_windows());
    let ri = run_block(&blk, &mut si, &mut ei);
    let cb = jit.compile(&blk).expect("compiles");
    let mut sj = fresh();
    let mut ej = Moving {
        inner: two_windows(),
        old: Vec::new(),
        calls: 0,
    };
    let (rj, helpers) = cb.run_counting(&mut sj, &mut ej);
    let what = format!("{c:?} ids {ids_affine}\n{blk}");
    assert_eq!(ri, rj, "exit {what}");
    assert_eq!(si.pc, sj.pc, "pc {what}");
    for r in 0..8 {
        assert_eq!(si.vgpr[r], sj.vgpr[r], "v{r} {what}");
    }
    assert_eq!(si.sgpr, sj.sgpr, "sgprs {what}");
    assert!(ei == ej.inner, "memory differs {what}");
    (ej.calls, helpers)
}

fn agree(c: &Case) -> (u32, u32) {
    agree_with(c, true)
}

const MASKS: [u64; 4] = [u64::MAX, 0x0000_FFFF_0000_FFFF, 1 << 5, 0];

#[test]
fn loads_through_pointers_match_the_interpreter() {
    let betweens = [
        Between::Nothing,
        Between::Overwrite(0),
        Between::Overwrite(68),
        Between::Overwrite(-8),
        Between::Scratch,
        Between::Straddle,
        Between::Atomic,
        Between::ScalarStore,
        Between::ScalarLoad,
        Between::MultiStore,
    ];
    for wave in [32u32, 64] {
        for between in betweens {
            for again in [false, true] {
                for mask in MASKS {
                    for float in [false, true] {
                        let c = Case {
                            mask: mask & full(wave),
                            between,
                            again,
                            float,
                            ..Case::new(wave, 0x100, 0x600, 0xB00)
                        };
                        let (calls, helpers) = agree(&c);
                        if between == Between::Nothing && mask == u64::MAX {
                            // Every access inline: nothing reaches the environment.
                            assert_eq!((calls, helpers), (0, 0), "{c:?}");
                        }
                        agree_with(&c, false);
                    }
                }
            }
        }
    }
}

#[test]
fn other_address_forms_and_lds_match() {
    for wave in [32u32, 64] {
        for addr in [Addr::Affine(Shape::Rdna), Addr::Table] {
            for between in [Between::Nothing, Between::Overwrite(4), Between::Scratch] {
                for again in [false, true] {
                    for mask in MASKS {
                        let c = Case {
                            mask: mask & full(wave),
                            addr,
                            between,
                            again,
                            ..Case::new(wave, 0x100, 0x600, 0xB00)
                        };
                        let (calls, _) = agree(&c);
                        if between == Between::Nothing {
                            assert_eq!(calls, 0, "{c:?}");
                        }
                    }
                }
            }
        }
        // LDS: the loads' and the store's window is the LDS.
        for between in [
            Between::Nothing,
            Between::Overwrite(0),
            Between::Scratch,
            Between::Atomic,
            Between::MultiStore,
        ] {
            for again in [false, true] {
                for mask in MASKS {
                    let c = Case {
                        mask: mask & full(wave),
                        space: Space::Lds,
                        between,
                        again,
                        ..Case::new(wave, 0x100, 0x600, 0xB00)
                    };
                    agree(&c);
                }
            }
        }
    }
}

#[test]
fn stores_from_the_loop_match_when_they_overlap_the_loads() {
    let (a, b) = (0x400u64, 0x900u64);
    for wave in [32u32, 64] {
        let n = 4 * wave as u64;
        // In place; overlapping the first load from below and above, by a group and by a
        // lane; exactly adjacent; the second load's bytes.
        let stores = [
            a,
            a + 16,
            a - 16,
            a + 4,
            a - 4,
            a + n,
            a - n,
            b,
            b + 8,
            b - 32,
        ];
        for c in stores {
            for again in [false, true] {
                for float in [false, true] {
                    for mask in [u64::MAX, 0x0000_FFFF_0000_FFFF] {
                        let case = Case {
                            mask: mask & full(wave),
                            again,
                            float,
                            ..Case::new(wave, a, b, c)
                        };
                        let (calls, _) = agree(&case);
                        assert_eq!(calls, 0, "{case:?}");
                        agree_with(&case, false);
                    }
                }
            }
        }
    }
}

#[test]
fn faults_at_the_window_edges_match() {
    for wave in [32u32, 64] {
        let n = 4 * wave as u64;
        let end = GLOBAL_LEN as u64;
        let ok = 0x200;
        // Each access in turn: its last lane one dword past the end, its lane 0 one dword
        // below the start, far away; and exactly at the end (no fault).
        for (a, b, c) in [
            (end - n + 4, ok, ok + 0x400),
            (ok, end - n + 4, ok + 0x400),
            (ok, ok + 0x400, end - n + 4),
            (u64::MAX - 3, ok, ok + 0x400),
            (ok, u64::MAX - 3, ok + 0x400),
            (ok, ok + 0x400, u64::MAX - 3),
            (ok, ok + 0x400, 1 << 40),
            (end - n, ok, end - 2 * n),
        ] {
            for between in [Between::Nothing, Between::Scratch, Between::Overwrite(0)] {
                for again in [false, true] {
                    for mask in MASKS {
                        let case = Case {
                            mask: mask & full(wave),
                            between,
                            again,
                            ..Case::new(wave, a, b, c)
                        };
                        agree(&case);
                    }
                }
            }
        }
        // The same at the LDS's end.
        let end = LDS_LEN as u64;
        for (a, b, c) in [
            (end - n + 4, ok, ok + 0x400),
            (ok, end - n + 4, ok + 0x400),
            (ok, ok + 0x400, end - n + 4),
            (end - n, ok, end - 2 * n),
        ] {
            for mask in MASKS {
                let case = Case {
                    mask: mask & full(wave),
                    space: Space::Lds,
                    again: true,
                    ..Case::new(wave, a, b, c)
                };
                agree(&case);
            }
        }
    }
}

/// Scalar loads after one that called into the environment (an unaligned address takes
/// the helper): each reads memory as it is after that call, through a window taken after
/// it (the JIT's environment moved its memory at the call).
#[test]
fn scalar_loads_after_an_environment_call_match() {
    for wave in [32u32, 64] {
        for first in [0x802u64, 0x800] {
            let mut b = Builder::new(0x100, wave);
            for (k, off) in [first, 0x808, 0x80C].into_iter().enumerate() {
                let at = c64(&mut b, BASE + off);
                let v = b.push(
                    Op::SLoad {
                        pc: 0x100 + 8 * k as u64,
                        addr: at,
                    },
                    Some(Ty::S32),
                );
                b.push(Op::SetSgpr(20 + k as u8, v), None);
            }
            let blk = b.finish(Exit::Jump(0x200));
            let case = Case::new(wave, 0x100, 0x600, 0xB00);
            agree_block(&blk, &case);
        }
    }
}
