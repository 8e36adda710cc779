//! Memory-bound Triton rows of `wavejit bench`: row-wise softmax and layer norm, the Triton
//! kernels of the test corpus (`tests/kernels/triton/kernels.py`, AOT-compiled by
//! `tests/kernels/triton/build.py`), each next to a host-native version and a host memcpy of
//! the same bytes in the same run, and checked against the host result.

use super::{
    host_row, measure, time_host, time_memcpy, wavejit_row, BenchConfig, BenchRow, Reference, Work,
};
use wavejit::{Arg, Device, Engine, Error, Launch};

/// A Triton build of one kernel: target, wave size, code object and launch file.
struct TritonBuild {
    gpu: &'static str,
    wave: u32,
    object: &'static [u8],
    json: &'static str,
}

macro_rules! triton_build {
    ($gpu:literal, $wave:literal, $name:literal) => {
        TritonBuild {
            gpu: $gpu,
            wave: $wave,
            object: include_bytes!(concat!(
                "../../../tests/kernels/triton/",
                $gpu,
                "/",
                $name,
                ".hsaco"
            )),
            json: include_str!(concat!(
                "../../../tests/kernels/triton/",
                $gpu,
                "/",
                $name,
                ".json"
            )),
        }
    };
}

/// The softmax builds measured: CDNA3 wave64 and RDNA3 wave32.
const SOFTMAX: [TritonBuild; 2] = [
    triton_build!("gfx942", 64, "softmax_f32"),
    triton_build!("gfx1100", 32, "softmax_f32"),
];

/// The layer-norm builds measured.
const LAYERNORM: [TritonBuild; 2] = [
    triton_build!("gfx942", 64, "layernorm_f32"),
    triton_build!("gfx1100", 32, "layernorm_f32"),
];

/// What a Triton launch file says that a launch needs.
struct LaunchFile {
    kernel: String,
    block: u32,
    shared: u32,
    trailing: u64,
    block_cols: usize,
}

impl LaunchFile {
    fn parse(json: &str) -> Result<LaunchFile, Error> {
        let bad = |what: &str| Error::Usage(format!("Triton launch file: no {what}"));
        let v: serde_json::Value = serde_json::from_str(json)
            .map_err(|e| Error::Usage(format!("Triton launch file: {e}")))?;
        let num = |x: &serde_json::Value, what: &str| x.as_u64().ok_or_else(|| bad(what));
        Ok(LaunchFile {
            kernel: v["kernel"].as_str().ok_or_else(|| bad("kernel"))?.into(),
            block: u32::try_from(num(&v["block"][0], "block")?).map_err(|_| bad("block"))?,
            shared: u32::try_from(num(&v["shared"], "shared")?).map_err(|_| bad("shared"))?,
            trailing: num(&v["trailing_pointer_args"], "trailing_pointer_args")?,
            block_cols: num(&v["constexprs"]["BLOCK"], "BLOCK")? as usize,
        })
    }

    /// One program per row; `args` then Triton's trailing scratch pointers (unused here).
    fn launch(&self, dev: &Device, rows: usize, args: Vec<Arg>) -> Result<Launch, Error> {
        let mut l = Launch::new([rows as u32, 1, 1], [self.block, 1, 1]).dynamic_lds(self.shared);
        for a in args {
            l = l.arg(a);
        }
        for _ in 0..self.trailing {
            l = l.arg(Arg::Buffer(dev.alloc(256)?));
        }
        Ok(l)
    }
}

/// Rows of the Triton benchmarks: a sixteenth of the vector-add elements (4 Mi floats by
/// default, 16 MiB in and out: past the host's last-level cache) in rows of `cols`.
fn rows_of(cfg: &BenchConfig, cols: usize) -> usize {
    (cfg.vadd_elems / 16 / cols).max(1)
}

/// Test input: values in [-8, 8) varying along and across rows (no zeros in a row).
fn input(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i.wrapping_mul(2_654_435_761) >> 7) % 16_001) as f32 / 1000.0 - 8.0 + 0.0005)
        .collect()
}

/// Whether `got` is within `rel` of `want` (relative to the larger magnitude, or `abs`).
fn close(got: f32, want: f32, rel: f32, abs: f32) -> bool {
    let d = (got - want).abs();
    d <= abs || d <= rel * got.abs().max(want.abs())
}

