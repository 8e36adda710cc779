//! [`WaveEnv`] for one running wave: checked global memory, the workgroup's LDS, the wave's
//! scratch, FLAT aperture resolution, atomics and a deterministic clock.
//!
//! Out-of-range rules, by space:
//! * **Global** (and FLAT addresses outside the apertures): every active lane's bytes must lie
//!   inside one live allocation, else [`MemError::OutOfRange`] with the first faulting lane.
//!   Unaligned loads/stores are allowed (GFX9+ global memory supports them); atomics must be
//!   naturally aligned ([`MemError::Misaligned`]).
//! * **LDS**: offsets at or beyond the workgroup's LDS size read 0 and drop writes, as the
//!   ISA defines for DS instructions (CDNA3 ISA 3.6.1/3.6.5, notes/cdna.md §4.16: clamp at
//!   the LDS size; GFX9+ compilers never program the M0 clamp, so only the size is used).
//!   Out-of-range atomics return 0 and change nothing. Unaligned non-atomic DS accesses are
//!   allowed (ROCm runs GFX9+ in unaligned DS mode); unaligned DS atomics are a memory
//!   violation ([`MemError::Misaligned`]).
//! * **Scratch**: each lane owns `per_lane` bytes; an access outside them is
//!   [`MemError::OutOfRange`] (a stack overflow or wild pointer in the kernel).

use wavejit_translator::env::{
    AtomicOp, FastMemory, MemError, MemWindow, Space, WaveEnv, PRIVATE_APERTURE_BASE,
    SHARED_APERTURE_BASE,
};

use super::access::{
    global_atomic, global_load, global_load_lanes, global_store, global_store_lanes, rmw,
    slice_load, slice_store,
};
use super::DeviceMemory;

/// Per-lane private segment geometry of a wave.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScratchLayout {
    /// Bytes of private segment per lane.
    pub per_lane: u64,
}

/// Memory services of one wave (see the module docs for the rules).
pub struct WaveMemEnv<'a> {
    mem: &'a DeviceMemory,
    lds: &'a mut [u8],
    /// The scratch of every wave this environment serves; the running wave's lanes start
    /// at `scratch_base` ([`WaveMemEnv::start_wave`]).
    scratch: &'a mut [u8],
    scratch_base: u64,
    layout: ScratchLayout,
    /// The allocations `(start, len)` that last satisfied requests, newest first (`len` 0 =
    /// empty slot). Allocations cannot be freed while a launch runs (the launch gate), so a
    /// cached region stays valid.
    cache: RegionCache,
    /// `cache` as windows for generated code ([`WaveEnv::fast_memory`]), rebuilt when the
    /// cache changes.
    windows: [MemWindow; 4],
    clock: u64,
    barrier: u32,
}

/// Recently used allocations `(start, len)` of one launch, newest first; `len` 0 = empty.
/// Several entries because a kernel typically streams through a few buffers (vector add:
/// two inputs and an output), which would evict each other from a single entry.
pub(crate) type RegionCache = [(u64, u64); 4];

/// Iterates over the set bits of `mask`, lowest first.
fn lanes(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let l = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            Some(l)
        }
    })
}

/// Which space a FLAT address resolves to, and the offset within it.
pub fn resolve_flat(addr: u64) -> (Space, u64) {
    const HI: u64 = 0xFFFF_FFFF_0000_0000;
    if addr & HI == SHARED_APERTURE_BASE {
        (Space::Lds, addr & 0xFFFF_FFFF)
    } else if addr & HI == PRIVATE_APERTURE_BASE {
        (Space::Scratch, addr & 0xFFFF_FFFF)
    } else {
        (Space::Global, addr)
    }
}

