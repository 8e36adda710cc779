//! Test harness for the kernel corpus: a device context per engine, poisoned outputs, seeded
//! inputs, recorded outputs and counters (for the interpreter-vs-JIT differential test), and
//! comparison helpers that report the first mismatches compactly.

use std::cell::RefCell;
use wavejit::{Arg, Buffer, Counters, Device, Engine, Kernel, Launch, Report};

/// Byte used to poison every output buffer before a launch.
pub const POISON: u8 = 0xA5;

/// Plain little-endian element types the kernels read and write.
pub trait Elem: Copy + PartialEq + std::fmt::Debug {
    /// Size in bytes.
    const SIZE: usize;
    /// Appends the little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Reads from exactly `SIZE` little-endian bytes.
    fn get(b: &[u8]) -> Self;
    /// Bit pattern (for exact float comparison and messages).
    fn bits(self) -> u64;
}

macro_rules! elem {
    ($($t:ty => $bits:expr),* $(,)?) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().unwrap())
            }
            fn bits(self) -> u64 {
                let f: fn($t) -> u64 = $bits;
                f(self)
            }
        }
    )*};
}
elem!(
    u8 => |v| v as u64, i8 => |v| v as u8 as u64, u16 => |v| v as u64, i16 => |v| v as u16 as u64,
    u32 => |v| v as u64, i32 => |v| v as u32 as u64, u64 => |v| v, i64 => |v| v as u64,
    f32 => |v| v.to_bits() as u64, f64 => |v| v.to_bits(),
);

/// Serialises a slice of elements.
pub fn to_bytes<T: Elem>(v: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * T::SIZE);
    for &x in v {
        x.put(&mut out);
    }
    out
}

/// Deserialises (trailing partial elements are ignored).
pub fn from_bytes<T: Elem>(b: &[u8]) -> Vec<T> {
    b.chunks_exact(T::SIZE).map(T::get).collect()
}

/// SplitMix64: a small seeded generator (inputs are reproducible from the seed).
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// Next 64 random bits.
    pub fn u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Next 32 random bits.
    pub fn u32(&mut self) -> u32 {
        (self.u64() >> 32) as u32
    }
    /// Uniform in `lo..hi` (hi > lo).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.u64() % (hi - lo) as u64) as i64
    }
    /// A normal f32 with magnitude in [2^lo_exp, 2^hi_exp), random sign and mantissa.
    pub fn f32_mag(&mut self, lo_exp: i32, hi_exp: i32) -> f32 {
        let e = self.range(lo_exp as i64, hi_exp as i64) as i32;
        let bits =
            (((e + 127) as u32) << 23) | (self.u32() & 0x7F_FFFF) | (self.u32() & 0x8000_0000);
        f32::from_bits(bits)
    }
    /// A normal f64 with magnitude in [2^lo_exp, 2^hi_exp), random sign and mantissa.
    pub fn f64_mag(&mut self, lo_exp: i32, hi_exp: i32) -> f64 {
        let e = self.range(lo_exp as i64, hi_exp as i64);
        let bits =
            (((e + 1023) as u64) << 52) | (self.u64() & ((1 << 52) - 1)) | (self.u64() & (1 << 63));
        f64::from_bits(bits)
    }
}

/// What one case run produced: output buffers and the counters of each launch.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// (label, bytes) of every buffer the case read back, in order.
    pub outputs: Vec<(String, Vec<u8>)>,
    /// Counters of every launch, in order.
    pub counters: Vec<Counters>,
}

/// A device plus the engine and mode a case runs under.
pub struct Ctx {
    /// The device.
    pub dev: Device,
    /// Engine for every launch.
    pub engine: Engine,
    /// Which build of the corpus objects the kernels come from: `"gfx942"`, `"gfx950"`, or an
    /// RDNA target of `super::rdna::TARGETS`.
    pub target: &'static str,
    /// Wave size of that build (64 for CDNA and the RDNA `w64` builds, else 32).
    pub wave: u32,
    /// Host threads per launch (0 = all).
    pub threads: usize,
    /// Strict: result mismatches panic. Non-strict (differential mode): only recorded outputs
    /// matter, mismatches against the host reference are left to the per-engine tests.
    pub strict: bool,
    /// Profile every launch (`wavejit::Observe::profile`); the profile's summed counts must
    /// equal the launch's wave-instruction counter.
    pub profile: bool,
    outcome: RefCell<Outcome>,
}

impl Ctx {
    /// A strict context for `engine` running the gfx942 builds.
    pub fn new(engine: Engine) -> Ctx {
        Ctx::on(engine, "gfx942")
    }

    /// A strict context for `engine` running the `target` builds (see `wavejit_workloads::corpus::TARGETS`).
    pub fn on(engine: Engine, target: &'static str) -> Ctx {
        Ctx {
            dev: Device::new(),
            engine,
            target,
            wave: if target.starts_with("gfx9") || target.ends_with("w64") {
                64
            } else {
                32
            },
            threads: 0,
            strict: true,
            profile: false,
            outcome: RefCell::default(),
        }
    }

    /// A non-strict single-threaded context (deterministic wave order) for the differential test.
    pub fn differential(engine: Engine, target: &'static str) -> Ctx {
        Ctx {
            threads: 1,
            strict: false,
            ..Ctx::on(engine, target)
        }
    }

