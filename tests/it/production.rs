//! Production kernels (AMD's aiter assembly kernels, fetched by `scripts/production.py fetch`
//! into the cache, never committed) run with arguments built from their metadata and are
//! compared with host references.
//!
//! Ignored by default (they need the fetched corpus); the production CI step runs them:
//! `cargo test --release -p wavejit --test it -- --ignored production::`. Without the corpus they fail and
//! say how to fetch it.
//!
//! Launch conventions (grid, block, the packed argument struct with its padding) are those
//! of aiter's host code (`csrc/py_itfs_cu/asm_*.cu` in the same wheel); the arguments are
//! matched to the metadata by name, the padding (`pad` arguments) is zero.

use std::collections::HashMap;
use std::path::PathBuf;
use wavejit::{Arg, Buffer, Device, Engine, Launch};

/// The cached corpus folder of a library (`$WAVEJIT_PRODUCTION_CACHE/<lib>` or
/// `~/.cache/wavejit/production/<lib>`).
fn corpus(lib: &str) -> PathBuf {
    let base = std::env::var_os("WAVEJIT_PRODUCTION_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/wavejit/production")
        });
    let dir = base.join(lib);
    assert!(
        dir.join(".complete").exists(),
        "no {lib} corpus in {}: run `python3 scripts/production.py fetch` first",
        dir.display()
    );
    dir
}

fn load(dev: &Device, rel: &str) -> wavejit::Kernel {
    let path = corpus("aiter").join(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    dev.load_module(&bytes)
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
        .only_kernel()
        .unwrap()
}

/// The explicit arguments in metadata order: named ones from `named`, every other one
/// (aiter's `pad` fields) zero of its size. Panics on a named argument the kernel lacks.
fn args(k: &wavejit::Kernel, named: &[(&str, Arg)]) -> Vec<Arg> {
    let mut by_name: HashMap<&str, &Arg> = named.iter().map(|(n, a)| (*n, a)).collect();
    let mut out = Vec::new();
    for a in k.info().explicit_args() {
        let name = a.name.as_deref().unwrap_or("");
        match by_name.remove(name) {
            Some(v) => out.push(*v),
            None if name == "pad" || name.is_empty() => out.push(match a.size {
                8 => Arg::U64(0),
                _ => Arg::U32(0),
            }),
            None => panic!("{}: argument {name} not given", k.name()),
        }
    }
    assert!(
        by_name.is_empty(),
        "{}: no arguments named {:?}",
        k.name(),
        by_name.keys()
    );
    out
}

/// A null pointer for an unused `global_buffer` argument.
const NULL: Arg = Arg::Buffer(Buffer { addr: 0, len: 0 });

fn launch(dev: &Device, k: &wavejit::Kernel, grid: [u32; 3], block: u32, a: Vec<Arg>) {
    let mut l = Launch::new(grid, [block, 1, 1]).engine(Engine::Jit);
    l.args = a;
    dev.launch(k, &l)
        .unwrap_or_else(|e| panic!("{}: {e}", k.name()));
}

/// A deterministic pseudo-random sequence (64-bit LCG, high bits).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    /// A multiple of 1/`den` in `[-lim, lim] / den`.
    fn small(&mut self, lim: i32, den: f32) -> f32 {
        ((self.next() % (2 * lim as u32 + 1)) as i32 - lim) as f32 / den
    }
}

/// bf16 bits of `x`, which must be exact in bf16.
fn bf16(x: f32) -> u16 {
    let b = x.to_bits();
    assert_eq!(b & 0xffff, 0, "{x} is not exact in bf16");
    (b >> 16) as u16
}

fn bf16_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|&x| bf16(x).to_le_bytes()).collect()
}

fn poisoned(dev: &Device, len: usize) -> Buffer {
    dev.alloc_from(&vec![0xA5; len]).unwrap()
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn bf16s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(2)
        .map(|c| f32::from_bits((u16::from_le_bytes(c.try_into().unwrap()) as u32) << 16))
        .collect()
}

