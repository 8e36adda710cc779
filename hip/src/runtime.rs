//! The runtime behind the C API: one emulated device, registered fat binaries (loaded at
//! first use), allocations, streams, events, loaded modules and the error state.
//!
//! Execution model: every operation runs to completion on the calling thread before the
//! call returns, so all streams are trivially in order (and never overlap). Asynchronous
//! errors keep their HIP shape: a kernel fault is printed on stderr when it happens and
//! becomes a sticky error that the next synchronising call (and every later one) returns.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Instant;

use wavejit::{Arg, Buffer, Device, Error as WjError, Kernel, Launch, Module};
use wavejit_runtime::code_object::{ArgKind, HiddenArg, KernelInfo};
use wavejit_translator::isa::Gpu;

use crate::error::*;
use crate::image;
use crate::printf;
use crate::props::{self, GpuProps};
use crate::symbols::{self, Extras};

/// Bytes of the device printf buffer (records of one launch).
const PRINTF_BYTES: usize = 1 << 20;

/// What kind of memory an allocation is (all of it is host memory in wavejit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocKind {
    /// `hipMalloc`.
    Device,
    /// `hipMallocManaged`.
    Managed,
    /// `hipHostMalloc`.
    Host,
}

/// A code object loaded onto the device, with what the runtime reads from it.
pub struct Loaded {
    /// The module.
    pub module: Module,
    /// Data symbols and printf formats.
    pub extras: Extras,
    kernels: Mutex<HashMap<String, Kernel>>,
}

impl Loaded {
    fn new(dev: &Device, elf: &[u8]) -> HipResult<Loaded> {
        let module = dev.load_module(elf).map_err(|e| {
            HipError::new(INVALID_IMAGE, format!("cannot load the code object: {e}"))
        })?;
        let extras = symbols::read(elf).map_err(|e| {
            HipError::new(
                INVALID_IMAGE,
                format!("cannot read the code object's symbols: {e}"),
            )
        })?;
        Ok(Loaded {
            module,
            extras,
            kernels: Mutex::new(HashMap::new()),
        })
    }

    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> HipResult<Kernel> {
        let mut ks = lock(&self.kernels);
        if let Some(k) = ks.get(name) {
            return Ok(k.clone());
        }
        let k = self
            .module
            .kernel(name)
            .map_err(|e| HipError::new(INVALID_DEVICE_FUNCTION, e.to_string()))?;
        ks.insert(name.to_string(), k.clone());
        Ok(k)
    }

    /// Device address and size of the data symbol `name`.
    pub fn symbol(&self, name: &str) -> HipResult<(u64, u64)> {
        let s = self.extras.data.get(name).ok_or_else(|| {
            HipError::new(
                NOT_FOUND,
                format!("the code object has no device variable {name:?}"),
            )
        })?;
        Ok((self.module.image_base() + s.vaddr, s.size))
    }
}

/// A fat binary registered by a translation unit.
struct FatBinary {
    /// The whole bundle (lives in the program's `.hip_fatbin` section).
    bundle: &'static [u8],
    loaded: OnceLock<Result<Arc<Loaded>, HipError>>,
}

/// A registered kernel or variable: which fat binary, which device name.
#[derive(Clone, Debug)]
struct Registered {
    fatbin: usize,
    name: String,
}

/// A recorded event.
#[derive(Debug, Default)]
pub struct EventState {
    /// When it was last recorded.
    pub at: Option<Instant>,
    /// Created with `hipEventDisableTiming`.
    pub no_timing: bool,
}

#[derive(Default)]
struct Tables {
    fatbins: Vec<Option<FatBinary>>,
    functions: HashMap<usize, Registered>,
    vars: HashMap<usize, Registered>,
    allocs: BTreeMap<u64, (usize, AllocKind)>,
    streams: HashSet<usize>,
    events: HashMap<usize, EventState>,
    modules: HashMap<usize, Arc<Loaded>>,
    functions_of_modules: HashMap<usize, (Arc<Loaded>, String)>,
    next_handle: usize,
}

