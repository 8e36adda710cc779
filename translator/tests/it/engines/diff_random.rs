//! Differential test of the JIT against the interpreter (the codegen oracle): random
//! well-typed IR blocks covering every op kind, random wave state seeded with float special
//! values, run by both engines; state, memory, exit and faults must be bit-identical.
//!
//! `DIFF_CASES` sets the number of cases (default 2000).

use proptest::prelude::*;
use wavejit_translator::env::{AtomicOp, Space};
use wavejit_translator::interp::{run_block, test_env::FlatEnv};
use wavejit_translator::ir::*;
use wavejit_translator::jit::Jit;
use wavejit_translator::wave::WaveState;

const BASE: u64 = 0x7000_0000;
const GLOBAL_LEN: usize = 4096;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }
}

const F32_SPECIAL: [u32; 16] = [
    0x0000_0000,
    0x8000_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_1234,
    0xFF80_0005,
    0x0000_0001,
    0x807F_FFFF,
    0x7F7F_FFFF,
    0x0080_0000,
    0x3F00_0000,
    0x4040_0000,
    0x4F80_0000,
    0xCF00_0000,
];
const F64_SPECIAL: [u64; 14] = [
    0x7FF4_5678_9ABC_DEF0, // sNaN with high payload bits
    0xFFFC_0000_1000_0000, // negative qNaN with payload
    0,
    0x8000_0000_0000_0000,
    0x3FF0_0000_0000_0000,
    0xBFF0_0000_0000_0000,
    0x7FF0_0000_0000_0000,
    0xFFF0_0000_0000_0000,
    0x7FF8_0000_0000_1234,
    0x7FF0_0000_0000_0001,
    0x0000_0000_0000_0001,
    0x7FEF_FFFF_FFFF_FFFF,
    0x4008_0000_0000_0000,
    0x41E0_0000_0000_0000,
];

fn rand32(r: &mut Rng) -> u32 {
    match r.below(4) {
        0 => r.pick(&F32_SPECIAL),
        1 => (r.next() % 200) as u32,
        // A float in a moderate range.
        2 => (((r.next() % 60) as f32 - 30.0) * 0.37).to_bits(),
        _ => r.next() as u32,
    }
}

fn rand64(r: &mut Rng) -> u64 {
    match r.below(4) {
        0 => r.pick(&F64_SPECIAL),
        1 => r.next() % 300,
        2 => (((r.next() % 60) as f64 - 30.0) * 0.37).to_bits(),
        _ => r.next(),
    }
}

fn rand_mask(r: &mut Rng) -> u64 {
    match r.below(4) {
        0 => u64::MAX,
        1 => 0,
        2 => 0x0000_0000_FFFF_FFFF,
        _ => r.next(),
    }
}

struct Gen {
    r: Rng,
    b: Builder,
    pools: [Vec<Val>; 4], // S32, S64, V32, V64
}

fn idx(t: Ty) -> usize {
    match t {
        Ty::S32 => 0,
        Ty::S64 => 1,
        Ty::V32 => 2,
        Ty::V64 => 3,
    }
}

impl Gen {
    fn push(&mut self, op: Op, t: Ty) -> Val {
        let v = self.b.push(op, Some(t));
        self.pools[idx(t)].push(v);
        v
    }
    fn any(&mut self, t: Ty) -> Val {
        let p = &self.pools[idx(t)];
        let n = p.len();
        // Prefer recent values so chains of ops form.
        let k = if self.r.chance(60) {
            n - 1 - self.r.below(n.min(4))
        } else {
            self.r.below(n)
        };
        self.pools[idx(t)][k]
    }
    fn konst(&mut self, t: Ty) -> Val {
        let bits = if t == Ty::S32 {
            rand32(&mut self.r) as u64
        } else {
            rand64(&mut self.r)
        };
        self.push(Op::Const { ty: t, bits }, t)
    }
    fn mask(&mut self) -> Val {
        if self.r.chance(50) {
            let m = rand_mask(&mut self.r);
            self.push(
                Op::Const {
                    ty: Ty::S64,
                    bits: m,
                },
                Ty::S64,
            )
        } else {
            self.any(Ty::S64)
        }
    }
    fn ty(&mut self) -> Ty {
        self.r
            .pick(&[Ty::S32, Ty::S64, Ty::V32, Ty::V64, Ty::V32, Ty::V64])
    }
    fn vec_ty(&mut self) -> Ty {
        self.r.pick(&[Ty::V32, Ty::V64])
    }

    /// Per-lane global address: BASE + (x & 0x3F8) (8-byte aligned, in range), or an
    /// out-of-range address now and then.
    fn address(&mut self, space: Space) -> Val {
        let x = self.any(Ty::V32);
        let bits = if self.r.chance(3) { 0xFFFF_FFF8 } else { 0x3F8 };
        let m = self.push(Op::Const { ty: Ty::S32, bits }, Ty::S32);
        let mv = self.push(Op::Broadcast(m), Ty::V32);
        let off = self.push(Op::Bin(BinOp::And, x, mv), Ty::V32);
        let off64 = self.push(Op::Conv(ConvOp::ZExt, off), Ty::V64);
        let base = if space == Space::Lds { 0 } else { BASE };
        let bc = self.push(
            Op::Const {
                ty: Ty::S64,
                bits: base,
            },
            Ty::S64,
        );
        let bv = self.push(Op::Broadcast(bc), Ty::V64);
        self.push(Op::Bin(BinOp::Add, bv, off64), Ty::V64)
    }

