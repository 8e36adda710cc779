//! Interpreter unit tests per op family. Expected values are worked out by hand from IEEE-754
//! encodings and the ISA/IR definitions, or computed independently on the host.

use wavejit_translator::env::{ExecFault, ExitCode, MemError, Space};
use wavejit_translator::interp::{run_block, test_env::FlatEnv};
use wavejit_translator::ir::*;
use wavejit_translator::wave::{InstClass, WaveState};

const POISON: u32 = 0xDEAD_BEEF;

fn state() -> Box<WaveState> {
    let mut s = WaveState::new_boxed(64);
    for r in 0..16 {
        for l in 0..64 {
            s.vgpr[r][l] = POISON ^ (r as u32 * 131 + l as u32);
        }
    }
    s.set_exec(u64::MAX);
    s
}

fn c32(b: &mut Builder, x: u32) -> Val {
    b.push(
        Op::Const {
            ty: Ty::S32,
            bits: x as u64,
        },
        Some(Ty::S32),
    )
}

fn c64(b: &mut Builder, x: u64) -> Val {
    b.push(
        Op::Const {
            ty: Ty::S64,
            bits: x,
        },
        Some(Ty::S64),
    )
}

/// Evaluates a scalar binary op once through the interpreter (result written to s0/s1).
fn scalar_bin(op: BinOp, ty: Ty, a: u64, bb: u64) -> u64 {
    let mut b = Builder::new(0x100, 64);
    let x = b.push(Op::Const { ty, bits: a }, Some(ty));
    let y = b.push(Op::Const { ty, bits: bb }, Some(ty));
    let r = b.push(Op::Bin(op, x, y), Some(ty));
    store_scalar(&mut b, ty, r)
}

fn store_scalar(b: &mut Builder, ty: Ty, r: Val) -> u64 {
    let (lo, hi) = if ty == Ty::S64 {
        let lo = b.push(Op::Conv(ConvOp::Lo, r), Some(Ty::S32));
        let hi = b.push(Op::Conv(ConvOp::Hi, r), Some(Ty::S32));
        (lo, hi)
    } else {
        (r, c32(b, 0))
    };
    b.push(Op::SetSgpr(0, lo), None);
    b.push(Op::SetSgpr(1, hi), None);
    let blk = std::mem::replace(b, Builder::new(0, 64)).finish(Exit::EndPgm);
    let mut s = state();
    let mut env = FlatEnv::new(0x1000, 64, 64, 0);
    assert_eq!(run_block(&blk, &mut s, &mut env), Ok(ExitCode::EndPgm));
    s.sgpr64(0)
}

fn scalar_un(op: UnOp, ty: Ty, a: u64) -> u64 {
    let mut b = Builder::new(0x100, 64);
    let x = b.push(Op::Const { ty, bits: a }, Some(ty));
    let r = b.push(Op::Un(op, x), Some(ty));
    store_scalar(&mut b, ty, r)
}

fn scalar_conv(op: ConvOp, src: Ty, dst: Ty, a: u64) -> u64 {
    let mut b = Builder::new(0x100, 64);
    let x = b.push(Op::Const { ty: src, bits: a }, Some(src));
    let r = b.push(Op::Conv(op, x), Some(dst));
    store_scalar(&mut b, dst, r)
}