/// aiter `bf16gemm_outf32_tn_<M>x64_pf3` (gfx942 and gfx950): D[M,N] (f32) = A[M,K] (bf16,
/// row-major) times B[N,K]^T (bf16, row-major). Host launch (`asm_gemm_a16w16.cu`): block 256,
/// grid (N/64, M/tileM, splitk), strides in bytes (A, B: 2K; C, D: 4N), alpha 1, beta 0,
/// C null. Inputs are multiples of 1/4 in [-2, 2], so every sum is exact in f32 and the
/// result must equal the host's bit for bit.
fn bf16gemm(rel: &str, tile_m: u32) {
    let (m, n, kk) = (2 * tile_m as usize, 128usize, 256usize);
    let mut rng = Lcg(0x5eed ^ tile_m as u64);
    let a: Vec<f32> = (0..m * kk).map(|_| rng.small(8, 4.0)).collect();
    let b: Vec<f32> = (0..n * kk).map(|_| rng.small(8, 4.0)).collect();
    let want: Vec<f32> = (0..m * n)
        .map(|i| {
            let (r, c) = (i / n, i % n);
            (0..kk).map(|k| a[r * kk + k] * b[c * kk + k]).sum()
        })
        .collect();
    assert!(want.iter().any(|&x| x != 0.0));
    let dev = Device::new();
    let k = load(&dev, rel);
    let (da, db) = (
        dev.alloc_from(&bf16_bytes(&a)).unwrap(),
        dev.alloc_from(&bf16_bytes(&b)).unwrap(),
    );
    let dd = poisoned(&dev, m * n * 4);
    let (sa, sd) = (2 * kk as u32, 4 * n as u32);
    let a_ = args(
        &k,
        &[
            ("D", Arg::Buffer(dd)),
            ("C", NULL),
            ("A", Arg::Buffer(da)),
            ("B", Arg::Buffer(db)),
            ("alpha", Arg::F32(1.0)),
            ("beta", Arg::F32(0.0)),
            ("strideD0", Arg::U32(sd)),
            ("strideD1", Arg::U32(sd)),
            ("strideC0", Arg::U32(sd)),
            ("strideC1", Arg::U32(sd)),
            ("strideA0", Arg::U32(sa)),
            ("strideA1", Arg::U32(sa)),
            ("strideB0", Arg::U32(sa)),
            ("strideB1", Arg::U32(sa)),
            ("Mdim", Arg::U32(m as u32)),
            ("Ndim", Arg::U32(n as u32)),
            ("Kdim", Arg::U32(kk as u32)),
            ("splitk", Arg::U32(1)),
        ],
    );
    launch(&dev, &k, [(n / 64) as u32, m as u32 / tile_m, 1], 256, a_);
    let got = f32s(&dev.read(dd).unwrap());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "{rel}: D[{}][{}]", i / n, i % n);
    }
}

#[test]
#[ignore = "needs the fetched production corpus (scripts/production.py fetch)"]
fn aiter_bf16gemm_gfx942() {
    bf16gemm("gfx942/bf16gemm/bf16gemm_outf32_tn_64x64_pf3.co", 64);
    bf16gemm("gfx942/bf16gemm/bf16gemm_outf32_tn_96x64_pf3.co", 96);
}

#[test]
#[ignore = "needs the fetched production corpus (scripts/production.py fetch)"]
fn aiter_bf16gemm_gfx950() {
    bf16gemm("gfx950/bf16gemm/bf16gemm_outf32_tn_32x64_pf3.co", 32);
    bf16gemm("gfx950/bf16gemm/bf16gemm_outf32_tn_64x64_pf3.co", 64);
}