    fn step(&mut self) {
        match self.r.below(22) {
            0 | 1 => {
                let t = self.ty();
                let u = self.r.pick(&UNOPS);
                let a = self.any(t);
                self.push(Op::Un(u, a), t);
            }
            2..=5 => {
                let t = self.ty();
                let o = self.r.pick(&BINOPS);
                let a = self.any(t);
                let b = if t.is_vector()
                    && matches!(o, BinOp::Shl | BinOp::LShr | BinOp::AShr)
                    && self.r.chance(60)
                {
                    let s = self.any(t.to_scalar());
                    self.push(Op::Broadcast(s), t)
                } else if matches!(o, BinOp::Shl | BinOp::LShr | BinOp::AShr | BinOp::FLdexp)
                    && self.r.chance(40)
                {
                    // An amount of the other width (as for s_lshl_b64's 32-bit amount).
                    let other = match t {
                        Ty::S32 => Ty::S64,
                        Ty::S64 => Ty::S32,
                        Ty::V32 => Ty::V64,
                        Ty::V64 => Ty::V32,
                    };
                    self.any(other)
                } else {
                    self.any(t)
                };
                self.push(Op::Bin(o, a, b), t);
            }
            6 => {
                let t = self.ty();
                let o = self.r.pick(&[
                    TernOp::Fma,
                    TernOp::Fma,
                    TernOp::Bfe,
                    TernOp::SBfe,
                    TernOp::Bfi,
                    TernOp::Perm,
                ]);
                let (a, b, c) = (self.any(t), self.any(t), self.any(t));
                self.push(Op::Tern(o, a, b, c), t);
            }
            7 | 8 => {
                let t = self.ty();
                let c = self.r.pick(&CMPOPS);
                let (a, b) = (self.any(t), self.any(t));
                let rt = if t.is_vector() { Ty::S64 } else { Ty::S32 };
                self.push(Op::Cmp(c, a, b), rt);
            }
            9 => {
                let t = self.ty();
                let cond = if t.is_vector() {
                    self.mask()
                } else {
                    self.any(Ty::S32)
                };
                let (a, b) = (self.any(t), self.any(t));
                self.push(Op::Select { cond, a, b }, t);
            }
            10 => {
                let c = self.r.pick(&CONVOPS);
                let vector = self.r.chance(70);
                let src_bits = match c {
                    ConvOp::Lo
                    | ConvOp::Hi
                    | ConvOp::F64ToF32
                    | ConvOp::F64ToI32
                    | ConvOp::F64ToU32 => 64,
                    ConvOp::SExt8 | ConvOp::SExt16 | ConvOp::ZExt8 | ConvOp::ZExt16
                        if self.r.chance(50) =>
                    {
                        64
                    }
                    _ => 32,
                };
                let rbits = wavejit_translator::interp::sem::conv_result_bits(c, src_bits);
                let mk = |bits: u32| match (vector, bits) {
                    (true, 32) => Ty::V32,
                    (true, _) => Ty::V64,
                    (false, 32) => Ty::S32,
                    (false, _) => Ty::S64,
                };
                let a = self.any(mk(src_bits));
                self.push(Op::Conv(c, a), mk(rbits));
            }
            11 => {
                let t = self.ty();
                if t.is_vector() {
                    let s = self.any(t.to_scalar());
                    self.push(Op::Broadcast(s), t);
                } else {
                    self.konst(t);
                }
            }
            12 => {
                let vector = self.r.chance(60);
                let t = if vector { Ty::V32 } else { Ty::S32 };
                let (lo, hi) = (self.any(t), self.any(t));
                self.push(Op::Pack { lo, hi }, if vector { Ty::V64 } else { Ty::S64 });
            }
            13 => {
                let v = self.any(Ty::V32);
                let lane = self.any(Ty::S32);
                match self.r.below(4) {
                    0 => {
                        self.push(Op::ReadLane { v, lane }, Ty::S32);
                    }
                    1 => {
                        let x = self.any(Ty::S32);
                        self.push(Op::WriteLane { v, lane, x }, Ty::V32);
                    }
                    2 => {
                        let idx = self.any(Ty::V32);
                        self.push(Op::Gather { v, idx }, Ty::V32);
                    }
                    _ => {
                        let m = self.mask();
                        self.push(Op::MaskToLanes(m), Ty::V32);
                    }
                }
            }
            14 => {
                let f = self.r.pick(&LANEFNS);
                let wide = matches!(
                    f,
                    LaneFn::DivFixupF64
                        | LaneFn::DivFmasF64
                        | LaneFn::DivScaleF64
                        | LaneFn::DivScaleF64Flag
                );
                let at = if wide { Ty::V64 } else { Ty::V32 };
                let mut args = vec![self.any(at), self.any(at), self.any(at)];
                if matches!(f, LaneFn::DivFmasF32 | LaneFn::DivFmasF64) {
                    let m = self.mask();
                    let bit = self.push(Op::MaskToLanes(m), Ty::V32);
                    args.push(bit);
                }
                let rt = if wide && f != LaneFn::DivScaleF64Flag {
                    Ty::V64
                } else {
                    Ty::V32
                };
                self.push(Op::Lane { f, args }, rt);
            }
            15 | 16 => {
                let val = self.any(Ty::V32);
                let mask = self.mask();
                let reg = self.r.below(8) as u16;
                if self.r.chance(25) {
                    let bits = self.r.below(4) as u64;
                    let index = self.push(Op::Const { ty: Ty::S32, bits }, Ty::S32);
                    self.b.push(
                        Op::SetVgprDyn {
                            base: reg,
                            index,
                            val,
                            mask,
                        },
                        None,
                    );
                } else {
                    self.b.push(Op::SetVgpr { reg, val, mask }, None);
                }
            }
            17 => {
                let x = self.any(Ty::S32);
                match self.r.below(3) {
                    0 => {
                        let code = self.r.pick(&[0u8, 5, 9, 106, 107, 124, 125]);
                        self.b.push(Op::SetSgpr(code, x), None);
                    }
                    1 => {
                        self.b.push(Op::SetScc(x), None);
                    }
                    _ => {
                        let m = self.mask();
                        self.b.push(Op::CountVector { mask: m }, None);
                    }
                }
            }
            18 => {
                let t = self.r.pick(&[Ty::V32, Ty::V64]);
                let size = if t == Ty::V64 {
                    8
                } else {
                    self.r.pick(&[1u8, 2, 4])
                };
                let space = self.r.pick(&[Space::Global, Space::Global, Space::Lds]);
                let addr = self.address(space);
                let mask = self.mask();
                let signed = self.r.chance(50);
                self.push(
                    Op::Load {
                        pc: 0x1000 + self.b.len() as u64,
                        space,
                        addr,
                        size,
                        signed,
                        mask,
                    },
                    t,
                );
            }
            19 => {
                let t = self.vec_ty();
                let size = if t == Ty::V64 {
                    self.r.pick(&[8u8, 4])
                } else {
                    self.r.pick(&[1u8, 2, 4])
                };
                let space = self.r.pick(&[Space::Global, Space::Lds]);
                let addr = self.address(space);
                let data = self.any(t);
                let mask = self.mask();
                self.b.push(
                    Op::Store {
                        pc: 0x2000 + self.b.len() as u64,
                        space,
                        addr,
                        size,
                        data,
                        mask,
                    },
                    None,
                );
            }
            20 => {
                let t = self.vec_ty();
                let size = if t == Ty::V64 { 8 } else { 4 };
                let space = self.r.pick(&[Space::Global, Space::Lds]);
                let addr = self.address(space);
                let data = self.any(t);
                let op = self.r.pick(&ATOMICS);
                let cmp = if op == AtomicOp::CmpSwap {
                    Some(self.any(t))
                } else {
                    None
                };
                let mask = self.mask();
                self.push(
                    Op::Atomic {
                        pc: 0x3000 + self.b.len() as u64,
                        space,
                        op,
                        addr,
                        size,
                        data,
                        cmp,
                        mask,
                    },
                    t,
                );
            }
            _ => match self.r.below(5) {
                0 => {
                    let c = self.r.pick(&[0u8, 1, 7, 106, 126, 125]);
                    self.push(Op::GetSgpr(c), Ty::S32);
                }
                1 => {
                    let reg = self.r.below(10) as u16;
                    self.push(Op::GetVgpr(reg), Ty::V32);
                }
                2 => {
                    let index = self.any(Ty::S32);
                    let index = {
                        let m = self.push(
                            Op::Const {
                                ty: Ty::S32,
                                bits: 7,
                            },
                            Ty::S32,
                        );
                        self.push(Op::Bin(BinOp::And, index, m), Ty::S32)
                    };
                    self.push(Op::GetVgprDyn { base: 3, index }, Ty::V32);
                }
                3 => {
                    let a = self.any(Ty::S64);
                    let m = self.push(
                        Op::Const {
                            ty: Ty::S64,
                            bits: 0x3FC,
                        },
                        Ty::S64,
                    );
                    let off = self.push(Op::Bin(BinOp::And, a, m), Ty::S64);
                    let base = self.push(
                        Op::Const {
                            ty: Ty::S64,
                            bits: BASE,
                        },
                        Ty::S64,
                    );
                    let addr = self.push(Op::Bin(BinOp::Add, base, off), Ty::S64);
                    if self.r.chance(50) {
                        self.push(Op::SLoad { pc: 0x4000, addr }, Ty::S32);
                    } else {
                        let data = self.any(Ty::S32);
                        self.b.push(
                            Op::SStore {
                                pc: 0x4004,
                                addr,
                                data,
                            },
                            None,
                        );
                    }
                }
                _ => {
                    let mut c = Box::new([0u32; 64]);
                    for x in c.iter_mut() {
                        *x = rand32(&mut self.r);
                    }
                    self.push(Op::LaneConst(c), Ty::V32);
                }
            },
        }
    }
}