#[test]
fn masked_vector_add_keeps_inactive_lanes() {
    let mut b = Builder::new(0x100, 64);
    let v0 = b.push(Op::GetVgpr(0), Some(Ty::V32));
    let v1 = b.push(Op::GetVgpr(1), Some(Ty::V32));
    let sum = b.push(Op::Bin(BinOp::Add, v0, v1), Some(Ty::V32));
    let m = c64(&mut b, 0xF0F0_0000_0000_FFFF);
    b.push(
        Op::SetVgpr {
            reg: 2,
            val: sum,
            mask: m,
        },
        None,
    );
    b.push(Op::CountVector { mask: m }, None);
    b.count_inst(InstClass::Valu, 0x108);
    let blk = b.finish(Exit::Jump(0x200));
    let mut s = state();
    let before = s.vgpr[2];
    let mut env = FlatEnv::new(0x1000, 64, 64, 0);
    assert_eq!(run_block(&blk, &mut s, &mut env), Ok(ExitCode::Continue));
    assert_eq!(s.pc, 0x200);
    for (l, old) in before.iter().enumerate() {
        let want = if (0xF0F0_0000_0000_FFFFu64 >> l) & 1 == 1 {
            s.vgpr[0][l].wrapping_add(s.vgpr[1][l])
        } else {
            *old
        };
        assert_eq!(s.vgpr[2][l], want, "lane {l}");
    }
    assert_eq!(s.counters.vector_insts, 1);
    assert_eq!(s.counters.active_lanes, 16 + 8);
    assert_eq!(s.counters.by_class[InstClass::Valu as usize], 1);
}

#[test]
fn integer_ops() {
    let t = Ty::S32;
    assert_eq!(scalar_bin(BinOp::Sub, t, 3, 5), 0xFFFF_FFFE);
    assert_eq!(
        scalar_bin(BinOp::MulHiU, t, 0xFFFF_FFFF, 0xFFFF_FFFF),
        0xFFFF_FFFE
    );
    assert_eq!(scalar_bin(BinOp::MulHiS, t, 0xFFFF_FFFF, 0xFFFF_FFFF), 0);
    assert_eq!(scalar_bin(BinOp::Shl, t, 1, 33), 2);
    assert_eq!(scalar_bin(BinOp::AShr, t, 0x8000_0000, 31), 0xFFFF_FFFF);
    assert_eq!(scalar_bin(BinOp::SMin, t, 0xFFFF_FFFF, 1), 0xFFFF_FFFF);
    assert_eq!(scalar_bin(BinOp::UMin, t, 0xFFFF_FFFF, 1), 1);
    assert_eq!(scalar_bin(BinOp::AddCarry, t, 0xFFFF_FFFF, 1), 1);
    assert_eq!(scalar_bin(BinOp::SubBorrow, t, 1, 2), 1);
    assert_eq!(
        scalar_bin(BinOp::MulHiU, Ty::S64, u64::MAX, 3),
        2,
        "(2^64-1)*3 >> 64"
    );
    assert_eq!(scalar_un(UnOp::Clz, t, 0), 32);
    assert_eq!(scalar_un(UnOp::Ctz, t, 0x80), 7);
    assert_eq!(scalar_un(UnOp::BitReverse, t, 1), 0x8000_0000);
    assert_eq!(scalar_un(UnOp::Popcnt, Ty::S64, u64::MAX), 64);
}

#[test]
fn bitfield_ops() {
    let mut b = Builder::new(0, 64);
    let a = c32(&mut b, 0xF0F0_1234);
    let off = c32(&mut b, 4);
    let w = c32(&mut b, 8);
    let r = b.push(Op::Tern(TernOp::Bfe, a, off, w), Some(Ty::S32));
    assert_eq!(store_scalar(&mut b, Ty::S32, r), 0x23);
    let mut b = Builder::new(0, 64);
    let a = c32(&mut b, 0x80);
    let off = c32(&mut b, 0);
    let w = c32(&mut b, 8);
    let r = b.push(Op::Tern(TernOp::SBfe, a, off, w), Some(Ty::S32));
    assert_eq!(store_scalar(&mut b, Ty::S32, r), 0xFFFF_FF80);
    let mut b = Builder::new(0, 64);
    let m = c32(&mut b, 0x0000_FFFF);
    let x = c32(&mut b, 0x1234_5678);
    let y = c32(&mut b, 0xABCD_EF01);
    let r = b.push(Op::Tern(TernOp::Bfi, m, x, y), Some(Ty::S32));
    assert_eq!(store_scalar(&mut b, Ty::S32, r), 0xABCD_5678);
}