/// The process-wide runtime.
pub struct Runtime {
    /// The emulated device.
    pub dev: Device,
    /// The emulated GPU, or why `WAVEJIT_GPU` is not usable.
    pub gpu: Result<Gpu, String>,
    tables: Mutex<Tables>,
    sticky: Mutex<Option<HipError>>,
    printf_buf: Mutex<Option<Buffer>>,
}

thread_local! {
    static LAST_ERROR: Cell<Code> = const { Cell::new(SUCCESS) };
    static CALL_CONFIG: RefCell<Vec<CallConfig>> = const { RefCell::new(Vec::new()) };
}

/// A `<<<grid, block, shared, stream>>>` configuration.
#[derive(Clone, Copy, Debug)]
pub struct CallConfig {
    /// Grid.
    pub grid: [u32; 3],
    /// Block.
    pub block: [u32; 3],
    /// Dynamic shared memory bytes.
    pub shared: usize,
    /// Stream handle.
    pub stream: usize,
}

/// Host threads a launch may use, asked once (`available_parallelism` reads cgroup files,
/// which would cost tens of microseconds on every launch).
fn host_threads() -> usize {
    static N: OnceLock<usize> = OnceLock::new();
    *N.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The runtime (created at first use).
pub fn rt() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| Runtime {
        dev: Device::new(),
        gpu: props::emulated_gpu(),
        tables: Mutex::new(Tables::default()),
        sticky: Mutex::new(None),
        printf_buf: Mutex::new(None),
    })
}

/// Records `code` as the calling thread's last error (hipGetLastError) unless success.
pub fn set_last(code: Code) {
    if code != SUCCESS {
        LAST_ERROR.with(|c| c.set(code));
    }
}

/// The calling thread's last error; `reset` clears it.
pub fn last(reset: bool) -> Code {
    LAST_ERROR.with(|c| if reset { c.replace(SUCCESS) } else { c.get() })
}

/// Pushes a launch configuration.
pub fn push_config(c: CallConfig) {
    CALL_CONFIG.with(|v| v.borrow_mut().push(c));
}

/// Pops the last launch configuration.
pub fn pop_config() -> Option<CallConfig> {
    CALL_CONFIG.with(|v| v.borrow_mut().pop())
}

impl Runtime {
    /// The emulated GPU.
    pub fn gpu(&self) -> HipResult<Gpu> {
        self.gpu
            .clone()
            .map_err(|m| HipError::new(INVALID_DEVICE, m))
    }

    /// Properties of the emulated GPU.
    pub fn props(&self) -> HipResult<GpuProps> {
        Ok(props::props(self.gpu()?))
    }

    /// Fails with the sticky error of an earlier kernel fault, if any.
    pub fn check_sticky(&self) -> HipResult {
        match &*lock(&self.sticky) {
            Some(e) => Err(HipError::quiet(e.code)),
            None => Ok(()),
        }
    }

    /// Clears the sticky error (`hipDeviceReset`).
    pub fn clear_sticky(&self) {
        *lock(&self.sticky) = None;
    }

    fn new_handle(t: &mut Tables) -> usize {
        // Handles are distinct non-null values that are never dereferenced.
        t.next_handle += 1;
        0x1000 + t.next_handle * 16
    }

    // ---- registration ----

    /// Registers a fat binary; returns its index.
    pub fn register_fatbin(&self, bundle: &'static [u8]) -> usize {
        let mut t = lock(&self.tables);
        t.fatbins.push(Some(FatBinary {
            bundle,
            loaded: OnceLock::new(),
        }));
        t.fatbins.len() - 1
    }

    /// Forgets a fat binary and its kernels and variables.
    pub fn unregister_fatbin(&self, index: usize) {
        let mut t = lock(&self.tables);
        if let Some(slot) = t.fatbins.get_mut(index) {
            *slot = None;
        }
        t.functions.retain(|_, r| r.fatbin != index);
        t.vars.retain(|_, r| r.fatbin != index);
    }

    /// Registers the kernel `name` of fat binary `fatbin` under host address `host`.
    pub fn register_function(&self, fatbin: usize, host: usize, name: String) {
        lock(&self.tables)
            .functions
            .insert(host, Registered { fatbin, name });
    }

    /// Registers the device variable `name` under its host shadow's address.
    pub fn register_var(&self, fatbin: usize, host: usize, name: String) {
        lock(&self.tables)
            .vars
            .insert(host, Registered { fatbin, name });
    }

