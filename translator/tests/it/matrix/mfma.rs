//! MFMA/SMFMAC: shapes against LLVM's operand widths, layouts against the ISA's worked
//! formulas and tables, and execution against a host reference on exact inputs.
//!
//! Independent sources: register counts come from LLVM (the generated opcode tables);
//! layout expectations are the CDNA4 ISA's examples and tables (7.1.4–7.1.6, 7.5) and AMD's
//! Matrix Instruction Calculator as recorded in `notes/cdna.md` §5; results are computed in
//! f64/i64 by plain loops over logical matrices.

#![allow(clippy::needless_range_loop)] // register-file tests index registers and lanes

use wavejit_translator::isa::generated::{gfx9, OpInfo, CLASS_MAI};
use wavejit_translator::isa::Gpu;
use wavejit_translator::matrix::gemm::Isa;
use wavejit_translator::matrix::layout::{
    a_loc, a_source_block, b_loc, blgp_lane, cd_loc, read_item, Loc,
};
use wavejit_translator::matrix::mfma::{execute_with, MODE_FP16_OVFL};
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

/// Every MFMA/SMFMAC opcode of a GFX9 target with LLVM's operand widths
/// `[vdst, src0, src1, src2]`.
fn matrix_ops(gpu: Gpu) -> Vec<(&'static OpInfo, MatrixOp)> {
    let table: &[Option<OpInfo>] = if gpu == Gpu::GFX942 {
        &gfx9::GFX942_VOP3P
    } else {
        &gfx9::GFX950_VOP3P
    };
    let mut out = Vec::new();
    for info in table.iter().flatten() {
        if info.class & CLASS_MAI == 0 || info.mnemonic == "v_mfma_ld_scale_b32" {
            continue;
        }
        let op = MatrixOp::from_mnemonic(info.mnemonic, gpu)
            .unwrap_or_else(|| panic!("{gpu}: no shape for {}", info.mnemonic));
        out.push((info, op));
    }
    out
}

#[test]
fn register_counts_match_llvm() {
    let mut seen = 0;
    for gpu in [Gpu::GFX942, Gpu::GFX950] {
        for (info, op) in matrix_ops(gpu) {
            let c = if op.kind == Kind::Sparse {
                1
            } else {
                op.cd_regs()
            };
            let want = [op.cd_regs(), op.a_regs(op.a), op.b_regs(op.b), c];
            assert_eq!(
                info.widths.map(|w| w as usize),
                want,
                "{gpu} {}: LLVM widths vs shape {op:?}",
                info.mnemonic
            );
            seen += 1;
        }
    }
    // gfx942 has 39 matrix opcodes in LLVM 22 and gfx950 adds more; a parser that skipped
    // them would make this test vacuous.
    assert!(seen > 90, "only {seen} matrix opcodes checked");
}

#[test]
fn formats_follow_the_target() {
    let fp8 = |g| MatrixOp::from_mnemonic("v_mfma_f32_16x16x32_fp8_bf8", g).unwrap();
    assert_eq!(
        (fp8(Gpu::GFX942).a, fp8(Gpu::GFX942).b),
        (Elem::Fp8Fnuz, Elem::Bf8Fnuz)
    );
    assert_eq!(
        (fp8(Gpu::GFX950).a, fp8(Gpu::GFX950).b),
        (Elem::Fp8, Elem::Bf8)
    );
    let op = MatrixOp::from_mnemonic("v_mfma_f32_32x32x1_2b_f32", Gpu::GFX942).unwrap();
    assert_eq!((op.m, op.n, op.k, op.blocks), (32, 32, 1, 2));
    assert!(MatrixOp::from_mnemonic("v_add_f32", Gpu::GFX942).is_none());
    assert!(MatrixOp::from_mnemonic("v_mfma_f32_32x32x8_f16", Gpu::GFX1100).is_none());
}

fn op(name: &str) -> MatrixOp {
    MatrixOp::from_mnemonic(name, Gpu::GFX950).unwrap()
}

