//! Raw dispatch and host memory: the API mock-GPU harnesses need (and the C library's
//! `run_asm` / `wj_run_asm2` / `wj_dispatch` are built on).
//!
//! A harness has no code object: it has the code bytes at some host address, the dispatch
//! registers (COMPUTE_PGM_RSRC1/2/3, COMPUTE_USER_DATA_*), a grid, and host memory whose
//! addresses the kernel uses directly. [`Device::dispatch_raw`] runs such a dispatch; the
//! memory it may touch is the device's allocations plus the host ranges registered with
//! [`Device::register_host_memory`] (or, opted into with [`Device::set_host_check`], any
//! writable mapping of the process).
//!
//! Translations are cached by code content (the bytes, the GPU, the wave size and the engine),
//! not by address: a harness that places another kernel at the address of a previous one
//! gets a fresh translation, and the same bytes dispatched again (at any address) reuse the
//! translator. Block caches inside a translator are keyed by pc, so the same bytes at a new
//! address are lifted again there; pc-relative code (`s_getpc_b64`) sees its real address.
//!
//! ```
//! use wavejit::raw::{parse_arch, RawDispatch};
//! use wavejit::Device;
//! let code = [0x00, 0x00, 0xb0, 0xbf]; // gfx1100 s_endpgm
//! let dev = Device::new();
//! let d = RawDispatch::new(&code, 0x10_0000, parse_arch("gfx1100").unwrap(), [1, 1, 1], [32, 1, 1]);
//! let report = dev.dispatch_raw(&d).unwrap();
//! assert_eq!(report.waves, 1);
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use wavejit_runtime::code_object::ArgKind;
use wavejit_runtime::dispatch::raw::{launch_raw, rsrc2_lds_bytes, RawLaunch};
use wavejit_runtime::dispatch::LaunchError;
use wavejit_runtime::memory::CodeImage;
use wavejit_translator::exec::Translator;
use wavejit_translator::isa::{Gpu, Target};

pub use wavejit_runtime::memory::HostCheck;

use crate::{Arg, Device, Engine, Error, Kernel, Report};

/// The GPU an architecture name means: `gfx942`, `gfx950`, `gfx1100`..`gfx1103`,
/// `gfx1150`..`gfx1153`, `gfx1200`, `gfx1201`, or a family alias: `rdna3` (gfx1100), `rdna4`
/// (gfx1201), `cdna3` (gfx942), `cdna4` and `cdna` (gfx950).
pub fn parse_arch(name: &str) -> Result<Gpu, Error> {
    let gpu = match name.to_ascii_lowercase().as_str() {
        "rdna3" => Some(Gpu::GFX1100),
        "rdna4" => Some(Gpu::GFX1201),
        "cdna3" => Some(Gpu::GFX942),
        "cdna4" | "cdna" => Some(Gpu::GFX950),
        n => Gpu::from_name(n),
    };
    gpu.ok_or_else(|| {
        Error::Usage(format!(
            "unknown architecture {name:?}: use gfx942, gfx950, gfx1100-gfx1103, gfx1150-gfx1153, \
             gfx1200, gfx1201, rdna3, rdna4, cdna3 or cdna4"
        ))
    })
}

/// COMPUTE_PGM_RSRC1 for code that comes without one (`run_asm`): all 256 VGPRs, round to
/// nearest, denormals kept (FLOAT_MODE 0xF0), DX10_CLAMP and IEEE on, as clang sets them for
/// HSA kernels.
pub const DEFAULT_RSRC1: u32 = 0x3f | 0xF0 << 12 | 1 << 21 | 1 << 23;