    /// The recorded outputs and counters.
    pub fn take(&self) -> Outcome {
        self.outcome.take()
    }

    /// Loads the corpus kernel `name` from the `target` build of the bundled object that
    /// defines it.
    pub fn kernel(&self, name: &str) -> Kernel {
        let obj = wavejit_workloads::corpus::object_for_kernel(name)
            .unwrap_or_else(|| panic!("no corpus object defines kernel {name}"));
        let bytes = obj
            .for_target(self.target)
            .or_else(|| super::rdna::object(self.target, obj.name))
            .unwrap_or_else(|| panic!("no {} build of {}", self.target, obj.name));
        let module = self
            .dev
            .load_module(bytes)
            .unwrap_or_else(|e| panic!("loading {} ({}): {e}", obj.name, self.target));
        module.kernel(name).unwrap_or_else(|e| panic!("{e}"))
    }

    /// An input buffer holding `data`.
    pub fn input<T: Elem>(&self, data: &[T]) -> Buffer {
        self.dev.alloc_from(&to_bytes(data)).unwrap()
    }

    /// An output buffer of `n` elements of `T`, poisoned with 0xA5 bytes.
    pub fn output<T: Elem>(&self, n: usize) -> Buffer {
        self.dev.alloc_from(&vec![POISON; n * T::SIZE]).unwrap()
    }

    /// Launches `kernel` on `grid` workgroups of `block` work-items; panics with the error text
    /// on failure. Records the counters.
    pub fn launch(
        &self,
        kernel: &Kernel,
        grid: [u32; 3],
        block: [u32; 3],
        args: Vec<Arg>,
    ) -> Report {
        self.launch_lds(kernel, grid, block, 0, args)
    }

    /// `launch` with `dynamic_lds` bytes of dynamic LDS per workgroup.
    pub fn launch_lds(
        &self,
        kernel: &Kernel,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_lds: u32,
        args: Vec<Arg>,
    ) -> Report {
        let mut l = Launch::new(grid, block)
            .dynamic_lds(dynamic_lds)
            .engine(self.engine)
            .threads(self.threads);
        for a in args {
            l = l.arg(a);
        }
        let obs = wavejit::Observe {
            profile: self.profile,
            control: None,
        };
        let report = self
            .dev
            .launch_observed(kernel, &l, &obs)
            .unwrap_or_else(|e| {
                panic!(
                    "{} under {:?}: launch failed: {e}",
                    kernel.name(),
                    self.engine
                )
            });
        if self.strict {
            // Independent shape checks: one workgroup per grid point, ceil(threads / wave size)
            // waves each.
            let wgs: u64 = grid.iter().map(|&g| g as u64).product();
            let waves =
                wgs * (block.iter().map(|&b| b as u64).product::<u64>()).div_ceil(self.wave as u64);
            assert_eq!(
                (report.workgroups, report.waves),
                (wgs, waves),
                "{}: workgroups, waves",
                kernel.name()
            );
            assert_eq!(
                (report.grid, report.block),
                (grid, block),
                "{}: grid, block",
                kernel.name()
            );
        }
        if let Some(p) = &report.profile {
            let counted: u64 = p.instructions.iter().map(|i| i.count).sum();
            assert_eq!(
                counted,
                report.counters.wave_insts(),
                "{}: profiled instructions",
                kernel.name()
            );
        }
        self.outcome
            .borrow_mut()
            .counters
            .push(report.counters.clone());
        report
    }

    /// Reads `buf` back as elements of `T`, recording its bytes under `label`.
    pub fn read<T: Elem>(&self, label: &str, buf: Buffer) -> Vec<T> {
        let bytes = self.dev.read(buf).unwrap();
        let v = from_bytes(&bytes);
        self.outcome
            .borrow_mut()
            .outputs
            .push((label.to_string(), bytes));
        v
    }

    /// Requires `got == want` element by element (bitwise for floats); the panic message names
    /// the label, the number of mismatches and the first few with their indices.
    pub fn expect_eq<T: Elem>(&self, label: &str, got: &[T], want: &[T]) {
        self.expect_close(label, got, want, |g, w| g.bits() == w.bits());
    }

    /// Like `expect_eq` with a custom element predicate.
    pub fn expect_close<T: Elem>(
        &self,
        label: &str,
        got: &[T],
        want: &[T],
        mut ok: impl FnMut(T, T) -> bool,
    ) {
        if !self.strict {
            return;
        }
        assert_eq!(got.len(), want.len(), "{label}: length");
        let bad: Vec<usize> = (0..got.len()).filter(|&i| !ok(got[i], want[i])).collect();
        if !bad.is_empty() {
            let first: Vec<String> = bad
                .iter()
                .take(6)
                .map(|&i| {
                    format!(
                        "[{i}] got {:?} ({:#x}) want {:?} ({:#x})",
                        got[i],
                        got[i].bits(),
                        want[i],
                        want[i].bits()
                    )
                })
                .collect();
            panic!(
                "{label} under {:?}: {} of {} elements differ; first: {}",
                self.engine,
                bad.len(),
                got.len(),
                first.join("; ")
            );
        }
    }
}

/// `n` rounded up to a multiple of `m`, divided by `m` (a grid size in workgroups).
pub fn groups(n: usize, m: u32) -> u32 {
    n.div_ceil(m as usize) as u32
}