use wavejit_translator::jit::codes::{ATOMICS, BINOPS, CMPOPS, CONVOPS, LANEFNS, UNOPS};

impl Gen {
    /// A step that keeps the block eligible for the JIT's lane-group loop form: vector ops
    /// the JIT inlines, and uniform ops that read no vector values.
    fn step_lane_local(&mut self) {
        match self.r.below(14) {
            12 | 13 => {
                // A vector compare: its mask feeds selects and masked writes in the loop and
                // uniform ops after it (through the mask pool).
                let t = self.vec_ty();
                let c = self.r.pick(&CMPOPS[..CMPOPS.len() - 1]); // all but FClass
                let (a, b) = (self.any(t), self.any(t));
                let m = self.push(Op::Cmp(c, a, b), Ty::S64);
                if self.r.chance(30) {
                    let lo = self.push(Op::Conv(ConvOp::Lo, m), Ty::S32);
                    self.b.push(Op::SetSgpr(106, lo), None);
                }
            }
            0 => {
                let t = self.vec_ty();
                let u = self.r.pick(&[
                    UnOp::Not,
                    UnOp::Neg,
                    UnOp::FNeg,
                    UnOp::FAbs,
                    UnOp::FSqrt,
                    UnOp::Popcnt,
                    UnOp::Clz,
                    UnOp::Ctz,
                    UnOp::BitReverse,
                    UnOp::FFloor,
                    UnOp::FCeil,
                    UnOp::FTrunc,
                    UnOp::FRoundEven,
                    UnOp::FRcp,
                    UnOp::FQuiet,
                ]);
                let a = self.any(t);
                self.push(Op::Un(u, a), t);
            }
            1..=3 => {
                let t = self.vec_ty();
                let mut ops = vec![
                    BinOp::Add,
                    BinOp::Sub,
                    BinOp::And,
                    BinOp::Or,
                    BinOp::Xor,
                    BinOp::FAdd,
                    BinOp::FSub,
                    BinOp::FMul,
                    BinOp::FDiv,
                    BinOp::FCopySign,
                    BinOp::FMinNum,
                    BinOp::FMaxNum,
                    BinOp::Shl,
                    BinOp::LShr,
                    BinOp::AShr,
                ];
                // 64-bit multiply/min/max and the rest run lane by lane, still in the group.
                ops.extend([
                    BinOp::Mul,
                    BinOp::UMin,
                    BinOp::UMax,
                    BinOp::SMin,
                    BinOp::SMax,
                    BinOp::MulHiU,
                    BinOp::MulHiS,
                    BinOp::AddCarry,
                    BinOp::SubBorrow,
                ]);
                let o = self.r.pick(&ops);
                let a = self.any(t);
                let b = if matches!(o, BinOp::Shl | BinOp::LShr | BinOp::AShr) && self.r.chance(50)
                {
                    let s = self.any(t.to_scalar());
                    self.push(Op::Broadcast(s), t)
                } else {
                    self.any(t)
                };
                self.push(Op::Bin(o, a, b), t);
            }
            4 => {
                let t = self.vec_ty();
                let o = self
                    .r
                    .pick(&[TernOp::Fma, TernOp::Fma, TernOp::Bfi, TernOp::Perm]);
                let (a, b, c) = (self.any(t), self.any(t), self.any(t));
                self.push(Op::Tern(o, a, b, c), t);
            }
            5 => {
                let t = self.vec_ty();
                let cond = self.mask();
                let (a, b) = (self.any(t), self.any(t));
                self.push(Op::Select { cond, a, b }, t);
            }
            6 => {
                let (c, st, dt) = self.r.pick(&[
                    (ConvOp::ZExt, Ty::V32, Ty::V64),
                    (ConvOp::SExt, Ty::V32, Ty::V64),
                    (ConvOp::Lo, Ty::V64, Ty::V32),
                    (ConvOp::Hi, Ty::V64, Ty::V32),
                    (ConvOp::I32ToF32, Ty::V32, Ty::V32),
                    (ConvOp::U32ToF32, Ty::V32, Ty::V32),
                    (ConvOp::F32ToI32, Ty::V32, Ty::V32),
                    (ConvOp::F32ToU32, Ty::V32, Ty::V32),
                    (ConvOp::F32ToF64, Ty::V32, Ty::V64),
                    (ConvOp::F64ToF32, Ty::V64, Ty::V32),
                ]);
                let a = self.any(st);
                self.push(Op::Conv(c, a), dt);
            }
            7 => {
                let (lo, hi) = (self.any(Ty::V32), self.any(Ty::V32));
                self.push(Op::Pack { lo, hi }, Ty::V64);
            }
            8 => {
                let t = self.vec_ty();
                let s = self.any(t.to_scalar());
                self.push(Op::Broadcast(s), t);
            }
            9 => {
                // Often store a half of a recent 64-bit value, so 64-bit results reach state.
                let val = if self.r.chance(40) {
                    let w = self.any(Ty::V64);
                    let c = self.r.pick(&[ConvOp::Lo, ConvOp::Hi]);
                    self.push(Op::Conv(c, w), Ty::V32)
                } else {
                    self.any(Ty::V32)
                };
                let mask = self.mask();
                let reg = self.r.below(8) as u16;
                self.b.push(Op::SetVgpr { reg, val, mask }, None);
            }
            10 => match self.r.below(4) {
                0 => {
                    let reg = self.r.below(10) as u16;
                    self.push(Op::GetVgpr(reg), Ty::V32);
                }
                1 => {
                    let m = self.mask();
                    self.push(Op::MaskToLanes(m), Ty::V32);
                }
                2 => {
                    self.push(Op::LaneId, Ty::V32);
                }
                _ => {
                    let m = self.mask();
                    self.b.push(Op::CountVector { mask: m }, None);
                }
            },
            _ => {
                // Uniform work: scalar arithmetic, compares, SGPR/SCC writes.
                let t = self.r.pick(&[Ty::S32, Ty::S64]);
                match self.r.below(4) {
                    0 => {
                        let o = self.r.pick(&BINOPS);
                        let (a, b) = (self.any(t), self.any(t));
                        self.push(Op::Bin(o, a, b), t);
                    }
                    1 => {
                        let c = self.r.pick(&CMPOPS);
                        let (a, b) = (self.any(t), self.any(t));
                        self.push(Op::Cmp(c, a, b), Ty::S32);
                    }
                    2 => {
                        let x = self.any(Ty::S32);
                        let code = self.r.pick(&[0u8, 5, 106, 124]);
                        self.b.push(Op::SetSgpr(code, x), None);
                    }
                    _ => {
                        self.konst(t);
                    }
                }
            }
        }
    }
}

