//! Host memory as device memory, for callers whose GPU addresses are host addresses
//! (mock-GPU harnesses, the C `run_asm` entry): host ranges the caller registers, and, when
//! the caller opts in, the process's writable mappings.
//!
//! A registered range is a region of the [`DeviceMemory`] registry that the registry does not
//! own: kernels access it exactly like an allocation (checked, through host atomics), it is
//! never deallocated, and [`DeviceMemory::free`] leaves it alone. Registered ranges never
//! overlap each other or an allocation, which keeps the registry's lookup (last region that
//! starts at or below an address) exact.
//!
//! [`HostCheck::Mappings`] also accepts kernel accesses that lie in one writable mapping of
//! the process (`/proc/self/maps`, read again at the first such lookup of every launch, so a
//! mapping removed between launches is never trusted). That turns wild addresses into fault
//! reports instead of segfaults, but a kernel can then write any writable memory of the
//! process, its own data structures included: enabling it is `unsafe`.

use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::RwLock;

use thiserror::Error;
use wavejit_translator::env::SHARED_APERTURE_BASE;

use super::{DeviceMemory, Region};

/// Which host memory kernel accesses may reach besides the device's own allocations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum HostCheck {
    /// Only allocations and registered host ranges (the default).
    #[default]
    Registered,
    /// Also any writable mapping of the process.
    Mappings,
    /// [`HostCheck::Mappings`] while no host range is registered, [`HostCheck::Registered`]
    /// from the first registration on (a harness that registers its buffers gets strict
    /// checking; one that registers nothing still runs).
    Auto,
}

impl HostCheck {
    fn to_u8(self) -> u8 {
        match self {
            HostCheck::Registered => 0,
            HostCheck::Mappings => 1,
            HostCheck::Auto => 2,
        }
    }
    fn from_u8(v: u8) -> HostCheck {
        match v {
            1 => HostCheck::Mappings,
            2 => HostCheck::Auto,
            _ => HostCheck::Registered,
        }
    }
}

/// Why a host range cannot be registered.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RegisterError {
    /// Null pointer, zero length, or a range that wraps or reaches the FLAT apertures.
    #[error("cannot register host memory at {addr:#x} of {len} bytes: {why}")]
    BadRange {
        /// Start address.
        addr: u64,
        /// Length in bytes.
        len: u64,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The range overlaps a registered range or an allocation.
    #[error("host memory [{addr:#x}, +{len:#x}) overlaps the registered range or allocation [{other:#x}, +{other_len:#x})")]
    Overlap {
        /// Start address.
        addr: u64,
        /// Length in bytes.
        len: u64,
        /// Start of the region it overlaps.
        other: u64,
        /// Length of that region.
        other_len: u64,
    },
}

/// Host-memory state of a [`DeviceMemory`].
#[derive(Debug, Default)]
pub(crate) struct HostState {
    check: AtomicU8,
    /// Registered host ranges (for [`HostCheck::Auto`]).
    registered: AtomicUsize,
    /// The process's writable mappings `(start, len)`, sorted, adjacent ones merged.
    maps: RwLock<Vec<(u64, u64)>>,
    /// `maps` must be read again before it is trusted (set at every launch).
    stale: AtomicBool,
}

impl HostState {
    /// Called when a launch begins: mappings may have changed since the last one.
    pub(crate) fn begin_launch(&self) {
        self.stale.store(true, Ordering::Release);
    }

    fn mappings_allowed(&self) -> bool {
        match HostCheck::from_u8(self.check.load(Ordering::Relaxed)) {
            HostCheck::Registered => false,
            HostCheck::Mappings => true,
            HostCheck::Auto => self.registered.load(Ordering::Relaxed) == 0,
        }
    }

    /// The writable mapping `(start, len)` containing `[addr, addr + len)`.
    fn mapping(&self, addr: u64, len: u64) -> Option<(u64, u64)> {
        let end = addr.checked_add(len)?;
        if end > SHARED_APERTURE_BASE {
            return None;
        }
        if self.stale.load(Ordering::Acquire) {
            // The write lock is taken before the flag is cleared, so a thread that sees the
            // flag cleared waits on the lock until the fresh list is in place (clearing it
            // first let a second worker read the old, possibly empty, list meanwhile).
            let mut maps = self.maps.write().unwrap_or_else(|e| e.into_inner());
            if self.stale.swap(false, Ordering::AcqRel) {
                *maps = read_writable_mappings();
            }
        }
        let maps = self.maps.read().unwrap_or_else(|e| e.into_inner());
        let i = maps.partition_point(|&(s, _)| s <= addr);
        let &(s, l) = maps.get(i.checked_sub(1)?)?;
        (end <= s + l).then_some((s, l))
    }
}

