//! Kernels run through the `wavejit run` command line and checked against host references:
//!
//! * the hand-written assembly kernel `tests/kernels/src/asm/dpp_sdwa_pc.s` (DPP row shifts,
//!   rotates, mirrors, broadcasts and wave shifts with row/bank masks and bound_ctrl; SDWA
//!   byte/word selects, sext and the three UNUSED modes; `s_getpc`/`s_setpc`/`s_swappc` with
//!   computed targets), for gfx942 and gfx950 under both engines. The reference below is
//!   written from the ISA's DPP/SDWA definitions, lane by lane;
//! * the hand-written assembly kernel `tests/kernels/src/asm/fork_join.s` (GCN fork/join:
//!   `s_cbranch_i_fork`, `s_cbranch_g_fork` with a computed target, nested joins), for gfx942
//!   and gfx950 under both engines, against a reference written from the CDNA4 ISA 4.6
//!   pseudocode;
//! * the Triton kernels of `tests/kernels/triton/` (vector add, softmax, layer norm, a
//!   looped row reduction, 2-D masked tiles) for gfx942 and gfx950, launched as their JSON
//!   launch files say (`tests/it/corpus/` runs them through the API; this goes through the CLI).
//!
//! Output buffers start poisoned (0xA5 bytes, the CLI's fill), so bytes a kernel must not
//! write are checked too.

use crate::common::{kernels_dir, wavejit};
use std::path::{Path, PathBuf};

const POISON: u32 = 0xA5A5_A5A5;
const TARGETS: [&str; 2] = ["gfx942", "gfx950"];

/// A scratch folder for one test's files.
fn scratch(test: &str) -> PathBuf {
    crate::common::scratch("asm", test)
}

