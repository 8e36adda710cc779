//! The exported C functions of libamdhip64.so. Each one catches panics (none may cross the
//! C boundary), turns the outcome into a `hipError_t`, prints the message of a failure on
//! stderr, and records it as the thread's last error.
//!
//! Pointer arguments follow the HIP contract: out-pointers are writable, in-pointers are
//! readable for the sizes the call names. Null out-pointers are rejected with
//! `hipErrorInvalidValue`.

#![allow(non_snake_case, clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use crate::error::*;
use crate::image;
use crate::runtime::{last, pop_config, push_config, rt, set_last, AllocKind, CallConfig, Runtime};

/// `dim3`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Dim3 {
    /// x.
    pub x: u32,
    /// y.
    pub y: u32,
    /// z.
    pub z: u32,
}

impl Dim3 {
    fn arr(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }
}

/// `hipDeviceProp_t` as `hip/hip_runtime_api.h` lays it out.
#[repr(C)]
pub struct DeviceProp {
    name: [c_char; 256],
    total_global_mem: usize,
    shared_mem_per_block: usize,
    regs_per_block: c_int,
    warp_size: c_int,
    mem_pitch: usize,
    max_threads_per_block: c_int,
    max_threads_dim: [c_int; 3],
    max_grid_size: [c_int; 3],
    clock_rate: c_int,
    memory_clock_rate: c_int,
    memory_bus_width: c_int,
    total_const_mem: usize,
    major: c_int,
    minor: c_int,
    multi_processor_count: c_int,
    l2_cache_size: c_int,
    max_threads_per_multi_processor: c_int,
    compute_mode: c_int,
    clock_instruction_rate: c_int,
    concurrent_kernels: c_int,
    pci_domain_id: c_int,
    pci_bus_id: c_int,
    pci_device_id: c_int,
    max_shared_memory_per_multi_processor: usize,
    is_multi_gpu_board: c_int,
    can_map_host_memory: c_int,
    gcn_arch: c_int,
    gcn_arch_name: [c_char; 256],
    integrated: c_int,
    cooperative_launch: c_int,
    managed_memory: c_int,
    concurrent_managed_access: c_int,
    pageable_memory_access: c_int,
    unified_addressing: c_int,
    ecc_enabled: c_int,
    asic_revision: c_int,
}

/// `hipFuncAttributes`.
#[repr(C)]
pub struct FuncAttributes {
    binary_version: c_int,
    cache_mode_ca: c_int,
    const_size_bytes: usize,
    local_size_bytes: usize,
    max_dynamic_shared_size_bytes: c_int,
    max_threads_per_block: c_int,
    num_regs: c_int,
    preferred_shmem_carveout: c_int,
    ptx_version: c_int,
    shared_size_bytes: usize,
}

/// Runs `f` as one API call.
fn call(f: impl FnOnce() -> HipResult) -> Code {
    let code = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => SUCCESS,
        Ok(Err(e)) => {
            if !e.message.is_empty() {
                let _ = writeln!(std::io::stderr(), "wavejit-hip: {e}");
            }
            e.code
        }
        Err(_) => {
            let _ = writeln!(
                std::io::stderr(),
                "wavejit-hip: internal error (a panic was caught at the API boundary)"
            );
            UNKNOWN
        }
    };
    set_last(code);
    code
}

/// Runs `f` for a function that returns nothing (registration).
fn call_void(f: impl FnOnce() -> HipResult) {
    call(f);
}

fn invalid(msg: &str) -> HipError {
    HipError::new(INVALID_VALUE, msg)
}

/// Writes `v` through the out-pointer `p`.
///
/// # Safety
/// `p` is null or valid for a write of `T`.
unsafe fn out<T>(p: *mut T, v: T) -> HipResult {
    if p.is_null() {
        return Err(invalid("null output pointer"));
    }
    // SAFETY: non-null, and the caller passes a writable `T` (HIP contract).
    unsafe { p.write(v) };
    Ok(())
}

/// A NUL-terminated string argument.
///
/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn cstr<'a>(p: *const c_char) -> HipResult<&'a str> {
    if p.is_null() {
        return Err(invalid("null string"));
    }
    // SAFETY: non-null and NUL-terminated (HIP contract).
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| invalid("string is not UTF-8"))
}

