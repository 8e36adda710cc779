//! The boundary between executing code and the runtime: memory access, exits and faults.
//!
//! Generated code and the interpreter call [`WaveEnv`] once per memory *instruction* (not per
//! lane): the request carries the per-lane addresses and the mask of lanes that take part.
//! The runtime implements it with checked device memory, LDS and scratch.

use thiserror::Error;

/// Base of the FLAT shared (LDS) aperture: a generic address `SHARED_APERTURE_BASE + off`
/// (`off` < 4 GiB) is LDS offset `off`. `src_shared_base` reads the high 32 bits. Chosen above
/// the canonical user-space range of x86-64 and aarch64 hosts so it never meets an allocation.
pub const SHARED_APERTURE_BASE: u64 = 0x1000_0000_0000_0000;
/// Base of the FLAT private (scratch) aperture: `PRIVATE_APERTURE_BASE + off` is offset `off`
/// in the lane's private segment. `src_private_base` reads the high 32 bits.
pub const PRIVATE_APERTURE_BASE: u64 = 0x2000_0000_0000_0000;

/// Which address space a vector memory request targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Global memory: per-lane addresses are device (= host) addresses.
    Global,
    /// Generic (FLAT) addresses: the runtime resolves the shared/private apertures
    /// to LDS/scratch and everything else to global memory.
    Flat,
    /// LDS: per-lane addresses are byte offsets into the workgroup's LDS.
    Lds,
    /// Scratch: per-lane addresses are byte offsets into that lane's private segment.
    Scratch,
}

/// Read-modify-write operations of atomics (`data` is the instruction's data operand).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `new = data`.
    Swap,
    /// `new = (old == cmp) ? data : old`.
    CmpSwap,
    /// Wrapping add.
    Add,
    /// Wrapping subtract (`old - data`).
    Sub,
    /// Signed minimum.
    SMin,
    /// Unsigned minimum.
    UMin,
    /// Signed maximum.
    SMax,
    /// Unsigned maximum.
    UMax,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
    /// `new = (old >= data) ? 0 : old + 1` (unsigned).
    Inc,
    /// `new = (old == 0 || old > data) ? data : old - 1` (unsigned).
    Dec,
    /// IEEE add of f32 (size 4) or f64 (size 8), round to nearest even.
    FAdd,
    /// Float minimum (IEEE minNum).
    FMin,
    /// Float maximum (IEEE maxNum).
    FMax,
    /// Reverse subtract: `new = data - old` (`ds_rsub_*`).
    RSub,
    /// Masked or: `new = (old & !data) | cmp` (`ds_mskor_*`; `cmp` carries DATA2).
    MskOr,
    /// Wrap: `new = (old >= data) ? old - data : old + cmp` (`ds_wrap_rtn_b32`; `cmp` carries
    /// DATA2; unsigned).
    Wrap,
    /// Two f16 adds on the halves of a dword (size 4), each rounded to nearest even
    /// (`*_pk_add_f16`; see [`crate::sem::pk_add_f16`]).
    PkAddF16,
    /// Two bf16 adds on the halves of a dword (size 4), each rounded to nearest even
    /// (`*_pk_add_bf16`; see [`crate::sem::pk_add_bf16`]).
    PkAddBf16,
    /// Conditional subtract: `new = (data > old) ? old : old - data` (unsigned; RDNA4
    /// `*_atomic_cond_sub_u32`).
    CondSub,
    /// Clamping subtract: `new = (data > old) ? 0 : old - data` (unsigned; gfx11
    /// `*_atomic_csub_u32`, gfx12 `*_atomic_sub_clamp_u32`).
    SubClamp,
    /// Float compare-swap (f32, or f64 for 8-byte accesses): `new = (old == cmp) ? data : old`
    /// with an IEEE compare (`+0 == -0`, NaN equals nothing; gfx11 `*_atomic_cmpswap_f32`,
    /// `ds_cmpstore_f32/f64`, GFX9 `ds_cmpst_f32/f64`).
    FCmpSwap,
}

/// Why a memory request failed. The runtime fills in which lane and address.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MemError {
    /// No allocation (or LDS/scratch range) covers the access.
    #[error("out-of-range {space:?} access of {size} bytes at {addr:#x} (lane {lane})")]
    OutOfRange {
        /// The address space.
        space: Space,
        /// The faulting address (or offset, for LDS and scratch).
        addr: u64,
        /// Access size in bytes.
        size: u32,
        /// First faulting lane.
        lane: u32,
    },
    /// Access not naturally aligned where the ISA requires it.
    #[error("misaligned {space:?} access of {size} bytes at {addr:#x} (lane {lane})")]
    Misaligned {
        /// The address space.
        space: Space,
        /// The faulting address.
        addr: u64,
        /// Access size in bytes.
        size: u32,
        /// First faulting lane.
        lane: u32,
    },
}

