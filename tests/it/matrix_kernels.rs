//! clang-22-built MFMA/SMFMAC GEMM kernels (`tests/kernels/matrix/`) for gfx942 and gfx950,
//! and WMMA/SWMMAC GEMM kernels for gfx1100, gfx1200 and gfx1201 (wave32 and wave64 builds),
//! run through the public API under both engines and checked against a host GEMM.
//!
//! Inputs are chosen so that every product and partial sum is exact in f32 (multiples of
//! 1/8 with magnitude ≤ 4, K ≤ 1024), so the expected result is the exact one, computed in
//! f64 or i64 on the host, whatever order the hardware or wavejit sums in. FP8 codes come
//! from a hand-worked table of both FP8 flavours (FNUZ on gfx942, OCP on gfx950).

use wavejit::{Arg, Device, Engine, Launch};

const POISON: u8 = 0xA5;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A multiple of 1/8 in [-4, 4].
    fn eighths(&mut self) -> f64 {
        (self.next() % 65) as f64 / 8.0 - 4.0
    }
}

/// The GEMM object of a build: `mfma_gemm` on CDNA, `wmma_gemm` on RDNA (`<gpu>w64` = the
/// wave64 build).
fn code_object(target: &str) -> Vec<u8> {
    let name = if target.starts_with("gfx9") {
        "mfma_gemm"
    } else {
        "wmma_gemm"
    };
    let path = format!(
        "{}/tests/kernels/matrix/{target}/{name}.hsaco",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Work-items per workgroup: one wave of the build's size.
fn wave(target: &str) -> u32 {
    if target.starts_with("gfx9") || target.ends_with("w64") {
        64
    } else {
        32
    }
}

/// The RDNA builds of `wmma_gemm`.
const RDNA: [&str; 5] = ["gfx1100", "gfx1100w64", "gfx1200", "gfx1200w64", "gfx1201"];

/// The element types an RDNA build's GEMMs take (FP8 from RDNA4 on).
fn rdna_types(target: &str) -> &'static [Ty] {
    if target.starts_with("gfx11") {
        &[Ty::F16, Ty::Bf16, Ty::I8]
    } else {
        &[Ty::F16, Ty::Bf16, Ty::I8, Ty::Fp8]
    }
}

/// Which element type a GEMM kernel takes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    F16,
    Bf16,
    I8,
    Fp8,
    F64,
}

/// FP8 E4M3 codes of {0, ±0.5, ±1, ±1.5, ±2, ±3, ±4}, worked by hand from the formats:
/// OCP E4M3FN has bias 7, FNUZ E4M3 bias 8; the sign is bit 7 (FNUZ has no -0: 0x80 is NaN).
fn fp8_code(v: f64, fnuz: bool) -> u8 {
    let mag: u8 = match (v.abs(), fnuz) {
        (0.0, _) => return 0,
        (0.5, false) => 0x30,
        (1.0, false) => 0x38,
        (1.5, false) => 0x3C,
        (2.0, false) => 0x40,
        (3.0, false) => 0x44,
        (4.0, false) => 0x48,
        (0.5, true) => 0x38,
        (1.0, true) => 0x40,
        (1.5, true) => 0x44,
        (2.0, true) => 0x48,
        (3.0, true) => 0x4C,
        (4.0, true) => 0x50,
        _ => unreachable!("no FP8 code in the table for {v}"),
    };
    if v < 0.0 {
        mag | 0x80
    } else {
        mag
    }
}

/// A random value of type `ty` (exactly representable) and its bytes.
fn element(rng: &mut Rng, ty: Ty, fnuz: bool) -> (f64, Vec<u8>) {
    match ty {
        Ty::F16 => {
            let v = rng.eighths();
            (v, half::f16::from_f64(v).to_le_bytes().to_vec())
        }
        Ty::Bf16 => {
            let v = rng.eighths();
            (v, half::bf16::from_f64(v).to_le_bytes().to_vec())
        }
        Ty::I8 => {
            let v = rng.next() as u8 as i8;
            (v as f64, vec![v as u8])
        }
        Ty::Fp8 => {
            const VALUES: [f64; 13] = [
                0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 3.0, -3.0, 4.0, -4.0,
            ];
            let v = VALUES[(rng.next() % 13) as usize];
            (v, vec![fp8_code(v, fnuz)])
        }
        Ty::F64 => {
            let v = rng.eighths();
            (v, v.to_le_bytes().to_vec())
        }
    }
}

