//! The object API: devices, code objects, kernels, device buffers, launches and reports.

use std::ffi::{c_char, c_void, CStr, CString};

use wavejit_api::{Arg, Buffer, Device, Engine, Kernel, Launch, Module, Report};

use crate::{guard, Failure};

/// A simulated GPU: checked device memory and the modules loaded into it.
pub struct wj_device {
    pub(crate) dev: Device,
}

/// A loaded code object.
pub struct wj_module {
    module: Module,
    names: Vec<CString>,
}

/// A kernel of a module (keeps its module alive).
pub struct wj_kernel {
    kernel: Kernel,
}

/// A device buffer: device address (a host address) and size.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wj_buffer {
    /// Device address.
    pub addr: u64,
    /// Size in bytes.
    pub size: u64,
}

/// Engine: Cranelift-compiled host code for hot blocks (the default).
pub const WJ_ENGINE_JIT: u32 = 0;
/// Engine: the IR interpreter for every block.
pub const WJ_ENGINE_INTERP: u32 = 1;

pub(crate) fn engine(e: u32) -> Result<Engine, Failure> {
    match e {
        WJ_ENGINE_JIT => Ok(Engine::Jit),
        WJ_ENGINE_INTERP => Ok(Engine::Interp),
        e => Err(Failure::invalid(format!("unknown engine {e}"))),
    }
}

/// Argument kind: a device pointer (`value.u64`).
pub const WJ_ARG_BUFFER: u32 = 0;
/// Argument kind: `value.i32`.
pub const WJ_ARG_I32: u32 = 1;
/// Argument kind: `value.u32`.
pub const WJ_ARG_U32: u32 = 2;
/// Argument kind: `value.i64`.
pub const WJ_ARG_I64: u32 = 3;
/// Argument kind: `value.u64`.
pub const WJ_ARG_U64: u32 = 4;
/// Argument kind: `value.f32`.
pub const WJ_ARG_F32: u32 = 5;
/// Argument kind: `value.f64`.
pub const WJ_ARG_F64: u32 = 6;

/// The value of a `wj_arg`, read as its kind says.
#[repr(C)]
#[derive(Clone, Copy)]
pub union wj_arg_value {
    /// `WJ_ARG_BUFFER`, `WJ_ARG_U64`.
    pub u64: u64,
    /// `WJ_ARG_I64`.
    pub i64: i64,
    /// `WJ_ARG_U32`.
    pub u32: u32,
    /// `WJ_ARG_I32`.
    pub i32: i32,
    /// `WJ_ARG_F32`.
    pub f32: f32,
    /// `WJ_ARG_F64`.
    pub f64: f64,
}

/// A typed kernel argument.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wj_arg {
    /// `WJ_ARG_*`.
    pub kind: u32,
    /// Reserved, 0.
    pub reserved: u32,
    /// The value.
    pub value: wj_arg_value,
}

/// A launch of a kernel. Arguments are either typed (`args`, `arg_count`) or the raw bytes of
/// the explicit part of the kernarg segment (`kernarg`, `kernarg_size`; laid out as the
/// kernel's metadata says; wavejit adds the hidden arguments). Exactly one of `args` and
/// `kernarg` may be non-null (both null: no arguments).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wj_launch_desc {
    /// Workgroups per dimension (HIP gridDim).
    pub grid: [u32; 3],
    /// Work-items per workgroup (HIP blockDim).
    pub block: [u32; 3],
    /// Dynamic LDS bytes added to the kernel's static LDS.
    pub dynamic_lds: u32,
    /// `WJ_ENGINE_JIT` (0) or `WJ_ENGINE_INTERP`.
    pub engine: u32,
    /// Host threads (0 = all available).
    pub threads: u32,
    /// Number of `args`.
    pub arg_count: u32,
    /// Typed arguments in order, or null.
    pub args: *const wj_arg,
    /// Raw kernarg bytes, or null.
    pub kernarg: *const c_void,
    /// Number of `kernarg` bytes.
    pub kernarg_size: u64,
}

