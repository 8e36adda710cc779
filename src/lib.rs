//! wavejit: run AMD GPU machine code on the host CPU.
//!
//! ```no_run
//! use wavejit::{Arg, Device, Engine, Launch};
//! let dev = Device::new();
//! let module = dev.load_module(&std::fs::read("k.hsaco").unwrap()).unwrap();
//! let kernel = module.kernel("vadd").unwrap();
//! let a = dev.alloc_from(&[1u8; 1024]).unwrap();
//! let b = dev.alloc_from(&[2u8; 1024]).unwrap();
//! let c = dev.alloc(1024).unwrap();
//! let launch = Launch::new([1, 1, 1], [256, 1, 1])
//!     .arg(Arg::Buffer(a)).arg(Arg::Buffer(b)).arg(Arg::Buffer(c)).arg(Arg::U32(256));
//! let report = dev.launch(&kernel, &launch).unwrap();
//! let out = dev.read(c).unwrap();
//! # let _ = (report, out, Engine::Jit);
//! ```
//!
//! Device memory is checked: every kernel access is validated against the device's
//! allocations, and a fault ends the launch with [`Error::Fault`], never a host crash.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use thiserror::Error;
use wavejit_runtime::code_object::{self, CodeObject, KernelInfo};
use wavejit_runtime::dispatch::{self, Geometry, LaunchError, LaunchParams};
use wavejit_runtime::memory::{CodeImage, DeviceMemory};
use wavejit_translator::exec::Translator;
use wavejit_translator::isa::Target;

pub use wavejit_runtime::code_object::LoadError;
/// A kernel argument, in kernel-argument order: a [`Buffer`], an address
/// ([`Arg::Pointer`]), a by-value scalar, or (last) the buffer of the kernel's hidden
/// printf-buffer argument ([`Arg::PrintfBuffer`]).
pub use wavejit_runtime::dispatch::ArgValue as Arg;
pub use wavejit_runtime::fault::FaultReport;
pub use wavejit_runtime::memory::{Buffer, HostMemError};
pub use wavejit_runtime::profile::{LaunchControl, Profile};
pub use wavejit_runtime::stats::{Counters, TranslationStats};
/// Which engine executes translated blocks: `Jit` (Cranelift-compiled host code, the
/// default) or `Interp` (the IR interpreter).
pub use wavejit_translator::exec::EngineKind as Engine;

/// Errors of the public API. Each displays as one clear paragraph; the variants carry the
/// structured cause.
#[derive(Debug, Error)]
pub enum Error {
    /// The code object could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// Wrong kernel name, arguments or buffer use.
    #[error("{0}")]
    Usage(String),
    /// Device memory could not be allocated, or a host copy named a range outside the
    /// device's live buffers.
    #[error(transparent)]
    Memory(#[from] HostMemError),
    /// The kernel faulted: kernel, workgroup, wave, lane, pc, instruction and cause.
    #[error("{0}")]
    Fault(Box<FaultReport>),
    /// A result checked against its host reference differs: for callers that check what
    /// their kernels compute (the workloads of `wavejit bench` and `wavejit demo`, the
    /// examples).
    #[error("{0}")]
    WrongResult(String),
}

impl Error {
    /// The structured fault report, when the error is a kernel fault.
    pub fn fault(&self) -> Option<&FaultReport> {
        match self {
            Error::Fault(f) => Some(f),
            _ => None,
        }
    }
}

/// Launch parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// Workgroups per dimension (HIP gridDim).
    pub grid: [u32; 3],
    /// Workgroup size (HIP blockDim).
    pub block: [u32; 3],
    /// Dynamic LDS bytes added to the kernel's static LDS.
    pub dynamic_lds: u32,
    /// Kernel arguments.
    pub args: Vec<Arg>,
    /// Engine.
    pub engine: Engine,
    /// Host threads (0 = all available).
    pub threads: usize,
}

impl Launch {
    /// A launch of `grid` workgroups of `block` work-items, no arguments yet.
    pub fn new(grid: [u32; 3], block: [u32; 3]) -> Launch {
        Launch {
            grid,
            block,
            dynamic_lds: 0,
            args: Vec::new(),
            engine: Engine::Jit,
            threads: 0,
        }
    }
    /// Appends an argument.
    pub fn arg(mut self, a: Arg) -> Launch {
        self.args.push(a);
        self
    }
    /// Selects the engine.
    pub fn engine(mut self, e: Engine) -> Launch {
        self.engine = e;
        self
    }
    /// Sets the host thread count.
    pub fn threads(mut self, n: usize) -> Launch {
        self.threads = n;
        self
    }
    /// Sets dynamic LDS bytes.
    pub fn dynamic_lds(mut self, bytes: u32) -> Launch {
        self.dynamic_lds = bytes;
        self
    }
}