fn kernel_name(ty: Ty) -> &'static str {
    match ty {
        Ty::F16 => "gemm_f16",
        Ty::Bf16 => "gemm_bf16",
        Ty::I8 => "gemm_i8",
        Ty::Fp8 => "gemm_fp8",
        Ty::F64 => "gemm_f64",
    }
}

/// The host reference: C = A·B in f64 (exact for the inputs used here, so the summation
/// order is free: i-k-j, which vectorises).
fn host_gemm(a: &[f64], b: &[f64], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0f64; m * n];
    for i in 0..m {
        let row = &mut c[i * n..(i + 1) * n];
        for kk in 0..k {
            let x = a[i * k + kk];
            for (cj, bj) in row.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
                *cj += x * bj;
            }
        }
    }
    c
}

/// Runs one dense GEMM and compares every element of C with the exact host result.
fn dense(target: &str, ty: Ty, m: usize, n: usize, k: usize, engine: Engine, seed: u64) -> Vec<u8> {
    let fnuz = target == "gfx942";
    let mut rng = Rng(seed);
    let (mut a, mut ab) = (Vec::new(), Vec::new());
    for _ in 0..m * k {
        let (v, b) = element(&mut rng, ty, fnuz);
        a.push(v);
        ab.extend(b);
    }
    let (mut b, mut bb) = (Vec::new(), Vec::new());
    for _ in 0..k * n {
        let (v, by) = element(&mut rng, ty, fnuz);
        b.push(v);
        bb.extend(by);
    }
    let out_size = if ty == Ty::F64 { 8 } else { 4 };
    let dev = Device::new();
    let module = dev.load_module(&code_object(target)).unwrap();
    let kern = module.kernel(kernel_name(ty)).unwrap();
    let ba = dev.alloc_from(&ab).unwrap();
    let bbuf = dev.alloc_from(&bb).unwrap();
    let bc = dev.alloc_from(&vec![POISON; m * n * out_size]).unwrap();
    let launch = Launch::new(
        [n.div_ceil(16) as u32, m.div_ceil(16) as u32, 1],
        [wave(target), 1, 1],
    )
    .arg(Arg::Buffer(ba))
    .arg(Arg::Buffer(bbuf))
    .arg(Arg::Buffer(bc))
    .arg(Arg::I32(m as i32))
    .arg(Arg::I32(n as i32))
    .arg(Arg::I32(k as i32))
    .engine(engine);
    dev.launch(&kern, &launch)
        .unwrap_or_else(|e| panic!("{target} {ty:?} {m}x{n}x{k} {engine:?}: {e}"));
    let out = dev.read(bc).unwrap();
    let want_c = host_gemm(&a, &b, m, n, k);
    for i in 0..m {
        for j in 0..n {
            let want = want_c[i * n + j];
            let x = (i * n + j) * out_size;
            let bytes = &out[x..x + out_size];
            let got = match ty {
                Ty::F64 => f64::from_le_bytes(bytes.try_into().unwrap()),
                Ty::I8 => i32::from_le_bytes(bytes.try_into().unwrap()) as f64,
                _ => f32::from_le_bytes(bytes.try_into().unwrap()) as f64,
            };
            assert_eq!(
                got, want,
                "{target} {ty:?} {m}x{n}x{k} {engine:?}: C[{i}][{j}]"
            );
        }
    }
    out
}