#[test]
fn float_arithmetic_and_nan_rule() {
    let t = Ty::S32;
    // 1.5 + 2.25 = 3.75 = 0x40700000.
    assert_eq!(
        scalar_bin(BinOp::FAdd, t, 0x3FC0_0000, 0x4010_0000),
        0x4070_0000
    );
    // qNaN operand propagates with its payload.
    assert_eq!(
        scalar_bin(BinOp::FAdd, t, 0x3F80_0000, 0xFFC0_1234),
        0xFFC0_1234
    );
    // sNaN is quieted; the first NaN operand wins.
    assert_eq!(
        scalar_bin(BinOp::FMul, t, 0x7F80_0001, 0x7FC0_0002),
        0x7FC0_0001
    );
    // inf - inf = default NaN.
    assert_eq!(
        scalar_bin(BinOp::FSub, t, 0x7F80_0000, 0x7F80_0000),
        0x7FC0_0000
    );
    // 1 / 3 = 0x3EAAAAAB (correctly rounded).
    assert_eq!(
        scalar_bin(BinOp::FDiv, t, 0x3F80_0000, 0x4040_0000),
        0x3EAA_AAAB
    );
    // f64: 0.1 + 0.2 = 0x3FD3333333333334.
    assert_eq!(
        scalar_bin(
            BinOp::FAdd,
            Ty::S64,
            0x3FB9_9999_9999_999A,
            0x3FC9_9999_9999_999A
        ),
        0x3FD3_3333_3333_3334
    );
    assert_eq!(scalar_un(UnOp::FSqrt, t, 0xBF80_0000), 0x7FC0_0000);
    assert_eq!(scalar_un(UnOp::FSqrt, t, 0x4080_0000), 0x4000_0000);
    assert_eq!(scalar_un(UnOp::FRsq, t, 0x8000_0000), 0xFF80_0000);
    assert_eq!(
        scalar_un(UnOp::FNeg, t, 0x7F80_0001),
        0xFF80_0001,
        "no quieting"
    );
    assert_eq!(scalar_un(UnOp::FQuiet, t, 0x7F80_0001), 0x7FC0_0001);
    // floor(-0.5) = -1, ceil(-0.5) = -0, round_even(2.5) = 2.
    assert_eq!(scalar_un(UnOp::FFloor, t, 0xBF00_0000), 0xBF80_0000);
    assert_eq!(scalar_un(UnOp::FCeil, t, 0xBF00_0000), 0x8000_0000);
    assert_eq!(scalar_un(UnOp::FRoundEven, t, 0x4020_0000), 0x4000_0000);
    // fract(-1e-30) would be 1.0 after rounding: clamped to 0x3F7FFFFF.
    assert_eq!(scalar_un(UnOp::FFract, t, 0x8DA2_4260), 0x3F7F_FFFF);
    assert_eq!(scalar_un(UnOp::FFract, t, 0x7F80_0000), 0x7FC0_0000);
    // fract(2.75) = 0.75.
    assert_eq!(scalar_un(UnOp::FFract, t, 0x4030_0000), 0x3F40_0000);
}

#[test]
fn fma_single_rounding() {
    // a = 1 + 2^-23, b = 1 - 2^-23, c = -1: exact product 1 - 2^-46, fma gives -2^-46
    // while a separate multiply would round the product to 1 and give 0.
    let mut b = Builder::new(0, 64);
    let x = c32(&mut b, 0x3F80_0001);
    let y = c32(&mut b, 0x3F7F_FFFE);
    let z = c32(&mut b, 0xBF80_0000);
    let r = b.push(Op::Tern(TernOp::Fma, x, y, z), Some(Ty::S32));
    assert_eq!(store_scalar(&mut b, Ty::S32, r), 0xA880_0000);
}

