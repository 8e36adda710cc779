//! Shared harness of the lifter tests: a Vec-backed [`WaveEnv`], a code buffer, a
//! deterministic random wave state, and a runner that lifts and interprets blocks until the
//! program ends.
#![allow(dead_code)]

pub mod f8;
pub mod mx;

use wavejit_translator::env::{
    AtomicOp, CodeSource, ExecFault, ExitCode, MemError, Space, WaveEnv, PRIVATE_APERTURE_BASE,
    SHARED_APERTURE_BASE,
};
use wavejit_translator::interp::run_block;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::lift::lift_block;
use wavejit_translator::wave::WaveState;

/// Address at which test code is placed.
pub const CODE_BASE: u64 = 0x1_0000;

/// Code bytes at [`CODE_BASE`].
pub struct Code(pub Vec<u8>);

impl Code {
    /// Code from little-endian instruction words.
    pub fn from_words(words: &[u32]) -> Code {
        Code(words.iter().flat_map(|w| w.to_le_bytes()).collect())
    }
}

impl CodeSource for Code {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        let off = pc.checked_sub(CODE_BASE)? as usize;
        if off < self.0.len() {
            Some(&self.0[off..])
        } else {
            None
        }
    }
}

/// Vec-backed memory: global regions, one LDS, per-lane scratch.
#[derive(Clone, PartialEq)]
pub struct Mem {
    /// `(base address, bytes)`.
    pub global: Vec<(u64, Vec<u8>)>,
    /// LDS bytes.
    pub lds: Vec<u8>,
    /// Scratch per lane.
    pub scratch: Vec<Vec<u8>>,
    /// Clock value returned by `clock`.
    pub clock: u64,
}

impl Mem {
    /// Empty memory with `lds` bytes of LDS (filled with a non-zero pattern).
    pub fn new(lds: usize) -> Mem {
        Mem {
            global: Vec::new(),
            lds: (0..lds).map(|i| (i * 7 + 3) as u8).collect(),
            scratch: vec![vec![0x5a; 256]; 64],
            clock: 0x1234_5678_9abc,
        }
    }
    /// Adds a global region.
    pub fn add(&mut self, base: u64, bytes: Vec<u8>) {
        self.global.push((base, bytes));
    }
    /// The region that starts at `base`.
    pub fn region(&self, base: u64) -> &[u8] {
        &self.global.iter().find(|r| r.0 == base).expect("region").1
    }
    /// Dword `i` of the region at `base`.
    pub fn dword(&self, base: u64, i: usize) -> u32 {
        let r = self.region(base);
        u32::from_le_bytes(r[4 * i..4 * i + 4].try_into().unwrap())
    }

    fn slice(
        &mut self,
        space: Space,
        lane: usize,
        addr: u64,
        size: u32,
    ) -> Result<&mut [u8], MemError> {
        let err = MemError::OutOfRange {
            space,
            addr,
            size,
            lane: lane as u32,
        };
        let (space, addr) = match space {
            Space::Flat if addr >= PRIVATE_APERTURE_BASE => {
                (Space::Scratch, addr - PRIVATE_APERTURE_BASE)
            }
            Space::Flat if addr >= SHARED_APERTURE_BASE => {
                (Space::Lds, addr - SHARED_APERTURE_BASE)
            }
            Space::Flat => (Space::Global, addr),
            s => (s, addr),
        };
        let n = size as u64;
        match space {
            Space::Lds => {
                let len = self.lds.len() as u64;
                if addr.checked_add(n).is_none_or(|e| e > len) {
                    return Err(err);
                }
                Ok(&mut self.lds[addr as usize..(addr + n) as usize])
            }
            Space::Scratch => {
                let s = &mut self.scratch[lane];
                if addr.checked_add(n).is_none_or(|e| e > s.len() as u64) {
                    return Err(err);
                }
                Ok(&mut s[addr as usize..(addr + n) as usize])
            }
            _ => {
                for (base, bytes) in self.global.iter_mut() {
                    if addr >= *base && addr + n <= *base + bytes.len() as u64 {
                        let o = (addr - *base) as usize;
                        return Ok(&mut bytes[o..o + size as usize]);
                    }
                }
                Err(err)
            }
        }
    }
}

fn get(b: &[u8]) -> u64 {
    let mut x = [0u8; 8];
    x[..b.len()].copy_from_slice(b);
    u64::from_le_bytes(x)
}

fn put(b: &mut [u8], v: u64) {
    let n = b.len();
    b.copy_from_slice(&v.to_le_bytes()[..n]);
}