pub mod raw;

struct DeviceInner {
    mem: DeviceMemory,
    budget: AtomicU64,
    /// Translations of raw dispatches, by code content ([`raw`]).
    raw: raw::RawCodeCache,
}

/// A simulated GPU: checked device memory plus the kernels loaded into it.
///
/// Cheap to clone (an `Arc` inside); `Send + Sync`; every method takes `&self`, so several
/// host threads may launch at once. Host copies ([`Device::write`], [`Device::read`]) and
/// [`Device::free`] wait for running launches.
#[derive(Clone)]
pub struct Device {
    inner: Arc<DeviceInner>,
}

impl Default for Device {
    fn default() -> Self {
        Device::new()
    }
}

impl Device {
    /// A device with empty memory.
    pub fn new() -> Device {
        Device {
            inner: Arc::new(DeviceInner {
                mem: DeviceMemory::new(),
                budget: AtomicU64::new(dispatch::DEFAULT_BUDGET),
                raw: raw::RawCodeCache::new(),
            }),
        }
    }

    /// Sets the per-wave instruction budget of later launches (runaway guard; default
    /// 2^34 wave instructions). A wave that exceeds it faults.
    pub fn set_instruction_budget(&self, budget: u64) {
        self.inner.budget.store(budget, Ordering::Relaxed);
    }

    /// Loads a code object (an AMDGPU ELF, or a clang offload bundle with one device entry)
    /// and copies its image into device memory.
    pub fn load_module(&self, bytes: &[u8]) -> Result<Module, Error> {
        let co = code_object::load(bytes, None)?;
        let base = self.inner.mem.alloc_from(&co.image)?;
        let code = CodeImage::new(base, co.image.clone(), co.exec_ranges.clone());
        Ok(Module {
            inner: Arc::new(ModuleInner {
                device: self.inner.clone(),
                co,
                code,
                base,
                translators: Mutex::new(Vec::new()),
            }),
        })
    }

    /// Allocates `len` zero-filled bytes (256-byte aligned); [`Error::Memory`] if the host
    /// cannot provide them.
    pub fn alloc(&self, len: usize) -> Result<Buffer, Error> {
        let addr = self.inner.mem.alloc(len)?;
        Ok(Buffer { addr, len })
    }

    /// Allocates a buffer holding a copy of `data`.
    pub fn alloc_from(&self, data: &[u8]) -> Result<Buffer, Error> {
        let addr = self.inner.mem.alloc_from(data)?;
        Ok(Buffer {
            addr,
            len: data.len(),
        })
    }

    /// Copies `data` to the start of `buf`; a usage error if it does not fit or `buf` is
    /// not a live buffer of this device.
    pub fn write(&self, buf: Buffer, data: &[u8]) -> Result<(), Error> {
        if data.len() > buf.len {
            return Err(Error::Usage(format!(
                "cannot write {} bytes into a buffer of {} bytes",
                data.len(),
                buf.len
            )));
        }
        Ok(self.inner.mem.write(buf.addr, data)?)
    }

    /// The contents of `buf`; [`Error::Memory`] if `buf` is not inside a live buffer of this
    /// device.
    pub fn read(&self, buf: Buffer) -> Result<Vec<u8>, Error> {
        Ok(self.inner.mem.read(buf.addr, buf.len)?)
    }

    /// Frees `buf`; a usage error if it is not a live buffer of this device.
    pub fn free(&self, buf: Buffer) -> Result<(), Error> {
        if self.inner.mem.free(buf.addr) {
            Ok(())
        } else {
            Err(Error::Usage(format!(
                "cannot free {:#x}: not the start of a live buffer of this device",
                buf.addr
            )))
        }
    }

    /// Runs `kernel` to completion. Argument errors are [`Error::Usage`] naming the kernel
    /// and listing its expected arguments; a kernel fault is [`Error::Fault`].
    pub fn launch(&self, kernel: &Kernel, launch: &Launch) -> Result<Report, Error> {
        self.launch_observed(kernel, launch, &Observe::default())
    }

