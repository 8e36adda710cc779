//! Host memory of buffer-protocol arguments (numpy arrays, bytearrays, memoryviews, ...):
//! staged in device buffers for a launch and copied back afterwards.
//!
//! Each pointer argument covers a byte span of host memory: for a strided buffer (a numpy
//! view) the whole range from its lowest to its highest byte. Spans that overlap (the same
//! array passed twice, views of one array) share one device buffer, so a kernel sees the
//! aliasing the host has. Each device buffer is placed so that device addresses are congruent
//! to the host addresses modulo 256: a kernel compiled for the host pointers' alignment (Triton
//! specialises on `data_ptr() % 16`) sees the same alignment.

use pyo3::buffer::PyUntypedBuffer;
use pyo3::prelude::*;
use wavejit::{Buffer, Device};

use crate::errors::usage;

/// The device allocation granule: device buffers start at multiples of it.
const ALIGN: usize = 256;

/// A buffer-protocol object held (its buffer exported, so its memory stays put) while a
/// launch uses it.
pub struct HostArg {
    buf: PyUntypedBuffer,
    /// Host address of the span's lowest byte.
    lo: usize,
    /// Bytes in the span.
    len: usize,
}

impl HostArg {
    /// The object's buffer, or `None` when it does not support the buffer protocol.
    pub fn get(obj: &Bound<'_, PyAny>) -> PyResult<Option<HostArg>> {
        let Ok(buf) = PyUntypedBuffer::get(obj) else {
            return Ok(None);
        };
        if buf.suboffsets().is_some() {
            return Err(usage(
                "indirect buffers (with suboffsets) cannot be passed to a kernel",
            ));
        }
        let (lo_off, len) = span(buf.item_size(), buf.shape(), buf.strides()).ok_or_else(|| {
            usage("a buffer argument's shape and strides describe more memory than can exist")
        })?;
        let first = buf.buf_ptr() as usize;
        let lo = first
            .checked_add_signed(lo_off)
            .ok_or_else(|| usage("a buffer argument's strides point below address 0"))?;
        Ok(Some(HostArg { buf, lo, len }))
    }

    /// Host address of the buffer's first element (what a pointer argument points at).
    fn first(&self) -> usize {
        self.buf.buf_ptr() as usize
    }

    /// Whether the kernel's writes are copied back (false for read-only exports like `bytes`).
    fn writable(&self) -> bool {
        !self.buf.readonly()
    }

    /// Bytes in the span.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The span's bytes (a copy).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.len];
        if self.len > 0 {
            // SAFETY: `[lo, lo + len)` lies inside the memory the exporter described by shape
            // and strides (`span`), which stays valid while `self.buf` holds the export; the
            // caller holds the GIL, so no Python code modifies it meanwhile (native code
            // writing it concurrently would break the buffer protocol's contract). Raw copies
            // create no reference to that memory; `out` is a distinct allocation.
            unsafe {
                std::ptr::copy_nonoverlapping(self.lo as *const u8, out.as_mut_ptr(), self.len)
            };
        }
        out
    }

    /// Overwrites the span with `data` (exactly `len` bytes).
    pub fn write(&self, data: &[u8]) -> PyResult<()> {
        if !self.writable() {
            return Err(usage("the buffer is read-only"));
        }
        if data.len() != self.len {
            return Err(usage(format!(
                "cannot copy {} bytes into a buffer of {} bytes",
                data.len(),
                self.len
            )));
        }
        if self.len > 0 {
            // SAFETY: as in `to_vec`, and the export is writable (checked above).
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.lo as *mut u8, self.len) };
        }
        Ok(())
    }
}

/// The byte range `(offset of the lowest byte from the first element, length)` that elements
/// of `item` bytes at `shape`/`strides` cover; `(0, 0)` for an empty buffer; `None` on
/// overflow.
fn span(item: usize, shape: &[usize], strides: &[isize]) -> Option<(isize, usize)> {
    if shape.contains(&0) {
        return Some((0, 0));
    }
    let (mut lo, mut hi) = (0isize, isize::try_from(item).ok()?);
    for (&n, &s) in shape.iter().zip(strides) {
        let extent = isize::try_from(n - 1).ok()?.checked_mul(s)?;
        if extent < 0 {
            lo = lo.checked_add(extent)?;
        } else {
            hi = hi.checked_add(extent)?;
        }
    }
    Some((lo, usize::try_from(hi.checked_sub(lo)?).ok()?))
}

/// Device copies of the host arguments of one launch; frees them when dropped.
pub struct Staging {
    device: Device,
    groups: Vec<Group>,
}

/// One device buffer holding one or more overlapping host spans.
struct Group {
    /// Host address of the group's lowest byte.
    lo: usize,
    /// The span's bytes in the device buffer (from `lo`).
    dev: Buffer,
    /// The allocation (freed on drop).
    alloc: Buffer,
    /// Indices into the host argument list.
    members: Vec<usize>,
}

impl Staging {
    /// Copies `args` into device buffers; returns the staging and each argument's device
    /// address (of its first element).
    pub fn new(device: &Device, args: &[HostArg]) -> PyResult<(Staging, Vec<u64>)> {
        let mut order: Vec<usize> = (0..args.len()).collect();
        order.sort_by_key(|&i| args[i].lo);
        let mut staging = Staging {
            device: device.clone(),
            groups: Vec::new(),
        };
        // Merge overlapping spans (in address order) into groups.
        let mut spans: Vec<(usize, usize, Vec<usize>)> = Vec::new();
        for i in order {
            let (lo, hi) = (args[i].lo, args[i].lo + args[i].len);
            match spans.last_mut() {
                Some((_, end, members)) if lo < *end => {
                    *end = (*end).max(hi);
                    members.push(i);
                }
                _ => spans.push((lo, hi, vec![i])),
            }
        }
        let mut addrs = vec![0u64; args.len()];
        for (lo, hi, members) in spans {
            let pad = lo % ALIGN;
            let len = hi - lo;
            let alloc = device.alloc(pad + len.max(1)).map_err(|e| {
                usage(format!(
                    "cannot stage a buffer argument of {} bytes: {e}",
                    pad + len
                ))
            })?;
            let dev = Buffer {
                addr: alloc.addr + pad as u64,
                len,
            };
            staging.groups.push(Group {
                lo,
                dev,
                alloc,
                members: members.clone(),
            });
            // The group's bytes: every member's span, in address order (overlaps agree).
            let mut bytes = vec![0u8; len];
            for &m in &members {
                let off = args[m].lo - lo;
                bytes[off..off + args[m].len].copy_from_slice(&args[m].to_vec());
                addrs[m] = dev.addr + (args[m].first() - lo) as u64;
            }
            device
                .write(dev, &bytes)
                .map_err(|e| usage(format!("cannot stage a buffer argument: {e}")))?;
        }
        Ok((staging, addrs))
    }

    /// Copies the device bytes back into every writable host argument.
    pub fn copy_back(&self, args: &[HostArg]) -> PyResult<()> {
        for g in &self.groups {
            if !g.members.iter().any(|&m| args[m].writable()) {
                continue;
            }
            let bytes = self
                .device
                .read(g.dev)
                .map_err(|e| usage(format!("cannot copy a buffer argument back: {e}")))?;
            for &m in &g.members {
                if args[m].writable() {
                    let off = args[m].lo - g.lo;
                    args[m].write(&bytes[off..off + args[m].len])?;
                }
            }
        }
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        for g in &self.groups {
            // Every group's allocation is live until here; a failure would mean it is gone.
            let _ = self.device.free(g.alloc);
        }
    }
}
