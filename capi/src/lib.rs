//! The wavejit C library: `libwavejit.so` and `include/wavejit.h` (generated from this crate by
//! cbindgen, `scripts/capi_header.sh`).
//!
//! Conventions of every entry point:
//! * it returns a status (`WJ_OK` = 0, else a `WJ_ERR_*` code) and sets the calling thread's
//!   error text ([`wj_last_error`]) on failure; kernel faults also set the thread's fault
//!   record ([`wj_last_fault`]);
//! * null pointers and bad sizes are `WJ_ERR_INVALID_ARGUMENT`, never a crash;
//! * a Rust panic is caught at the boundary and becomes `WJ_ERR_INTERNAL`;
//! * handles (`wj_device`, `wj_module`, `wj_kernel`) are opaque, created by `*_create` /
//!   `wj_module_load` and released by the matching `*_destroy`; a module and its kernels keep
//!   what they need alive, so handles may be destroyed in any order.
//!
//! Thread safety: every function may be called from any thread; a device, module or kernel
//! may be used by several threads at once (launches on one device run concurrently). A handle
//! must not be destroyed while another thread uses it.

#![allow(non_camel_case_types)]
// The C ABI takes raw pointers from C callers; each dereference checks for null and is
// documented in the header.
#![allow(clippy::missing_safety_doc)]

pub mod dispatch;
pub mod object;

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use wavejit_api::Error;
use wavejit_runtime::fault::FaultReport;

/// Success.
pub const WJ_OK: i32 = 0;
/// A null pointer, a bad size or an out-of-range value was passed.
pub const WJ_ERR_INVALID_ARGUMENT: i32 = 1;
/// A code object could not be loaded.
pub const WJ_ERR_LOAD: i32 = 2;
/// A usage error: unknown kernel, wrong arguments, bad geometry or resources.
pub const WJ_ERR_USAGE: i32 = 3;
/// The kernel faulted (an undefined or unsupported instruction, a memory access outside
/// device memory, a runaway wave): details in `wj_last_fault`.
pub const WJ_ERR_FAULT: i32 = 4;
/// An internal error (a caught panic); the library stays usable.
pub const WJ_ERR_INTERNAL: i32 = 5;
/// Device memory could not be allocated, or a host copy named a range outside the device's
/// live buffers.
pub const WJ_ERR_MEMORY: i32 = 6;

/// Version of the C API this header describes: major << 16 | minor << 8 | patch.
pub const WJ_API_VERSION: u32 = 0x00_01_00;

/// Capacity (bytes, terminating NUL included) of the text fields of `wj_fault`.
pub const WJ_FAULT_TEXT: usize = 256;

/// A kernel fault: where the first fault of a launch happened and why.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wj_fault {
    /// Kernel name (`run_asm` / `raw` for raw dispatches), NUL-terminated, truncated.
    pub kernel: [c_char; WJ_FAULT_TEXT],
    /// Workgroup id x, y, z.
    pub workgroup: [u32; 3],
    /// Wave index within the workgroup.
    pub wave: u32,
    /// Faulting lane, or -1 when the cause is not per lane.
    pub lane: i32,
    /// Byte offset of the faulting instruction: from the code object's vaddr 0 for modules,
    /// from the first code byte for raw dispatches.
    pub pc: u64,
    /// The instruction's disassembly (or why there is none), NUL-terminated, truncated.
    pub instruction: [c_char; WJ_FAULT_TEXT],
    /// What went wrong, NUL-terminated, truncated.
    pub cause: [c_char; WJ_FAULT_TEXT],
}

struct ThreadState {
    error: CString,
    fault: Option<Box<FaultReport>>,
}

thread_local! {
    static STATE: RefCell<ThreadState> = RefCell::new(ThreadState {
        error: CString::default(),
        fault: None,
    });
}

/// A failure: its status and message, and for faults the structured report.
pub(crate) struct Failure {
    code: i32,
    msg: String,
    fault: Option<Box<FaultReport>>,
}