/// The 2:4-sparse f16 GEMM (SMFMAC): random A with two kept columns per group of 4.
fn sparse(target: &str, m: usize, n: usize, k: usize, engine: Engine, seed: u64) -> Vec<u8> {
    assert_eq!(k % 32, 0);
    let mut rng = Rng(seed);
    let mut dense_a = vec![0f64; m * k];
    let (mut ap, mut ai) = (Vec::new(), Vec::new());
    for i in 0..m {
        for q in 0..k / 4 {
            let first = (rng.next() % 3) as usize;
            let second = first + 1 + (rng.next() % (3 - first) as u64) as usize;
            for pos in [first, second] {
                let v = rng.eighths();
                dense_a[i * k + 4 * q + pos] = v;
                ap.extend(half::f16::from_f64(v).to_le_bytes());
            }
            ai.push((first | second << 2) as u8);
        }
    }
    let b: Vec<f64> = (0..k * n).map(|_| rng.eighths()).collect();
    let bb: Vec<u8> = b
        .iter()
        .flat_map(|&v| half::f16::from_f64(v).to_le_bytes())
        .collect();
    let dev = Device::new();
    let module = dev.load_module(&code_object(target)).unwrap();
    let kern = module.kernel("gemm_sparse_f16").unwrap();
    let bufs = [
        dev.alloc_from(&ap).unwrap(),
        dev.alloc_from(&ai).unwrap(),
        dev.alloc_from(&bb).unwrap(),
    ];
    let bc = dev.alloc_from(&vec![POISON; m * n * 4]).unwrap();
    let mut launch = Launch::new(
        [n.div_ceil(16) as u32, m.div_ceil(16) as u32, 1],
        [wave(target), 1, 1],
    )
    .engine(engine);
    for buf in bufs {
        launch = launch.arg(Arg::Buffer(buf));
    }
    let launch = launch
        .arg(Arg::Buffer(bc))
        .arg(Arg::I32(m as i32))
        .arg(Arg::I32(n as i32))
        .arg(Arg::I32(k as i32));
    dev.launch(&kern, &launch)
        .unwrap_or_else(|e| panic!("{target} sparse {m}x{n}x{k} {engine:?}: {e}"));
    let out = dev.read(bc).unwrap();
    let want_c = host_gemm(&dense_a, &b, m, n, k);
    for i in 0..m {
        for j in 0..n {
            let want = want_c[i * n + j];
            let x = (i * n + j) * 4;
            let got = f32::from_le_bytes(out[x..x + 4].try_into().unwrap()) as f64;
            assert_eq!(
                got, want,
                "{target} sparse {m}x{n}x{k} {engine:?}: C[{i}][{j}]"
            );
        }
    }
    out
}

/// FP4 E2M1 values by code (sign in bit 3), from the format: 1 exponent-bias, 2 exponent and
/// 1 mantissa bits, subnormal 0.5.
const FP4: [f64; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];

/// gfx950: FP8 (OCP E4M3) A × FP4 B through the F8F6F4 MFMA, optionally block-scaled with
/// one E8M0 scale per row/column and 32 k (scales 2^-2..2^2 keep every sum exact).
fn fp8_fp4(m: usize, n: usize, k: usize, scaled: bool, engine: Engine, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut a = vec![0f64; m * k];
    let mut ab = Vec::new();
    for v in a.iter_mut() {
        let (x, bytes) = element(&mut rng, Ty::Fp8, false);
        *v = x;
        ab.extend(bytes);
    }
    let mut b = vec![0f64; k * n];
    let mut bb = Vec::new();
    for v in b.iter_mut() {
        let code = (rng.next() % 16) as u8;
        let mag = FP4[(code & 7) as usize];
        *v = if code & 8 != 0 { -mag } else { mag };
        // The high nibble is junk the kernel must mask off.
        bb.push(code | 0xA0);
    }
    let kb = k.div_ceil(32);
    let sa: Vec<u8> = (0..m * kb).map(|_| 125 + (rng.next() % 5) as u8).collect();
    let sb: Vec<u8> = (0..n * kb).map(|_| 125 + (rng.next() % 5) as u8).collect();
    let dev = Device::new();
    let module = dev.load_module(&code_object("gfx950")).unwrap();
    let name = if scaled {
        "gemm_fp8_fp4_scaled"
    } else {
        "gemm_fp8_fp4"
    };
    let kern = module.kernel(name).unwrap();
    let bc = dev.alloc_from(&vec![POISON; m * n * 4]).unwrap();
    let mut launch = Launch::new(
        [n.div_ceil(16) as u32, m.div_ceil(16) as u32, 1],
        [64, 1, 1],
    )
    .engine(engine)
    .arg(Arg::Buffer(dev.alloc_from(&ab).unwrap()))
    .arg(Arg::Buffer(dev.alloc_from(&bb).unwrap()));
    if scaled {
        launch = launch
            .arg(Arg::Buffer(dev.alloc_from(&sa).unwrap()))
            .arg(Arg::Buffer(dev.alloc_from(&sb).unwrap()));
    }
    let launch = launch
        .arg(Arg::Buffer(bc))
        .arg(Arg::I32(m as i32))
        .arg(Arg::I32(n as i32))
        .arg(Arg::I32(k as i32));
    dev.launch(&kern, &launch)
        .unwrap_or_else(|e| panic!("{name} {m}x{n}x{k} {engine:?}: {e}"));
    let out = dev.read(bc).unwrap();
    // Scaling A's rows and B's columns per K block first keeps everything exact.
    let pow2 = |e: u8| 2f64.powi(e as i32 - 127);
    let a_s: Vec<f64> = (0..m * k)
        .map(|x| {
            a[x] * if scaled {
                pow2(sa[(x / k) * kb + (x % k) / 32])
            } else {
                1.0
            }
        })
        .collect();
    let b_s: Vec<f64> = (0..k * n)
        .map(|x| {
            b[x] * if scaled {
                pow2(sb[(x % n) * kb + (x / n) / 32])
            } else {
                1.0
            }
        })
        .collect();
    let want_c = host_gemm(&a_s, &b_s, m, n, k);
    for i in 0..m {
        for j in 0..n {
            let want = want_c[i * n + j];
            let x = (i * n + j) * 4;
            let got = f32::from_le_bytes(out[x..x + 4].try_into().unwrap()) as f64;
            assert_eq!(got, want, "{name} {m}x{n}x{k} {engine:?}: C[{i}][{j}]");
        }
    }
    out
}