#[test]
fn output_layout_32x32x1_2b_is_the_isa_example() {
    // ISA L2914-2916: D[b,i,j] in lane j+32·((i/4)%2), register 16b + 4(i/8) + (i%4).
    let o = op("v_mfma_f32_32x32x1_2b_f32");
    for b in 0..2 {
        for i in 0..32 {
            for j in 0..32 {
                let want = Loc {
                    lane: j + 32 * ((i / 4) % 2),
                    item: 16 * b + 4 * (i / 8) + i % 4,
                };
                assert_eq!(cd_loc(&o, b, i, j), want, "b{b} i{i} j{j}");
            }
        }
    }
}

#[test]
fn output_layouts_cover_every_register_lane_once() {
    for (_, o) in matrix_ops(Gpu::GFX950) {
        let per = if o.acc == Acc::F64 { 2 } else { 1 };
        let mut hit = vec![false; 64 * o.cd_regs() / per];
        for b in 0..o.blocks {
            for i in 0..o.m {
                for j in 0..o.n {
                    let l = cd_loc(&o, b, i, j);
                    assert!(l.lane < 64);
                    let slot = &mut hit[l.item * 64 + l.lane];
                    assert!(!*slot, "{o:?}: two elements at {l:?}");
                    *slot = true;
                }
            }
        }
        assert!(
            hit.iter().all(|&h| h),
            "{o:?} leaves a register lane unused"
        );
    }
}

#[test]
fn known_input_and_output_layouts() {
    // 16x16x16 f16: lane l holds A[l%16][4(l/16)..4(l/16)+3] (K_L = 4), B likewise by column.
    let o = op("v_mfma_f32_16x16x16_f16");
    assert_eq!(
        a_loc(&o, Elem::F16, 0, 5, 9),
        Loc {
            lane: 5 + 32,
            item: 1
        }
    );
    assert_eq!(
        b_loc(&o, Elem::F16, 0, 15, 3),
        Loc {
            lane: 3 + 48,
            item: 3
        }
    );
    // ... and D[i][j] in lane j + 16·(i/4), register i%4.
    assert_eq!(
        cd_loc(&o, 0, 6, 2),
        Loc {
            lane: 2 + 16,
            item: 2
        }
    );
    // 4x4x4_16b f16: block b in lanes 4b..4b+3, K_L = 4; D[b,i,j] in lane j+4b, register i.
    let o = op("v_mfma_f32_4x4x4_16b_f16");
    assert_eq!(
        a_loc(&o, Elem::F16, 7, 2, 3),
        Loc {
            lane: 2 + 28,
            item: 3
        }
    );
    assert_eq!(
        cd_loc(&o, 7, 2, 3),
        Loc {
            lane: 3 + 28,
            item: 2
        }
    );
    // F64 16x16x4: D rows packed across lanes into register pairs: i%4 picks the lane group.
    let o = op("v_mfma_f64_16x16x4_f64");
    assert_eq!(
        cd_loc(&o, 0, 5, 7),
        Loc {
            lane: 7 + 16,
            item: 1
        }
    );
    // F64 4x4x4_4b: the Matrix Instruction Calculator's lane j + 4b + 16i.
    let o = op("v_mfma_f64_4x4x4_4b_f64");
    assert_eq!(
        cd_loc(&o, 2, 3, 1),
        Loc {
            lane: 1 + 8 + 48,
            item: 0
        }
    );
    // F8F6F4 16x16x128, FP8: v0-3 hold k = 16g..16g+15, v4-7 k = 64+16g.. (ISA 7.1.5 table).
    let o = op("v_mfma_f32_16x16x128_f8f6f4");
    assert_eq!(
        a_loc(&o, Elem::Fp8, 0, 3, 16 * 2 + 5),
        Loc {
            lane: 3 + 32,
            item: 5
        }
    );
    assert_eq!(
        a_loc(&o, Elem::Fp8, 0, 3, 64 + 16 * 3 + 15),
        Loc {
            lane: 3 + 48,
            item: 31
        }
    );
    // ... FP4 follows the general rule: group g holds k = 32g..32g+31.
    assert_eq!(
        a_loc(&o, Elem::Fp4, 0, 3, 32 * 2 + 7),
        Loc {
            lane: 3 + 32,
            item: 7
        }
    );
    // 32x32x64 FP8: lanes 0-31 k 0-15 / 32-47, lanes 32-63 k 16-31 / 48-63.
    let o = op("v_mfma_f32_32x32x64_f8f6f4");
    assert_eq!(
        b_loc(&o, Elem::Fp8, 0, 20, 9),
        Loc {
            lane: 9 + 32,
            item: 4
        }
    );
    assert_eq!(b_loc(&o, Elem::Fp8, 0, 40, 9), Loc { lane: 9, item: 24 });
}

