//! `wavejit demo`: runs a handful of bundled corpus kernels on built-in inputs under the JIT,
//! checks every output against a host computation, and returns a short table.

use crate::corpus;
use std::time::Instant;
use wavejit::{Arg, Buffer, Device, Engine, Error, Launch, Report};

/// Deterministic input generator (xorshift64*).
struct Gen(u64);

impl Gen {
    fn u32(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
    }
    /// A float in [-64, 64) with 16 significant bits.
    fn f32(&mut self) -> f32 {
        (self.u32() >> 16) as f32 / 512.0 - 64.0
    }
}

fn bytes_u32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// One demo row: the kernel, what the launch was, and whether its output matched the host.
struct Row {
    kernel: &'static str,
    about: &'static str,
    report: Report,
    ms: f64,
    mismatches: usize,
    elems: usize,
}

/// A device plus the buffers of the current demo kernel (freed after each row).
struct Demo {
    dev: Device,
    bufs: Vec<Buffer>,
}

impl Demo {
    fn buf(&mut self, data: &[u8]) -> Result<Buffer, Error> {
        let b = self.dev.alloc_from(data)?;
        self.bufs.push(b);
        Ok(b)
    }

    /// An output buffer of `words` u32, poisoned with 0xA5 bytes.
    fn out(&mut self, words: usize) -> Result<Buffer, Error> {
        self.buf(&vec![0xA5; words * 4])
    }

    /// Launches `kernel` under the JIT, reads `outs` back, frees everything, and compares the
    /// concatenated output words with `want`.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        kernel: &'static str,
        about: &'static str,
        grid: [u32; 3],
        block: [u32; 3],
        args: Vec<Arg>,
        outs: &[Buffer],
        want: &[u32],
    ) -> Result<Row, Error> {
        let obj = corpus::object_for_kernel(kernel)
            .ok_or_else(|| Error::Usage(format!("demo: no bundled object defines {kernel}")))?;
        let module = self.dev.load_module(obj.bytes)?;
        let k = module.kernel(kernel)?;
        let mut launch = Launch::new(grid, block).engine(Engine::Jit);
        for a in args {
            launch = launch.arg(a);
        }
        let t0 = Instant::now();
        let result = self.dev.launch(&k, &launch);
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        let mut got: Vec<u32> = Vec::new();
        for b in outs {
            got.extend(words(&self.dev.read(*b)?));
        }
        for b in self.bufs.drain(..) {
            self.dev.free(b)?;
        }
        let report = result?;
        let mismatches = if got.len() == want.len() {
            got.iter().zip(want).filter(|(g, w)| g != w).count()
        } else {
            want.len().max(got.len())
        };
        Ok(Row {
            kernel,
            about,
            report,
            ms,
            mismatches,
            elems: want.len(),
        })
    }
}