#[test]
fn gfx950_fp8_times_fp4_plain_and_block_scaled() {
    for scaled in [false, true] {
        let jit = fp8_fp4(37, 50, 300, scaled, Engine::Jit, 21);
        let interp = fp8_fp4(37, 50, 300, scaled, Engine::Interp, 21);
        assert_eq!(jit, interp, "scaled={scaled}: engines differ");
    }
}

const TYPES: [Ty; 5] = [Ty::F16, Ty::Bf16, Ty::I8, Ty::Fp8, Ty::F64];

#[test]
fn dense_gemms_at_odd_sizes_both_engines() {
    for target in ["gfx942", "gfx950"] {
        for (s, ty) in TYPES.into_iter().enumerate() {
            let jit = dense(target, ty, 37, 50, 45, Engine::Jit, 11 + s as u64);
            let interp = dense(target, ty, 37, 50, 45, Engine::Interp, 11 + s as u64);
            assert_eq!(jit, interp, "{target} {ty:?}: engines differ");
        }
    }
}

#[test]
fn sparse_gemm_at_odd_sizes_both_engines() {
    for target in ["gfx942", "gfx950"] {
        let jit = sparse(target, 37, 50, 64, Engine::Jit, 5);
        let interp = sparse(target, 37, 50, 64, Engine::Interp, 5);
        assert_eq!(jit, interp, "{target}: engines differ");
    }
}

#[test]
fn rdna_dense_gemms_at_odd_sizes_both_engines() {
    for target in RDNA {
        for (s, &ty) in rdna_types(target).iter().enumerate() {
            let jit = dense(target, ty, 37, 50, 45, Engine::Jit, 31 + s as u64);
            let interp = dense(target, ty, 37, 50, 45, Engine::Interp, 31 + s as u64);
            assert_eq!(jit, interp, "{target} {ty:?}: engines differ");
        }
    }
}

#[test]
fn rdna4_sparse_gemm_at_odd_sizes_both_engines() {
    for target in ["gfx1200", "gfx1200w64", "gfx1201"] {
        let jit = sparse(target, 37, 50, 64, Engine::Jit, 7);
        let interp = sparse(target, 37, 50, 64, Engine::Interp, 7);
        assert_eq!(jit, interp, "{target}: engines differ");
    }
}

/// Every GEMM at 1024×1024×1024 (about 2 GFLOP each): run in release by `.ci/run`
/// (`cargo test --release -p wavejit --test it -- --ignored matrix_kernels::`), too slow for the test profile.
#[test]
#[ignore = "release-only: .ci/run runs it with --release -- --ignored"]
fn gemms_at_1024_cubed() {
    for target in ["gfx942", "gfx950"] {
        for ty in TYPES {
            let t = std::time::Instant::now();
            dense(target, ty, 1024, 1024, 1024, Engine::Jit, 99);
            eprintln!("{target} {ty:?} 1024^3: {:.2} s", t.elapsed().as_secs_f64());
        }
        let t = std::time::Instant::now();
        sparse(target, 1024, 1024, 1024, Engine::Jit, 98);
        eprintln!(
            "{target} sparse f16 1024^3: {:.2} s",
            t.elapsed().as_secs_f64()
        );
    }
    // RDNA: every type at least once per family and wave size (the odd-size test covers every
    // combination; this keeps the step's time down), and the sparse GEMM on gfx1200.
    let runs = [
        ("gfx1100", Ty::F16),
        ("gfx1100w64", Ty::Bf16),
        ("gfx1200", Ty::Bf16),
        ("gfx1200", Ty::Fp8),
        ("gfx1200w64", Ty::I8),
        ("gfx1201", Ty::F16),
    ];
    for (target, ty) in runs {
        let t = std::time::Instant::now();
        dense(target, ty, 1024, 1024, 1024, Engine::Jit, 97);
        eprintln!("{target} {ty:?} 1024^3: {:.2} s", t.elapsed().as_secs_f64());
    }
    let t = std::time::Instant::now();
    sparse("gfx1200", 1024, 1024, 1024, Engine::Jit, 96);
    eprintln!(
        "gfx1200 sparse f16 1024^3: {:.2} s",
        t.elapsed().as_secs_f64()
    );
}

