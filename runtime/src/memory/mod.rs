//! Checked device memory: the allocation registry, LDS, scratch and the [`WaveEnv`] of a
//! running wave.
//!
//! A device address is the host address of a runtime allocation (256-byte aligned, never
//! moves), so a global access is a host access once it has been checked against the
//! registry. Nothing executing kernel code can touch host memory outside an allocation: every
//! request is validated (fast path: min/max of the active lanes against one allocation; slow
//! path: per lane, reporting the first faulting lane). Generated code checks its loads and
//! stores itself against the allocations a wave's environment has cached and its LDS
//! ([`WaveMemEnv`]'s `fast_memory`, translator `jit::memory`), and calls the environment for
//! anything outside them.
//!
//! Concurrency: workgroups of one launch run on several host threads and may touch the same
//! global memory. All kernel-side global accesses go through host atomics ([`access`]), so
//! concurrent plain loads/stores are relaxed atomic accesses and never a Rust data race.
//! Host-side copies ([`DeviceMemory::write`], [`DeviceMemory::read`]) and [`DeviceMemory::free`]
//! take the launch gate exclusively, so they never overlap a running launch.
//!
//! [`WaveEnv`]: wavejit_translator::env::WaveEnv

pub mod access;
pub mod backing;
mod buffer;
pub mod code;
pub mod env;
pub mod host;

use std::collections::BTreeMap;
use std::sync::{RwLock, RwLockReadGuard};

use thiserror::Error;

pub use buffer::Buffer;
pub use code::CodeImage;
pub use env::{ScratchLayout, WaveMemEnv};
pub use host::{HostCheck, RegisterError};

/// Alignment of every device allocation (bytes).
pub const ALLOC_ALIGN: usize = 256;

/// Errors of host-side memory operations.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum HostMemError {
    /// The range is not inside one live allocation.
    #[error("host access of {len} bytes at {addr:#x} is not inside one device allocation")]
    OutOfRange {
        /// Start address.
        addr: u64,
        /// Length in bytes.
        len: usize,
    },
    /// The host could not provide the memory.
    #[error("cannot allocate {0} bytes of device memory")]
    AllocFailed(usize),
}

/// One live allocation.
#[derive(Debug)]
struct Region {
    /// Usable length (the host block is at least one byte).
    len: usize,
    /// Where its host memory came from; `None` for a registered host range, which the
    /// registry does not own ([`host`]).
    backing: Option<backing::Backing>,
}

/// A host-backed device address space with checked accesses.
#[derive(Debug, Default)]
pub struct DeviceMemory {
    /// Live allocations by start address.
    regions: RwLock<BTreeMap<u64, Region>>,
    /// Held shared by every running launch, exclusively by frees and host copies.
    gate: RwLock<()>,
    /// Registered host ranges and the host-mapping check ([`host`]).
    host: host::HostState,
}

/// Held for the duration of a launch: no allocation is freed or host-copied meanwhile.
pub struct LaunchGuard<'a> {
    _g: RwLockReadGuard<'a, ()>,
}

impl DeviceMemory {
    /// An empty address space.
    pub fn new() -> DeviceMemory {
        DeviceMemory::default()
    }

    /// Allocates `len` zero-filled bytes, 256-byte aligned; returns the device address.
    /// Large allocations are zeroed lazily by the host's page faults ([`backing`]).
    pub fn alloc(&self, len: usize) -> Result<u64, HostMemError> {
        let (ptr, backing) = backing::alloc_zeroed(len).ok_or(HostMemError::AllocFailed(len))?;
        let addr = ptr as u64;
        let mut regions = self.regions.write().unwrap_or_else(|e| e.into_inner());
        regions.insert(
            addr,
            Region {
                len,
                backing: Some(backing),
            },
        );
        Ok(addr)
    }

    /// Allocates a copy of `data`.
    pub fn alloc_from(&self, data: &[u8]) -> Result<u64, HostMemError> {
        let addr = self.alloc(data.len())?;
        self.write(addr, data)?;
        Ok(addr)
    }

    /// Frees the allocation that starts at `addr`; returns false when there is none.
    /// Waits for running launches to finish.
    pub fn free(&self, addr: u64) -> bool {
        let _g = self.gate.write().unwrap_or_else(|e| e.into_inner());
        let mut regions = self.regions.write().unwrap_or_else(|e| e.into_inner());
        // Registered host ranges are not the registry's to free.
        if !matches!(regions.get(&addr), Some(r) if r.backing.is_some()) {
            return false;
        }
        let Some(Region {
            backing: Some(backing),
            ..
        }) = regions.remove(&addr)
        else {
            return false;
        };
        // SAFETY: `addr` and `backing` came from one `backing::alloc_zeroed` and are removed
        // from the registry, so no later access can reach the memory; no launch is running
        // (the gate is held exclusively).
        unsafe { backing::free(addr as *mut u8, &backing) };
        true
    }

    /// The allocation `(start, len)` that contains `[addr, addr + len)`, if any.
    pub fn find(&self, addr: u64, len: u64) -> Option<(u64, u64)> {
        let regions = self.regions.read().unwrap_or_else(|e| e.into_inner());
        let (&start, r) = regions.range(..=addr).next_back()?;
        let end = start.checked_add(r.len as u64)?;
        let last = addr.checked_add(len)?;
        (last <= end).then_some((start, r.len as u64))
    }

    /// Copies `data` to device address `addr` (host side; waits for running launches).
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), HostMemError> {
        let _g = self.gate.write().unwrap_or_else(|e| e.into_inner());
        self.find(addr, data.len() as u64)
            .ok_or(HostMemError::OutOfRange {
                addr,
                len: data.len(),
            })?;
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: the range lies inside one live allocation (checked above; it cannot be
        // freed while we hold the gate), and no launch runs concurrently (exclusive gate), so
        // nothing else accesses these bytes; `data` is a distinct host slice.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), addr as *mut u8, data.len()) };
        Ok(())
    }

    /// Copies `len` bytes from device address `addr` (host side; waits for running launches).
    pub fn read(&self, addr: u64, len: usize) -> Result<Vec<u8>, HostMemError> {
        let _g = self.gate.write().unwrap_or_else(|e| e.into_inner());
        self.find(addr, len as u64)
            .ok_or(HostMemError::OutOfRange { addr, len })?;
        let mut out = vec![0u8; len];
        if len > 0 {
            // SAFETY: as in `write`: inside one live allocation, no concurrent launch.
            unsafe { std::ptr::copy_nonoverlapping(addr as *const u8, out.as_mut_ptr(), len) };
        }
        Ok(out)
    }

    /// Enters a launch: frees and host copies wait until the guard is dropped.
    pub fn begin_launch(&self) -> LaunchGuard<'_> {
        self.host.begin_launch();
        LaunchGuard {
            _g: self.gate.read().unwrap_or_else(|e| e.into_inner()),
        }
    }

    /// Number of live allocations.
    pub fn allocation_count(&self) -> usize {
        self.regions.read().map(|r| r.len()).unwrap_or(0)
    }
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        let regions = std::mem::take(self.regions.get_mut().unwrap_or_else(|e| e.into_inner()));
        for (addr, r) in regions {
            if let Some(b) = &r.backing {
                // SAFETY: each owned entry came from `backing::alloc_zeroed` with `b`; the
                // memory is being dropped, so nothing can access the allocations any more.
                unsafe { backing::free(addr as *mut u8, b) };
            }
        }
    }
}
