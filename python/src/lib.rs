//! `wavejit._wavejit`: the extension module behind the `wavejit` Python package.
//!
//! It wraps the root crate's API: `Device` (checked device memory), `Module` (a loaded code
//! object), `Kernel` (launches on Python buffers, returning the report as a dict), `Buffer`
//! (device memory that stays on the device between launches), typed scalars and the
//! exceptions. The Python half (`wavejit/__init__.py`) re-exports it and adds the Triton driver.

mod args;
mod errors;
mod host;
mod raw;
mod report;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use wavejit::{Arg, Engine, Launch};
use wavejit_runtime::code_object::ArgKind;
use wavejit_runtime::dispatch::kernarg::describe_args;

use args::{prepare, type_name, Prepared};
use errors::{from_api, usage};
use host::{HostArg, Staging};

/// A simulated GPU: checked device memory and the code objects loaded into it.
///
/// Launches release the GIL, so several Python threads may run kernels at once.
#[pyclass(frozen, module = "wavejit")]
struct Device {
    dev: wavejit::Device,
}

#[pymethods]
impl Device {
    #[new]
    fn new() -> Device {
        Device {
            dev: wavejit::Device::new(),
        }
    }

    /// Loads a code object (an AMDGPU ELF, or a clang offload bundle with one device entry)
    /// from a bytes-like object. Raises `LoadError` when it cannot be loaded.
    fn load_module(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Module> {
        let bytes = match HostArg::get(data)? {
            Some(h) => h.to_vec(),
            None => {
                return Err(usage(format!(
                    "load_module takes the code object's bytes (a bytes-like object), not {}",
                    type_name(data)
                )))
            }
        };
        let module = self.dev.load_module(&bytes).map_err(|e| from_api(py, e))?;
        Ok(Module {
            module,
            dev: self.dev.clone(),
        })
    }

    /// Loads a code object from a file.
    fn load_file(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<Module> {
        let bytes = std::fs::read(&path).map_err(|e| {
            errors::LoadError::new_err(format!("cannot read {}: {e}", path.display()))
        })?;
        let module = self.dev.load_module(&bytes).map_err(|e| from_api(py, e))?;
        Ok(Module {
            module,
            dev: self.dev.clone(),
        })
    }

    /// Sets the per-wave instruction budget of later launches (a wave exceeding it faults).
    fn set_instruction_budget(&self, budget: u64) {
        self.dev.set_instruction_budget(budget);
    }

    /// Allocates `nbytes` zero-filled bytes of device memory.
    fn alloc(&self, nbytes: usize) -> PyResult<DeviceBuffer> {
        DeviceBuffer::new(&self.dev, nbytes)
    }

    /// A device buffer holding a copy of the bytes of `data` (any buffer-protocol object).
    fn to_device(&self, data: &Bound<'_, PyAny>) -> PyResult<DeviceBuffer> {
        let Some(h) = HostArg::get(data)? else {
            return Err(usage(format!(
                "to_device takes a buffer-protocol object (array, bytes, ...), not {}",
                type_name(data)
            )));
        };
        let b = DeviceBuffer::new(&self.dev, h.len())?;
        b.write_bytes(&h.to_vec())?;
        Ok(b)
    }
}

/// A loaded code object.
#[pyclass(frozen, module = "wavejit")]
struct Module {
    module: wavejit::Module,
    dev: wavejit::Device,
}

#[pymethods]
impl Module {
    /// The kernel called `name` (`UsageError` listing the names if there is none).
    fn kernel(&self, py: Python<'_>, name: &str) -> PyResult<Kernel> {
        let kernel = self.module.kernel(name).map_err(|e| from_api(py, e))?;
        // The code from the entry to the end of its executable segment (`image[v]` is the
        // byte at virtual address `v`).
        let co = self.module.code_object();
        let entry = kernel.info().entry;
        let end = co
            .exec_ranges
            .iter()
            .find(|r| r.contains(&entry))
            .map_or(entry, |r| r.end);
        let code = co
            .image
            .get(entry as usize..end as usize)
            .unwrap_or_default()
            .to_vec();
        Ok(Kernel {
            kernel,
            dev: self.dev.clone(),
            code,
        })
    }

    /// The kernel names, in metadata order.
    #[getter]
    fn kernel_names(&self) -> Vec<String> {
        self.module.kernel_names()
    }

    /// The target GPU (e.g. `"gfx942"`).
    #[getter]
    fn gpu(&self) -> String {
        self.module.code_object().gpu.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "<wavejit.Module {} kernels={:?}>",
            self.gpu(),
            self.kernel_names()
        )
    }
}

/// A kernel of a loaded module.
#[pyclass(frozen, module = "wavejit")]
struct Kernel {
    kernel: wavejit::Kernel,
    dev: wavejit::Device,
    /// The machine code from the entry on (for raw dispatch).
    code: Vec<u8>,
}

#[pymethods]
impl Kernel {
    /// The kernel's name.
    #[getter]
    fn name(&self) -> String {
        self.kernel.name().to_string()
    }

