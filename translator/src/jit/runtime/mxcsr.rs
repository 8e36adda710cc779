//! The host's flush-to-zero mode (x86 MXCSR.FTZ, bit 15) for generated code.
//!
//! The loop variant of a block in a flushing MODE runs its f32/f64 adds, multiplies and
//! FMAs with FTZ set, so the host flushes their results instead of a vector flush per
//! result (`jit::lower::ftz`). Generated code switches FTZ on at the variant's start and off
//! before every return, tail call and helper call, so Rust code (helpers, the run loop)
//! always sees the MXCSR it had. DAZ (bit 6) is never set: operands are never read as zero.
//!
//! Only the status flags (sticky exception bits) may differ afterwards: FTZ results raise
//! underflow and inexact.

/// MXCSR's flush-to-zero bit.
pub const FTZ: u32 = 1 << 15;

/// Whether this host has the MXCSR (generated code uses FTZ only where it does).
pub const AVAILABLE: bool = cfg!(target_arch = "x86_64");

/// The current MXCSR (0 on other hosts).
pub fn read() -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        let mut v: u32 = 0;
        // SAFETY: `stmxcsr` stores the 4-byte MXCSR to `v`, a live local the pointer
        // refers to; it has no other effect.
        unsafe {
            core::arch::asm!("stmxcsr [{p}]", p = in(reg) &mut v as *mut u32, options(nostack));
        }
        v
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

/// Writes the MXCSR (no effect on other hosts): for tests, with a value [`read`] returned
/// with only FTZ changed (a reserved bit set faults).
#[cfg(all(test, target_arch = "x86_64"))]
fn write(v: u32) {
    // SAFETY: `ldmxcsr` loads the 4-byte MXCSR from `v`, a live local; callers pass a value
    // read by `stmxcsr` with only bit 15 (FTZ, defined on every x86-64 CPU) changed, so no
    // reserved bit is set. The mode change affects only this thread's float results.
    unsafe {
        core::arch::asm!("ldmxcsr [{p}]", p = in(reg) &v as *const u32, options(nostack, readonly));
    }
}

/// Sets MXCSR.FTZ. Called by generated code in Cranelift's `preserve_all` convention: it
/// changes no register (flags aside), so values live across the call stay in registers.
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
pub extern "C" fn h_ftz_on() {
    // SAFETY (naked body): reads MXCSR into the 8 bytes it reserves below the return
    // address, sets bit 15 (FTZ, defined on every x86-64 CPU: no reserved bit is set), loads
    // it back and releases the stack it took; every register is left as it was.
    core::arch::naked_asm!(
        "sub rsp, 8",
        "stmxcsr dword ptr [rsp]",
        "or dword ptr [rsp], 0x8000",
        "ldmxcsr dword ptr [rsp]",
        "add rsp, 8",
        "ret",
    )
}

/// Clears MXCSR.FTZ ([`h_ftz_on`]'s counterpart, the same convention).
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
pub extern "C" fn h_ftz_off() {
    // SAFETY (naked body): as `h_ftz_on`, clearing bit 15 instead.
    core::arch::naked_asm!(
        "sub rsp, 8",
        "stmxcsr dword ptr [rsp]",
        "and dword ptr [rsp], 0xffff7fff",
        "ldmxcsr dword ptr [rsp]",
        "add rsp, 8",
        "ret",
    )
}

/// No MXCSR on this host: generated code never calls this ([`AVAILABLE`] is false).
#[cfg(not(target_arch = "x86_64"))]
pub extern "C" fn h_ftz_on() {}

/// No MXCSR on this host: generated code never calls this ([`AVAILABLE`] is false).
#[cfg(not(target_arch = "x86_64"))]
pub extern "C" fn h_ftz_off() {}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// `a * b` in f32 on the host, with FTZ set or not (through `read`/`write`, with the
    /// operands opaque so the multiply happens between the two writes).
    fn mul(a: f32, b: f32, ftz: bool) -> u32 {
        let old = read();
        write(if ftz { old | FTZ } else { old & !FTZ });
        let r = std::hint::black_box(std::hint::black_box(a) * std::hint::black_box(b));
        write(old);
        r.to_bits()
    }

    /// IEEE result flushed afterwards (the ISA's output flush as the interpreter does it).
    fn flush(x: u32) -> u32 {
        if x & 0x7f80_0000 == 0 {
            x & 0x8000_0000
        } else {
            x
        }
    }

    /// The host experiment behind `jit::lower::ftz`: FTZ detects tininess after rounding
    /// (unbounded exponent), so a product just below MIN_NORMAL that IEEE rounding takes
    /// up to MIN_NORMAL is ±0 under FTZ; every other product agrees with IEEE + flush.
    #[test]
    fn ftz_differs_from_ieee_and_flush_only_below_min_normal() {
        // (1 - 2^-24) * 2^-126 = 2^-126 - 2^-150: a tie, IEEE rounds to 2^-126.
        let (a, b) = (f32::from_bits(0x3f7f_ffff), f32::from_bits(0x0080_0000));
        assert_eq!(flush(mul(a, b, false)), 0x0080_0000);
        assert_eq!(mul(a, b, true), 0);
        assert_eq!(mul(-a, b, true), 0x8000_0000);
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let (mut band, mut other) = (0, 0);
        for _ in 0..200_000 {
            let a = f32::from_bits(0x3f80_0000 | (next() as u32 & 0x7f_ffff));
            // Products within a few ulps of MIN_NORMAL and random ones near it.
            let target =
                f64::from(f32::MIN_POSITIVE) * (1.0 - (next() % 64) as f64 * 2f64.powi(-30));
            let b = (target / f64::from(a)) as f32;
            let b = if next() & 1 == 1 { -b } else { b };
            let exact = (f64::from(a) * f64::from(b)).abs(); // exact: 24 + 24 bits
            let min = f64::from(f32::MIN_POSITIVE);
            let in_band = exact >= min - 2f64.powi(-150) && exact < min - 2f64.powi(-151);
            let (ieee, ftz) = (flush(mul(a, b, false)), mul(a, b, true));
            if in_band {
                band += 1;
                assert_eq!(ieee & 0x7fff_ffff, 0x0080_0000);
                assert_eq!(ftz, ieee & 0x8000_0000, "{a:e} * {b:e}");
            } else {
                other += 1;
                assert_eq!(ftz, ieee, "{a:e} * {b:e}");
            }
        }
        assert!(band > 1000 && other > 1000, "{band} {other}");
        // The helpers restore what they change.
        let before = read();
        h_ftz_on();
        assert_eq!(read() & FTZ, FTZ);
        h_ftz_off();
        assert_eq!(read(), before & !FTZ);
    }
}
