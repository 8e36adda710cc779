//! The lifting context: IR construction helpers, operand reads (registers, inline and
//! literal constants, VOP3 modifiers, DPP, SDWA) and EXEC-masked writes.

use crate::env::{PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE};
use crate::ir::{BinOp, Block, Builder, CmpOp, ConvOp, Exit, LaneFn, Op, TernOp, Ty, UnOp, Val};
use crate::isa::{Inst, Opnd, Target};
use crate::wave::{sreg, AGPR_BASE, NUM_VREGS};
use hashbrown::HashMap;

mod dpp;

/// Why operand codes 230/231 (`src_flat_scratch_base_lo/hi`, as LLVM prints them for gfx950)
/// do not lift: reserved in the CDNA4 ISA's operand table (6.2), and a global address of the
/// hardware's scratch backing has no counterpart here (see `tests/coverage_unsupported.txt`).
const FLAT_SCRATCH_BASE: &str = "src_flat_scratch_base (operand 230/231) is reserved in the CDNA4 ISA; wavejit's scratch has no global base address";

/// Result of a lifting helper: `Err` is the reason the instruction cannot be lifted.
pub(crate) type R<T> = Result<T, String>;

/// How an operand is interpreted, which decides inline float constants, literal widening,
/// and whether float source modifiers apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum K {
    /// 32-bit integer/bits (float inline constants give their f32 bit pattern).
    B32,
    /// 16-bit integer in the low half (float inline constants give f16 bits).
    B16,
    /// binary32.
    F32,
    /// binary16 in the low 16 bits.
    F16,
    /// 64-bit unsigned integer/bits (a literal is zero-extended).
    B64,
    /// 64-bit signed integer (a literal is sign-extended).
    I64,
    /// binary64 (a literal is the high half).
    F64,
}

impl K {
    /// True for 64-bit kinds.
    pub fn is64(self) -> bool {
        matches!(self, K::B64 | K::I64 | K::F64)
    }
    /// True for float kinds (source modifiers apply).
    pub fn is_float(self) -> bool {
        matches!(self, K::F32 | K::F16 | K::F64)
    }
}

/// Value of an inline constant operand code (ISA "SSRC" table: 128..=208 integers,
/// 240..=248 float constants in the format of the operand), or `None`.
pub(crate) fn inline_const(code: u16, k: K) -> Option<u64> {
    let int: i64 = match code {
        128..=192 => code as i64 - 128,
        193..=208 => -(code as i64 - 192),
        240..=248 => {
            let i = (code - 240) as usize;
            // 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2*pi)
            const F32: [u32; 9] = [
                0x3f00_0000,
                0xbf00_0000,
                0x3f80_0000,
                0xbf80_0000,
                0x4000_0000,
                0xc000_0000,
                0x4080_0000,
                0xc080_0000,
                0x3e22_f983,
            ];
            const F64: [u64; 9] = [
                0x3fe0_0000_0000_0000,
                0xbfe0_0000_0000_0000,
                0x3ff0_0000_0000_0000,
                0xbff0_0000_0000_0000,
                0x4000_0000_0000_0000,
                0xc000_0000_0000_0000,
                0x4010_0000_0000_0000,
                0xc010_0000_0000_0000,
                0x3fc4_5f30_6dc9_c882,
            ];
            const F16: [u16; 9] = [
                0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118,
            ];
            return Some(match k {
                K::B32 | K::F32 => F32[i] as u64,
                K::B16 | K::F16 => F16[i] as u64,
                K::B64 | K::I64 | K::F64 => F64[i],
            });
        }
        _ => return None,
    };
    Some(if k.is64() {
        int as u64
    } else {
        int as u32 as u64
    })
}

/// Per-instruction lifting state around an [`ir::Builder`](Builder).
pub(crate) struct Lifter<'t> {
    _target: core::marker::PhantomData<&'t Target>,
    /// The block under construction.
    pub b: Builder,
    /// Wave size (32 or 64).
    pub wave: u32,
    /// The GPU (decides target-dependent semantics such as the FP8 flavour).
    pub gpu: crate::isa::Gpu,
    /// MODE the block is translated for (float denormal, clamp and IEEE behaviour).
    pub mode: u32,
    /// True while lifting an instruction that moves float bits without arithmetic
    /// (`v_cndmask`): its inputs are not denormal-flushed.
    pub no_flush: bool,
    /// Address of the current instruction.
    pub pc: u64,
    /// Address of the next instruction.
    pub next_pc: u64,
    /// Lower-case base mnemonic of the current instruction.
    pub name: &'static str,
    /// The current instruction.
    pub inst: Option<Inst>,
    /// Known value of each scalar slot in this block (reads after writes forward the value).
    sregs: [Option<Val>; 128],
    /// Known SCC value.
    scc: Option<Val>,
    /// Known EXEC mask.
    exec: Option<Val>,
    /// Write mask of the current instruction when DPP narrows it.
    pub(super) dpp_wmask: Option<Val>,
    /// Deduplicated uniform constants.
    consts: HashMap<(bool, u64), Val>,
    /// True inside an if-converted region, whose [`Op::CountRegion`] counts its vector
    /// instructions (see `lift::region`).
    pub(super) in_region: bool,
    /// Inside an if-converted region: `S32` "EXEC was non-zero at the region's start". Scalar
    /// writes (SGPRs, SCC) then keep the old value when it is zero, as the skipped region
    /// would have (see `lift::region`).
    pub(super) region_live: Option<Val>,
}