    /// The wave size (32 or 64).
    #[getter]
    fn wave_size(&self) -> u32 {
        self.kernel.info().wave_size
    }

    /// Largest workgroup size the kernel supports.
    #[getter]
    fn max_block_size(&self) -> u32 {
        self.kernel.info().max_flat_workgroup_size
    }

    /// Static LDS bytes.
    #[getter]
    fn static_lds(&self) -> u32 {
        self.kernel.info().group_segment_fixed_size
    }

    /// The machine code from the kernel's first instruction to the end of its executable
    /// segment (what a raw dispatch runs: `wavejit.run_asm2(kernel.code, ...)`).
    #[getter]
    fn code<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyBytes> {
        pyo3::types::PyBytes::new(py, &self.code)
    }

    /// The descriptor's COMPUTE_PGM_RSRC1, RSRC2 and RSRC3.
    #[getter]
    fn rsrc(&self) -> (u32, u32, u32) {
        let d = &self.kernel.info().descriptor;
        (d.rsrc1, d.rsrc2, d.rsrc3)
    }

    /// The kernarg segment (bytes) the kernel reads for `args` on `grid` x `block`: explicit
    /// arguments as the metadata lays them out (pointer arguments as addresses: an int, a
    /// buffer's first-element address, or None for 0) and the hidden arguments. For raw
    /// dispatches that pass host memory.
    #[pyo3(signature = (args, *, grid, block, dynamic_lds=0))]
    fn kernarg<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyAny>,
        grid: &Bound<'py, PyAny>,
        block: &Bound<'py, PyAny>,
        dynamic_lds: u32,
    ) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        use wavejit_runtime::dispatch::kernarg::{build_kernargs, Geometry};
        let info = self.kernel.info();
        let args: Vec<Bound<'py, PyAny>> = args
            .try_iter()
            .map_err(|_| usage("kernarg arguments must be a sequence"))?
            .collect::<PyResult<_>>()?;
        let explicit: Vec<_> = info.explicit_args().collect();
        if args.len() != explicit.len() {
            return Err(usage(format!(
                "kernel {}: expects {} arguments ({}), got {}",
                info.name,
                explicit.len(),
                describe_args(info),
                args.len()
            )));
        }
        let mut values = Vec::with_capacity(args.len());
        for (i, (v, a)) in args.iter().zip(&explicit).enumerate() {
            let value = if matches!(a.kind, ArgKind::GlobalBuffer) && v.extract::<u64>().is_ok() {
                Arg::Pointer(v.extract::<u64>()?)
            } else {
                match prepare(i, v, a)? {
                    Prepared::Host(h) => Arg::Pointer(h.first() as u64),
                    Prepared::Ready(arg) => arg,
                }
            };
            values.push(value);
        }
        let geo = Geometry {
            grid: dims("grid", grid)?,
            block: dims("block", block)?,
            dynamic_lds,
        };
        let seg = build_kernargs(info, &values, &geo)
            .map_err(|m| usage(format!("kernel {}: {m}", info.name)))?;
        Ok(pyo3::types::PyBytes::new(py, &seg))
    }

    /// The explicit arguments: a list of `{"name", "kind", "size", "offset"}` dicts (kind
    /// `"buffer"`, `"value"` or the metadata's kind name).
    #[getter]
    fn args<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for a in self.kernel.info().explicit_args() {
            let d = PyDict::new(py);
            d.set_item("name", a.name.clone())?;
            d.set_item(
                "kind",
                match &a.kind {
                    ArgKind::GlobalBuffer => "buffer".to_string(),
                    ArgKind::ByValue => "value".to_string(),
                    ArgKind::DynamicSharedPointer => "dynamic_shared_pointer".to_string(),
                    ArgKind::Other(s) => s.clone(),
                    ArgKind::Hidden(_) => "hidden".to_string(),
                },
            )?;
            d.set_item("size", a.size)?;
            d.set_item("offset", a.offset)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// Runs the kernel to completion and returns the report (the `--stats` JSON as a dict).
    ///
    /// `args` are the explicit arguments in order (see the package docs for what each kind
    /// takes); `grid` counts workgroups per dimension (HIP's gridDim) and `block` is the
    /// workgroup size, each an int or a tuple of 1 to 3 ints. Buffers are copied back only
    /// when the launch succeeds. Raises `UsageError` for bad arguments or geometry and
    /// `KernelFault` when the kernel faults.
    #[pyo3(signature = (args, *, grid, block, dynamic_lds=0, engine="jit", threads=0))]
    #[allow(clippy::too_many_arguments)]
    fn launch<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyAny>,
        grid: &Bound<'py, PyAny>,
        block: &Bound<'py, PyAny>,
        dynamic_lds: u32,
        engine: &str,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let args: Vec<Bound<'py, PyAny>> = args
            .try_iter()
            .map_err(|_| usage("launch arguments must be a sequence"))?
            .collect::<PyResult<_>>()?;
        self.run(py, &args, grid, block, dynamic_lds, engine, threads)
    }

    /// `kernel(*args, grid=..., block=..., ...)`: the same as `launch(args, ...)`.
    #[pyo3(signature = (*args, grid, block, dynamic_lds=0, engine="jit", threads=0))]
    #[allow(clippy::too_many_arguments)]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        grid: &Bound<'py, PyAny>,
        block: &Bound<'py, PyAny>,
        dynamic_lds: u32,
        engine: &str,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let args: Vec<Bound<'py, PyAny>> = args.iter().collect();
        self.run(py, &args, grid, block, dynamic_lds, engine, threads)
    }

    fn __repr__(&self) -> String {
        format!(
            "<wavejit.Kernel {} ({})>",
            self.name(),
            describe_args(self.kernel.info())
        )
    }
}