/// aiter `layer_norm.co` (gfx942, bf16, N = 8192). What its code computes (read from its
/// llvm-objdump-22 listing; the host launch, `asm_layernorm.cu`, is grid M/2, block 256, two
/// rows per workgroup): with x = In + InResidual, OutResidual = x and
/// Out = trunc_bf16(x * rsqrt(mean(x^2) + eps) * Weight + Bias): the row mean is summed but
/// not used (an RMS norm despite the name), and the result's low 16 bits are dropped
/// (`v_perm_b32` of the high halves).
///
/// The kernel reuses its LDS reduction slots for the second row of a workgroup with no
/// barrier between the last read of the first row's partial sums and the first write of the
/// second's: on hardware the other waves' reads come long before, but wavejit runs each wave
/// to its next barrier, so a fast wave's second-row partials can reach a slow wave's
/// first-row reads. The test gives the second row of each pair the negated first row (equal
/// squares per element, so equal partial sums: the race is harmless); with unrelated rows the
/// first row of a pair comes out up to about 1% off.
///
/// x is exact in bf16 (multiples of 1/8 below 16), so OutResidual must match exactly; Out
/// within one bf16 ulp of the f64 reference truncated (v_rsq_f32 and the sum order differ).
#[test]
#[ignore = "needs the fetched production corpus (scripts/production.py fetch)"]
fn aiter_layer_norm_gfx942() {
    let (m, n) = (4usize, 8192usize);
    let eps = 1e-5f32;
    let mut rng = Lcg(42);
    let mut input = vec![0f32; m * n];
    let mut res = vec![0f32; m * n];
    for r in (0..m).step_by(2) {
        for c in 0..n {
            let (a, b) = (rng.small(60, 8.0), rng.small(60, 8.0));
            input[r * n + c] = a;
            res[r * n + c] = b;
            input[(r + 1) * n + c] = -a;
            res[(r + 1) * n + c] = -b;
        }
    }
    let w: Vec<f32> = (0..n).map(|_| rng.small(16, 8.0)).collect();
    let bias: Vec<f32> = (0..n).map(|_| rng.small(16, 8.0)).collect();
    let x: Vec<f32> = input.iter().zip(&res).map(|(a, b)| a + b).collect();
    let dev = Device::new();
    let k = load(&dev, "gfx942/layer_norm.co");
    let buf = |v: &[f32]| dev.alloc_from(&bf16_bytes(v)).unwrap();
    let (di, dr, dw, db) = (buf(&input), buf(&res), buf(&w), buf(&bias));
    let (dout, dres) = (poisoned(&dev, m * n * 2), poisoned(&dev, m * n * 2));
    let a = args(
        &k,
        &[
            ("OutBuffer", Arg::Buffer(dout)),
            ("InBuffer", Arg::Buffer(di)),
            ("WeightBuffer", Arg::Buffer(dw)),
            ("BiasBuffer", Arg::Buffer(db)),
            ("epsilon", Arg::F32(eps)),
            ("M", Arg::U32(m as u32)),
            ("N", Arg::U32(n as u32)),
            ("OutResidualBuffer", Arg::Buffer(dres)),
            ("InResidualBuffer", Arg::Buffer(dr)),
            ("OutYScaleBuffer", NULL),
            ("XScaleBuffer", NULL),
        ],
    );
    launch(&dev, &k, [(m / 2) as u32, 1, 1], 256, a);
    assert_eq!(bf16s(&dev.read(dres).unwrap()), x, "OutResidual");
    let got = bf16s(&dev.read(dout).unwrap());
    for r in 0..m {
        let row = &x[r * n..(r + 1) * n];
        let ms = row.iter().map(|&v| (v as f64).powi(2)).sum::<f64>() / n as f64;
        let inv = 1.0 / (ms + eps as f64).sqrt();
        for c in 0..n {
            let exact = row[c] as f64 * inv * w[c] as f64 + bias[c] as f64;
            // Truncated to bf16: drop the low 16 bits of the f32.
            let want = f32::from_bits((exact as f32).to_bits() & 0xffff_0000) as f64;
            let g = got[r * n + c] as f64;
            let ulp = 2f64.powi(exact.abs().max(1e-3).log2().floor() as i32 - 7);
            assert!(
                (g - want).abs() <= ulp,
                "Out[{r}][{c}] = {g}, host {want} ({exact} before truncation)"
            );
        }
    }
}

