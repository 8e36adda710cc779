//! The host's float environment (x86 MXCSR) for generated code: flush-to-zero (FTZ, bit 15)
//! and the rounding direction (RC, bits 13–14).
//!
//! Generated code runs some of its float arithmetic under an environment other than the
//! caller's (`jit::lower::fenv`): a flush-mode loop variant's fast copies with FTZ, a
//! block compiled under a directed MODE.FP_ROUND with that direction in RC. It enters the
//! environment with [`h_fenv_enter`], which saves the caller's MXCSR in a slot of the
//! generated function's frame, and leaves it with [`h_fenv_leave`], which loads that saved
//! value back, before every return, tail call and helper call (and enters it again after a
//! call). So Rust code (helpers, the run loop, an embedder that itself runs with FTZ or a
//! directed RC) always sees the MXCSR it had. DAZ (bit 6) is never set: operands are never
//! read as zero.
//!
//! Only the status flags (sticky exception bits) may differ afterwards: results computed
//! in the environment raise underflow and inexact.

use crate::ir::Round;

/// MXCSR's flush-to-zero bit.
pub const FTZ: u32 = 1 << 15;

/// MXCSR's rounding-control field (bits 13–14).
pub const RC_MASK: u32 = 3 << 13;

/// The RC field for rounding direction `rm` (SDM vol. 1, 10.2.3.3: 00 nearest even,
/// 01 toward −∞, 10 toward +∞, 11 toward zero).
pub const fn rc_bits(rm: Round) -> u32 {
    (match rm {
        Round::NearestEven => 0,
        Round::Down => 1,
        Round::Up => 2,
        Round::Zero => 3,
    }) << 13
}

/// Whether this host has the MXCSR (generated code uses it only where it does).
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

/// MXCSR's status flags (bits 0–5: invalid, denormal, divide by zero, overflow, underflow,
/// precision), which float code sets as it goes and generated code does not restore.
pub const STATUS_FLAGS: u32 = 0x3f;

/// The current MXCSR's control bits (without [`STATUS_FLAGS`]).
pub fn control() -> u32 {
    read() & !STATUS_FLAGS
}