impl Kernel {
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        args: &[Bound<'py, PyAny>],
        grid: &Bound<'py, PyAny>,
        block: &Bound<'py, PyAny>,
        dynamic_lds: u32,
        engine: &str,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let info = self.kernel.info();
        let explicit: Vec<_> = info.explicit_args().collect();
        if args.len() != explicit.len() {
            return Err(usage(format!(
                "kernel {}: expects {} arguments ({}), got {}",
                info.name,
                explicit.len(),
                describe_args(info),
                args.len()
            )));
        }
        let engine = engine_from(engine)?;
        let mut launch = Launch::new(dims("grid", grid)?, dims("block", block)?)
            .engine(engine)
            .threads(threads)
            .dynamic_lds(dynamic_lds);
        // Typed arguments, with the host buffers staged in device memory.
        let mut host = Vec::new();
        let mut slots = Vec::with_capacity(args.len());
        for (i, (v, a)) in args.iter().zip(&explicit).enumerate() {
            match prepare(i, v, a)? {
                Prepared::Ready(arg) => slots.push(Ok(arg)),
                Prepared::Host(h) => {
                    slots.push(Err(host.len()));
                    host.push(h);
                }
            }
        }
        let (staging, addrs) = Staging::new(&self.dev, &host)?;
        for s in slots {
            launch = launch.arg(match s {
                Ok(arg) => arg,
                Err(h) => Arg::Buffer(wavejit::Buffer {
                    addr: addrs[h],
                    len: host[h].len(),
                }),
            });
        }
        let (dev, kernel) = (&self.dev, &self.kernel);
        let result = py.detach(|| dev.launch(kernel, &launch));
        let rep = result.map_err(|e| from_api(py, e))?;
        staging.copy_back(&host)?;
        report::to_dict(py, &rep)
    }
}

/// The engine named `name` (`"jit"` or `"interp"`).
fn engine_from(name: &str) -> PyResult<Engine> {
    match name {
        "jit" => Ok(Engine::Jit),
        "interp" => Ok(Engine::Interp),
        other => Err(usage(format!(
            "engine must be \"jit\" or \"interp\", not {other:?}"
        ))),
    }
}

