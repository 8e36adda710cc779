//! The JIT's direct memory path (`jit::memory`) at its edges, against the interpreter (which
//! always goes through `WaveEnv::load`/`store`): windows hit exactly to their last byte,
//! one byte beyond, exec holes with inactive lanes far out of range, unaligned and
//! overlapping lanes, every size and extension, LDS and global. Each case also checks which
//! path the JIT took, by counting the requests that reached the environment and the calls
//! of the memory helpers (tier 1 is the generated code: lanes at a fixed stride, or any
//! lanes inside one window, `jit::lower::memory` `mem_plan`/`gather_load`/`gather_store`).

use wavejit_translator::env::{AtomicOp, FastMemory, MemError, Space, WaveEnv};
use wavejit_translator::interp::{run_block, test_env::FlatEnv};
use wavejit_translator::ir::*;
use wavejit_translator::jit::Jit;
use wavejit_translator::wave::WaveState;

pub(super) const BASE: u64 = 0x5000_0000;
pub(super) const GLOBAL_LEN: usize = 8192;
pub(super) const LDS_LEN: usize = 8192;

/// [`FlatEnv`] counting the loads and stores that reach it (the checked path).
struct Counting {
    inner: FlatEnv,
    slow: u32,
}

impl WaveEnv for Counting {
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
        self.slow += 1;
        self.inner.load(space, addrs, mask, size, out)
    }
    fn store(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        data: &[u64; 64],
    ) -> Result<(), MemError> {
        self.slow += 1;
        self.inner.store(space, addrs, mask, size, data)
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
        self.inner
            .atomic(space, op, addrs, mask, size, data, cmp, out)
    }
    fn scalar_load(&mut self, addr: u64, out: &mut [u32]) -> Result<(), MemError> {
        self.slow += 1;
        self.inner.scalar_load(addr, out)
    }
    fn scalar_store(&mut self, addr: u64, data: &[u32]) -> Result<(), MemError> {
        self.inner.scalar_store(addr, data)
    }
    fn clock(&mut self) -> u64 {
        self.inner.clock()
    }
}

