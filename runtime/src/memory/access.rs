//! Element accesses: global memory through host atomics, LDS and scratch through plain slices,
//! and the read-modify-write arithmetic of every [`AtomicOp`].
//!
//! Global memory may be shared by host threads, so every global access is an atomic access
//! of the element's natural size when it is naturally aligned (plain `mov`s on x86-64 and
//! aarch64 for relaxed loads/stores), and byte-wise relaxed atomics otherwise. Racing kernel
//! accesses of *different* sizes to the same bytes are relaxed atomics of mixed size, which the
//! hardware handles like a GPU does (each access is single-copy atomic at its own size).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use wavejit_translator::jit::memory::{load_elem, store_elem};

use wavejit_translator::env::AtomicOp;

/// Loads `size` (1, 2, 4 or 8) bytes, zero-extended, from global address `addr` (a relaxed
/// host atomic, [`load_elem`]).
///
/// # Safety
/// `[addr, addr + size)` must lie inside a live device allocation that stays live for the
/// call, and the memory must only be accessed through this module's atomics meanwhile.
#[inline(always)]
pub unsafe fn global_load(addr: u64, size: u32) -> u64 {
    // SAFETY: the caller's contract is `load_elem`'s for these bytes.
    unsafe { load_elem(addr as *mut u8, size) }
}

/// Stores the low `size` bytes of `val` at global address `addr` ([`store_elem`]).
///
/// # Safety
/// As [`global_load`].
#[inline(always)]
pub unsafe fn global_store(addr: u64, size: u32, val: u64) {
    // SAFETY: the caller's contract is `store_elem`'s for these bytes.
    unsafe { store_elem(addr as *mut u8, size, val) }
}

/// Calls `f(lane)` for every set bit of `mask`, lowest first; a full mask runs a plain
/// counted loop (the common case of a whole wave).
#[inline(always)]
fn each_lane(mask: u64, mut f: impl FnMut(usize)) {
    if mask == u64::MAX {
        for l in 0..64 {
            f(l);
        }
    } else {
        let mut m = mask;
        while m != 0 {
            f(m.trailing_zeros() as usize);
            m &= m - 1;
        }
    }
}

/// [`global_load`] of `size` bytes for every lane in `mask`: `out[l]` from `addrs[l]`.
/// The size dispatch happens once per request instead of once per lane.
///
/// # Safety
/// Every active lane's `[addrs[l], addrs[l] + size)` must satisfy [`global_load`]'s contract.
pub unsafe fn global_load_lanes(addrs: &[u64; 64], mask: u64, size: u32, out: &mut [u64; 64]) {
    #[inline(always)]
    unsafe fn each<const N: u32>(addrs: &[u64; 64], mask: u64, out: &mut [u64; 64]) {
        // SAFETY: the caller's contract covers every active lane at this size.
        each_lane(mask, |l| out[l] = unsafe { global_load(addrs[l], N) });
    }
    // SAFETY (all arms): forwarded caller contract; `size` is the access size.
    unsafe {
        match size {
            1 => each::<1>(addrs, mask, out),
            2 => each::<2>(addrs, mask, out),
            4 => each::<4>(addrs, mask, out),
            8 => each::<8>(addrs, mask, out),
            _ => each_lane(mask, |l| out[l] = global_load(addrs[l], size)),
        }
    }
}

/// [`global_store`] of the low `size` bytes of `data[l]` at `addrs[l]` for every lane in
/// `mask`, lowest lane first (so overlapping lanes resolve as in a per-lane loop).
///
/// # Safety
/// As [`global_load_lanes`].
pub unsafe fn global_store_lanes(addrs: &[u64; 64], mask: u64, size: u32, data: &[u64; 64]) {
    #[inline(always)]
    unsafe fn each<const N: u32>(addrs: &[u64; 64], mask: u64, data: &[u64; 64]) {
        // SAFETY: the caller's contract covers every active lane at this size.
        each_lane(mask, |l| unsafe { global_store(addrs[l], N, data[l]) });
    }
    // SAFETY (all arms): forwarded caller contract; `size` is the access size.
    unsafe {
        match size {
            1 => each::<1>(addrs, mask, data),
            2 => each::<2>(addrs, mask, data),
            4 => each::<4>(addrs, mask, data),
            8 => each::<8>(addrs, mask, data),
            _ => each_lane(mask, |l| global_store(addrs[l], size, data[l])),
        }
    }
}