#[test]
fn min_max_num() {
    let t = Ty::S32;
    assert_eq!(
        scalar_bin(BinOp::FMinNum, t, 0x0000_0000, 0x8000_0000),
        0x8000_0000
    );
    assert_eq!(
        scalar_bin(BinOp::FMaxNum, t, 0x8000_0000, 0x0000_0000),
        0x0000_0000
    );
    assert_eq!(
        scalar_bin(BinOp::FMinNum, t, 0x7FC0_0000, 0x4040_0000),
        0x4040_0000
    );
    assert_eq!(
        scalar_bin(BinOp::FMaxNum, t, 0x4040_0000, 0x7F80_0001),
        0x4040_0000
    );
    assert_eq!(
        scalar_bin(BinOp::FMaxNum, t, 0x7F80_0001, 0x7FC0_0005),
        0x7FC0_0001
    );
    assert_eq!(
        scalar_bin(BinOp::FMinNum, t, 0xBF80_0000, 0x3F80_0000),
        0xBF80_0000
    );
}

#[test]
fn ldexp_rounds_once() {
    let t = Ty::S32;
    // 1.0 * 2^-149 = smallest denormal.
    assert_eq!(
        scalar_bin(BinOp::FLdexp, t, 0x3F80_0000, (-149i32) as u32 as u64),
        1
    );
    // 1.5 * 2^-149 is a tie between 1 and 2 units: even → 2.
    assert_eq!(
        scalar_bin(BinOp::FLdexp, t, 0x3FC0_0000, (-149i32) as u32 as u64),
        2
    );
    assert_eq!(scalar_bin(BinOp::FLdexp, t, 0x3F80_0000, 128), 0x7F80_0000);
    assert_eq!(scalar_bin(BinOp::FLdexp, t, 0x3F80_0000, 3), 0x4100_0000);
    // f64: 1.0 * 2^-1074 = 1 unit; 0.75 * 2^-1073 = 1.5 units → 2.
    assert_eq!(
        scalar_bin(
            BinOp::FLdexp,
            Ty::S64,
            0x3FF0_0000_0000_0000,
            (-1074i64) as u64
        ),
        1
    );
    assert_eq!(
        scalar_bin(
            BinOp::FLdexp,
            Ty::S64,
            0x3FE8_0000_0000_0000,
            (-1073i32) as u32 as u64
        ),
        2
    );
}

#[test]
fn conversions() {
    use ConvOp::*;
    let (s32, s64) = (Ty::S32, Ty::S64);
    assert_eq!(scalar_conv(F32ToF16, s32, s32, 0x3F80_0000), 0x3C00);
    assert_eq!(scalar_conv(F32ToF16, s32, s32, 0x477F_E000), 0x7BFF); // 65504
    assert_eq!(scalar_conv(F32ToF16, s32, s32, 0x477F_F000), 0x7C00); // 65520 → inf
    assert_eq!(scalar_conv(F32ToF16, s32, s32, 0x3380_0000), 0x0001); // 2^-24
    assert_eq!(scalar_conv(F32ToF16, s32, s32, 0x3300_0000), 0x0000); // 2^-25 tie → 0
    assert_eq!(scalar_conv(F32ToF16, s32, s32, 0xFF80_0001), 0xFE00);
    assert_eq!(scalar_conv(F16ToF32, s32, s32, 0x3555), 0x3EAA_A000);
    assert_eq!(scalar_conv(F16ToF32, s32, s32, 0x8001), 0xB380_0000);
    assert_eq!(scalar_conv(F32ToI32, s32, s32, 0x7FC0_0000), 0);
    assert_eq!(scalar_conv(F32ToI32, s32, s32, 0xCF80_0000), 0x8000_0000);
    assert_eq!(scalar_conv(F32ToU32, s32, s32, 0xBF80_0000), 0);
    assert_eq!(scalar_conv(F32ToU32, s32, s32, 0x4F80_0000), 0xFFFF_FFFF);
    assert_eq!(scalar_conv(I32ToF32, s32, s32, 0xFFFF_FFFF), 0xBF80_0000);
    // 16777217 rounds to even 16777216.
    assert_eq!(scalar_conv(U32ToF32, s32, s32, 16_777_217), 0x4B80_0000);
    assert_eq!(
        scalar_conv(F32ToF64, s32, s64, 0x7F80_0001),
        0x7FF8_0000_2000_0000
    );
    assert_eq!(
        scalar_conv(F64ToF32, s64, s32, 0x3FF0_0000_0000_0000),
        0x3F80_0000
    );
    assert_eq!(
        scalar_conv(SExt, s32, s64, 0x8000_0000),
        0xFFFF_FFFF_8000_0000
    );
    assert_eq!(scalar_conv(SExt16, s32, s32, 0x0000_8001), 0xFFFF_8001);
    assert_eq!(
        scalar_conv(Hi, s64, s32, 0x1234_5678_9ABC_DEF0),
        0x1234_5678
    );
}