/// Compares a wavejit result with the host's, element by element, within `rel` (relative)
/// or `abs`.
fn check(
    what: &str,
    build: &TritonBuild,
    got: &[u8],
    want: &[f32],
    (rel, abs): (f32, f32),
) -> Result<(), Error> {
    let got: Vec<f32> = got
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if got.len() != want.len() {
        return Err(Error::WrongResult(format!(
            "{what} benchmark ({} w{}): {} elements, the host has {}",
            build.gpu,
            build.wave,
            got.len(),
            want.len()
        )));
    }
    match got
        .iter()
        .zip(want)
        .position(|(&g, &w)| !close(g, w, rel, abs))
    {
        None => Ok(()),
        Some(i) => Err(Error::WrongResult(format!(
            "{what} benchmark ({} w{}): wavejit result differs from the host at element {i}: \
             {} (host {})",
            build.gpu, build.wave, got[i], want[i]
        ))),
    }
}

/// Runs `f(x_rows, y_rows)` on `threads` threads (0 = all), each on a share of the
/// `cols`-wide rows of `x` and the same rows of `y`.
fn host_rows(
    x: &[f32],
    y: &mut [f32],
    cols: usize,
    threads: usize,
    f: impl Fn(&[f32], &mut [f32]) + Sync,
) {
    let rows = x.len() / cols;
    let per = rows.div_ceil(super::host_threads(threads)).max(1) * cols;
    std::thread::scope(|s| {
        for (xs, ys) in x.chunks(per).zip(y.chunks_mut(per)) {
            let f = &f;
            s.spawn(move || f(xs, ys));
        }
    });
}

/// Host softmax of each `cols`-wide row of `x` into `y` (f32, the kernel's algorithm).
fn softmax_host(x: &[f32], y: &mut [f32], cols: usize, threads: usize) {
    host_rows(x, y, cols, threads, |x, y| {
        for (xs, ys) in x.chunks_exact(cols).zip(y.chunks_exact_mut(cols)) {
            let m = xs.iter().fold(f32::NEG_INFINITY, |a, &v| a.max(v));
            let mut s = 0f32;
            for (o, &v) in ys.iter_mut().zip(xs) {
                *o = (v - m).exp();
                s += *o;
            }
            let inv = 1.0 / s;
            for o in ys.iter_mut() {
                *o *= inv;
            }
        }
    });
}

