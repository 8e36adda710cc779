//! A small self-contained [`WaveEnv`] over byte arrays, for tests of both engines and of the
//! lifter: one global window at a fixed base address, an LDS array and per-lane scratch.
//! FLAT addresses in the shared and private apertures reach LDS and scratch, as in the
//! runtime.

use crate::env::{
    AtomicOp, FastMemory, MemError, MemWindow, Space, WaveEnv, PRIVATE_APERTURE_BASE,
    SHARED_APERTURE_BASE,
};
use crate::sem;

/// Memory for tests: `global` covers device addresses `base .. base + global.len()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatEnv {
    /// Device address of `global[0]`.
    pub base: u64,
    /// Global memory bytes.
    pub global: Vec<u8>,
    /// LDS bytes.
    pub lds: Vec<u8>,
    /// Bytes of scratch per lane.
    pub scratch_per_lane: usize,
    /// Scratch bytes, lane-major (`lane * scratch_per_lane + offset`).
    pub scratch: Vec<u8>,
    /// Value the next [`WaveEnv::clock`] call returns (then incremented).
    pub clock: u64,
    /// What [`WaveEnv::barrier_state`] returns (a multi-wave runner sets it before each
    /// wave runs, see [`crate::env::workgroup_barrier_state`]).
    pub barrier: u32,
    /// How many global windows [`WaveEnv::fast_memory`] offers (1 to 4, as `FastMemory`
    /// has): `global` cut into that many equal parts, listed last part first, so generated
    /// code that selects among windows sees accesses in different parts hit different ones.
    pub windows: usize,
}

impl FlatEnv {
    /// An environment with `global_len` bytes at `base`, `lds_len` bytes of LDS and
    /// `scratch_per_lane` bytes of scratch for each of 64 lanes, all zero.
    pub fn new(base: u64, global_len: usize, lds_len: usize, scratch_per_lane: usize) -> FlatEnv {
        FlatEnv {
            base,
            global: vec![0; global_len],
            lds: vec![0; lds_len],
            scratch_per_lane,
            scratch: vec![0; scratch_per_lane * 64],
            clock: 1000,
            barrier: 0,
            windows: 1,
        }
    }

    /// Byte slice for an access, or the error the ISA would report.
    fn slot(
        &mut self,
        space: Space,
        lane: usize,
        addr: u64,
        size: u32,
    ) -> Result<&mut [u8], MemError> {
        const HI: u64 = 0xFFFF_FFFF_0000_0000;
        let (space, addr) = match space {
            Space::Flat if addr & HI == SHARED_APERTURE_BASE => (Space::Lds, addr & !HI),
            Space::Flat if addr & HI == PRIVATE_APERTURE_BASE => (Space::Scratch, addr & !HI),
            s => (s, addr),
        };
        let oor = MemError::OutOfRange {
            space,
            addr,
            size,
            lane: lane as u32,
        };
        let (buf, off): (&mut Vec<u8>, u64) = match space {
            Space::Global | Space::Flat => {
                let off = addr.checked_sub(self.base).ok_or(oor.clone())?;
                (&mut self.global, off)
            }
            Space::Lds => (&mut self.lds, addr),
            Space::Scratch => {
                if addr.saturating_add(size as u64) > self.scratch_per_lane as u64 {
                    return Err(oor);
                }
                (
                    &mut self.scratch,
                    (lane * self.scratch_per_lane) as u64 + addr,
                )
            }
        };
        let end = off.checked_add(size as u64).ok_or(oor.clone())?;
        if end > buf.len() as u64 {
            return Err(oor);
        }
        Ok(&mut buf[off as usize..end as usize])
    }

    fn read(&mut self, space: Space, lane: usize, addr: u64, size: u32) -> Result<u64, MemError> {
        let s = self.slot(space, lane, addr, size)?;
        let mut b = [0u8; 8];
        b[..s.len()].copy_from_slice(s);
        Ok(u64::from_le_bytes(b))
    }

    fn write(
        &mut self,
        space: Space,
        lane: usize,
        addr: u64,
        size: u32,
        v: u64,
    ) -> Result<(), MemError> {
        let s = self.slot(space, lane, addr, size)?;
        let n = s.len();
        s.copy_from_slice(&v.to_le_bytes()[..n]);
        Ok(())
    }

    /// Checks every active lane first so a faulting request changes nothing.
    fn check_all(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
    ) -> Result<(), MemError> {
        for (l, a) in addrs.iter().enumerate() {
            if mask >> l & 1 == 1 {
                self.slot(space, l, *a, size)?;
            }
        }
        Ok(())
    }
}