#[test]
fn vector_compare_select_and_cross_lane() {
    let mut b = Builder::new(0x100, 64);
    let id = b.push(Op::LaneId, Some(Ty::V32));
    let k = c32(&mut b, 10);
    let kv = b.push(Op::Broadcast(k), Some(Ty::V32));
    let lt = b.push(Op::Cmp(CmpOp::ULt, id, kv), Some(Ty::S64));
    b.push(Op::SetSgpr(4, lt), None); // low half of the mask
    let sel = b.push(
        Op::Select {
            cond: lt,
            a: id,
            b: kv,
        },
        Some(Ty::V32),
    );
    let all = c64(&mut b, u64::MAX);
    b.push(
        Op::SetVgpr {
            reg: 3,
            val: sel,
            mask: all,
        },
        None,
    );
    // Reverse the lanes: idx = 63 - lane.
    let c63 = c32(&mut b, 63);
    let c63v = b.push(Op::Broadcast(c63), Some(Ty::V32));
    let idx = b.push(Op::Bin(BinOp::Sub, c63v, id), Some(Ty::V32));
    let g = b.push(Op::Gather { v: sel, idx }, Some(Ty::V32));
    b.push(
        Op::SetVgpr {
            reg: 4,
            val: g,
            mask: all,
        },
        None,
    );
    let lane = c32(&mut b, 64 + 5); // & 63 = 5
    let rl = b.push(Op::ReadLane { v: sel, lane }, Some(Ty::S32));
    b.push(Op::SetSgpr(5, rl), None);
    let x = c32(&mut b, 777);
    let wl = b.push(Op::WriteLane { v: id, lane, x }, Some(Ty::V32));
    b.push(
        Op::SetVgpr {
            reg: 5,
            val: wl,
            mask: all,
        },
        None,
    );
    let m2l = b.push(Op::MaskToLanes(lt), Some(Ty::V32));
    b.push(
        Op::SetVgpr {
            reg: 6,
            val: m2l,
            mask: all,
        },
        None,
    );
    let blk = b.finish(Exit::EndPgm);
    let mut s = state();
    let mut env = FlatEnv::new(0x1000, 64, 64, 0);
    assert_eq!(run_block(&blk, &mut s, &mut env), Ok(ExitCode::EndPgm));
    assert_eq!(s.sgpr[4], 0x3FF);
    assert_eq!(s.sgpr[5], 5);
    for l in 0..64u32 {
        let sel = if l < 10 { l } else { 10 };
        let rev = if 63 - l < 10 { 63 - l } else { 10 };
        assert_eq!(s.vgpr[3][l as usize], sel);
        assert_eq!(s.vgpr[4][l as usize], rev);
        assert_eq!(s.vgpr[5][l as usize], if l == 5 { 777 } else { l });
        assert_eq!(s.vgpr[6][l as usize], (l < 10) as u32);
    }
}