// ---- errors ----

#[no_mangle]
pub extern "C" fn hipGetErrorString(code: Code) -> *const c_char {
    message(code).as_ptr()
}

#[no_mangle]
pub extern "C" fn hipGetErrorName(code: Code) -> *const c_char {
    name(code).as_ptr()
}

#[no_mangle]
pub extern "C" fn hipGetLastError() -> Code {
    catch_unwind(|| {
        let l = last(true);
        match rt().check_sticky() {
            Err(e) if l == SUCCESS => e.code,
            _ => l,
        }
    })
    .unwrap_or(UNKNOWN)
}

#[no_mangle]
pub extern "C" fn hipPeekAtLastError() -> Code {
    catch_unwind(|| {
        let l = last(false);
        match rt().check_sticky() {
            Err(e) if l == SUCCESS => e.code,
            _ => l,
        }
    })
    .unwrap_or(UNKNOWN)
}

// ---- device management ----

#[no_mangle]
pub extern "C" fn hipInit(_flags: c_uint) -> Code {
    call(|| rt().gpu().map(|_| ()))
}

#[no_mangle]
pub unsafe extern "C" fn hipDriverGetVersion(v: *mut c_int) -> Code {
    // SAFETY: out-pointer per the HIP contract.
    call(|| unsafe { out(v, 60_000_000) })
}