/// A byte range of device (or LDS) addresses `start .. start + len` that is host memory at
/// `host`: generated code's fast path (`jit::memory`) accesses it directly, without a call
/// into the [`WaveEnv`]. Only [`MemWindow::new`] (unsafe: the caller vouches for the memory)
/// makes a non-empty window. `repr(C)`: generated code reads the fields at
/// [`MemWindow::FIELD_OFFSETS`].
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct MemWindow {
    start: u64,
    len: u64,
    host: *mut u8,
}

impl MemWindow {
    /// Byte offsets of the `start` (`u64`), `len` (`u64`) and `host` (pointer) fields, for
    /// generated code that checks addresses against a window inline.
    pub const FIELD_OFFSETS: [usize; 3] = [
        std::mem::offset_of!(MemWindow, start),
        std::mem::offset_of!(MemWindow, len),
        std::mem::offset_of!(MemWindow, host),
    ];

    /// The empty window: contains no address.
    pub const EMPTY: MemWindow = MemWindow {
        start: 0,
        len: 0,
        host: std::ptr::null_mut(),
    };

    /// A window mapping addresses `start .. start + len` to host bytes `host .. host + len`.
    ///
    /// # Safety
    /// Until the next call of any method of the [`WaveEnv`] that returned it, the host bytes
    /// must be valid for reads and writes of any size at any alignment, and every concurrent
    /// access by other threads must be atomic (generated code accesses them with relaxed
    /// host atomics, as the runtime does for global memory).
    #[inline(always)]
    pub unsafe fn new(start: u64, len: u64, host: *mut u8) -> MemWindow {
        // A window never wraps around the address space (accesses there take the checked
        // path).
        let len = len.min(u64::MAX - start);
        MemWindow { start, len, host }
    }

    /// `(start, len, host)`.
    #[inline(always)]
    pub fn parts(&self) -> (u64, u64, *mut u8) {
        (self.start, self.len, self.host)
    }
}

/// The memory a [`WaveEnv`] lets generated code access directly (see [`WaveEnv::fast_memory`]).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct FastMemory {
    /// Global (and FLAT) windows by device address; a request uses one that holds all its
    /// active lanes' bytes.
    pub global: [MemWindow; 4],
    /// The LDS by byte offset (start 0).
    pub lds: MemWindow,
}

impl FastMemory {
    /// No direct access: every request goes through the [`WaveEnv`].
    pub const NONE: FastMemory = FastMemory {
        global: [MemWindow::EMPTY; 4],
        lds: MemWindow::EMPTY,
    };
}

/// Memory and environment services for one executing wave.
///
/// `addrs`, `data`, `cmp` and `out` have one entry per lane (64); only lanes whose bit is set
/// in `mask` take part. Values are zero-extended little-endian integers of `size` bytes
/// (1, 2, 4 or 8). Sign extension of narrow loads is the caller's business.
pub trait WaveEnv {
    /// Loads `size` bytes for each active lane.
    fn load(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        out: &mut [u64; 64],
    ) -> Result<(), MemError>;

    /// Stores the low `size` bytes of `data[lane]` for each active lane, in lane order
    /// (a later lane wins when addresses collide, as the ISA leaves it unspecified).
    fn store(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        data: &[u64; 64],
    ) -> Result<(), MemError>;