    fn loaded(&self, fatbin: usize) -> HipResult<Arc<Loaded>> {
        let bundle = {
            let t = lock(&self.tables);
            match t.fatbins.get(fatbin).and_then(|f| f.as_ref()) {
                Some(f) => {
                    if let Some(r) = f.loaded.get() {
                        return r.clone();
                    }
                    f.bundle
                }
                None => {
                    return Err(HipError::new(
                        INVALID_IMAGE,
                        "the fat binary was unregistered",
                    ))
                }
            }
        };
        // Load outside the table lock (it can take a while); the first result wins.
        let result = self
            .gpu()
            .and_then(|gpu| image::select(bundle, gpu).map(|elf| elf.to_vec()))
            .and_then(|elf| Loaded::new(&self.dev, &elf))
            .map(Arc::new);
        let t = lock(&self.tables);
        match t.fatbins.get(fatbin).and_then(|f| f.as_ref()) {
            Some(f) => f.loaded.get_or_init(|| result).clone(),
            None => Err(HipError::new(
                INVALID_IMAGE,
                "the fat binary was unregistered",
            )),
        }
    }

    /// The kernel registered under host address `host`.
    pub fn function(&self, host: usize) -> HipResult<(Arc<Loaded>, Kernel)> {
        let reg = lock(&self.tables).functions.get(&host).cloned();
        if let Some(r) = reg {
            let l = self.loaded(r.fatbin)?;
            let k = l.kernel(&r.name)?;
            return Ok((l, k));
        }
        let m = lock(&self.tables).functions_of_modules.get(&host).cloned();
        match m {
            Some((l, name)) => {
                let k = l.kernel(&name)?;
                Ok((l, k))
            }
            None => Err(HipError::new(
                INVALID_DEVICE_FUNCTION,
                format!("{host:#x} is not a registered kernel"),
            )),
        }
    }

    /// Device address and size of the variable whose host shadow is at `host`.
    pub fn var(&self, host: usize) -> HipResult<(u64, u64)> {
        let reg = lock(&self.tables).vars.get(&host).cloned().ok_or_else(|| {
            HipError::new(
                INVALID_SYMBOL,
                format!("{host:#x} is not a registered device variable"),
            )
        })?;
        self.loaded(reg.fatbin)?.symbol(&reg.name)
    }

    // ---- memory ----

    /// Allocates `len` bytes.
    pub fn alloc(&self, len: usize, kind: AllocKind) -> HipResult<u64> {
        if len == 0 {
            return Ok(0);
        }
        let b = self.dev.alloc(len).map_err(|e| {
            HipError::new(OUT_OF_MEMORY, format!("cannot allocate {len} bytes: {e}"))
        })?;
        lock(&self.tables).allocs.insert(b.addr, (len, kind));
        Ok(b.addr)
    }

    /// Frees the allocation at `addr` (of one of `kinds`).
    pub fn free(&self, addr: u64, kinds: &[AllocKind]) -> HipResult {
        if addr == 0 {
            return Ok(());
        }
        let mut t = lock(&self.tables);
        match t.allocs.get(&addr) {
            Some((len, kind)) if kinds.contains(kind) => {
                let len = *len;
                t.allocs.remove(&addr);
                drop(t);
                self.dev
                    .free(Buffer { addr, len })
                    .map_err(|e| HipError::new(INVALID_DEVICE_POINTER, e.to_string()))
            }
            Some((_, kind)) => Err(HipError::new(
                INVALID_VALUE,
                format!("{addr:#x} is {kind:?} memory; free it with the matching call"),
            )),
            None => Err(HipError::new(
                INVALID_DEVICE_POINTER,
                format!("{addr:#x} is not the start of a live allocation"),
            )),
        }
    }

    /// The allocation (start, len, kind) containing `[addr, addr + len)`.
    pub fn find(&self, addr: u64, len: usize) -> Option<(u64, usize, AllocKind)> {
        let t = lock(&self.tables);
        let (&start, &(alen, kind)) = t.allocs.range(..=addr).next_back()?;
        let end = start + alen as u64;
        (addr.checked_add(len as u64)? <= end).then_some((start, alen, kind))
    }