/// Runs `wavejit run` with `args`; panics with its stderr on failure.
fn run(args: &[String]) {
    let o = wavejit(&[&["run".to_string()], args].concat());
    assert!(
        o.status.success(),
        "wavejit run {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn write_u32s(p: &Path, v: &[u32]) {
    std::fs::write(
        p,
        v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
    )
    .unwrap();
}

fn read_u32s(p: &Path) -> Vec<u32> {
    std::fs::read(p)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

// ---------------------------------------------------------------- the assembly kernel

/// One DPP source operand for every lane: the source lane (`None` = out of range),
/// `row_mask`/`bank_mask` (disabled lanes keep `old`), `bound_ctrl` (an out-of-range source
/// reads 0; otherwise the lane keeps `old`), combined with the lane's own value by `op`.
fn dpp(
    x: &[u32; 64],
    old: &[u32; 64],
    src: impl Fn(usize) -> Option<usize>,
    row_mask: u32,
    bank_mask: u32,
    bound_ctrl: bool,
    op: impl Fn(u32, u32) -> u32,
) -> [u32; 64] {
    let mut r = [0u32; 64];
    for l in 0..64 {
        let (row, bank) = (l / 16, (l % 16) / 4);
        r[l] = if row_mask >> row & 1 == 0 || bank_mask >> bank & 1 == 0 {
            old[l]
        } else {
            match src(l) {
                Some(s) => op(x[s], x[l]),
                None if bound_ctrl => op(0, x[l]),
                None => old[l],
            }
        };
    }
    r
}

/// Source lane within the lane's row of 16 (`None` outside the row).
fn in_row(l: usize, i: isize) -> Option<usize> {
    let base = l / 16 * 16;
    let j = (l % 16) as isize + i;
    (0..16).contains(&j).then(|| base + j as usize)
}

/// SDWA source select: BYTE_0..3 = 0..3, WORD_0/1 = 4/5, DWORD = 6.
fn sel(x: u32, s: u32, sext: bool) -> u32 {
    let (v, bits) = match s {
        0..=3 => ((x >> (8 * s)) & 0xff, 8),
        4 | 5 => ((x >> (16 * (s - 4))) & 0xffff, 16),
        _ => (x, 32),
    };
    if sext && bits < 32 {
        (((v << (32 - bits)) as i32) >> (32 - bits)) as u32
    } else {
        v
    }
}

/// SDWA destination: the result's low bits placed in field `s`; the other bits per `unused`
/// (0 = PAD with zeros, 1 = SEXT: bits above the field copy its top bit, bits below are 0,
/// 2 = PRESERVE the old value).
fn place(r: u32, s: u32, unused: u32, old: u32) -> u32 {
    let (off, bits) = match s {
        0..=3 => (8 * s, 8),
        4 | 5 => (16 * (s - 4), 16),
        _ => return r,
    };
    let fmask = ((1u64 << bits) - 1) as u32;
    let field = (r & fmask) << off;
    let in_field = fmask << off;
    match unused {
        0 => field,
        1 => {
            let top = (r >> (bits - 1)) & 1;
            let above = if off + bits >= 32 {
                0
            } else {
                !0u32 << (off + bits)
            };
            field | if top == 1 { above } else { 0 }
        }
        _ => (old & !in_field) | field,
    }
}

/// The 20 output dwords of every lane of one workgroup (wave) `w` with input `x`.
fn asm_reference(x: &[u32; 64], w: u32, sel_arg: u32) -> Vec<[u32; 20]> {
    let c = |v: u32| [v; 64];
    let add = |a: u32, b: u32| a.wrapping_add(b);
    let mov = |a: u32, _: u32| a;
    let cols: Vec<[u32; 64]> = vec![
        // v10: row_shr:1, old -1.
        dpp(x, &c(u32::MAX), |l| in_row(l, -1), 0xf, 0xf, false, mov),
        // v11: row_ror:3: lane i reads (i - 3) mod 16.
        dpp(
            x,
            &c(0),
            |l| Some(l / 16 * 16 + (l % 16 + 13) % 16),
            0xf,
            0xf,
            false,
            mov,
        ),
        // v12: quad_perm [3,0,2,1].
        dpp(
            x,
            &c(0),
            |l| Some(l / 4 * 4 + [3, 0, 2, 1][l % 4]),
            0xf,
            0xf,
            false,
            mov,
        ),
        // v13: row_bcast:15, rows 1 and 3 enabled, old 7.
        dpp(
            x,
            &c(7),
            |l| (l >= 16).then(|| l / 16 * 16 - 1),
            0xa,
            0xf,
            false,
            mov,
        ),
        // v14: v_add_u32 with src0 row_shl:1, banks 0 and 3, bound_ctrl, old 5.
        dpp(x, &c(5), |l| in_row(l, 1), 0xf, 0x9, true, add),
        // v15: row_mirror; v16: row_half_mirror.
        dpp(
            x,
            &c(0),
            |l| Some(l / 16 * 16 + 15 - l % 16),
            0xf,
            0xf,
            false,
            mov,
        ),
        dpp(
            x,
            &c(0),
            |l| Some(l / 8 * 8 + 7 - l % 8),
            0xf,
            0xf,
            false,
            mov,
        ),
        // v17: wave_shr:1 with bound_ctrl; v18: wave_rol:1 (lane i reads i + 1 mod 64).
        dpp(x, &c(0), |l| l.checked_sub(1), 0xf, 0xf, true, mov),
        dpp(x, &c(0), |l| Some((l + 1) % 64), 0xf, 0xf, false, mov),
        // v19: row_bcast:31 into rows 2 and 3, old 3.
        dpp(x, &c(3), |l| (l >= 32).then_some(31), 0xc, 0xf, false, mov),
        // v20: row_shr:15 with bound_ctrl.
        dpp(x, &c(0), |l| in_row(l, -15), 0xf, 0xf, true, mov),
        // v21: quad_perm [0,0,0,0].
        dpp(x, &c(0), |l| Some(l / 4 * 4), 0xf, 0xf, false, mov),
        // v22: row_ror:8, banks 1 and 2, old 9.
        dpp(
            x,
            &c(9),
            |l| Some(l / 16 * 16 + (l % 16 + 8) % 16),
            0xf,
            0x6,
            false,
            mov,
        ),
        // v23: wave_shl:1 (lane 63 out of range keeps old 11).
        dpp(
            x,
            &c(11),
            |l| (l < 63).then_some(l + 1),
            0xf,
            0xf,
            false,
            mov,
        ),
    ];
    let call_f1 = (sel_arg ^ w) & 1 == 1;
    (0..64)
        .map(|l| {
            let xl = x[l];
            let mut o = [0u32; 20];
            for (j, col) in cols.iter().enumerate() {
                o[j] = col[l];
            }
            // SDWA (selects: BYTE_0..3 = 0..3, WORD_0/1 = 4/5, DWORD = 6; unused: 0 PAD,
            // 1 SEXT, 2 PRESERVE).
            o[14] = place(
                sel(xl, 2, false).wrapping_add(sel(xl, 4, false)),
                5,
                2,
                0x1234_5678,
            );
            o[15] = place(sel(xl, 3, false), 1, 1, 0);
            o[16] = sel(xl, 0, true);
            o[17] = place(
                sel(xl, 5, false).wrapping_sub(sel(l as u32, 0, false)),
                0,
                0,
                0,
            );
            let m = place(sel(xl, 1, false) * sel(xl, 2, false), 4, 1, 0);
            // The called function updates v28: f0 adds x + 100, f1 xors with !x.
            o[18] = if call_f1 {
                m ^ !xl
            } else {
                m.wrapping_add(xl.wrapping_add(100))
            };
            // 1 after the computed jump, + 10 after the call returns.
            o[19] = 11;
            o
        })
        .collect()
}

#[test]
fn asm_dpp_sdwa_pc_through_the_cli() {
    let d = scratch("dpp");
    let groups = 3u32;
    let n = 64 * groups as usize;
    // Inputs with every byte pattern class: sign bits set and clear in each byte.
    let x: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(0x9E37_79B1) ^ 0x80F0_7F10u32.rotate_left(i % 32))
        .collect();
    let input = d.join("in.bin");
    write_u32s(&input, &x);
    for target in TARGETS {
        let obj = kernels_dir().join(format!("asm/{target}/dpp_sdwa_pc.hsaco"));
        for engine in ["interp", "jit"] {
            for sel_arg in [0u32, 1] {
                let out = d.join(format!("out_{target}_{engine}_{sel_arg}.bin"));
                // One extra lane's worth of output stays poisoned.
                let bytes = (n + 1) * 80;
                run(&[
                    obj.display().to_string(),
                    "--grid".into(),
                    groups.to_string(),
                    "--block".into(),
                    "64".into(),
                    "--engine".into(),
                    engine.into(),
                    format!("out={}:{bytes}", out.display()),
                    format!("in={}", input.display()),
                    format!("u32={sel_arg}"),
                ]);
                let got = read_u32s(&out);
                assert_eq!(got.len(), bytes / 4);
                for w in 0..groups {
                    let xs: [u32; 64] = x[64 * w as usize..64 * (w as usize + 1)]
                        .try_into()
                        .unwrap();
                    let want = asm_reference(&xs, w, sel_arg);
                    for (l, wl) in want.iter().enumerate() {
                        let base = 20 * (64 * w as usize + l);
                        for (j, &v) in wl.iter().enumerate() {
                            assert_eq!(
                                got[base + j],
                                v,
                                "{target} {engine} sel {sel_arg}: workgroup {w} lane {l} dword {j}: got {:#x}, want {v:#x}",
                                got[base + j]
                            );
                        }
                    }
                }
                assert!(got[20 * n..].iter().all(|&v| v == POISON));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

// ---------------------------------------------------------------- fork/join kernel

/// The order in which a wave with EXEC `exec` runs the two sides of a fork on `cond`, as
/// path digits (`fail` = the next instruction, `pass` = the target), written from the CDNA4
/// ISA 4.6 pseudocode: all pass → target only; all fail → next only; else the side with fewer
/// lanes first (a tie runs the pass side first), then the other after the join pops it.
/// `pass_path` is the digits the pass side adds (it may contain a nested fork).
fn fork_order(exec: u64, cond: u64, fail_digit: &[u32], pass_path: &[u32]) -> Vec<u32> {
    let pass = cond & exec;
    let fail = !cond & exec;
    if pass == exec {
        pass_path.to_vec()
    } else if fail == exec {
        fail_digit.to_vec()
    } else if fail.count_ones() < pass.count_ones() {
        [fail_digit, pass_path].concat()
    } else {
        [pass_path, fail_digit].concat()
    }
}

/// The 3 output dwords of every lane of one wave with input `x` (see `src/asm/fork_join.s`).
fn fork_join_reference(x: &[u32; 64]) -> Vec<[u32; 3]> {
    let mask = |f: &dyn Fn(u32) -> bool| (0..64).fold(0u64, |m, l| m | (f(x[l]) as u64) << l);
    let odd = mask(&|v| v & 1 == 1);
    let bit1 = mask(&|v| v & 2 == 2);
    // The inner fork runs with EXEC = the odd lanes: 3 = bit 1 clear (next), 4 = set (target).
    let inner = fork_order(odd, bit1, &[3], &[4]);
    let outer = fork_order(u64::MAX, odd, &[1], &[[2].as_slice(), &inner].concat());
    // Digits in order, then 0 for CSP back at 0.
    let order = outer.iter().chain(&[0]).fold(0u32, |r, d| r << 4 | d);
    x.iter()
        .map(|&v| {
            let (paths, val) = match (v & 1, v & 2) {
                (0, _) => (0x1, v >> 1),
                (_, 0) => (0x23, (v & 0xff_ffff).wrapping_mul(3).wrapping_add(1)),
                _ => (0x24, !v),
            };
            [paths, val, order]
        })
        .collect()
}

#[test]
fn asm_fork_join_through_the_cli() {
    let d = scratch("forkjoin");
    // Workgroups chosen so the forks take every branch of the pseudocode.
    let mut x: Vec<u32> = Vec::new();
    for w in 0..8u32 {
        for l in 0..64u32 {
            let r = (64 * w + l).wrapping_mul(0x9E37_79B1).rotate_left(w + 3) ^ 0x5A5A_0F0F;
            // w 0: random; 1: 5 odd lanes (fewer pass); 2: all even; 3: all odd with bit 1
            // (all pass twice); 4: all odd without bit 1 (inner all fail); 5: 16 odd lanes,
            // all with bit 1; 6: 40 odd lanes, 20 with bit 1 (inner tie); 7: at least 56 odd
            // lanes (fewer fail).
            x.push(match w {
                0 => r,
                1 => (r & !1) | (l < 5) as u32,
                2 => r & !1,
                3 => r | 3,
                4 => (r | 1) & !2,
                5 => (r & !3) | ((l % 4 == 0) as u32 * 3),
                6 => (r & !3) | ([1, 3][l as usize % 2] * (l < 40) as u32),
                _ => r | (l >= 8) as u32,
            });
        }
    }
    let groups = 8usize;
    let n = 64 * groups;
    let input = d.join("in.bin");
    write_u32s(&input, &x);
    for target in TARGETS {
        let obj = kernels_dir().join(format!("asm/{target}/fork_join.hsaco"));
        for engine in ["interp", "jit"] {
            let out = d.join(format!("out_{target}_{engine}.bin"));
            // One extra lane's worth of output stays poisoned.
            let bytes = (n + 1) * 12;
            run(&[
                obj.display().to_string(),
                "--grid".into(),
                groups.to_string(),
                "--block".into(),
                "64".into(),
                "--engine".into(),
                engine.into(),
                format!("out={}:{bytes}", out.display()),
                format!("in={}", input.display()),
            ]);
            let got = read_u32s(&out);
            for w in 0..groups {
                let xs: [u32; 64] = x[64 * w..64 * (w + 1)].try_into().unwrap();
                for (l, want) in fork_join_reference(&xs).iter().enumerate() {
                    let i = 64 * w + l;
                    assert_eq!(
                        &got[3 * i..3 * i + 3],
                        want,
                        "{target} {engine}: workgroup {w} lane {l} (x = {:#x})",
                        xs[l]
                    );
                }
            }
            assert!(got[3 * n..].iter().all(|&v| v == POISON));
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

// ---------------------------------------------------------------- Triton kernels

/// Deterministic xorshift values.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A value in `lo..hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo) as u64) as i64
    }
}

/// A Triton kernel of `tests/kernels/triton/<target>/` and its launch file.
struct Triton {
    obj: PathBuf,
    info: serde_json::Value,
}

impl Triton {
    fn load(target: &str, name: &str) -> Triton {
        let dir = kernels_dir().join("triton").join(target);
        let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let info: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(info["target"], target);
        Triton {
            obj: dir.join(format!("{name}.hsaco")),
            info,
        }
    }

    /// Runs on `grid` with `args`, adding the block, the dynamic LDS (`shared`) and the
    /// trailing scratch pointers Triton appends (small poisoned buffers).
    fn run(&self, d: &Path, grid: [u32; 3], args: &[String]) {
        let b = |i: usize| self.info["block"][i].as_u64().unwrap();
        let mut a = vec![
            self.obj.display().to_string(),
            "--kernel".into(),
            self.info["kernel"].as_str().unwrap().into(),
            "--grid".into(),
            format!("{},{},{}", grid[0], grid[1], grid[2]),
            "--block".into(),
            format!("{},{},{}", b(0), b(1), b(2)),
            "--lds".into(),
            self.info["shared"].as_u64().unwrap().to_string(),
        ];
        a.extend_from_slice(args);
        let trailing = self.info["trailing_pointer_args"].as_u64().unwrap();
        for i in 0..trailing {
            a.push(format!(
                "out={}:64",
                d.join(format!("scratch{i}.bin")).display()
            ));
        }
        run(&a);
    }
}

fn f32_file(p: &Path, v: &[f32]) -> String {
    write_u32s(p, &v.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    format!("in={}", p.display())
}

fn out_arg(p: &Path, words: usize) -> String {
    format!("out={}:{}", p.display(), 4 * words)
}

/// |got - want| <= atol + rtol |want|.
fn close(got: u32, want: f64, rtol: f64, atol: f64) -> bool {
    ((f32::from_bits(got) as f64) - want).abs() <= atol + rtol * want.abs()
}

#[test]
fn triton_kernels_through_the_cli() {
    for target in TARGETS {
        let d = scratch(&format!("triton-{target}"));
        let mut r = Rng(0x5EED_0000 + target.len() as u64);

        // add_f32: out = x + y for n = 1040 (BLOCK 1024: two programs, the second masked);
        // f32 addition is exact to compare bitwise. The tail after n stays poisoned.
        let t = Triton::load(target, "add_f32");
        let n = 1040usize;
        let x: Vec<f32> = (0..n)
            .map(|_| r.range(-40000, 40000) as f32 / 64.0)
            .collect();
        let y: Vec<f32> = (0..n)
            .map(|_| r.range(-40000, 40000) as f32 / 7.0)
            .collect();
        let out = d.join("add.bin");
        t.run(
            &d,
            [2, 1, 1],
            &[
                f32_file(&d.join("x.bin"), &x),
                f32_file(&d.join("y.bin"), &y),
                out_arg(&out, n + 16),
                format!("i32={n}"),
            ],
        );
        let got = read_u32s(&out);
        for i in 0..n + 16 {
            let want = if i < n {
                (x[i] + y[i]).to_bits()
            } else {
                POISON
            };
            assert_eq!(got[i], want, "{target} add_f32 [{i}]");
        }

        // softmax_f32: 3 rows of 100 columns, row strides 101 (in) and 104 (out).
        let t = Triton::load(target, "softmax_f32");
        let (rows, cols, si, so) = (3usize, 100usize, 101usize, 104usize);
        let x: Vec<f32> = (0..rows * si)
            .map(|i| r.range(-5000, 5000) as f32 / 1000.0 + (i / si) as f32)
            .collect();
        let out = d.join("softmax.bin");
        t.run(
            &d,
            [rows as u32, 1, 1],
            &[
                out_arg(&out, rows * so),
                f32_file(&d.join("sx.bin"), &x),
                format!("i32={si}"),
                format!("i32={so}"),
                format!("i32={cols}"),
            ],
        );
        let got = read_u32s(&out);
        for row in 0..rows {
            let xs = &x[row * si..row * si + cols];
            let m = xs.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v as f64));
            let s: f64 = xs.iter().map(|&v| (v as f64 - m).exp()).sum();
            for c in 0..so {
                let g = got[row * so + c];
                if c < cols {
                    let want = (xs[c] as f64 - m).exp() / s;
                    assert!(close(g, want, 2e-5, 1e-9), "{target} softmax [{row}][{c}]");
                } else {
                    assert_eq!(g, POISON, "{target} softmax gap [{row}][{c}]");
                }
            }
        }

        // layernorm_f32: 2 rows of 150 columns, stride 160, eps 1e-5.
        let t = Triton::load(target, "layernorm_f32");
        let (rows, cols, stride, eps) = (2usize, 150usize, 160usize, 1e-5f32);
        let x: Vec<f32> = (0..rows * stride)
            .map(|_| r.range(-3000, 3000) as f32 / 1000.0 + 1.5)
            .collect();
        let w: Vec<f32> = (0..cols)
            .map(|_| r.range(500, 1500) as f32 / 1000.0)
            .collect();
        let b: Vec<f32> = (0..cols)
            .map(|_| r.range(-999, 999) as f32 / 1000.0)
            .collect();
        let out = d.join("ln.bin");
        t.run(
            &d,
            [rows as u32, 1, 1],
            &[
                f32_file(&d.join("lx.bin"), &x),
                out_arg(&out, rows * stride),
                f32_file(&d.join("lw.bin"), &w),
                f32_file(&d.join("lb.bin"), &b),
                format!("i32={stride}"),
                format!("i32={cols}"),
                format!("f32={eps}"),
            ],
        );
        let got = read_u32s(&out);
        for row in 0..rows {
            let xs: Vec<f64> = x[row * stride..row * stride + cols]
                .iter()
                .map(|&v| v as f64)
                .collect();
            let mean = xs.iter().sum::<f64>() / cols as f64;
            let var = xs.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / cols as f64;
            let rstd = 1.0 / (var + eps as f64).sqrt();
            for c in 0..stride {
                let g = got[row * stride + c];
                if c < cols {
                    let want = (xs[c] - mean) * rstd * w[c] as f64 + b[c] as f64;
                    assert!(
                        close(g, want, 1e-4, 1e-5),
                        "{target} layernorm [{row}][{c}]"
                    );
                } else {
                    assert_eq!(g, POISON, "{target} layernorm gap [{row}][{c}]");
                }
            }
        }

        // row_reduce_i32: 3 rows of 300 i32 (3 loop iterations of BLOCK 128, the last
        // masked), stride 301; the padding holds i32::MAX (reading it is a visible bug).
        let t = Triton::load(target, "row_reduce_i32");
        let (rows, cols, stride) = (3usize, 300usize, 301usize);
        let mut x: Vec<u32> = (0..rows * stride).map(|_| r.next() as u32).collect();
        for v in &mut x[stride..2 * stride] {
            *v |= 0x8000_0000; // row 1 all negative
        }
        for row in 0..rows {
            x[row * stride + cols] = i32::MAX as u32;
        }
        let xin = d.join("rx.bin");
        write_u32s(&xin, &x);
        let (os, om) = (d.join("sum.bin"), d.join("max.bin"));
        t.run(
            &d,
            [rows as u32, 1, 1],
            &[
                format!("in={}", xin.display()),
                out_arg(&os, rows + 1),
                out_arg(&om, rows + 1),
                format!("i32={stride}"),
                format!("i32={cols}"),
            ],
        );
        let (gs, gm) = (read_u32s(&os), read_u32s(&om));
        for row in 0..rows {
            let xs = &x[row * stride..row * stride + cols];
            let s = xs.iter().fold(0u32, |a, &v| a.wrapping_add(v));
            let m = xs.iter().map(|&v| v as i32).max().unwrap();
            assert_eq!(gs[row], s, "{target} row_reduce sum [{row}]");
            assert_eq!(gm[row] as i32, m, "{target} row_reduce max [{row}]");
        }
        assert_eq!((gs[rows], gm[rows]), (POISON, POISON));

        // masked_tile_f32: 20 x 40 in 16 x 32 tiles (grid 2 x 2, edge tiles partial), stride
        // 45: 2x + 1 where x > 0, else fill; columns 40..45 stay poisoned.
        let t = Triton::load(target, "masked_tile_f32");
        let (m, n, stride, fill) = (20usize, 40usize, 45usize, -7.5f32);
        let x: Vec<f32> = (0..m * stride)
            .map(|_| r.range(-5000, 5000) as f32 / 256.0)
            .collect();
        let out = d.join("tile.bin");
        t.run(
            &d,
            [2, 2, 1],
            &[
                f32_file(&d.join("tx.bin"), &x),
                out_arg(&out, m * stride),
                format!("i32={m}"),
                format!("i32={n}"),
                format!("i32={stride}"),
                format!("f32={fill}"),
            ],
        );
        let got = read_u32s(&out);
        for i in 0..m * stride {
            let want = if i % stride >= n {
                POISON
            } else if x[i] > 0.0 {
                (2.0 * x[i] + 1.0).to_bits()
            } else {
                fill.to_bits()
            };
            assert_eq!(got[i], want, "{target} masked_tile [{i}]");
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
