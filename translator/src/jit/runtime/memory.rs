//! The fast path of vector loads and stores from generated code, and the element accesses
//! of host memory shared with other threads (also used by the runtime for global memory).
//!
//! A load or store whose active lanes' bytes all lie in one [`MemWindow`] of the wave's
//! [`FastMemory`] is done here in one pass over the lanes, size and extension fixed at
//! compile time of this module (one monomorphic loop per combination), writing the result
//! buffer directly. Anything else — no window, a lane outside it, scratch — returns `false`
//! and the caller takes the [`crate::env::WaveEnv`] path, which reports faults and applies
//! the out-of-range rules, so both paths give identical results.

use crate::env::{FastMemory, MemWindow, Space};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

/// Loads `size` (1, 2, 4 or 8) bytes, little-endian and zero-extended, from `p` with relaxed
/// host atomics: one access of the element's size when `p` is naturally aligned (a plain
/// `mov` on x86-64 and aarch64), byte by byte otherwise.
///
/// # Safety
/// `[p, p + size)` must be valid for reads for the call, and every concurrent access to
/// those bytes by other threads must be atomic.
#[inline(always)]
pub unsafe fn load_elem(p: *mut u8, size: u32) -> u64 {
    let a = p as usize;
    // SAFETY (all arms): the bytes are valid and only accessed atomically (caller); the
    // aligned arms check natural alignment first, as `from_ptr` requires.
    unsafe {
        match size {
            1 => AtomicU8::from_ptr(p).load(Relaxed) as u64,
            2 if a.is_multiple_of(2) => AtomicU16::from_ptr(p.cast()).load(Relaxed) as u64,
            4 if a.is_multiple_of(4) => AtomicU32::from_ptr(p.cast()).load(Relaxed) as u64,
            8 if a.is_multiple_of(8) => AtomicU64::from_ptr(p.cast()).load(Relaxed),
            _ => {
                let mut v = 0u64;
                for i in 0..size.min(8) as usize {
                    v |= (AtomicU8::from_ptr(p.add(i)).load(Relaxed) as u64) << (8 * i);
                }
                v
            }
        }
    }
}

/// Stores the low `size` bytes of `val` at `p`, as [`load_elem`] loads them.
///
/// # Safety
/// As [`load_elem`], for writes.
#[inline(always)]
pub unsafe fn store_elem(p: *mut u8, size: u32, val: u64) {
    let a = p as usize;
    // SAFETY: as in `load_elem`.
    unsafe {
        match size {
            1 => AtomicU8::from_ptr(p).store(val as u8, Relaxed),
            2 if a.is_multiple_of(2) => AtomicU16::from_ptr(p.cast()).store(val as u16, Relaxed),
            4 if a.is_multiple_of(4) => AtomicU32::from_ptr(p.cast()).store(val as u32, Relaxed),
            8 if a.is_multiple_of(8) => AtomicU64::from_ptr(p.cast()).store(val, Relaxed),
            _ => {
                for i in 0..size.min(8) as usize {
                    AtomicU8::from_ptr(p.add(i)).store((val >> (8 * i)) as u8, Relaxed);
                }
            }
        }
    }
}

/// Lane `l` of a 64-lane buffer of `u64`s or (`wide` false) `u32`s.
///
/// # Safety
/// `p` holds 64 readable lanes of that width; `l < 64`.
#[inline(always)]
unsafe fn lane(p: *const u8, wide: bool, l: usize) -> u64 {
    // SAFETY: the caller's contract; unaligned reads are allowed.
    unsafe {
        if wide {
            (p as *const u64).add(l).read_unaligned()
        } else {
            (p as *const u32).add(l).read_unaligned() as u64
        }
    }
}

/// The window of an `N`-byte access: lane address `x` is inside when
/// `x.wrapping_sub(start) <= limit` (one compare: addresses below `start` wrap above it).
#[derive(Clone, Copy)]
struct Win {
    start: u64,
    /// The last offset at which an access of the request's size fits.
    limit: u64,
    /// Host address of `start`.
    host: *mut u8,
}

impl Win {
    /// The window of `space` in `fm` that holds the `n` bytes at `a`.
    #[inline(always)]
    fn find(fm: &FastMemory, space: Space, a: u64, n: u32) -> Option<Win> {
        let windows: &[MemWindow] = match space {
            Space::Global | Space::Flat => &fm.global,
            Space::Lds => std::slice::from_ref(&fm.lds),
            Space::Scratch => return None,
        };
        windows.iter().find_map(|w| {
            let (start, len, host) = w.parts();
            let limit = len.checked_sub(n as u64)?;
            (a.wrapping_sub(start) <= limit).then_some(Win { start, limit, host })
        })
    }