fn gen_lane_local_block(seed: u64) -> Block {
    let mut g = Gen {
        r: Rng(seed),
        b: Builder::new(0x1000, wave_size(seed)),
        pools: Default::default(),
    };
    g.b.count_inst(wavejit_translator::wave::InstClass::Valu, 0x1010);
    g.push(Op::GetSgpr(3), Ty::S32);
    g.konst(Ty::S32);
    g.konst(Ty::S64);
    g.push(Op::GetVgpr(0), Ty::V32);
    g.push(Op::GetVgpr(1), Ty::V32);
    let a = g.any(Ty::V32);
    let b = g.any(Ty::V32);
    g.push(Op::Pack { lo: a, hi: b }, Ty::V64);
    let n = 8 + g.r.below(40);
    for _ in 0..n {
        g.step_lane_local();
    }
    let cond = g.any(Ty::S32);
    g.b.finish(Exit::Branch {
        cond,
        taken: 0x3000,
        not_taken: 0x4000,
    })
}

fn gen_block(seed: u64) -> Block {
    let mut g = Gen {
        r: Rng(seed),
        b: Builder::new(0x1000, wave_size(seed)),
        pools: Default::default(),
    };
    g.b.count_inst(wavejit_translator::wave::InstClass::Valu, 0x1010);
    g.push(Op::GetSgpr(3), Ty::S32);
    g.konst(Ty::S32);
    g.konst(Ty::S64);
    g.push(Op::GetVgpr(0), Ty::V32);
    g.push(Op::LaneId, Ty::V32);
    let a = g.any(Ty::V32);
    let b = g.any(Ty::V32);
    g.push(Op::Pack { lo: a, hi: b }, Ty::V64);
    let n = 8 + g.r.below(40);
    for _ in 0..n {
        g.step();
    }
    let exit = match g.r.below(8) {
        4 => Exit::Barrier { next: 0x1010 },
        5 => Exit::Trap {
            pc: 0x100C,
            code: 1,
        },
        6 => Exit::Yield { next: 0x1010 },
        7 => Exit::Unsupported {
            pc: 0x100C,
            reason: "test".into(),
        },
        0 => Exit::Jump(0x2000),
        1 => {
            let cond = g.any(Ty::S32);
            Exit::Branch {
                cond,
                taken: 0x3000,
                not_taken: 0x4000,
            }
        }
        2 => Exit::EndPgm,
        _ => {
            let t = g.any(Ty::S64);
            Exit::JumpIndirect(t)
        }
    };
    g.b.finish(exit)
}