    /// Performs an atomic read-modify-write for each active lane in lane order and writes
    /// the value each lane saw before its update to `out`.
    #[allow(clippy::too_many_arguments)]
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
    ) -> Result<(), MemError>;

    /// Scalar (SMEM) load of `out.len()` dwords starting at `addr`.
    fn scalar_load(&mut self, addr: u64, out: &mut [u32]) -> Result<(), MemError>;

    /// Scalar (SMEM) store of `data` starting at `addr`.
    fn scalar_store(&mut self, addr: u64, data: &[u32]) -> Result<(), MemError>;

    /// Windows of memory generated code may access directly for loads and stores whose
    /// active lanes all fall inside one window (anything else calls [`WaveEnv::load`] /
    /// [`WaveEnv::store`]). A window must give exactly the results the methods would: only
    /// memory where every in-range access succeeds, with no side effects beyond the bytes
    /// (FLAT windows must not overlap the LDS/scratch apertures). The default offers none.
    fn fast_memory(&mut self) -> FastMemory {
        FastMemory::NONE
    }

    /// A 64-bit clock for `s_memtime`/`s_memrealtime`. Deterministic runs return a counter
    /// derived from executed instructions, not wall time.
    fn clock(&mut self) -> u64;

    /// The state of the work-group barrier (-1) as the running wave sees it, in the layout
    /// of RDNA4's `S_GET_BARRIER_STATE` (see [`workgroup_barrier_state`]). Only the
    /// scheduler of a work-group's waves knows it; the default is a wave that is not in a
    /// multi-wave work-group (0: not valid).
    fn barrier_state(&mut self) -> u32 {
        0
    }

    /// Makes this environment the one of wave `wave` (of `lanes` lanes) of the work-group
    /// it serves, seeing the barrier as `barrier` ([`workgroup_barrier_state`]), for a
    /// dispatcher that runs many waves on one environment
    /// ([`crate::exec::FreshStart::run_waves`]). It must leave the windows
    /// [`WaveEnv::fast_memory`] gave valid: generated code keeps using them for the next
    /// wave. The default (an environment for one wave) does nothing.
    fn start_wave(&mut self, wave: usize, lanes: u32, barrier: u32) {
        let _ = (wave, lanes, barrier);
    }
}

/// The `S_GET_BARRIER_STATE` word of the work-group barrier (RDNA4 ISA 5.6.2 and 16.3:
/// `{ 9'0, signalCnt[6:0], 5'0, memberCnt[6:0], 3'0, valid }`) for a work-group launched
/// with `waves` waves of which `live` have not ended and `signaled` have signalled the
/// barrier in the current phase. A work-group of one wave is "not in a work-group" for the
/// barrier instructions (ISA 5.6.2: such waves treat a signal as S_NOP): 0. A wave that ends
/// leaves the barrier's members, as the runtime's scheduler releases barriers without it.
#[inline]
pub fn workgroup_barrier_state(waves: usize, live: usize, signaled: usize) -> u32 {
    if waves <= 1 {
        return 0;
    }
    ((signaled as u32 & 0x7f) << 16) | ((live as u32 & 0x7f) << 4) | 1
}

/// How a block (or an interpreted run) ended. Generated code returns it as a `u32` code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ExitCode {
    /// Continue at `WaveState::pc`.
    Continue = 0,
    /// `s_endpgm`: the wave is done.
    EndPgm = 1,
    /// The wave waits at a workgroup barrier; it resumes at `WaveState::pc`.
    Barrier = 2,
    /// `s_trap` (or a trap-raising condition); `pc` is the trapping instruction.
    Trap = 3,
    /// A memory fault or other error; details are in the execution context.
    Fault = 4,
    /// `s_sleep` and friends: a scheduling hint; resume at `pc`.
    Yield = 5,
}

impl ExitCode {
    /// Converts the raw code generated code returns.
    pub fn from_u32(v: u32) -> Option<ExitCode> {
        Some(match v {
            0 => ExitCode::Continue,
            1 => ExitCode::EndPgm,
            2 => ExitCode::Barrier,
            3 => ExitCode::Trap,
            4 => ExitCode::Fault,
            5 => ExitCode::Yield,
            _ => return None,
        })
    }
}

/// Faults raised while executing translated code.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ExecFault {
    /// A memory request failed.
    #[error("{0}")]
    Memory(#[from] MemError),
    /// The block reached an instruction that the translator does not support.
    #[error("unsupported instruction: {0}")]
    Unsupported(String),
    /// The wave executed an instruction the hardware treats as illegal (e.g. `s_code_end`).
    #[error("illegal instruction: {0}")]
    Illegal(String),
    /// The instruction word could not be decoded.
    #[error("undecodable instruction: {0}")]
    Undecodable(String),
    /// `s_setpc`/`s_swappc` or a branch left the code object.
    #[error("jump to {0:#x}, outside the code object")]
    BadJump(u64),
    /// The wave exceeded its instruction budget (a runaway kernel).
    #[error("instruction budget of {0} wave instructions exhausted (runaway kernel?)")]
    Runaway(u64),
}

/// Where translated code comes from: the code object's bytes by device address.
pub trait CodeSource: Sync {
    /// The bytes from `pc` to the end of the executable range that contains it,
    /// or `None` when `pc` is not inside executable code.
    fn bytes_at(&self, pc: u64) -> Option<&[u8]>;
}