impl<'t> Lifter<'t> {
    /// A lifter for a block starting at `pc`.
    pub fn new(target: &'t Target, pc: u64, mode: u32) -> Lifter<'t> {
        Lifter {
            _target: core::marker::PhantomData,
            b: Builder::new(pc, target.wave_size),
            wave: target.wave_size,
            gpu: target.gpu,
            mode,
            no_flush: false,
            pc,
            next_pc: pc,
            name: "",
            inst: None,
            sregs: [None; 128],
            scc: None,
            exec: None,
            dpp_wmask: None,
            consts: HashMap::new(),
            in_region: false,
            region_live: None,
        }
    }

    /// Starts lifting `inst` located at `pc`.
    pub fn begin(&mut self, inst: &Inst, pc: u64, next: u64) {
        self.pc = pc;
        self.next_pc = next;
        self.name = inst.op.name();
        self.inst = Some(*inst);
        self.dpp_wmask = None;
        self.no_flush = false;
    }

    /// Finishes the block.
    pub fn finish(self, exit: Exit) -> Block {
        self.b.finish(exit)
    }

    // ---- IR construction -------------------------------------------------------------

    /// Type of `v`.
    pub fn ty(&self, v: Val) -> Ty {
        self.b.ty(v)
    }
    fn push(&mut self, op: Op, ty: Ty) -> Val {
        self.b.push(op, Some(ty))
    }
    /// Pushes an op without a result.
    pub fn effect(&mut self, op: Op) {
        self.b.push(op, None);
    }
    /// Uniform 32-bit constant.
    pub fn c32(&mut self, x: u32) -> Val {
        if let Some(&v) = self.consts.get(&(false, x as u64)) {
            return v;
        }
        let v = self.push(
            Op::Const {
                ty: Ty::S32,
                bits: x as u64,
            },
            Ty::S32,
        );
        self.consts.insert((false, x as u64), v);
        v
    }
    /// Uniform 64-bit constant.
    pub fn c64(&mut self, x: u64) -> Val {
        if let Some(&v) = self.consts.get(&(true, x)) {
            return v;
        }
        let v = self.push(
            Op::Const {
                ty: Ty::S64,
                bits: x,
            },
            Ty::S64,
        );
        self.consts.insert((true, x), v);
        v
    }
    /// A constant of the same width and shape (uniform/vector) as `like`.
    pub fn cst(&mut self, like: Val, x: u64) -> Val {
        let t = self.ty(like);
        let c = if t.bits() == 32 {
            self.c32(x as u32)
        } else {
            self.c64(x)
        };
        if t.is_vector() {
            self.bcast(c)
        } else {
            c
        }
    }
    /// Per-lane constant vector.
    pub fn lane_const(&mut self, lanes: [u32; 64]) -> Val {
        self.push(Op::LaneConst(Box::new(lanes)), Ty::V32)
    }
    /// Lane `i` of `[f(i); 64]` as a `V32` constant.
    pub fn lanes(&mut self, f: impl Fn(u32) -> u32) -> Val {
        let mut a = [0u32; 64];
        for (i, x) in a.iter_mut().enumerate() {
            *x = f(i as u32);
        }
        self.lane_const(a)
    }
    /// Unary op.
    pub fn un(&mut self, op: UnOp, a: Val) -> Val {
        let t = self.ty(a);
        self.push(Op::Un(op, a), t)
    }
    /// Binary op (result has `a`'s type).
    pub fn bin(&mut self, op: BinOp, a: Val, b: Val) -> Val {
        let t = self.ty(a);
        self.push(Op::Bin(op, a, b), t)
    }
    /// Ternary op.
    pub fn tern(&mut self, op: TernOp, a: Val, b: Val, c: Val) -> Val {
        let t = self.ty(a);
        self.push(Op::Tern(op, a, b, c), t)
    }
    /// Comparison: `S32` 0/1 for scalars, `S64` lane mask for vectors.
    pub fn cmp(&mut self, op: CmpOp, a: Val, b: Val) -> Val {
        let t = if self.ty(a).is_vector() {
            Ty::S64
        } else {
            Ty::S32
        };
        self.push(Op::Cmp(op, a, b), t)
    }
    /// `cond ? a : b`.
    pub fn select(&mut self, cond: Val, a: Val, b: Val) -> Val {
        let t = self.ty(a);
        self.push(Op::Select { cond, a, b }, t)
    }
    /// Uniform → all lanes.
    pub fn bcast(&mut self, a: Val) -> Val {
        let t = self.ty(a).to_vector();
        self.push(Op::Broadcast(a), t)
    }
    /// Conversion.
    pub fn conv(&mut self, op: ConvOp, a: Val) -> Val {
        let t = self.ty(a);
        let to64 = matches!(
            op,
            ConvOp::ZExt | ConvOp::SExt | ConvOp::F32ToF64 | ConvOp::I32ToF64 | ConvOp::U32ToF64
        );
        let to32 = matches!(
            op,
            ConvOp::Lo | ConvOp::Hi | ConvOp::F64ToF32 | ConvOp::F64ToI32 | ConvOp::F64ToU32
        );
        let r = match (to64, to32, t.is_vector()) {
            (true, _, false) => Ty::S64,
            (true, _, true) => Ty::V64,
            (_, true, false) => Ty::S32,
            (_, true, true) => Ty::V32,
            _ => t,
        };
        self.push(Op::Conv(op, a), r)
    }
    /// `lo | hi << 32`.
    pub fn pack(&mut self, lo: Val, hi: Val) -> Val {
        let t = if self.ty(lo).is_vector() {
            Ty::V64
        } else {
            Ty::S64
        };
        self.push(Op::Pack { lo, hi }, t)
    }
    /// Low half of a 64-bit value.
    pub fn lo(&mut self, a: Val) -> Val {
        self.conv(ConvOp::Lo, a)
    }
    /// High half of a 64-bit value.
    pub fn hi(&mut self, a: Val) -> Val {
        self.conv(ConvOp::Hi, a)
    }
    /// Per-lane Rust function with a result of type `ty`.
    pub fn lane_fn(&mut self, f: LaneFn, args: Vec<Val>, ty: Ty) -> Val {
        self.push(Op::Lane { f, args }, ty)
    }
    /// `ReadLane`.
    pub fn read_lane(&mut self, v: Val, lane: Val) -> Val {
        self.push(Op::ReadLane { v, lane }, Ty::S32)
    }
    /// `WriteLane`.
    pub fn write_lane(&mut self, v: Val, lane: Val, x: Val) -> Val {
        self.push(Op::WriteLane { v, lane, x }, Ty::V32)
    }
    /// `Gather`.
    pub fn gather(&mut self, v: Val, idx: Val) -> Val {
        self.push(Op::Gather { v, idx }, Ty::V32)
    }
    /// Lane mask → 0/1 per lane.
    pub fn mask_to_lanes(&mut self, m: Val) -> Val {
        self.push(Op::MaskToLanes(m), Ty::V32)
    }
    /// Lanes (`V32`/`V64`) → mask of the lanes that are non-zero.
    pub fn lanes_to_mask(&mut self, v: Val) -> Val {
        let z = self.cst(v, 0);
        self.cmp(CmpOp::Ne, v, z)
    }
    /// Pushes an arbitrary op with a result type.
    pub fn push_op(&mut self, op: Op, ty: Ty) -> Val {
        self.push(op, ty)
    }
    /// Shorthand for `a & b`, `a | b`, ....
    pub fn and(&mut self, a: Val, b: Val) -> Val {
        self.bin(BinOp::And, a, b)
    }
    /// `a | b`.
    pub fn or(&mut self, a: Val, b: Val) -> Val {
        self.bin(BinOp::Or, a, b)
    }
    /// `a ^ b`.
    pub fn xor(&mut self, a: Val, b: Val) -> Val {
        self.bin(BinOp::Xor, a, b)
    }
    /// `!a`.
    pub fn not(&mut self, a: Val) -> Val {
        self.un(UnOp::Not, a)
    }
    /// `a + b`.
    pub fn add(&mut self, a: Val, b: Val) -> Val {
        self.bin(BinOp::Add, a, b)
    }
    /// `a & imm`.
    pub fn and_imm(&mut self, a: Val, imm: u64) -> Val {
        let c = self.cst(a, imm);
        self.and(a, c)
    }
    /// `a + imm`.
    pub fn add_imm(&mut self, a: Val, imm: u64) -> Val {
        let c = self.cst(a, imm);
        self.add(a, c)
    }
    /// `a << imm`.
    pub fn shl_imm(&mut self, a: Val, imm: u64) -> Val {
        let c = self.cst(a, imm);
        self.bin(BinOp::Shl, a, c)
    }
    /// `a >> imm` (logical).
    pub fn lshr_imm(&mut self, a: Val, imm: u64) -> Val {
        let c = self.cst(a, imm);
        self.bin(BinOp::LShr, a, c)
    }
    /// `a >> imm` (arithmetic).
    pub fn ashr_imm(&mut self, a: Val, imm: u64) -> Val {
        let c = self.cst(a, imm);
        self.bin(BinOp::AShr, a, c)
    }
    /// `a != 0` as `S32` 0/1 (scalar `a`).
    pub fn ne0(&mut self, a: Val) -> Val {
        let z = self.cst(a, 0);
        self.cmp(CmpOp::Ne, a, z)
    }
    /// `a == 0` as `S32` 0/1 (scalar `a`).
    pub fn eq0(&mut self, a: Val) -> Val {
        let z = self.cst(a, 0);
        self.cmp(CmpOp::Eq, a, z)
    }

    // ---- scalar state ------------------------------------------------------------------

    /// Reads scalar slot `code` (`S32`); `null` reads 0.
    pub fn get_sreg(&mut self, code: u8) -> Val {
        if code == sreg::NULL {
            return self.c32(0);
        }
        if let Some(v) = self.sregs[code as usize & 127] {
            return v;
        }
        let v = self.push(Op::GetSgpr(code), Ty::S32);
        self.sregs[code as usize & 127] = Some(v);
        v
    }
    /// Writes scalar slot `code` from an `S32`.
    pub fn set_sreg(&mut self, code: u8, v: Val) {
        if code == sreg::NULL || code >= 128 {
            return;
        }
        let v = match self.region_live {
            Some(live) => {
                let old = self.get_sreg(code);
                self.select(live, v, old)
            }
            None => v,
        };
        self.effect(Op::SetSgpr(code, v));
        self.sregs[code as usize] = Some(v);
        if code == sreg::EXEC_LO || code == sreg::EXEC_HI {
            self.exec = None;
        }
    }
    /// SCC as `S32` 0/1.
    pub fn get_scc(&mut self) -> Val {
        if let Some(v) = self.scc {
            return v;
        }
        let v = self.push(Op::GetScc, Ty::S32);
        self.scc = Some(v);
        v
    }
    /// Writes SCC from an `S32` 0/1.
    pub fn set_scc(&mut self, v: Val) {
        let v = match self.region_live {
            Some(live) => {
                let old = self.get_scc();
                self.select(live, v, old)
            }
            None => v,
        };
        self.effect(Op::SetScc(v));
        self.scc = Some(v);
    }
    /// EXEC as an `S64` mask (wave32: high half 0).
    pub fn exec(&mut self) -> Val {
        if let Some(v) = self.exec {
            return v;
        }
        let lo = self.get_sreg(sreg::EXEC_LO);
        let v = if self.wave == 64 {
            let hi = self.get_sreg(sreg::EXEC_HI);
            self.pack(lo, hi)
        } else {
            self.conv(ConvOp::ZExt, lo)
        };
        self.exec = Some(v);
        v
    }
    /// Writes EXEC from an `S64` mask.
    pub fn set_exec(&mut self, m: Val) {
        let lo = self.lo(m);
        self.set_sreg(sreg::EXEC_LO, lo);
        if self.region_live.is_some() {
            // The written halves are conditional: EXEC is read back from them.
            if self.wave == 64 {
                let hi = self.hi(m);
                self.set_sreg(sreg::EXEC_HI, hi);
            }
            return;
        }
        if self.wave == 64 {
            let hi = self.hi(m);
            self.set_sreg(sreg::EXEC_HI, hi);
            self.exec = Some(m);
        } else {
            let z = self.conv(ConvOp::ZExt, lo);
            self.exec = Some(z);
        }
    }
    /// Reads an `S64` lane mask from a scalar pair (VCC, EXEC or an SGPR pair; wave32: the
    /// low register only).
    pub fn mask_opnd(&mut self, o: Opnd) -> R<Val> {
        if self.wave == 32 {
            let v = self.s32(o, K::B32)?;
            return Ok(self.conv(ConvOp::ZExt, v));
        }
        self.s64(o, K::B64)
    }
    /// Writes an `S64` lane mask to a scalar destination (wave32: the low register only).
    pub fn set_mask_opnd(&mut self, o: Opnd, m: Val) -> R<()> {
        if self.wave == 32 {
            let lo = self.lo(m);
            return self.set_s32(o, lo);
        }
        self.set_s64(o, m)
    }
    /// Counts the current vector instruction (`CountVector` with the current EXEC; nothing
    /// inside an if-converted region, which is counted as a whole).
    pub fn count_vector(&mut self) {
        if self.in_region {
            return;
        }
        let e = self.exec();
        self.effect(Op::CountVector { mask: e });
    }

    // ---- operand reads -----------------------------------------------------------------

    /// The current instruction.
    pub fn inst(&self) -> R<Inst> {
        self.inst
            .ok_or_else(|| "no current instruction".to_string())
    }

    fn literal(&self) -> R<u32> {
        self.inst
            .and_then(|i| i.literal)
            .ok_or_else(|| "literal operand without a literal".to_string())
    }

    /// Reads a uniform 32-bit operand.
    pub fn s32(&mut self, o: Opnd, k: K) -> R<Val> {
        if !o.is_some() {
            return Err("missing operand".into());
        }
        let code = o.code;
        if let Some(r) = o.sreg() {
            return Ok(self.get_sreg(r));
        }
        if let Some(c) = inline_const(code, k) {
            return Ok(self.c32(c as u32));
        }
        match code {
            255 => {
                let lit = self.literal()?;
                Ok(self.c32(lit))
            }
            235 | 236 => Ok(self.c32((SHARED_APERTURE_BASE >> 32) as u32)),
            237 | 238 => Ok(self.c32((PRIVATE_APERTURE_BASE >> 32) as u32)),
            230 | 231 => Err(FLAT_SCRATCH_BASE.into()),
            251 => {
                let m = self.mask_opnd(Opnd::scalar(sreg::VCC_LO, 2))?;
                Ok(self.eq0(m))
            }
            252 => {
                let e = self.exec();
                Ok(self.eq0(e))
            }
            253 => Ok(self.get_scc()),
            _ if o.vreg().is_some() => Err("vector register where a scalar is required".into()),
            _ => Err(format!("unsupported operand code {code}")),
        }
    }

    /// Reads a uniform 64-bit operand (SGPR pair, constant or literal).
    pub fn s64(&mut self, o: Opnd, k: K) -> R<Val> {
        if !o.is_some() {
            return Err("missing operand".into());
        }
        let code = o.code;
        if let Some(r) = o.sreg() {
            if r == sreg::NULL {
                return Ok(self.c64(0));
            }
            if r >= 127 {
                return Err(format!("64-bit operand at scalar slot {r}"));
            }
            let lo = self.get_sreg(r);
            let hi = if self.wave == 32 && (r == sreg::EXEC_LO) {
                self.c32(0)
            } else {
                self.get_sreg(r + 1)
            };
            return Ok(self.pack(lo, hi));
        }
        if let Some(c) = inline_const(code, k) {
            return Ok(self.c64(c));
        }
        match code {
            255 => {
                let lit = self.literal()?;
                let v = match k {
                    K::F64 => (lit as u64) << 32,
                    K::I64 => lit as i32 as i64 as u64,
                    _ => lit as u64,
                };
                Ok(self.c64(v))
            }
            235 => Ok(self.c64(SHARED_APERTURE_BASE)),
            236 => Ok(self.c64(SHARED_APERTURE_BASE | 0xffff_ffff)),
            237 => Ok(self.c64(PRIVATE_APERTURE_BASE)),
            238 => Ok(self.c64(PRIVATE_APERTURE_BASE | 0xffff_ffff)),
            230 => Err(FLAT_SCRATCH_BASE.into()),
            251..=253 => {
                let v = self.s32(o, k)?;
                Ok(self.conv(ConvOp::ZExt, v))
            }
            _ if o.vreg().is_some() => Err("vector register where a scalar is required".into()),
            _ => Err(format!("unsupported operand code {code}")),
        }
    }

    /// Checks that vector slots `reg..reg + n` exist and stay in one register file.
    fn vrange(reg: u16, n: u16) -> R<()> {
        let end = reg as usize + n as usize;
        let file_end = if (reg as usize) < AGPR_BASE {
            AGPR_BASE
        } else {
            NUM_VREGS
        };
        if end > file_end {
            return Err(format!(
                "register range {reg}..{end} leaves the register file"
            ));
        }
        Ok(())
    }

    /// Reads VGPR/AGPR slot `reg` (`V32`).
    pub fn get_vreg(&mut self, reg: u16) -> R<Val> {
        Self::vrange(reg, 1)?;
        Ok(self.push(Op::GetVgpr(reg), Ty::V32))
    }

    /// True when MODE.GPR_IDX_EN (bit 27) is set: VALU VGPR operands selected by M0[15:12]
    /// (bit 0..2 = src0..src2, bit 3 = dst) are offset by M0[7:0] (`s_set_gpr_idx_on`).
    pub fn gpr_idx(&self) -> bool {
        self.mode >> 27 & 1 != 0
    }

    /// The `S32` index added to VGPR operand `slot` (0..=2 sources, 3 destination) of
    /// `reg` under GPR indexing: `M0[7:0]` if `M0[12 + slot]`, else 0, limited so the
    /// register stays in its file (`reg + n - 1 + index <= last`).
    fn gpr_index(&mut self, reg: u16, n: u16, slot: u32) -> Val {
        let m0 = self.get_sreg(sreg::M0);
        let idx = self.and_imm(m0, 0xff);
        let en = self.lshr_imm(m0, 12 + slot as u64);
        let en = self.and_imm(en, 1);
        let z = self.c32(0);
        let idx = self.select(en, idx, z);
        let last = if (reg as usize) < AGPR_BASE {
            AGPR_BASE - 1
        } else {
            NUM_VREGS - 1
        };
        let room = (last as u32).saturating_sub(reg as u32 + n as u32 - 1);
        let room = self.c32(room);
        self.bin(BinOp::UMin, idx, room)
    }

    /// Reads `n` (1 or 2) VGPRs of VALU operand `o` in slot `slot` under GPR indexing.
    fn v_indexed(&mut self, o: Opnd, n: u16, slot: u32) -> R<Option<Val>> {
        let Some(reg) = o.vreg() else {
            return Ok(None);
        };
        if !self.gpr_idx() {
            return Ok(None);
        }
        Self::vrange(reg, n)?;
        let index = self.gpr_index(reg, n, slot);
        let lo = self.push(Op::GetVgprDyn { base: reg, index }, Ty::V32);
        if n == 1 {
            return Ok(Some(lo));
        }
        let hi = self.push(
            Op::GetVgprDyn {
                base: reg + 1,
                index,
            },
            Ty::V32,
        );
        Ok(Some(self.pack(lo, hi)))
    }

    /// Reads a 32-bit operand as lanes (scalars are broadcast).
    pub fn v32(&mut self, o: Opnd, k: K) -> R<Val> {
        if let Some(r) = o.vreg() {
            return self.get_vreg(r);
        }
        let s = self.s32(o, k)?;
        Ok(self.bcast(s))
    }

    /// Reads a 64-bit operand as lanes (a register pair, or a broadcast scalar).
    pub fn v64(&mut self, o: Opnd, k: K) -> R<Val> {
        if let Some(r) = o.vreg() {
            Self::vrange(r, 2)?;
            let lo = self.get_vreg(r)?;
            let hi = self.get_vreg(r + 1)?;
            return Ok(self.pack(lo, hi));
        }
        let s = self.s64(o, k)?;
        Ok(self.bcast(s))
    }

    /// Whether sources `i` and `j` read the same value: the same operand with the same
    /// modifiers, and no DPP, SDWA or VGPR indexing that could treat them differently.
    pub fn same_source(&mut self, i: usize, j: usize) -> R<bool> {
        let inst = self.inst()?;
        let bit = |m: u8, n: usize| m >> n & 1;
        let same_mods = [inst.mods.abs, inst.mods.neg, inst.mods.op_sel]
            .iter()
            .all(|&m| bit(m, i) == bit(m, j));
        Ok(inst.dpp.is_none()
            && inst.dpp8.is_none()
            && inst.sdwa.is_none()
            && !self.gpr_idx()
            && inst.src.get(i).is_some_and(|o| o.is_some())
            && inst.src.get(i) == inst.src.get(j)
            && same_mods)
    }

    /// Reads source `i` of the current VALU instruction as lanes, applying (in hardware
    /// order) DPP to `src0`, the SDWA source select, VOP3 `op_sel` for 16-bit kinds, and the
    /// `abs`/`neg` modifiers for float kinds.
    pub fn src(&mut self, i: usize, k: K) -> R<Val> {
        let inst = self.inst()?;
        let o = *inst.src.get(i).ok_or("source index out of range")?;
        if !o.is_some() {
            return Err(format!("missing source {i}"));
        }
        let n = if k.is64() { 2 } else { 1 };
        let mut v = match self.v_indexed(o, n, i.min(2) as u32)? {
            Some(v) => v,
            None if k.is64() => self.v64(o, k)?,
            None => self.v32(o, k)?,
        };
        if i == 0 {
            if let Some(sel) = inst.dpp8 {
                if k.is64() {
                    return Err("DPP8 on a 64-bit operand".into());
                }
                v = dpp::dpp8(self, v, sel)?;
            }
            if let Some(d) = inst.dpp {
                if k.is64() {
                    if self.gpu.family() != Some(crate::isa::Family::Gfx9) {
                        return Err("DPP on a 64-bit operand".into());
                    }
                    // gfx90a+ DP ALU DPP (row_newbcast only, as the decoder checks): each lane
                    // reads the source lane's whole 64-bit value.
                    let (lo, hi) = (self.lo(v), self.hi(v));
                    let (lo, hi) = (self.dpp(lo, d)?, self.dpp(hi, d)?);
                    v = self.pack(lo, hi);
                } else {
                    v = self.dpp(v, d)?;
                }
            }
        }
        if let Some(s) = inst.sdwa {
            if i < 2 && !k.is64() {
                let sel = if i == 0 { s.src0_sel } else { s.src1_sel };
                let sext = s.sext >> i & 1 != 0;
                v = self.sdwa_sel(v, sel, sext)?;
            }
        }
        if matches!(k, K::F16 | K::B16) && inst.mods.op_sel >> i & 1 != 0 && inst.sdwa.is_none() {
            v = self.lshr_imm(v, 16);
        }
        if k.is_float() {
            let abs = inst.mods.abs >> i & 1 != 0;
            let neg = inst.mods.neg >> i & 1 != 0;
            if k == K::F16 {
                if abs {
                    v = self.and_imm(v, 0x7fff);
                }
                if neg {
                    let c = self.cst(v, 0x8000);
                    v = self.xor(v, c);
                }
            } else {
                if abs {
                    v = self.un(UnOp::FAbs, v);
                }
                if neg {
                    v = self.un(UnOp::FNeg, v);
                }
            }
            if !self.no_flush && !self.denorm_allowed(k, 1) {
                v = self.flush_denorm(v, k);
            }
        }
        Ok(v)
    }

    /// MODE.FP_DENORM for kind `k` allows denormals on input (`which` = 1) or output (2):
    /// bits [5:4] for f32, [7:6] for f64 and f16 (0 flush both, 1 allow in, 2 allow out,
    /// 3 allow both).
    pub fn denorm_allowed(&self, k: K, which: u32) -> bool {
        let field = if k == K::F32 {
            self.mode >> 4 & 3
        } else {
            self.mode >> 6 & 3
        };
        field & which != 0
    }

    /// MODE.IEEE.
    pub fn ieee(&self) -> bool {
        self.mode >> 9 & 1 != 0
    }

    /// Replaces denormals of kind `k` in `v` by zero of the same sign.
    pub fn flush_denorm(&mut self, v: Val, k: K) -> Val {
        match k {
            K::F16 => {
                let e = self.and_imm(v, 0x7c00);
                let m = self.and_imm(v, 0x3ff);
                let z = self.cst(e, 0);
                let e0 = self.cmp(CmpOp::Eq, e, z);
                let mz = self.cmp(CmpOp::Ne, m, z);
                let den = self.and(e0, mz);
                let signed_zero = self.and_imm(v, 0x8000);
                self.select(den, signed_zero, v)
            }
            _ => {
                // Class bits 4 (-denormal) and 7 (+denormal).
                let classes = self.cst(v, 0x90);
                let den = self.cmp(CmpOp::FClass, v, classes);
                let sign = if k.is64() { 1u64 << 63 } else { 1u64 << 31 };
                let signed_zero = self.and_imm(v, sign);
                self.select(den, signed_zero, v)
            }
        }
    }

    /// SDWA source select: byte 0..3 (0..=3), word 0..1 (4, 5), dword (6).
    fn sdwa_sel(&mut self, v: Val, sel: u8, sext: bool) -> R<Val> {
        let (shift, width) = match sel {
            0..=3 => (8 * sel as u64, 8),
            4 | 5 => (16 * (sel as u64 - 4), 16),
            6 => return Ok(v),
            _ => return Err(format!("reserved SDWA select {sel}")),
        };
        let x = if shift > 0 {
            self.lshr_imm(v, shift)
        } else {
            v
        };
        Ok(match (width, sext) {
            (8, false) => self.conv(ConvOp::ZExt8, x),
            (8, true) => self.conv(ConvOp::SExt8, x),
            (_, false) => self.conv(ConvOp::ZExt16, x),
            (_, true) => self.conv(ConvOp::SExt16, x),
        })
    }

    /// The mask of lanes the current vector instruction writes (EXEC, narrowed by DPP).
    pub fn wmask(&mut self) -> Val {
        match self.dpp_wmask {
            Some(m) => m,
            None => self.exec(),
        }
    }

    // ---- destination writes ------------------------------------------------------------

    /// Writes a uniform 32-bit destination.
    pub fn set_s32(&mut self, o: Opnd, v: Val) -> R<()> {
        let r = o
            .sreg()
            .ok_or_else(|| format!("destination code {} is not a scalar register", o.code))?;
        self.set_sreg(r, v);
        Ok(())
    }

    /// Writes a uniform 64-bit destination (a register pair).
    pub fn set_s64(&mut self, o: Opnd, v: Val) -> R<()> {
        let r = o
            .sreg()
            .ok_or_else(|| format!("destination code {} is not a scalar register", o.code))?;
        if r == sreg::NULL {
            return Ok(());
        }
        if r >= 127 {
            return Err(format!("64-bit destination at scalar slot {r}"));
        }
        if r == sreg::EXEC_LO {
            self.set_exec(v);
            return Ok(());
        }
        let lo = self.lo(v);
        let hi = self.hi(v);
        self.set_sreg(r, lo);
        self.set_sreg(r + 1, hi);
        Ok(())
    }

    /// Writes a 32-bit value to VGPR/AGPR slot `reg` in the lanes of `mask`.
    pub fn set_vreg(&mut self, reg: u16, v: Val, mask: Val) -> R<()> {
        Self::vrange(reg, 1)?;
        self.effect(Op::SetVgpr { reg, val: v, mask });
        Ok(())
    }

    /// Writes the 32-bit VALU result `v` to destination 0 in the active lanes, applying the
    /// SDWA destination select and the DPP write mask.
    pub fn vdst32(&mut self, v: Val) -> R<()> {
        let inst = self.inst()?;
        let o = inst.dst[0];
        let reg = o
            .vreg()
            .ok_or_else(|| format!("destination code {} is not a vector register", o.code))?;
        let mut v = v;
        if let Some(s) = inst.sdwa {
            v = self.sdwa_dst(reg, v, s.dst_sel, s.dst_unused)?;
        }
        let m = self.wmask();
        if self.gpr_idx() {
            let index = self.gpr_index(reg, 1, 3);
            self.effect(Op::SetVgprDyn {
                base: reg,
                index,
                val: v,
                mask: m,
            });
            return Ok(());
        }
        self.set_vreg(reg, v, m)
    }

    /// Writes a 64-bit VALU result to the register pair of destination 0.
    pub fn vdst64(&mut self, v: Val) -> R<()> {
        let inst = self.inst()?;
        let o = inst.dst[0];
        let reg = o
            .vreg()
            .ok_or_else(|| format!("destination code {} is not a vector register", o.code))?;
        Self::vrange(reg, 2)?;
        let m = self.wmask();
        let lo = self.lo(v);
        let hi = self.hi(v);
        if self.gpr_idx() {
            let index = self.gpr_index(reg, 2, 3);
            for (r, val) in [(reg, lo), (reg + 1, hi)] {
                self.effect(Op::SetVgprDyn {
                    base: r,
                    index,
                    val,
                    mask: m,
                });
            }
            return Ok(());
        }
        self.set_vreg(reg, lo, m)?;
        self.set_vreg(reg + 1, hi, m)
    }

    /// Writes `n` consecutive dwords (`vals`) starting at vector destination `o`.
    pub fn set_vregs(&mut self, o: Opnd, vals: &[Val], mask: Val) -> R<()> {
        let reg = o
            .vreg()
            .ok_or_else(|| format!("destination code {} is not a vector register", o.code))?;
        Self::vrange(reg, vals.len() as u16)?;
        for (i, &v) in vals.iter().enumerate() {
            self.set_vreg(reg + i as u16, v, mask)?;
        }
        Ok(())
    }

    /// Reads `n` consecutive dwords of vector operand `o`.
    pub fn get_vregs(&mut self, o: Opnd, n: u16) -> R<Vec<Val>> {
        let reg = o
            .vreg()
            .ok_or_else(|| format!("operand code {} is not a vector register", o.code))?;
        Self::vrange(reg, n)?;
        (0..n).map(|i| self.get_vreg(reg + i)).collect()
    }

    /// SDWA destination select and `dst_unused` handling.
    fn sdwa_dst(&mut self, reg: u16, v: Val, sel: u8, unused: u8) -> R<Val> {
        let (shift, width) = match sel {
            0..=3 => (8 * sel as u64, 8u64),
            4 | 5 => (16 * (sel as u64 - 4), 16),
            6 => return Ok(v),
            _ => return Err(format!("reserved SDWA select {sel}")),
        };
        let field = ((1u64 << width) - 1) << shift;
        let placed = self.shl_imm(v, shift);
        let placed = self.and_imm(placed, field);
        Ok(match unused {
            0 => placed,
            1 => {
                // Sign-extend the field into the bits above it; the bits below are zero.
                let t = self.shl_imm(v, 32 - width);
                self.ashr_imm(t, 32 - width - shift)
            }
            2 => {
                let old = self.get_vreg(reg)?;
                let kept = self.and_imm(old, !field & 0xffff_ffff);
                self.or(kept, placed)
            }
            _ => return Err(format!("reserved SDWA dst_unused {unused}")),
        })
    }

    /// Whether `inst`'s OMOD scales a float result of kind `k` under the current MODE: it is
    /// ignored when MODE.IEEE is set or output denormals of `k` are allowed (CDNA ISA 6.2.2;
    /// RDNA3 the same); RDNA4 has no IEEE bit and always applies it (RDNA4 ISA 7.2.3).
    pub fn omod_active(&self, inst: &Inst, k: K) -> bool {
        let gfx12 = self.gpu.family() == Some(crate::isa::Family::Gfx12);
        inst.mods.omod != 0 && (gfx12 || (!self.ieee() && !self.denorm_allowed(k, 2)))
    }

    /// Applies the VOP3 output modifier and clamp to a float result of kind `k`.
    pub fn fout(&mut self, v: Val, k: K) -> R<Val> {
        let inst = self.inst()?;
        // MODE.FP_ROUND is applied by the op that computes `v` (valu.rs).
        let mut v = v;
        let (two, four, half, zero, one) = match k {
            K::F32 => (
                0x4000_0000u64,
                0x4080_0000u64,
                0x3f00_0000u64,
                0u64,
                0x3f80_0000u64,
            ),
            K::F64 => (
                0x4000_0000_0000_0000,
                0x4010_0000_0000_0000,
                0x3fe0_0000_0000_0000,
                0,
                0x3ff0_0000_0000_0000,
            ),
            _ => {
                if inst.mods.omod != 0 || inst.mods.clamp {
                    return Err("output modifiers on a 16-bit result".into());
                }
                return Ok(v);
            }
        };
        // RDNA4 flushes output denormals after OMOD (RDNA4 ISA 7.2.3). RDNA: -0 * OMOD = +0.
        let family = self.gpu.family();
        let gfx12 = family == Some(crate::isa::Family::Gfx12);
        if self.omod_active(&inst, k) {
            let m = match inst.mods.omod {
                1 => two,
                2 => four,
                _ => half,
            };
            let c = self.cst(v, m);
            v = self.bin(BinOp::FMul, v, c);
            if gfx12 {
                v = self.flush_denorm(v, k);
            }
            if family != Some(crate::isa::Family::Gfx9) {
                let sign = if k.is64() { 1u64 << 63 } else { 1 << 31 };
                let nz = self.cst(v, sign);
                let is_nz = self.cmp(CmpOp::Eq, v, nz);
                let z = self.cst(v, 0);
                v = self.select(is_nz, z, v);
            }
        }
        if inst.mods.clamp {
            // Clamp to [0, 1]; with DX10_CLAMP a NaN becomes 0 (maxNum(NaN, 0) = 0),
            // without it the NaN passes through.
            let z = self.cst(v, zero);
            let o = self.cst(v, one);
            let c = self.bin(BinOp::FMaxNum, v, z);
            let c = self.bin(BinOp::FMinNum, c, o);
            v = if self.mode >> 8 & 1 != 0 {
                c
            } else {
                let nan = self.cmp(CmpOp::FUno, v, v);
                self.select(nan, v, c)
            };
        }
        if !self.denorm_allowed(k, 2) {
            v = self.flush_denorm(v, k);
        }
        Ok(v)
    }
}