// ---------------------------------------------------------------------------------------
// The tiled f16 GEMMs (`tests/kernels/src/gfx9/gemm_tiled.hip`, `src/rdna/gemm_tiled.hip`):
// 64x64 (and on CDNA 128x128) C tiles per 256-work-item workgroup, A and B staged through
// LDS, several MFMAs or WMMAs per wave and K step. Launched through `TiledGemm::launch`, the
// host-side size check.

use wavejit_workloads::bench::{TiledGemm, TILED_GEMM_128, TILED_GEMM_256, TILED_GEMM_64};

/// Every build of the tiled GEMM with the kernels it has.
const TILED: [(&str, &[TiledGemm]); 7] = [
    ("gfx942", &[TILED_GEMM_64, TILED_GEMM_128, TILED_GEMM_256]),
    ("gfx950", &[TILED_GEMM_64, TILED_GEMM_128, TILED_GEMM_256]),
    ("gfx1100", &[TILED_GEMM_64]),
    ("gfx1100w64", &[TILED_GEMM_64]),
    ("gfx1200", &[TILED_GEMM_64]),
    ("gfx1200w64", &[TILED_GEMM_64]),
    ("gfx1201", &[TILED_GEMM_64]),
];

fn tiled_object(target: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/kernels/matrix/{target}/gemm_tiled.hsaco",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Random f16 A (m×k) and B (k×n), multiples of 1/8 in [-4, 4], as values and bytes.
fn tiled_inputs(m: usize, n: usize, k: usize, seed: u64) -> [(Vec<f64>, Vec<u8>); 2] {
    let mut rng = Rng(seed);
    let mut make = |len: usize| {
        let mut v = Vec::with_capacity(len);
        let mut bytes = Vec::with_capacity(2 * len);
        for _ in 0..len {
            let (x, b) = element(&mut rng, Ty::F16, false);
            v.push(x);
            bytes.extend(b);
        }
        (v, bytes)
    };
    [make(m * k), make(k * n)]
}

/// Runs tiled GEMM `g` of `target` for m×n×k on poisoned C and returns C's bytes.
fn tiled_run(
    target: &str,
    g: &TiledGemm,
    ab: &[u8],
    bb: &[u8],
    mnk: [usize; 3],
    engine: Engine,
) -> Vec<u8> {
    let [m, n, k] = mnk;
    let dev = Device::new();
    let module = dev.load_module(&tiled_object(target)).unwrap();
    let kern = module.kernel(g.kernel).unwrap();
    let bc = dev.alloc_from(&vec![POISON; m * n * 4]).unwrap();
    let launch = g
        .launch(
            m,
            n,
            k,
            dev.alloc_from(ab).unwrap(),
            dev.alloc_from(bb).unwrap(),
            bc,
        )
        .unwrap()
        .engine(engine);
    dev.launch(&kern, &launch)
        .unwrap_or_else(|e| panic!("{target} {} {m}x{n}x{k} {engine:?}: {e}", g.kernel));
    dev.read(bc).unwrap()
}

/// Compares C (f32) with the exact host product.
fn tiled_check(what: &str, out: &[u8], want: &[f64], n: usize) {
    for (x, (got, want)) in out.chunks_exact(4).zip(want).enumerate() {
        let got = f32::from_le_bytes(got.try_into().unwrap()) as f64;
        assert_eq!(got, *want, "{what}: C[{}][{}]", x / n, x % n);
    }
}

#[test]
fn tiled_gemms_at_256_cubed_both_engines() {
    let mnk = [256, 256, 256];
    let [(a, ab), (b, bb)] = tiled_inputs(256, 256, 256, 41);
    let want = host_gemm(&a, &b, 256, 256, 256);
    for (target, kernels) in TILED {
        for g in kernels {
            let what = format!("{target} {}", g.kernel);
            let jit = tiled_run(target, g, &ab, &bb, mnk, Engine::Jit);
            tiled_check(&format!("{what} jit"), &jit, &want, 256);
            let interp = tiled_run(target, g, &ab, &bb, mnk, Engine::Interp);
            assert_eq!(jit, interp, "{what}: engines differ");
        }
    }
}

/// Non-square: M, N and K differ, so a swapped index or stride cannot pass.
#[test]
fn tiled_gemms_non_square() {
    let (m, n, k) = (256, 384, 96);
    let [(a, ab), (b, bb)] = tiled_inputs(m, n, k, 43);
    let want = host_gemm(&a, &b, m, n, k);
    for (target, kernels) in TILED {
        for g in kernels {
            let out = tiled_run(target, g, &ab, &bb, [m, n, k], Engine::Jit);
            tiled_check(
                &format!("{target} {} {m}x{n}x{k}", g.kernel),
                &out,
                &want,
                n,
            );
        }
    }
}

/// The host-side check rejects sizes that are not multiples of the tile, and buffers too
/// small; the kernel itself writes nothing for such sizes.
#[test]
fn tiled_gemm_rejects_sizes_off_the_tile() {
    let dev = Device::new();
    let buf = dev.alloc(1 << 20).unwrap();
    for g in [TILED_GEMM_64, TILED_GEMM_128, TILED_GEMM_256] {
        let [tm, tn, tk] = g.tile;
        for (m, n, k) in [
            (tm + 32, tn, tk),
            (tm, tn + 32, tk),
            (tm, tn, tk + 16),
            (0, tn, tk),
            (tm, tn, 0),
        ] {
            let err = g
                .launch(m, n, k, buf, buf, buf)
                .expect_err("size off the tile accepted");
            assert!(err.to_string().contains("positive multiple"), "{err}");
        }
        let small = dev.alloc(tm * tk * 2 - 1).unwrap();
        let err = g
            .launch(tm, tn, tk, small, buf, buf)
            .expect_err("small buffer accepted");
        assert!(err.to_string().contains("buffer A"), "{err}");
    }
    // Launched directly with M = 96 or 160 (off both tiles), a kernel returns before
    // touching memory.
    for (target, kernels) in TILED {
        let module = dev.load_module(&tiled_object(target)).unwrap();
        for g in kernels {
            let kern = module.kernel(g.kernel).unwrap();
            let [tm, tn, tk] = g.tile;
            let m = tm + 32;
            let bc = dev.alloc_from(&vec![POISON; 2 * tm * tn * 4]).unwrap();
            let ab = dev
                .alloc_from(&vec![0x3C; 2 * tm * tn.max(tk) * 2])
                .unwrap();
            let launch = Launch::new([1, 2, 1], [TiledGemm::BLOCK, 1, 1])
                .arg(Arg::Buffer(ab))
                .arg(Arg::Buffer(ab))
                .arg(Arg::Buffer(bc))
                .arg(Arg::I32(m as i32))
                .arg(Arg::I32(tn as i32))
                .arg(Arg::I32(tk as i32));
            dev.launch(&kern, &launch).unwrap();
            assert!(
                dev.read(bc).unwrap().iter().all(|&x| x == POISON),
                "{target} {}: C written",
                g.kernel
            );
        }
    }
}

/// Every tiled build at 1024×1024×1024 (release; `.ci/run` runs the ignored tests of this
/// module).
#[test]
#[ignore = "release-only: .ci/run runs it with --release -- --ignored"]
fn tiled_gemms_at_1024_cubed() {
    let mnk = [1024, 1024, 1024];
    let [(a, ab), (b, bb)] = tiled_inputs(1024, 1024, 1024, 47);
    let want = host_gemm(&a, &b, 1024, 1024, 1024);
    for (target, kernels) in TILED {
        for g in kernels {
            let t = std::time::Instant::now();
            let out = tiled_run(target, g, &ab, &bb, mnk, Engine::Jit);
            eprintln!(
                "{target} {} 1024^3: {:.2} s",
                g.kernel,
                t.elapsed().as_secs_f64()
            );
            tiled_check(&format!("{target} {} 1024^3", g.kernel), &out, &want, 1024);
        }
    }
}