/// Deterministic counters of a launch (wave instructions by class) plus translation work
/// and wall time: what `wavejit run --stats` prints.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct wj_report {
    /// Workgroups executed.
    pub workgroups: u64,
    /// Waves executed.
    pub waves: u64,
    /// Wave instructions: all classes together.
    pub wave_insts: u64,
    /// Scalar ALU instructions.
    pub salu: u64,
    /// Vector ALU instructions (matrix excluded).
    pub valu: u64,
    /// Scalar memory instructions.
    pub smem: u64,
    /// Vector memory instructions.
    pub vmem: u64,
    /// LDS instructions.
    pub lds: u64,
    /// Branches, barriers, waits and other program control.
    pub control: u64,
    /// Matrix (MFMA/WMMA) instructions.
    pub matrix: u64,
    /// Vector instructions executed.
    pub vector_insts: u64,
    /// Sum of active lanes over the vector instructions.
    pub active_lanes: u64,
    /// Blocks lifted to IR during the launch.
    pub blocks_lifted: u64,
    /// Blocks compiled to host code during the launch.
    pub blocks_compiled: u64,
    /// Block-cache hits.
    pub cache_hits: u64,
    /// Nanoseconds spent translating.
    pub translate_ns: u64,
    /// Wall time of the launch in nanoseconds.
    pub elapsed_ns: u64,
}

impl From<&Report> for wj_report {
    fn from(r: &Report) -> wj_report {
        let c = &r.counters;
        wj_report {
            workgroups: r.workgroups,
            waves: r.waves,
            wave_insts: c.wave_insts(),
            salu: c.salu,
            valu: c.valu,
            smem: c.smem,
            vmem: c.vmem,
            lds: c.lds,
            control: c.control,
            matrix: c.matrix,
            vector_insts: c.vector_insts,
            active_lanes: c.active_lanes,
            blocks_lifted: r.translation.blocks_lifted,
            blocks_compiled: r.translation.blocks_compiled,
            cache_hits: r.translation.cache_hits,
            translate_ns: r.translation.translate_ns,
            elapsed_ns: r.elapsed_ns,
        }
    }
}

/// `*p`, or an invalid-argument failure naming `what` when `p` is null.
///
/// # Safety
/// `p` is null or points to a live `T`.
pub(crate) unsafe fn deref<'a, T>(p: *const T, what: &str) -> Result<&'a T, Failure> {
    // SAFETY: null checked by `as_ref`; otherwise the caller's live object.
    unsafe { p.as_ref() }.ok_or_else(|| Failure::invalid(format!("{what} is null")))
}

/// Writes `v` to the out-pointer `out` (an invalid-argument failure when it is null).
///
/// # Safety
/// `out` is null or writable.
unsafe fn put<T>(out: *mut T, v: T, what: &str) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::invalid(format!("{what} is null")));
    }
    // SAFETY: non-null, writable per the caller.
    unsafe { out.write(v) };
    Ok(())
}

/// Creates a device with empty memory (host-check `WJ_HOST_CHECK_REGISTERED`). Release it
/// with `wj_device_destroy`.
#[no_mangle]
pub unsafe extern "C" fn wj_device_create(out: *mut *mut wj_device) -> i32 {
    guard(|| {
        let d = Box::into_raw(Box::new(wj_device { dev: Device::new() }));
        // SAFETY: forwarded out-pointer; on failure the box is reclaimed.
        unsafe { put(out, d, "out") }.inspect_err(|_| {
            // SAFETY: `d` came from `Box::into_raw` just above and was not handed out.
            drop(unsafe { Box::from_raw(d) });
        })
    })
}

/// Releases a device handle (null is ignored). Its memory lives on while modules or kernels
/// of the device exist.
#[no_mangle]
pub unsafe extern "C" fn wj_device_destroy(dev: *mut wj_device) {
    if !dev.is_null() {
        // SAFETY: a handle from `wj_device_create`, released once per the API.
        drop(unsafe { Box::from_raw(dev) });
    }
}