impl Failure {
    pub(crate) fn invalid(msg: impl Into<String>) -> Failure {
        Failure {
            code: WJ_ERR_INVALID_ARGUMENT,
            msg: msg.into(),
            fault: None,
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let msg = e.to_string();
        let (code, fault) = match e {
            Error::Load(_) => (WJ_ERR_LOAD, None),
            Error::Fault(f) => (WJ_ERR_FAULT, Some(f)),
            Error::Memory(_) => (WJ_ERR_MEMORY, None),
            Error::Usage(_) | Error::WrongResult(_) => (WJ_ERR_USAGE, None),
        };
        Failure { code, msg, fault }
    }
}

fn set_error(msg: &str, fault: Option<Box<FaultReport>>) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    let _ = STATE.try_with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            s.error = c;
            if fault.is_some() {
                s.fault = fault;
            }
        }
    });
}

/// Runs an entry point's body: its status, with the error text set on failure and panics
/// caught.
pub(crate) fn guard(f: impl FnOnce() -> Result<(), Failure>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => WJ_OK,
        Ok(Err(e)) => {
            set_error(&e.msg, e.fault);
            e.code
        }
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            set_error(&format!("internal error (panic: {msg})"), None);
            WJ_ERR_INTERNAL
        }
    }
}

/// The library's version: major << 16 | minor << 8 | patch (compare with `WJ_API_VERSION`
/// to check that the header and the library agree on the major version).
#[no_mangle]
pub extern "C" fn wj_version() -> u32 {
    let v = |s: &str| s.parse::<u32>().unwrap_or(0);
    v(env!("CARGO_PKG_VERSION_MAJOR")) << 16
        | v(env!("CARGO_PKG_VERSION_MINOR")) << 8
        | v(env!("CARGO_PKG_VERSION_PATCH"))
}

/// The text of the calling thread's most recent error (empty if there was none). The
/// pointer stays valid until the next failing call on this thread; the caller does not free
/// it.
#[no_mangle]
pub extern "C" fn wj_last_error() -> *const c_char {
    static EMPTY: &[u8] = b"\0";
    STATE
        .try_with(|s| match s.try_borrow() {
            Ok(s) => s.error.as_ptr(),
            Err(_) => EMPTY.as_ptr() as *const c_char,
        })
        .unwrap_or(EMPTY.as_ptr() as *const c_char)
}

/// Copies the calling thread's most recent kernel fault into `*out`. `WJ_ERR_USAGE` when this
/// thread has seen no fault yet; `WJ_ERR_INVALID_ARGUMENT` when `out` is null.
#[no_mangle]
pub unsafe extern "C" fn wj_last_fault(out: *mut wj_fault) -> i32 {
    guard(|| {
        if out.is_null() {
            return Err(Failure::invalid("wj_last_fault: out is null"));
        }
        let f = STATE
            .try_with(|s| s.try_borrow().ok().and_then(|s| s.fault.clone()))
            .ok()
            .flatten()
            .ok_or(Failure {
                code: WJ_ERR_USAGE,
                msg: "wj_last_fault: no kernel has faulted on this thread".into(),
                fault: None,
            })?;
        let mut c = wj_fault {
            kernel: [0; WJ_FAULT_TEXT],
            workgroup: f.workgroup,
            wave: f.wave,
            lane: f.lane.map_or(-1, |l| l as i32),
            pc: f.pc,
            instruction: [0; WJ_FAULT_TEXT],
            cause: [0; WJ_FAULT_TEXT],
        };
        copy_text(&mut c.kernel, &f.kernel);
        copy_text(&mut c.instruction, &f.instruction);
        copy_text(&mut c.cause, &f.cause);
        // SAFETY: `out` is non-null (checked) and points to a `wj_fault` the caller owns.
        unsafe { out.write(c) };
        Ok(())
    })
}

/// Copies `s` into `dst`, NUL-terminated, cut at a character boundary if too long.
fn copy_text(dst: &mut [c_char; WJ_FAULT_TEXT], s: &str) {
    let mut n = s.len().min(WJ_FAULT_TEXT - 1);
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    for (d, &b) in dst.iter_mut().zip(&s.as_bytes()[..n]) {
        *d = if b == 0 { b' ' as c_char } else { b as c_char };
    }
    dst[n] = 0;
}