    /// Writes host bytes to device memory at `addr`.
    pub fn write(&self, addr: u64, data: &[u8]) -> HipResult {
        self.dev
            .write(
                Buffer {
                    addr,
                    len: data.len(),
                },
                data,
            )
            .map_err(|e| {
                HipError::new(
                    INVALID_VALUE,
                    format!("cannot copy {} bytes to {addr:#x}: {e}", data.len()),
                )
            })
    }

    /// Reads `len` device bytes at `addr`.
    pub fn read(&self, addr: u64, len: usize) -> HipResult<Vec<u8>> {
        self.dev.read(Buffer { addr, len }).map_err(|e| {
            HipError::new(
                INVALID_VALUE,
                format!("cannot copy {len} bytes from {addr:#x}: {e}"),
            )
        })
    }

    // ---- streams and events ----

    /// Creates a stream.
    pub fn stream_create(&self) -> usize {
        let mut t = lock(&self.tables);
        let h = Self::new_handle(&mut t);
        t.streams.insert(h);
        h
    }

    /// Checks a stream handle (0 is the null stream).
    pub fn check_stream(&self, s: usize) -> HipResult {
        if s == 0 || lock(&self.tables).streams.contains(&s) {
            Ok(())
        } else {
            Err(HipError::new(
                INVALID_HANDLE,
                format!("{s:#x} is not a live stream"),
            ))
        }
    }

    /// Destroys a stream.
    pub fn stream_destroy(&self, s: usize) -> HipResult {
        if lock(&self.tables).streams.remove(&s) {
            Ok(())
        } else {
            Err(HipError::new(
                INVALID_HANDLE,
                format!("{s:#x} is not a live stream"),
            ))
        }
    }

    /// Creates an event.
    pub fn event_create(&self, no_timing: bool) -> usize {
        let mut t = lock(&self.tables);
        let h = Self::new_handle(&mut t);
        t.events.insert(
            h,
            EventState {
                at: None,
                no_timing,
            },
        );
        h
    }

    /// Runs `f` on the event `e`.
    pub fn with_event<R>(&self, e: usize, f: impl FnOnce(&mut EventState) -> R) -> HipResult<R> {
        let mut t = lock(&self.tables);
        let ev = t
            .events
            .get_mut(&e)
            .ok_or_else(|| HipError::new(INVALID_HANDLE, format!("{e:#x} is not a live event")))?;
        Ok(f(ev))
    }

    /// Destroys an event.
    pub fn event_destroy(&self, e: usize) -> HipResult {
        match lock(&self.tables).events.remove(&e) {
            Some(_) => Ok(()),
            None => Err(HipError::new(
                INVALID_HANDLE,
                format!("{e:#x} is not a live event"),
            )),
        }
    }

    /// Milliseconds between two recorded events.
    pub fn elapsed_ms(&self, start: usize, stop: usize) -> HipResult<f32> {
        let a = self.with_event(start, |e| (e.at, e.no_timing))?;
        let b = self.with_event(stop, |e| (e.at, e.no_timing))?;
        if a.1 || b.1 {
            return Err(HipError::new(
                INVALID_HANDLE,
                "an event was created with hipEventDisableTiming",
            ));
        }
        match (a.0, b.0) {
            (Some(x), Some(y)) => Ok(if y >= x {
                (y - x).as_secs_f64() as f32 * 1000.0
            } else {
                -((x - y).as_secs_f64() as f32 * 1000.0)
            }),
            _ => Err(HipError::quiet(NOT_READY)),
        }
    }

    // ---- modules ----

    /// Loads a module from an image (bundle or ELF); returns its handle.
    pub fn module_load(&self, img: &[u8]) -> HipResult<usize> {
        let elf = image::select(img, self.gpu()?)?.to_vec();
        let l = Arc::new(Loaded::new(&self.dev, &elf)?);
        let mut t = lock(&self.tables);
        let h = Self::new_handle(&mut t);
        t.modules.insert(h, l);
        Ok(h)
    }