/// Sets the per-wave instruction budget of later launches on `dev` (default 2^34).
#[no_mangle]
pub unsafe extern "C" fn wj_device_set_instruction_budget(
    dev: *const wj_device,
    budget: u64,
) -> i32 {
    guard(|| {
        // SAFETY: a live handle or null.
        unsafe { deref(dev, "dev") }?
            .dev
            .set_instruction_budget(budget);
        Ok(())
    })
}

/// Registers the host range `[ptr, ptr + len)` with `dev` (see `wj_register_memory`).
#[no_mangle]
pub unsafe extern "C" fn wj_device_register_memory(
    dev: *const wj_device,
    ptr: *mut c_void,
    len: u64,
) -> i32 {
    guard(|| {
        // SAFETY: a live handle or null.
        let d = unsafe { deref(dev, "dev") }?;
        let len = usize::try_from(len).map_err(|_| Failure::invalid("length too large"))?;
        // SAFETY: the caller guarantees the range stays valid until unregistered.
        unsafe { d.dev.register_host_memory(ptr as *mut u8, len) }?;
        Ok(())
    })
}

/// Unregisters the host range that starts at `ptr` from `dev`.
#[no_mangle]
pub unsafe extern "C" fn wj_device_unregister_memory(
    dev: *const wj_device,
    ptr: *mut c_void,
) -> i32 {
    guard(|| {
        // SAFETY: a live handle or null.
        let d = unsafe { deref(dev, "dev") }?;
        if d.dev.unregister_host_memory(ptr as *mut u8) {
            Ok(())
        } else {
            Err(
                wavejit_api::Error::Usage(format!("no registered host range starts at {ptr:p}"))
                    .into(),
            )
        }
    })
}

/// Allocates `size` zero-filled bytes of device memory (256-byte aligned) into `*out`.
#[no_mangle]
pub unsafe extern "C" fn wj_buffer_alloc(
    dev: *const wj_device,
    size: u64,
    out: *mut wj_buffer,
) -> i32 {
    guard(|| {
        // SAFETY: a live handle or null.
        let d = unsafe { deref(dev, "dev") }?;
        if out.is_null() {
            return Err(Failure::invalid("out is null"));
        }
        let len = usize::try_from(size).map_err(|_| Failure::invalid("size too large"))?;
        let b = d.dev.alloc(len)?;
        // SAFETY: non-null (checked), the caller's struct.
        unsafe { put(out, wj_buffer { addr: b.addr, size }, "out") }
    })
}

/// The sub-range `[offset, offset + len)` of `buf` as a Rust buffer.
fn sub(buf: wj_buffer, offset: u64, len: u64) -> Result<Buffer, Failure> {
    let end = offset
        .checked_add(len)
        .filter(|&e| e <= buf.size)
        .ok_or_else(|| {
            Failure::invalid(format!(
                "range of {len} bytes at offset {offset} is outside the buffer of {} bytes",
                buf.size
            ))
        })?;
    let _ = end;
    Ok(Buffer {
        addr: buf.addr + offset,
        len: len as usize,
    })
}

/// Copies `len` bytes from host `src` into `buf` at `offset`.
#[no_mangle]
pub unsafe extern "C" fn wj_buffer_write(
    dev: *const wj_device,
    buf: wj_buffer,
    offset: u64,
    src: *const c_void,
    len: u64,
) -> i32 {
    guard(|| {
        // SAFETY: a live handle or null.
        let d = unsafe { deref(dev, "dev") }?;
        let b = sub(buf, offset, len)?;
        if len == 0 {
            return Ok(());
        }
        if src.is_null() {
            return Err(Failure::invalid("src is null"));
        }
        // SAFETY: non-null; the caller passes `len` readable bytes.
        let data = unsafe { std::slice::from_raw_parts(src as *const u8, b.len) };
        d.dev.write(b, data)?;
        Ok(())
    })
}

