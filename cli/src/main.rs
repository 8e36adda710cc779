//! The `wavejit` command line (clap derive): `run`, `disasm`, `info`, `profile`, `compare`,
//! `bench`, `demo`. Every failure becomes one `error: ...` paragraph on stderr and exit
//! status 1; clap's own usage errors exit with status 2.

mod args;
mod compare;
mod disasm;
mod info;
mod profile;
mod progress;
mod run;

use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A failed command: the message printed after `error: `.
#[derive(Debug)]
pub struct CliError(pub String);

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<wavejit::Error> for CliError {
    fn from(e: wavejit::Error) -> Self {
        CliError(e.to_string())
    }
}

impl From<wavejit_runtime::code_object::LoadError> for CliError {
    fn from(e: wavejit_runtime::code_object::LoadError) -> Self {
        CliError(e.to_string())
    }
}

/// Result of a subcommand.
pub type CliResult<T = ()> = Result<T, CliError>;

/// Runs AMD GPU machine code (AMDGPU code objects) on the host CPU.
#[derive(Parser, Debug)]
#[command(name = "wavejit", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run one kernel of a code object.
    Run(run::RunArgs),
    /// Disassemble the kernels of a code object (llvm-objdump -d layout).
    Disasm {
        /// Code object (AMDGPU ELF or clang offload bundle).
        code_object: PathBuf,
        /// Only this kernel.
        #[arg(long)]
        kernel: Option<String>,
    },
    /// Print the target, code object version and each kernel's ABI.
    Info {
        /// Code object (AMDGPU ELF or clang offload bundle).
        code_object: PathBuf,
    },
    /// Run the built-in benchmarks.
    Bench {
        /// Benchmark options.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Run the built-in demonstration.
    Demo,
    /// Show a profile's hottest blocks (or profile a kernel now); --html writes a report.
    Profile(profile::ProfileArgs),
    /// Compare two stats, profile or bench JSON files; non-zero exit on a regression.
    Compare(compare::CompareArgs),
}

/// Reads a whole file, naming it in the error.
pub fn read_file(path: &Path) -> CliResult<Vec<u8>> {
    std::fs::read(path).map_err(|e| CliError(format!("cannot read {}: {e}", path.display())))
}

/// Loads a code object file with the loader (no device needed).
pub fn load_code_object(path: &Path) -> CliResult<wavejit_runtime::code_object::CodeObject> {
    let bytes = read_file(path)?;
    wavejit_runtime::code_object::load(&bytes, None)
        .map_err(|e| CliError(format!("{}: {e}", path.display())))
}

fn dispatch(cli: Cli) -> CliResult<ExitCode> {
    let mut out = std::io::stdout().lock();
    let done = match cli.command {
        Command::Run(a) => return run::run(&a, &mut out),
        Command::Compare(a) => return compare::compare(&a, &mut out),
        Command::Profile(a) => return profile::profile(&a, &mut out),
        Command::Disasm {
            code_object,
            kernel,
        } => disasm::disasm(&code_object, kernel.as_deref(), &mut out),
        Command::Info { code_object } => info::info(&code_object, &mut out),
        Command::Bench { args } => {
            let table = wavejit_workloads::bench::main(&args)?;
            write!(out, "{table}").map_err(io_err)
        }
        Command::Demo => {
            let table = wavejit_workloads::demo::run()?;
            write!(out, "{table}").map_err(io_err)
        }
    };
    done.map(|()| ExitCode::SUCCESS)
}

/// Parses the command line, runs the command and reports errors.
fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(code) => code,
        // A closed stdout (`wavejit disasm x | head`) ends the command quietly.
        Err(e) if e.0.is_empty() => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Maps an I/O error on stdout to a [`CliError`] (an empty one for a closed pipe).
pub fn io_err(e: std::io::Error) -> CliError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return CliError(String::new());
    }
    CliError(format!("cannot write the output: {e}"))
}