    /// Unloads a module.
    pub fn module_unload(&self, m: usize) -> HipResult {
        let mut t = lock(&self.tables);
        match t.modules.remove(&m) {
            Some(l) => {
                t.functions_of_modules
                    .retain(|_, (x, _)| !Arc::ptr_eq(x, &l));
                Ok(())
            }
            None => Err(HipError::new(
                INVALID_HANDLE,
                format!("{m:#x} is not a loaded module"),
            )),
        }
    }

    /// The module `m`.
    pub fn module(&self, m: usize) -> HipResult<Arc<Loaded>> {
        lock(&self.tables)
            .modules
            .get(&m)
            .cloned()
            .ok_or_else(|| HipError::new(INVALID_HANDLE, format!("{m:#x} is not a loaded module")))
    }

    /// A function handle for kernel `name` of module `m`.
    pub fn module_function(&self, m: usize, name: &str) -> HipResult<usize> {
        let l = self.module(m)?;
        l.kernel(name)
            .map_err(|e| HipError::new(NOT_FOUND, e.message))?;
        let mut t = lock(&self.tables);
        let h = Self::new_handle(&mut t);
        t.functions_of_modules.insert(h, (l, name.to_string()));
        Ok(h)
    }

    // ---- launches ----

    /// Runs `kernel` with `args` (one value per explicit argument) and decodes its printf
    /// output. Configuration errors are returned; a fault becomes the sticky error.
    pub fn launch(
        &self,
        loaded: &Loaded,
        kernel: &Kernel,
        grid: [u32; 3],
        block: [u32; 3],
        shared: usize,
        args: Vec<Arg>,
    ) -> HipResult {
        self.check_sticky()?;
        let info = kernel.info();
        let threads: u64 = block.iter().map(|&b| b as u64).product();
        let max = if info.max_flat_workgroup_size == 0 {
            1024
        } else {
            info.max_flat_workgroup_size
        };
        if grid.contains(&0) || block.contains(&0) || threads > max as u64 {
            return Err(HipError::new(
                INVALID_CONFIGURATION,
                format!(
                    "kernel {}: grid {grid:?} block {block:?}: a block of {threads} threads (the kernel allows 1 to {max}, at least 1 per dimension)",
                    info.name
                ),
            ));
        }
        let shared = u32::try_from(shared).map_err(|_| {
            HipError::new(
                LAUNCH_OUT_OF_RESOURCES,
                format!("{shared} bytes of dynamic shared memory"),
            )
        })?;
        let mut launch = Launch::new(grid, block)
            .dynamic_lds(shared)
            .threads(host_threads());
        launch.args = args;
        let uses_printf = info
            .args
            .iter()
            .any(|a| a.kind == ArgKind::Hidden(HiddenArg::PrintfBuffer));
        let mut printf_guard = None;
        if uses_printf {
            let mut g = lock(&self.printf_buf);
            let buf = match *g {
                Some(b) => b,
                None => {
                    let b = self.dev.alloc(PRINTF_BYTES).map_err(|e| {
                        HipError::new(
                            OUT_OF_MEMORY,
                            format!("cannot allocate the printf buffer: {e}"),
                        )
                    })?;
                    *g = Some(b);
                    b
                }
            };
            let mut header = [0u8; printf::HEADER];
            header[4..].copy_from_slice(&((PRINTF_BYTES - printf::HEADER) as u32).to_le_bytes());
            self.write(buf.addr, &header)?;
            launch = launch.arg(Arg::PrintfBuffer(buf));
            printf_guard = Some((g, buf));
        }
        let result = self.dev.launch(kernel, &launch);
        if let Some((_g, buf)) = &printf_guard {
            let head = self.read(buf.addr, printf::HEADER)?;
            let used = u32::from_le_bytes(head[..4].try_into().unwrap_or([0; 4])) as usize;
            let used = used.min(PRINTF_BYTES - printf::HEADER);
            if used > 0 {
                let recs = self.read(buf.addr + printf::HEADER as u64, used)?;
                printf::print_stdout(&printf::decode(&recs, &loaded.extras.printf));
            }
        }
        match result {
            Ok(_) => Ok(()),
            Err(WjError::Usage(m)) => Err(HipError::new(
                if m.contains("LDS") || m.contains("scratch") {
                    LAUNCH_OUT_OF_RESOURCES
                } else {
                    INVALID_VALUE
                },
                m,
            )),
            Err(WjError::Fault(f)) => {
                // A per-lane fault is a memory access outside the allocations; the rest
                // (traps, the instruction budget, unsupported instructions) fail the launch.
                let code = if f.lane.is_some() || f.cause.contains("address") {
                    ILLEGAL_ADDRESS
                } else {
                    LAUNCH_FAILURE
                };
                eprintln!(
                    "wavejit-hip: kernel fault (the next synchronising call returns {}):\n  {f}",
                    name(code).to_string_lossy()
                );
                *lock(&self.sticky) = Some(HipError::quiet(code));
                Ok(())
            }
            Err(e) => Err(HipError::new(INVALID_VALUE, e.to_string())),
        }
    }

