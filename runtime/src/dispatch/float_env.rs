//! The host float state kernels run under.
//!
//! Both engines compute GPU float ops with the host FPU, so the calling thread's float
//! control state (x86_64 MXCSR, aarch64 FPCR) would leak into results: flush-to-zero,
//! denormals-are-zero or a directed rounding mode set by the application would change them.
//! Each launch worker therefore runs its waves under the IEEE default (round to nearest even,
//! denormals kept, every exception masked) through [`KernelFloatEnv`], which puts the thread's
//! previous state back when dropped. MODE-dependent GPU behaviour (FP_ROUND, FP_DENORM) is
//! the lifter's business and never relies on the host state.

/// Rounding direction of the host FPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostRounding {
    /// Round to nearest, ties to even (the default).
    NearestEven,
    /// Toward −∞.
    Down,
    /// Toward +∞.
    Up,
    /// Toward zero.
    TowardZero,
}

/// The float controls of the calling thread that can change results (exceptions stay
/// masked: [`set_host_float_mode`] never unmasks them, so no float op can trap).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostFloatMode {
    /// Rounding direction.
    pub rounding: HostRounding,
    /// Flush denormal results to zero (x86 FTZ, aarch64 FZ).
    pub flush_to_zero: bool,
    /// Treat denormal inputs as zero (x86 DAZ; aarch64 FZ covers inputs too).
    pub denormals_are_zero: bool,
}

impl HostFloatMode {
    /// The IEEE default kernels run under.
    pub const DEFAULT: HostFloatMode = HostFloatMode {
        rounding: HostRounding::NearestEven,
        flush_to_zero: false,
        denormals_are_zero: false,
    };
}

#[cfg(target_arch = "x86_64")]
mod raw {
    //! MXCSR (Intel SDM vol. 1, 10.2.3): flags 0-5, DAZ 6, exception masks 7-12, RC 13-14
    //! (0 nearest, 1 down, 2 up, 3 toward zero), FTZ 15; power-on value 0x1F80.

    use super::{HostFloatMode, HostRounding};

    /// The default: all exceptions masked, round to nearest, no FTZ/DAZ.
    pub const DEFAULT: u32 = 0x1F80;

    /// Reads MXCSR.
    pub fn get() -> u32 {
        let mut v: u32 = 0;
        // SAFETY: STMXCSR stores 4 bytes to a valid, aligned, writable local; SSE is part
        // of the x86_64 baseline.
        unsafe {
            core::arch::asm!("stmxcsr [{}]", in(reg) &mut v as *mut u32, options(nostack, preserves_flags));
        }
        v
    }

    /// Writes MXCSR. Only the defined bits 0-15 are kept (a reserved bit would fault).
    pub fn set(v: u32) {
        let v = v & 0xFFFF;
        // SAFETY: LDMXCSR reads 4 bytes from a valid local; reserved bits are cleared above
        // so it cannot raise #GP. Callers keep the exception masks set (see `encode`) or
        // restore a value the thread had before.
        unsafe {
            core::arch::asm!("ldmxcsr [{}]", in(reg) &v as *const u32, options(nostack, preserves_flags, readonly));
        }
    }

    /// `m` over the current state `cur` (flags kept; all exceptions masked).
    pub fn encode(cur: u32, m: HostFloatMode) -> u32 {
        let rc = match m.rounding {
            HostRounding::NearestEven => 0,
            HostRounding::Down => 1,
            HostRounding::Up => 2,
            HostRounding::TowardZero => 3,
        };
        (cur & 0x3F)
            | 0x1F80
            | rc << 13
            | (m.flush_to_zero as u32) << 15
            | (m.denormals_are_zero as u32) << 6
    }

    /// The controls of `v`.
    pub fn decode(v: u32) -> HostFloatMode {
        HostFloatMode {
            rounding: match v >> 13 & 3 {
                0 => HostRounding::NearestEven,
                1 => HostRounding::Down,
                2 => HostRounding::Up,
                _ => HostRounding::TowardZero,
            },
            flush_to_zero: v >> 15 & 1 != 0,
            denormals_are_zero: v >> 6 & 1 != 0,
        }
    }
}