/// A raw dispatch: code bytes and what the dispatch registers say.
#[derive(Clone, Debug)]
pub struct RawDispatch<'a> {
    /// Name used in reports and faults (default `raw`).
    pub name: String,
    /// The code: the first instruction is `code[0]`. May run past the kernel's end.
    pub code: &'a [u8],
    /// The device (= host) address of `code[0]`: the pc the kernel runs at.
    pub code_addr: u64,
    /// The GPU the code is for.
    pub gpu: Gpu,
    /// 32 or 64; 0 = the family's default (64 on CDNA, 32 on RDNA).
    pub wave_size: u32,
    /// Workgroups per dimension.
    pub grid: [u32; 3],
    /// Work-items per workgroup per dimension.
    pub block: [u32; 3],
    /// COMPUTE_PGM_RSRC1 (VGPR count; MODE: FLOAT_MODE, DX10_CLAMP, IEEE).
    pub rsrc1: u32,
    /// COMPUTE_PGM_RSRC2 (USER_SGPR_COUNT, TGID enables, TG_SIZE_EN, TIDIG_COMP_CNT,
    /// LDS_SIZE).
    pub rsrc2: u32,
    /// COMPUTE_PGM_RSRC3 (CDNA: ACCUM_OFFSET).
    pub rsrc3: u32,
    /// LDS bytes per workgroup; `None` = what rsrc2's LDS_SIZE says.
    pub lds_bytes: Option<u32>,
    /// Scratch bytes per work-item.
    pub scratch_per_lane: u32,
    /// COMPUTE_USER_DATA_*: loaded into s[0..n), n = min(len, rsrc2 USER_SGPR_COUNT).
    pub user_sgprs: Vec<u32>,
    /// Engine.
    pub engine: Engine,
    /// Host threads (0 = all available).
    pub threads: usize,
}

impl<'a> RawDispatch<'a> {
    /// A dispatch of `code` at `code_addr` for `gpu` with zero rsrc registers and no user
    /// data (set the fields for more).
    pub fn new(
        code: &'a [u8],
        code_addr: u64,
        gpu: Gpu,
        grid: [u32; 3],
        block: [u32; 3],
    ) -> RawDispatch<'a> {
        RawDispatch {
            name: "raw".into(),
            code,
            code_addr,
            gpu,
            wave_size: 0,
            grid,
            block,
            rsrc1: DEFAULT_RSRC1,
            rsrc2: 0,
            rsrc3: 0,
            lds_bytes: None,
            scratch_per_lane: 0,
            user_sgprs: Vec::new(),
            engine: Engine::Jit,
            threads: 0,
        }
    }

    /// remu's `run_asm` conventions: gfx1100 wave32; the kernarg address in `s[0:1]`;
    /// workgroup ids in s15 (1-D grid), s14-s15 (2-D: gy > 1) or s13-s15 (3-D: gy > 1 and
    /// gz > 1); v0 = x for a 1-D block, else z << 20 | y << 10 | x; 64 KiB of LDS.
    pub fn remu(
        code: &'a [u8],
        code_addr: u64,
        grid: [u32; 3],
        block: [u32; 3],
        kernarg: u64,
    ) -> RawDispatch<'a> {
        let dims = match (grid[1] != 1, grid[2] != 1) {
            (true, true) => 3,
            (true, false) => 2,
            _ => 1,
        };
        let tidig = if block[1] != 1 || block[2] != 1 { 2 } else { 0 };
        let rsrc2 = (16 - dims) << 1 // USER_SGPR_COUNT
            | 1 << 7 // TGID_X_EN
            | ((dims >= 2) as u32) << 8
            | ((dims == 3) as u32) << 9
            | tidig << 11;
        RawDispatch {
            name: "run_asm".into(),
            wave_size: 32,
            rsrc2,
            lds_bytes: Some(64 * 1024),
            user_sgprs: vec![kernarg as u32, (kernarg >> 32) as u32],
            ..RawDispatch::new(code, code_addr, Gpu::GFX1100, grid, block)
        }
    }

    fn resolved_wave_size(&self) -> u32 {
        match self.wave_size {
            0 => Target::new(self.gpu).wave_size,
            n => n,
        }
    }
}

/// Translators cached by code content.
pub(crate) struct RawCodeCache {
    entries: Mutex<Vec<CachedCode>>,
    tick: AtomicU64,
}