/// Atomically applies `op` to the naturally aligned 4- or 8-byte element at `addr`;
/// returns the old value. The caller has checked size and alignment.
///
/// # Safety
/// As [`global_load`], and `addr` is aligned to `size` (4 or 8).
pub unsafe fn global_atomic(addr: u64, size: u32, op: AtomicOp, data: u64, cmp: u64) -> u64 {
    if size == 8 {
        // SAFETY: valid, 8-byte aligned, atomically accessed (caller).
        let a = unsafe { AtomicU64::from_ptr(addr as *mut u64) };
        match op {
            AtomicOp::Swap => a.swap(data, Relaxed),
            AtomicOp::Add => a.fetch_add(data, Relaxed),
            AtomicOp::Sub => a.fetch_sub(data, Relaxed),
            AtomicOp::And => a.fetch_and(data, Relaxed),
            AtomicOp::Or => a.fetch_or(data, Relaxed),
            AtomicOp::Xor => a.fetch_xor(data, Relaxed),
            AtomicOp::UMin => a.fetch_min(data, Relaxed),
            AtomicOp::UMax => a.fetch_max(data, Relaxed),
            _ => {
                let mut old = a.load(Relaxed);
                loop {
                    let new = rmw(op, 8, old, data, cmp);
                    match a.compare_exchange_weak(old, new, Relaxed, Relaxed) {
                        Ok(v) => return v,
                        Err(v) => old = v,
                    }
                }
            }
        }
    } else {
        // SAFETY: valid, 4-byte aligned, atomically accessed (caller).
        let a = unsafe { AtomicU32::from_ptr(addr as *mut u32) };
        let d = data as u32;
        (match op {
            AtomicOp::Swap => a.swap(d, Relaxed),
            AtomicOp::Add => a.fetch_add(d, Relaxed),
            AtomicOp::Sub => a.fetch_sub(d, Relaxed),
            AtomicOp::And => a.fetch_and(d, Relaxed),
            AtomicOp::Or => a.fetch_or(d, Relaxed),
            AtomicOp::Xor => a.fetch_xor(d, Relaxed),
            AtomicOp::UMin => a.fetch_min(d, Relaxed),
            AtomicOp::UMax => a.fetch_max(d, Relaxed),
            _ => {
                let mut old = a.load(Relaxed);
                loop {
                    let new = rmw(op, 4, old as u64, data, cmp) as u32;
                    match a.compare_exchange_weak(old, new, Relaxed, Relaxed) {
                        Ok(v) => break v,
                        Err(v) => old = v,
                    }
                }
            }
        }) as u64
    }
}

/// The value an atomic `op` of `size` bytes (4 or 8) writes, given the old value.
/// Results are truncated to `size` bytes.
pub fn rmw(op: AtomicOp, size: u32, old: u64, data: u64, cmp: u64) -> u64 {
    let mask = if size >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * size)) - 1
    };
    let (old, data, cmp) = (old & mask, data & mask, cmp & mask);
    // Sign-extend for the signed comparisons.
    let sx = |v: u64| -> i64 {
        if size >= 8 {
            v as i64
        } else {
            let sh = 64 - 8 * size;
            ((v << sh) as i64) >> sh
        }
    };
    let r = match op {
        AtomicOp::Swap => data,
        AtomicOp::CmpSwap => {
            if old == cmp {
                data
            } else {
                old
            }
        }
        AtomicOp::Add => old.wrapping_add(data),
        AtomicOp::Sub => old.wrapping_sub(data),
        AtomicOp::SMin => {
            if sx(data) < sx(old) {
                data
            } else {
                old
            }
        }
        AtomicOp::SMax => {
            if sx(data) > sx(old) {
                data
            } else {
                old
            }
        }
        AtomicOp::UMin => old.min(data),
        AtomicOp::UMax => old.max(data),
        AtomicOp::And => old & data,
        AtomicOp::Or => old | data,
        AtomicOp::Xor => old ^ data,
        // ISA: tmp = MEM; MEM = (tmp >= DATA) ? 0 : tmp + 1.
        AtomicOp::Inc => {
            if old >= data {
                0
            } else {
                old + 1
            }
        }
        // ISA: MEM = (tmp == 0 || tmp > DATA) ? DATA : tmp - 1.
        AtomicOp::Dec => {
            if old == 0 || old > data {
                data
            } else {
                old - 1
            }
        }
        AtomicOp::FAdd => float_op(size, old, data, |a, b| a + b, |a, b| a + b),
        AtomicOp::FMin => float_op(size, old, data, min_num32, min_num64),
        AtomicOp::FMax => float_op(size, old, data, max_num32, max_num64),
        other => wavejit_translator::sem::atomic_extra(other, size, old, data, cmp).unwrap_or(old),
    };
    r & mask
}

fn float_op(
    size: u32,
    old: u64,
    data: u64,
    f32op: fn(f32, f32) -> f32,
    f64op: fn(f64, f64) -> f64,
) -> u64 {
    if size == 8 {
        f64op(f64::from_bits(old), f64::from_bits(data)).to_bits()
    } else {
        f32op(f32::from_bits(old as u32), f32::from_bits(data as u32)).to_bits() as u64
    }
}

