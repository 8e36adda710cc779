//! Raw dispatch of code at a host address, with host memory: remu's `run_asm`, `wj_run_asm2`
//! (what mock-GPU harnesses forward from the dispatch registers) and the struct-based
//! `wj_dispatch`.
//!
//! These run on the process device (one per process, created at first use) unless a
//! `wj_dispatch_desc` names another. Its host-memory check starts as `WJ_HOST_CHECK_AUTO`:
//! while no range is registered with `wj_register_memory`, kernels may access any writable
//! mapping of the process (so a harness that registers nothing just works, and unmapped or
//! read-only addresses are fault reports, not segfaults); from the first registration on, only
//! registered ranges are accessible (a wild pointer into other host memory is a fault too).

use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use wavejit_api::raw::{parse_arch, HostCheck, RawDispatch, DEFAULT_RSRC1};
use wavejit_api::{Device, Report};

use crate::object::{deref, engine, wj_device, wj_report};
use crate::{guard, Failure};

/// Host-check mode: only device buffers and registered host ranges.
pub const WJ_HOST_CHECK_REGISTERED: u32 = 0;
/// Host-check mode: also any writable mapping of the process (kernels can then corrupt any
/// writable host memory; unmapped and read-only addresses still fault).
pub const WJ_HOST_CHECK_MAPPINGS: u32 = 1;
/// Host-check mode: `WJ_HOST_CHECK_MAPPINGS` while no host range is registered,
/// `WJ_HOST_CHECK_REGISTERED` from the first registration on (the process device's default).
pub const WJ_HOST_CHECK_AUTO: u32 = 2;

/// Everything a DISPATCH_DIRECT packet and the registers it is launched with say. Zero is the
/// default of every field; set `struct_size = sizeof(wj_dispatch_desc)`: fields added in
/// later versions go at the end, and a caller built against an older header (smaller
/// `struct_size`) gets their zero defaults.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wj_dispatch_desc {
    /// `sizeof(wj_dispatch_desc)` as the caller was compiled.
    pub struct_size: u32,
    /// Wave size (COMPUTE_DISPATCH_INITIATOR.CS_W32_EN): 32 or 64; 0 = the target's default
    /// (32 on RDNA, 64 on CDNA).
    pub wave_size: u32,
    /// Architecture: "gfx1100", "gfx1200", "gfx1201", "gfx942", "gfx950", "rdna3", "rdna4",
    /// "cdna3", "cdna4"; null = "gfx1100".
    pub arch: *const c_char,
    /// First instruction of the kernel (COMPUTE_PGM_LO/HI); its address is the kernel's pc.
    pub code: *const c_void,
    /// Readable code bytes from `code` on (may run past the kernel's end).
    pub code_size: u64,
    /// Workgroups per dimension (0 counts as 1).
    pub grid: [u32; 3],
    /// Work-items per workgroup per dimension (COMPUTE_NUM_THREAD_X/Y/Z; 0 counts as 1).
    pub block: [u32; 3],
    /// COMPUTE_PGM_RSRC1: VGPR count; FLOAT_MODE, DX10_CLAMP and IEEE give the initial MODE.
    /// 0 = 256 VGPRs, round to nearest, denormals kept, DX10_CLAMP and IEEE on.
    pub rsrc1: u32,
    /// COMPUTE_PGM_RSRC2: USER_SGPR_COUNT, TGID_X/Y/Z_EN, TG_SIZE_EN, TIDIG_COMP_CNT, LDS_SIZE.
    pub rsrc2: u32,
    /// COMPUTE_PGM_RSRC3 (CDNA: ACCUM_OFFSET).
    pub rsrc3: u32,
    /// LDS bytes per workgroup; 0 = what rsrc2's LDS_SIZE says.
    pub lds_bytes: u32,
    /// Scratch (private segment) bytes per work-item (COMPUTE_TMPRING_SIZE.WAVESIZE / lanes).
    pub scratch_per_lane: u32,
    /// COMPUTE_USER_DATA_0..n: loaded into s[0..min(n, USER_SGPR_COUNT)). When null (and
    /// `user_data_count` 0) s[0:1] hold `kernarg`.
    pub user_data: *const u32,
    /// Number of `user_data` values.
    pub user_data_count: u32,
    /// `WJ_ENGINE_JIT` (0) or `WJ_ENGINE_INTERP`.
    pub engine: u32,
    /// Kernarg address placed in s[0:1] when there is no user data.
    pub kernarg: u64,
    /// Host threads (0 = all available).
    pub threads: u32,
    /// Reserved, 0.
    pub reserved: u32,
    /// Device to run on; null = the process device.
    pub device: *const wj_device,
    /// If not null, receives the report of a successful dispatch.
    pub report: *mut wj_report,
}