/// Copies `len` bytes of `buf` from `offset` into host `dst`.
#[no_mangle]
pub unsafe extern "C" fn wj_buffer_read(
    dev: *const wj_device,
    buf: wj_buffer,
    offset: u64,
    dst: *mut c_void,
    len: u64,
) -> i32 {
    guard(|| {
        // SAFETY: a live handle or null.
        let d = unsafe { deref(dev, "dev") }?;
        let b = sub(buf, offset, len)?;
        if len == 0 {
            return Ok(());
        }
        if dst.is_null() {
            return Err(Failure::invalid("dst is null"));
        }
        let data = d.dev.read(b)?;
        // SAFETY: non-null; the caller passes `len` writable bytes; `data` is a distinct
        // host vector of exactly that length.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst as *mut u8, b.len) };
        Ok(())
    })
}

/// Frees `buf`; `WJ_ERR_USAGE` when it is not a live buffer of `dev`.
#[no_mangle]
pub unsafe extern "C" fn wj_buffer_free(dev: *const wj_device, buf: wj_buffer) -> i32 {
    guard(|| {
        // SAFETY: a live handle or null.
        let d = unsafe { deref(dev, "dev") }?;
        d.dev.free(Buffer {
            addr: buf.addr,
            len: buf.size as usize,
        })?;
        Ok(())
    })
}

/// Loads a code object (AMDGPU ELF or clang offload bundle; `size` bytes at `bytes`, copied)
/// into `dev`. Release it with `wj_module_destroy`.
#[no_mangle]
pub unsafe extern "C" fn wj_module_load(
    dev: *const wj_device,
    bytes: *const c_void,
    size: u64,
    out: *mut *mut wj_module,
) -> i32 {
    guard(|| {
        // SAFETY: a live handle or null.
        let d = unsafe { deref(dev, "dev") }?;
        if bytes.is_null() || out.is_null() {
            return Err(Failure::invalid("bytes or out is null"));
        }
        let len = usize::try_from(size).map_err(|_| Failure::invalid("size too large"))?;
        // SAFETY: non-null; the caller passes `size` readable bytes.
        let data = unsafe { std::slice::from_raw_parts(bytes as *const u8, len) };
        let module = d.dev.load_module(data)?;
        let names = module
            .kernel_names()
            .into_iter()
            .map(|n| CString::new(n).unwrap_or_default())
            .collect();
        let m = Box::into_raw(Box::new(wj_module { module, names }));
        // SAFETY: non-null (checked), the caller's out-pointer.
        unsafe { out.write(m) };
        Ok(())
    })
}

/// Releases a module handle (null is ignored); its kernels stay usable.
#[no_mangle]
pub unsafe extern "C" fn wj_module_destroy(m: *mut wj_module) {
    if !m.is_null() {
        // SAFETY: a handle from `wj_module_load`, released once per the API.
        drop(unsafe { Box::from_raw(m) });
    }
}

/// Number of kernels in `m` into `*count`.
#[no_mangle]
pub unsafe extern "C" fn wj_module_kernel_count(m: *const wj_module, count: *mut u32) -> i32 {
    guard(|| {
        // SAFETY: a live handle or null.
        let m = unsafe { deref(m, "module") }?;
        // SAFETY: forwarded out-pointer.
        unsafe { put(count, m.names.len() as u32, "count") }
    })
}

/// The name of kernel `index` of `m` into `*name` (owned by the module: valid until
/// `wj_module_destroy`).
#[no_mangle]
pub unsafe extern "C" fn wj_module_kernel_name(
    m: *const wj_module,
    index: u32,
    name: *mut *const c_char,
) -> i32 {
    guard(|| {
        // SAFETY: a live handle or null.
        let m = unsafe { deref(m, "module") }?;
        let n = m.names.get(index as usize).ok_or_else(|| {
            Failure::invalid(format!(
                "kernel index {index} out of range (the module has {})",
                m.names.len()
            ))
        })?;
        // SAFETY: forwarded out-pointer.
        unsafe { put(name, n.as_ptr(), "name") }
    })
}

