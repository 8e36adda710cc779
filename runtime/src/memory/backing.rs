//! Host memory behind device allocations.
//!
//! Small allocations come from the Rust allocator. Large ones (at least [`MAPPED_MIN`] bytes)
//! are anonymous mappings on Unix hosts: the kernel supplies their pages already zeroed on
//! first touch, so an allocation is zeroed once, lazily, instead of by a `memset` that
//! faults in every page up front (and, for [`super::DeviceMemory::alloc_from`], before the
//! copy writes every byte again). They are marked for transparent huge pages, which cuts the
//! page faults of first touch (and the TLB misses of streaming kernels) by up to 512×.

use std::alloc::Layout;

use super::ALLOC_ALIGN;

/// Allocations of at least this many bytes are mapped (Unix hosts).
pub const MAPPED_MIN: usize = 1 << 20;

/// How an allocation's host memory was obtained (how to release it).
#[derive(Debug)]
pub enum Backing {
    /// The Rust allocator, with this layout.
    Heap(Layout),
    /// An anonymous mapping of this many bytes.
    #[cfg(unix)]
    Mapped(usize),
}

/// `len` zero-filled bytes, [`ALLOC_ALIGN`]-aligned: the host pointer and how to free it.
/// `None` when the host refuses.
pub fn alloc_zeroed(len: usize) -> Option<(*mut u8, Backing)> {
    #[cfg(unix)]
    if len >= MAPPED_MIN {
        return map(len).map(|p| (p, Backing::Mapped(len)));
    }
    let layout = Layout::from_size_align(len.max(1), ALLOC_ALIGN).ok()?;
    // SAFETY: `layout` has a non-zero size (at least 1 byte).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    (!ptr.is_null()).then_some((ptr, Backing::Heap(layout)))
}

/// Releases memory from [`alloc_zeroed`].
///
/// # Safety
/// `ptr` and `backing` must come from one call of [`alloc_zeroed`], not yet freed, and
/// nothing may access the memory afterwards.
pub unsafe fn free(ptr: *mut u8, backing: &Backing) {
    match *backing {
        // SAFETY: per the contract, `ptr` came from `std::alloc::alloc_zeroed(layout)`.
        Backing::Heap(layout) => unsafe { std::alloc::dealloc(ptr, layout) },
        #[cfg(unix)]
        Backing::Mapped(len) => {
            // SAFETY: per the contract, `ptr..ptr + len` is a mapping made by `map` and
            // nothing uses it any more. A failed unmap leaks the range; nothing to do.
            unsafe { libc::munmap(ptr.cast(), len) };
        }
    }
}

/// An anonymous private read-write mapping of `len` bytes (page-aligned, hence
/// [`ALLOC_ALIGN`]-aligned), advised for huge pages.
#[cfg(unix)]
fn map(len: usize) -> Option<*mut u8> {
    // SAFETY: an anonymous mapping at an address of the kernel's choice touches no existing
    // memory; the result is checked before use.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED || p.is_null() {
        return None;
    }
    #[cfg(target_os = "linux")]
    {
        // SAFETY: advice on the mapping just made; a refusal (no THP support) changes
        // nothing and is ignored.
        unsafe { libc::madvise(p, len, libc::MADV_HUGEPAGE) };
    }
    Some(p.cast())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_and_small_allocations_are_zeroed_aligned_and_writable() {
        for len in [1, 300, MAPPED_MIN - 1, MAPPED_MIN, 3 * MAPPED_MIN + 5] {
            let (p, b) = alloc_zeroed(len).expect("host memory");
            assert_eq!(p as usize % ALLOC_ALIGN, 0);
            // SAFETY: `p` holds `len` bytes (just allocated), freed once below.
            unsafe {
                let s = std::slice::from_raw_parts_mut(p, len);
                assert!(s.iter().all(|&x| x == 0), "len {len}");
                s.fill(0x5a);
                assert_eq!(s[len - 1], 0x5a);
                free(p, &b);
            }
        }
    }
}