/// The process device (host-check `WJ_HOST_CHECK_AUTO`).
fn process_device() -> &'static Device {
    static DEV: OnceLock<Device> = OnceLock::new();
    DEV.get_or_init(|| {
        let d = Device::new();
        // SAFETY: the C entry points document that kernels on the process device may reach
        // any writable host memory while no range is registered; the C caller owns that
        // memory and guarantees its kernels address only memory it means them to.
        unsafe { d.set_host_check(HostCheck::Auto) };
        d
    })
}

/// Host threads for `run_asm` and `wj_run_asm2` (0 = all available).
static THREADS: AtomicU32 = AtomicU32::new(0);

/// Sets the host threads `run_asm` and `wj_run_asm2` use (0 = all available, the default).
#[no_mangle]
pub extern "C" fn wj_set_threads(threads: u32) -> i32 {
    THREADS.store(threads, Ordering::Relaxed);
    crate::WJ_OK
}

/// Sets the per-wave instruction budget of later dispatches on the process device (a
/// runaway wave faults; default 2^34).
#[no_mangle]
pub extern "C" fn wj_set_instruction_budget(budget: u64) -> i32 {
    guard(|| {
        process_device().set_instruction_budget(budget);
        Ok(())
    })
}

/// Registers the host range `[ptr, ptr + len)` with the process device: kernels of `run_asm`,
/// `wj_run_asm2` and `wj_dispatch` may access it until `wj_unregister_memory`. Errors on a
/// null pointer, zero length, a range that wraps or overlaps a registered one (registering
/// the same range again is accepted). The memory must stay valid until unregistered.
#[no_mangle]
pub unsafe extern "C" fn wj_register_memory(ptr: *mut c_void, len: u64) -> i32 {
    guard(|| {
        let len = usize::try_from(len).map_err(|_| Failure::invalid("length too large"))?;
        // SAFETY: the caller guarantees the range stays valid until unregistered.
        unsafe { process_device().register_host_memory(ptr as *mut u8, len) }?;
        Ok(())
    })
}

/// Unregisters the host range that starts at `ptr` from the process device (waits for running
/// dispatches). `WJ_ERR_USAGE` when no registered range starts there.
#[no_mangle]
pub extern "C" fn wj_unregister_memory(ptr: *mut c_void) -> i32 {
    guard(|| {
        if process_device().unregister_host_memory(ptr as *mut u8) {
            Ok(())
        } else {
            Err(Failure::from(wavejit_api::Error::Usage(format!(
                "no registered host range starts at {ptr:p}"
            ))))
        }
    })
}

/// Sets the process device's host-check mode (`WJ_HOST_CHECK_*`).
#[no_mangle]
pub extern "C" fn wj_set_host_check(mode: u32) -> i32 {
    guard(|| {
        let m = host_check(mode)?;
        // SAFETY: the C API documents what each mode lets kernels reach; choosing it is the
        // caller's decision.
        unsafe { process_device().set_host_check(m) };
        Ok(())
    })
}

/// Sets `dev`'s host-check mode (`WJ_HOST_CHECK_*`).
#[no_mangle]
pub unsafe extern "C" fn wj_device_set_host_check(dev: *const wj_device, mode: u32) -> i32 {
    guard(|| {
        // SAFETY: a live handle or null.
        let d = unsafe { deref(dev, "dev") }?;
        let m = host_check(mode)?;
        // SAFETY: the C API documents what each mode lets kernels reach.
        unsafe { d.dev.set_host_check(m) };
        Ok(())
    })
}

pub(crate) fn host_check(mode: u32) -> Result<HostCheck, Failure> {
    match mode {
        WJ_HOST_CHECK_REGISTERED => Ok(HostCheck::Registered),
        WJ_HOST_CHECK_MAPPINGS => Ok(HostCheck::Mappings),
        WJ_HOST_CHECK_AUTO => Ok(HostCheck::Auto),
        m => Err(Failure::invalid(format!("unknown host-check mode {m}"))),
    }
}