#[test]
fn broadcast_controls() {
    // BLGP, ISA Table 29.
    let table: [fn(usize) -> usize; 8] = [
        |l| l,
        |l| l % 32,
        |l| l % 32 + 32,
        |l| (l + 16) % 64,
        |l| l % 16,
        |l| l % 16 + 16,
        |l| l % 16 + 32,
        |l| l % 16 + 48,
    ];
    for (blgp, f) in table.iter().enumerate() {
        for l in 0..64 {
            assert_eq!(blgp_lane(blgp as u8, l), f(l));
        }
    }
    // The ISA's own example: CBSZ=1, ABID=1 on 32x32x1_2b broadcasts block 1 (lanes 32-63).
    assert_eq!(a_source_block(2, 1, 1, 0), Some(1));
    assert_eq!(a_source_block(2, 1, 1, 1), Some(1));
    // Block-group rule on 16 blocks: CBSZ=2, ABID=3: blocks 4..8 read block 7.
    assert_eq!(a_source_block(16, 2, 3, 5), Some(7));
    assert_eq!(a_source_block(16, 2, 3, 13), Some(15));
    // Illegal: 2^CBSZ > B, or ABID >= 2^CBSZ.
    assert_eq!(a_source_block(2, 2, 0, 0), None);
    assert_eq!(a_source_block(4, 1, 2, 0), None);
}

/// Raw codes of `e` whose value v is 0 or a multiple of 1/4 with |v| ≤ 8: sums of up to
/// 128 products stay exact in f32.
fn exact_codes(e: Elem) -> Vec<u64> {
    let bits = e.bits();
    let all: Box<dyn Iterator<Item = u64>> = match e {
        Elem::F32 | Elem::Xf32 => {
            Box::new((-32i32..=32).map(|q| (q as f32 / 4.0).to_bits() as u64))
        }
        Elem::F64 => Box::new((-32i32..=32).map(|q| (q as f64 / 4.0).to_bits())),
        Elem::I8 => Box::new(0..256),
        _ => Box::new(0..(1u64 << bits)),
    };
    all.filter(|&c| {
        if matches!(e, Elem::I8 | Elem::F64) {
            return true;
        }
        let v = e.to_f32(c as u32);
        v.is_finite() && v.abs() <= 8.0 && (v * 4.0).fract() == 0.0
    })
    .collect()
}

/// Fills `regs[base..base+n]` with items drawn from `codes` (`bits` wide) in every lane.
fn fill(regs: &mut [[u32; 64]], base: usize, n: usize, bits: u32, codes: &[u64], rng: &mut Rng) {
    let per_reg = if bits == 64 { 1 } else { (32 / bits) as usize };
    if bits == 6 {
        // Densely packed: write bit by bit.
        for lane in 0..64 {
            let items = n * 32 / 6;
            for r in 0..n {
                regs[base + r][lane] = 0;
            }
            for t in 0..items {
                let v = codes[rng.below(codes.len())];
                for bit in 0..6 {
                    let pos = 6 * (t % 32) + bit;
                    let r = 6 * (t / 32) + pos / 32;
                    regs[base + r][lane] |= (((v >> bit) & 1) as u32) << (pos % 32);
                }
            }
        }
        return;
    }
    for r in 0..n {
        for lane in 0..64 {
            if bits == 64 {
                if r % 2 == 0 {
                    let v = codes[rng.below(codes.len())];
                    regs[base + r][lane] = v as u32;
                    regs[base + r + 1][lane] = (v >> 32) as u32;
                }
                continue;
            }
            let mut w = 0u32;
            for t in 0..per_reg {
                w |= (codes[rng.below(codes.len())] as u32) << (t * bits as usize);
            }
            regs[base + r][lane] = w;
        }
    }
}