#[no_mangle]
pub unsafe extern "C" fn hipRuntimeGetVersion(v: *mut c_int) -> Code {
    // SAFETY: out-pointer per the HIP contract.
    call(|| unsafe { out(v, 60_000_000) })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceCount(n: *mut c_int) -> Code {
    call(|| {
        let count = if rt().gpu.is_ok() { 1 } else { 0 };
        // SAFETY: out-pointer per the HIP contract.
        unsafe { out(n, count) }?;
        rt().gpu().map(|_| ())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetDevice(d: *mut c_int) -> Code {
    // SAFETY: out-pointer per the HIP contract.
    call(|| unsafe { out(d, 0) })
}

#[no_mangle]
pub extern "C" fn hipSetDevice(d: c_int) -> Code {
    call(|| {
        if d == 0 {
            rt().gpu().map(|_| ())
        } else {
            Err(HipError::new(
                INVALID_DEVICE,
                format!("device {d}: wavejit emulates one device (0)"),
            ))
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGet(d: *mut c_int, ordinal: c_int) -> Code {
    call(|| {
        if ordinal != 0 {
            return Err(HipError::new(
                INVALID_DEVICE,
                format!("device {ordinal}: wavejit emulates one device (0)"),
            ));
        }
        // SAFETY: out-pointer per the HIP contract.
        unsafe { out(d, 0) }
    })
}

fn copy_name(dst: &mut [c_char], s: &str) {
    for (d, b) in dst.iter_mut().zip(s.bytes().chain(std::iter::once(0))) {
        *d = b as c_char;
    }
    if let Some(last) = dst.last_mut() {
        *last = 0;
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceProperties(p: *mut DeviceProp, device: c_int) -> Code {
    call(|| {
        if device != 0 {
            return Err(HipError::new(
                INVALID_DEVICE,
                format!("device {device}: wavejit emulates one device (0)"),
            ));
        }
        if p.is_null() {
            return Err(invalid("null hipDeviceProp_t pointer"));
        }
        let g = rt().props()?;
        // SAFETY: `DeviceProp` is plain data (integers and arrays): all-zero is a valid value.
        let mut d: DeviceProp = unsafe { std::mem::zeroed() };
        copy_name(&mut d.name, &g.name);
        copy_name(&mut d.gcn_arch_name, &g.arch_name);
        d.total_global_mem = crate::props::host_memory();
        d.shared_mem_per_block = g.lds_per_block;
        d.regs_per_block = 512 * 64;
        d.warp_size = g.warp_size;
        d.mem_pitch = i32::MAX as usize;
        d.max_threads_per_block = 1024;
        d.max_threads_dim = [1024, 1024, 1024];
        d.max_grid_size = [i32::MAX, 65536, 65536];
        d.clock_rate = g.clock_khz;
        d.memory_clock_rate = 1_300_000;
        d.memory_bus_width = 4096;
        d.total_const_mem = 1 << 31;
        d.major = g.major;
        d.minor = g.minor;
        d.multi_processor_count = g.cu_count;
        d.l2_cache_size = g.l2_bytes;
        d.max_threads_per_multi_processor = 2048;
        d.clock_instruction_rate = 1_000_000;
        d.concurrent_kernels = 1;
        d.max_shared_memory_per_multi_processor = g.lds_per_block;
        d.can_map_host_memory = 1;
        d.gcn_arch = g.gpu.id as c_int;
        d.integrated = 0;
        d.cooperative_launch = 0;
        d.managed_memory = 1;
        d.concurrent_managed_access = 1;
        d.pageable_memory_access = 0;
        d.unified_addressing = 1;
        // SAFETY: out-pointer per the HIP contract (non-null checked above).
        unsafe { p.write(d) };
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetAttribute(v: *mut c_int, attr: c_int, device: c_int) -> Code {
    call(|| {
        if device != 0 {
            return Err(HipError::new(INVALID_DEVICE, format!("device {device}")));
        }
        let g = rt().props()?;
        let value = match attr {
            56 | 26 | 27 => 1024,
            28 => 1024,
            87 => g.warp_size,
            63 => g.cu_count,
            74 => g.lds_per_block as c_int,
            23 => g.major,
            61 => g.minor,
            5 => g.clock_khz,
            29 => i32::MAX,
            30 | 31 => 65536,
            _ => {
                return Err(HipError::new(
                    NOT_SUPPORTED,
                    format!("device attribute {attr}"),
                ))
            }
        };
        // SAFETY: out-pointer per the HIP contract.
        unsafe { out(v, value) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetName(name: *mut c_char, len: c_int, device: c_int) -> Code {
    call(|| {
        if device != 0 || name.is_null() || len <= 0 {
            return Err(invalid("hipDeviceGetName: bad device, buffer or length"));
        }
        let g = rt().props()?;
        // SAFETY: the caller passes a writable buffer of `len` bytes.
        let dst = unsafe { std::slice::from_raw_parts_mut(name, len as usize) };
        copy_name(dst, &g.name);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn hipDeviceSynchronize() -> Code {
    call(|| rt().check_sticky())
}

#[no_mangle]
pub extern "C" fn hipDeviceReset() -> Code {
    // Allocations and modules stay (wavejit has no device context to tear down); the sticky
    // error of a fault is cleared, so the program can continue.
    call(|| {
        rt().clear_sticky();
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemGetInfo(free: *mut usize, total: *mut usize) -> Code {
    call(|| {
        let t = crate::props::host_memory();
        // SAFETY: out-pointers per the HIP contract.
        unsafe { out(free, t / 2) }?;
        // SAFETY: as above.
        unsafe { out(total, t) }
    })
}

// ---- memory ----

unsafe fn alloc_into(p: *mut *mut c_void, size: usize, kind: AllocKind) -> Code {
    call(|| {
        if p.is_null() {
            return Err(invalid("null pointer for the allocation's address"));
        }
        let a = rt().alloc(size, kind)?;
        // SAFETY: non-null out-pointer (checked above).
        unsafe { p.write(a as *mut c_void) };
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMalloc(p: *mut *mut c_void, size: usize) -> Code {
    // SAFETY: forwarded out-pointer.
    unsafe { alloc_into(p, size, AllocKind::Device) }
}

#[no_mangle]
pub unsafe extern "C" fn hipMallocManaged(
    p: *mut *mut c_void,
    size: usize,
    _flags: c_uint,
) -> Code {
    // SAFETY: forwarded out-pointer.
    unsafe { alloc_into(p, size, AllocKind::Managed) }
}

#[no_mangle]
pub unsafe extern "C" fn hipHostMalloc(p: *mut *mut c_void, size: usize, _flags: c_uint) -> Code {
    // SAFETY: forwarded out-pointer.
    unsafe { alloc_into(p, size, AllocKind::Host) }
}

#[no_mangle]
pub unsafe extern "C" fn hipMallocHost(p: *mut *mut c_void, size: usize) -> Code {
    // SAFETY: forwarded out-pointer.
    unsafe { alloc_into(p, size, AllocKind::Host) }
}

#[no_mangle]
pub extern "C" fn hipFree(p: *mut c_void) -> Code {
    call(|| rt().free(p as u64, &[AllocKind::Device, AllocKind::Managed]))
}

#[no_mangle]
pub extern "C" fn hipHostFree(p: *mut c_void) -> Code {
    call(|| rt().free(p as u64, &[AllocKind::Host]))
}

#[no_mangle]
pub extern "C" fn hipFreeHost(p: *mut c_void) -> Code {
    hipHostFree(p)
}

/// One copy of `n` bytes (`kind` as in `hipMemcpyKind`).
///
/// # Safety
/// Host-side pointers must be valid for `n` bytes (HIP contract).
unsafe fn copy(dst: *mut c_void, src: *const c_void, n: usize, kind: c_int) -> HipResult {
    let r = rt();
    r.check_sticky()?;
    if n == 0 {
        return Ok(());
    }
    if dst.is_null() || src.is_null() {
        return Err(invalid("null pointer in a copy"));
    }
    let (d, s) = (dst as u64, src as u64);
    let (dst_dev, src_dev) = match kind {
        0 => (false, false),
        1 => (true, false),
        2 => (false, true),
        3 => (true, true),
        4 => (r.find(d, 1).is_some(), r.find(s, 1).is_some()),
        k => {
            return Err(HipError::new(
                INVALID_MEMCPY_DIRECTION,
                format!("hipMemcpyKind {k}"),
            ))
        }
    };
    match (dst_dev, src_dev) {
        (true, true) => {
            let data = r.read(s, n)?;
            r.write(d, &data)
        }
        (true, false) => {
            // SAFETY: `src` is host memory readable for `n` bytes (HIP contract).
            let data = unsafe { std::slice::from_raw_parts(src as *const u8, n) };
            r.write(d, data)
        }
        (false, true) => {
            let data = r.read(s, n)?;
            // SAFETY: `dst` is host memory writable for `n` bytes (HIP contract); `data` is
            // a fresh vector, so the ranges do not overlap.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst as *mut u8, n) };
            Ok(())
        }
        (false, false) => {
            // SAFETY: both are host memory valid for `n` bytes (HIP contract); `copy`
            // allows overlap.
            unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, n) };
            Ok(())
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
) -> Code {
    // SAFETY: forwarded pointers.
    call(|| unsafe { copy(dst, src, n, kind) })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyAsync(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
    stream: *mut c_void,
) -> Code {
    call(|| {
        rt().check_stream(stream as usize)?;
        // SAFETY: forwarded pointers.
        unsafe { copy(dst, src, n, kind) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoD(dst: *mut c_void, src: *const c_void, n: usize) -> Code {
    // SAFETY: forwarded pointers.
    call(|| unsafe { copy(dst, src, n, 1) })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoH(dst: *mut c_void, src: *const c_void, n: usize) -> Code {
    // SAFETY: forwarded pointers.
    call(|| unsafe { copy(dst, src, n, 2) })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoD(dst: *mut c_void, src: *const c_void, n: usize) -> Code {
    // SAFETY: forwarded pointers.
    call(|| unsafe { copy(dst, src, n, 3) })
}

fn memset(dst: *mut c_void, value: c_int, n: usize) -> HipResult {
    let r = rt();
    r.check_sticky()?;
    if n == 0 {
        return Ok(());
    }
    r.write(dst as u64, &vec![value as u8; n])
}

#[no_mangle]
pub extern "C" fn hipMemset(dst: *mut c_void, value: c_int, n: usize) -> Code {
    call(|| memset(dst, value, n))
}

#[no_mangle]
pub extern "C" fn hipMemsetAsync(
    dst: *mut c_void,
    value: c_int,
    n: usize,
    stream: *mut c_void,
) -> Code {
    call(|| {
        rt().check_stream(stream as usize)?;
        memset(dst, value, n)
    })
}

fn symbol_range(symbol: *const c_void, n: usize, offset: usize) -> HipResult<u64> {
    let (addr, size) = rt().var(symbol as usize)?;
    if offset.checked_add(n).is_none_or(|e| e as u64 > size) {
        return Err(invalid(&format!(
            "{n} bytes at offset {offset} do not fit the {size}-byte device variable"
        )));
    }
    Ok(addr + offset as u64)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyToSymbol(
    symbol: *const c_void,
    src: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> Code {
    call(|| {
        let addr = symbol_range(symbol, n, offset)?;
        let from_device = kind == 3 || (kind == 4 && rt().find(src as u64, 1).is_some());
        // SAFETY: forwarded pointers.
        unsafe { copy(addr as *mut c_void, src, n, if from_device { 3 } else { 1 }) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyFromSymbol(
    dst: *mut c_void,
    symbol: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> Code {
    call(|| {
        let addr = symbol_range(symbol, n, offset)?;
        let to_device = kind == 3 || (kind == 4 && rt().find(dst as u64, 1).is_some());
        // SAFETY: forwarded pointers.
        unsafe { copy(dst, addr as *const c_void, n, if to_device { 3 } else { 2 }) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetSymbolAddress(p: *mut *mut c_void, symbol: *const c_void) -> Code {
    call(|| {
        let (addr, _) = rt().var(symbol as usize)?;
        // SAFETY: out-pointer per the HIP contract.
        unsafe { out(p, addr as *mut c_void) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetSymbolSize(p: *mut usize, symbol: *const c_void) -> Code {
    call(|| {
        let (_, size) = rt().var(symbol as usize)?;
        // SAFETY: out-pointer per the HIP contract.
        unsafe { out(p, size as usize) }
    })
}

// ---- streams and events ----

#[no_mangle]
pub unsafe extern "C" fn hipStreamCreate(s: *mut *mut c_void) -> Code {
    // SAFETY: out-pointer per the HIP contract.
    call(|| unsafe { out(s, rt().stream_create() as *mut c_void) })
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamCreateWithFlags(s: *mut *mut c_void, _flags: c_uint) -> Code {
    // SAFETY: forwarded out-pointer.
    unsafe { hipStreamCreate(s) }
}

#[no_mangle]
pub extern "C" fn hipStreamDestroy(s: *mut c_void) -> Code {
    call(|| rt().stream_destroy(s as usize))
}

#[no_mangle]
pub extern "C" fn hipStreamSynchronize(s: *mut c_void) -> Code {
    call(|| {
        rt().check_stream(s as usize)?;
        rt().check_sticky()
    })
}

#[no_mangle]
pub extern "C" fn hipStreamQuery(s: *mut c_void) -> Code {
    call(|| {
        rt().check_stream(s as usize)?;
        rt().check_sticky()
    })
}

#[no_mangle]
pub extern "C" fn hipStreamWaitEvent(s: *mut c_void, e: *mut c_void, _flags: c_uint) -> Code {
    call(|| {
        rt().check_stream(s as usize)?;
        rt().with_event(e as usize, |_| ())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipEventCreate(e: *mut *mut c_void) -> Code {
    // SAFETY: out-pointer per the HIP contract.
    call(|| unsafe { out(e, rt().event_create(false) as *mut c_void) })
}

#[no_mangle]
pub unsafe extern "C" fn hipEventCreateWithFlags(e: *mut *mut c_void, flags: c_uint) -> Code {
    // SAFETY: out-pointer per the HIP contract.
    call(|| unsafe { out(e, rt().event_create(flags & 2 != 0) as *mut c_void) })
}

#[no_mangle]
pub extern "C" fn hipEventDestroy(e: *mut c_void) -> Code {
    call(|| rt().event_destroy(e as usize))
}

#[no_mangle]
pub extern "C" fn hipEventRecord(e: *mut c_void, s: *mut c_void) -> Code {
    call(|| {
        rt().check_stream(s as usize)?;
        // Everything enqueued before has completed (synchronous execution).
        rt().with_event(e as usize, |ev| ev.at = Some(Instant::now()))
    })
}

#[no_mangle]
pub extern "C" fn hipEventSynchronize(e: *mut c_void) -> Code {
    call(|| {
        rt().with_event(e as usize, |_| ())?;
        rt().check_sticky()
    })
}

#[no_mangle]
pub extern "C" fn hipEventQuery(e: *mut c_void) -> Code {
    call(|| {
        let recorded = rt().with_event(e as usize, |ev| ev.at.is_some())?;
        if recorded {
            Ok(())
        } else {
            Err(HipError::quiet(NOT_READY))
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipEventElapsedTime(
    ms: *mut f32,
    start: *mut c_void,
    stop: *mut c_void,
) -> Code {
    call(|| {
        let t = rt().elapsed_ms(start as usize, stop as usize)?;
        // SAFETY: out-pointer per the HIP contract.
        unsafe { out(ms, t) }
    })
}

// ---- registration (called by the module constructor clang emits) ----

#[repr(C)]
struct FatbinWrapper {
    magic: u32,
    version: u32,
    binary: *const u8,
    reserved: *const c_void,
}

/// Registers a translation unit's fat binary; returns the handle its kernels and variables
/// are registered with.
#[no_mangle]
pub unsafe extern "C" fn __hipRegisterFatBinary(data: *const c_void) -> *mut *mut c_void {
    let mut handle: *mut *mut c_void = std::ptr::null_mut();
    call_void(|| {
        if data.is_null() {
            return Err(invalid("null fat binary"));
        }
        // SAFETY: clang passes its `__hip_fatbin_wrapper` (magic, version, bundle pointer).
        let w = unsafe { std::ptr::read_unaligned(data as *const FatbinWrapper) };
        if w.magic != image::WRAPPER_MAGIC {
            return Err(HipError::new(
                INVALID_IMAGE,
                format!(
                    "fat binary wrapper has magic {:#x}, not {:#x}",
                    w.magic,
                    image::WRAPPER_MAGIC
                ),
            ));
        }
        // SAFETY: the wrapper points to the bundle in the program's `.hip_fatbin` section,
        // which stays mapped until the module destructor unregisters it.
        let bundle = unsafe { image::image_at(w.binary) }?;
        let index = rt().register_fatbin(bundle);
        // The handle is a leaked box holding the index (a few bytes per translation unit).
        handle = Box::into_raw(Box::new(index as *mut c_void));
        Ok(())
    });
    handle
}

/// The fat-binary index behind a handle.
///
/// # Safety
/// `h` is null or a handle returned by `__hipRegisterFatBinary`.
unsafe fn fatbin_index(h: *mut *mut c_void) -> HipResult<usize> {
    if h.is_null() {
        return Err(invalid("null fat binary handle (registration failed)"));
    }
    // SAFETY: handles are boxes made by `__hipRegisterFatBinary`, never freed.
    Ok(unsafe { *h } as usize)
}

#[no_mangle]
pub unsafe extern "C" fn __hipUnregisterFatBinary(h: *mut *mut c_void) {
    call_void(|| {
        // SAFETY: `h` comes from `__hipRegisterFatBinary`.
        let i = unsafe { fatbin_index(h) }?;
        rt().unregister_fatbin(i);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn __hipRegisterFunction(
    h: *mut *mut c_void,
    host_function: *const c_void,
    _device_function: *mut c_char,
    device_name: *const c_char,
    _thread_limit: c_uint,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _block_dim: *mut c_void,
    _grid_dim: *mut c_void,
    _wsize: *mut c_int,
) {
    call_void(|| {
        // SAFETY: `h` comes from `__hipRegisterFatBinary`; the name is a C string.
        let i = unsafe { fatbin_index(h) }?;
        // SAFETY: clang passes the kernel's mangled name.
        let name = unsafe { cstr(device_name) }?;
        rt().register_function(i, host_function as usize, name.to_string());
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn __hipRegisterVar(
    h: *mut *mut c_void,
    host_var: *mut c_void,
    _host_name: *mut c_char,
    device_name: *const c_char,
    _ext: c_int,
    _size: usize,
    _constant: c_int,
    _global: c_int,
) {
    call_void(|| {
        // SAFETY: `h` comes from `__hipRegisterFatBinary`; the name is a C string.
        let i = unsafe { fatbin_index(h) }?;
        // SAFETY: clang passes the variable's device name.
        let name = unsafe { cstr(device_name) }?;
        rt().register_var(i, host_var as usize, name.to_string());
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn __hipRegisterManagedVar(
    _h: *mut c_void,
    _pointer: *mut *mut c_void,
    _init: *mut c_void,
    name: *const c_char,
    _size: usize,
    _align: c_uint,
) {
    call_void(|| {
        // SAFETY: clang passes the variable's name.
        let n = unsafe { cstr(name) }.unwrap_or("?");
        Err(HipError::new(
            NOT_SUPPORTED,
            format!("__managed__ variable {n} is not supported"),
        ))
    })
}

// ---- launches ----

#[no_mangle]
pub extern "C" fn __hipPushCallConfiguration(
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: *mut c_void,
) -> Code {
    call(|| {
        push_config(CallConfig {
            grid: grid.arr(),
            block: block.arr(),
            shared,
            stream: stream as usize,
        });
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn __hipPopCallConfiguration(
    grid: *mut Dim3,
    block: *mut Dim3,
    shared: *mut usize,
    stream: *mut *mut c_void,
) -> Code {
    call(|| {
        let c = pop_config().ok_or_else(|| {
            HipError::new(MISSING_CONFIGURATION, "no launch configuration was pushed")
        })?;
        let d = |a: [u32; 3]| Dim3 {
            x: a[0],
            y: a[1],
            z: a[2],
        };
        // SAFETY: out-pointers of the kernel stub clang emits.
        unsafe {
            out(grid, d(c.grid))?;
            out(block, d(c.block))?;
            out(shared, c.shared)?;
            out(stream, c.stream as *mut c_void)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipLaunchKernel(
    function: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> Code {
    call(|| {
        let r = rt();
        r.check_stream(stream as usize)?;
        r.check_sticky()?;
        let (loaded, kernel) = r.function(function as usize)?;
        // SAFETY: the stub passes one pointer per explicit kernel argument.
        let packed = unsafe { Runtime::pack_params(kernel.info(), args as *const *const u8) }?;
        r.launch(&loaded, &kernel, grid.arr(), block.arr(), shared, packed)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipFuncGetAttributes(
    attr: *mut FuncAttributes,
    func: *const c_void,
) -> Code {
    call(|| {
        let (_, k) = rt().function(func as usize)?;
        let i = k.info();
        let g = rt().props()?;
        let a = FuncAttributes {
            binary_version: g.major * 10 + g.minor,
            cache_mode_ca: 0,
            const_size_bytes: 0,
            local_size_bytes: i.private_segment_fixed_size as usize,
            max_dynamic_shared_size_bytes: (g.lds_per_block as u32)
                .saturating_sub(i.group_segment_fixed_size)
                as c_int,
            max_threads_per_block: if i.max_flat_workgroup_size == 0 {
                1024
            } else {
                i.max_flat_workgroup_size as c_int
            },
            num_regs: i.vgpr_count as c_int,
            preferred_shmem_carveout: 0,
            ptx_version: g.major * 10 + g.minor,
            shared_size_bytes: i.group_segment_fixed_size as usize,
        };
        // SAFETY: out-pointer per the HIP contract.
        unsafe { out(attr, a) }
    })
}

#[no_mangle]
pub extern "C" fn hipFuncSetCacheConfig(func: *const c_void, _config: c_int) -> Code {
    call(|| rt().function(func as usize).map(|_| ()))
}

// ---- module API ----

#[no_mangle]
pub unsafe extern "C" fn hipModuleLoadData(m: *mut *mut c_void, img: *const c_void) -> Code {
    call(|| {
        // SAFETY: the caller passes a complete code object or bundle.
        let bytes = unsafe { image::image_at(img as *const u8) }?;
        let h = rt().module_load(bytes)?;
        // SAFETY: out-pointer per the HIP contract.
        unsafe { out(m, h as *mut c_void) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleLoad(m: *mut *mut c_void, fname: *const c_char) -> Code {
    call(|| {
        // SAFETY: a C string per the HIP contract.
        let path = unsafe { cstr(fname) }?;
        let bytes = std::fs::read(path)
            .map_err(|e| HipError::new(FILE_NOT_FOUND, format!("{path}: {e}")))?;
        if !bytes.starts_with(image::ELF_MAGIC) && !bytes.starts_with(image::BUNDLE_MAGIC) {
            return Err(HipError::new(
                INVALID_IMAGE,
                format!("{path}: not a code object or offload bundle"),
            ));
        }
        let h = rt().module_load(&bytes)?;
        // SAFETY: out-pointer per the HIP contract.
        unsafe { out(m, h as *mut c_void) }
    })
}

#[no_mangle]
pub extern "C" fn hipModuleUnload(m: *mut c_void) -> Code {
    call(|| rt().module_unload(m as usize))
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleGetFunction(
    f: *mut *mut c_void,
    m: *mut c_void,
    name: *const c_char,
) -> Code {
    call(|| {
        // SAFETY: a C string per the HIP contract.
        let n = unsafe { cstr(name) }?;
        let h = rt().module_function(m as usize, n)?;
        // SAFETY: out-pointer per the HIP contract.
        unsafe { out(f, h as *mut c_void) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleGetGlobal(
    dptr: *mut *mut c_void,
    bytes: *mut usize,
    m: *mut c_void,
    name: *const c_char,
) -> Code {
    call(|| {
        // SAFETY: a C string per the HIP contract.
        let n = unsafe { cstr(name) }?;
        let (addr, size) = rt().module(m as usize)?.symbol(n)?;
        // Either out-pointer may be null (HIP allows asking for one of them).
        if !dptr.is_null() {
            // SAFETY: non-null out-pointer.
            unsafe { dptr.write(addr as *mut c_void) };
        }
        if !bytes.is_null() {
            // SAFETY: non-null out-pointer.
            unsafe { bytes.write(size as usize) };
        }
        Ok(())
    })
}

/// `HIP_LAUNCH_PARAM_*` markers of `extra`.
const PARAM_BUFFER_POINTER: usize = 1;
const PARAM_BUFFER_SIZE: usize = 2;
const PARAM_END: usize = 3;

#[no_mangle]
pub unsafe extern "C" fn hipModuleLaunchKernel(
    f: *mut c_void,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> Code {
    call(|| {
        let r = rt();
        r.check_stream(stream as usize)?;
        r.check_sticky()?;
        let (loaded, kernel) = r.function(f as usize)?;
        let info = kernel.info();
        let packed = if !params.is_null() {
            // SAFETY: one pointer per explicit argument (HIP contract).
            unsafe { Runtime::pack_params(info, params as *const *const u8) }?
        } else if !extra.is_null() {
            let (mut buf, mut size) = (std::ptr::null::<u8>(), None::<usize>);
            for i in (0..64).step_by(2) {
                // SAFETY: `extra` is a marker/value list ended by HIP_LAUNCH_PARAM_END.
                let key = unsafe { *extra.add(i) } as usize;
                if key == PARAM_END {
                    break;
                }
                // SAFETY: as above: a value follows each marker.
                let val = unsafe { *extra.add(i + 1) };
                match key {
                    PARAM_BUFFER_POINTER => buf = val as *const u8,
                    // SAFETY: the size marker's value points to a size_t.
                    PARAM_BUFFER_SIZE if !val.is_null() => {
                        size = Some(unsafe { *(val as *const usize) })
                    }
                    _ => return Err(invalid("unknown marker in hipModuleLaunchKernel's extra")),
                }
            }
            let (Some(size), false) = (size, buf.is_null()) else {
                return Err(invalid(
                    "extra needs HIP_LAUNCH_PARAM_BUFFER_POINTER and _SIZE",
                ));
            };
            // SAFETY: the caller's argument buffer holds `size` bytes.
            let bytes = unsafe { std::slice::from_raw_parts(buf, size) };
            Runtime::pack_buffer(info, bytes)?
        } else {
            Runtime::pack_buffer(info, &[])?
        };
        r.launch(
            &loaded,
            &kernel,
            [gx, gy, gz],
            [bx, by, bz],
            shared as usize,
            packed,
        )
    })
}