/// IEEE-754 minNum: a NaN operand yields the other operand; −0 is less than +0.
fn min_num32(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a < b || (a == b && a.is_sign_negative()) {
        a
    } else {
        b
    }
}
fn max_num32(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a > b || (a == b && a.is_sign_positive()) {
        a
    } else {
        b
    }
}
fn min_num64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a < b || (a == b && a.is_sign_negative()) {
        a
    } else {
        b
    }
}
fn max_num64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a > b || (a == b && a.is_sign_positive()) {
        a
    } else {
        b
    }
}

/// Loads `size` bytes little-endian from `mem[off..]`; `None` when out of range.
pub fn slice_load(mem: &[u8], off: u64, size: u32) -> Option<u64> {
    let off = usize::try_from(off).ok()?;
    let bytes = mem.get(off..off.checked_add(size as usize)?)?;
    Some(
        bytes
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | b as u64),
    )
}

/// Stores the low `size` bytes of `val` little-endian at `mem[off..]`; false when out of range.
pub fn slice_store(mem: &mut [u8], off: u64, size: u32, val: u64) -> bool {
    let Ok(off) = usize::try_from(off) else {
        return false;
    };
    let Some(end) = off.checked_add(size as usize) else {
        return false;
    };
    match mem.get_mut(off..end) {
        Some(bytes) => {
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = (val >> (8 * i)) as u8;
            }
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rmw_integer_ops_follow_the_isa_pseudocode() {
        assert_eq!(rmw(AtomicOp::Add, 4, 0xFFFF_FFFF, 2, 0), 1);
        assert_eq!(rmw(AtomicOp::Sub, 4, 1, 2, 0), 0xFFFF_FFFF);
        assert_eq!(rmw(AtomicOp::SMin, 4, 5, 0xFFFF_FFFE, 0), 0xFFFF_FFFE); // -2 < 5
        assert_eq!(rmw(AtomicOp::UMin, 4, 5, 0xFFFF_FFFE, 0), 5);
        assert_eq!(rmw(AtomicOp::SMax, 8, u64::MAX, 3, 0), 3); // -1 < 3
        assert_eq!(rmw(AtomicOp::UMax, 8, u64::MAX, 3, 0), u64::MAX);
        assert_eq!(rmw(AtomicOp::CmpSwap, 4, 7, 9, 7), 9);
        assert_eq!(rmw(AtomicOp::CmpSwap, 4, 7, 9, 8), 7);
        // inc: old >= data wraps to 0.
        assert_eq!(rmw(AtomicOp::Inc, 4, 3, 3, 0), 0);
        assert_eq!(rmw(AtomicOp::Inc, 4, 2, 3, 0), 3);
        // dec: 0 or above data reloads data.
        assert_eq!(rmw(AtomicOp::Dec, 4, 0, 3, 0), 3);
        assert_eq!(rmw(AtomicOp::Dec, 4, 9, 3, 0), 3);
        assert_eq!(rmw(AtomicOp::Dec, 4, 2, 3, 0), 1);
        assert_eq!(rmw(AtomicOp::Xor, 4, 0b1100, 0b1010, 0), 0b0110);
    }

    #[test]
    fn rmw_float_ops() {
        let f = |v: f32| v.to_bits() as u64;
        assert_eq!(rmw(AtomicOp::FAdd, 4, f(1.5), f(2.25), 0), f(3.75));
        assert_eq!(
            rmw(AtomicOp::FAdd, 8, 1.5f64.to_bits(), 0.25f64.to_bits(), 0),
            1.75f64.to_bits()
        );
        assert_eq!(rmw(AtomicOp::FMin, 4, f(f32::NAN), f(2.0), 0), f(2.0));
        assert_eq!(rmw(AtomicOp::FMax, 4, f(3.0), f(f32::NAN), 0), f(3.0));
        assert_eq!(rmw(AtomicOp::FMin, 4, f(0.0), f(-0.0), 0), f(-0.0));
        assert_eq!(rmw(AtomicOp::FMax, 4, f(-0.0), f(0.0), 0), f(0.0));
        assert_eq!(rmw(AtomicOp::FMin, 4, f(-1.0), f(2.0), 0), f(-1.0));
    }

    #[test]
    fn slice_access_checks_bounds() {
        let mut m = vec![0u8; 8];
        assert!(slice_store(&mut m, 2, 4, 0xAABB_CCDD));
        assert_eq!(m, [0, 0, 0xDD, 0xCC, 0xBB, 0xAA, 0, 0]);
        assert_eq!(slice_load(&m, 2, 2), Some(0xCCDD));
        assert!(!slice_store(&mut m, 6, 4, 1));
        assert_eq!(slice_load(&m, 5, 4), None);
        assert_eq!(slice_load(&m, u64::MAX, 4), None);
    }
}