    /// The host address of the access at `a` when it lies inside.
    #[inline(always)]
    fn host(&self, a: u64) -> Option<*mut u8> {
        let off = a.wrapping_sub(self.start);
        (off <= self.limit).then(|| self.host.wrapping_add(off as usize))
    }
}

/// Whether `mask` is a run of lanes from lane 0 (a full wave64 or wave32, or none).
#[inline(always)]
fn is_prefix(mask: u64) -> bool {
    mask & mask.wrapping_add(1) == 0
}

/// The window holding the lowest active lane's access (`None` for an empty mask too).
///
/// # Safety
/// `addrs` holds 64 `u64`s.
#[inline(always)]
unsafe fn first_window<const N: u32>(
    fm: &FastMemory,
    space: Space,
    addrs: *const u8,
    mask: u64,
) -> Option<Win> {
    if mask == 0 {
        return None;
    }
    // SAFETY: lane index < 64 (mask non-zero); 64 lanes (caller).
    let a = unsafe { lane(addrs, true, mask.trailing_zeros() as usize) };
    Win::find(fm, space, a, N)
}

/// The load loop of one (size, signedness, result width): `out` lane `l` gets the extended
/// element of active lane `l`, 0 for inactive lanes (as [`crate::env::WaveEnv::load`] via
/// `h_load` gives). Returns false as soon as an active lane lies outside `w`.
///
/// # Safety
/// `w` comes from a window whose contract ([`MemWindow::new`]) holds; `addrs` holds 64
/// `u64`s and `out` 64 writable lanes of the result width.
#[inline(always)]
unsafe fn load_lanes<const N: u32, const SIGNED: bool, const WIDE: bool>(
    w: Win,
    addrs: *const u8,
    mask: u64,
    out: *mut u8,
) -> bool {
    let sh = if N < 8 { 64 - 8 * N } else { 0 };
    let put = |l: usize, v: u64| {
        // SAFETY: `out` holds 64 lanes of the result width (caller); `l < 64`.
        unsafe {
            if WIDE {
                (out as *mut u64).add(l).write_unaligned(v)
            } else {
                (out as *mut u32).add(l).write_unaligned(v as u32)
            }
        }
    };
    let get = |l: usize| -> Option<u64> {
        // SAFETY: 64 address lanes (caller); the access is checked inside the window,
        // whose contract makes its `N` bytes readable by relaxed atomics.
        let x = unsafe { load_elem(w.host(lane(addrs, true, l))?, N) };
        Some(if SIGNED {
            (((x << sh) as i64) >> sh) as u64
        } else {
            x
        })
    };
    if is_prefix(mask) {
        let n = mask.count_ones() as usize;
        for l in 0..n {
            let Some(v) = get(l) else { return false };
            put(l, v);
        }
        for l in n..64 {
            put(l, 0);
        }
    } else {
        for l in 0..64 {
            let v = if mask >> l & 1 == 1 {
                let Some(v) = get(l) else { return false };
                v
            } else {
                0
            };
            put(l, v);
        }
    }
    true
}

/// A load of `size` bytes per active lane through `fm`, the result extended (`signed`) into
/// `out` (`u64` lanes when `wide`, else `u32`; inactive lanes 0). Returns false, with `out`
/// unspecified, when the fast path does not apply.
///
/// # Safety
/// `fm` came from the live [`crate::env::WaveEnv`] with no call of it since; `addrs` holds
/// 64 `u64`s and `out` 64 writable lanes of the result width.
#[allow(clippy::too_many_arguments)]
pub unsafe fn try_load(
    fm: &FastMemory,
    space: Space,
    addrs: *const u8,
    mask: u64,
    size: u32,
    signed: bool,
    wide: bool,
    out: *mut u8,
) -> bool {
    #[inline(always)]
    unsafe fn go<const N: u32>(
        fm: &FastMemory,
        space: Space,
        addrs: *const u8,
        mask: u64,
        signed: bool,
        wide: bool,
        out: *mut u8,
    ) -> bool {
        if mask == 0 {
            // No lane reads: all zero, as the checked path gives.
            // SAFETY: `out` holds 64 lanes of the result width (caller).
            unsafe { std::ptr::write_bytes(out, 0, if wide { 512 } else { 256 }) };
            return true;
        }
        // SAFETY: 64 address lanes (caller).
        let Some(w) = (unsafe { first_window::<N>(fm, space, addrs, mask) }) else {
            return false;
        };
        // SAFETY (all arms): `w` is from `fm` (caller: fresh); buffers as in the contract.
        unsafe {
            match (signed, wide) {
                (false, false) => load_lanes::<N, false, false>(w, addrs, mask, out),
                (false, true) => load_lanes::<N, false, true>(w, addrs, mask, out),
                (true, false) => load_lanes::<N, true, false>(w, addrs, mask, out),
                (true, true) => load_lanes::<N, true, true>(w, addrs, mask, out),
            }
        }
    }
    // SAFETY (all arms): forwarded caller contract.
    unsafe {
        match size {
            1 => go::<1>(fm, space, addrs, mask, signed, wide, out),
            2 => go::<2>(fm, space, addrs, mask, signed, wide, out),
            4 => go::<4>(fm, space, addrs, mask, signed, wide, out),
            8 => go::<8>(fm, space, addrs, mask, signed, wide, out),
            _ => false,
        }
    }
}

