//! wavejit as an execution backend from Rust: load a code object, run a kernel on device
//! buffers, check the result on the host, and read a kernel fault as structured data.
//!
//! `cargo run --release --example embed [CODE_OBJECT]` (default: the corpus's gfx942 `vadd`,
//! `vadd(const float* a, const float* b, float* c, int n)`).

use std::process::ExitCode;

use wavejit::{Arg, Device, Error, Launch};

const VADD_GFX942: &[u8] = include_bytes!("../tests/kernels/gfx942/vadd.hsaco");

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn run(code: &[u8]) -> Result<(), Error> {
    let dev = Device::new();
    let module = dev.load_module(code)?;
    let vadd = module.kernel("vadd")?;

    let n = 10_000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32).collect();
    let (da, db) = (
        dev.alloc_from(&f32_bytes(&a))?,
        dev.alloc_from(&f32_bytes(&b))?,
    );
    // The output starts poisoned, so an element the kernel does not write shows up.
    let dc = dev.alloc_from(&vec![0xA5; 4 * n])?;

    let launch = Launch::new([(n as u32).div_ceil(256), 1, 1], [256, 1, 1])
        .arg(Arg::Buffer(da))
        .arg(Arg::Buffer(db))
        .arg(Arg::Buffer(dc))
        .arg(Arg::I32(n as i32));
    let report = dev.launch(&vadd, &launch)?;
    let out = dev.read(dc)?;
    let wrong = (0..n)
        .filter(|&i| {
            let got = f32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
            got != a[i] + b[i]
        })
        .count();
    println!(
        "vadd: {n} elements, {} waves, {} wave instructions, {wrong} wrong",
        report.waves,
        report.counters.wave_insts()
    );
    if wrong > 0 {
        return Err(Error::WrongResult(format!(
            "{wrong} elements differ from a + b"
        )));
    }

    // The same kernel told that n is larger than its buffers: the first out-of-range access
    // ends the launch with a fault report instead of touching host memory.
    let bad = Launch::new([1, 1, 1], [256, 1, 1])
        .arg(Arg::Buffer(da))
        .arg(Arg::Buffer(db))
        .arg(Arg::Buffer(dev.alloc(16)?))
        .arg(Arg::I32(256));
    match dev.launch(&vadd, &bad) {
        Err(e) => match e.fault() {
            Some(f) => println!(
                "expected fault in workgroup {:?}, wave {}, lane {:?}: {f}",
                f.workgroup, f.wave, f.lane
            ),
            None => return Err(e),
        },
        Ok(_) => {
            return Err(Error::WrongResult(
                "an out-of-range launch did not fault".into(),
            ))
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let code = match std::env::args_os().nth(1) {
        Some(path) => match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.to_string_lossy());
                return ExitCode::FAILURE;
            }
        },
        None => VADD_GFX942.to_vec(),
    };
    match run(&code) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
