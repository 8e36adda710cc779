//! Raw dispatch (what mock-GPU harnesses call): `run_asm` with remu's conventions and
//! `run_asm2` with the dispatch registers, on the Rust API's `Device::dispatch_raw`.
//!
//! Global addresses are host addresses. The memory a kernel may touch is exactly the
//! buffer-protocol objects passed as `memory` (and the kernarg object): registered with the
//! process device for the call and unregistered after it, so a wild address is a
//! `KernelFault`, never a write into the interpreter's memory. The GIL is held during the
//! dispatch (the registrations of concurrent calls cannot interfere).

use std::sync::OnceLock;

use pyo3::prelude::*;
use wavejit::raw::{parse_arch, RawDispatch};

use crate::errors::{from_api, usage};
use crate::host::HostArg;
use crate::{engine_from, report};

/// The device raw dispatches run on (its translation cache persists across calls).
fn process_device() -> &'static wavejit::Device {
    static DEV: OnceLock<wavejit::Device> = OnceLock::new();
    DEV.get_or_init(wavejit::Device::new)
}

/// Host ranges registered for one dispatch; unregistered when dropped.
struct Registered {
    starts: Vec<u64>,
}

impl Drop for Registered {
    fn drop(&mut self) {
        for &s in &self.starts {
            process_device().unregister_host_memory(s as *mut u8);
        }
    }
}

/// Registers the spans of `objs` (overlapping ones merged). The caller keeps `objs` (their
/// buffer exports) alive until the returned value is dropped.
fn register(objs: &[HostArg]) -> PyResult<Registered> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut sorted: Vec<&HostArg> = objs.iter().filter(|h| h.len() > 0).collect();
    sorted.sort_by_key(|h| h.lo());
    for h in sorted {
        if !h.writable() {
            return Err(usage(
                "memory objects must be writable buffers (a kernel may store to them)",
            ));
        }
        let (lo, hi) = (h.lo(), h.lo() + h.len());
        match spans.last_mut() {
            Some((_, end)) if lo < *end => *end = (*end).max(hi),
            _ => spans.push((lo, hi)),
        }
    }
    let mut reg = Registered { starts: Vec::new() };
    for (lo, hi) in spans {
        // SAFETY: [lo, hi) is the union of writable buffer exports the caller holds until
        // `reg` is dropped (which unregisters the range), so the memory stays valid and
        // writable while registered; no Rust reference into it exists during the dispatch.
        unsafe { process_device().register_host_memory(lo as *mut u8, hi - lo) }
            .map_err(|e| usage(format!("cannot register a memory object: {e}")))?;
        reg.starts.push(lo as u64);
    }
    Ok(reg)
}

/// The code bytes and their address, the kernarg address, and the objects to register.
struct Prepared {
    code: Vec<u8>,
    code_addr: u64,
    kernarg: u64,
    objs: Vec<HostArg>,
}

fn prepare(
    lib: &Bound<'_, PyAny>,
    args_ptr: &Bound<'_, PyAny>,
    memory: &Bound<'_, PyAny>,
) -> PyResult<Prepared> {
    let Some(code) = HostArg::get(lib)? else {
        return Err(usage("lib must be the code bytes (a bytes-like object)"));
    };
    let mut objs = Vec::new();
    let kernarg = if let Ok(addr) = args_ptr.extract::<u64>() {
        addr
    } else if let Some(h) = HostArg::get(args_ptr)? {
        let a = h.first() as u64;
        objs.push(h);
        a
    } else {
        return Err(usage(
            "args_ptr must be an address (int) or the kernarg segment (a writable buffer)",
        ));
    };
    for m in memory
        .try_iter()
        .map_err(|_| usage("memory must be a sequence of buffers"))?
    {
        let m = m?;
        match HostArg::get(&m)? {
            Some(h) => objs.push(h),
            None => return Err(usage("memory must hold buffer-protocol objects")),
        }
    }
    Ok(Prepared {
        code: code.to_vec(),
        code_addr: code.first() as u64,
        kernarg,
        objs,
    })
}