impl<'a> WaveMemEnv<'a> {
    /// An environment over device memory `mem`, the workgroup's `lds` and this wave's
    /// `scratch` (lane `l` owns `scratch[l * per_lane .. (l + 1) * per_lane]`).
    ///
    /// The caller must hold a [`super::LaunchGuard`] of `mem` while the environment is used.
    pub fn new(
        mem: &'a DeviceMemory,
        lds: &'a mut [u8],
        scratch: &'a mut [u8],
        layout: ScratchLayout,
    ) -> WaveMemEnv<'a> {
        WaveMemEnv {
            mem,
            lds,
            scratch,
            scratch_base: 0,
            layout,
            cache: [(0, 0); 4],
            windows: [MemWindow::EMPTY; 4],
            clock: 0,
            barrier: 0,
        }
    }

    /// Makes the environment serve wave `wave` of the workgroup, which sees the barrier
    /// state `barrier` ([`WaveEnv::barrier_state`]; the scheduler's counts, see
    /// [`wavejit_translator::env::workgroup_barrier_state`]): its lanes' scratch is
    /// `scratch[wave * lanes * per_lane ..]` (`lanes`: the wave size) and the clock starts
    /// again from zero, as in a new environment. One environment serves every run of every
    /// wave of a worker thread in turn; the allocation cache stays (allocations cannot be
    /// freed while the launch runs: the launch gate). It leaves the windows of
    /// [`WaveEnv::fast_memory`] valid (they do not depend on the wave).
    #[inline]
    pub(crate) fn start_wave(&mut self, wave: usize, lanes: u32, barrier: u32) {
        self.scratch_base = (wave as u64 * lanes as u64).saturating_mul(self.layout.per_lane);
        self.barrier = barrier;
        self.clock = 0;
    }

    /// Zeroes the LDS and the scratch for the next workgroup (skipped when empty: most
    /// kernels use neither).
    pub(crate) fn clear_workgroup(&mut self) {
        if !self.lds.is_empty() {
            self.lds.fill(0);
        }
        if !self.scratch.is_empty() {
            self.scratch.fill(0);
        }
    }

    /// Whether `[addr, addr + len)` lies in one live allocation (cached).
    fn covered(&mut self, addr: u64, len: u64) -> bool {
        let Some(end) = addr.checked_add(len) else {
            return false;
        };
        for &(s, l) in &self.cache {
            if l != 0 && addr >= s && end <= s + l {
                return true;
            }
        }
        match self.mem.find_for_kernel(addr, len) {
            Some(r) => {
                self.cache.copy_within(0..3, 1);
                self.cache[0] = r;
                for (w, &(start, len)) in self.windows.iter_mut().zip(&self.cache) {
                    // SAFETY: a cached region is a live allocation of this launch (the launch
                    // gate keeps it alive while this environment exists), whose host address
                    // is its device address; other threads access global memory only
                    // through relaxed atomics (`access`), host copies wait for the gate.
                    // Allocations are host user-space addresses, below the FLAT apertures,
                    // so a window never covers an aperture address. Empty slots (`len` 0)
                    // are empty windows.
                    *w = unsafe { MemWindow::new(start, len, start as *mut u8) };
                }
                true
            }
            None => false,
        }
    }

    /// Checks every active lane's global access; the first faulting lane's error otherwise.
    fn check_global(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        atomic: bool,
    ) -> Result<(), MemError> {
        if mask == 0 {
            return Ok(());
        }
        if atomic {
            if let Some(lane) = lanes(mask).find(|&l| !addrs[l].is_multiple_of(size as u64)) {
                return Err(MemError::Misaligned {
                    space,
                    addr: addrs[lane],
                    size,
                    lane: lane as u32,
                });
            }
        }
        // Fast path: the span of all active lanes inside one allocation.
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        if mask == u64::MAX {
            // Whole wave: a branch-free pass the compiler vectorises.
            for &a in addrs {
                lo = lo.min(a);
                hi = hi.max(a);
            }
        } else {
            for l in lanes(mask) {
                lo = lo.min(addrs[l]);
                hi = hi.max(addrs[l]);
            }
        }
        if let Some(end) = hi.checked_add(size as u64) {
            if self.covered(lo, end - lo) {
                return Ok(());
            }
        }
        // Slow path: lane by lane (lanes may use different allocations).
        for l in lanes(mask) {
            if !self.covered(addrs[l], size as u64) {
                return Err(MemError::OutOfRange {
                    space,
                    addr: addrs[l],
                    size,
                    lane: l as u32,
                });
            }
        }
        Ok(())
    }

    /// Offset of lane `l`'s scratch access, or the fault.
    fn scratch_off(&self, l: usize, off: u64, size: u32) -> Result<u64, MemError> {
        let fault = MemError::OutOfRange {
            space: Space::Scratch,
            addr: off,
            size,
            lane: l as u32,
        };
        match off.checked_add(size as u64) {
            Some(end) if end <= self.layout.per_lane => {
                Ok(self.scratch_base + l as u64 * self.layout.per_lane + off)
            }
            _ => Err(fault),
        }
    }

    /// Splits a FLAT request into per-space masks with resolved addresses.
    fn split_flat(addrs: &[u64; 64], mask: u64) -> ([u64; 64], [u64; 3]) {
        let mut out = [0u64; 64];
        let mut masks = [0u64; 3]; // global, lds, scratch
        for l in lanes(mask) {
            let (space, a) = resolve_flat(addrs[l]);
            out[l] = a;
            let i = match space {
                Space::Lds => 1,
                Space::Scratch => 2,
                _ => 0,
            };
            masks[i] |= 1 << l;
        }
        (out, masks)
    }

    fn load_in(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        out: &mut [u64; 64],
    ) -> Result<(), MemError> {
        check_size(space, addrs, mask, size)?;
        match space {
            Space::Global => {
                self.check_global(space, addrs, mask, size, false)?;
                // SAFETY: every active lane checked above to lie in a live allocation, which
                // the launch gate keeps alive; global memory is only accessed through `access`.
                unsafe { global_load_lanes(addrs, mask, size, out) };
            }
            Space::Lds => {
                for l in lanes(mask) {
                    out[l] = slice_load(self.lds, addrs[l], size).unwrap_or(0);
                }
            }
            Space::Scratch => {
                for l in lanes(mask) {
                    let off = self.scratch_off(l, addrs[l], size)?;
                    out[l] = slice_load(self.scratch, off, size).ok_or(MemError::OutOfRange {
                        space,
                        addr: addrs[l],
                        size,
                        lane: l as u32,
                    })?;
                }
            }
            Space::Flat => {
                let (a, m) = Self::split_flat(addrs, mask);
                self.load_in(Space::Global, &a, m[0], size, out)?;
                self.load_in(Space::Lds, &a, m[1], size, out)?;
                self.load_in(Space::Scratch, &a, m[2], size, out)?;
            }
        }
        Ok(())
    }

    fn store_in(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        data: &[u64; 64],
    ) -> Result<(), MemError> {
        check_size(space, addrs, mask, size)?;
        match space {
            Space::Global => {
                self.check_global(space, addrs, mask, size, false)?;
                // SAFETY: as in `load_in`.
                unsafe { global_store_lanes(addrs, mask, size, data) };
            }
            Space::Lds => {
                for l in lanes(mask) {
                    // Out-of-range LDS writes are dropped (ISA 3.6.1).
                    let _ = slice_store(self.lds, addrs[l], size, data[l]);
                }
            }
            Space::Scratch => {
                // Check all lanes first so a fault leaves memory untouched.
                for l in lanes(mask) {
                    self.scratch_off(l, addrs[l], size)?;
                }
                for l in lanes(mask) {
                    let off = self.scratch_off(l, addrs[l], size)?;
                    let _ = slice_store(self.scratch, off, size, data[l]);
                }
            }
            Space::Flat => {
                let (a, m) = Self::split_flat(addrs, mask);
                // Check the faulting spaces before writing anything.
                self.check_global(Space::Flat, &a, m[0], size, false)?;
                for l in lanes(m[2]) {
                    self.scratch_off(l, a[l], size)?;
                }
                self.store_in(Space::Global, &a, m[0], size, data)?;
                self.store_in(Space::Lds, &a, m[1], size, data)?;
                self.store_in(Space::Scratch, &a, m[2], size, data)?;
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn atomic_in(
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
        if size != 4 && size != 8 {
            return Err(MemError::Misaligned {
                space,
                addr: lanes(mask).next().map(|l| addrs[l]).unwrap_or(0),
                size,
                lane: lanes(mask).next().unwrap_or(0) as u32,
            });
        }
        let misaligned = |l: usize, a: u64| MemError::Misaligned {
            space,
            addr: a,
            size,
            lane: l as u32,
        };
        match space {
            Space::Global => {
                self.check_global(space, addrs, mask, size, true)?;
                for l in lanes(mask) {
                    // SAFETY: checked in range and naturally aligned above; the launch gate
                    // keeps the allocation alive; global memory is only accessed atomically.
                    out[l] = unsafe { global_atomic(addrs[l], size, op, data[l], cmp[l]) };
                }
            }
            Space::Lds => {
                if let Some(l) = lanes(mask).find(|&l| !addrs[l].is_multiple_of(size as u64)) {
                    return Err(misaligned(l, addrs[l]));
                }
                for l in lanes(mask) {
                    out[l] = match slice_load(self.lds, addrs[l], size) {
                        Some(old) => {
                            let new = rmw(op, size, old, data[l], cmp[l]);
                            let _ = slice_store(self.lds, addrs[l], size, new);
                            old
                        }
                        None => 0, // out of range: no update, returns 0
                    };
                }
            }
            Space::Scratch => {
                for l in lanes(mask) {
                    if !addrs[l].is_multiple_of(size as u64) {
                        return Err(misaligned(l, addrs[l]));
                    }
                    self.scratch_off(l, addrs[l], size)?;
                }
                for l in lanes(mask) {
                    let off = self.scratch_off(l, addrs[l], size)?;
                    let old = slice_load(self.scratch, off, size).unwrap_or(0);
                    let _ =
                        slice_store(self.scratch, off, size, rmw(op, size, old, data[l], cmp[l]));
                    out[l] = old;
                }
            }
            Space::Flat => {
                let (a, m) = Self::split_flat(addrs, mask);
                self.check_global(Space::Flat, &a, m[0], size, true)?;
                self.atomic_in(Space::Global, op, &a, m[0], size, data, cmp, out)?;
                self.atomic_in(Space::Lds, op, &a, m[1], size, data, cmp, out)?;
                self.atomic_in(Space::Scratch, op, &a, m[2], size, data, cmp, out)?;
            }
        }
        Ok(())
    }
}

/// Rejects element sizes other than 1, 2, 4 and 8 (a translator bug, reported as a fault).
fn check_size(space: Space, addrs: &[u64; 64], mask: u64, size: u32) -> Result<(), MemError> {
    if matches!(size, 1 | 2 | 4 | 8) {
        return Ok(());
    }
    let lane = lanes(mask).next().unwrap_or(0);
    Err(MemError::Misaligned {
        space,
        addr: addrs[lane],
        size,
        lane: lane as u32,
    })
}

impl WaveEnv for WaveMemEnv<'_> {
    fn load(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        out: &mut [u64; 64],
    ) -> Result<(), MemError> {
        self.load_in(space, addrs, mask, size, out)
    }

    fn store(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        data: &[u64; 64],
    ) -> Result<(), MemError> {
        self.store_in(space, addrs, mask, size, data)
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
        self.atomic_in(space, op, addrs, mask, size, data, cmp, out)
    }

    /// SMEM ignores the two low address bits (dword-aligned accesses, ISA "Scalar Memory
    /// Operations"); the whole range must lie in one allocation.
    fn scalar_load(&mut self, addr: u64, out: &mut [u32]) -> Result<(), MemError> {
        let addr = addr & !3;
        let len = out.len() as u64 * 4;
        if !self.covered(addr, len) {
            return Err(MemError::OutOfRange {
                space: Space::Global,
                addr,
                size: len as u32,
                lane: 0,
            });
        }
        for (i, o) in out.iter_mut().enumerate() {
            // SAFETY: the range is inside a live allocation (checked), kept alive by the
            // launch gate; dword-aligned because the allocation is 256-byte aligned and
            // `addr` is a multiple of 4.
            *o = unsafe { global_load(addr + 4 * i as u64, 4) } as u32;
        }
        Ok(())
    }

    fn scalar_store(&mut self, addr: u64, data: &[u32]) -> Result<(), MemError> {
        let addr = addr & !3;
        let len = data.len() as u64 * 4;
        if !self.covered(addr, len) {
            return Err(MemError::OutOfRange {
                space: Space::Global,
                addr,
                size: len as u32,
                lane: 0,
            });
        }
        for (i, &d) in data.iter().enumerate() {
            // SAFETY: as in `scalar_load`.
            unsafe { global_store(addr + 4 * i as u64, 4, d as u64) };
        }
        Ok(())
    }

    /// The cached allocations and the LDS. Out-of-range LDS lanes and every scratch or
    /// aperture access stay on the checked path (no window covers them).
    fn fast_memory(&mut self) -> FastMemory {
        let mut fm = FastMemory::NONE;
        // The cached allocations' windows (see `covered`).
        fm.global = self.windows;
        // SAFETY: the workgroup's LDS is borrowed exclusively by this environment (its waves
        // run one at a time on this thread); the pointer is derived afresh for each request
        // and the bytes are valid for `len`.
        fm.lds = unsafe { MemWindow::new(0, self.lds.len() as u64, self.lds.as_mut_ptr()) };
        fm
    }

    /// A per-wave counter advancing by 64 per call: deterministic, monotonic, independent
    /// of the host's clock and of the engine.
    fn clock(&mut self) -> u64 {
        self.clock += 64;
        self.clock
    }

    fn barrier_state(&mut self) -> u32 {
        self.barrier
    }

    /// Points the environment at wave `wave`: its scratch base, barrier view and clock
    /// (from zero) only, so the windows stay valid.
    #[inline]
    fn start_wave(&mut self, wave: usize, lanes: u32, barrier: u32) {
        WaveMemEnv::start_wave(self, wave, lanes, barrier);
    }
}