struct CachedCode {
    hash: u64,
    bytes: Vec<u8>,
    key: (Gpu, u32, Engine),
    translator: Arc<Translator>,
    last_use: u64,
}

/// Kernels whose translations a device keeps (least recently used beyond that are dropped).
pub const RAW_CACHE_CAPACITY: usize = 64;

/// A fast non-cryptographic hash of code bytes (hits are confirmed by comparing the bytes).
fn code_hash(b: &[u8]) -> u64 {
    let mut h = b.len() as u64 ^ 0x9E37_79B9_7F4A_7C15;
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let v = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        h = (h.rotate_left(5) ^ v).wrapping_mul(0x51_7C_C1_B7_27_22_0A_95);
    }
    for &x in words.remainder() {
        h = (h.rotate_left(5) ^ x as u64).wrapping_mul(0x51_7C_C1_B7_27_22_0A_95);
    }
    h
}

impl RawCodeCache {
    pub(crate) fn new() -> RawCodeCache {
        RawCodeCache {
            entries: Mutex::new(Vec::new()),
            tick: AtomicU64::new(0),
        }
    }

    /// The translator for `code` (created on a miss), and whether it was cached.
    fn translator(
        &self,
        code: &[u8],
        gpu: Gpu,
        wave_size: u32,
        engine: Engine,
    ) -> Result<Arc<Translator>, Error> {
        let hash = code_hash(code);
        let key = (gpu, wave_size, engine);
        let now = self.tick.fetch_add(1, Ordering::Relaxed);
        let mut es = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = es
            .iter_mut()
            .find(|e| e.hash == hash && e.key == key && e.bytes == code)
        {
            e.last_use = now;
            return Ok(e.translator.clone());
        }
        let t = Arc::new(
            Translator::new(Target { gpu, wave_size }, engine)
                .map_err(|e| Error::Usage(format!("cannot translate for {gpu}: {e}")))?,
        );
        if es.len() >= RAW_CACHE_CAPACITY {
            if let Some(i) = es
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| e.last_use)
                .map(|(i, _)| i)
            {
                es.swap_remove(i);
            }
        }
        es.push(CachedCode {
            hash,
            bytes: code.to_vec(),
            key,
            translator: t.clone(),
            last_use: now,
        });
        Ok(t)
    }

    /// Number of cached translations.
    fn len(&self) -> usize {
        self.entries.lock().map(|e| e.len()).unwrap_or(0)
    }
}

impl Device {
    /// Registers the host range `[ptr, ptr + len)` as device memory: kernels of this device
    /// may load, store and run atomics on it (checked like an allocation; global addresses
    /// are host addresses) until [`Device::unregister_host_memory`]. Errors on a null pointer,
    /// zero length, a range that wraps, or one that overlaps a registered range or an
    /// allocation (registering exactly the same range again is accepted).
    ///
    /// # Safety
    ///
    /// The range must stay valid, writable memory until it is unregistered or the device is
    /// dropped, and nothing may hold Rust references into it while a launch runs.
    pub unsafe fn register_host_memory(&self, ptr: *mut u8, len: usize) -> Result<(), Error> {
        // SAFETY: forwarded to the caller.
        unsafe { self.inner.mem.register_host(ptr as u64, len as u64) }
            .map_err(|e| Error::Usage(e.to_string()))
    }

    /// Unregisters the host range that starts at `ptr` (waits for running launches); false
    /// when none does.
    pub fn unregister_host_memory(&self, ptr: *mut u8) -> bool {
        self.inner.mem.unregister_host(ptr as u64)
    }

    /// Which host memory kernels may reach beyond allocations and registered ranges
    /// ([`HostCheck::Registered`] by default).
    pub fn host_check(&self) -> HostCheck {
        self.inner.mem.host_check()
    }