fn fop(size: u32, a: u64, b: u64, f: impl Fn(f64, f64) -> f64) -> u64 {
    if size == 4 {
        let r = f(
            f32::from_bits(a as u32) as f64,
            f32::from_bits(b as u32) as f64,
        ) as f32;
        r.to_bits() as u64
    } else {
        f(f64::from_bits(a), f64::from_bits(b)).to_bits()
    }
}

impl WaveEnv for Mem {
    fn load(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        out: &mut [u64; 64],
    ) -> Result<(), MemError> {
        for l in 0..64 {
            if mask >> l & 1 != 0 {
                out[l] = get(self.slice(space, l, addrs[l], size)?);
            }
        }
        Ok(())
    }
    fn store(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        data: &[u64; 64],
    ) -> Result<(), MemError> {
        for l in 0..64 {
            if mask >> l & 1 != 0 {
                put(self.slice(space, l, addrs[l], size)?, data[l]);
            }
        }
        Ok(())
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
        let bits = size * 8;
        let m = if bits == 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        };
        let sx = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
        for l in 0..64 {
            if mask >> l & 1 == 0 {
                continue;
            }
            let s = self.slice(space, l, addrs[l], size)?;
            let old = get(s);
            let d = data[l] & m;
            let new = match op {
                AtomicOp::Swap => d,
                AtomicOp::CmpSwap => {
                    if old == cmp[l] & m {
                        d
                    } else {
                        old
                    }
                }
                AtomicOp::Add => old.wrapping_add(d) & m,
                AtomicOp::Sub => old.wrapping_sub(d) & m,
                AtomicOp::SMin => {
                    if sx(old) <= sx(d) {
                        old
                    } else {
                        d
                    }
                }
                AtomicOp::SMax => {
                    if sx(old) >= sx(d) {
                        old
                    } else {
                        d
                    }
                }
                AtomicOp::UMin => old.min(d),
                AtomicOp::UMax => old.max(d),
                AtomicOp::And => old & d,
                AtomicOp::Or => old | d,
                AtomicOp::Xor => old ^ d,
                AtomicOp::Inc => {
                    if old >= d {
                        0
                    } else {
                        old + 1
                    }
                }
                AtomicOp::Dec => {
                    if old == 0 || old > d {
                        d
                    } else {
                        old - 1
                    }
                }
                AtomicOp::FAdd => fop(size, old, d, |a, b| a + b),
                AtomicOp::FMin => fop(size, old, d, f64::min),
                AtomicOp::FMax => fop(size, old, d, f64::max),
                AtomicOp::RSub => d.wrapping_sub(old) & m,
                AtomicOp::MskOr => (old & !d) | (cmp[l] & m),
                AtomicOp::Wrap => {
                    if old >= d {
                        old - d
                    } else {
                        old.wrapping_add(cmp[l]) & m
                    }
                }
                // Packed half adds: the translator's rounding (the tests check values).
                AtomicOp::PkAddF16 => {
                    wavejit_translator::interp::sem::pk_add_f16(old as u32, d as u32) as u64
                }
                AtomicOp::PkAddBf16 => {
                    wavejit_translator::interp::sem::pk_add_bf16(old as u32, d as u32) as u64
                }
                // RDNA conditional/clamping subtracts and the float compare-swap (host compare).
                AtomicOp::CondSub => old.checked_sub(d).unwrap_or(old),
                AtomicOp::SubClamp => old.saturating_sub(d),
                AtomicOp::FCmpSwap => {
                    let equal = if size == 8 {
                        f64::from_bits(old) == f64::from_bits(cmp[l])
                    } else {
                        f32::from_bits(old as u32) == f32::from_bits(cmp[l] as u32)
                    };
                    if equal {
                        d
                    } else {
                        old
                    }
                }
            };
            put(s, new);
            out[l] = old;
        }
        Ok(())
    }
    fn scalar_load(&mut self, addr: u64, out: &mut [u32]) -> Result<(), MemError> {
        for (i, o) in out.iter_mut().enumerate() {
            *o = get(self.slice(Space::Global, 0, addr + 4 * i as u64, 4)?) as u32;
        }
        Ok(())
    }
    fn scalar_store(&mut self, addr: u64, data: &[u32]) -> Result<(), MemError> {
        for (i, d) in data.iter().enumerate() {
            put(
                self.slice(Space::Global, 0, addr + 4 * i as u64, 4)?,
                *d as u64,
            );
        }
        Ok(())
    }
    fn clock(&mut self) -> u64 {
        self.clock
    }
}