/// A quarter of the cases are wave32 blocks on wave32 state.
fn wave_size(seed: u64) -> u32 {
    if seed.is_multiple_of(4) {
        32
    } else {
        64
    }
}

fn gen_state(seed: u64) -> Box<WaveState> {
    let mut r = Rng(seed ^ 0x5555);
    let mut s = WaveState::new_boxed(wave_size(seed));
    for reg in 0..12 {
        for l in 0..64 {
            s.vgpr[reg][l] = rand32(&mut r);
        }
    }
    for c in 0..128 {
        s.sgpr[c] = rand32(&mut r);
    }
    s.sgpr[125] = 0;
    s.scc = (r.next() & 1) as u32;
    s.mode = 0x3F0;
    s.pc = 0x1000;
    s
}

fn gen_env(seed: u64) -> FlatEnv {
    let mut r = Rng(seed ^ 0xAAAA);
    let mut e = FlatEnv::new(BASE, GLOBAL_LEN, 2048, 0);
    for k in (0..GLOBAL_LEN).step_by(8) {
        e.global[k..k + 8].copy_from_slice(&rand64(&mut r).to_le_bytes());
    }
    for k in (0..2048).step_by(4) {
        e.lds[k..k + 4].copy_from_slice(&rand32(&mut r).to_le_bytes());
    }
    e
}

