//! RDNA WMMA/SWMMAC: shapes against LLVM's operand widths, layouts against the ISA's tables
//! and AMD's Matrix Instruction Calculator, execution against a host reference.
//!
//! Independent sources: register counts come from LLVM (the generated opcode tables, wave32
//! and wave64). The RDNA4 layouts are the bit-field tables of RDNA4 ISA 7.12.2 transcribed
//! here as the ISA prints them (`{col[2], row[3:0]}`) and evaluated by a small interpreter of
//! that notation, plus the ISA's worked wave32 example and its C/D formulas; the RDNA3
//! layouts are the Matrix Instruction Calculator's RDNA3 tables (`notes/rdna.md` §7.2). The
//! execution tests write every element through these test-side layouts, fill every other
//! register bit with noise, and compare D with f64/i64 loops over logical matrices.

#![allow(clippy::needless_range_loop)] // register-file tests index registers and lanes

use wavejit_translator::isa::generated::{rdna, RdnaInfo};
use wavejit_translator::isa::Gpu;
use wavejit_translator::matrix::gemm::best_isa;
use wavejit_translator::matrix::wmma::{operand_regs, plan, Wmma};
use wavejit_translator::matrix::*;

const NREGS: usize = 512;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Every WMMA/SWMMAC of `gpu` with its LLVM entry.
fn wmma_ops(gpu: Gpu) -> Vec<(&'static RdnaInfo, MatrixOp)> {
    let table: &[Option<RdnaInfo>] = if gpu == Gpu::GFX1100 {
        &rdna::GFX1100_VOP3P
    } else {
        &rdna::GFX1200_VOP3P
    };
    table
        .iter()
        .flatten()
        .filter(|i| i.mnemonic.starts_with("v_wmma") || i.mnemonic.starts_with("v_swmmac"))
        .map(|i| {
            let op = MatrixOp::from_mnemonic(i.mnemonic, gpu)
                .unwrap_or_else(|| panic!("{gpu}: no shape for {}", i.mnemonic));
            (i, op)
        })
        .collect()
}

fn target(gpu: Gpu, wave: usize) -> Wmma {
    Wmma {
        rdna4: gpu != Gpu::GFX1100,
        wave,
        ..Wmma::default()
    }
}

#[test]
fn register_counts_match_llvm() {
    let mut seen = 0;
    for gpu in [Gpu::GFX1100, Gpu::GFX1200, Gpu::GFX1201] {
        let ops = wmma_ops(gpu);
        // 6 RDNA3 instructions; 22 RDNA4 ones (11 WMMA, 11 SWMMAC).
        assert_eq!(ops.len(), if gpu == Gpu::GFX1100 { 6 } else { 22 }, "{gpu}");
        for (info, op) in ops {
            for wave in [32, 64] {
                let want = if wave == 32 {
                    info.widths
                } else {
                    info.widths64
                };
                let got = operand_regs(&op, &target(gpu, wave)).unwrap();
                assert_eq!(
                    got.map(|w| w as u8),
                    want,
                    "{gpu} wave{wave} {}: LLVM widths [D, A, B, C/index]",
                    info.mnemonic
                );
                seen += 1;
            }
        }
    }
    assert_eq!(seen, 2 * (6 + 22 + 22));
}

#[test]
fn mnemonics_parse_per_family() {
    let f = |n, g| MatrixOp::from_mnemonic(n, g);
    let op = f("v_wmma_i32_16x16x32_iu4", Gpu::GFX1200).unwrap();
    assert_eq!((op.k, op.a, op.acc), (32, Elem::U4, Acc::I32));
    let op = f("v_swmmac_f32_16x16x32_bf8_fp8", Gpu::GFX1201).unwrap();
    assert_eq!((op.k, op.k_a(), op.a, op.b), (32, 16, Elem::Bf8, Elem::Fp8));
    assert_eq!(op.kind, Kind::Swmmac);
    // RDNA3 has no FP8, no K = 32 and no sparse forms; CDNA names are not RDNA ones.
    assert!(f("v_wmma_f32_16x16x16_fp8_fp8", Gpu::GFX1100).is_none());
    assert!(f("v_wmma_i32_16x16x32_iu4", Gpu::GFX1100).is_none());
    assert!(f("v_swmmac_f32_16x16x32_f16", Gpu::GFX1100).is_none());
    assert!(f("v_mfma_f32_16x16x16_f16", Gpu::GFX1200).is_none());
    assert!(f("v_wmma_f32_16x16x16_f16", Gpu::GFX942).is_none());
}