    /// [`Device::launch`], profiled and/or watched as `obs` asks (see `docs/profiling.md`):
    /// a profiled launch runs every instruction as its own block (slower, same results) and
    /// fills [`Report::profile`]; a cancelled one ([`LaunchControl::cancel`]) finishes the
    /// running work-groups and reports [`Report::interrupted`].
    pub fn launch_observed(
        &self,
        kernel: &Kernel,
        launch: &Launch,
        obs: &Observe,
    ) -> Result<Report, Error> {
        let m = &kernel.module;
        if !Arc::ptr_eq(&m.device, &self.inner) {
            return Err(Error::Usage(format!(
                "kernel {} belongs to a module loaded on another device",
                kernel.name()
            )));
        }
        let info = kernel.info();
        let translator = if obs.profile {
            // A fresh profiling translator: its counts are this launch's alone.
            Arc::new(m.new_translator(launch.engine, info.wave_size)?.profiling())
        } else {
            m.translator(launch.engine, info.wave_size)?
        };
        let params = LaunchParams {
            kernel: info,
            gpu: m.co.gpu,
            code: &m.code,
            geometry: Geometry {
                grid: launch.grid,
                block: launch.block,
                dynamic_lds: launch.dynamic_lds,
            },
            args: &launch.args,
            threads: launch.threads,
            budget: self.inner.budget.load(Ordering::Relaxed),
        };
        let out = dispatch::launch_controlled(
            &self.inner.mem,
            &translator,
            &params,
            obs.control.as_deref(),
        )
        .map_err(|e| match e {
            LaunchError::Usage(m) => Error::Usage(m),
            LaunchError::Fault(f) => Error::Fault(f),
        })?;
        let profile = obs.profile.then(|| {
            let entry = m.code.base().wrapping_add(info.entry);
            let size =
                m.co.functions
                    .iter()
                    .find(|f| f.addr == info.entry && f.size > 0)
                    .map(|f| f.size);
            let facts = wavejit_runtime::profile::LaunchFacts {
                kernel: info.name.clone(),
                target: Target {
                    gpu: m.co.gpu,
                    wave_size: info.wave_size,
                },
                entry,
                size,
                grid: launch.grid,
                block: launch.block,
                workgroups: out.workgroups,
                waves: out.waves,
                interrupted: out.interrupted,
            };
            Box::new(wavejit_runtime::profile::build(
                &m.code,
                &facts,
                &translator.profile_counts(),
            ))
        });
        Ok(Report {
            kernel: info.name.clone(),
            engine: launch.engine.name().to_string(),
            grid: launch.grid,
            block: launch.block,
            workgroups: out.workgroups,
            waves: out.waves,
            counters: out.counters,
            translation: out.translation,
            elapsed_ns: out.elapsed_ns,
            interrupted: out.interrupted,
            profile,
        })
    }
}

/// How a launch is observed ([`Device::launch_observed`]).
#[derive(Clone, Debug, Default)]
pub struct Observe {
    /// Count every instruction's executions ([`Report::profile`]).
    pub profile: bool,
    /// Progress and cancellation, shared with another thread.
    pub control: Option<Arc<LaunchControl>>,
}

struct ModuleInner {
    device: Arc<DeviceInner>,
    co: CodeObject,
    code: CodeImage,
    base: u64,
    /// One translator per (engine, wave size), created at first launch; its block cache
    /// persists across launches.
    #[allow(clippy::type_complexity)]
    translators: Mutex<Vec<((Engine, u32), Arc<Translator>)>>,
}

impl ModuleInner {
    fn translator(&self, engine: Engine, wave_size: u32) -> Result<Arc<Translator>, Error> {
        let mut ts = self.translators.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, t)) = ts.iter().find(|(k, _)| *k == (engine, wave_size)) {
            return Ok(t.clone());
        }
        let t = Arc::new(self.new_translator(engine, wave_size)?);
        ts.push(((engine, wave_size), t.clone()));
        Ok(t)
    }

    fn new_translator(&self, engine: Engine, wave_size: u32) -> Result<Translator, Error> {
        let target = Target {
            gpu: self.co.gpu,
            wave_size,
        };
        // Kernel dispatch never reads a wave's registers after it ends.
        Translator::new(target, engine)
            .map(Translator::final_state_unread)
            .map_err(|e| Error::Usage(format!("cannot translate for {}: {e}", self.co.gpu)))
    }
}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        self.device.mem.free(self.base);
    }
}

/// A loaded code object.
pub struct Module {
    inner: Arc<ModuleInner>,
}

impl Module {
    /// The kernel called `name`; a usage error listing the kernel names otherwise.
    pub fn kernel(&self, name: &str) -> Result<Kernel, Error> {
        match self.inner.co.kernels.iter().position(|k| k.name == name) {
            Some(index) => Ok(Kernel {
                module: self.inner.clone(),
                index,
            }),
            None => Err(Error::Usage(format!(
                "no kernel named {name:?}; the code object has: {}",
                self.names_list()
            ))),
        }
    }

