//! The `wavejit` command line: `run`, `disasm`, `info`, `bench`, `demo`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