/// New memory value of an atomic (`env.rs` [`AtomicOp`] definitions) on `size`-byte values.
pub fn atomic_update(op: AtomicOp, size: u32, old: u64, data: u64, cmp: u64) -> u64 {
    let bits = if size == 8 { 64 } else { 32 };
    let t = |x: u64| sem::trunc_to(bits, x);
    let (old, data, cmp) = (t(old), t(data), t(cmp));
    let (so, sd) = if bits == 32 {
        (old as u32 as i32 as i64, data as u32 as i32 as i64)
    } else {
        (old as i64, data as i64)
    };
    t(match op {
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
        AtomicOp::SMin => so.min(sd) as u64,
        AtomicOp::UMin => old.min(data),
        AtomicOp::SMax => so.max(sd) as u64,
        AtomicOp::UMax => old.max(data),
        AtomicOp::And => old & data,
        AtomicOp::Or => old | data,
        AtomicOp::Xor => old ^ data,
        AtomicOp::Inc => {
            if old >= data {
                0
            } else {
                old + 1
            }
        }
        AtomicOp::Dec => {
            if old == 0 || old > data {
                data
            } else {
                old - 1
            }
        }
        AtomicOp::FAdd => sem::bin(crate::ir::BinOp::FAdd, bits, old, data),
        AtomicOp::FMin => sem::bin(crate::ir::BinOp::FMinNum, bits, old, data),
        AtomicOp::FMax => sem::bin(crate::ir::BinOp::FMaxNum, bits, old, data),
        other => sem::atomic_extra(other, size, old, data, cmp).unwrap_or(old),
    })
}

impl WaveEnv for FlatEnv {
    /// The global windows ([`FlatEnv::windows`]) and the LDS, so the JIT's direct path runs
    /// against the interpreter's checked one in differential tests.
    fn fast_memory(&mut self) -> FastMemory {
        let mut fm = FastMemory::NONE;
        // SAFETY: `global` and `lds` are owned by this environment and borrowed exclusively
        // through `&mut self`; the pointers are derived afresh for each request, valid for
        // their lengths (each part of `global` lies inside it: `k * part + len` is at most
        // its length), and no other thread can reach the vectors.
        unsafe {
            let n = self.windows.clamp(1, fm.global.len());
            let part = self.global.len() / n;
            for k in 0..n {
                // The last part also takes the bytes a division left over.
                let len = if k == n - 1 {
                    self.global.len() - k * part
                } else {
                    part
                };
                fm.global[n - 1 - k] = MemWindow::new(
                    self.base + (k * part) as u64,
                    len as u64,
                    self.global.as_mut_ptr().add(k * part),
                );
            }
            fm.lds = MemWindow::new(0, self.lds.len() as u64, self.lds.as_mut_ptr());
        }
        fm
    }

    fn load(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        out: &mut [u64; 64],
    ) -> Result<(), MemError> {
        self.check_all(space, addrs, mask, size)?;
        for l in 0..64 {
            if mask >> l & 1 == 1 {
                out[l] = self.read(space, l, addrs[l], size)?;
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
        self.check_all(space, addrs, mask, size)?;
        for l in 0..64 {
            if mask >> l & 1 == 1 {
                self.write(space, l, addrs[l], size, data[l])?;
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
        self.check_all(space, addrs, mask, size)?;
        for l in 0..64 {
            if mask >> l & 1 == 1 {
                let old = self.read(space, l, addrs[l], size)?;
                out[l] = old;
                let new = atomic_update(op, size, old, data[l], cmp[l]);
                self.write(space, l, addrs[l], size, new)?;
            }
        }
        Ok(())
    }

    fn scalar_load(&mut self, addr: u64, out: &mut [u32]) -> Result<(), MemError> {
        for (k, o) in out.iter_mut().enumerate() {
            *o = self.read(Space::Global, 0, addr.wrapping_add(4 * k as u64), 4)? as u32;
        }
        Ok(())
    }

    fn scalar_store(&mut self, addr: u64, data: &[u32]) -> Result<(), MemError> {
        for (k, d) in data.iter().enumerate() {
            self.write(
                Space::Global,
                0,
                addr.wrapping_add(4 * k as u64),
                4,
                *d as u64,
            )?;
        }
        Ok(())
    }

    fn clock(&mut self) -> u64 {
        let c = self.clock;
        self.clock = self.clock.wrapping_add(1);
        c
    }

    fn barrier_state(&mut self) -> u32 {
        self.barrier
    }
}