    /// Sets which host memory kernels may reach.
    ///
    /// # Safety
    ///
    /// [`HostCheck::Mappings`] and [`HostCheck::Auto`] let a kernel write any writable memory
    /// of the process (unmapped and read-only addresses still fault): the caller guarantees
    /// that its kernels address only memory it owns and that no Rust reference to such
    /// memory is live during a launch.
    pub unsafe fn set_host_check(&self, check: HostCheck) {
        // SAFETY: forwarded to the caller.
        unsafe { self.inner.mem.set_host_check(check) }
    }

    /// Runs a raw dispatch to completion. Bad parameters are [`Error::Usage`]; an undefined
    /// or unsupported instruction, a wild address, a runaway wave are [`Error::Fault`] (pc
    /// relative to `code[0]`).
    pub fn dispatch_raw(&self, d: &RawDispatch) -> Result<Report, Error> {
        let wave_size = d.resolved_wave_size();
        if d.code.is_empty() {
            return Err(Error::Usage(format!("kernel {}: no code bytes", d.name)));
        }
        let translator = self
            .inner
            .raw
            .translator(d.code, d.gpu, wave_size, d.engine)?;
        let exec = std::iter::once(0..d.code.len() as u64).collect();
        let code = CodeImage::new(d.code_addr, d.code.to_vec(), exec);
        let launch = RawLaunch {
            name: &d.name,
            gpu: d.gpu,
            wave_size,
            code: &code,
            grid: d.grid,
            block: d.block,
            rsrc1: d.rsrc1,
            rsrc2: d.rsrc2,
            rsrc3: d.rsrc3,
            lds_bytes: d.lds_bytes.unwrap_or(rsrc2_lds_bytes(d.gpu, d.rsrc2)),
            scratch_per_lane: d.scratch_per_lane,
            user_sgprs: &d.user_sgprs,
            threads: d.threads,
            budget: self.inner.budget.load(Ordering::Relaxed),
        };
        let out = launch_raw(&self.inner.mem, &translator, &launch).map_err(|e| match e {
            LaunchError::Usage(m) => Error::Usage(m),
            LaunchError::Fault(f) => Error::Fault(f),
        })?;
        Ok(Report {
            kernel: d.name.clone(),
            engine: d.engine.name().to_string(),
            grid: d.grid,
            block: d.block,
            workgroups: out.workgroups,
            waves: out.waves,
            counters: out.counters,
            translation: out.translation,
            elapsed_ns: out.elapsed_ns,
            interrupted: out.interrupted,
            profile: None,
        })
    }

    /// Number of raw-dispatch translations this device keeps (at most
    /// [`RAW_CACHE_CAPACITY`]).
    pub fn raw_cache_len(&self) -> usize {
        self.inner.raw.len()
    }
}