fn value(e: Elem, raw: u64) -> f64 {
    match e {
        Elem::I8 => raw as u8 as i8 as f64,
        Elem::F64 => f64::from_bits(raw),
        _ => e.to_f32(raw as u32) as f64,
    }
}

/// Expected D from the registers (as f64), by plain loops over logical matrices gathered
/// with the ISA layouts: broadcast by the block-group rule, BLGP lane remap, sparse A
/// expanded with its 2-bit indices.
fn reference(
    o: &MatrixOp,
    ea: Elem,
    eb: Elem,
    ctl: &Controls,
    regs: &[[u32; 64]],
    ops: &Operands,
) -> Vec<f64> {
    let dense = o.kind == Kind::Dense && o.acc != Acc::F64;
    let acc_bits = if o.acc == Acc::F64 { 64 } else { 32 };
    let acc_val = |raw: u64| match o.acc {
        Acc::F32 => f32::from_bits(raw as u32) as f64,
        Acc::I32 => raw as u32 as i32 as f64,
        Acc::F64 => f64::from_bits(raw),
    };
    let neg = |bit: u8| {
        if o.acc == Acc::F64 && ctl.blgp & bit != 0 {
            -1.0
        } else {
            1.0
        }
    };
    let mut out = vec![0f64; o.blocks * o.m * o.n];
    for b in 0..o.blocks {
        let sb = if dense {
            a_source_block(o.blocks, ctl.cbsz, ctl.abid, b).unwrap()
        } else {
            b
        };
        // Logical A (dense).
        let mut a = vec![0f64; o.m * o.k];
        for i in 0..o.m {
            if o.kind == Kind::Sparse {
                let set_bits = 2 * o.a_per_lane();
                let sets = 32 / set_bits;
                let set = if ctl.cbsz == 0 {
                    ctl.abid as usize % sets
                } else {
                    0
                };
                for kp in 0..o.k / 2 {
                    let l = a_loc(o, ea, 0, i, kp);
                    let idx =
                        regs[ops.index as usize][l.lane] as u64 >> (set * set_bits + 2 * l.item);
                    let k = 4 * (kp / 2) + (idx & 3) as usize;
                    a[i * o.k + k] = value(
                        ea,
                        read_item(regs, ops.a as usize, l.lane, l.item, ea.bits()).unwrap(),
                    );
                }
            } else {
                for k in 0..o.k {
                    let l = a_loc(o, ea, sb, i, k);
                    a[i * o.k + k] = neg(1)
                        * value(
                            ea,
                            read_item(regs, ops.a as usize, l.lane, l.item, ea.bits()).unwrap(),
                        );
                }
            }
        }
        for i in 0..o.m {
            for j in 0..o.n {
                let l = cd_loc(o, b, i, j);
                let c = match (o.kind, ops.c) {
                    (Kind::Sparse, _) => {
                        acc_val(read_item(regs, ops.d as usize, l.lane, l.item, acc_bits).unwrap())
                    }
                    (_, CSrc::Imm(v)) => acc_val(v),
                    (_, CSrc::Reg(r)) => {
                        acc_val(read_item(regs, r as usize, l.lane, l.item, acc_bits).unwrap())
                    }
                };
                let mut s = neg(4) * c;
                for k in 0..o.k {
                    let bl = b_loc(o, eb, b, k, j);
                    let lane = if dense {
                        blgp_lane(ctl.blgp, bl.lane)
                    } else {
                        bl.lane
                    };
                    let bv = neg(2)
                        * value(
                            eb,
                            read_item(regs, ops.b as usize, lane, bl.item, eb.bits()).unwrap(),
                        );
                    s += a[i * o.k + k] * bv;
                }
                out[(b * o.m + i) * o.n + j] = s;
            }
        }
    }
    out
}

fn read_d(o: &MatrixOp, regs: &[[u32; 64]], d: u16) -> Vec<u64> {
    let bits = if o.acc == Acc::F64 { 64 } else { 32 };
    let mut out = Vec::new();
    for b in 0..o.blocks {
        for i in 0..o.m {
            for j in 0..o.n {
                let l = cd_loc(o, b, i, j);
                out.push(read_item(regs, d as usize, l.lane, l.item, bits).unwrap());
            }
        }
    }
    out
}

