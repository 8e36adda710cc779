//! wavejit: run AMD GPU machine code on the host CPU.
//!
//! ```no_run
//! use wavejit::{Arg, Device, Engine, Launch};
//! let dev = Device::new();
//! let module = dev.load_module(&std::fs::read("k.hsaco").unwrap()).unwrap();
//! let kernel = module.kernel("vadd").unwrap();
//! let a = dev.alloc_from(&[1u8; 1024]);
//! let b = dev.alloc_from(&[2u8; 1024]);
//! let c = dev.alloc(1024);
//! let launch = Launch::new([1, 1, 1], [256, 1, 1])
//!     .arg(Arg::Buffer(a)).arg(Arg::Buffer(b)).arg(Arg::Buffer(c)).arg(Arg::U32(256));
//! let report = dev.launch(&kernel, &launch).unwrap();
//! let out = dev.read(c);
//! # let _ = (report, out, Engine::Jit);
//! ```
//!
//! CONTRACT SKETCH (implementation pending): the types and signatures below are the public API.

use thiserror::Error;

/// Errors of the public API: a clear one-paragraph message for each.
#[derive(Debug, Error)]
pub enum Error {
    /// The code object could not be loaded.
    #[error("{0}")]
    Load(String),
    /// Wrong kernel name or arguments.
    #[error("{0}")]
    Usage(String),
    /// The kernel faulted; the message names kernel, workgroup, wave, lane, pc and instruction.
    #[error("{0}")]
    Fault(String),
}

/// Which engine executes translated blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Engine {
    /// Cranelift-compiled host code (default).
    #[default]
    Jit,
    /// The IR interpreter.
    Interp,
}

/// A device buffer: an allocation in the device's checked memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// Device address (a host address in wavejit).
    pub addr: u64,
    /// Size in bytes.
    pub len: usize,
}

/// A kernel argument, in kernel-argument order.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A pointer to a device buffer.
    Buffer(Buffer),
    /// By-value i32.
    I32(i32),
    /// By-value u32.
    U32(u32),
    /// By-value i64.
    I64(i64),
    /// By-value u64.
    U64(u64),
    /// By-value f32.
    F32(f32),
    /// By-value f64.
    F64(f64),
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
    /// Explicit kernel arguments.
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

pub mod corpus;