/// The code bytes at `lib`, checked.
///
/// # Safety
/// `lib` must be readable for `len` bytes when not null.
unsafe fn code_slice<'a>(lib: *const c_void, len: u64) -> Result<&'a [u8], Failure> {
    if lib.is_null() {
        return Err(Failure::invalid("the code pointer is null"));
    }
    if len == 0 {
        return Err(Failure::invalid("the code size is 0"));
    }
    let len = usize::try_from(len)
        .ok()
        .filter(|&l| l <= isize::MAX as usize)
        .ok_or_else(|| Failure::invalid("the code size is too large"))?;
    // SAFETY: non-null; the caller guarantees `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(lib as *const u8, len) })
}

fn run(dev: &Device, d: &RawDispatch) -> Result<Report, Failure> {
    Ok(dev.dispatch_raw(d)?)
}

/// remu's entry point, with its conventions: `lib` is the first instruction of gfx1100 wave32
/// code (raw bytes, no descriptor; `lib_sz` may run past the kernel's end); the kernarg
/// address `args_ptr` is in s[0:1]; workgroup ids in s15 (1-D grid), s14-s15 (2-D: gy > 1),
/// s13-s15 (3-D: gy > 1 and gz > 1); v0 = z << 20 | y << 10 | x (x alone for a 1-D block);
/// 64 KiB of LDS; global addresses are host addresses (see `wj_register_memory` for what is
/// checked). Returns 0, or non-zero on an undefined or unsupported instruction, a fault or
/// a bad argument, with the text in `wj_last_error()` (and `wj_last_fault()` for faults).
/// Translations are cached by code content, so reusing an address for another kernel is safe.
#[no_mangle]
pub unsafe extern "C" fn run_asm(
    lib: *const c_char,
    lib_sz: u32,
    gx: u32,
    gy: u32,
    gz: u32,
    lx: u32,
    ly: u32,
    lz: u32,
    args_ptr: *const u64,
) -> i32 {
    guard(|| {
        // SAFETY: the caller passes `lib_sz` readable bytes at `lib`.
        let code = unsafe { code_slice(lib as *const c_void, lib_sz as u64) }?;
        let mut d = RawDispatch::remu(
            code,
            lib as u64,
            [gx, gy, gz],
            [lx, ly, lz],
            args_ptr as u64,
        );
        d.threads = THREADS.load(Ordering::Relaxed) as usize;
        run(process_device(), &d).map(|_| ())
    })
}

/// `run_asm` plus what harnesses forward from the dispatch registers: `rsrc2`
/// (COMPUTE_PGM_RSRC2: USER_SGPR_COUNT, TGID enables, LDS_SIZE), `scratch_size` (bytes per
/// lane), `arch` ("gfx1100", "gfx1200", "gfx1201", "gfx942", "gfx950", "rdna3", "rdna4",
/// "cdna4"), and the user SGPRs (COMPUTE_USER_DATA_*: s[0..n) when `user_data` is given, else
/// the kernarg address `args_ptr` in s[0:1]). Workgroup ids follow the user SGPRs as rsrc2's
/// enables say (GFX12: ttmp9 = x, ttmp7 = y | z << 16); work-item ids in v0 as its
/// TIDIG_COMP_CNT says; the wave size is the target's (wave64 with AGPRs on CDNA, wave32 on
/// RDNA); MODE as clang sets it for HSA kernels (denormals kept, IEEE on).
#[no_mangle]
pub unsafe extern "C" fn wj_run_asm2(
    lib: *const c_char,
    lib_sz: u32,
    gx: u32,
    gy: u32,
    gz: u32,
    lx: u32,
    ly: u32,
    lz: u32,
    args_ptr: *const u64,
    rsrc2: u32,
    scratch_size: u32,
    arch: *const c_char,
    user_data: *const u32,
    user_data_count: u32,
) -> i32 {
    let desc = wj_dispatch_desc {
        struct_size: std::mem::size_of::<wj_dispatch_desc>() as u32,
        wave_size: 0,
        arch,
        code: lib as *const c_void,
        code_size: lib_sz as u64,
        grid: [gx, gy, gz],
        block: [lx, ly, lz],
        rsrc1: 0,
        rsrc2,
        rsrc3: 0,
        lds_bytes: 0,
        scratch_per_lane: scratch_size,
        user_data,
        user_data_count,
        engine: 0,
        kernarg: args_ptr as u64,
        threads: THREADS.load(Ordering::Relaxed),
        reserved: 0,
        device: std::ptr::null(),
        report: std::ptr::null_mut(),
    };
    if arch.is_null() {
        return guard(|| Err(Failure::invalid("wj_run_asm2: arch is null")));
    }
    // SAFETY: forwarded: the caller's pointers, as `wj_dispatch` documents them.
    unsafe { wj_dispatch(&desc) }
}