/// The kernel called `name` in `m` into `*out` (a usage error lists the kernel names).
/// Release it with `wj_kernel_destroy`.
#[no_mangle]
pub unsafe extern "C" fn wj_kernel_create(
    m: *const wj_module,
    name: *const c_char,
    out: *mut *mut wj_kernel,
) -> i32 {
    guard(|| {
        // SAFETY: a live handle or null.
        let m = unsafe { deref(m, "module") }?;
        if name.is_null() || out.is_null() {
            return Err(Failure::invalid("name or out is null"));
        }
        // SAFETY: non-null NUL-terminated string per the API.
        let name = unsafe { CStr::from_ptr(name) }
            .to_str()
            .map_err(|_| Failure::invalid("the kernel name is not UTF-8"))?;
        let kernel = m.module.kernel(name)?;
        let k = Box::into_raw(Box::new(wj_kernel { kernel }));
        // SAFETY: non-null (checked), the caller's out-pointer.
        unsafe { out.write(k) };
        Ok(())
    })
}

/// Releases a kernel handle (null is ignored).
#[no_mangle]
pub unsafe extern "C" fn wj_kernel_destroy(k: *mut wj_kernel) {
    if !k.is_null() {
        // SAFETY: a handle from `wj_kernel_create`, released once per the API.
        drop(unsafe { Box::from_raw(k) });
    }
}

/// Launches `k` on `dev` and waits for it. On success `*report` (if not null) receives the
/// report; a kernel fault returns `WJ_ERR_FAULT` (details in `wj_last_fault`).
#[no_mangle]
pub unsafe extern "C" fn wj_launch(
    dev: *const wj_device,
    k: *const wj_kernel,
    desc: *const wj_launch_desc,
    report: *mut wj_report,
) -> i32 {
    guard(|| {
        // SAFETY: live handles or null.
        let (d, k, desc) = unsafe {
            (
                deref(dev, "dev")?,
                deref(k, "kernel")?,
                deref(desc, "desc")?,
            )
        };
        let args: Vec<Arg> = match (desc.args.is_null(), desc.kernarg.is_null()) {
            (false, false) => {
                return Err(Failure::invalid("give either args or kernarg, not both"))
            }
            (false, true) => {
                // SAFETY: non-null; the caller passes `arg_count` arguments.
                let a = unsafe { std::slice::from_raw_parts(desc.args, desc.arg_count as usize) };
                a.iter().map(typed).collect::<Result<_, _>>()?
            }
            (true, false) => {
                let len = usize::try_from(desc.kernarg_size)
                    .map_err(|_| Failure::invalid("kernarg_size too large"))?;
                // SAFETY: non-null; the caller passes `kernarg_size` readable bytes.
                let b = unsafe { std::slice::from_raw_parts(desc.kernarg as *const u8, len) };
                k.kernel.args_from_kernarg(b)?
            }
            (true, true) => {
                if desc.arg_count != 0 {
                    return Err(Failure::invalid("args is null but arg_count is not 0"));
                }
                Vec::new()
            }
        };
        let mut l = Launch::new(desc.grid, desc.block)
            .dynamic_lds(desc.dynamic_lds)
            .engine(engine(desc.engine)?)
            .threads(desc.threads as usize);
        l.args = args;
        let r = d.dev.launch(&k.kernel, &l)?;
        if !report.is_null() {
            // SAFETY: non-null, the caller's struct.
            unsafe { report.write(wj_report::from(&r)) };
        }
        Ok(())
    })
}

fn typed(a: &wj_arg) -> Result<Arg, Failure> {
    // SAFETY (all reads): every field of the union is an integer or float of at most 8
    // bytes, valid for any bit pattern.
    let v = a.value;
    Ok(match a.kind {
        WJ_ARG_BUFFER => Arg::Pointer(unsafe { v.u64 }),
        WJ_ARG_I32 => Arg::I32(unsafe { v.i32 }),
        WJ_ARG_U32 => Arg::U32(unsafe { v.u32 }),
        WJ_ARG_I64 => Arg::I64(unsafe { v.i64 }),
        WJ_ARG_U64 => Arg::U64(unsafe { v.u64 }),
        WJ_ARG_F32 => Arg::F32(unsafe { v.f32 }),
        WJ_ARG_F64 => Arg::F64(unsafe { v.f64 }),
        k => return Err(Failure::invalid(format!("unknown argument kind {k}"))),
    })
}