#[test]
fn float_compares_and_class() {
    let mut b = Builder::new(0x100, 64);
    let nan = c32(&mut b, 0x7FC0_0000);
    let one = c32(&mut b, 0x3F80_0000);
    let ops = [
        (CmpOp::FLt, false),
        (CmpOp::FNge, true),
        (CmpOp::FUno, true),
        (CmpOp::FNeq, true),
        (CmpOp::FEq, false),
    ];
    for (k, (op, _)) in ops.iter().enumerate() {
        let r = b.push(Op::Cmp(*op, nan, one), Some(Ty::S32));
        b.push(Op::SetSgpr(k as u8, r), None);
    }
    // class: -denormal (bit 4) and +Inf (bit 9).
    let den = c32(&mut b, 0x8000_0001);
    let inf = c32(&mut b, 0x7F80_0000);
    let mask = c32(&mut b, 1 << 4);
    let r1 = b.push(Op::Cmp(CmpOp::FClass, den, mask), Some(Ty::S32));
    let r2 = b.push(Op::Cmp(CmpOp::FClass, inf, mask), Some(Ty::S32));
    b.push(Op::SetSgpr(10, r1), None);
    b.push(Op::SetSgpr(11, r2), None);
    let blk = b.finish(Exit::EndPgm);
    let mut s = state();
    let mut env = FlatEnv::new(0x1000, 64, 64, 0);
    assert_eq!(run_block(&blk, &mut s, &mut env), Ok(ExitCode::EndPgm));
    for (k, (_, want)) in ops.iter().enumerate() {
        assert_eq!(s.sgpr[k], *want as u32, "compare {k}");
    }
    assert_eq!((s.sgpr[10], s.sgpr[11]), (1, 0));
}

fn addr_vec(b: &mut Builder, base: u64, stride: u32) -> Val {
    let id = b.push(Op::LaneId, Some(Ty::V32));
    let k = c32(b, stride);
    let kv = b.push(Op::Broadcast(k), Some(Ty::V32));
    let off = b.push(Op::Bin(BinOp::Mul, id, kv), Some(Ty::V32));
    let off64 = b.push(Op::Conv(ConvOp::ZExt, off), Some(Ty::V64));
    let base = c64(b, base);
    let bv = b.push(Op::Broadcast(base), Some(Ty::V64));
    b.push(Op::Bin(BinOp::Add, bv, off64), Some(Ty::V64))
}

#[test]
fn memory_load_store_atomic() {
    let mut env = FlatEnv::new(0x10_0000, 1024, 256, 0);
    for (i, x) in env.global.iter_mut().enumerate() {
        *x = (i * 7 + 3) as u8;
    }
    let orig = env.global.clone();
    let mut b = Builder::new(0x100, 64);
    let addr = addr_vec(&mut b, 0x10_0000, 4);
    let mask = c64(&mut b, 0x0000_0000_FFFF_00FF);
    let ld = b.push(
        Op::Load {
            pc: 0x104,
            space: Space::Global,
            addr,
            size: 2,
            signed: true,
            mask,
        },
        Some(Ty::V32),
    );
    let all = c64(&mut b, u64::MAX);
    b.push(
        Op::SetVgpr {
            reg: 7,
            val: ld,
            mask: all,
        },
        None,
    );
    let addr2 = addr_vec(&mut b, 0x10_0000 + 512, 4);
    b.push(
        Op::Store {
            pc: 0x108,
            space: Space::Global,
            addr: addr2,
            size: 4,
            data: ld,
            mask,
        },
        None,
    );
    let one = c32(&mut b, 1);
    let onev = b.push(Op::Broadcast(one), Some(Ty::V32));
    let zero = c32(&mut b, 0);
    let zv = b.push(Op::Broadcast(zero), Some(Ty::V32));
    let zero64 = b.push(Op::Conv(ConvOp::ZExt, zv), Some(Ty::V64));
    let lds_addr = b.push(Op::Conv(ConvOp::Lo, zero64), Some(Ty::V32));
    let lds_addr = b.push(Op::Conv(ConvOp::ZExt, lds_addr), Some(Ty::V64));
    let old = b.push(
        Op::Atomic {
            pc: 0x10C,
            space: Space::Lds,
            op: wavejit_translator::env::AtomicOp::Add,
            addr: lds_addr,
            size: 4,
            data: onev,
            cmp: None,
            mask,
        },
        Some(Ty::V32),
    );
    b.push(
        Op::SetVgpr {
            reg: 8,
            val: old,
            mask: all,
        },
        None,
    );
    let blk = b.finish(Exit::EndPgm);
    let mut s = state();
    assert_eq!(run_block(&blk, &mut s, &mut env), Ok(ExitCode::EndPgm));
    let m = 0x0000_0000_FFFF_00FFu64;
    let mut seen = 0;
    for l in 0..64 {
        let active = m >> l & 1 == 1;
        let raw = u16::from_le_bytes([orig[4 * l], orig[4 * l + 1]]);
        let want = if active { raw as i16 as i32 as u32 } else { 0 };
        assert_eq!(s.vgpr[7][l], want, "load lane {l}");
        let st = u32::from_le_bytes(env.global[512 + 4 * l..516 + 4 * l].try_into().unwrap());
        let orig_st = u32::from_le_bytes(orig[512 + 4 * l..516 + 4 * l].try_into().unwrap());
        assert_eq!(st, if active { want } else { orig_st }, "store lane {l}");
        if active {
            assert_eq!(s.vgpr[8][l], seen, "atomic lane {l}");
            seen += 1;
        } else {
            assert_eq!(s.vgpr[8][l], 0);
        }
    }
    assert_eq!(u32::from_le_bytes(env.lds[0..4].try_into().unwrap()), seen);
}