/// A non-repeating, never-zero byte for offset `i` of a memory seeded `seed` (a 64-bit
/// mix of both: a path that reads the wrong offset, even one a power of two away, shows).
fn pattern_byte(seed: u64, i: usize) -> u8 {
    let mut x = (i as u64 ^ seed.rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 32;
    match x as u8 {
        0 => 0x81,
        b => b,
    }
}

/// Memory filled with a non-repeating byte pattern (no zeros, so reading nothing is visible).
pub(super) fn env() -> FlatEnv {
    let mut e = FlatEnv::new(BASE, GLOBAL_LEN, LDS_LEN, 16);
    for (i, b) in e.global.iter_mut().enumerate() {
        *b = pattern_byte(1, i);
    }
    for (i, b) in e.lds.iter_mut().enumerate() {
        *b = pattern_byte(2, i);
    }
    e
}

/// Registers poisoned with a pattern the loads overwrite.
pub(super) fn state() -> Box<WaveState> {
    let mut s = WaveState::new_boxed(64);
    for r in 0..8 {
        for l in 0..64 {
            s.vgpr[r][l] = 0xDEAD_0000 | (r as u32) << 8 | l as u32;
        }
    }
    s
}

/// One access: per-lane addresses `base + offs[l]` in `space`, lanes in `mask`.
#[derive(Clone, Copy)]
pub(super) struct Access {
    pub(super) space: Space,
    pub(super) offs: [u64; 64],
    pub(super) mask: u64,
    pub(super) size: u8,
}

impl Access {
    pub(super) fn new(space: Space, mask: u64, size: u8, off: impl Fn(usize) -> u64) -> Access {
        Access {
            space,
            offs: std::array::from_fn(off),
            mask,
            size,
        }
    }

    /// The `V64` address vector (offsets as two 32-bit halves, plus the space's base).
    fn addr(&self, b: &mut Builder) -> Val {
        let lo: [u32; 64] = std::array::from_fn(|l| self.offs[l] as u32);
        let hi: [u32; 64] = std::array::from_fn(|l| (self.offs[l] >> 32) as u32);
        let lo = b.push(Op::LaneConst(Box::new(lo)), Some(Ty::V32));
        let hi = b.push(Op::LaneConst(Box::new(hi)), Some(Ty::V32));
        let off = b.push(Op::Pack { lo, hi }, Some(Ty::V64));
        let base = if self.space == Space::Lds { 0 } else { BASE };
        let base = b.push(
            Op::Const {
                ty: Ty::S64,
                bits: base,
            },
            Some(Ty::S64),
        );
        let base = b.push(Op::Broadcast(base), Some(Ty::V64));
        b.push(Op::Bin(BinOp::Add, base, off), Some(Ty::V64))
    }

    fn mask(&self, b: &mut Builder) -> Val {
        b.push(
            Op::Const {
                ty: Ty::S64,
                bits: self.mask,
            },
            Some(Ty::S64),
        )
    }
}

fn all_lanes(b: &mut Builder) -> Val {
    b.push(
        Op::Const {
            ty: Ty::S64,
            bits: u64::MAX,
        },
        Some(Ty::S64),
    )
}

/// Writes `v` (`V32` or `V64`) to v0 (and v1 for the high halves) in every lane.
fn set_all(b: &mut Builder, v: Val, wide: bool) {
    let all = all_lanes(b);
    if wide {
        let lo = b.push(Op::Conv(ConvOp::Lo, v), Some(Ty::V32));
        let hi = b.push(Op::Conv(ConvOp::Hi, v), Some(Ty::V32));
        b.push(
            Op::SetVgpr {
                reg: 0,
                val: lo,
                mask: all,
            },
            None,
        );
        b.push(
            Op::SetVgpr {
                reg: 1,
                val: hi,
                mask: all,
            },
            None,
        );
    } else {
        b.push(
            Op::SetVgpr {
                reg: 0,
                val: v,
                mask: all,
            },
            None,
        );
    }
}

fn load_block(a: &Access, signed: bool) -> Block {
    load_block_w(a, signed, 64)
}

/// [`load_block`] for a wave of `wave` lanes.
pub(super) fn load_block_w(a: &Access, signed: bool, wave: u32) -> Block {
    let mut b = Builder::new(0x100, wave);
    let addr = a.addr(&mut b);
    let mask = a.mask(&mut b);
    let wide = a.size == 8;
    let ty = if wide { Ty::V64 } else { Ty::V32 };
    let v = b.push(
        Op::Load {
            pc: 0x100,
            space: a.space,
            addr,
            size: a.size,
            signed,
            mask,
        },
        Some(ty),
    );
    set_all(&mut b, v, wide);
    b.finish(Exit::Jump(0x200))
}

/// Stores lane data (v2, or v2:v3 for 8 bytes) built from the lane numbers.
fn store_block(a: &Access) -> Block {
    store_block_w(a, 64)
}

/// [`store_block`] for a wave of `wave` lanes.
pub(super) fn store_block_w(a: &Access, wave: u32) -> Block {
    let mut b = Builder::new(0x100, wave);
    let addr = a.addr(&mut b);
    let mask = a.mask(&mut b);
    let lo = b.push(Op::GetVgpr(2), Some(Ty::V32));
    let data = if a.size == 8 {
        let hi = b.push(Op::GetVgpr(3), Some(Ty::V32));
        b.push(Op::Pack { lo, hi }, Some(Ty::V64))
    } else {
        lo
    };
    b.push(
        Op::Store {
            pc: 0x100,
            space: a.space,
            addr,
            size: a.size,
            data,
            mask,
        },
        None,
    );
    b.finish(Exit::Jump(0x200))
}

/// A scalar dword load at `BASE + off` into s7.
fn sload_block(off: u64) -> Block {
    let mut b = Builder::new(0x100, 64);
    let addr = b.push(
        Op::Const {
            ty: Ty::S64,
            bits: BASE.wrapping_add(off),
        },
        Some(Ty::S64),
    );
    let v = b.push(Op::SLoad { pc: 0x100, addr }, Some(Ty::S32));
    b.push(Op::SetSgpr(7, v), None);
    b.finish(Exit::Jump(0x200))
}

/// Runs `block` in both engines and requires identical exits, registers and memory;
/// returns how many requests the JIT sent to the environment.
fn both(block: &Block) -> u32 {
    run_both(block).0
}

/// [`both`], also returning how many accesses called a memory helper (0: every access of
/// the block took the inline path of the generated code).
fn run_both(block: &Block) -> (u32, u32) {
    run_both_with(block, |_| {})
}

/// [`run_both`] from the usual state changed by `setup` (and of the block's wave size).
pub(super) fn run_both_with(block: &Block, setup: impl Fn(&mut WaveState)) -> (u32, u32) {
    let (slow, helpers, _) = run_both_multi(block, setup);
    (slow, helpers)
}

/// [`run_both_with`], also returning how many multi-dword accesses the JIT compiled as one
/// (`CompiledBlock::multi_accesses`).
fn run_both_multi(block: &Block, setup: impl Fn(&mut WaveState)) -> (u32, u32, u32) {
    let jit = Jit::new().expect("host JIT");
    let mut s0 = state();
    for l in 0..64 {
        s0.vgpr[2][l] = 0xA1B2_C3D4 ^ (l as u32).wrapping_mul(0x0101_0101);
        s0.vgpr[3][l] = 0x1F2E_3D4C ^ (l as u32) << 20;
    }
    s0.wave_size = block.wave_size;
    setup(&mut s0);
    let fresh = || {
        let mut s = state();
        s.wave_size = s0.wave_size;
        s.vgpr = s0.vgpr;
        s.sgpr = s0.sgpr;
        s
    };
    let (mut si, mut ei) = (fresh(), env());
    let ri = run_block(block, &mut si, &mut ei);
    let cb = jit.compile(block).expect("compiles");
    let mut sj = fresh();
    let mut ej = Counting {
        inner: env(),
        slow: 0,
    };
    let (rj, helpers) = cb.run_counting(&mut sj, &mut ej);
    assert_eq!(ri, rj, "exit\n{block}");
    assert_eq!(si.pc, sj.pc, "pc\n{block}");
    for r in 0..8 {
        assert_eq!(si.vgpr[r], sj.vgpr[r], "v{r}\n{block}");
    }
    assert_eq!(si.sgpr, sj.sgpr, "sgprs\n{block}");
    assert!(ei == ej.inner, "memory differs\n{block}");
    (ej.slow, helpers, cb.multi_accesses())
}

const MASKS: [u64; 6] = [
    u64::MAX,
    0xFFFF_FFFF,
    0x5555_5555_5555_5555,
    0x8000_0000_0000_0001,
    1 << 63,
    0,
];

#[test]
fn in_window_loads_take_the_direct_path_and_match() {
    for space in [Space::Global, Space::Flat, Space::Lds] {
        for size in [1u8, 2, 4, 8] {
            for signed in [false, true] {
                for mask in MASKS {
                    for (start, stride) in [(0u64, size as u64), (3, 5), (1, 0), (7, 2)] {
                        let a = Access::new(space, mask, size, |l| start + stride * l as u64);
                        assert_eq!(both(&load_block(&a, signed)), 0, "direct path expected");
                    }
                }
            }
        }
    }
}

#[test]
fn window_edges_and_exec_holes() {
    for (space, len) in [(Space::Global, GLOBAL_LEN), (Space::Lds, LDS_LEN)] {
        let len = len as u64;
        for size in [1u8, 2, 4, 8] {
            let sz = size as u64;
            // The highest lane ends exactly at the window's end: direct.
            let a = Access::new(space, u64::MAX, size, |l| len - sz - (63 - l as u64) * sz);
            assert_eq!(both(&load_block(&a, false)), 0);
            assert_eq!(both(&store_block(&a)), 0);
            // One byte further: lane 63 is out of range, the checked path decides.
            let a = Access::new(space, u64::MAX, size, |l| {
                len - sz + 1 - (63 - l as u64) * sz
            });
            assert_eq!(both(&load_block(&a, true)), 1);
            assert_eq!(both(&store_block(&a)), 1);
            // ... unless lane 63 is inactive.
            let a = Access {
                mask: u64::MAX >> 1,
                ..a
            };
            assert_eq!(both(&load_block(&a, true)), 0);
            assert_eq!(both(&store_block(&a)), 0);
            // Inactive lanes far outside any window never matter.
            let a = Access::new(space, 0x00FF_00F0_0F00_F00F, size, |l| {
                if 0x00FF_00F0_0F00_F00Fu64 >> l & 1 == 1 {
                    (l as u64 * 13) % (len - 8)
                } else {
                    u64::MAX - l as u64
                }
            });
            assert_eq!(both(&load_block(&a, false)), 0);
            assert_eq!(both(&store_block(&a)), 0);
            // A lane below the window (address wraps below the base): checked path.
            let a = Access::new(
                space,
                u64::MAX,
                size,
                |l| if l == 5 { u64::MAX - 2 } else { 8 },
            );
            assert_eq!(both(&load_block(&a, false)), 1);
            assert_eq!(both(&store_block(&a)), 1);
            // The active span ending past 2^64: checked path.
            let a = Access::new(space, 1 << 40, size, |_| u64::MAX - BASE);
            assert_eq!(both(&load_block(&a, false)), 1);
        }
    }
}

#[test]
fn overlapping_unaligned_stores_keep_lane_order() {
    for space in [Space::Global, Space::Lds] {
        for size in [1u8, 2, 4, 8] {
            for mask in MASKS {
                // Every lane writes the same bytes: the highest active lane wins.
                let a = Access::new(space, mask, size, |_| 13);
                both(&store_block(&a));
                // Lanes overlap their neighbours by all but one byte, unaligned.
                let a = Access::new(space, mask, size, |l| 101 + l as u64);
                assert_eq!(both(&store_block(&a)), 0);
            }
        }
    }
}

#[test]
fn scratch_stays_on_the_checked_path() {
    for mask in MASKS {
        let a = Access::new(Space::Scratch, mask, 4, |l| 4 * (l as u64 % 4));
        assert_eq!(both(&store_block(&a)), u32::from(mask != 0));
        assert_eq!(both(&load_block(&a, false)), u32::from(mask != 0));
    }
}

#[test]
fn scalar_loads_go_direct_when_aligned_and_inside() {
    let len = GLOBAL_LEN as u64;
    assert_eq!(both(&sload_block(0)), 0);
    assert_eq!(both(&sload_block(len - 4)), 0);
    // Past the end or below the base: the checked path faults.
    assert_eq!(both(&sload_block(len - 2)), 1);
    assert_eq!(both(&sload_block(len)), 1);
    assert_eq!(both(&sload_block(u64::MAX - 3)), 1);
    // Unaligned: the environment decides (FlatEnv reads the unaligned bytes).
    assert_eq!(both(&sload_block(6)), 1);
}

/// `n` dword loads at `addr + 4k` from one instruction (pc 0x100), as the lifter splits
/// `global_load_dwordx<n>`: the pieces' lanes are `4n` bytes apart. Results in v0..v<n>.
fn multi_load_block(a: &Access, n: u32) -> Block {
    multi_load_block_s(a, n, 4, false)
}

/// [`multi_load_block`] with pieces of `size` bytes (`signed`: sign-extended).
fn multi_load_block_s(a: &Access, n: u32, size: u8, signed: bool) -> Block {
    let mut b = Builder::new(0x100, 64);
    let addr = a.addr(&mut b);
    let mask = a.mask(&mut b);
    let all = all_lanes(&mut b);
    for k in 0..n {
        let off = b.push(
            Op::Const {
                ty: Ty::S64,
                bits: size as u64 * k as u64,
            },
            Some(Ty::S64),
        );
        let off = b.push(Op::Broadcast(off), Some(Ty::V64));
        let ak = b.push(Op::Bin(BinOp::Add, addr, off), Some(Ty::V64));
        let v = b.push(
            Op::Load {
                pc: 0x100,
                space: a.space,
                addr: ak,
                size,
                signed,
                mask,
            },
            Some(Ty::V32),
        );
        b.push(
            Op::SetVgpr {
                reg: k as u16,
                val: v,
                mask: all,
            },
            None,
        );
    }
    b.finish(Exit::Jump(0x200))
}

/// `n` dword stores of v2, v3, v2, ... at `addr + 4k` from one instruction (pc 0x100).
fn multi_store_block(a: &Access, n: u32) -> Block {
    multi_store_block_s(a, n, 4)
}

/// [`multi_store_block`] with pieces of `size` bytes (the low bytes of the registers).
fn multi_store_block_s(a: &Access, n: u32, size: u8) -> Block {
    let mut b = Builder::new(0x100, 64);
    let addr = a.addr(&mut b);
    let mask = a.mask(&mut b);
    for k in 0..n {
        let off = b.push(
            Op::Const {
                ty: Ty::S64,
                bits: size as u64 * k as u64,
            },
            Some(Ty::S64),
        );
        let off = b.push(Op::Broadcast(off), Some(Ty::V64));
        let ak = b.push(Op::Bin(BinOp::Add, addr, off), Some(Ty::V64));
        let data = b.push(Op::GetVgpr(2 + (k % 2) as u16), Some(Ty::V32));
        b.push(
            Op::Store {
                pc: 0x100,
                space: a.space,
                addr: ak,
                size,
                data,
                mask,
            },
            None,
        );
    }
    b.finish(Exit::Jump(0x200))
}

/// Whole dwords and qwords at consecutive lane addresses run inline (no helper call) in
/// every space with a window, aligned or not, for a full wave64, a full wave32, and, for
/// loads, any non-empty exec mask (exec holes, one lane, the top lane only).
#[test]
fn consecutive_dwords_and_qwords_run_inline() {
    for (space, len) in [
        (Space::Global, GLOBAL_LEN),
        (Space::Flat, GLOBAL_LEN),
        (Space::Lds, LDS_LEN),
    ] {
        for size in [4u8, 8] {
            let fits = |start: &u64| start + 64 * size as u64 <= len as u64;
            for start in [0u64, 3, 64].into_iter().filter(fits) {
                for mask in MASKS {
                    let a = Access::new(space, mask, size, |l| start + size as u64 * l as u64);
                    let (slow, helpers) = run_both(&load_block(&a, false));
                    assert_eq!(slow, 0);
                    // An empty mask goes to the helper (which reads nothing).
                    assert_eq!(
                        helpers,
                        u32::from(mask == 0),
                        "load {space:?} {size} {mask:#x}"
                    );
                    let (slow, helpers) = run_both(&store_block(&a));
                    assert_eq!(slow, 0);
                    // Stores with exec holes run inline too (the per-lane form).
                    assert_eq!(
                        helpers,
                        u32::from(mask == 0),
                        "store {space:?} {size} {mask:#x}"
                    );
                }
            }
        }
    }
}

/// The pieces of `global_load_dwordx2/x3/x4` (lanes 8, 12, 16 bytes apart) run inline,
/// loads and stores, with any non-empty exec mask; LDS pieces too (the per-lane form: LDS
/// lanes are expected at the element stride).
#[test]
fn multi_dword_pieces_run_inline() {
    for n in 2..=4u32 {
        for mask in [u64::MAX, 0xFFFF_FFFF, 0x0F0F_0000_0000_F0F1] {
            // The last piece of lane 63 ends at the window's end.
            let start = (GLOBAL_LEN - 4 * n as usize * 64) as u64;
            let a = Access::new(Space::Global, mask, 4, |l| start + 4 * n as u64 * l as u64);
            let (slow, helpers) = run_both(&multi_load_block(&a, n));
            assert_eq!((slow, helpers), (0, 0), "x{n} load {mask:#x}");
            let r = run_both(&multi_store_block(&a, n));
            assert_eq!(r, (0, 0), "x{n} store {mask:#x}");
        }
        if 4 * n as usize * 64 <= LDS_LEN {
            let a = Access::new(Space::Lds, u64::MAX, 4, |l| 4 * n as u64 * l as u64);
            assert_eq!(run_both(&multi_load_block(&a, n)), (0, 0));
            assert_eq!(run_both(&multi_store_block(&a, n)), (0, 0));
        }
    }
}

/// Edges of the inline path: the access ends exactly at the window's end (inline), one
/// byte beyond (helper; the checked path faults, reported with lane and pc), a wave32
/// access whose lanes 32..63 would lie outside (inline), inactive lanes outside (inline, the
/// per-lane form), addresses wrapping around 2^64 (helper, fault).
#[test]
fn inline_window_edges_wrap_and_faults() {
    for (space, len) in [(Space::Global, GLOBAL_LEN), (Space::Lds, LDS_LEN)] {
        let len = len as u64;
        for size in [1u8, 2, 4, 8] {
            let sz = size as u64;
            let at_end = |l: usize| len - sz * (64 - l as u64);
            let a = Access::new(space, u64::MAX, size, at_end);
            assert_eq!(run_both(&load_block(&a, false)), (0, 0));
            assert_eq!(run_both(&store_block(&a)), (0, 0));
            // One byte further: lane 63 faults on the checked path.
            let a = Access::new(space, u64::MAX, size, |l| at_end(l) + 1);
            assert_eq!(run_both(&load_block(&a, false)), (1, 1));
            assert_eq!(run_both(&store_block(&a)), (1, 1));
            let mut s = state();
            let mut e = env();
            let r = run_block(&load_block(&a, false), &mut s, &mut e);
            match r {
                Err(wavejit_translator::env::ExecFault::Memory(m)) => {
                    let t = m.to_string();
                    assert!(t.contains("lane 63"), "{t}");
                }
                other => panic!("expected a memory fault, got {other:?}"),
            }
            assert_eq!(s.pc, 0x100);
            // Wave32: lanes 32..63 inactive and beyond the end; the low half fits.
            let a = Access::new(space, 0xFFFF_FFFF, size, |l| {
                (len - 32 * sz).wrapping_add(sz * l as u64)
            });
            assert_eq!(run_both(&load_block(&a, false)), (0, 0));
            assert_eq!(run_both(&store_block(&a)), (0, 0));
            // Wave64 with lane 63 inactive and beyond: the span does not fit, the per-lane
            // form skips the inactive lane.
            let a = Access::new(space, u64::MAX >> 1, size, |l| at_end(l) + sz);
            assert_eq!(run_both(&load_block(&a, false)), (0, 0));
            assert_eq!(run_both(&store_block(&a)), (0, 0));
            // Consecutive lane addresses wrapping around 2^64: not inline; faults.
            let base = if space == Space::Lds { 0 } else { BASE };
            let a = Access::new(space, u64::MAX, size, |l| {
                (sz * l as u64).wrapping_sub(sz * 8).wrapping_sub(base)
            });
            assert_eq!(run_both(&load_block(&a, false)), (1, 1));
            assert_eq!(run_both(&store_block(&a)), (1, 1));
            // Below the window by one element: helper, fault.
            let a = Access::new(space, u64::MAX, size, |l| (sz * l as u64).wrapping_sub(sz));
            assert_eq!(run_both(&load_block(&a, false)), (1, 1));
        }
    }
}

/// Lanes that are not consecutive (same address, overlapping, reversed) run inline in the
/// per-lane form, which keeps lane order on overlap; scratch never runs inline.
#[test]
fn irregular_lanes_run_inline_in_lane_order() {
    for space in [Space::Global, Space::Lds] {
        for size in [1u8, 2, 4, 8] {
            let sz = size as u64;
            // One address for all lanes, neighbours overlapping (1 byte apart; bytes: 2
            // bytes apart), reversed.
            let step = if size == 1 { 2 } else { 1 };
            let offs: [&dyn Fn(usize) -> u64; 3] = [&|_| 40, &|l| 40 + step * l as u64, &|l| {
                sz * (63 - l as u64)
            }];
            for off in offs {
                let a = Access::new(space, u64::MAX, size, off);
                assert_eq!(run_both(&store_block(&a)), (0, 0));
                assert_eq!(run_both(&load_block(&a, false)), (0, 0));
            }
        }
    }
    let a = Access::new(Space::Scratch, u64::MAX, 4, |l| 4 * l as u64);
    assert_eq!(run_both(&load_block(&a, false)), (1, 1));
}

/// Scalar dword loads run inline when aligned and inside a window, else call the helper.
#[test]
fn scalar_loads_run_inline_when_aligned_and_inside() {
    let len = GLOBAL_LEN as u64;
    assert_eq!(run_both(&sload_block(0)), (0, 0));
    assert_eq!(run_both(&sload_block(len - 4)), (0, 0));
    assert_eq!(run_both(&sload_block(len)), (1, 1));
    assert_eq!(run_both(&sload_block(u64::MAX - 3)), (1, 1));
    assert_eq!(run_both(&sload_block(6)), (1, 1));
}

/// One active lane off the consecutive pattern: inside the window it runs inline (the
/// per-lane form); outside the window (past its end, or below its start) it sends the
/// whole access to the helper and the checked path (which faults at that lane, stores
/// nothing), wherever the lane is (every position of the four-lane loop) and whatever the
/// other lanes' activity; inactive, it does not matter.
#[test]
fn one_lane_off_the_pattern() {
    for (space, len) in [(Space::Global, GLOBAL_LEN), (Space::Lds, LDS_LEN)] {
        for size in [1u8, 2, 4, 8] {
            let sz = size as u64;
            // Every position in the loop's four lanes, both halves of the wave.
            for bad in [0usize, 1, 2, 3, 6, 29, 33, 63] {
                let hole = (bad * 7 + 3) % 64;
                for mask in [u64::MAX, !(1 << hole)] {
                    // The bad lane reads/writes another lane's element.
                    let a = Access::new(space, mask, size, |l| {
                        sz * if l == bad {
                            (l as u64 + 5) % 64
                        } else {
                            l as u64
                        }
                    });
                    assert_eq!(run_both(&load_block(&a, false)), (0, 0), "lane {bad}");
                    assert_eq!(run_both(&store_block(&a)), (0, 0), "lane {bad}");
                    // The bad lane's last byte one past the window's end, or one element
                    // below its start (LDS: out-of-range reads give 0, writes are dropped;
                    // global: a fault).
                    for out in [len as u64 - sz + 1, 0u64.wrapping_sub(sz)] {
                        let a = Access::new(space, mask, size, |l| {
                            if l == bad {
                                out
                            } else {
                                sz * l as u64
                            }
                        });
                        let r = run_both(&load_block(&a, true));
                        assert_eq!(r, (1, 1), "load lane {bad} {out:#x} {mask:#x}");
                        let r = run_both(&store_block(&a));
                        assert_eq!(r, (1, 1), "store lane {bad} {out:#x} {mask:#x}");
                        // Inactive, it does not matter.
                        let a = Access {
                            mask: mask & !(1 << bad),
                            ..a
                        };
                        assert_eq!(run_both(&load_block(&a, true)), (0, 0), "lane {bad}");
                        assert_eq!(run_both(&store_block(&a)), (0, 0), "lane {bad}");
                    }
                }
            }
        }
    }
}

/// Bytes and shorts at consecutive lane addresses run inline like dwords, zero- or
/// sign-extended (the pattern has bytes with the top bit set and clear), aligned or not,
/// for any non-empty exec mask, in every windowed space.
#[test]
fn consecutive_bytes_and_shorts_run_inline() {
    for (space, len) in [
        (Space::Global, GLOBAL_LEN),
        (Space::Flat, GLOBAL_LEN),
        (Space::Lds, LDS_LEN),
    ] {
        for size in [1u8, 2] {
            for start in [0u64, 1, 3, 130, len as u64 - 64 * size as u64] {
                for mask in MASKS {
                    let a = Access::new(space, mask, size, |l| start + size as u64 * l as u64);
                    for signed in [false, true] {
                        let (slow, helpers) = run_both(&load_block(&a, signed));
                        assert_eq!(slow, 0);
                        assert_eq!(
                            helpers,
                            u32::from(mask == 0),
                            "load {space:?} {size} {signed} {start} {mask:#x}"
                        );
                    }
                    let (slow, helpers) = run_both(&store_block(&a));
                    assert_eq!(slow, 0);
                    assert_eq!(
                        helpers,
                        u32::from(mask == 0),
                        "store {space:?} {size} {start} {mask:#x}"
                    );
                }
            }
        }
    }
}

/// Bytes and shorts whose lanes are further apart than their size (pieces of one
/// instruction, as the lifter makes of multi-element accesses): per-lane inline accesses.
#[test]
fn strided_bytes_and_shorts_run_inline() {
    for size in [1u8, 2] {
        for n in 2..=4u32 {
            let stride = size as u64 * n as u64;
            for mask in [u64::MAX, 0xFFFF_FFFF, 0x0F0F_0000_0000_F0F1] {
                // The last piece of lane 63 ends at the window's end.
                let start = GLOBAL_LEN as u64 - stride * 64;
                let a = Access::new(Space::Global, mask, size, |l| start + stride * l as u64);
                for signed in [false, true] {
                    let r = run_both(&multi_load_block_s(&a, n, size, signed));
                    assert_eq!(r, (0, 0), "{size}x{n} load {mask:#x}");
                }
                let r = run_both(&multi_store_block_s(&a, n, size));
                assert_eq!(r, (0, 0), "{size}x{n} store {mask:#x}");
                // One byte further: the last piece of lane 63 leaves the window (that piece
                // takes the helper; the checked path faults).
                let a = Access::new(Space::Global, u64::MAX, size, |l| {
                    start + 1 + stride * l as u64
                });
                assert_eq!(run_both(&multi_load_block_s(&a, n, size, false)), (1, 1));
            }
        }
    }
}

/// A wave32 block: its 32 lanes from lane 0's address (mask bits 32..63 ignored), lanes
/// 32..63 of the registers untouched, for every size; exec holes (loads and stores
/// inline too); the lanes that would follow lane 31 lie outside the window.
#[test]
fn wave32_accesses_run_inline() {
    for (space, len) in [(Space::Global, GLOBAL_LEN), (Space::Lds, LDS_LEN)] {
        let len = len as u64;
        for size in [1u8, 2, 4, 8] {
            let sz = size as u64;
            for start in [0u64, 5, len - 32 * sz] {
                for mask in [u64::MAX, 0xFFFF_FFFF, 0xFFFF_FFFF_0000_0000, 0x8000_0001] {
                    let lanes = mask & 0xFFFF_FFFF;
                    let a = Access::new(space, mask, size, |l| start + sz * l as u64);
                    for signed in [false, true] {
                        let r = run_both(&load_block_w(&a, signed, 32));
                        assert_eq!(r, (0, u32::from(lanes == 0)), "{space:?} {size} {mask:#x}");
                    }
                    let r = run_both(&store_block_w(&a, 32));
                    assert_eq!(r, (0, u32::from(lanes == 0)), "{space:?} {size} {mask:#x}");
                }
            }
            // Lane 31's access one byte past the end: the checked path faults.
            let a = Access::new(space, u64::MAX, size, |l| len - 32 * sz + 1 + sz * l as u64);
            assert_eq!(run_both(&load_block_w(&a, false, 32)), (1, 1));
            assert_eq!(run_both(&store_block_w(&a, 32)), (1, 1));
        }
    }
}

/// Real GFX9 sub-dword instructions (encodings from `llvm-mc-22 -mcpu=gfx942
/// -show-encoding`), lifted and run in both engines: the d16 loads keep the other half of
/// their VGPR, `_hi` forms write the high half, byte/short stores of the low or (`_d16_hi`)
/// high half. Shorts at `v[4:5] = BASE + 2 * lane`, bytes at `v[6:7] = BASE + lane`; all
/// accesses inline, for a full EXEC and a partial one.
#[test]
fn lifted_d16_and_byte_instructions_run_inline() {
    use wavejit_translator::env::CodeSource;
    use wavejit_translator::isa::{Gpu, Target};
    struct Code(Vec<u8>);
    impl CodeSource for Code {
        fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
            self.0.get(usize::try_from(pc.checked_sub(0x100)?).ok()?..)
        }
    }
    #[rustfmt::skip]
    let words: [u32; 22] = [
        0xdc908000, 0x017f0004, // global_load_short_d16 v1, v[4:5], off
        0xdc948002, 0x017f0004, // global_load_short_d16_hi v1, v[4:5], off offset:2
        0xdc808005, 0x027f0006, // global_load_ubyte_d16 v2, v[6:7], off offset:5
        0xdc8c8007, 0x027f0006, // global_load_sbyte_d16_hi v2, v[6:7], off offset:7
        0xdc848000, 0x037f0006, // global_load_ubyte_d16_hi v3, v[6:7], off
        0xdc888001, 0x037f0006, // global_load_sbyte_d16 v3, v[6:7], off offset:1
        0xdc4c8003, 0x007f0004, // global_load_sshort v0, v[4:5], off offset:3
        0xdc6c8100, 0x007f0104, // global_store_short_d16_hi v[4:5], v1, off offset:256
        0xdc648180, 0x007f0206, // global_store_byte_d16_hi v[6:7], v2, off offset:384
        0xdc6081c0, 0x007f0306, // global_store_byte v[6:7], v3, off offset:448
        0xbf810000, 0xbf810000, // s_endpgm (twice: the block ends at the first)
    ];
    let code = Code(words.iter().flat_map(|w| w.to_le_bytes()).collect());
    let block = wavejit_translator::lift::lift_block(&Target::new(Gpu::GFX942), &code, 0x100, 0);
    assert!(matches!(block.exit, Exit::EndPgm), "{block}");
    for exec in [u64::MAX, 0xF0F0_0000_FFFF_0001] {
        let setup = |s: &mut WaveState| {
            for l in 0..64 {
                let (short, byte) = (BASE + 2 * l as u64, BASE + l as u64);
                s.vgpr[4][l] = short as u32;
                s.vgpr[5][l] = (short >> 32) as u32;
                s.vgpr[6][l] = byte as u32;
                s.vgpr[7][l] = (byte >> 32) as u32;
            }
            s.set_exec(exec);
        };
        assert_eq!(run_both_with(&block, setup), (0, 0), "{exec:#x}");
    }
}