/// The writable mappings of this process, sorted and merged; empty where `/proc/self/maps`
/// is unavailable (then [`HostCheck::Mappings`] accepts nothing beyond registered memory).
fn read_writable_mappings() -> Vec<(u64, u64)> {
    let Ok(text) = std::fs::read_to_string("/proc/self/maps") else {
        return Vec::new();
    };
    let mut out: Vec<(u64, u64)> = Vec::new();
    for line in text.lines() {
        let mut f = line.split_ascii_whitespace();
        let (Some(range), Some(perms)) = (f.next(), f.next()) else {
            continue;
        };
        if !perms.starts_with("rw") {
            continue;
        }
        let Some((a, b)) = range.split_once('-') else {
            continue;
        };
        let (Ok(a), Ok(b)) = (u64::from_str_radix(a, 16), u64::from_str_radix(b, 16)) else {
            continue;
        };
        if b <= a {
            continue;
        }
        match out.last_mut() {
            Some((s, l)) if *s + *l == a => *l += b - a,
            _ => out.push((a, b - a)),
        }
    }
    out.sort_unstable();
    out
}

impl DeviceMemory {
    /// Registers the host range `[addr, addr + len)` as device memory: kernels may access it
    /// (checked like an allocation) until [`DeviceMemory::unregister_host`]. Registering
    /// exactly the same range again is accepted and changes nothing.
    ///
    /// # Safety
    ///
    /// The range must be valid, writable host memory until it is unregistered (or the
    /// memory dropped), and nothing may access it through Rust references while a launch
    /// runs: kernels read and write it through relaxed atomics.
    pub unsafe fn register_host(&self, addr: u64, len: u64) -> Result<(), RegisterError> {
        let bad = |why| RegisterError::BadRange { addr, len, why };
        if addr == 0 {
            return Err(bad("null pointer"));
        }
        if len == 0 {
            return Err(bad("zero length"));
        }
        let end = addr.checked_add(len).ok_or(bad("the range wraps"))?;
        if end > SHARED_APERTURE_BASE {
            return Err(bad("the range reaches the FLAT aperture addresses"));
        }
        let len_us = usize::try_from(len).map_err(|_| bad("longer than the address space"))?;
        let mut regions = self.regions.write().unwrap_or_else(|e| e.into_inner());
        if let Some((&s, r)) = regions
            .range((Bound::Unbounded, Bound::Excluded(end)))
            .next_back()
        {
            if s == addr && r.len == len_us && r.backing.is_none() {
                return Ok(());
            }
            if s >= addr || s + r.len as u64 > addr {
                return Err(RegisterError::Overlap {
                    addr,
                    len,
                    other: s,
                    other_len: r.len as u64,
                });
            }
        }
        regions.insert(
            addr,
            Region {
                len: len_us,
                backing: None,
            },
        );
        self.host.registered.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Unregisters the host range that starts at `addr` (waits for running launches);
    /// false when no registered range starts there.
    pub fn unregister_host(&self, addr: u64) -> bool {
        let _g = self.gate.write().unwrap_or_else(|e| e.into_inner());
        let mut regions = self.regions.write().unwrap_or_else(|e| e.into_inner());
        if regions.get(&addr).is_some_and(|r| r.backing.is_none()) {
            regions.remove(&addr);
            self.host.registered.fetch_sub(1, Ordering::Relaxed);
            true
        } else {
            false
        }
    }

    /// Number of registered host ranges.
    pub fn host_range_count(&self) -> usize {
        self.host.registered.load(Ordering::Relaxed)
    }

    /// The current [`HostCheck`].
    pub fn host_check(&self) -> HostCheck {
        HostCheck::from_u8(self.host.check.load(Ordering::Relaxed))
    }

    /// Sets which host memory kernels may reach (see [`HostCheck`]).
    ///
    /// # Safety
    ///
    /// With [`HostCheck::Mappings`] or [`HostCheck::Auto`] a kernel may write any writable
    /// memory of the process (it cannot reach unmapped or read-only memory): the caller
    /// guarantees that the kernels it launches address only memory it owns and that no Rust
    /// reference to such memory is live during a launch.
    pub unsafe fn set_host_check(&self, check: HostCheck) {
        self.host.check.store(check.to_u8(), Ordering::Relaxed);
    }

    /// The region `(start, len)` a kernel access of `[addr, addr + len)` may use: an
    /// allocation or registered range, or, as [`HostCheck`] allows, a writable mapping.
    pub fn find_for_kernel(&self, addr: u64, len: u64) -> Option<(u64, u64)> {
        self.find(addr, len).or_else(|| {
            if self.host.mappings_allowed() {
                self.host.mapping(addr, len)
            } else {
                None
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_ranges_are_checked_and_never_freed() {
        let m = DeviceMemory::new();
        let mut host = vec![7u8; 256];
        let a = host.as_mut_ptr() as u64;
        // SAFETY: `host` outlives `m`'s use of it and is not touched while registered.
        unsafe { m.register_host(a + 16, 64).unwrap() };
        unsafe { m.register_host(a + 16, 64).unwrap() }; // same range again: accepted
        assert_eq!(m.host_range_count(), 1);
        assert_eq!(m.find_for_kernel(a + 16, 64), Some((a + 16, 64)));
        assert_eq!(m.find_for_kernel(a + 20, 8), Some((a + 16, 64)));
        assert_eq!(m.find_for_kernel(a + 70, 16), None, "runs past the end");
        assert_eq!(m.find_for_kernel(a, 8), None, "before the start");
        // Overlaps are rejected whichever side they are on.
        for (s, l) in [(a, 17), (a + 79, 4), (a + 20, 4), (a, 200)] {
            let e = unsafe { m.register_host(s, l) }.unwrap_err();
            assert!(matches!(e, RegisterError::Overlap { .. }), "{e}");
        }
        assert!(unsafe { m.register_host(0, 4) }.is_err());
        assert!(unsafe { m.register_host(a, 0) }.is_err());
        assert!(unsafe { m.register_host(u64::MAX - 4, 8) }.is_err());
        // Host copies reach it; free does not release it.
        m.write(a + 16, &[1, 2, 3]).unwrap();
        assert_eq!(m.read(a + 16, 4).unwrap(), vec![1, 2, 3, 7]);
        assert!(!m.free(a + 16));
        assert!(m.unregister_host(a + 16));
        assert!(!m.unregister_host(a + 16));
        assert_eq!(m.find_for_kernel(a + 16, 4), None);
        assert_eq!(m.host_range_count(), 0);
        drop(m);
        assert_eq!(&host[16..20], &[1, 2, 3, 7]);
    }

    #[test]
    fn mappings_mode_accepts_writable_memory_only() {
        let m = DeviceMemory::new();
        let mut heap = vec![0u8; 4096];
        let a = heap.as_mut_ptr() as u64;
        static RO: [u8; 64] = [1; 64];
        let ro = RO.as_ptr() as u64;
        m.host.begin_launch();
        assert_eq!(m.find_for_kernel(a, 8), None, "Registered by default");
        // SAFETY: the test touches no memory through the returned regions.
        unsafe { m.set_host_check(HostCheck::Auto) };
        m.host.begin_launch();
        let (s, l) = m
            .find_for_kernel(a, 4096)
            .expect("heap is a writable mapping");
        assert!(s <= a && a + 4096 <= s + l);
        assert_eq!(m.find_for_kernel(ro, 8), None, "read-only data");
        assert_eq!(m.find_for_kernel(8, 8), None, "page zero is unmapped");
        assert_eq!(m.find_for_kernel(SHARED_APERTURE_BASE - 4, 8), None);
        // Auto becomes strict with the first registration.
        let mut other = vec![0u8; 64];
        unsafe { m.register_host(other.as_mut_ptr() as u64, 64).unwrap() };
        m.host.begin_launch();
        assert_eq!(m.find_for_kernel(a, 8), None);
        unsafe { m.set_host_check(HostCheck::Mappings) };
        assert!(m.find_for_kernel(a, 8).is_some());
        heap[0] = 1;
        other[0] = 1;
    }
}