// ---- test-side layouts --------------------------------------------------------------------

/// Evaluates the ISA's bit-field notation (`{col[2], row[3:0]}`, `row[1]`, `0`), MSB first.
fn field(expr: &str, row: usize, col: usize) -> usize {
    let body = expr.trim().trim_start_matches('{').trim_end_matches('}');
    let mut v = 0;
    for part in body.split(',') {
        let part = part.trim();
        if part == "0" {
            v <<= 1;
            continue;
        }
        let (name, range) = part.split_once('[').expect("name[bits]");
        let x = match name {
            "row" => row,
            "col" => col,
            _ => panic!("{name}"),
        };
        let range = range.trim_end_matches(']');
        let (hi, lo) = match range.split_once(':') {
            Some((h, l)) => (h.parse::<usize>().unwrap(), l.parse::<usize>().unwrap()),
            None => {
                let b = range.parse::<usize>().unwrap();
                (b, b)
            }
        };
        let w = hi - lo + 1;
        v = v << w | (x >> lo) & ((1 << w) - 1);
    }
    v
}

/// RDNA4 ISA 7.12.2 (L3619–3660) as printed: (lane, vgpr, startPosn) per table and wave size.
type Table = [(&'static str, &'static str, &'static str); 2];
const A16_16: Table = [
    ("{col[2], row[3:0]}", "{col[3], col[1]}", "col[0]"),
    ("{col[3:2], row[3:0]}", "col[1]", "col[0]"),
];
const A16_8: Table = [
    ("{col[3], row[3:0]}", "col[2]", "col[1:0]"),
    ("{col[2], col[3], row[3:0]}", "0", "col[1:0]"),
];
const A16_4: Table = [
    ("{col[3], row[3:0]}", "0", "col[2:0]"),
    ("{0, col[3], row[3:0]}", "0", "col[2:0]"),
];
const A32_4: Table = [
    ("{col[4], row[3:0]}", "col[3]", "col[2:0]"),
    ("{col[3], col[4], row[3:0]}", "0", "col[2:0]"),
];
const B16_16: Table = [
    ("{row[2], col[3:0]}", "{row[3], row[1]}", "row[0]"),
    ("{row[3:2], col[3:0]}", "row[1]", "row[0]"),
];
const B16_8: Table = [
    ("{row[3], col[3:0]}", "row[2]", "row[1:0]"),
    ("{row[2], row[3], col[3:0]}", "0", "row[1:0]"),
];
const B16_4: Table = [
    ("{row[3], col[3:0]}", "0", "row[2:0]"),
    ("{0, row[3], col[3:0]}", "0", "row[2:0]"),
];
const B32_4: Table = [
    ("{row[4], col[3:0]}", "row[3]", "row[2:0]"),
    ("{row[3], row[4], col[3:0]}", "0", "row[2:0]"),
];
const CD32: Table = [
    ("{row[3], col[3:0]}", "row[2:0]", "0"),
    ("{row[2], row[3], col[3:0]}", "row[1:0]", "0"),
];
const CD16: Table = [
    ("{row[3], col[3:0]}", "row[2:1]", "row[0]"),
    ("{row[2], row[3], col[3:0]}", "row[1]", "row[0]"),
];

/// A location: register offset, lane, bit offset.
type At = (usize, usize, usize);

fn from_table(t: &Table, wave: usize, bits: usize, row: usize, col: usize) -> At {
    let (l, v, p) = t[(wave == 64) as usize];
    (
        field(v, row, col),
        field(l, row, col),
        field(p, row, col) * bits,
    )
}

/// Which operand.
#[derive(Clone, Copy, PartialEq)]
enum Mat {
    A,
    B,
}

/// The test's location of A[i][k] (`Mat::A`, `k` < stored K) or B[k][j] (`Mat::B`, x = j).
/// RDNA3: lane x (of lanes 0..15, replicated), element k packed little-endian (Calculator).
/// RDNA4: the ISA tables; K beyond a table is two groups of it in consecutive VGPRs (ISA L3820).
fn input_at(w: &Wmma, mat: Mat, bits: usize, kdim: usize, x: usize, k: usize) -> At {
    if !w.rdna4 {
        let per = 32 / bits;
        return (k / per, x, (k % per) * bits);
    }
    let table_k = if bits == 4 { 32 } else { 16 };
    if kdim > table_k {
        let half = kdim / 2;
        let group = (16 * half * bits).div_ceil(32 * w.wave);
        let (r, l, s) = input_at(w, mat, bits, half, x, k % half);
        return (r + (k / half) * group, l, s);
    }
    let t = match (mat, bits, kdim) {
        (Mat::A, 16, _) => &A16_16,
        (Mat::A, 8, _) => &A16_8,
        (Mat::A, 4, 16) => &A16_4,
        (Mat::A, _, _) => &A32_4,
        (Mat::B, 16, _) => &B16_16,
        (Mat::B, 8, _) => &B16_8,
        (Mat::B, 4, 16) => &B16_4,
        (Mat::B, _, _) => &B32_4,
    };
    match mat {
        Mat::A => from_table(t, w.wave, bits, x, k),
        Mat::B => from_table(t, w.wave, bits, k, x),
    }
}

/// The test's location of C/D[i][j]. RDNA4: the ISA tables. RDNA3: the Matrix Instruction
/// Calculator's gfx11 output rule (its wave32 D table is in its README): 16-bit register slot
/// `skip·⌊i / (wave/16)⌋ + OPSEL[2]` (skip = 2 for 16-bit D, which uses one half per VGPR),
/// lane `(N·i + j) % wave`.
fn cd_at(w: &Wmma, sixteen: bool, i: usize, j: usize) -> At {
    if w.rdna4 {
        return if sixteen {
            from_table(&CD16, w.wave, 16, i, j)
        } else {
            from_table(&CD32, w.wave, 32, i, j)
        };
    }
    let lane = (16 * i + j) % w.wave;
    if sixteen {
        let slot = 2 * (i / (w.wave / 16)) + (w.opsel as usize >> 2 & 1);
        (slot / 2, lane, 16 * (slot % 2))
    } else {
        (i / (w.wave / 16), lane, 0)
    }
}

#[test]
fn notation_and_tables_agree_with_the_isa_text() {
    // The worked example (ISA L3693–3741): wave32 16-bit A, lane r holds k 0-3 and 8-11 in
    // V0..V3, lane 16 + r holds k 4-7 and 12-15.
    let w = target(Gpu::GFX1200, 32);
    for r in 0..16 {
        for (v, ks) in [[0, 1], [2, 3], [8, 9], [10, 11]].iter().enumerate() {
            for (h, &k) in ks.iter().enumerate() {
                assert_eq!(input_at(&w, Mat::A, 16, 16, r, k), (v, r, 16 * h));
                assert_eq!(input_at(&w, Mat::A, 16, 16, r, k + 4), (v, r + 16, 16 * h));
            }
        }
    }
    // The C/D formulas (ISA L3755–3773).
    for i in 0..16 {
        for j in 0..16 {
            let w64 = target(Gpu::GFX1200, 64);
            assert_eq!(cd_at(&w, false, i, j), (i % 8, (i / 8) * 16 + j, 0));
            assert_eq!(
                cd_at(&w, true, i, j),
                ((i % 8) / 2, (i / 8) * 16 + j, (i % 2) * 16)
            );
            let lane64 = (i / 4) % 2 * 32 + (i / 8) * 16 + j;
            assert_eq!(cd_at(&w64, false, i, j), (i % 4, lane64, 0));
            assert_eq!(cd_at(&w64, true, i, j), ((i % 4) / 2, lane64, (i % 2) * 16));
        }
    }
    // The RDNA3 B example of the Calculator (`--B-matrix`): lane l, v{t/2}.[16(t%2)+15:16(t%2)]
    // = B[t][l % 16].
    let w3 = target(Gpu::GFX1100, 32);
    assert_eq!(input_at(&w3, Mat::B, 16, 16, 5, 13), (6, 5, 16));
    // Its RDNA3 `v_wmma_f16_16x16x16_f16 --register-layout --D-matrix` tables (README): D[1][5]
    // is v0{21}.[15:0], D[14][3] v7{3}, D[15][15] v7{31}; with --opsel 4 the halves are [31:16].
    assert_eq!(cd_at(&w3, true, 1, 5), (0, 21, 0));
    assert_eq!(cd_at(&w3, true, 14, 3), (7, 3, 0));
    assert_eq!(cd_at(&w3, true, 15, 15), (7, 31, 0));
    let w3_hi = Wmma { opsel: 4, ..w3 };
    assert_eq!(cd_at(&w3_hi, true, 15, 15), (7, 31, 16));
}

/// Every element of every operand of every instruction, wave size and OPSEL: the plan reads
/// and writes exactly where the test's layouts say, and no two elements share a location.
#[test]
fn layouts_of_every_instruction_and_wave_size() {
    let opnds = Operands {
        d: 8,
        a: 100,
        b: 200,
        c: CSrc::Reg(300),
        index: 400,
    };
    let mut checked = 0;
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        for (info, op) in wmma_ops(gpu) {
            for wave in [32, 64] {
                for opsel in [0u8, 4] {
                    let w = Wmma {
                        opsel,
                        ..target(gpu, wave)
                    };
                    let p = plan(&op, &w, &opnds, NREGS).unwrap();
                    let name = format!("{} wave{wave} opsel {opsel}", info.mnemonic);
                    let sparse = op.kind == Kind::Swmmac;
                    let (ea, eb) = p.elems();
                    let (ab, bb) = (ea.bits() as usize, eb.bits() as usize);
                    let abs = |base: u16, (r, l, s): At| (base + r as u16, l as u8, s as u8);
                    let ka = op.k_a();
                    let mut want_a = Vec::new();
                    for i in 0..16 {
                        for k in 0..ka {
                            want_a.push(abs(100, input_at(&w, Mat::A, ab, ka, i, k)));
                        }
                    }
                    let mut got_a = if sparse {
                        p.slots(Which::SparseA)
                    } else {
                        p.slots(Which::A)
                    };
                    let mut want_sorted = want_a.clone();
                    if sparse {
                        // Stored in group order, the odd column first: compare as sets.
                        got_a.sort();
                        want_sorted.sort();
                        assert_eq!(got_a, want_sorted, "{name}: sparse A");
                    } else {
                        assert_eq!(got_a, want_a, "{name}: A");
                    }
                    want_sorted.dedup();
                    assert_eq!(want_sorted.len(), 16 * ka, "{name}: A elements collide");
                    let mut want_b = Vec::new();
                    for k in 0..op.k {
                        for j in 0..16 {
                            want_b.push(abs(200, input_at(&w, Mat::B, bb, op.k, j, k)));
                        }
                    }
                    assert_eq!(p.slots(Which::B), want_b, "{name}: B");
                    let mut uniq = want_b.clone();
                    uniq.sort();
                    uniq.dedup();
                    assert_eq!(uniq.len(), 16 * op.k, "{name}: B elements collide");
                    let sixteen = op.d16.is_some();
                    let c_base = if sparse { 8 } else { 300 };
                    let mut want_d = Vec::new();
                    let mut want_c = Vec::new();
                    for i in 0..16 {
                        for j in 0..16 {
                            want_d.push(abs(8, cd_at(&w, sixteen, i, j)));
                            want_c.push(abs(c_base, cd_at(&w, sixteen, i, j)));
                        }
                    }
                    assert_eq!(p.slots(Which::D), want_d, "{name}: D");
                    assert_eq!(p.slots(Which::C), want_c, "{name}: C");
                    let mut uniq = want_d.clone();
                    uniq.sort();
                    uniq.dedup();
                    assert_eq!(uniq.len(), 256, "{name}: D elements collide");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, (6 + 22) * 4);
}

// ---- execution ------------------------------------------------------------------------------

/// An exactly representable value ±(1 + m/4)·2^e, e in -2..=2 (2 significant fraction bits:
/// exact in f16, bf16, FP8 E4M3 and BF8 E5M2), and its code in `e`.
fn exact(rng: &mut Rng, e: Elem) -> (f64, u32) {
    let (s, ex, m) = (
        rng.below(2) as u32,
        rng.below(5) as i32 - 2,
        rng.below(4) as u32,
    );
    let v = (1.0 + m as f64 / 4.0) * 2f64.powi(ex) * if s == 1 { -1.0 } else { 1.0 };
    let code = match e {
        Elem::F16 => half::f16::from_f64(v).to_bits() as u32,
        Elem::Bf16 => half::bf16::from_f64(v).to_bits() as u32,
        Elem::Fp8 => s << 7 | ((ex + 7) as u32) << 3 | m << 1,
        Elem::Bf8 => s << 7 | ((ex + 15) as u32) << 2 | m,
        _ => panic!("{e:?}"),
    };
    (v, code)
}

/// A random integer element of `e` over its whole range, and its code.
fn int_elem(rng: &mut Rng, e: Elem) -> (f64, u32) {
    let code = rng.next() as u32 & if e.bits() == 8 { 0xFF } else { 0xF };
    let v = match e {
        Elem::I8 => code as u8 as i8 as f64,
        Elem::I4 => ((code as i32) << 28 >> 28) as f64,
        _ => code as f64,
    };
    (v, code)
}

fn put(regs: &mut [[u32; 64]], (r, l, s): At, bits: usize, code: u32) {
    let mask = if bits == 32 {
        u32::MAX
    } else {
        ((1u32 << bits) - 1) << s
    };
    regs[r][l] = (regs[r][l] & !mask) | (code << s & mask);
}

fn get(regs: &[[u32; 64]], (r, l, s): At, bits: usize) -> u32 {
    if bits == 32 {
        regs[r][l]
    } else {
        regs[r][l] >> s & ((1 << bits) - 1)
    }
}

fn shift_at(base: usize, (r, l, s): At) -> At {
    (base + r, l, s)
}

/// Runs `op` under `w` on random exact inputs written through the test's layouts and checks
/// D (bitwise) and that nothing else changed.
fn check(name: &str, op: &MatrixOp, w: &Wmma, seed: u64) {
    let mut rng = Rng(seed);
    let (a0, b0, c0, d0, x0) = (40usize, 80usize, 120usize, 160usize, 200usize);
    let sparse = op.kind == Kind::Swmmac;
    let int = op.acc == Acc::I32;
    let opnds = Operands {
        d: d0 as u16,
        a: a0 as u16,
        b: b0 as u16,
        c: CSrc::Reg(c0 as u16),
        index: x0 as u16,
    };
    let p = plan(op, w, &opnds, NREGS).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (ea, eb) = p.elems();
    let (ab, bb) = (ea.bits() as usize, eb.bits() as usize);
    let mut regs = vec![[0u32; 64]; NREGS];
    for r in regs.iter_mut() {
        for v in r.iter_mut() {
            *v = rng.next() as u32;
        }
    }
    let elem = |rng: &mut Rng, e: Elem| if int { int_elem(rng, e) } else { exact(rng, e) };
    // NEG/NEG_HI on 16-bit inputs negate by register half.
    let negates = |m: usize, s: usize| -> bool {
        let bit = if s >= 16 { w.neg_hi } else { w.neg };
        !int && ea.bits() == 16 && bit >> m & 1 == 1
    };
    let (k, ka) = (op.k, op.k_a());
    let replicas = if w.rdna4 { 1 } else { w.wave / 16 };
    let mut a = vec![0f64; 16 * k];
    const PAIRS: [(u32, u32); 6] = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
    let set_count = {
        // Index sets: 2 bits per packed item of a lane; 32 bits hold 32 / bits-per-set sets.
        let items = (0..16 * ka)
            .map(|x| {
                let (r, _, s) = input_at(w, Mat::A, ab, ka, x / ka, x % ka);
                r * (32 / ab) + s / ab
            })
            .max()
            .unwrap()
            + 1;
        (32 / (2 * items)).max(1)
    };
    let sel = (if w.wave == 32 {
        w.opsel & 1
    } else {
        w.opsel & 3
    }) as usize
        % set_count;
    for i in 0..16 {
        let mut pair = (0, 0);
        for kp in 0..ka {
            let (v, code) = elem(&mut rng, ea);
            let at = input_at(w, Mat::A, ab, ka, i, kp);
            for rep in 0..replicas {
                let (r, l, s) = at;
                put(&mut regs, shift_at(a0, (r, l + 16 * rep, s)), ab, code);
            }
            let v = if negates(0, at.2) { -v } else { v };
            if sparse {
                if kp % 2 == 0 {
                    pair = PAIRS[rng.below(6)];
                }
                let pos = if kp % 2 == 0 { pair.0 } else { pair.1 };
                let (r, l, s) = at;
                let item = r * (32 / ab) + s / ab;
                let bits_per_set = 32 / set_count;
                let shift = sel * bits_per_set + 2 * item;
                regs[x0][l] = regs[x0][l] & !(3 << shift) | pos << shift;
                a[i * k + 4 * (kp / 2) + pos as usize] = v;
            } else {
                a[i * k + kp] = v;
            }
        }
    }
    let mut b = vec![0f64; k * 16];
    for kk in 0..k {
        for j in 0..16 {
            let (v, code) = elem(&mut rng, eb);
            let at = input_at(w, Mat::B, bb, k, j, kk);
            for rep in 0..replicas {
                let (r, l, s) = at;
                put(&mut regs, shift_at(b0, (r, l + 16 * rep, s)), bb, code);
            }
            b[kk * 16 + j] = if negates(1, at.2) { -v } else { v };
        }
    }
    let sixteen = op.d16.is_some();
    let cd_bits = if sixteen { 16 } else { 32 };
    let c_base = if sparse { d0 } else { c0 };
    let mut c = vec![0f64; 256];
    for i in 0..16 {
        for j in 0..16 {
            let at = shift_at(c_base, cd_at(w, sixteen, i, j));
            let (v, code) = if int {
                let x = rng.next() as u32;
                (x as i32 as f64, x)
            } else {
                // A multiple of 2^-6 below 4 (exact in f16/bf16 when small enough to matter).
                let x = (rng.below(512) as f64 - 256.0) / 64.0;
                let code = match op.d16 {
                    Some(Elem::F16) => half::f16::from_f64(x).to_bits() as u32,
                    Some(_) => half::bf16::from_f64(x).to_bits() as u32,
                    None => (x as f32).to_bits(),
                };
                let back = match op.d16 {
                    Some(Elem::F16) => half::f16::from_bits(code as u16).to_f64(),
                    Some(_) => half::bf16::from_bits(code as u16).to_f64(),
                    None => x,
                };
                (back, code)
            };
            put(&mut regs, at, cd_bits, code);
            let v = if !int && w.neg_hi & 4 != 0 {
                v.abs()
            } else {
                v
            };
            c[i * 16 + j] = if !int && w.neg & 4 != 0 { -v } else { v };
        }
    }
    let before = regs.clone();
    p.run(best_isa(), &mut regs, 0, None)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut expect = before.clone();
    for i in 0..16 {
        for j in 0..16 {
            let exact_sum = (0..k).fold(c[i * 16 + j], |s, t| s + a[i * k + t] * b[t * 16 + j]);
            let code = if int {
                let s = exact_sum as i64;
                // CLAMP saturates on RDNA3 only (RDNA4 ISA 7.2.3: ignored for WMMA).
                (if w.clamp && !w.rdna4 {
                    s.clamp(i32::MIN as i64, i32::MAX as i64)
                } else {
                    s
                }) as i32 as u32
            } else {
                assert_eq!(
                    exact_sum as f32 as f64, exact_sum,
                    "{name}: inexact reference"
                );
                match op.d16 {
                    Some(Elem::F16) => half::f16::from_f64(exact_sum).to_bits() as u32,
                    Some(_) => half::bf16::from_f64(exact_sum).to_bits() as u32,
                    None => (exact_sum as f32).to_bits(),
                }
            };
            put(
                &mut expect,
                shift_at(d0, cd_at(w, sixteen, i, j)),
                cd_bits,
                code,
            );
        }
    }
    for r in 0..NREGS {
        for l in 0..64 {
            if regs[r][l] != expect[r][l] {
                let want = get(&expect, (r, l, 0), 32);
                panic!(
                    "{name}: v{r} lane {l}: {:#010x}, want {want:#010x} (before {:#010x})",
                    regs[r][l], before[r][l]
                );
            }
        }
    }
}

/// Every instruction, both wave sizes, with the modifiers it takes: exact results.
#[test]
fn every_instruction_computes_exactly() {
    let mut runs = 0;
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        for (info, op) in wmma_ops(gpu) {
            for wave in [32, 64] {
                let mut mods: Vec<(u8, u8, u8, bool)> = vec![(0, 0, 0, false)];
                let int = op.acc == Acc::I32;
                if int {
                    // Signedness of A and B; CLAMP.
                    mods.extend([(1, 0, 0, false), (2, 0, 0, true), (3, 0, 0, true)]);
                } else if op.a.bits() == 16 {
                    mods.extend([(1, 2, 0, false), (6, 1, 0, false), (3, 7, 0, false)]);
                } else {
                    mods.push((4, 4, 0, false)); // C: |C| negated
                }
                if op.d16.is_some() || op.kind == Kind::Swmmac {
                    mods.extend([(0, 0, 4, false), (0, 0, 1, false), (0, 0, 3, false)]);
                }
                for (n, &(neg, neg_hi, opsel, clamp)) in mods.iter().enumerate() {
                    let w = Wmma {
                        neg,
                        neg_hi,
                        opsel,
                        clamp,
                        ..target(gpu, wave)
                    };
                    let name = format!(
                        "{gpu} {} wave{wave} neg {neg} neg_hi {neg_hi} opsel {opsel} clamp {clamp}",
                        info.mnemonic
                    );
                    check(&name, &op, &w, 1000 + runs as u64 * 7 + n as u64);
                    runs += 1;
                }
            }
        }
    }
    assert!(runs > 150, "{runs}");
}

/// Full-range f16 inputs: the result is within the stated bound of the f64 dot product
/// (K roundings of at most 2^-24 relative to the running magnitudes).
#[test]
fn f16_results_are_within_the_bound_of_f64() {
    let op = MatrixOp::from_mnemonic("v_wmma_f32_16x16x16_f16", Gpu::GFX1200).unwrap();
    let w = target(Gpu::GFX1200, 32);
    let opnds = Operands {
        d: 0,
        a: 16,
        b: 24,
        c: CSrc::Imm(0),
        index: 0,
    };
    let p = plan(&op, &w, &opnds, NREGS).unwrap();
    let mut rng = Rng(77);
    let mut regs = vec![[0u32; 64]; NREGS];
    let mut a = vec![0f64; 256];
    let mut b = vec![0f64; 256];
    let rand = |rng: &mut Rng| {
        let v = (rng.next() % 2000) as f64 / 100.0 - 10.0 + 1.0 / 3.0;
        let h = half::f16::from_f64(v);
        (h.to_f64(), h.to_bits() as u32)
    };
    for i in 0..16 {
        for k in 0..16 {
            let (v, code) = rand(&mut rng);
            put(
                &mut regs,
                shift_at(16, input_at(&w, Mat::A, 16, 16, i, k)),
                16,
                code,
            );
            a[i * 16 + k] = v;
            let (v, code) = rand(&mut rng);
            put(
                &mut regs,
                shift_at(24, input_at(&w, Mat::B, 16, 16, i, k)),
                16,
                code,
            );
            b[k * 16 + i] = v;
        }
    }
    p.run(best_isa(), &mut regs, 0, None).unwrap();
    let mut inexact = 0;
    for i in 0..16 {
        for j in 0..16 {
            let terms: Vec<f64> = (0..16).map(|t| a[i * 16 + t] * b[t * 16 + j]).collect();
            let want: f64 = terms.iter().sum();
            let bound = 16.0 * 2f64.powi(-24) * terms.iter().map(|t| t.abs()).sum::<f64>();
            let got = f32::from_bits(get(&regs, cd_at(&w, false, i, j), 32)) as f64;
            assert!(
                (got - want).abs() <= bound,
                "D[{i}][{j}] = {got}, f64 {want}"
            );
            inexact += (got != want) as usize;
        }
    }
    // The inputs are not exact in f32 sums: some results must round.
    assert!(inexact > 0);
}

#[test]
fn bad_operands_are_errors() {
    let op = MatrixOp::from_mnemonic("v_wmma_i32_16x16x16_iu8", Gpu::GFX1200).unwrap();
    let w = target(Gpu::GFX1200, 32);
    let ok = Operands {
        d: 0,
        a: 16,
        b: 24,
        c: CSrc::Reg(0),
        index: 0,
    };
    assert!(plan(&op, &w, &ok, NREGS).is_ok());
    let past = Operands { d: 508, ..ok };
    assert_eq!(plan(&op, &w, &past, NREGS), Err(MatrixError::RegisterRange));
    let neg_hi = Wmma { neg_hi: 1, ..w };
    assert!(plan(&op, &neg_hi, &ok, NREGS).is_err());
    let fp8 = MatrixOp::from_mnemonic("v_wmma_f32_16x16x16_fp8_fp8", Gpu::GFX1200).unwrap();
    assert!(plan(&fp8, &Wmma { neg: 1, ..w }, &ok, NREGS).is_err());
    assert!(plan(&op, &Wmma { wave: 16, ..w }, &ok, NREGS).is_err());
}

/// The MFMA run-based fast path, where it takes a WMMA plan (dense, f32 D, no modifiers),
/// gives the generic executor's bits on random register contents (NaNs, infinities and
/// denormals included).
#[test]
fn fast_path_matches_the_generic_executor() {
    let opnds = Operands {
        d: 8,
        a: 40,
        b: 60,
        c: CSrc::Reg(80),
        index: 0,
    };
    let mut fast = 0;
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        for (info, op) in wmma_ops(gpu) {
            for wave in [32, 64] {
                let p = plan(&op, &target(gpu, wave), &opnds, NREGS).unwrap();
                if !p.has_fast_path() {
                    continue;
                }
                fast += 1;
                let mut rng = Rng(0xFA57 + fast);
                let mut regs = vec![[0u32; 64]; NREGS];
                for r in regs.iter_mut() {
                    for v in r.iter_mut() {
                        *v = rng.next() as u32;
                    }
                }
                let mut slow = regs.clone();
                p.run(best_isa(), &mut regs, 0, None).unwrap();
                p.clone()
                    .without_fast_path()
                    .run(best_isa(), &mut slow, 0, None)
                    .unwrap();
                assert!(regs == slow, "{gpu} wave{wave} {}", info.mnemonic);
            }
        }
    }
    // The f32-accumulating dense f16/bf16 forms (and RDNA4's FP8/BF8) take the fast path.
    assert!(fast >= 16, "only {fast} plans on the fast path");
}