impl Kernel {
    /// The kernel's explicit arguments read from a raw kernarg segment `bytes` (laid out
    /// as the metadata says): pointers as [`Arg::Pointer`], 4-byte and
    /// smaller by-value arguments as [`Arg::U32`], 8-byte ones as [`Arg::U64`]. Other sizes
    /// (structs by value) are a usage error.
    pub fn args_from_kernarg(&self, bytes: &[u8]) -> Result<Vec<Arg>, Error> {
        let info = self.info();
        let mut out = Vec::new();
        for (i, a) in info.explicit_args().enumerate() {
            let (off, size) = (a.offset as usize, a.size as usize);
            let b = off
                .checked_add(size)
                .and_then(|end| bytes.get(off..end))
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "kernel {}: argument {i} (offset {off}, {size} bytes) lies beyond the {} kernarg bytes given",
                        info.name,
                        bytes.len()
                    ))
                })?;
            let mut v = [0u8; 8];
            v[..size.min(8)].copy_from_slice(&b[..size.min(8)]);
            let v = u64::from_le_bytes(v);
            out.push(match (&a.kind, size) {
                (ArgKind::GlobalBuffer, 8) => Arg::Pointer(v),
                (_, 1..=4) => Arg::U32(v as u32),
                (_, 8) => Arg::U64(v),
                _ => {
                    return Err(Error::Usage(format!(
                        "kernel {}: argument {i} has {size} bytes; raw kernarg bytes support \
                         arguments of 1, 2, 4 or 8 bytes",
                        info.name
                    )))
                }
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gfx1100 `s_endpgm`.
    const ENDPGM: [u8; 4] = [0x00, 0x00, 0xB0, 0xBF];

    #[test]
    fn arch_names_and_aliases() {
        assert_eq!(parse_arch("gfx1100").unwrap(), Gpu::GFX1100);
        assert_eq!(parse_arch("RDNA4").unwrap(), Gpu::GFX1201);
        assert_eq!(parse_arch("cdna4").unwrap(), Gpu::GFX950);
        assert_eq!(parse_arch("gfx942").unwrap(), Gpu::GFX942);
        assert!(matches!(parse_arch("gfx90a"), Err(Error::Usage(_))));
        assert!(matches!(parse_arch(""), Err(Error::Usage(_))));
    }

    #[test]
    fn remu_layout_follows_the_grid_and_block_shape() {
        let d = RawDispatch::remu(&ENDPGM, 0x1000, [4, 1, 1], [64, 1, 1], 0x1234_5678_9abc);
        assert_eq!((d.rsrc2 >> 1) & 0x1f, 15);
        assert_eq!((d.rsrc2 >> 7) & 7, 0b001);
        assert_eq!((d.rsrc2 >> 11) & 3, 0);
        assert_eq!(d.user_sgprs, vec![0x5678_9abc, 0x1234]);
        let d = RawDispatch::remu(&ENDPGM, 0x1000, [4, 2, 1], [8, 8, 1], 0);
        assert_eq!(((d.rsrc2 >> 1) & 0x1f, (d.rsrc2 >> 7) & 7), (14, 0b011));
        assert_eq!((d.rsrc2 >> 11) & 3, 2);
        let d = RawDispatch::remu(&ENDPGM, 0x1000, [4, 2, 3], [8, 1, 2], 0);
        assert_eq!(((d.rsrc2 >> 1) & 0x1f, (d.rsrc2 >> 7) & 7), (13, 0b111));
        // remu counts a grid with gy == 1 as 1-D even when gz > 1.
        let d = RawDispatch::remu(&ENDPGM, 0x1000, [4, 1, 3], [8, 1, 1], 0);
        assert_eq!((d.rsrc2 >> 1) & 0x1f, 15);
    }

    /// gfx942 `vadd` from the corpus as a harness runs it: code bytes from the entry on, the
    /// descriptor's rsrc words, kernarg and buffers in registered host memory.
    #[test]
    fn corpus_kernel_on_registered_host_memory() {
        use wavejit_runtime::dispatch::kernarg::{build_kernargs, ArgValue, Geometry};
        let co = wavejit_runtime::code_object::load(
            include_bytes!("../tests/kernels/gfx942/vadd.hsaco"),
            None,
        )
        .unwrap();
        let k = co.kernels.iter().find(|k| k.name == "vadd").unwrap();
        let end = co
            .exec_ranges
            .iter()
            .find(|r| r.contains(&k.entry))
            .unwrap()
            .end;
        let code = &co.image[k.entry as usize..end as usize];
        let n = 300usize;
        let mut a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
        let mut b: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
        let poison = f32::from_bits(0xA5A5_A5A5);
        let mut c = vec![poison; n + 16];
        let geo = Geometry {
            grid: [5, 1, 1],
            block: [64, 1, 1],
            dynamic_lds: 0,
        };
        let ptr = |v: &mut Vec<f32>| v.as_mut_ptr() as u64;
        let args = [
            ArgValue::Pointer(ptr(&mut a)),
            ArgValue::Pointer(ptr(&mut b)),
            ArgValue::Pointer(ptr(&mut c)),
            ArgValue::I32(n as i32),
        ];
        let mut ka = build_kernargs(k, &args, &geo).unwrap();
        ka.resize(ka.len() + 64, 0);
        let dev = Device::new();
        // SAFETY: the vectors outlive the device's use of them and are only read after the
        // dispatches return.
        unsafe {
            dev.register_host_memory(a.as_mut_ptr() as *mut u8, 4 * n)
                .unwrap();
            dev.register_host_memory(b.as_mut_ptr() as *mut u8, 4 * n)
                .unwrap();
            dev.register_host_memory(c.as_mut_ptr() as *mut u8, 4 * (n + 16))
                .unwrap();
            dev.register_host_memory(ka.as_mut_ptr(), ka.len()).unwrap();
        }
        let kd = &k.descriptor;
        let kaddr = ka.as_ptr() as u64;
        let mut d = RawDispatch::new(code, 0x7000_1000, Gpu::GFX942, geo.grid, geo.block);
        d.rsrc1 = kd.rsrc1;
        d.rsrc2 = kd.rsrc2;
        d.rsrc3 = kd.rsrc3;
        d.user_sgprs = vec![kaddr as u32, (kaddr >> 32) as u32];
        let r = dev.dispatch_raw(&d).unwrap();
        assert_eq!((r.workgroups, r.waves), (5, 5));
        for i in 0..n {
            assert_eq!(c[i], a[i] + b[i], "item {i}");
        }
        assert!(c[n..].iter().all(|x| x.to_bits() == poison.to_bits()));
        // The output unregistered: a fault naming a lane; the memory stays untouched.
        c.fill(poison);
        assert!(dev.unregister_host_memory(c.as_mut_ptr() as *mut u8));
        let Err(Error::Fault(f)) = dev.dispatch_raw(&d) else {
            panic!("expected a fault")
        };
        assert!(f.lane.is_some() && f.instruction.contains("store"), "{f}");
        assert!(c.iter().all(|x| x.to_bits() == poison.to_bits()));
    }

    #[test]
    fn empty_and_undefined_code() {
        let dev = Device::new();
        let d = RawDispatch::new(&ENDPGM, 0x4000, Gpu::GFX1100, [3, 2, 1], [40, 1, 1]);
        let r = dev.dispatch_raw(&d).unwrap();
        assert_eq!((r.workgroups, r.waves), (6, 12));
        // Undefined words: a fault that names the pc, not a crash.
        let bad = [0xFFu8; 16];
        let d = RawDispatch::new(&bad, 0x4000, Gpu::GFX1100, [1, 1, 1], [32, 1, 1]);
        let Err(Error::Fault(f)) = dev.dispatch_raw(&d) else {
            panic!("expected a fault")
        };
        assert_eq!(
            (f.kernel.as_str(), f.pc, f.workgroup, f.wave),
            ("raw", 0, [0; 3], 0)
        );
        assert!(f.cause.contains("decode"), "{f}");
        // The same address with other bytes: a different translation, runs fine.
        let d = RawDispatch::new(&ENDPGM, 0x4000, Gpu::GFX1100, [1, 1, 1], [32, 1, 1]);
        dev.dispatch_raw(&d).unwrap();
        assert_eq!(dev.raw_cache_len(), 2);
        // Bad parameters are usage errors.
        let d = RawDispatch::new(&ENDPGM, 0x4000, Gpu::GFX942, [1, 1, 1], [2048, 1, 1]);
        assert!(matches!(dev.dispatch_raw(&d), Err(Error::Usage(_))));
        let mut d = RawDispatch::new(&ENDPGM, 0x4000, Gpu::GFX942, [1, 1, 1], [64, 1, 1]);
        d.wave_size = 32;
        assert!(matches!(dev.dispatch_raw(&d), Err(Error::Usage(_))));
        let d = RawDispatch::new(&[], 0x4000, Gpu::GFX1100, [1, 1, 1], [32, 1, 1]);
        assert!(matches!(dev.dispatch_raw(&d), Err(Error::Usage(_))));
    }
}