    /// Packs the argument pointers of a `<<<>>>` or `hipModuleLaunchKernel` launch by the
    /// kernel's metadata.
    ///
    /// # Safety
    /// `params` must hold one readable pointer per explicit argument, each to a value of
    /// the argument's size (the HIP launch contract).
    pub unsafe fn pack_params(info: &KernelInfo, params: *const *const u8) -> HipResult<Vec<Arg>> {
        let explicit: Vec<_> = info.explicit_args().collect();
        if !explicit.is_empty() && params.is_null() {
            return Err(HipError::new(
                INVALID_VALUE,
                format!(
                    "kernel {} takes {} arguments but none were passed",
                    info.name,
                    explicit.len()
                ),
            ));
        }
        let mut out = Vec::with_capacity(explicit.len());
        for (i, a) in explicit.iter().enumerate() {
            // SAFETY: the caller guarantees one pointer per explicit argument.
            let p = unsafe { *params.add(i) };
            if p.is_null() {
                return Err(HipError::new(
                    INVALID_VALUE,
                    format!("kernel {}: argument {i} is null", info.name),
                ));
            }
            let size = a.size as usize;
            let mut bytes = [0u8; 8];
            if size > 8 {
                return Err(HipError::new(
                    NOT_SUPPORTED,
                    format!("kernel {}: argument {i} is a {size}-byte value; wavejit-hip passes values of up to 8 bytes", info.name),
                ));
            }
            // SAFETY: the caller guarantees `p` points to `size` readable bytes.
            unsafe { std::ptr::copy_nonoverlapping(p, bytes.as_mut_ptr(), size) };
            out.push(to_arg(info, i, &a.kind, &bytes[..size])?);
        }
        Ok(out)
    }

    /// Packs a `HIP_LAUNCH_PARAM_BUFFER_POINTER` argument buffer (explicit arguments at
    /// their metadata offsets).
    pub fn pack_buffer(info: &KernelInfo, buf: &[u8]) -> HipResult<Vec<Arg>> {
        info.explicit_args()
            .enumerate()
            .map(|(i, a)| {
                let (off, size) = (a.offset as usize, a.size as usize);
                let bytes = buf.get(off..off + size).ok_or_else(|| {
                    HipError::new(
                        INVALID_VALUE,
                        format!(
                            "kernel {}: the argument buffer ends before argument {i}",
                            info.name
                        ),
                    )
                })?;
                if size > 8 {
                    return Err(HipError::new(
                        NOT_SUPPORTED,
                        format!("kernel {}: argument {i} is a {size}-byte value", info.name),
                    ));
                }
                to_arg(info, i, &a.kind, bytes)
            })
            .collect()
    }
}

fn to_arg(info: &KernelInfo, i: usize, kind: &ArgKind, bytes: &[u8]) -> HipResult<Arg> {
    let mut b8 = [0u8; 8];
    b8[..bytes.len()].copy_from_slice(bytes);
    let v = u64::from_le_bytes(b8);
    match kind {
        ArgKind::GlobalBuffer if bytes.len() == 8 => Ok(Arg::Pointer(v)),
        ArgKind::ByValue if bytes.len() == 8 => Ok(Arg::U64(v)),
        ArgKind::ByValue if matches!(bytes.len(), 1 | 2 | 4) => Ok(Arg::U32(v as u32)),
        k => Err(HipError::new(
            NOT_SUPPORTED,
            format!(
                "kernel {}: argument {i} ({k:?}, {} bytes) cannot be passed",
                info.name,
                bytes.len()
            ),
        )),
    }
}