/// A store of the low `size` bytes of each active lane of `data` (`u64` lanes when `wide`,
/// else `u32`) through `fm`, lowest lane first (a later lane wins on overlap, as in
/// [`crate::env::WaveEnv::store`]). Returns false, having stored nothing, when the fast path
/// does not apply.
///
/// # Safety
/// As [`try_load`]; `data` holds 64 lanes of its width.
pub unsafe fn try_store(
    fm: &FastMemory,
    space: Space,
    addrs: *const u8,
    mask: u64,
    size: u32,
    data: *const u8,
    wide: bool,
) -> bool {
    #[inline(always)]
    unsafe fn go<const N: u32>(
        fm: &FastMemory,
        space: Space,
        addrs: *const u8,
        mask: u64,
        data: *const u8,
        wide: bool,
    ) -> bool {
        if mask == 0 {
            return true;
        }
        // SAFETY: 64 address lanes (caller).
        let Some(w) = (unsafe { first_window::<N>(fm, space, addrs, mask) }) else {
            return false;
        };
        // Every active lane inside the window before anything is stored (a fault must leave
        // memory untouched): branch-free over all lanes.
        let mut outside = 0u64;
        for l in 0..64 {
            // SAFETY: 64 address lanes (caller).
            let off = unsafe { lane(addrs, true, l) }.wrapping_sub(w.start);
            outside |= ((off > w.limit) as u64) << l;
        }
        if outside & mask != 0 {
            return false;
        }
        let store = |l: usize| {
            // SAFETY: lane `l` is active, so inside the window (checked above), whose
            // contract (`fm` fresh, caller) makes its `N` bytes writable by relaxed
            // atomics; `addrs`/`data` hold 64 lanes (caller).
            unsafe {
                let off = lane(addrs, true, l).wrapping_sub(w.start);
                store_elem(w.host.wrapping_add(off as usize), N, lane(data, wide, l));
            }
        };
        if is_prefix(mask) {
            (0..mask.count_ones() as usize).for_each(store);
        } else {
            let mut m = mask;
            while m != 0 {
                store(m.trailing_zeros() as usize);
                m &= m - 1;
            }
        }
        true
    }
    // SAFETY (all arms): forwarded caller contract.
    unsafe {
        match size {
            1 => go::<1>(fm, space, addrs, mask, data, wide),
            2 => go::<2>(fm, space, addrs, mask, data, wide),
            4 => go::<4>(fm, space, addrs, mask, data, wide),
            8 => go::<8>(fm, space, addrs, mask, data, wide),
            _ => false,
        }
    }
}

/// A scalar (SMEM) dword load at a dword-aligned `addr` through `fm`'s global windows;
/// `None` (the caller takes the [`crate::env::WaveEnv::scalar_load`] path) for anything else.
///
/// # Safety
/// `fm` came from the live [`crate::env::WaveEnv`] with no call of it since.
pub unsafe fn try_scalar_load(fm: &FastMemory, addr: u64) -> Option<u32> {
    if !addr.is_multiple_of(4) {
        return None;
    }
    let p = Win::find(fm, Space::Global, addr, 4)?.host(addr)?;
    // SAFETY: the dword lies inside the window (`find`), readable by relaxed atomics
    // (`MemWindow::new`'s contract, `fm` fresh: caller).
    Some(unsafe { load_elem(p, 4) } as u32)
}