/// Runs `o` on random exact inputs with controls `ctl` and checks every D element.
fn check_exact(o: &MatrixOp, ctl: Controls, seed: u64) {
    let (ea, eb) = match o.kind {
        Kind::F8f6f4 | Kind::ScaledF8f6f4 => (
            Elem::from_f8f6f4_code(ctl.cbsz).unwrap(),
            Elem::from_f8f6f4_code(ctl.blgp).unwrap(),
        ),
        _ => (o.a, o.b),
    };
    let mut rng = Rng(seed);
    let mut regs = vec![[0u32; 64]; NREGS];
    // A in VGPRs from v32, B from v64, C in AGPRs (a0 = 256), D elsewhere in AGPRs, the
    // index in v100; D poisoned.
    let ops = Operands {
        d: 256 + 64,
        a: 32,
        b: 64,
        c: CSrc::Reg(256),
        index: 100,
    };
    fill(
        &mut regs,
        32,
        o.a_regs(ea),
        ea.bits(),
        &exact_codes(ea),
        &mut rng,
    );
    fill(
        &mut regs,
        64,
        o.b_regs(eb),
        eb.bits(),
        &exact_codes(eb),
        &mut rng,
    );
    let acc_codes: Vec<u64> = match o.acc {
        Acc::F32 => (-64i32..64)
            .map(|q| (q as f32 / 2.0).to_bits() as u64)
            .collect(),
        Acc::I32 => (0..200).map(|_| rng.next() & 0xFFFF_FFFF).collect(),
        Acc::F64 => (-64i32..64).map(|q| (q as f64 / 2.0).to_bits()).collect(),
    };
    let acc_bits = if o.acc == Acc::F64 { 64 } else { 32 };
    fill(&mut regs, 256, o.cd_regs(), acc_bits, &acc_codes, &mut rng);
    for r in 0..o.cd_regs() {
        regs[256 + 64 + r] = [0xDEAD_BEEF; 64];
    }
    for lane in 0..64 {
        // Index fields: two distinct positions in each group of 4 (idx0 < idx1).
        let mut w = 0u32;
        for f in 0..8 {
            let p = rng.below(3);
            let q = p + 1 + rng.below(3 - p);
            w |= ((p | q << 2) as u32) << (4 * f);
        }
        regs[100][lane] = w;
    }
    let want = reference(o, ea, eb, &ctl, &regs, &ops);
    let before = regs.clone();
    execute_with(Isa::Portable, o, &ops, &ctl, None, &mut regs)
        .unwrap_or_else(|e| panic!("{o:?}: {e}"));
    let got = read_d(o, &regs, ops.d);
    for (x, (&g, &w)) in got.iter().zip(&want).enumerate() {
        let g = match o.acc {
            Acc::F32 => f32::from_bits(g as u32) as f64,
            Acc::I32 => g as u32 as i32 as f64,
            Acc::F64 => f64::from_bits(g),
        };
        let w = if o.acc == Acc::I32 {
            w as i64 as i32 as f64
        } else {
            w
        };
        assert_eq!(g, w, "{o:?} {ctl:?}: element {x}");
    }
    // Only D changed.
    for r in 0..NREGS {
        if !(256 + 64..256 + 64 + o.cd_regs()).contains(&r) {
            assert_eq!(regs[r], before[r], "{o:?}: register {r} changed");
        }
    }
    // Every host kernel variant gives the same bits.
    for isa in [Isa::Avx2, Isa::Avx512, Isa::Neon] {
        let mut again = before.clone();
        execute_with(isa, o, &ops, &ctl, None, &mut again).unwrap();
        assert_eq!(
            read_d(o, &again, ops.d),
            read_d(o, &regs, ops.d),
            "{o:?} {isa:?}"
        );
    }
}