/// aiter `fmha_v3_fwd/fwd_hd128_bf16.co` (gfx950): attention forward, O = softmax(scale *
/// Q K^T) V for one batch and head, bf16 Q, K, V, O in (batch, seq, head, dim) layout. Its
/// code uses the gfx950 transpose loads (192 `ds_read_b64_tr_b16`) and 160 KiB of LDS. Host
/// launch (aiter's `hsa/gfx950/fmha_v3_fwd/codegen.py`): block 512, grid
/// (ceil(seqlen_q / 256), heads, batch); strides in bytes; `msk_opt` 5 without a mask; `lse`
/// 1 stores the row log-sum-exp (not checked here: its base is not documented).
/// Inputs are multiples of 1/16 in [-2, 2] (exact in bf16); O is compared with the f64
/// reference within one bf16 ulp at 1.0 (2^-7): the kernel rounds P to bf16 for the second
/// product and O to bf16.
#[test]
#[ignore = "needs the fetched production corpus (scripts/production.py fetch)"]
fn aiter_fmha_fwd_gfx950_transpose_loads() {
    let (sq, sk, d) = (256usize, 128usize, 128usize);
    let scale = 1.0 / (d as f32).sqrt();
    let mut rng = Lcg(7);
    let q: Vec<f32> = (0..sq * d).map(|_| rng.small(32, 16.0)).collect();
    let kk: Vec<f32> = (0..sk * d).map(|_| rng.small(32, 16.0)).collect();
    let v: Vec<f32> = (0..sk * d).map(|_| rng.small(32, 16.0)).collect();
    let dev = Device::new();
    let k = load(&dev, "gfx950/fmha_v3_fwd/fwd_hd128_bf16.co");
    let buf = |x: &[f32]| dev.alloc_from(&bf16_bytes(x)).unwrap();
    let (dq, dk, dv) = (buf(&q), buf(&kk), buf(&v));
    let (dout, dlse) = (poisoned(&dev, sq * d * 2), poisoned(&dev, sq * 4));
    let row = 2 * d as u32; // bytes between rows of one head (one head per batch)
    let u = Arg::U32;
    let a = args(
        &k,
        &[
            ("R", Arg::Buffer(dout)),
            ("Q", Arg::Buffer(dq)),
            ("K", Arg::Buffer(dk)),
            ("V", Arg::Buffer(dv)),
            ("LSE", Arg::Buffer(dlse)),
            ("scalar", Arg::F32(scale)),
            ("seq_len", u(sq as u32)),
            ("Seqs", u(row)),
            ("Ts", u(256 * row)),
            ("Hs", u(row)),
            ("Bs", u(sq as u32 * row)),
            ("gqa", u(1)),
            ("k_Seqs", u(row)),
            ("k_Hs", u(row)),
            ("k_Bs", u(sk as u32 * row)),
            ("msk_opt", u(5)),
            ("lse", u(1)),
            ("kv_seq_len", u(sk as u32)),
            ("qk_head_dim", u(d as u32)),
            ("v_head_dim", u(d as u32)),
            ("q_head_num", u(1)),
            ("v_Seqs", u(row)),
            ("v_Hs", u(row)),
            ("v_Bs", u(sk as u32 * row)),
            ("r_Seqs", u(row)),
            ("r_Hs", u(row)),
            ("r_Bs", u(sq as u32 * row)),
            ("ptr_qseq", NULL),
            ("ptr_kseq", NULL),
            ("lse_Hs", u(4 * sq as u32)),
            ("ptr_qseq_padding", NULL),
            ("ptr_kseq_padding", NULL),
        ],
    );
    launch(&dev, &k, [1, 1, 1], 512, a);
    let got = bf16s(&dev.read(dout).unwrap());
    for i in 0..sq {
        let s: Vec<f64> = (0..sk)
            .map(|j| {
                scale as f64
                    * (0..d)
                        .map(|t| q[i * d + t] as f64 * kk[j * d + t] as f64)
                        .sum::<f64>()
            })
            .collect();
        let mx = s.iter().cloned().fold(f64::MIN, f64::max);
        let e: Vec<f64> = s.iter().map(|x| (x - mx).exp()).collect();
        let z: f64 = e.iter().sum();
        for c in 0..d {
            let want = (0..sk).map(|j| e[j] * v[j * d + c] as f64).sum::<f64>() / z;
            let g = got[i * d + c] as f64;
            assert!(
                (g - want).abs() <= 2f64.powi(-7),
                "O[{i}][{c}] = {g}, host {want}"
            );
        }
    }
}