/// Runs the dispatch `*desc` describes (see `wj_dispatch_desc`).
#[no_mangle]
pub unsafe extern "C" fn wj_dispatch(desc: *const wj_dispatch_desc) -> i32 {
    guard(|| {
        if desc.is_null() {
            return Err(Failure::invalid("wj_dispatch: desc is null"));
        }
        // SAFETY: non-null; the caller's struct is at least `struct_size` bytes (its first
        // field, read first).
        let size = unsafe { (desc as *const u32).read_unaligned() } as usize;
        if size < std::mem::offset_of!(wj_dispatch_desc, code_size) + 8 {
            return Err(Failure::invalid(format!(
                "wj_dispatch: struct_size {size} is too small (set it to sizeof(wj_dispatch_desc))"
            )));
        }
        let mut d = wj_dispatch_desc {
            struct_size: 0,
            wave_size: 0,
            arch: std::ptr::null(),
            code: std::ptr::null(),
            code_size: 0,
            grid: [0; 3],
            block: [0; 3],
            rsrc1: 0,
            rsrc2: 0,
            rsrc3: 0,
            lds_bytes: 0,
            scratch_per_lane: 0,
            user_data: std::ptr::null(),
            user_data_count: 0,
            engine: 0,
            kernarg: 0,
            threads: 0,
            reserved: 0,
            device: std::ptr::null(),
            report: std::ptr::null_mut(),
        };
        let n = size.min(std::mem::size_of::<wj_dispatch_desc>());
        // SAFETY: copies the first `n` bytes the caller provides into a valid (all fields
        // zero or null) struct; every bit pattern is valid for its integer and pointer fields.
        unsafe { std::ptr::copy_nonoverlapping(desc as *const u8, &mut d as *mut _ as *mut u8, n) };
        let arch = if d.arch.is_null() {
            "gfx1100".to_string()
        } else {
            // SAFETY: non-null, NUL-terminated per the API.
            unsafe { CStr::from_ptr(d.arch) }
                .to_str()
                .map_err(|_| Failure::invalid("arch is not UTF-8"))?
                .to_string()
        };
        let gpu = parse_arch(&arch)?;
        // SAFETY: the caller passes `code_size` readable bytes at `code`.
        let code = unsafe { code_slice(d.code, d.code_size) }?;
        let user: Vec<u32> = if d.user_data.is_null() {
            if d.user_data_count != 0 {
                return Err(Failure::invalid(
                    "user_data is null but user_data_count is not 0",
                ));
            }
            vec![d.kernarg as u32, (d.kernarg >> 32) as u32]
        } else {
            if d.user_data_count > 32 {
                return Err(Failure::invalid(format!(
                    "{} user data values; the hardware has at most 32 user SGPRs",
                    d.user_data_count
                )));
            }
            // SAFETY: non-null; the caller passes `user_data_count` values.
            unsafe { std::slice::from_raw_parts(d.user_data, d.user_data_count as usize) }.to_vec()
        };
        let one = |v: u32| v.max(1);
        let mut r = RawDispatch::new(code, d.code as u64, gpu, d.grid.map(one), d.block.map(one));
        r.wave_size = d.wave_size;
        r.rsrc1 = if d.rsrc1 == 0 { DEFAULT_RSRC1 } else { d.rsrc1 };
        r.rsrc2 = d.rsrc2;
        r.rsrc3 = d.rsrc3;
        r.lds_bytes = (d.lds_bytes != 0).then_some(d.lds_bytes);
        r.scratch_per_lane = d.scratch_per_lane;
        r.user_sgprs = user;
        r.engine = engine(d.engine)?;
        r.threads = d.threads as usize;
        let dev = if d.device.is_null() {
            process_device()
        } else {
            // SAFETY: a live handle from `wj_device_create` per the API.
            unsafe { &(*d.device).dev }
        };
        let report = run(dev, &r)?;
        if !d.report.is_null() {
            // SAFETY: non-null, points to the caller's `wj_report`.
            unsafe { d.report.write(wj_report::from(&report)) };
        }
        Ok(())
    })
}