    /// The only kernel; a usage error unless there is exactly one.
    pub fn only_kernel(&self) -> Result<Kernel, Error> {
        match self.inner.co.kernels.len() {
            1 => Ok(Kernel {
                module: self.inner.clone(),
                index: 0,
            }),
            0 => Err(Error::Usage("the code object has no kernels".into())),
            n => Err(Error::Usage(format!(
                "the code object has {n} kernels ({}); choose one by name",
                self.names_list()
            ))),
        }
    }

    /// Kernel names in metadata order.
    pub fn kernel_names(&self) -> Vec<String> {
        self.inner
            .co
            .kernels
            .iter()
            .map(|k| k.name.clone())
            .collect()
    }

    /// The device address of the code object's virtual address 0: a symbol at virtual
    /// address `v` (a `__device__` variable, say) is at device address `image_base() + v`.
    pub fn image_base(&self) -> u64 {
        self.inner.base
    }

    /// The parsed code object.
    pub fn code_object(&self) -> &CodeObject {
        &self.inner.co
    }

    fn names_list(&self) -> String {
        self.kernel_names().join(", ")
    }
}

/// A kernel of a loaded module (keeps the module alive).
#[derive(Clone)]
pub struct Kernel {
    module: Arc<ModuleInner>,
    index: usize,
}

impl Kernel {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.info().name
    }
    /// Everything the code object says about the kernel.
    pub fn info(&self) -> &KernelInfo {
        &self.module.co.kernels[self.index]
    }
}

/// What a launch did: geometry, deterministic counters, translation work and time.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Kernel name.
    pub kernel: String,
    /// `jit` or `interp`.
    pub engine: String,
    /// Workgroups per dimension.
    pub grid: [u32; 3],
    /// Workgroup size.
    pub block: [u32; 3],
    /// Workgroups executed.
    pub workgroups: u64,
    /// Waves executed.
    pub waves: u64,
    /// Deterministic counters: identical for the JIT and the interpreter.
    pub counters: Counters,
    /// Blocks lifted/compiled, cache hits, translation time (not deterministic).
    pub translation: TranslationStats,
    /// Wall time of the launch in nanoseconds.
    pub elapsed_ns: u64,
    /// Stopped early ([`LaunchControl::cancel`]): the counters cover the work-groups that
    /// finished.
    pub interrupted: bool,
    /// Per-instruction profile, when the launch was profiled ([`Observe::profile`]; not
    /// part of the report's JSON).
    #[serde(skip)]
    pub profile: Option<Box<Profile>>,
}