/// Lane 1 and the last lane are tested first (a quick rejection before the whole-wave
/// fixed-stride test): off the pattern and active they send the access to the per-lane
/// form (inline too), off the pattern and inactive they do not matter; both wave sizes.
#[test]
fn quick_rejection_lanes_count_only_when_active() {
    for wave in [64u32, 32] {
        let last = wave as usize - 1;
        for size in [1u8, 2, 4, 8] {
            let sz = size as u64;
            for odd in [1, last] {
                let a = |mask: u64| {
                    Access::new(Space::Global, mask, size, |l| {
                        if l == odd {
                            900 - 2 * sz
                        } else {
                            sz * l as u64
                        }
                    })
                };
                let all = u64::MAX >> (64 - wave);
                let r = run_both(&load_block_w(&a(all), true, wave));
                assert_eq!(r, (0, 0), "wave{wave} size {size} lane {odd} active");
                let r = run_both(&store_block_w(&a(all), wave));
                assert_eq!(r, (0, 0), "wave{wave} size {size} lane {odd} active");
                let r = run_both(&load_block_w(&a(all & !(1 << odd)), true, wave));
                assert_eq!(r, (0, 0), "wave{wave} size {size} lane {odd} inactive");
            }
        }
    }
}

/// Lanes at any fixed stride (positive, negative, zero, unaligned, wider than a window's
/// share) and the patterns of the tiled GEMMs (two half-waves at one stride, pairs, runs of
/// 16 lanes, replicated half-waves), every size and extension, exec masks with holes, wave64
/// and wave32, global, FLAT and LDS: inline (no helper, no environment call) whenever every
/// active lane's bytes lie in the window, identical to the interpreter.
#[test]
fn any_stride_and_tiled_patterns_run_inline() {
    type Pattern = (&'static str, fn(u64, usize) -> i64);
    // Offsets from the first lane, in units of the element size `s` where a pattern is
    // a stride (the start is chosen so that every lane lies inside).
    let patterns: [Pattern; 9] = [
        ("stride 80", |_, l| 80 * l as i64),
        ("stride -80", |_, l| -80 * l as i64),
        ("stride -s", |s, l| -(s as i64) * l as i64),
        ("stride 0", |_, _| 0),
        ("stride 3", |_, l| 3 * l as i64),
        ("halves +32", |_, l| {
            80 * (l % 32) as i64 + 32 * (l / 32) as i64
        }),
        ("pairs", |_, l| 80 * (l / 2) as i64 + 32 * (l % 2) as i64),
        ("runs of 16", |s, l| {
            40 * (l / 16) as i64 + s as i64 * (l % 16) as i64
        }),
        ("replicated 16", |_, l| 80 * (l % 16) as i64),
    ];
    for (space, len) in [
        (Space::Global, GLOBAL_LEN),
        (Space::Flat, GLOBAL_LEN),
        (Space::Lds, LDS_LEN),
    ] {
        let len = len as i64;
        for size in [1u8, 2, 4, 8] {
            for (name, f) in patterns {
                let offs: Vec<i64> = (0..64).map(|l| f(size as u64, l)).collect();
                let (lo, hi) = (*offs.iter().min().unwrap(), *offs.iter().max().unwrap());
                assert!(hi - lo + size as i64 <= len, "{name} fits");
                // Flush with the window's end: the highest lane's last byte is the window's.
                let start = len - size as i64 - hi;
                let cases = [
                    (64u32, u64::MAX),
                    (64, 0x5555_5555_5555_5555),
                    (64, 0x8000_0000_0000_0001),
                    (64, 0),
                    (32, u64::MAX),
                    (32, 0xFFFF_0000_0000_8001),
                ];
                for (wave, mask) in cases {
                    let a = Access::new(space, mask, size, |l| (start + offs[l]) as u64);
                    let lanes = mask & (u64::MAX >> (64 - wave));
                    let want = (0, u32::from(lanes == 0));
                    // Extension only matters below a dword.
                    for signed in [false, true].into_iter().take(if size < 4 { 2 } else { 1 }) {
                        let r = run_both(&load_block_w(&a, signed, wave));
                        assert_eq!(r, want, "load {space:?} {size} {name} {mask:#x} w{wave}");
                    }
                    let r = run_both(&store_block_w(&a, wave));
                    assert_eq!(r, want, "store {space:?} {size} {name} {mask:#x} w{wave}");
                }
                // One byte further: the highest lane's access crosses the window's end (the
                // checked path decides; nothing is stored inline first).
                let a = Access::new(space, u64::MAX, size, |l| (start + 1 + offs[l]) as u64);
                let top = (0..64).max_by_key(|&l| (offs[l], l)).unwrap_or(0);
                assert_eq!(run_both(&load_block(&a, false)), (1, 1), "{name}");
                assert_eq!(run_both(&store_block(&a)), (1, 1), "{name}");
                // ... unless every lane that crosses it is inactive.
                let crossing: u64 = (0..64)
                    .filter(|&l| offs[l] == offs[top])
                    .fold(0, |m, l| m | 1 << l);
                let a = Access {
                    mask: !crossing,
                    ..a
                };
                if a.mask != 0 {
                    assert_eq!(run_both(&load_block(&a, true)), (0, 0), "{name}");
                    assert_eq!(run_both(&store_block(&a)), (0, 0), "{name}");
                }
            }
        }
    }
}

/// Two lanes writing the same bytes: the higher active lane's value remains, inline as on
/// the checked path, for every pair position of the four-lane loop and exec holes.
#[test]
fn colliding_lanes_store_in_lane_order_inline() {
    for space in [Space::Global, Space::Lds] {
        for size in [1u8, 2, 4, 8] {
            let sz = size as u64;
            for (x, y) in [(0usize, 1usize), (1, 2), (2, 3), (3, 4), (5, 62), (62, 63)] {
                for mask in [u64::MAX, !(1u64 << y), !(1u64 << x), 0x5555_5555_5555_5555] {
                    let a = Access::new(space, mask, size, |l| {
                        sz * if l == y { x as u64 } else { l as u64 }
                    });
                    assert_eq!(run_both(&store_block(&a)), (0, 0), "{x} {y} {mask:#x}");
                }
            }
        }
    }
}

/// The dword pieces of one multi-dword load (`global_load_dwordx2..x4`, `ds_read_b64..b128`:
/// loads of one pc at `+4k`) at lanes of the tiled GEMMs' patterns, loaded together when
/// every active lane's `4n` bytes lie in one window; when the last piece of one lane
/// crosses the window's end, every piece takes the helper (the pieces before it its direct
/// path, that piece the checked path, which decides: a fault for global, zeros for LDS).
#[test]
fn multi_dword_pieces_at_any_lanes() {
    type Pattern = (&'static str, fn(usize) -> u64);
    let patterns: [Pattern; 4] = [
        ("halves", |l| 80 * (l % 32) as u64 + 32 * (l / 32) as u64),
        ("pairs", |l| 48 * (l / 2) as u64 + 16 * (l % 2) as u64),
        ("replicated 16", |l| 80 * (l % 16) as u64),
        ("reversed", |l| 16 * (63 - l) as u64),
    ];
    for (space, len) in [(Space::Global, GLOBAL_LEN), (Space::Lds, LDS_LEN)] {
        for n in 2..=4u32 {
            for (name, f) in patterns {
                let hi = (0..64).map(f).max().unwrap_or(0);
                assert!(hi + 4 * n as u64 <= len as u64, "{name} fits");
                // The last piece of the highest lane ends at the window's end.
                let start = len as u64 - 4 * n as u64 - hi;
                for mask in [u64::MAX, 0xFFFF_FFFF, 0x0F0F_0000_0000_F0F1, 1 << 63] {
                    let a = Access::new(space, mask, 4, |l| start + f(l));
                    let r = run_both(&multi_load_block(&a, n));
                    assert_eq!(r, (0, 0), "{space:?} x{n} {name} {mask:#x}");
                }
                // One byte further: the last piece of the highest lane crosses the end.
                let a = Access::new(space, u64::MAX, 4, |l| start + 1 + f(l));
                let r = run_both(&multi_load_block(&a, n));
                assert_eq!(r, (1, n), "{space:?} x{n} {name} crossing");
            }
        }
    }
}

/// How [`multi_block`] lays out a multi-dword access.
#[derive(Clone, Copy, Debug)]
struct MultiShape {
    load: bool,
    /// Loads: the registers are written with the load's mask (as the lifter does), else
    /// with the constant all-ones mask.
    exec_write: bool,
    /// Loads: each register written right after its piece, else all after the last piece
    /// (the lifter's order).
    interleave: bool,
    /// Stores: the data computed (an XOR of the register), else read as a register.
    computed: bool,
}

/// The dword pieces of one instruction (pc 0x100) at byte offsets `offs` from the lanes'
/// addresses, as the lifter makes them: each piece's address an add of a broadcast
/// constant; loads into v0.., stores of v2, v3, v2, ... (or values computed from them).
fn multi_block(a: &Access, offs: &[u64], sh: MultiShape, wave: u32) -> Block {
    let mut b = Builder::new(0x100, wave);
    let addr = a.addr(&mut b);
    let mask = a.mask(&mut b);
    let all = all_lanes(&mut b);
    let wm = if sh.exec_write { mask } else { all };
    let mut data = Vec::new();
    if !sh.load {
        for k in 0..offs.len() {
            let r = b.push(Op::GetVgpr(2 + (k % 2) as u16), Some(Ty::V32));
            data.push(if sh.computed {
                let c = b.push(
                    Op::Const {
                        ty: Ty::S32,
                        bits: 0x5A5A_0000 | k as u64,
                    },
                    Some(Ty::S32),
                );
                let c = b.push(Op::Broadcast(c), Some(Ty::V32));
                b.push(Op::Bin(BinOp::Xor, r, c), Some(Ty::V32))
            } else {
                r
            });
        }
    }
    let mut loaded = Vec::new();
    for (k, &off) in offs.iter().enumerate() {
        let o = b.push(
            Op::Const {
                ty: Ty::S64,
                bits: off,
            },
            Some(Ty::S64),
        );
        let o = b.push(Op::Broadcast(o), Some(Ty::V64));
        let ak = b.push(Op::Bin(BinOp::Add, addr, o), Some(Ty::V64));
        if sh.load {
            let v = b.push(
                Op::Load {
                    pc: 0x100,
                    space: a.space,
                    addr: ak,
                    size: 4,
                    signed: false,
                    mask,
                },
                Some(Ty::V32),
            );
            if sh.interleave {
                let reg = k as u16;
                b.push(
                    Op::SetVgpr {
                        reg,
                        val: v,
                        mask: wm,
                    },
                    None,
                );
            } else {
                loaded.push(v);
            }
        } else {
            b.push(
                Op::Store {
                    pc: 0x100,
                    space: a.space,
                    addr: ak,
                    size: 4,
                    data: data[k],
                    mask,
                },
                None,
            );
        }
    }
    for (k, &v) in loaded.iter().enumerate() {
        let reg = k as u16;
        b.push(
            Op::SetVgpr {
                reg,
                val: v,
                mask: wm,
            },
            None,
        );
    }
    b.finish(Exit::Jump(0x200))
}

/// Multi-dword accesses (`global_load_dwordx2..4`, `ds_read_b64..b128`, `ds_read2_b32` and
/// the stores) compiled as one: at the tiled GEMMs' lane patterns, with exec holes, wave64
/// and wave32, loads written with the exec mask or all-ones, stores of registers or computed
/// values, the separate stores' order kept where lanes overlap (stride 4, stride 0): when
/// every active lane's bytes lie in one window, no helper runs; one byte beyond the window,
/// every piece takes its helper. Identical to the interpreter throughout.
#[test]
fn multi_dword_accesses_run_as_one() {
    type Pattern = (&'static str, fn(usize) -> u64);
    let patterns: [Pattern; 7] = [
        ("stride 80", |l| 80 * l as u64),
        ("halves", |l| 80 * (l % 32) as u64 + 32 * (l / 32) as u64),
        ("pairs", |l| 48 * (l / 2) as u64 + 16 * (l % 2) as u64),
        ("replicated 16", |l| 80 * (l % 16) as u64),
        ("reversed", |l| 16 * (63 - l) as u64),
        ("stride 4 (overlapping)", |l| 4 * l as u64),
        ("stride 0 (overlapping)", |_| 0),
    ];
    let offsets: [&[u64]; 5] = [&[0, 4, 8, 12], &[0, 4], &[0, 4, 8], &[0, 80], &[0, 1020]];
    let shapes = [
        (true, true, false, false),
        (true, false, true, false),
        (false, false, false, false),
        (false, false, false, true),
    ]
    .map(|(load, exec_write, interleave, computed)| MultiShape {
        load,
        exec_write,
        interleave,
        computed,
    });
    for (space, len) in [(Space::Global, GLOBAL_LEN), (Space::Lds, LDS_LEN)] {
        for offs in offsets {
            let span = offs.iter().max().unwrap_or(&0) + 4;
            for (name, f) in patterns {
                let hi = (0..64).map(f).max().unwrap_or(0);
                // The farthest piece of the highest lane ends at the window's end.
                let start = len as u64 - span - hi;
                for sh in shapes {
                    for (wave, mask) in [
                        (64u32, u64::MAX),
                        (64, 0x0F0F_0000_0000_F0F1),
                        (64, 1 << 63),
                        (32, u64::MAX),
                        (32, 0x8000_0001_7000_0002),
                    ] {
                        let a = Access::new(space, mask, 4, |l| start + f(l));
                        let r = run_both_multi(&multi_block(&a, offs, sh, wave), |_| {});
                        let what = format!("{space:?} {offs:?} {name} {sh:?} w{wave} {mask:#x}");
                        assert_eq!(r, (0, 0, 1), "{what}");
                    }
                    // One byte further: the highest lane's farthest piece crosses the end.
                    let a = Access::new(space, u64::MAX, 4, |l| start + 1 + f(l));
                    let (slow, helpers, multi) =
                        run_both_multi(&multi_block(&a, offs, sh, 64), |_| {});
                    let what = format!("{space:?} {offs:?} {name} {sh:?} crossing");
                    assert_eq!(multi, 1, "{what}");
                    assert!(slow >= 1, "{what}");
                    // Global stores stop at the faulting piece; LDS ones drop the bytes.
                    let faults = space == Space::Global && !sh.load;
                    if !faults {
                        assert_eq!(helpers, offs.len() as u32, "{what}");
                    }
                }
            }
        }
    }
}

/// What is not one multi-dword access keeps the separate pieces: a piece whose value is
/// used again, or two pieces writing one register.
#[test]
fn multi_dword_lookalikes_stay_separate() {
    let a = Access::new(Space::Lds, u64::MAX, 4, |l| 16 * l as u64);
    let mut b = Builder::new(0x100, 64);
    let addr = a.addr(&mut b);
    let mask = a.mask(&mut b);
    let mut vs = Vec::new();
    for (k, off) in [0u64, 4].into_iter().enumerate() {
        let o = b.push(
            Op::Const {
                ty: Ty::S64,
                bits: off,
            },
            Some(Ty::S64),
        );
        let o = b.push(Op::Broadcast(o), Some(Ty::V64));
        let ak = b.push(Op::Bin(BinOp::Add, addr, o), Some(Ty::V64));
        let v = b.push(
            Op::Load {
                pc: 0x100,
                space: a.space,
                addr: ak,
                size: 4,
                signed: false,
                mask,
            },
            Some(Ty::V32),
        );
        b.push(
            Op::SetVgpr {
                reg: k as u16,
                val: v,
                mask,
            },
            None,
        );
        vs.push(v);
    }
    // The first piece once more, into v2.
    b.push(
        Op::SetVgpr {
            reg: 2,
            val: vs[0],
            mask,
        },
        None,
    );
    let blk = b.finish(Exit::Jump(0x200));
    assert_eq!(run_both_multi(&blk, |_| {}), (0, 0, 0));
    let sh = MultiShape {
        load: true,
        exec_write: true,
        interleave: true,
        computed: false,
    };
    let mut blk = multi_block(&a, &[0, 4, 8], sh, 64);
    // Pieces 1 and 2 into the same register (no two consecutive pieces qualify).
    let mut seen = 0;
    for op in blk.ops.iter_mut() {
        if let Op::SetVgpr { reg, .. } = op {
            if seen == 2 {
                *reg = 1;
            }
            seen += 1;
        }
    }
    assert_eq!(run_both_multi(&blk, |_| {}), (0, 0, 0));
}

/// A block with more than 64 vector loads and stores (a GEMM's epilogue) gives its single
/// accesses no inline code: each goes to its helper (whose direct path still serves it, no
/// environment call); with 64 they run inline. Identical results either way.
#[test]
fn blocks_with_many_accesses_use_the_helpers() {
    for n in [64u32, 65] {
        let mut b = Builder::new(0x100, 64);
        let data = b.push(Op::GetVgpr(2), Some(Ty::V32));
        let mask = all_lanes(&mut b);
        for k in 0..n {
            // Lane l at 4l + 40k: each store at its own pc, overlapping the previous ones.
            let a = Access::new(Space::Global, u64::MAX, 4, |l| 4 * l as u64 + 40 * k as u64);
            let addr = a.addr(&mut b);
            b.push(
                Op::Store {
                    pc: 0x100 + 8 * k as u64,
                    space: Space::Global,
                    addr,
                    size: 4,
                    data,
                    mask,
                },
                None,
            );
        }
        let blk = b.finish(Exit::Jump(0x200));
        let want = if n > 64 { (0, n) } else { (0, 0) };
        assert_eq!(run_both(&blk), want, "{n} stores");
    }
}

/// A multi-dword load into a register slot beyond the register file is not compiled as one
/// (its `SetVgpr` is rejected as usual: the block is not compiled, nothing is written).
#[test]
fn multi_dword_load_into_a_slot_out_of_range_is_rejected() {
    let a = Access::new(Space::Lds, u64::MAX, 4, |l| 16 * l as u64);
    let sh = MultiShape {
        load: true,
        exec_write: true,
        interleave: false,
        computed: false,
    };
    let mut blk = multi_block(&a, &[0, 4, 8, 12], sh, 64);
    let last = blk
        .ops
        .iter_mut()
        .rev()
        .find_map(|op| match op {
            Op::SetVgpr { reg, .. } => Some(reg),
            _ => None,
        })
        .expect("a register write");
    *last = wavejit_translator::wave::NUM_VREGS as u16;
    let jit = Jit::new().expect("host JIT");
    assert!(jit.compile(&blk).is_err());
}

/// Shape of [`sload_runs_block`]: where its vector store goes, if anywhere.
#[derive(Clone, Copy, Debug)]
enum RunStore {
    /// No store: every scalar load of a root forms one run.
    None,
    /// Between the second and third load of the first run, over the dwords the third and
    /// fourth read (the run must end there: those read what the store wrote).
    Aliasing,
}

/// Scalar loads as the lifter emits them for `s_load_dwordx4 s[10:13], s[0:1], off` and
/// `s_load_dwordx2 s[20:21], s[0:1], off + 16` (one `Pack` of s0/s1 each, `& !3`, then `+ 4k`;
/// each dword its own pc), plus two loads at `s[0:1] + 3` and `+ 7` (no mask, so misaligned
/// when s[0:1] is aligned) and two at `(s[0:1] + off + 1) & !3` + 0, + 4 (a mask of an
/// unaligned sum: the masked value is the root). Vector work between the loads; the
/// results go to SGPRs 10.. and v4.
fn sload_runs_block(off: u64, store: RunStore, store_at: u64, wave: u32) -> Block {
    let mut b = Builder::new(0x100, wave);
    let c = |b: &mut Builder, bits: u64| b.push(Op::Const { ty: Ty::S64, bits }, Some(Ty::S64));
    let pack = |b: &mut Builder| {
        let lo = b.push(Op::GetSgpr(0), Some(Ty::S32));
        let hi = b.push(Op::GetSgpr(1), Some(Ty::S32));
        b.push(Op::Pack { lo, hi }, Some(Ty::S64))
    };
    let mut pc = 0x100;
    let mut sgpr = 10u8;
    let mut load = |b: &mut Builder, base: Val, k: u64| {
        let ck = c(b, k);
        let addr = b.push(Op::Bin(BinOp::Add, base, ck), Some(Ty::S64));
        let v = b.push(Op::SLoad { pc, addr }, Some(Ty::S32));
        b.push(Op::SetSgpr(sgpr, v), None);
        pc += 8;
        sgpr += 1;
        v
    };
    let notthree = c(&mut b, !3);
    // s_load_dwordx4 at (s[0:1] + off) & !3.
    let p = pack(&mut b);
    let co = c(&mut b, off);
    let x = b.push(Op::Bin(BinOp::Add, p, co), Some(Ty::S64));
    let a = b.push(Op::Bin(BinOp::And, x, notthree), Some(Ty::S64));
    let first = load(&mut b, a, 0);
    load(&mut b, a, 4);
    let mask = all_lanes(&mut b);
    if let RunStore::Aliasing = store {
        let acc = Access::new(Space::Global, 0b11, 4, |l| store_at + 4 * l as u64);
        let addr = acc.addr(&mut b);
        let data = b.push(Op::GetVgpr(2), Some(Ty::V32));
        let m = acc.mask(&mut b);
        b.push(
            Op::Store {
                pc: 0x400,
                space: Space::Global,
                addr,
                size: 4,
                data,
                mask: m,
            },
            None,
        );
    }
    load(&mut b, a, 8);
    load(&mut b, a, 12);
    // Vector work between runs (a lane-group run in the JIT).
    let v3 = b.push(Op::GetVgpr(3), Some(Ty::V32));
    let bf = b.push(Op::Broadcast(first), Some(Ty::V32));
    let sum = b.push(Op::Bin(BinOp::Add, v3, bf), Some(Ty::V32));
    b.push(
        Op::SetVgpr {
            reg: 4,
            val: sum,
            mask,
        },
        None,
    );
    // s_load_dwordx2 at (s[0:1] + off + 16) & !3, from a second pack of s0/s1.
    let p2 = pack(&mut b);
    let co = c(&mut b, off.wrapping_add(16));
    let x = b.push(Op::Bin(BinOp::Add, p2, co), Some(Ty::S64));
    let a2 = b.push(Op::Bin(BinOp::And, x, notthree), Some(Ty::S64));
    load(&mut b, a2, 0);
    load(&mut b, a2, 4);
    // Unmasked: s[0:1] + 3 and + 7.
    let p3 = pack(&mut b);
    load(&mut b, p3, 3);
    load(&mut b, p3, 7);
    // A mask of an unaligned sum: (s[0:1] + off + 1) & !3, then + 0 and + 4.
    let co = c(&mut b, off.wrapping_add(1));
    let x = b.push(Op::Bin(BinOp::Add, p3, co), Some(Ty::S64));
    let a4 = b.push(Op::Bin(BinOp::And, x, notthree), Some(Ty::S64));
    load(&mut b, a4, 0);
    load(&mut b, a4, 4);
    b.finish(Exit::Jump(0x200))
}

/// Runs of scalar loads from one base (`jit::lower::memory::sload_run`: one window test
/// for the run, its dwords read at its first load) against the interpreter, compiled once
/// per shape and run from many bases: in one window, unaligned bases, runs crossing the
/// window's end, starting below it or far away (faults: same exit, pc, address), runs
/// crossing between two windows, and a vector store between two loads of a run that writes
/// what the later ones read. Registers start poisoned, memory is non-repeating; SGPRs,
/// VGPRs, memory and the exit must match, wave32 and wave64.
#[test]
fn scalar_load_runs_match_the_interpreter() {
    let len = GLOBAL_LEN as u64;
    let bases: [u64; 14] = [
        0,
        4,
        1,
        2,
        3,
        100,
        len / 2 - 8,
        len / 2 - 20,
        len - 64,
        len - 16,
        len - 8,
        len - 3,
        0u64.wrapping_sub(8),
        1 << 40,
    ];
    let jit = Jit::new().expect("host JIT");
    let mut completed = 0;
    for wave in [32u32, 64] {
        for off in [0u64, 44, 2] {
            for store in [RunStore::None, RunStore::Aliasing] {
                for windows in [1usize, 2] {
                    for &base in &bases {
                        let at = (base.wrapping_add(off) & !3).wrapping_add(8);
                        let blk = sload_runs_block(off, store, at, wave);
                        let cb = jit.compile(&blk).expect("compiles");
                        let mut s0 = state();
                        s0.wave_size = wave;
                        for (i, r) in s0.sgpr.iter_mut().enumerate() {
                            *r = 0xBAD0_0000 | i as u32;
                        }
                        let addr = BASE.wrapping_add(base);
                        s0.sgpr[0] = addr as u32;
                        s0.sgpr[1] = (addr >> 32) as u32;
                        let fresh = || {
                            let mut s = state();
                            s.wave_size = s0.wave_size;
                            s.vgpr = s0.vgpr;
                            s.sgpr = s0.sgpr;
                            s
                        };
                        let what =
                            format!("w{wave} off {off} {store:?} {windows} windows base {base:#x}");
                        let (mut si, mut ei) = (fresh(), env());
                        ei.windows = windows;
                        let ri = run_block(&blk, &mut si, &mut ei);
                        let mut sj = fresh();
                        let mut ej = Counting {
                            inner: env(),
                            slow: 0,
                        };
                        ej.inner.windows = windows;
                        let (rj, _) = cb.run_counting(&mut sj, &mut ej);
                        assert_eq!(ri, rj, "exit: {what}");
                        assert_eq!(si.pc, sj.pc, "pc: {what}");
                        assert_eq!(si.sgpr, sj.sgpr, "sgprs: {what}");
                        for r in 0..8 {
                            assert_eq!(si.vgpr[r], sj.vgpr[r], "v{r}: {what}");
                        }
                        assert!(ei == ej.inner, "memory differs: {what}");
                        // Loaded dwords differ from their poisoned registers.
                        if ri.is_ok() {
                            completed += 1;
                            assert_ne!(si.sgpr[10], 0xBAD0_000A, "{what}");
                        }
                    }
                }
            }
        }
    }
    assert!(completed > 100, "{completed} runs without a fault");
}