/// Host layer norm of each `cols`-wide row (biased variance, as the kernel).
fn layernorm_host(x: &[f32], w: &[f32], b: &[f32], y: &mut [f32], eps: f32, threads: usize) {
    let cols = w.len();
    host_rows(x, y, cols, threads, |x, y| {
        for (xs, ys) in x.chunks_exact(cols).zip(y.chunks_exact_mut(cols)) {
            let mean = xs.iter().sum::<f32>() / cols as f32;
            let var = xs.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / cols as f32;
            let rstd = 1.0 / (var + eps).sqrt();
            for c in 0..cols {
                ys[c] = (xs[c] - mean) * rstd * w[c] + b[c];
            }
        }
    });
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `softmax`: Triton's row-wise softmax over rows of its BLOCK (256) columns.
pub(super) fn bench_softmax(cfg: &BenchConfig) -> Result<Vec<BenchRow>, Error> {
    let cols = LaunchFile::parse(SOFTMAX[0].json)?.block_cols;
    let rows = rows_of(cfg, cols);
    let n = rows * cols;
    let work = Work {
        lane_ops: n as f64,
        bytes: (n * 8) as f64,
    };
    let x = input(n);
    let mut y = vec![0f32; n];
    softmax_host(&x, &mut y, cols, cfg.threads);
    let native_t = time_host(cfg, |threads| {
        softmax_host(&x, &mut y, cols, threads);
        Ok(())
    })?;
    let memcpy = time_memcpy(cfg, n * 8)?;
    let reference = Reference::new(&native_t, Some(&memcpy));
    let mut out = vec![
        host_row(
            cfg,
            "softmax",
            "native host (Rust)",
            &native_t,
            work,
            reference,
        ),
        host_row(cfg, "softmax", "host memcpy", &memcpy, work, reference),
    ];
    let xb = f32_bytes(&x);
    for build in &SOFTMAX {
        let lf = LaunchFile::parse(build.json)?;
        if lf.block_cols != cols {
            return Err(Error::Usage("softmax builds differ in BLOCK".into()));
        }
        let dev = Device::new();
        let kernel = dev.load_module(build.object)?.kernel(&lf.kernel)?;
        let (bi, bo) = (dev.alloc_from(&xb)?, dev.alloc(n * 4)?);
        let c = cols as i32;
        let launch = lf
            .launch(
                &dev,
                rows,
                vec![
                    Arg::Buffer(bo),
                    Arg::Buffer(bi),
                    Arg::I32(c),
                    Arg::I32(c),
                    Arg::I32(c),
                ],
            )?
            .engine(Engine::Jit)
            .threads(cfg.threads);
        let m = measure(cfg, &dev, &kernel, &launch)?;
        // Outputs near 1/256: a relative bound (the exp of the kernel and the host's differ
        // in the last bits).
        check("softmax", build, &dev.read(bo)?, &y, (2e-5, 1e-9))?;
        out.push(wavejit_row(
            cfg,
            "softmax",
            (build.gpu, build.wave),
            None,
            &m,
            work,
            reference,
        ));
    }
    Ok(out)
}

/// `layernorm`: Triton's layer norm over rows of its BLOCK (512) columns, with per-column
/// weight and bias.
pub(super) fn bench_layernorm(cfg: &BenchConfig) -> Result<Vec<BenchRow>, Error> {
    let cols = LaunchFile::parse(LAYERNORM[0].json)?.block_cols;
    let rows = rows_of(cfg, cols);
    let n = rows * cols;
    let eps = 1e-5f32;
    let work = Work {
        lane_ops: n as f64,
        bytes: (n * 8) as f64,
    };
    let x = input(n);
    let w: Vec<f32> = (0..cols).map(|c| 0.5 + (c % 97) as f32 / 97.0).collect();
    let b: Vec<f32> = (0..cols).map(|c| (c % 31) as f32 / 31.0 - 0.5).collect();
    let mut y = vec![0f32; n];
    layernorm_host(&x, &w, &b, &mut y, eps, cfg.threads);
    let native_t = time_host(cfg, |threads| {
        layernorm_host(&x, &w, &b, &mut y, eps, threads);
        Ok(())
    })?;
    let memcpy = time_memcpy(cfg, n * 8)?;
    let reference = Reference::new(&native_t, Some(&memcpy));
    let mut out = vec![
        host_row(
            cfg,
            "layernorm",
            "native host (Rust)",
            &native_t,
            work,
            reference,
        ),
        host_row(cfg, "layernorm", "host memcpy", &memcpy, work, reference),
    ];
    let (xb, wb, bb) = (f32_bytes(&x), f32_bytes(&w), f32_bytes(&b));
    for build in &LAYERNORM {
        let lf = LaunchFile::parse(build.json)?;
        if lf.block_cols != cols {
            return Err(Error::Usage("layernorm builds differ in BLOCK".into()));
        }
        let dev = Device::new();
        let kernel = dev.load_module(build.object)?.kernel(&lf.kernel)?;
        let (bx, by) = (dev.alloc_from(&xb)?, dev.alloc(n * 4)?);
        let (bw, bbias) = (dev.alloc_from(&wb)?, dev.alloc_from(&bb)?);
        let c = cols as i32;
        let launch = lf
            .launch(
                &dev,
                rows,
                vec![
                    Arg::Buffer(bx),
                    Arg::Buffer(by),
                    Arg::Buffer(bw),
                    Arg::Buffer(bbias),
                    Arg::I32(c),
                    Arg::I32(c),
                    Arg::F32(eps),
                ],
            )?
            .engine(Engine::Jit)
            .threads(cfg.threads);
        let m = measure(cfg, &dev, &kernel, &launch)?;
        // Outputs of order 1, from f32 sums in another order than the host's (the mean's
        // error shows absolutely in outputs near 0): the corpus test's bounds.
        check("layernorm", build, &dev.read(by)?, &y, (1e-4, 1e-5))?;
        out.push(wavejit_row(
            cfg,
            "layernorm",
            (build.gpu, build.wave),
            None,
            &m,
            work,
            reference,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both Triton workloads on a few rows: every build's result matches the host's (the
    /// workloads return `WrongResult` otherwise), and the rows are native, memcpy and one per
    /// build.
    #[test]
    fn triton_rows_match_the_host() {
        let cfg = BenchConfig {
            vadd_elems: 4 * 512 * 24,
            samples: 1,
            threads: 2,
            ..BenchConfig::quick()
        };
        for rows in [bench_softmax(&cfg), bench_layernorm(&cfg)] {
            let rows = rows.expect("runs and matches the host");
            assert_eq!(rows.len(), 2 + SOFTMAX.len());
            assert!(rows
                .iter()
                .all(|r| r.time.as_nanos() > 0 && r.memcpy_time.is_some()));
        }
    }

    /// The check rejects a result one element of which is off by more than its bound.
    #[test]
    fn check_finds_a_wrong_element() {
        let want = [1.0f32, -2.0, 3.5e-3];
        let mut got = f32_bytes(&want);
        let bound = (2e-5, 1e-9);
        assert!(check("t", &SOFTMAX[0], &got, &want, bound).is_ok());
        got[4..8].copy_from_slice(&(-2.001f32).to_le_bytes());
        assert!(matches!(
            check("t", &SOFTMAX[0], &got, &want, bound),
            Err(Error::WrongResult(_))
        ));
        assert!(check("t", &SOFTMAX[0], &got[..8], &want, bound).is_err());
    }
}