impl Report {
    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| format!("{{\"error\": \"cannot serialise the report: {e}\"}}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VADD: &[u8] = include_bytes!("../tests/kernels/gfx942/vadd.hsaco");

    #[test]
    fn buffers_round_trip_and_reject_bad_use() {
        let dev = Device::new();
        let b = dev.alloc(16).unwrap();
        assert_eq!(b.len, 16);
        assert_eq!(dev.read(b).unwrap(), vec![0; 16]);
        let data: Vec<u8> = (1..=16).collect();
        dev.write(b, &data).unwrap();
        assert_eq!(dev.read(b).unwrap(), data);
        assert!(matches!(dev.write(b, &[0; 17]), Err(Error::Usage(_))));
        let c = dev.alloc_from(&[9, 8, 7]).unwrap();
        assert_eq!(dev.read(c).unwrap(), vec![9, 8, 7]);
        dev.free(b).unwrap();
        assert!(matches!(dev.read(b), Err(Error::Memory(_))));
        assert!(matches!(dev.write(b, &[1]), Err(Error::Memory(_))));
        assert!(matches!(dev.free(b), Err(Error::Usage(_))));
        assert!(matches!(
            dev.alloc(usize::MAX),
            Err(Error::Memory(HostMemError::AllocFailed(_)))
        ));
    }

    #[test]
    fn modules_name_their_kernels() {
        let dev = Device::new();
        let m = dev.load_module(VADD).unwrap();
        assert_eq!(m.kernel_names(), vec!["vadd", "saxpy"]);
        assert_eq!(m.kernel("saxpy").unwrap().name(), "saxpy");
        let Err(Error::Usage(e)) = m.kernel("vsub") else {
            panic!("expected a usage error")
        };
        assert!(e.contains("vadd, saxpy"), "{e}");
        let Err(Error::Usage(e)) = m.only_kernel() else {
            panic!("expected a usage error")
        };
        assert!(e.contains("2 kernels"), "{e}");
        assert_eq!(m.code_object().kernels.len(), 2);
        assert!(matches!(
            dev.load_module(b"not an elf"),
            Err(Error::Load(_))
        ));
        assert!(matches!(dev.load_module(&VADD[..100]), Err(Error::Load(_))));
    }

    #[test]
    fn launch_checks_arguments_and_devices() {
        let dev = Device::new();
        let m = dev.load_module(VADD).unwrap();
        let k = m.kernel("vadd").unwrap();
        let a = dev.alloc(64).unwrap();
        let l = Launch::new([1, 1, 1], [16, 1, 1])
            .arg(Arg::Buffer(a))
            .arg(Arg::Buffer(a))
            .arg(Arg::F32(1.0));
        let Err(Error::Usage(e)) = dev.launch(&k, &l) else {
            panic!("expected a usage error")
        };
        assert!(e.starts_with("kernel vadd:"), "{e}");
        assert!(e.contains("expects 4 arguments"), "{e}");
        let other = Device::new();
        let full = l.clone().arg(Arg::I32(16));
        assert!(matches!(other.launch(&k, &full), Err(Error::Usage(_))));
        // A fault (out of range: n is larger than the buffers) names kernel and workgroup.
        let bad = Launch::new([1, 1, 1], [64, 1, 1])
            .arg(Arg::Buffer(a))
            .arg(Arg::Buffer(a))
            .arg(Arg::Buffer(a))
            .arg(Arg::I32(64))
            .engine(Engine::Interp);
        let Err(e) = dev.launch(&k, &bad) else {
            panic!("expected a fault")
        };
        let f = e.fault().expect("a kernel fault");
        assert_eq!(
            (f.kernel.as_str(), f.workgroup, f.wave),
            ("vadd", [0, 0, 0], 0)
        );
        assert!(
            f.lane.is_some(),
            "an out-of-range access names its lane: {f:?}"
        );
        assert!(f.instruction.starts_with("global_"), "{f:?}");
        assert!(
            e.to_string()
                .starts_with("kernel vadd faulted in workgroup (0,0,0) wave 0"),
            "{e}"
        );
    }

    #[test]
    fn report_serialises_to_json() {
        let r = Report {
            kernel: "k".into(),
            engine: "jit".into(),
            grid: [2, 1, 1],
            block: [64, 1, 1],
            workgroups: 2,
            waves: 2,
            counters: Counters {
                valu: 7,
                active_lanes: 448,
                ..Default::default()
            },
            translation: TranslationStats::default(),
            elapsed_ns: 5,
            interrupted: false,
            profile: None,
        };
        let v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(v["kernel"], "k");
        assert_eq!(v["grid"][0], 2);
        assert_eq!(v["counters"]["valu"], 7);
        assert_eq!(v["counters"]["active_lanes"], 448);
        assert_eq!(r.counters.wave_insts(), 7);
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn vadd_runs_on_both_engines_from_two_host_threads() {
        let dev = Device::new();
        let m = dev.load_module(VADD).unwrap();
        let k = m.kernel("vadd").unwrap();
        let n = 1000usize; // not a multiple of the block: the last group is partly masked
        std::thread::scope(|s| {
            for (t, engine) in [(0, Engine::Jit), (1, Engine::Interp), (2, Engine::Jit)] {
                let (dev, k) = (&dev, &k);
                s.spawn(move || {
                    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 + t as f32).collect();
                    let b: Vec<f32> = (0..n).map(|i| 100.0 - i as f32).collect();
                    let ab = dev.alloc_from(&f32s(&a)).unwrap();
                    let bb = dev.alloc_from(&f32s(&b)).unwrap();
                    let cb = dev.alloc_from(&vec![0xA5; 4 * (n + 64)]).unwrap();
                    let l = Launch::new([4, 1, 1], [256, 1, 1])
                        .arg(Arg::Buffer(ab))
                        .arg(Arg::Buffer(bb))
                        .arg(Arg::Buffer(cb))
                        .arg(Arg::I32(n as i32))
                        .engine(engine);
                    let r = dev.launch(k, &l).unwrap();
                    assert_eq!((r.workgroups, r.waves), (4, 16));
                    assert_eq!(r.engine, engine.name());
                    let out = dev.read(cb).unwrap();
                    for i in 0..n {
                        let got = f32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
                        assert_eq!(got, a[i] + b[i], "thread {t} item {i}");
                    }
                    assert!(out[4 * n..].iter().all(|&x| x == 0xA5), "wrote past n");
                    r.counters
                });
            }
        });
    }

    #[test]
    fn api_types_are_thread_safe() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Device>();
        send_sync::<Module>();
        send_sync::<Kernel>();
        send_sync::<Report>();
    }
}