/// Runs the demo kernels under the JIT; returns the result table, or an error (whose text
/// includes the table) if any kernel's output differs from the host reference.
pub fn run() -> Result<String, Error> {
    let mut d = Demo {
        dev: Device::new(),
        bufs: Vec::new(),
    };
    let mut g = Gen(0x5EED_1234_ABCD_0001);
    let mut rows = Vec::new();

    // vadd: c = a + b over 100000 floats.
    let n = 100_000usize;
    let a: Vec<f32> = (0..n).map(|_| g.f32()).collect();
    let b: Vec<f32> = (0..n).map(|_| g.f32()).collect();
    let want: Vec<u32> = a.iter().zip(&b).map(|(x, y)| (x + y).to_bits()).collect();
    let (ba, bb, bc) = (d.buf(&bytes_f32(&a))?, d.buf(&bytes_f32(&b))?, d.out(n)?);
    let args = vec![
        Arg::Buffer(ba),
        Arg::Buffer(bb),
        Arg::Buffer(bc),
        Arg::I32(n as i32),
    ];
    rows.push(d.run(
        "vadd",
        "c[i] = a[i] + b[i]",
        [n.div_ceil(256) as u32, 1, 1],
        [256, 1, 1],
        args,
        &[bc],
        &want,
    )?);

    // saxpy: y = alpha * x + y (one fused multiply-add).
    let alpha = 2.5f32;
    let want: Vec<u32> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| alpha.mul_add(*x, *y).to_bits())
        .collect();
    let (bx, by) = (d.buf(&bytes_f32(&a))?, d.buf(&bytes_f32(&b))?);
    let args = vec![
        Arg::F32(alpha),
        Arg::Buffer(bx),
        Arg::Buffer(by),
        Arg::U32(n as u32),
    ];
    rows.push(d.run(
        "saxpy",
        "y[i] = fma(alpha, x[i], y[i])",
        [n.div_ceil(256) as u32, 1, 1],
        [256, 1, 1],
        args,
        &[by],
        &want,
    )?);

    // index2d over a 300 x 200 image in 16 x 16 tiles (partial tiles at the edges).
    let (w, h) = (300usize, 200usize);
    let img: Vec<u32> = (0..w * h).map(|_| g.u32()).collect();
    let want: Vec<u32> = (0..w * h)
        .map(|i| {
            img[i]
                .wrapping_mul(3)
                .wrapping_add(((i % w) as u32) << 16)
                .wrapping_add((i / w) as u32)
        })
        .collect();
    let (bi, bo) = (d.buf(&bytes_u32(&img))?, d.out(w * h)?);
    let args = vec![
        Arg::Buffer(bi),
        Arg::Buffer(bo),
        Arg::U32(w as u32),
        Arg::U32(h as u32),
    ];
    let grid = [w.div_ceil(16) as u32, h.div_ceil(16) as u32, 1];
    rows.push(d.run(
        "index2d",
        "2D grid, partial edge tiles",
        grid,
        [16, 16, 1],
        args,
        &[bo],
        &want,
    )?);

    // lds_reduce: per-workgroup sums, LDS tree over 4 waves with barriers.
    let n = 65_536usize;
    let v: Vec<u32> = (0..n).map(|_| g.u32()).collect();
    let want: Vec<u32> = v
        .chunks(256)
        .map(|c| c.iter().fold(0u32, |s, x| s.wrapping_add(*x)))
        .collect();
    let (bi, bo) = (d.buf(&bytes_u32(&v))?, d.out(want.len())?);
    let args = vec![Arg::Buffer(bi), Arg::Buffer(bo), Arg::U32(n as u32)];
    rows.push(d.run(
        "lds_reduce",
        "LDS tree sum, s_barrier",
        [(n / 256) as u32, 1, 1],
        [256, 1, 1],
        args,
        &[bo],
        &want,
    )?);

    // wave_scan: per-wave inclusive prefix sums with DPP row_shr/row_bcast.
    let want: Vec<u32> = v
        .chunks(64)
        .flat_map(|c| {
            c.iter().scan(0u32, |s, x| {
                *s = s.wrapping_add(*x);
                Some(*s)
            })
        })
        .collect();
    let (bi, bo) = (d.buf(&bytes_u32(&v))?, d.out(n)?);
    let args = vec![Arg::Buffer(bi), Arg::Buffer(bo)];
    rows.push(d.run(
        "wave_scan",
        "DPP wave prefix sum",
        [(n / 256) as u32, 1, 1],
        [256, 1, 1],
        args,
        &[bo],
        &want,
    )?);

    // block_scan: per-workgroup prefix sums in LDS, plus block totals.
    let mut want: Vec<u32> = v
        .chunks(256)
        .flat_map(|c| {
            c.iter().scan(0u32, |s, x| {
                *s = s.wrapping_add(*x);
                Some(*s)
            })
        })
        .collect();
    want.extend(
        v.chunks(256)
            .map(|c| c.iter().fold(0u32, |s, x| s.wrapping_add(*x))),
    );
    let (bi, bo, bt) = (d.buf(&bytes_u32(&v))?, d.out(n)?, d.out(n / 256)?);
    let args = vec![
        Arg::Buffer(bi),
        Arg::Buffer(bo),
        Arg::Buffer(bt),
        Arg::U32(n as u32),
    ];
    rows.push(d.run(
        "block_scan",
        "LDS workgroup scan",
        [(n / 256) as u32, 1, 1],
        [256, 1, 1],
        args,
        &[bo, bt],
        &want,
    )?);

    // atomics: many lanes hitting the same words (add, min, max, ... cmpswap, f32 add).
    let n = 20_000usize;
    let v: Vec<u32> = (0..n).map(|_| g.u32()).collect();
    let vi = |x: &u32| *x as i32;
    let init: [u32; 10] = [
        7,
        i32::MAX as u32,
        i32::MIN as u32,
        u32::MAX,
        0,
        u32::MAX,
        0,
        0x1357_9BDF,
        5,
        0,
    ];
    let mut want = vec![
        v.iter().fold(init[0], |s, x| s.wrapping_add(*x)),
        v.iter().map(vi).min().unwrap_or(i32::MAX) as u32,
        v.iter().map(vi).max().unwrap_or(i32::MIN) as u32,
        v.iter().copied().min().unwrap_or(u32::MAX),
        v.iter().copied().max().unwrap_or(0),
        v.iter().fold(u32::MAX, |s, x| s & (x | 0x0F0F_0F0F)),
        v.iter().fold(0, |s, x| s | (x & 0x00FF_00FF)),
        v.iter().fold(init[7], |s, x| s ^ x),
        v.iter().fold(init[8], |s, x| s + (x & 7)),
        n as u32,
    ];
    want.push((0.5 + v.iter().map(|x| (x & 0xFF) as f32).sum::<f32>()).to_bits());
    let (bi, bc, bt, bf) = (
        d.buf(&bytes_u32(&v))?,
        d.buf(&bytes_u32(&init))?,
        d.out(n)?,
        d.buf(&bytes_f32(&[0.5]))?,
    );
    let args = vec![
        Arg::Buffer(bi),
        Arg::Buffer(bc),
        Arg::Buffer(bt),
        Arg::Buffer(bf),
        Arg::U32(n as u32),
    ];
    rows.push(d.run(
        "atomics",
        "global atomics incl. f32 add",
        [n.div_ceil(256) as u32, 1, 1],
        [256, 1, 1],
        args,
        &[bc, bf],
        &want,
    )?);

    let mut table = format!(
        "{:<11} {:<30} {:>12} {:>7} {:>11} {:>9}  {}\n",
        "kernel", "what", "grid x block", "waves", "wave-insts", "time ms", "check"
    );
    let mut failed = 0;
    for r in &rows {
        let check = if r.mismatches == 0 {
            format!("ok ({} values)", r.elems)
        } else {
            failed += 1;
            format!("MISMATCH ({} of {})", r.mismatches, r.elems)
        };
        let shape = format!(
            "{}x{}",
            r.report.grid.iter().map(|x| *x as u64).product::<u64>(),
            r.report.block.iter().map(|x| *x as u64).product::<u64>()
        );
        table += &format!(
            "{:<11} {:<30} {:>12} {:>7} {:>11} {:>9.2}  {}\n",
            r.kernel,
            r.about,
            shape,
            r.report.waves,
            r.report.counters.wave_insts(),
            r.ms,
            check
        );
    }
    if failed > 0 {
        return Err(Error::WrongResult(format!(
            "demo: {failed} kernel(s) produced wrong results\n{table}"
        )));
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    /// The demo runs every kernel and every row checks out against the host.
    #[test]
    fn demo_runs_and_all_rows_check() {
        let table = super::run().unwrap_or_else(|e| panic!("{e}"));
        println!("{table}");
        assert_eq!(table.lines().count(), 8, "{table}");
        assert_eq!(
            table.lines().filter(|l| l.contains(" ok (")).count(),
            7,
            "{table}"
        );
    }
}