fn clone_state(s: &WaveState) -> Box<WaveState> {
    let mut n = WaveState::new_boxed(s.wave_size);
    n.vgpr = s.vgpr;
    n.sgpr = s.sgpr;
    n.scc = s.scc;
    n.mode = s.mode;
    n.status = s.status;
    n.trapsts = s.trapsts;
    n.pc = s.pc;
    n.counters = s.counters;
    n
}

fn first_vgpr_diff(a: &WaveState, b: &WaveState) -> Option<(usize, usize, u32, u32)> {
    for r in 0..a.vgpr.len() {
        for l in 0..64 {
            if a.vgpr[r][l] != b.vgpr[r][l] {
                return Some((r, l, a.vgpr[r][l], b.vgpr[r][l]));
            }
        }
    }
    None
}

fn check(jit: &Jit, seed: u64) -> Result<(), String> {
    check_block(jit, seed, gen_block(seed)).map(|_| ())
}

/// Runs `block` in both engines; returns whether the JIT used the lane-group form.
fn check_block(jit: &Jit, seed: u64, block: Block) -> Result<bool, String> {
    check_block_on(jit, seed, block, gen_state(seed), gen_env(seed))
}

/// [`check_block`] from the given state and memory.
fn check_block_on(
    jit: &Jit,
    seed: u64,
    block: Block,
    s0: Box<WaveState>,
    e0: FlatEnv,
) -> Result<bool, String> {
    let (mut si, mut ei) = (clone_state(&s0), e0.clone());
    let ri = run_block(&block, &mut si, &mut ei);
    let cb = jit
        .compile(&block)
        .map_err(|e| format!("compile failed: {e}\n{block}"))?;
    let (mut sj, mut ej) = (clone_state(&s0), e0.clone());
    let rj = cb.run(&mut sj, &mut ej);
    let fail = |what: String| Err(format!("seed {seed}: {what}\n{block}"));
    if ri != rj {
        return fail(format!("exit differs: interp {ri:?} jit {rj:?}"));
    }
    if let Some((r, l, x, y)) = first_vgpr_diff(&si, &sj) {
        return fail(format!("v{r} lane {l}: interp {x:#x} jit {y:#x}"));
    }
    if si.sgpr != sj.sgpr {
        let k = (0..128).find(|&k| si.sgpr[k] != sj.sgpr[k]).unwrap_or(0);
        return fail(format!(
            "s{k}: interp {:#x} jit {:#x}",
            si.sgpr[k], sj.sgpr[k]
        ));
    }
    if (si.scc, si.mode, si.pc) != (sj.scc, sj.mode, sj.pc) {
        return fail(format!(
            "scc/mode/pc: interp {:?} jit {:?}",
            (si.scc, si.mode, si.pc),
            (sj.scc, sj.mode, sj.pc)
        ));
    }
    if si.counters != sj.counters {
        return fail(format!("counters: {:?} vs {:?}", si.counters, sj.counters));
    }
    if ei != ej {
        return fail("memory differs".into());
    }
    Ok(cb.is_grouped())
}