#[test]
fn memory_fault_reports_instruction_pc() {
    let mut env = FlatEnv::new(0x10_0000, 64, 0, 0);
    let mut b = Builder::new(0x100, 64);
    let addr = addr_vec(&mut b, 0x10_0000, 4); // lane 16 is past the end
    let mask = c64(&mut b, 1 << 16 | 1);
    b.push(
        Op::Load {
            pc: 0x134,
            space: Space::Global,
            addr,
            size: 4,
            signed: false,
            mask,
        },
        Some(Ty::V32),
    );
    let blk = b.finish(Exit::EndPgm);
    let mut s = state();
    let r = run_block(&blk, &mut s, &mut env);
    assert_eq!(
        r,
        Err(ExecFault::Memory(MemError::OutOfRange {
            space: Space::Global,
            addr: 0x10_0040,
            size: 4,
            lane: 16
        }))
    );
    assert_eq!(s.pc, 0x134);
}

#[test]
fn exits() {
    for (c, want) in [(0u32, 0x300u64), (5, 0x200)] {
        let mut b = Builder::new(0x100, 64);
        let cond = c32(&mut b, c);
        let blk = b.finish(Exit::Branch {
            cond,
            taken: 0x200,
            not_taken: 0x300,
        });
        let mut s = state();
        let mut env = FlatEnv::new(0, 0, 0, 0);
        assert_eq!(run_block(&blk, &mut s, &mut env), Ok(ExitCode::Continue));
        assert_eq!(s.pc, want);
    }
    let blk = Builder::new(0x100, 64).finish(Exit::Trap { pc: 0x120, code: 2 });
    let mut s = state();
    let mut env = FlatEnv::new(0, 0, 0, 0);
    assert_eq!(run_block(&blk, &mut s, &mut env), Ok(ExitCode::Trap));
    assert_eq!(s.pc, 0x120);
    let blk = Builder::new(0x100, 64).finish(Exit::Unsupported {
        pc: 0x140,
        reason: "x".into(),
    });
    assert!(run_block(&blk, &mut s, &mut env).is_err());
    assert_eq!(s.pc, 0x140);
}

#[test]
fn malformed_ir_is_an_error_not_a_panic() {
    let mut b = Builder::new(0, 64);
    b.push(Op::Un(UnOp::Not, Val(5)), Some(Ty::S32));
    let blk = b.finish(Exit::EndPgm);
    let mut s = state();
    let mut env = FlatEnv::new(0, 0, 0, 0);
    assert!(run_block(&blk, &mut s, &mut env).is_err());
    let mut b = Builder::new(0, 64);
    let x = c32(&mut b, 1);
    b.push(Op::SetSgpr(200, x), None);
    b.push(Op::GetVgpr(600), Some(Ty::V32));
    let blk = b.finish(Exit::EndPgm);
    assert!(run_block(&blk, &mut s, &mut env).is_err());
}