fn run<'py>(py: Python<'py>, p: &Prepared, d: &RawDispatch) -> PyResult<Bound<'py, PyAny>> {
    let reg = register(&p.objs)?;
    let result = process_device().dispatch_raw(d);
    drop(reg);
    let rep = result.map_err(|e| from_api(py, e))?;
    report::to_dict(py, &rep)
}

/// remu's `run_asm`: `lib` holds gfx1100 wave32 code (its first byte is the kernel's first
/// instruction, at the object's address); the kernarg address (`args_ptr`: an int, or the
/// kernarg buffer itself) goes in s[0:1]; workgroup ids in s15 (1-D grid), s14-s15 (2-D),
/// s13-s15 (3-D); v0 = z<<20 | y<<10 | x. Returns the report dict; raises `KernelFault`
/// (undefined instruction, wild address) or `UsageError`.
#[pyfunction]
#[pyo3(signature = (lib, gx, gy, gz, lx, ly, lz, args_ptr, *, memory=None, engine="jit", threads=0))]
#[allow(clippy::too_many_arguments)]
pub fn run_asm<'py>(
    py: Python<'py>,
    lib: &Bound<'py, PyAny>,
    gx: u32,
    gy: u32,
    gz: u32,
    lx: u32,
    ly: u32,
    lz: u32,
    args_ptr: &Bound<'py, PyAny>,
    memory: Option<&Bound<'py, PyAny>>,
    engine: &str,
    threads: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let empty = pyo3::types::PyTuple::empty(py);
    let p = prepare(lib, args_ptr, memory.unwrap_or(empty.as_any()))?;
    let one = |v: u32| v.max(1);
    let mut d = RawDispatch::remu(
        &p.code,
        p.code_addr,
        [gx, gy, gz].map(one),
        [lx, ly, lz].map(one),
        p.kernarg,
    );
    d.engine = engine_from(engine)?;
    d.threads = threads;
    run(py, &p, &d)
}

/// `run_asm` plus what harnesses forward from the dispatch registers: COMPUTE_PGM_RSRC2,
/// scratch bytes per lane, the architecture ("gfx1100", "gfx1200", "gfx1201", "gfx942",
/// "gfx950", "rdna3", "rdna4", "cdna3", "cdna4") and the COMPUTE_USER_DATA values (s[0..n);
/// without them s[0:1] hold the kernarg address).
#[pyfunction]
#[pyo3(signature = (lib, gx, gy, gz, lx, ly, lz, args_ptr, rsrc2, scratch_size, arch, user_data=None, *, memory=None, rsrc1=0, rsrc3=0, engine="jit", threads=0))]
#[allow(clippy::too_many_arguments)]
pub fn run_asm2<'py>(
    py: Python<'py>,
    lib: &Bound<'py, PyAny>,
    gx: u32,
    gy: u32,
    gz: u32,
    lx: u32,
    ly: u32,
    lz: u32,
    args_ptr: &Bound<'py, PyAny>,
    rsrc2: u32,
    scratch_size: u32,
    arch: &str,
    user_data: Option<Vec<u32>>,
    memory: Option<&Bound<'py, PyAny>>,
    rsrc1: u32,
    rsrc3: u32,
    engine: &str,
    threads: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let empty = pyo3::types::PyTuple::empty(py);
    let p = prepare(lib, args_ptr, memory.unwrap_or(empty.as_any()))?;
    let gpu = parse_arch(arch).map_err(|e| usage(e.to_string()))?;
    let one = |v: u32| v.max(1);
    let mut d = RawDispatch::new(
        &p.code,
        p.code_addr,
        gpu,
        [gx, gy, gz].map(one),
        [lx, ly, lz].map(one),
    );
    if rsrc1 != 0 {
        d.rsrc1 = rsrc1;
    }
    d.rsrc2 = rsrc2;
    d.rsrc3 = rsrc3;
    d.scratch_per_lane = scratch_size;
    d.user_sgprs = match user_data {
        Some(u) if u.len() > 32 => {
            return Err(usage(format!(
                "{} user data values; the hardware has at most 32 user SGPRs",
                u.len()
            )))
        }
        Some(u) => u,
        None => vec![p.kernarg as u32, (p.kernarg >> 32) as u32],
    };
    d.engine = engine_from(engine)?;
    d.threads = threads;
    run(py, &p, &d)
}
