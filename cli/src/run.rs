//! `wavejit run`: load a code object, build the arguments, launch one kernel, write outputs.

use super::args::{parse_dims, ArgSpec};
use super::progress::{self, INTERRUPTED_EXIT};
use super::{io_err, read_file, CliError, CliResult};
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use wavejit::{Arg, Buffer, Device, Engine, Launch, LaunchControl, Observe, Report};

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
    /// Profile the launch: write per-instruction and per-block counts with the cycle
    /// estimate as JSON to this file (docs/profiling.md).
    #[arg(long, value_name = "FILE.json")]
    pub profile: Option<PathBuf>,
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

/// Runs the kernel: writes outputs, the stats and profile files and the summary line.
/// A launch stopped by Ctrl-C still writes them (partial counts, marked interrupted) and
/// exits with [`INTERRUPTED_EXIT`].
pub fn run(a: &RunArgs, out: &mut dyn Write) -> CliResult<ExitCode> {
    let report = launch(a, a.profile.is_some())?;
    if let (Some(p), Some(prof)) = (&a.profile, &report.profile) {
        std::fs::write(p, prof.to_json() + "\n")
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
    .map_err(io_err)?;
    if report.interrupted {
        let groups: u64 = report.grid.iter().map(|&g| u64::from(g)).product();
        eprintln!(
            "interrupted: {} of {groups} workgroups ran; the counters cover those",
            report.workgroups
        );
        return Ok(ExitCode::from(INTERRUPTED_EXIT));
    }
    Ok(ExitCode::SUCCESS)
}

/// Loads, launches (profiled when `profile`, with a progress line and Ctrl-C handling) and
/// writes the output buffers and the stats file; returns the report.
pub fn launch(a: &RunArgs, profile: bool) -> CliResult<Report> {
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
    let control = Arc::new(LaunchControl::new());
    progress::install_ctrlc(&control);
    let obs = Observe {
        profile,
        control: Some(control.clone()),
    };
    let report = progress::while_running(&control, || dev.launch_observed(&kernel, &launch, &obs))?;
    for (b, path) in outputs {
        std::fs::write(path, dev.read(b)?)
            .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))?;
    }
    if let Some(p) = &a.stats {
        std::fs::write(p, report.to_json() + "\n")
            .map_err(|e| CliError(format!("cannot write {}: {e}", p.display())))?;
    }
    Ok(report)
}