#[cfg(target_arch = "aarch64")]
mod raw {
    //! FPCR (Arm ARM, FPCR): trap enables 8-12 and 15 (0 = masked), FZ16 19, RMode 22-23
    //! (0 nearest, 1 +∞, 2 −∞, 3 zero), FZ 24, DN 25, AHP 26; the default is 0.

    use super::{HostFloatMode, HostRounding};

    /// The default: round to nearest, no flushing, no traps, IEEE NaNs.
    pub const DEFAULT: u32 = 0;

    /// Reads FPCR.
    pub fn get() -> u32 {
        let v: u64;
        // SAFETY: reading FPCR has no side effects; FP/SIMD is part of the aarch64 baseline.
        unsafe {
            core::arch::asm!("mrs {}, fpcr", out(reg) v, options(nomem, nostack, preserves_flags));
        }
        v as u32
    }

    /// Writes FPCR.
    pub fn set(v: u32) {
        // SAFETY: writing FPCR only changes float behaviour; callers pass a value with the
        // trap enables clear (see `encode`) or one the thread had before.
        unsafe {
            core::arch::asm!("msr fpcr, {}", in(reg) v as u64, options(nomem, nostack, preserves_flags));
        }
    }

    /// `m` over the current state `cur` (traps disabled, FZ also standing for DAZ).
    pub fn encode(cur: u32, m: HostFloatMode) -> u32 {
        let rm = match m.rounding {
            HostRounding::NearestEven => 0,
            HostRounding::Up => 1,
            HostRounding::Down => 2,
            HostRounding::TowardZero => 3,
        };
        let keep = cur & !(0x9F00 | 3 << 22 | 1 << 24);
        keep | rm << 22 | ((m.flush_to_zero || m.denormals_are_zero) as u32) << 24
    }

    /// The controls of `v`.
    pub fn decode(v: u32) -> HostFloatMode {
        let fz = v >> 24 & 1 != 0;
        HostFloatMode {
            rounding: match v >> 22 & 3 {
                0 => HostRounding::NearestEven,
                1 => HostRounding::Up,
                2 => HostRounding::Down,
                _ => HostRounding::TowardZero,
            },
            flush_to_zero: fz,
            denormals_are_zero: fz,
        }
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod raw {
    //! Other hosts: the float state is not managed (always reported as the default).

    use super::HostFloatMode;

    pub const DEFAULT: u32 = 0;
    pub fn get() -> u32 {
        0
    }
    pub fn set(_: u32) {}
    pub fn encode(_: u32, _: HostFloatMode) -> u32 {
        0
    }
    pub fn decode(_: u32) -> HostFloatMode {
        HostFloatMode::DEFAULT
    }
}

/// The calling thread's float controls.
pub fn host_float_mode() -> HostFloatMode {
    raw::decode(raw::get())
}

/// Sets the calling thread's float controls (exceptions stay masked). For applications and
/// tests; kernels run under [`HostFloatMode::DEFAULT`] whatever this thread has set.
pub fn set_host_float_mode(m: HostFloatMode) {
    raw::set(raw::encode(raw::get(), m));
}

/// While alive, the thread runs under the default float state; dropping it restores the
/// state the thread had (the whole control register, bit for bit).
#[must_use = "the default float state lasts only while the guard lives"]
pub struct KernelFloatEnv {
    saved: u32,
}

impl KernelFloatEnv {
    /// Saves the thread's float state and switches to the default.
    pub fn enter() -> KernelFloatEnv {
        let saved = raw::get();
        if saved != raw::DEFAULT {
            raw::set(raw::DEFAULT);
        }
        KernelFloatEnv { saved }
    }
}

impl Drop for KernelFloatEnv {
    fn drop(&mut self) {
        if raw::get() != self.saved {
            raw::set(self.saved);
        }
    }
}