#[test]
fn every_matrix_op_computes_exactly_on_exact_inputs() {
    let mut n = 0;
    for gpu in [Gpu::GFX942, Gpu::GFX950] {
        for (_, o) in matrix_ops(gpu) {
            let ctls: Vec<Controls> = match o.kind {
                Kind::F8f6f4 => (0..5)
                    .flat_map(|a| {
                        (0..5).map(move |b| Controls {
                            cbsz: a,
                            blgp: b,
                            ..Default::default()
                        })
                    })
                    .collect(),
                Kind::Sparse => (0..4)
                    .map(|abid| Controls {
                        abid,
                        ..Default::default()
                    })
                    .collect(),
                _ if o.acc == Acc::F64 => (0..8)
                    .map(|blgp| Controls {
                        blgp,
                        ..Default::default()
                    })
                    .collect(),
                _ => {
                    let mut v = vec![Controls::default()];
                    v.extend((1..8).map(|blgp| Controls {
                        blgp,
                        ..Default::default()
                    }));
                    let mut cbsz = 1;
                    while (1 << cbsz) <= o.blocks {
                        for abid in 0..(1 << cbsz) {
                            v.push(Controls {
                                cbsz,
                                abid,
                                blgp: abid % 8,
                                ..Default::default()
                            });
                        }
                        cbsz += 1;
                    }
                    v
                }
            };
            for (s, ctl) in ctls.iter().enumerate() {
                check_exact(&o, *ctl, 0x5EED + s as u64 + 131 * n as u64);
            }
            n += 1;
        }
    }
    assert!(n > 90);
}

/// `v` truncated toward zero to 11 significant bits (tf32: 10 stored mantissa bits), by
/// arithmetic on its binade; for normal finite `v`.
fn tf32_toward_zero(v: f32) -> f64 {
    let x = v as f64;
    let mut e = x.abs().log2().floor() as i32;
    while 2f64.powi(e) > x.abs() {
        e -= 1;
    }
    while 2f64.powi(e + 1) <= x.abs() {
        e += 1;
    }
    let ulp = 2f64.powi(e - 10);
    (x / ulp).trunc() * ulp
}

/// The two gfx942 xf32 MFMAs against the Matrix Instruction Calculator's layouts (written
/// out here: A[i][k] in register k%2 of lane i + M·(k/2), B[k][j] likewise by column, D as
/// the f32 MFMAs of the same M×N) and a host computation: the inputs truncated toward zero
/// to tf32 (ROCm/rocm-libraries PR 9176: gfx942 hardware truncates). One operand holds
/// distinct full-mantissa values in every register lane, the other powers of two, so every
/// sum is exact in f32 whatever the order; then the roles swap.
#[test]
fn xf32_truncates_inputs_with_the_calculator_layout() {
    type DLoc = fn(usize, usize) -> (usize, usize);
    let cases: [(&str, usize, DLoc); 2] = [
        ("v_mfma_f32_16x16x8_xf32", 16, |i, j| {
            (i % 4, j + 16 * (i / 4))
        }),
        ("v_mfma_f32_32x32x4_xf32", 32, |i, j| {
            (4 * (i / 8) + i % 4, j + 32 * ((i / 4) % 2))
        }),
    ];
    let mut rng = Rng(0xF32);
    for (name, mn, d_loc) in cases {
        let o = MatrixOp::from_mnemonic(name, Gpu::GFX942).unwrap();
        let k_len = 128 / mn;
        assert_eq!((o.m, o.n, o.k, o.a_regs(Elem::Xf32)), (mn, mn, k_len, 2));
        for full_a in [true, false] {
            let mut regs = vec![[0u32; 64]; NREGS];
            // Full-mantissa values in [1/8, 8), all distinct, low 13 bits never all zero.
            let mut full = std::collections::HashSet::new();
            let mut draw_full = |rng: &mut Rng| loop {
                let e = 124 + rng.below(6) as u32;
                let bits =
                    (rng.next() as u32 >> 31) << 31 | e << 23 | rng.next() as u32 & 0x7F_FFFF;
                if bits & 0x1FFF != 0 && full.insert(bits) {
                    break bits;
                }
            };
            let pow2 = [0.5f32, 1.0, 2.0, 4.0, -0.5, -1.0, -2.0, -4.0];
            for r in 0..2 {
                for lane in 0..64 {
                    let (fa, fb) = (draw_full(&mut rng), draw_full(&mut rng));
                    let (pa, pb) = (pow2[rng.below(8)].to_bits(), pow2[rng.below(8)].to_bits());
                    regs[8 + r][lane] = if full_a { fa } else { pa };
                    regs[16 + r][lane] = if full_a { pb } else { fb };
                }
            }
            for r in 0..16 {
                for lane in 0..64 {
                    regs[32 + r][lane] = ((rng.below(8192) as f32 - 4096.0) / 1024.0).to_bits();
                    regs[64 + r][lane] = 0xDEAD_BEEF;
                }
            }
            let ops = Operands {
                d: 64,
                a: 8,
                b: 16,
                c: CSrc::Reg(32),
                index: 0,
            };
            let before = regs.clone();
            execute_with(
                Isa::Portable,
                &o,
                &ops,
                &Controls::default(),
                None,
                &mut regs,
            )
            .unwrap();
            let rd = |reg: usize, lane: usize| f32::from_bits(before[reg][lane]);
            for i in 0..mn {
                for j in 0..mn {
                    let (dr, dl) = d_loc(i, j);
                    let mut want = rd(32 + dr, dl) as f64;
                    for k in 0..k_len {
                        let a = rd(8 + k % 2, i + mn * (k / 2));
                        let b = rd(16 + k % 2, j + mn * (k / 2));
                        want += tf32_toward_zero(a) * tf32_toward_zero(b);
                    }
                    assert_eq!(
                        f32::from_bits(regs[64 + dr][dl]) as f64,
                        want,
                        "{name} full_a={full_a} D[{i}][{j}]"
                    );
                }
            }
        }
    }
    // NaN stays NaN even when its payload lies only in the truncated bits.
    assert!(Elem::Xf32.to_f32(0x7F80_0001).is_nan());
    assert_eq!(Elem::Xf32.to_f32(0x7F80_0000), f32::INFINITY);
}