/// Deterministic xorshift generator.
pub struct Rng(pub u64);

impl Rng {
    /// Next 64 random bits.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// Next non-zero 32-bit value.
    pub fn u32(&mut self) -> u32 {
        loop {
            let v = self.next() as u32;
            if v != 0 {
                return v;
            }
        }
    }
}

/// gfx942, wave64.
pub fn target() -> Target {
    Target::new(Gpu::GFX942)
}

/// MODE of HIP/OpenCL kernels: round to nearest, denormals kept, DX10_CLAMP and IEEE set.
pub const DEFAULT_MODE: u32 = 0x3f0;

/// A wave64 state with every VGPR and SGPR random and non-zero, EXEC = `exec`, SCC = 0,
/// MODE = [`DEFAULT_MODE`].
pub fn random_state(seed: u64, exec: u64) -> Box<WaveState> {
    let mut s = WaveState::new_boxed(64);
    let mut r = Rng(seed | 1);
    for reg in s.vgpr.iter_mut() {
        for v in reg.iter_mut() {
            *v = r.u32();
        }
    }
    for v in s.sgpr.iter_mut() {
        *v = r.u32();
    }
    s.set_exec(exec);
    s.scc = 0;
    s.mode = DEFAULT_MODE;
    s.pc = CODE_BASE;
    s
}

/// Lifts and runs blocks from `state.pc` until `s_endpgm` (or at most 10000 blocks). Every
/// block runs in the interpreter (the result kept) and, when the JIT compiles it, also in
/// the JIT from the same starting state and memory: the two must agree exactly
/// (registers, SCC, MODE, pc, counters, memory, exit).
pub fn run(code: &Code, state: &mut WaveState, mem: &mut Mem) -> Result<ExitCode, ExecFault> {
    run_on(&target(), code, state, mem)
}

/// [`run`] on another target.
pub fn run_on(
    t: &Target,
    code: &Code,
    state: &mut WaveState,
    mem: &mut Mem,
) -> Result<ExitCode, ExecFault> {
    let jit = Jit::new().expect("JIT for the host");
    for _ in 0..10_000 {
        let block = lift_block(t, code, state.pc, state.mode);
        wavejit_translator::ir::verify(&block).expect("lifted block verifies");
        let mut js = clone_state(state);
        let mut jm = mem.clone();
        let r = run_block(&block, state, mem);
        if let Ok(compiled) = jit.compile(&block) {
            let jr = compiled.run(&mut js, &mut jm);
            let same = jr == r
                && js.vgpr == state.vgpr
                && js.sgpr == state.sgpr
                && js.scc == state.scc
                && js.mode == state.mode
                && js.pc == state.pc
                && js.counters == state.counters
                && jm == *mem;
            assert!(same, "JIT and interpreter differ on block:\n{block}");
        }
        match r? {
            ExitCode::Continue | ExitCode::Barrier | ExitCode::Yield => {}
            other => return Ok(other),
        }
    }
    panic!("program did not end");
}

/// Runs `words` from a random state (EXEC = `exec`), returning the state before and after.
pub fn run_words(
    words: &[u32],
    seed: u64,
    exec: u64,
    mem: &mut Mem,
    setup: impl FnOnce(&mut WaveState),
) -> (Box<WaveState>, Box<WaveState>) {
    let code = Code::from_words(words);
    let mut s = random_state(seed, exec);
    setup(&mut s);
    let before = clone_state(&s);
    let r = run(&code, &mut s, mem).expect("program runs");
    assert_eq!(r, ExitCode::EndPgm);
    (before, s)
}

/// A copy of a wave state.
pub fn clone_state(s: &WaveState) -> Box<WaveState> {
    let mut c = WaveState::new_boxed(s.wave_size);
    c.vgpr = s.vgpr;
    c.sgpr = s.sgpr;
    c.scc = s.scc;
    c.mode = s.mode;
    c.status = s.status;
    c.trapsts = s.trapsts;
    c.pc = s.pc;
    c.counters = s.counters;
    c
}

/// Asserts that VGPR `reg` holds `f(lane)` in the lanes of `exec` and its old value elsewhere.
pub fn check_vgpr(
    before: &WaveState,
    after: &WaveState,
    reg: usize,
    exec: u64,
    f: impl Fn(usize) -> u32,
) {
    for l in 0..64 {
        let want = if exec >> l & 1 != 0 {
            f(l)
        } else {
            before.vgpr[reg][l]
        };
        assert_eq!(
            after.vgpr[reg][l], want,
            "v{reg} lane {l}: got {:#x}, want {want:#x}",
            after.vgpr[reg][l]
        );
    }
}