/// Launch dimensions from an int or a sequence of 1 to 3 ints (missing ones are 1).
fn dims(what: &str, v: &Bound<'_, PyAny>) -> PyResult<[u32; 3]> {
    let bad = || {
        usage(format!(
            "{what} must be an int or a tuple of 1 to 3 ints in 0..2^32, not {}",
            v.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    };
    let items: Vec<Bound<'_, PyAny>> = if v.is_instance_of::<pyo3::types::PyInt>() {
        vec![v.clone()]
    } else {
        v.try_iter()
            .map_err(|_| bad())?
            .collect::<PyResult<_>>()
            .map_err(|_| bad())?
    };
    if items.is_empty() || items.len() > 3 {
        return Err(bad());
    }
    let mut out = [1u32; 3];
    for (o, item) in out.iter_mut().zip(&items) {
        *o = item.extract::<u32>().map_err(|_| bad())?;
    }
    Ok(out)
}

/// Device memory that stays on the device between launches (pass it as a pointer
/// argument to kernels of the same device: on another device its address is outside that
/// device's memory, so accesses fault). Freed when the object is garbage-collected.
#[pyclass(frozen, name = "Buffer", module = "wavejit")]
pub struct DeviceBuffer {
    dev: wavejit::Device,
    buf: wavejit::Buffer,
}

impl DeviceBuffer {
    fn new(dev: &wavejit::Device, nbytes: usize) -> PyResult<DeviceBuffer> {
        let buf = dev
            .alloc(nbytes)
            .map_err(|e| usage(format!("cannot allocate {nbytes} bytes: {e}")))?;
        Ok(DeviceBuffer {
            dev: dev.clone(),
            buf,
        })
    }

    /// The buffer as a kernel argument.
    pub fn buffer(&self) -> wavejit::Buffer {
        self.buf
    }

    fn write_bytes(&self, data: &[u8]) -> PyResult<()> {
        self.dev
            .write(self.buf, data)
            .map_err(|e| usage(e.to_string()))
    }
}

#[pymethods]
impl DeviceBuffer {
    /// Size in bytes.
    #[getter]
    fn nbytes(&self) -> usize {
        self.buf.len
    }

    /// The device address (a host address in wavejit).
    #[getter]
    fn address(&self) -> u64 {
        self.buf.addr
    }

    /// The contents as `bytes`.
    fn read<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        let bytes = self.dev.read(self.buf).map_err(|e| usage(e.to_string()))?;
        Ok(pyo3::types::PyBytes::new(py, &bytes))
    }

    /// Copies `data` (a buffer-protocol object, at most `nbytes` bytes) to the buffer's start.
    fn write(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let Some(h) = HostArg::get(data)? else {
            return Err(usage(format!(
                "write takes a buffer-protocol object, not {}",
                type_name(data)
            )));
        };
        self.write_bytes(&h.to_vec())
    }

    /// Copies the buffer's first bytes into `out` (a writable buffer-protocol object of at
    /// most `nbytes` bytes), e.g. a numpy array.
    fn copy_to(&self, out: &Bound<'_, PyAny>) -> PyResult<()> {
        let Some(h) = HostArg::get(out)? else {
            return Err(usage(format!(
                "copy_to takes a writable buffer-protocol object, not {}",
                type_name(out)
            )));
        };
        if h.len() > self.buf.len {
            return Err(usage(format!(
                "cannot copy a buffer of {} bytes into {} bytes",
                self.buf.len,
                h.len()
            )));
        }
        let part = wavejit::Buffer {
            addr: self.buf.addr,
            len: h.len(),
        };
        h.write(&self.dev.read(part).map_err(|e| usage(e.to_string()))?)
    }

    fn __repr__(&self) -> String {
        format!(
            "<wavejit.Buffer {} bytes at {:#x}>",
            self.buf.len, self.buf.addr
        )
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // The buffer is live until here (nothing else frees it).
        let _ = self.dev.free(self.buf);
    }
}

/// The extension module.
#[pymodule]
fn _wavejit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Device>()?;
    m.add_class::<Module>()?;
    m.add_class::<Kernel>()?;
    m.add_class::<DeviceBuffer>()?;
    m.add_class::<args::Scalar>()?;
    m.add_function(wrap_pyfunction!(args::i32, m)?)?;
    m.add_function(wrap_pyfunction!(args::u32, m)?)?;
    m.add_function(wrap_pyfunction!(args::i64, m)?)?;
    m.add_function(wrap_pyfunction!(args::u64, m)?)?;
    m.add_function(wrap_pyfunction!(args::f32, m)?)?;
    m.add_function(wrap_pyfunction!(args::f64, m)?)?;
    m.add_function(wrap_pyfunction!(raw::run_asm, m)?)?;
    m.add_function(wrap_pyfunction!(raw::run_asm2, m)?)?;
    m.add("WavejitError", py.get_type::<errors::WavejitError>())?;
    m.add("LoadError", py.get_type::<errors::LoadError>())?;
    m.add("UsageError", py.get_type::<errors::UsageError>())?;
    m.add("KernelFault", py.get_type::<errors::KernelFault>())?;
    Ok(())
}