#[test]
fn registers_past_the_file_are_an_error() {
    let o = op("v_mfma_f32_32x32x8_f16");
    let mut regs = vec![[0u32; 64]; NREGS];
    let ops = Operands {
        d: 500,
        a: 8,
        b: 16,
        c: CSrc::Imm(0),
        index: 0,
    };
    assert_eq!(
        execute(&o, &ops, &Controls::default(), None, &mut regs),
        Err(MatrixError::RegisterRange)
    );
}

#[test]
fn fp16_ovfl_clamps_f32_overflow_and_saturates_i32() {
    // 16x16x4 f32 with A = B = 1e20: every product overflows f32.
    let o = op("v_mfma_f32_16x16x4_f32");
    let mut regs = vec![[0u32; 64]; NREGS];
    regs[8] = [1e20f32.to_bits(); 64];
    regs[9] = [1e20f32.to_bits(); 64];
    let ops = Operands {
        d: 0,
        a: 8,
        b: 9,
        c: CSrc::Imm(1.0f32.to_bits() as u64),
        index: 0,
    };
    execute(&o, &ops, &Controls::default(), None, &mut regs).unwrap();
    assert_eq!(f32::from_bits(regs[0][0]), f32::INFINITY);
    let ctl = Controls {
        mode: MODE_FP16_OVFL,
        ..Default::default()
    };
    execute(&o, &ops, &ctl, None, &mut regs).unwrap();
    assert_eq!(f32::from_bits(regs[0][0]), f32::MAX);
    // A true infinity input stays infinite under the clamp.
    let ops_inf = Operands {
        c: CSrc::Imm(f32::INFINITY.to_bits() as u64),
        ..ops
    };
    execute(&o, &ops_inf, &ctl, None, &mut regs).unwrap();
    assert_eq!(f32::from_bits(regs[0][5]), f32::INFINITY);
    // i8: 127·127·32 + i32::MAX wraps, or saturates with the clamp.
    let o = op("v_mfma_i32_16x16x32_i8");
    let mut regs = vec![[0u32; 64]; NREGS];
    for r in 8..12 {
        regs[r] = [0x7F7F_7F7F; 64];
    }
    let ops = Operands {
        d: 0,
        a: 8,
        b: 10,
        c: CSrc::Imm(i32::MAX as u32 as u64),
        index: 0,
    };
    execute(&o, &ops, &Controls::default(), None, &mut regs).unwrap();
    assert_eq!(regs[0][0], (i32::MAX as u32).wrapping_add(127 * 127 * 32));
    execute(&o, &ops, &ctl, None, &mut regs).unwrap();
    assert_eq!(regs[0][0], i32::MAX as u32);
}