/// Partial EXEC mask used by most tests (lanes on in every row, some rows sparse).
pub const EXEC_PARTIAL: u64 = 0xF0F0_1234_FFFF_8001;

/// The f16 in the low (or with `hi` the high) half of `x`, as f64.
pub fn f16_half(x: u32, hi: bool) -> f64 {
    half::f16::from_bits(if hi { (x >> 16) as u16 } else { x as u16 }).to_f64()
}

/// `x` rounded once to f16 (nearest even), as bits in the low half.
pub fn f16_bits(x: f64) -> u32 {
    half::f16::from_f64(x).to_bits() as u32
}

/// IEEE maxNum on f64: a NaN operand yields the other operand; +0 is above -0.
pub fn maxnum64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else if a == 0.0 && b == 0.0 {
        if a.is_sign_positive() {
            a
        } else {
            b
        }
    } else {
        a.max(b)
    }
}

/// Compares the f16 bits in the low halves of `got` and `want`; any NaN matches a NaN.
pub fn same16(got: u32, want: u32, what: &str) {
    let g = half::f16::from_bits(got as u16);
    let w = half::f16::from_bits(want as u16);
    if w.is_nan() {
        assert!(g.is_nan(), "{what}: got {got:#06x}, want NaN");
    } else {
        assert_eq!(got & 0xffff, want & 0xffff, "{what}: got {g}, want {w}");
    }
}

/// Asserts VGPR `r` of lane `l` is `want` after the run (`a`) when the lane is active in `exec`,
/// and unchanged from before the run (`b`) otherwise.
pub fn check_lane(b: &WaveState, a: &WaveState, r: usize, l: usize, exec: u64, want: u32) {
    let want = if exec >> l & 1 != 0 {
        want
    } else {
        b.vgpr[r][l]
    };
    assert_eq!(
        a.vgpr[r][l], want,
        "v{r} lane {l}: got {:#x}, want {want:#x}",
        a.vgpr[r][l]
    );
}

/// Compares f32 results: NaN matches any NaN, otherwise the bits must be equal.
pub fn same32(got: u32, want: f32, what: &str) {
    if want.is_nan() {
        assert!(
            f32::from_bits(got).is_nan(),
            "{what}: got {got:#x}, want NaN"
        );
    } else {
        assert_eq!(
            got,
            want.to_bits(),
            "{what}: got {}, want {want}",
            f32::from_bits(got)
        );
    }
}

/// `v_cubeid/cubesc/cubetc/cubema_f32` worked by hand from the RDNA4 ISA 16.12 pseudocode
/// with denormals flushed (RDNA4 7.2.4; GFX9 with MODE flushing): the coordinate (x, y, z)
/// and (id, sc, tc, ma, sc of (-x, y, |z|)). The major axis is z when |z| >= |x| and
/// |z| >= |y|, else y when |y| >= |x|, else x.
#[allow(dead_code)] // used by some of the test crates that include this module
#[rustfmt::skip]
pub const CUBE_ROWS: [([f32; 3], [f32; 5]); 9] = [
    ([1.0, 2.0, 3.0], [4.0, 1.0, -2.0, 6.0, -1.0]),     // z major, z > 0: sc = x, tc = -y
    ([1.0, 2.0, -3.0], [5.0, -1.0, -2.0, -6.0, -1.0]),  // z < 0: sc = -x; |z| = 3 > 0
    ([1.0, -3.0, 2.0], [3.0, 1.0, -2.0, -6.0, -1.0]),   // y major, y < 0: tc = -z
    ([-4.0, 3.0, 2.0], [1.0, 2.0, -3.0, -8.0, -2.0]),   // x major, x < 0: sc = z; -x > 0: -z
    ([4.0, 3.0, 2.0], [0.0, -2.0, -3.0, 8.0, 2.0]),     // x major, x > 0: sc = -z
    ([2.0, 2.0, 2.0], [4.0, 2.0, -2.0, 4.0, -2.0]),     // ties go to z
    ([2.0, -2.0, 1.0], [3.0, 2.0, -1.0, -4.0, -2.0]),   // |y| = |x|: y major
    ([f32::from_bits(1), 0.0, -0.0], [4.0, 0.0, -0.0, -0.0, -0.0]), // x flushed to +0: z major, -0 >= 0
    ([3.0, f32::from_bits(1), 4.0e-39], [0.0, -0.0, -0.0, 6.0, 0.0]), // y, z flushed: x major, sc = -(+0); v14: -3 < 0, sc = +0
];
