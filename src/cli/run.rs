//! `wavejit run`: load a code object, build the arguments, launch one kernel, write outputs.

use super::args::{parse_dims, ArgSpec};
use super::{io_err, read_file, CliError, CliResult};
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use wavejit::{Arg, Buffer, Device, Engine, Launch};

/// Byte that `out=` buffers are filled with before the run, so unwritten bytes show.
pub const POISON: u8 = 0xA5;

/// Engine choice on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// Cranelift-compiled host code.
    Jit,
    /// The IR interpreter.
    Interp,
}

/// `wavejit run` options.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Code object (AMDGPU ELF or clang offload bundle).
    pub code_object: PathBuf,
    /// Kernel to run (optional when the code object has one kernel).
    #[arg(long)]
    pub kernel: Option<String>,
    /// Workgroups per dimension: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dims)]
    pub grid: [u32; 3],
    /// Work-items per workgroup: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dims)]
    pub block: [u32; 3],
    /// Dynamic LDS bytes added to the kernel's static LDS.
    #[arg(long, default_value_t = 0)]
    pub lds: u32,
    /// Execution engine.
    #[arg(long, value_enum, default_value_t = EngineArg::Jit)]
    pub engine: EngineArg,
    /// Host threads (0 = all available).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Write the launch report as JSON to this file.
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// Kernel arguments in order: in=PATH, out=PATH:BYTES, inout=INPATH:OUTPATH,
    /// i32=V, u32=V, i64=V, u64=V, f32=V, f64=V.
    pub args: Vec<String>,
}

/// A device buffer of `data` (or `len` poison bytes), checking the allocation succeeded.
fn buffer(dev: &Device, data: Option<&[u8]>, len: usize, index: usize) -> CliResult<Buffer> {
    let alloc_err = |e: wavejit::Error| CliError(format!("kernel argument {index}: {e}"));
    match data {
        Some(d) => dev.alloc_from(d).map_err(alloc_err),
        None => {
            let b = dev.alloc(len).map_err(alloc_err)?;
            // Fallible, so an absurd size is an error rather than an abort.
            let mut poison = Vec::new();
            poison.try_reserve_exact(len).map_err(|_| {
                CliError(format!(
                    "kernel argument {index}: cannot allocate {len} bytes of host memory"
                ))
            })?;
            poison.resize(len, POISON);
            dev.write(b, &poison)?;
            Ok(b)
        }
    }
}

/// Runs the kernel.
pub fn run(a: &RunArgs, out: &mut dyn Write) -> CliResult {
    let specs: Vec<ArgSpec> = a
        .args
        .iter()
        .enumerate()
        .map(|(i, s)| ArgSpec::parse(s, i))
        .collect::<Result<_, _>>()?;
    let bytes = read_file(&a.code_object)?;
    let dev = Device::new();
    let module = dev
        .load_module(&bytes)
        .map_err(|e| CliError(format!("{}: {e}", a.code_object.display())))?;
    let names = module.kernel_names().join(", ");
    let kernel = match &a.kernel {
        Some(n) => module
            .kernel(n)
            .map_err(|_| CliError(format!("no kernel named `{n}`; kernels: {names}")))?,
        None => module.only_kernel().map_err(|_| {
            CliError(format!(
                "{} has {} kernels, choose one with --kernel: {names}",
                a.code_object.display(),
                module.kernel_names().len()
            ))
        })?,
    };
    let engine = match a.engine {
        EngineArg::Jit => Engine::Jit,
        EngineArg::Interp => Engine::Interp,
    };
    let mut launch = Launch::new(a.grid, a.block)
        .engine(engine)
        .threads(a.threads)
        .dynamic_lds(a.lds);
    // Buffers copied back to files after the run.
    let mut outputs: Vec<(Buffer, &PathBuf)> = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        let arg = match s {
            ArgSpec::In(p) => {
                let d = read_file(p)?;
                Arg::Buffer(buffer(&dev, Some(&d), d.len(), i)?)
            }
            ArgSpec::Out(p, n) => {
                let b = buffer(&dev, None, *n, i)?;
                outputs.push((b, p));
                Arg::Buffer(b)
            }
            ArgSpec::InOut(inp, outp) => {
                let d = read_file(inp)?;
                let b = buffer(&dev, Some(&d), d.len(), i)?;
                outputs.push((b, outp));
                Arg::Buffer(b)
            }
            ArgSpec::I32(v) => Arg::I32(*v),
            ArgSpec::U32(v) => Arg::U32(*v),
            ArgSpec::I64(v) => Arg::I64(*v),
            ArgSpec::U64(v) => Arg::U64(*v),
            ArgSpec::F32(v) => Arg::F32(*v),
            ArgSpec::F64(v) => Arg::F64(*v),
        };
        launch = launch.arg(arg);
    }
    let report = dev.launch(&kernel, &launch)?;
    for (b, path) in outputs {
        std::fs::write(path, dev.read(b)?)
            .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))?;
    }
    if let Some(p) = &a.stats {
        std::fs::write(p, report.to_json() + "\n")
            .map_err(|e| CliError(format!("cannot write {}: {e}", p.display())))?;
    }
    let c = &report.counters;
    writeln!(
        out,
        "{} ({}): {} workgroups, {} waves, {} wave instructions, {:.3} ms",
        report.kernel,
        report.engine,
        report.workgroups,
        report.waves,
        c.wave_insts(),
        report.elapsed_ns as f64 / 1e6
    )
    .map_err(io_err)
}