#[test]
fn f16_rounding_error_is_within_the_stated_bound() {
    // Random f16 in [-1, 1]: |D - exact| <= K·2^-24·(|C| + Σ|a·b|) per element.
    let o = op("v_mfma_f32_32x32x8_f16");
    let mut rng = Rng(99);
    let mut regs = vec![[0u32; 64]; NREGS];
    let codes: Vec<u64> = (0..4096)
        .map(|_| half::f16::from_f32((rng.next() % 20001) as f32 / 10000.0 - 1.0).to_bits() as u64)
        .collect();
    fill(&mut regs, 8, 4, 16, &codes, &mut rng);
    let c = 0.3f32;
    let ops = Operands {
        d: 16,
        a: 8,
        b: 10,
        c: CSrc::Imm(c.to_bits() as u64),
        index: 0,
    };
    let exact = reference(&o, Elem::F16, Elem::F16, &Controls::default(), &regs, &ops);
    execute(&o, &ops, &Controls::default(), None, &mut regs).unwrap();
    let got = read_d(&o, &regs, 16);
    let mut worst = 0f64;
    for (x, (&g, &w)) in got.iter().zip(&exact).enumerate() {
        let err = (f32::from_bits(g as u32) as f64 - w).abs();
        let bound = 8.0 * 2f64.powi(-24) * (c as f64 + 8.0);
        assert!(err <= bound, "element {x}: err {err} > {bound}");
        worst = worst.max(err);
    }
    assert!(worst > 0.0, "random inputs should round somewhere");
}

#[test]
fn block_scales_multiply_each_k_block() {
    let o = MatrixOp::from_mnemonic("v_mfma_scale_f32_16x16x128_f8f6f4", Gpu::GFX950).unwrap();
    let mut regs = vec![[0u32; 64]; NREGS];
    // FP4 (code 4) A and B all 1.0 (0x2): each K block of 32 sums to 32.
    for r in 8..12 {
        regs[r] = [0x2222_2222; 64];
    }
    for r in 16..20 {
        regs[r] = [0x2222_2222; 64];
    }
    let mut s = Scales {
        a: [127; 64],
        b: [127; 64],
    };
    // Row 3's K block 2 scaled by 2^3, column 5's K block 0 by 2^-1, column 6's block 1 NaN.
    s.a[3 + 16 * 2] = 130;
    s.b[5] = 126;
    s.b[6 + 16] = 0xFF;
    let ops = Operands {
        d: 24,
        a: 8,
        b: 16,
        c: CSrc::Imm(1.0f32.to_bits() as u64),
        index: 0,
    };
    let ctl = Controls {
        cbsz: 4,
        blgp: 4,
        abid: 1,
        mode: 0,
    };
    execute(&o, &ops, &ctl, Some(&s), &mut regs).unwrap();
    let d = |i, j| {
        let l = cd_loc(&o, 0, i, j);
        f32::from_bits(regs[24 + l.item][l.lane])
    };
    assert_eq!(d(0, 0), 1.0 + 4.0 * 32.0);
    assert_eq!(d(3, 0), 1.0 + 3.0 * 32.0 + 8.0 * 32.0);
    assert_eq!(d(0, 5), 1.0 + 3.0 * 32.0 + 16.0);
    assert_eq!(d(3, 5), 1.0 + 2.0 * 32.0 + 16.0 + 8.0 * 32.0);
    assert!(d(0, 6).is_nan());
    // ABID[0] = 0 ignores the scales (ISA L3114-3116).
    let ctl = Controls { abid: 0, ..ctl };
    execute(&o, &ops, &ctl, Some(&s), &mut regs).unwrap();
    assert_eq!(
        {
            let l = cd_loc(&o, 0, 3, 5);
            f32::from_bits(regs[24 + l.item][l.lane])
        },
        1.0 + 128.0
    );
}