fn cases() -> u32 {
    std::env::var("DIFF_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn jit_matches_interpreter(seed in any::<u64>()) {
        let jit = JIT.with(|j| j.clone());
        if let Err(e) = check(&jit, seed) {
            prop_assert!(false, "{}", e);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() / 2, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn jit_lane_group_form_matches_interpreter(seed in any::<u64>()) {
        let jit = JIT.with(|j| j.clone());
        match check_block(&jit, seed, gen_lane_local_block(seed)) {
            Err(e) => prop_assert!(false, "{}", e),
            Ok(grouped) => prop_assert!(grouped, "lane-local block not compiled in the lane-group form"),
        }
    }
}

thread_local! {
    static JIT: Jit = Jit::new().expect("host JIT");
}

/// The generator really produces the op kinds the test claims to cover.
#[test]
fn generator_covers_all_op_kinds() {
    let mut seen = std::collections::HashSet::new();
    for seed in 0..300 {
        for op in gen_block(seed).ops {
            let name = format!("{op:?}");
            let kind = name.split(['(', ' ', '{']).next().unwrap_or("").to_string();
            seen.insert(kind);
        }
    }
    for k in [
        "Const",
        "LaneConst",
        "LaneId",
        "GetSgpr",
        "SetSgpr",
        "GetVgpr",
        "SetVgpr",
        "GetVgprDyn",
        "SetVgprDyn",
        "SetScc",
        "Un",
        "Bin",
        "Tern",
        "Cmp",
        "Select",
        "Broadcast",
        "Conv",
        "Pack",
        "ReadLane",
        "WriteLane",
        "Gather",
        "MaskToLanes",
        "Lane",
        "Load",
        "Store",
        "Atomic",
        "SLoad",
        "SStore",
        "CountVector",
    ] {
        assert!(seen.contains(k), "generator never produced {k}");
    }
}

/// Mixed blocks (memory, compares, helpers between lane-local runs) exercise the run
/// splitting of the lane-group form, not only whole-block loops.
#[test]
fn mixed_blocks_mostly_use_lane_group_runs() {
    let jit = JIT.with(|j| j.clone());
    let mut grouped = 0;
    let total = 200;
    for seed in 0..total {
        if check_block(&jit, seed, gen_block(seed)).expect("engines agree") {
            grouped += 1;
        }
    }
    assert!(
        grouped * 2 > total,
        "only {grouped} of {total} used the lane-group form"
    );
}

/// The lane-group loop leaves its fast form for the slow one at the first group with a NaN
/// float result and redoes that group there (codegen `Gen::run`): a NaN made from infinities
/// in a chosen lane (first, last, or a middle group) and a signalling NaN in another, in a
/// register the block rewrites from itself, two float ops, a compare accumulated over the groups (used as a select mask and
/// by a uniform op after the loop) and a partial mask. The interpreter is the oracle.
#[test]
fn lane_group_nan_exit_matches_interpreter() {
    let jit = JIT.with(|j| j.clone());
    let cases = [(64u32, 37usize), (64, 0), (64, 63), (32, 21), (32, 31)];
    // EXEC with every lane set (the fast loop runs and leaves at the NaN) and partial (the
    // slow loop runs from the start).
    for (exec, (wave, nan_lane)) in [u64::MAX, 0xF0F0_FFFF_7FFF_FFFE]
        .into_iter()
        .flat_map(|e| cases.map(|c| (e, c)))
    {
        let mut b = Builder::new(0x1000, wave);
        let lo = b.push(Op::GetSgpr(126), Some(Ty::S32));
        let hi = b.push(Op::GetSgpr(127), Some(Ty::S32));
        let m = b.push(Op::Pack { lo, hi }, Some(Ty::S64));
        let s = b.push(Op::GetSgpr(3), Some(Ty::S32));
        let vs = b.push(Op::Broadcast(s), Some(Ty::V32));
        let one = b.push(
            Op::Const {
                ty: Ty::S32,
                bits: 1f32.to_bits() as u64,
            },
            Some(Ty::S32),
        );
        let v1c = b.push(Op::Broadcast(one), Some(Ty::V32));
        let v0 = b.push(Op::GetVgpr(0), Some(Ty::V32));
        let v1 = b.push(Op::GetVgpr(1), Some(Ty::V32));
        let f = b.push(Op::Tern(TernOp::Fma, v0, vs, v1c), Some(Ty::V32));
        b.push(
            Op::SetVgpr {
                reg: 0,
                val: f,
                mask: m,
            },
            None,
        );
        let g = b.push(Op::Bin(BinOp::FAdd, f, v1), Some(Ty::V32));
        b.push(
            Op::SetVgpr {
                reg: 2,
                val: g,
                mask: m,
            },
            None,
        );
        let c = b.push(Op::Cmp(CmpOp::FLt, g, v1c), Some(Ty::S64));
        let sel = b.push(
            Op::Select {
                cond: c,
                a: g,
                b: v1,
            },
            Some(Ty::V32),
        );
        b.push(
            Op::SetVgpr {
                reg: 1,
                val: sel,
                mask: m,
            },
            None,
        );
        let lo = b.push(Op::Conv(ConvOp::Lo, c), Some(Ty::S32));
        b.push(Op::SetSgpr(10, lo), None);
        let block = b.finish(Exit::EndPgm);
        let seed = 7 + nan_lane as u64;
        let mut s0 = gen_state(if wave == 32 { 4 } else { 5 });
        for l in 0..64 {
            s0.vgpr[0][l] = (l as f32 * 0.75 - 20.0).to_bits();
            s0.vgpr[1][l] = (l as f32 * -0.5 + 3.0).to_bits();
        }
        // inf + -inf in the second op: the IR's default NaN (the host's differs in sign);
        // and a signalling NaN in another group, which must come out quieted.
        s0.vgpr[0][nan_lane] = f32::INFINITY.to_bits();
        s0.vgpr[1][nan_lane] = f32::NEG_INFINITY.to_bits();
        s0.vgpr[0][(nan_lane + 9) % wave as usize] = 0x7F80_0001;
        s0.sgpr[3] = 2f32.to_bits();
        s0.sgpr[126] = exec as u32;
        s0.sgpr[127] = (exec >> 32) as u32;
        let grouped = check_block_on(&jit, seed, block, s0, gen_env(seed))
            .unwrap_or_else(|e| panic!("wave{wave} exec {exec:#x} NaN in lane {nan_lane}: {e}"));
        assert!(grouped, "not compiled in the lane-group form");
    }
}

/// Masks made from a lane-group run's compares by bitwise and width ops (RDNA's carry:
/// `exec & (carry != 0)` cut to 32 bits, written to VCC and read back zero-extended by
/// `v_add_co_ci_u32` as `MaskToLanes`) stay in the run: each group makes their lane masks
/// from its compare's (codegen `run_extent`, `derived_masks`). AND/OR/XOR/NOT, `Lo` and
/// `ZExt`, a 32-bit NOT in wave64 (no lanes 32..63), as select conditions, register write
/// masks and `MaskToLanes`, against the interpreter.
#[test]
fn lane_group_derived_masks_match_interpreter() {
    let jit = JIT.with(|j| j.clone());
    for (wave, exec) in [32u32, 64].into_iter().flat_map(|w| {
        [u64::MAX, 0xF0F0_FFFF_7FFF_FFFE]
            .into_iter()
            .map(move |e| (w, e))
    }) {
        let mut b = Builder::new(0x1000, wave);
        let k = |b: &mut Builder, ty: Ty, bits: u64| b.push(Op::Const { ty, bits }, Some(ty));
        let lo = b.push(Op::GetSgpr(126), Some(Ty::S32));
        let hi = b.push(Op::GetSgpr(127), Some(Ty::S32));
        let m = b.push(Op::Pack { lo, hi }, Some(Ty::S64));
        let a = b.push(Op::GetVgpr(0), Some(Ty::V32));
        let v1 = b.push(Op::GetVgpr(1), Some(Ty::V32));
        let s = b.push(Op::GetSgpr(3), Some(Ty::S32));
        let vs = b.push(Op::Broadcast(s), Some(Ty::V32));
        let sum = b.push(Op::Bin(BinOp::Add, a, vs), Some(Ty::V32));
        let carry = b.push(Op::Bin(BinOp::AddCarry, a, vs), Some(Ty::V32));
        let zero = k(&mut b, Ty::S32, 0);
        let vz = b.push(Op::Broadcast(zero), Some(Ty::V32));
        let c = b.push(Op::Cmp(CmpOp::Ne, carry, vz), Some(Ty::S64));
        let ce = b.push(Op::Bin(BinOp::And, c, m), Some(Ty::S64));
        let lo = b.push(Op::Conv(ConvOp::Lo, ce), Some(Ty::S32));
        b.push(Op::SetSgpr(106, lo), None);
        let z = b.push(Op::Conv(ConvOp::ZExt, lo), Some(Ty::S64));
        let ml = b.push(Op::MaskToLanes(z), Some(Ty::V32));
        let hi = b.push(Op::Bin(BinOp::Add, v1, ml), Some(Ty::V32));
        b.push(
            Op::SetVgpr {
                reg: 2,
                val: sum,
                mask: m,
            },
            None,
        );
        b.push(
            Op::SetVgpr {
                reg: 3,
                val: hi,
                mask: z,
            },
            None,
        );
        let nc = b.push(Op::Un(UnOp::Not, ce), Some(Ty::S64));
        let x = b.push(Op::Bin(BinOp::Xor, nc, c), Some(Ty::S64));
        let sel = b.push(
            Op::Select {
                cond: x,
                a: sum,
                b: v1,
            },
            Some(Ty::V32),
        );
        b.push(
            Op::SetVgpr {
                reg: 4,
                val: sel,
                mask: m,
            },
            None,
        );
        let nlo = b.push(Op::Un(UnOp::Not, lo), Some(Ty::S32));
        let zn = b.push(Op::Conv(ConvOp::ZExt, nlo), Some(Ty::S64));
        let sel2 = b.push(
            Op::Select {
                cond: zn,
                a: hi,
                b: sum,
            },
            Some(Ty::V32),
        );
        b.push(
            Op::SetVgpr {
                reg: 5,
                val: sel2,
                mask: m,
            },
            None,
        );
        let early = k(&mut b, Ty::S64, 0x00FF_0F0F_0000_00F0);
        let o = b.push(Op::Bin(BinOp::Or, c, early), Some(Ty::S64));
        let mo = b.push(Op::MaskToLanes(o), Some(Ty::V32));
        b.push(
            Op::SetVgpr {
                reg: 6,
                val: mo,
                mask: m,
            },
            None,
        );
        let block = b.finish(Exit::EndPgm);
        let seed = 11 + wave as u64;
        let mut s0 = gen_state(if wave == 32 { 4 } else { 5 });
        for l in 0..64 {
            // Carries out of lanes 0, 3, 6, ... (and none elsewhere).
            s0.vgpr[0][l] = if l % 3 == 0 {
                0xFFFF_FFC0u32.wrapping_add(l as u32)
            } else {
                1000 * l as u32
            };
        }
        s0.sgpr[3] = 0x40;
        s0.sgpr[126] = exec as u32;
        s0.sgpr[127] = (exec >> 32) as u32;
        let grouped = check_block_on(&jit, seed, block, s0, gen_env(seed))
            .unwrap_or_else(|e| panic!("wave{wave} exec {exec:#x}: {e}"));
        assert!(grouped, "not compiled in the lane-group form");
    }
}