/// Sets this thread's FTZ and RC fields to those of `env` (other bits unchanged; no effect
/// on other hosts). For tests and embedders that want to run under a given environment.
pub fn set_env(env: u32) {
    #[cfg(target_arch = "x86_64")]
    {
        let v = (read() & !(FTZ | RC_MASK)) | (env & (FTZ | RC_MASK));
        // SAFETY: `ldmxcsr` loads the 4-byte MXCSR from `v`, a live local; `v` is the
        // current MXCSR with only FTZ and RC (defined on every x86-64 CPU) changed, so no
        // reserved bit is set. The mode change affects only this thread's float results.
        unsafe {
            core::arch::asm!("ldmxcsr [{p}]", p = in(reg) &v as *const u32, options(nostack, readonly));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = env;
}

/// Saves the MXCSR to `*save` and sets its FTZ and RC fields to those of `env` (other bits
/// as they were). Called by generated code in Cranelift's `preserve_all` convention with
/// `save` a 4-byte slot of its frame: it changes no register (flags aside), so values live
/// across the call stay in registers.
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
pub extern "C" fn h_fenv_enter(save: *mut u32, env: u32) {
    // SAFETY (naked body): stores MXCSR to `save` (rdi, a writable 4-byte slot the caller
    // passes), builds the new value in eax (saved and restored on the 16 bytes it reserves
    // below the return address) with only bits 13–15 (RC and FTZ, defined on every x86-64
    // CPU) taken from `env` (esi), so no reserved bit is set, loads it, and releases the
    // stack; every register is left as it was.
    core::arch::naked_asm!(
        "sub rsp, 16",
        "mov [rsp + 8], rax",
        "stmxcsr dword ptr [rdi]",
        "mov eax, esi",
        "and eax, 0xe000",
        "mov dword ptr [rsp], eax",
        "mov eax, dword ptr [rdi]",
        "and eax, 0xffff1fff",
        "or eax, dword ptr [rsp]",
        "mov dword ptr [rsp], eax",
        "ldmxcsr dword ptr [rsp]",
        "mov rax, [rsp + 8]",
        "add rsp, 16",
        "ret",
    )
}

/// Loads the MXCSR [`h_fenv_enter`] saved at `save` (the same convention).
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
pub extern "C" fn h_fenv_leave(save: *const u32) {
    // SAFETY (naked body): loads MXCSR from `save` (rdi), the slot `h_fenv_enter` filled
    // with a value `stmxcsr` stored (no reserved bit set); changes no register.
    core::arch::naked_asm!("ldmxcsr dword ptr [rdi]", "ret")
}

/// No MXCSR on this host: generated code never calls this ([`AVAILABLE`] is false).
#[cfg(not(target_arch = "x86_64"))]
pub extern "C" fn h_fenv_enter(_save: *mut u32, _env: u32) {}

/// No MXCSR on this host: generated code never calls this ([`AVAILABLE`] is false).
#[cfg(not(target_arch = "x86_64"))]
pub extern "C" fn h_fenv_leave(_save: *const u32) {}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use std::hint::black_box as bb;

    /// `f()` run with the environment `env` (FTZ and RC bits), the caller's restored after.
    /// LLVM does not model the float environment: `f` must take its operands through
    /// `black_box` and return its results through it, so the arithmetic stays between the
    /// two MXCSR writes.
    fn under<T>(env: u32, f: impl FnOnce() -> T) -> T {
        let old = read();
        set_env(env);
        let r = f();
        set_env(old);
        r
    }

    /// `a * b` in f32 on the host, with FTZ set or not (operands opaque, so the multiply
    /// happens between the two writes).
    fn mul(a: f32, b: f32, ftz: bool) -> u32 {
        under(if ftz { FTZ } else { 0 }, || bb(bb(a) * bb(b)).to_bits())
    }

    /// IEEE result flushed afterwards (the ISA's output flush as the interpreter does it).
    fn flush(x: u32) -> u32 {
        if x & 0x7f80_0000 == 0 {
            x & 0x8000_0000
        } else {
            x
        }
    }

    /// The host experiment behind `jit::lower::fenv`'s FTZ: FTZ detects tininess after
    /// rounding (unbounded exponent), so a product just below MIN_NORMAL that IEEE rounding
    /// takes up to MIN_NORMAL is ±0 under FTZ; every other product agrees with IEEE + flush.
    #[test]
    fn ftz_differs_from_ieee_and_flush_only_below_min_normal() {
        // (1 - 2^-24) * 2^-126 = 2^-126 - 2^-150: a tie, IEEE rounds to 2^-126.
        let (a, b) = (f32::from_bits(0x3f7f_ffff), f32::from_bits(0x0080_0000));
        assert_eq!(flush(mul(a, b, false)), 0x0080_0000);
        assert_eq!(mul(a, b, true), 0);
        assert_eq!(mul(-a, b, true), 0x8000_0000);
        let mut next = rng();
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
    }

    fn rng() -> impl FnMut() -> u64 {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }

    /// The f32 one ulp from `r` toward +∞ (`up`) or −∞, across zero as well.
    fn step(r: f32, up: bool) -> f32 {
        let b = r.to_bits();
        let n = match (r.is_sign_negative(), up) {
            (false, true) => b + 1,
            (false, false) if b == 0 => 0x8000_0001,
            (false, false) => b - 1,
            (true, true) if b == 0x8000_0000 => 1,
            (true, true) => b - 1,
            (true, false) => b + 1,
        };
        f32::from_bits(n)
    }

    /// `x` (an exact value in f64) rounded to f32 in direction `rm`, independently of the
    /// host's RC: round to nearest, then one step toward the direction when that went the
    /// wrong way (f32 overflow aside: callers keep `x` in range).
    fn round_f32(x: f64, rm: Round) -> f32 {
        let r = x as f32;
        let rf = f64::from(r);
        match rm {
            Round::NearestEven => r,
            Round::Up if rf < x => step(r, true),
            Round::Down if rf > x => step(r, false),
            Round::Zero if rf.abs() > x.abs() => step(r, x < 0.0),
            _ => r,
        }
    }

    /// The host experiment behind `jit::lower::fenv`'s directed rounding: under MXCSR.RC
    /// the host's f32 add, subtract, multiply, FMA, divide and square root give the result
    /// rounded once in that direction (against an exact f64 oracle); f64 → f32 and i32 →
    /// f32 conversions follow RC too (so an IR conversion, which rounds to nearest, keeps
    /// RC off), while the truncating conversion and round-to-integral with an immediate
    /// mode ignore it. The entry/leave helpers restore the caller's MXCSR exactly.
    #[test]
    fn rc_rounds_f32_arithmetic_once_in_its_direction() {
        let mut next = rng();
        // Operands of 24 bits in [1, 2) · 2^e, e in -1..=1, either sign: sums, products
        // and `a·b + c` are exact in f64 (bits from 2^-48 to 2^4: at most 53).
        let mut val = || {
            let m = 0x3f80_0000 | (next() as u32 & 0x7f_ffff);
            let e = (next() % 3) as u32;
            let s = (next() as u32 & 1) << 31;
            f32::from_bits((m - (1 << 23) + (e << 23)) | s)
        };
        for rm in Round::ALL {
            let env = rc_bits(rm);
            for _ in 0..50_000 {
                let (a, b, c) = (val(), val(), val());
                let (x, y, z) = (f64::from(a), f64::from(b), f64::from(c));
                let host = under(env, || {
                    let (a, b, c) = (bb(a), bb(b), bb(c));
                    bb([a + b, a - b, a * b, a.mul_add(b, c), a / b, a.abs().sqrt()])
                });
                let want = [x + y, x - y, x * y, x * y + z].map(|v| round_f32(v, rm));
                for k in 0..4 {
                    assert_eq!(
                        host[k].to_bits(),
                        want[k].to_bits(),
                        "{rm:?} op {k}: {a} {b} {c}"
                    );
                }
                // Division and square root: the host result brackets the exact value with
                // its neighbour the way the direction asks (`v·b` and `v²` are exact in f64).
                let quot = |v: f32| (f64::from(v) * y - x) * y.signum(); // sign of v − a/b
                let root = |v: f32| f64::from(v) * f64::from(v) - x.abs(); // sign of v − √|a|
                for (k, v) in [host[4], host[5]].into_iter().enumerate() {
                    let rel = |v: f32| if k == 0 { quot(v) } else { root(v) };
                    // The exact quotient or root is positive.
                    let positive = k == 1 || x * y > 0.0;
                    let up = match rm {
                        Round::Up => true,
                        Round::Down => false,
                        Round::Zero => !positive,
                        Round::NearestEven => continue,
                    };
                    if up {
                        assert!(
                            rel(v) >= 0.0 && rel(step(v, false)) < 0.0,
                            "{rm:?} {k} {a} {b}"
                        );
                    } else {
                        assert!(
                            rel(v) <= 0.0 && rel(step(v, true)) > 0.0,
                            "{rm:?} {k} {a} {b}"
                        );
                    }
                }
            }
            // Conversions: cvtsd2ss and cvtdq2ps follow RC; cvttss2si and roundss do not.
            let (third, big) = (1.0f64 / 3.0, 16_777_217i32);
            let (d, i, t, f) = under(env, || {
                bb((
                    bb(third) as f32,
                    bb(big) as f32,
                    bb(2.7f32) as i32,
                    bb(2.5f32).floor(),
                ))
            });
            assert_eq!(d, round_f32(third, rm), "{rm:?}");
            assert_eq!(i, round_f32(f64::from(big), rm), "{rm:?}");
            assert_eq!((t, f), (2, 2.0));
        }
        // Enter and leave: the environment's bits in between, the caller's exact MXCSR after,
        // also when the caller runs with FTZ and a directed RC itself.
        for caller in [0, FTZ | rc_bits(Round::Up), rc_bits(Round::Zero)] {
            under(caller, || {
                let before = read();
                let mut slot = 0u32;
                for env in [FTZ, rc_bits(Round::Down), rc_bits(Round::NearestEven)] {
                    h_fenv_enter(&mut slot, env);
                    let inside = read();
                    h_fenv_leave(&slot);
                    assert_eq!(inside, (before & !(FTZ | RC_MASK)) | env);
                    assert_eq!(read(), before);
                }
            });
        }
    }
}
