//! Differential fuzzing of the two engines on RDNA code: gfx1100 and gfx1200, wave32 and
//! wave64.
//!
//! The instruction pool is the decoder oracle (`gen/gfx1100_cases.txt`,
//! `gen/gfx1200_cases.txt` and their `_w64` wave64 variants: LLVM-encoded instructions with
//! LLVM's text), restricted to the ALU encodings (SOP1/SOP2/SOPK/SOPC, VOP1/VOP2/VOPC/VOP3/
//! VOP3SD/VOP3P, VOPD; DPP16/DPP8 forms included; WMMA/SWMMAC) and the SMEM (scalar buffer loads included),
//! DS, FLAT, GLOBAL (ADDTID and gfx12 transposing loads included), SCRATCH and buffer
//! (MUBUF/MTBUF, VBUFFER) memory instructions, whose instructions lift. A memory
//! instruction comes with setup words that bring its address registers into the test buffers
//! (the VGPR masked and based, the SADDR/SBASE/SOFFSET SGPRs set, a SADDR absorbing the
//! immediate offset; instructions whose offsets cannot fit are left out). A buffer
//! instruction gets a random V# (`buffer_setups`: stride and gfx12 stride scale, swizzle,
//! index stride, ADD_TID, typed format bits, num_records small enough to put lanes out of
//! range) in each of the four out-of-range modes on gfx12, in one random mode on gfx11. A program is a random sequence of pool
//! instructions, forward branches (`s_branch`, `s_cbranch_scc0/1`, `vccz/vccnz`,
//! `execz/execnz`), subroutine calls (`s_call_b64`, or `s_getpc_b64`-computed
//! `s_swappc_b64`, returning by `s_setpc_b64`) and counted loops, most often all inside one
//! loop, ending in `s_endpgm` (an eighth of them run as a workgroup of 2-4 waves with
//! barriers added, [`super::run_waves`]); no pool instruction writes the loop counters (`s102`,
//! `s103`) or the call registers (`s[84:87]`). The oracle's fixed register choices (`v2`,
//! `v4`, `v8`, `s[4:5]`, ...) make later instructions read what earlier ones wrote. Each
//! program runs from a random wave state (float specials, NaN payloads, denormals, integer
//! edges, random EXEC and VCC, RDNA MODE values) in the interpreter and in the JIT (every
//! block compiled on first use except matrix blocks, which the JIT declines; a quarter of the
//! programs in the JIT's straight-line form), which must agree on the exit, every register
//! and counter, and memory.
//!
//! `s_buffer_load*` get V#s whose `num_records` puts all, some or none of their dwords in
//! range (`sbuffer_setups`). Not generated: image and export instructions. (Buffer loads
//! into LDS do not exist on GFX11/GFX12: llvm-mc-22 rejects `lds` on MUBUF/VBUFFER and
//! `buffer_load_lds_*`/`global_load_lds_*` for gfx1100 and gfx1200.)

use super::gen::{Code, CODE_BASE, GLOBAL_BASE, GLOBAL_SIZE, LDS_SIZE};
use super::{disassemble_words, first_diff, random_env, random_state, run_waves, Rng};
use crate::env::ExecFault;
use crate::exec::EngineKind;
use crate::isa::{decode, Format, Gpu, Inst, Op, Opnd, Target};
use crate::wave::WaveState;
use std::collections::HashSet;

static GFX1100_CASES: &str = include_str!("../../gen/gfx1100_cases.txt");
static GFX1100_W64_CASES: &str = include_str!("../../gen/gfx1100_w64_cases.txt");
static GFX1200_CASES: &str = include_str!("../../gen/gfx1200_cases.txt");
static GFX1200_W64_CASES: &str = include_str!("../../gen/gfx1200_w64_cases.txt");

/// Hardware-register reads the oracle lacks (its `s_getreg_b32` cases pick random ids): STATUS,
/// the scratch base and the cycle counter (`lift::salu::getreg`), encoded by llvm-mc-22.
static GFX11_EXTRA: &str = "\
b88af802 | s_getreg_b32 s10, hwreg(HW_REG_STATUS)
b88b0a42 | s_getreg_b32 s11, hwreg(HW_REG_STATUS, 9, 2)
b88cf814 | s_getreg_b32 s12, hwreg(HW_REG_FLAT_SCR_LO)
b88df815 | s_getreg_b32 s13, hwreg(HW_REG_FLAT_SCR_HI)
b88e981d | s_getreg_b32 s14, hwreg(HW_REG_SHADER_CYCLES, 0, 20)
";
/// The gfx12 counterpart of [`GFX11_EXTRA`].
static GFX12_EXTRA: &str = "\
b88af802 | s_getreg_b32 s10, hwreg(HW_REG_WAVE_STATUS)
b88b0a42 | s_getreg_b32 s11, hwreg(HW_REG_WAVE_STATUS, 9, 2)
b88cf814 | s_getreg_b32 s12, hwreg(HW_REG_WAVE_SCRATCH_BASE_LO)
b88df815 | s_getreg_b32 s13, hwreg(HW_REG_WAVE_SCRATCH_BASE_HI)
b88ff81d | s_getreg_b32 s15, hwreg(HW_REG_SHADER_CYCLES_LO)
b890f81e | s_getreg_b32 s16, hwreg(HW_REG_SHADER_CYCLES_HI)
b891f804 | s_getreg_b32 s17, hwreg(HW_REG_WAVE_STATE_PRIV)
";

/// `s_endpgm` (the same word on GFX11 and GFX12).
const S_ENDPGM: u32 = 0xbfb0_0000;

/// Loop counters (by nesting depth); no pool instruction writes them.
const S_LOOP: [u32; 2] = [102, 103];
/// Return address (`s[84:85]`) and computed target (`s[86:87]`) of calls.
const S_RET: u32 = 84;
const S_PC: u32 = 86;

/// True for the SGPRs no pool instruction or setup word may write.
fn reserved(r: u32) -> bool {
    S_LOOP.contains(&r) || (S_RET..S_PC + 2).contains(&r)
}

/// SOPP opcodes (GFX11 = GFX12): `s_branch`, `s_cbranch_scc0`, `scc1`, `vccz`, `vccnz`,
/// `execz`, `execnz` (llvm-mc-22: `s_branch 3` = bfa00003, ... `s_cbranch_execnz 3` =
/// bfa60003).
const BRANCHES: [u32; 7] = [0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26];

/// A SOPP word.
fn sopp(op: u32, simm16: u32) -> u32 {
    0xBF80_0000 | op << 16 | (simm16 & 0xFFFF)
}

/// `v_and_b32_e32 vD, lit, vS` (VOP2 opcode 0x1b; llvm-mc-22: `v_and_b32 v5, 0x1ffc, v5` =
/// 360a0aff 00001ffc).
fn v_and(d: u32, lit: u32, s: u32) -> [u32; 2] {
    [0x1B << 25 | d << 17 | s << 9 | 255, lit]
}

/// `v_or_b32_e32 vD, lit, vS` (VOP2 opcode 0x1c).
fn v_or(d: u32, lit: u32, s: u32) -> [u32; 2] {
    [0x1C << 25 | d << 17 | s << 9 | 255, lit]
}

/// `v_mov_b32_e32 vD, lit` (VOP1 opcode 1; `v_mov_b32 v6, s101` = 7e0c0265).
fn v_mov(d: u32, lit: u32) -> [u32; 2] {
    [0x3F << 25 | d << 17 | 1 << 9 | 255, lit]
}

/// `s_mov_b32 sD, lit` (SOP1 opcode 0; `s_mov_b32 s90, 0x1234` = beda00ff 00001234).
fn s_mov(d: u32, lit: u32) -> [u32; 2] {
    [0xBE80_0000 | d << 16 | 255, lit]
}

/// One pool instruction.
#[derive(Clone, Debug)]
pub struct PoolInst {
    /// Setup words run before it (memory instructions: address registers into range).
    pub prefix: Vec<u32>,
    /// Instruction bytes.
    pub bytes: Vec<u8>,
    /// LLVM's text.
    pub text: &'static str,
    /// The decoded opcode.
    pub op: Op,
}

/// The fuzzer for one RDNA target and wave size.
pub struct RdnaFuzzer {
    /// Target (GPU and wave size).
    pub target: Target,
    /// The instruction pool.
    pub pool: Vec<PoolInst>,
    /// Programs run.
    pub programs: u64,
    /// Wave instructions executed (interpreter).
    pub insts: u64,
    /// Programs that ended in a fault (the same one in both engines).
    pub faults: u64,
    /// Distinct opcodes in the programs run (pool instructions and scaffolding).
    pub opcodes: HashSet<Op>,
    /// Programs that ended in a bad jump or ran away (a layout error of the generator).
    pub layout_faults: u64,
    /// Programs run as a workgroup of several waves.
    pub workgroups: u64,
    /// Faults by kind (memory space, unsupported instruction, ...).
    pub fault_kinds: std::collections::BTreeMap<String, u64>,
}

/// A program element.
#[derive(Clone, Debug)]
pub enum RItem {
    /// A pool instruction (index), with its setup words.
    Inst(usize),
    /// A SOPP branch (opcode `op`) over the next `skip` items of the same level.
    Branch {
        /// SOPP opcode.
        op: u32,
        /// Items skipped when taken.
        skip: usize,
    },
    /// A subroutine call and return: `s_call_b64 s[84:85], sub` (or, with `swap`, the
    /// target computed by `s_getpc_b64`/`s_add_u32`/`s_addc_u32` into `s[86:87]` and called
    /// by `s_swappc_b64 s[84:85], s[86:87]`); `s_branch end; sub: body; s_setpc_b64
    /// s[84:85]; end:`. The body holds no calls.
    Call {
        /// Call through `s_swappc_b64`.
        swap: bool,
        /// The subroutine body.
        body: Vec<RItem>,
    },
    /// The workgroup barrier: `s_barrier` (GFX11), `s_barrier_signal -1; s_barrier_wait -1`
    /// (GFX12).
    Barrier,
    /// `s_mov_b32 sC, count; body; s_sub_u32 sC, sC, 1; s_cmp_lg_u32 sC, 0;
    /// s_cbranch_scc1 body`.
    Loop {
        /// Nesting depth (selects the counter).
        depth: usize,
        /// Iterations.
        count: u32,
        /// The body.
        body: Vec<RItem>,
    },
}

/// Setup words that bring the addresses of memory instruction `inst` into the test
/// buffers (`FlatEnv` of [`random_env`]): `Some(vec![])` for non-memory instructions,
/// `None` when its immediate offsets or registers cannot be made to fit.
fn address_setup(inst: &Inst) -> Option<Vec<u32>> {
    let mut w = Vec::new();
    let off = inst.mem.offset;
    let v = inst.src[0].vreg().map(u32::from);
    // A 64-bit base in SADDR, an SGPR pair below the loop counters.
    let sbase = |w: &mut Vec<u32>, o: Opnd, lo: u32, hi: u32| -> Option<()> {
        let s = u32::from(o.sreg()?);
        if s + 1 >= 106 || reserved(s) || reserved(s + 1) {
            return None;
        }
        w.extend(s_mov(s, lo));
        w.extend(s_mov(s + 1, hi));
        Some(())
    };
    match inst.format {
        Format::Ds => {
            // Offsets are bytes; two-address forms count in elements (at most 8 bytes), or
            // in 64 elements (`stride64`). (GFX9 names: `read2`, `write2st64`, ...)
            let name = inst.op.name();
            let two = name.contains("2addr") || name.contains("read2") || name.contains("write2");
            let reach = if two {
                let unit = if name.contains("st64") || name.contains("stride64") {
                    64 * 8
                } else {
                    8
                };
                off.max(i32::from(inst.mem.offset1)) * unit
            } else {
                off
            };
            if reach + 0x2000 + 16 > LDS_SIZE as i32 {
                return None;
            }
            if let Some(a) = v {
                w.extend(v_and(a, 0x1FFC, a));
            }
        }
        Format::Global | Format::Flat => {
            // Base GLOBAL_BASE + 0x1000 (the 16 KiB buffer's second KiB). With SADDR, the
            // SGPR base absorbs any immediate offset; the VGPR offset (absent in the ADDTID
            // forms, whose lane id × 4 is at most 252) stays below 4 KiB.
            let base = GLOBAL_BASE + 0x1000;
            if inst.src[2].is_some() && inst.src[2].code != Opnd::NULL {
                let b = base.wrapping_sub(off as i64 as u64);
                sbase(&mut w, inst.src[2], b as u32, (b >> 32) as u32)?;
                if let Some(a) = v {
                    w.extend(v_and(a, 0xFFC, a));
                }
            } else {
                // Without SADDR: offsets -4096..4080 stay in the buffer.
                if !(-4096..=4080).contains(&off) {
                    return None;
                }
                let a = v?;
                w.extend(v_and(a, 0xFFC, a));
                w.extend(v_or(a, base as u32, a));
                w.extend(v_mov(a + 1, (base >> 32) as u32));
            }
        }
        Format::Smem if inst.src[0].is_some() => {
            // SBASE = GLOBAL_BASE + 0x1000, SOFFSET (an SGPR, if any) 0x100: offsets
            // -4096..0x2000 stay in the buffer. Buffer loads (a V# base) have `sbuffer_setups`.
            if inst.op.name().contains("buffer") || !(-4096..=0x2000).contains(&off) {
                return None;
            }
            let base = GLOBAL_BASE + 0x1000;
            sbase(&mut w, inst.src[0], base as u32, (base >> 32) as u32)?;
            let so = inst.src[2];
            if so.is_some() {
                let r = u32::from(so.sreg()?);
                if r >= 106 || reserved(r) {
                    return None;
                }
                w.extend(s_mov(r, 0x100));
            }
        }
        Format::Scratch => {
            // 256 bytes of scratch per lane: VADDR < 0x80, SADDR 0x20, offset <= 64.
            if !(0..=64).contains(&off) {
                return None;
            }
            if let Some(a) = v {
                w.extend(v_and(a, 0x7C, a));
            }
            let s = inst.src[2];
            if s.is_some() && s.code != Opnd::NULL {
                let r = u32::from(s.sreg()?);
                if r >= 106 || reserved(r) {
                    return None;
                }
                w.extend(s_mov(r, 0x20));
            }
        }
        _ => {}
    }
    Some(w)
}

/// Base of the buffer a V# describes: `GLOBAL_BASE + 0x1000` (the test buffer is
/// `GLOBAL_SIZE` = 16 KiB).
const VSHARP_BASE: u64 = GLOBAL_BASE + 0x1000;

/// One buffer-resource configuration (RDNA4 ISA 9.4 V# fields, the same bits on GFX11
/// except the stride scale).
#[derive(Clone, Copy, Debug)]
struct Vsharp {
    stride: u32,
    /// gfx12 `[115:114]`: stride × 1, 4, 8, 32.
    stride_scale: u32,
    /// 0 off, 1 (4-byte elements), 3 (16-byte elements).
    swizzle: u32,
    /// `[118:117]`: 8 << n.
    index_stride: u32,
    add_tid: bool,
    num_records: u32,
    oob: u32,
    /// Typed format and DST_SEL bits (`[82:64]` of dword 3's low bits).
    format_bits: u32,
    soffset: u32,
}

impl Vsharp {
    fn stride_bytes(&self) -> u64 {
        u64::from(self.stride) << [0, 2, 3, 5][self.stride_scale as usize]
    }
    /// The V# dwords for `base`.
    fn words(&self, base: u64) -> [u32; 4] {
        [
            base as u32,
            (base >> 32) as u32 & 0xffff | self.stride << 16 | self.swizzle << 30,
            self.num_records,
            self.format_bits
                | self.stride_scale << 18
                | self.index_stride << 21
                | u32::from(self.add_tid) << 23
                | self.oob << 28,
        ]
    }
    /// The largest byte offset from the V# base of any access: indices `0..=idx_max`,
    /// offsets `0..=vmax` (multiples of 4) plus `ioff` and SOFFSET, by the linear or the
    /// swizzled formula (`lift/rdna_buffer.rs`), plus a 16-byte payload.
    fn reach(&self, idx_max: u64, vmax: u64, ioff: u64) -> u64 {
        let stride = self.stride_bytes();
        let soff = u64::from(self.soffset);
        let mut most = 0;
        if self.swizzle == 0 {
            most = idx_max * stride + vmax + ioff + soff;
        } else {
            let es = if self.swizzle == 1 { 2 } else { 4 };
            let is = u64::from(self.index_stride) + 3;
            for index in 0..=idx_max {
                for v in (0..=vmax).step_by(4) {
                    let t = v + ioff + soff;
                    let a = (((index >> is) * stride + (t >> es << es)) << is)
                        + ((index & ((1 << is) - 1)) << es)
                        + (t & ((1 << es) - 1));
                    most = most.max(a);
                }
            }
        }
        most + 16
    }
}

/// Setup words for MUBUF/MTBUF (gfx11) and VBUFFER (gfx12) instruction `inst`: on gfx12
/// (few buffer instructions in the oracle) one per out-of-range mode (0-3), on gfx11 (about
/// 600) one with a random mode; each with a random V# (stride, gfx12 stride scale, swizzle, index
/// stride, ADD_TID, num_records small enough that some lanes fall out of range, typed
/// format bits) written to its SGPR quad, SOFFSET set and the VGPR index/offset masked, all
/// such that every access stays in the test buffer whatever the lane's values (the V# base
/// absorbs a large instruction offset where the formula is linear); empty when the
/// registers cannot be set up.
fn buffer_setups(inst: &Inst, gfx12: bool, seed: u64) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let Some(sb) = inst.src[3].sreg().map(u32::from) else {
        return out;
    };
    if sb + 4 > 106 || (sb..sb + 4).any(reserved) || inst.mem.lds {
        return out;
    }
    let Some((so_reg, so_const)) = soffset_setup(inst.src[2], sb) else {
        return out;
    };
    let ioff = inst.mem.offset as u32 as u64 & 0xff_ffff;
    let mut rng = Rng(seed);
    let modes = if gfx12 {
        vec![0, 1, 2, 3]
    } else {
        vec![rng.below(4) as u32]
    };
    for oob in modes {
        for _attempt in 0..8 {
            let swizzle = [0, 0, 1, 3][rng.below(4) as usize];
            let mut vs = Vsharp {
                stride: [0, 4, 8, 12, 16, 20, 32, 48][rng.below(8) as usize],
                stride_scale: if gfx12 && rng.below(4) == 0 {
                    1 + rng.below(3) as u32
                } else {
                    0
                },
                swizzle,
                index_stride: rng.below(4) as u32,
                add_tid: rng.below(4) == 0,
                num_records: 0,
                oob,
                format_bits: (rng.next_u64() as u32) & if gfx12 { 0x3_ffff } else { 0x7_ffff },
                soffset: [0, 4, 0x40][rng.below(3) as usize],
            };
            if so_reg.is_none() {
                vs.soffset = so_const;
            }
            // Records: structured modes count indices, raw modes bytes.
            vs.num_records = match rng.below(4) {
                0 => 0,
                1 => 1 + rng.below(40) as u32,
                2 => 4 * rng.below(0x200) as u32,
                _ => u32::MAX,
            };
            let idx_max = if inst.mem.idxen { 31 } else { 0 } + if vs.add_tid { 63 } else { 0 };
            let vmax = if !inst.mem.offen {
                0
            } else if swizzle != 0 {
                0x3c
            } else {
                0x3fc
            };
            // Linear: the base absorbs the instruction offset; swizzled: it must be small.
            let (base, ioff_left) = if swizzle == 0 {
                (VSHARP_BASE - ioff, 0)
            } else {
                (VSHARP_BASE, ioff)
            };
            if vs.reach(idx_max, vmax, ioff_left) + (VSHARP_BASE - GLOBAL_BASE) > GLOBAL_SIZE as u64
            {
                continue;
            }
            let mut w = Vec::new();
            for (k, d) in vs.words(base).into_iter().enumerate() {
                w.extend(s_mov(sb + k as u32, d));
            }
            if let Some(r) = so_reg {
                w.extend(s_mov(r, vs.soffset));
            }
            if let Some(a) = inst.src[0].vreg().map(u32::from) {
                match (inst.mem.idxen, inst.mem.offen) {
                    (true, true) => {
                        w.extend(v_and(a, 0x1f, a));
                        w.extend(v_and(a + 1, vmax as u32, a + 1));
                    }
                    (true, false) => w.extend(v_and(a, 0x1f, a)),
                    (false, true) => w.extend(v_and(a, vmax as u32, a)),
                    (false, false) => {}
                }
            }
            out.push(w);
            break;
        }
    }
    out
}

/// How the fuzzer sets SOFFSET operand `so` of an instruction whose resource is the SGPR
/// quad at `sb`: `(Some(sgpr to write), 0)` for an SGPR below VCC or M0 (encoded as 125 on
/// RDNA), `(None, value)` for null (0) or a non-negative inline constant (a negative one
/// would wrap the offset); `None` for anything else, or an SGPR inside the quad (writing it
/// would overwrite the resource).
fn soffset_setup(so: Opnd, sb: u32) -> Option<(Option<u32>, u32)> {
    let r = match so.code {
        _ if !so.is_some() || so.code == Opnd::NULL => (None, 0),
        124 => (Some(125), 0),
        r @ 0..=105 if !reserved(u32::from(r)) => (Some(u32::from(r)), 0),
        c @ 128..=192 => (None, u32::from(c) - 128),
        _ => return None,
    };
    match r.0 {
        Some(reg) if (sb..sb + 4).contains(&reg) => None,
        _ => Some(r),
    }
}

/// Setup words for scalar buffer load `inst` (`s_buffer_load_*`, gfx12's sub-dword forms
/// and `s_buffer_prefetch_data`): three V#s written to its SBASE quad, SOFFSET set (0, 4 or
/// 0x40 when an SGPR). The V# base absorbs the offset, so every access that is in range
/// reads the test buffer's second KiB, and `num_records` (with stride 0, or 4 or 16 bytes,
/// `lift/smem.rs`: the limit is `max(stride, 1) * num_records` bytes) puts all, some or none
/// of the dwords in range. The dword forms mask the 32-bit offset sum to a dword
/// (`lift/smem.rs`); the sub-dword forms use the 64-bit sum and read at the V# base when out
/// of range, so their base must itself lie in the buffer: they need offsets in
/// -0x1000..=0x2000. Empty when the registers cannot be set up.
fn sbuffer_setups(inst: &Inst, seed: u64) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let Some(sb) = inst.src[0].sreg().map(u32::from) else {
        return out;
    };
    if sb + 4 > 106 || (sb..sb + 4).any(reserved) {
        return out;
    }
    let Some((so_reg, so_const)) = soffset_setup(inst.src[2], sb) else {
        return out;
    };
    let name = inst.op.name();
    let sub_dword = ["_u8", "_i8", "_u16", "_i16"]
        .iter()
        .any(|s| name.ends_with(s));
    // Bytes loaded: `_b32` ... `_b512` (a sub-dword load reads within one dword).
    let bytes = name
        .rsplit_once("_b")
        .and_then(|(_, n)| n.parse::<u64>().ok())
        .map_or(4, |bits| (bits / 8).max(4));
    let mut rng = Rng(seed);
    for case in 0..3 {
        let soffset = if so_reg.is_some() {
            [0, 4, 0x40][rng.below(3) as usize]
        } else {
            so_const
        };
        // The offset the lifter computes from the immediate and SOFFSET.
        let sum = (inst.mem.offset as i64 as u64).wrapping_add(u64::from(soffset));
        let t = if sub_dword {
            if !(-0x1000..=0x2000).contains(&(sum as i64)) {
                return out;
            }
            sum
        } else {
            sum & 0xffff_fffc
        };
        let base = VSHARP_BASE.wrapping_sub(t);
        let stride = [0u32, 0, 4, 16][rng.below(4) as usize];
        let unit = u64::from(stride.max(1));
        // All dwords in range, a random prefix of them, none.
        let limit = match case {
            0 => u64::MAX,
            1 => t + 4 * rng.below(bytes / 4 + 1),
            _ => t.saturating_sub(rng.below(8)),
        };
        let num_records = (limit / unit).min(u64::from(u32::MAX)) as u32;
        let words = [
            base as u32,
            (base >> 32) as u32 & 0xffff | stride << 16,
            num_records,
            rng.next_u64() as u32,
        ];
        let mut w = Vec::new();
        for (k, d) in words.into_iter().enumerate() {
            w.extend(s_mov(sb + k as u32, d));
        }
        if let Some(r) = so_reg {
            w.extend(s_mov(r, soffset));
        }
        out.push(w);
    }
    out
}

/// True when `o` (a destination) covers a [`reserved`] SGPR.
fn writes_reserved(o: Opnd) -> bool {
    o.is_some()
        && o.code < 128
        && (u32::from(o.code)..u32::from(o.code) + u32::from(o.count.max(1))).any(reserved)
}

/// Whether an oracle instruction may go into a program: an ALU, matrix or DS/FLAT/GLOBAL/
/// SCRATCH encoding, and not one that jumps, sleeps, traps or changes the program counter.
fn eligible(format: Format, name: &str) -> bool {
    let alu = matches!(
        format,
        Format::Sop1
            | Format::Sop2
            | Format::Sopk
            | Format::Sopc
            | Format::Vop1
            | Format::Vop2
            | Format::Vopc
            | Format::Vop3
            | Format::Vop3b
            | Format::Vop3p
            | Format::Vopd
            | Format::Ds
            | Format::Flat
            | Format::Global
            | Format::Scratch
            | Format::Smem
            | Format::Mubuf
            | Format::Mtbuf
    );
    // Program control; `s_movrel*` may write any SGPR (the loop counters).
    let control = [
        "s_movrel",
        "s_setpc",
        "s_swappc",
        "s_call",
        "s_rfe",
        "s_sleep",
        "s_trap",
        "s_cbranch",
        "s_branch",
        "s_endpgm",
        "s_barrier",
        "s_alloc_vgpr",
    ];
    alu && !control.iter().any(|c| name.starts_with(c))
}

impl RdnaFuzzer {
    /// The fuzzer for `gpu` (gfx1100, gfx1200 or gfx1201) in wave `wave` (32 or 64).
    pub fn new(gpu: Gpu, wave: u32) -> RdnaFuzzer {
        let target = Target {
            gpu,
            wave_size: wave,
        };
        let gfx11 = gpu.family() == Some(crate::isa::Family::Gfx11);
        let (w32, w64, extra) = if gfx11 {
            (GFX1100_CASES, GFX1100_W64_CASES, GFX11_EXTRA)
        } else {
            (GFX1200_CASES, GFX1200_W64_CASES, GFX12_EXTRA)
        };
        // The wave64 files hold the instructions whose operands differ in wave64; the memory
        // instructions (the same in both) come from the wave32 file.
        let lines = if wave == 32 {
            extra.lines().chain(w32.lines()).chain("".lines())
        } else {
            extra.lines().chain(w64.lines()).chain(w32.lines())
        };
        let w64_len = extra.lines().count() + w64.lines().count();
        let mut pool = Vec::new();
        for (n, line) in lines.enumerate() {
            if line.starts_with('#') {
                continue;
            }
            let memory_only = wave == 64 && n >= w64_len;
            let Some((hex, text)) = line.split_once(" | ") else {
                continue;
            };
            let words: Option<Vec<u32>> = hex
                .split_whitespace()
                .map(|w| u32::from_str_radix(w, 16).ok())
                .collect();
            let Some(words) = words.filter(|w| !w.is_empty()) else {
                continue;
            };
            let bytes = super::gen::to_bytes(&words);
            let Ok(inst) = decode(&target, &bytes, 0x1000) else {
                continue;
            };
            if inst.size as usize != bytes.len() || !eligible(inst.format, inst.op.name()) {
                continue;
            }
            let memory = matches!(
                inst.format,
                Format::Ds
                    | Format::Flat
                    | Format::Global
                    | Format::Scratch
                    | Format::Smem
                    | Format::Mubuf
                    | Format::Mtbuf
            );
            if memory_only && !memory {
                continue;
            }
            if inst.dst.iter().any(|&d| writes_reserved(d)) {
                continue;
            }
            if crate::lift::coverage::lift_one(&target, &bytes).is_err() {
                continue;
            }
            let prefixes = if matches!(inst.format, Format::Mubuf | Format::Mtbuf) {
                buffer_setups(&inst, !gfx11, n as u64 ^ 0xb0ff)
            } else if inst.format == Format::Smem && inst.op.name().starts_with("s_buffer_") {
                sbuffer_setups(&inst, n as u64 ^ 0x5b0f)
            } else {
                address_setup(&inst).into_iter().collect()
            };
            for prefix in prefixes {
                pool.push(PoolInst {
                    prefix,
                    bytes: bytes.clone(),
                    text: text.trim(),
                    op: inst.op,
                });
            }
        }
        RdnaFuzzer {
            target,
            pool,
            programs: 0,
            insts: 0,
            faults: 0,
            opcodes: HashSet::new(),
            layout_faults: 0,
            workgroups: 0,
            fault_kinds: Default::default(),
        }
    }

    /// A random program: pool instructions, branches and loops, usually all in one loop.
    pub fn program(&self, rng: &mut Rng) -> Vec<RItem> {
        let n = 16 + rng.below(48) as usize;
        if rng.below(4) != 0 {
            let body = self.items(rng, n, 1);
            vec![RItem::Loop {
                depth: 0,
                count: 2 + rng.below(7) as u32,
                body,
            }]
        } else {
            self.items(rng, n, 0)
        }
    }

    fn items(&self, rng: &mut Rng, n: usize, depth: usize) -> Vec<RItem> {
        let mut v = Vec::with_capacity(n);
        while v.len() < n {
            let r = rng.below(100);
            if r < 5 {
                v.push(RItem::Branch {
                    op: BRANCHES[rng.below(7) as usize],
                    skip: 1 + rng.below(4) as usize,
                });
            } else if r < 7 && depth < 2 {
                let n = 1 + rng.below(5) as usize;
                let body = self.items(rng, n, 2);
                v.push(RItem::Call {
                    swap: rng.below(2) == 0,
                    body,
                });
            } else if r < 11 && depth < 2 {
                let n = 2 + rng.below(8) as usize;
                let body = self.items(rng, n, depth + 1);
                v.push(RItem::Loop {
                    depth,
                    count: 2 + rng.below(5) as u32,
                    body,
                });
            } else {
                v.push(RItem::Inst(rng.below(self.pool.len() as u64) as usize));
            }
        }
        v
    }

    fn gfx12(&self) -> bool {
        self.target.gpu.family() == Some(crate::isa::Family::Gfx12)
    }

    /// Size in dwords of an item.
    fn size(&self, item: &RItem) -> usize {
        match item {
            RItem::Inst(i) => self.pool[*i].prefix.len() + self.pool[*i].bytes.len() / 4,
            RItem::Branch { .. } => 1,
            RItem::Barrier => {
                if self.gfx12() {
                    2
                } else {
                    1
                }
            }
            // (s_getpc, s_add + literal, s_addc, s_swappc | s_call), s_branch, body, s_setpc.
            RItem::Call { swap, body } => {
                (if *swap { 5 } else { 1 })
                    + 1
                    + body.iter().map(|i| self.size(i)).sum::<usize>()
                    + 1
            }
            // s_mov_b32 + literal, body, s_sub_u32, s_cmp_lg_u32, s_cbranch_scc1.
            RItem::Loop { body, .. } => 2 + body.iter().map(|i| self.size(i)).sum::<usize>() + 3,
        }
    }

    /// `items` laid out as words, followed by `s_endpgm`.
    pub fn layout(&self, items: &[RItem]) -> Vec<u32> {
        let mut out = Vec::new();
        self.emit(items, &mut out);
        out.push(S_ENDPGM);
        out
    }

    fn emit(&self, items: &[RItem], out: &mut Vec<u32>) {
        for (k, item) in items.iter().enumerate() {
            match item {
                RItem::Inst(i) => {
                    let p = &self.pool[*i];
                    out.extend_from_slice(&p.prefix);
                    out.extend(
                        p.bytes
                            .chunks(4)
                            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                    );
                }
                RItem::Branch { op, skip } => {
                    let end = (k + 1 + skip).min(items.len());
                    let d: usize = items[k + 1..end].iter().map(|i| self.size(i)).sum();
                    out.push(sopp(*op, d as u32));
                }
                RItem::Barrier => {
                    if self.gfx12() {
                        // llvm-mc-22: `s_barrier_signal -1` = be804ec1, `s_barrier_wait -1`
                        // = bf94ffff.
                        out.extend([0xBE80_4EC1, 0xBF94_FFFF]);
                    } else {
                        // `s_barrier` = bfbd0000.
                        out.push(0xBFBD_0000);
                    }
                }
                RItem::Call { swap, body } => {
                    if *swap {
                        // llvm-mc-22 (gfx1100 = gfx1200): `s_getpc_b64 s[86:87]` = bed64700,
                        // `s_add_u32 s86, s86, lit` = 8056ff56, `s_addc_u32 s87, s87, 0` =
                        // 82578057, `s_swappc_b64 s[84:85], s[86:87]` = bed44956. The target
                        // is 5 dwords past the s_add (the address s_getpc returns).
                        out.push(0xBE80_4700 | S_PC << 16);
                        out.extend([0x8000_FF00 | S_PC << 16 | S_PC, 4 * 5]);
                        out.push(0x8280_8000 | (S_PC + 1) << 16 | (S_PC + 1));
                        out.push(0xBE80_4900 | S_RET << 16 | S_PC);
                    } else {
                        // `s_call_b64 s[84:85], 1` = ba540001: over the s_branch.
                        out.push(0xBA00_0001 | S_RET << 16);
                    }
                    let d: usize = body.iter().map(|i| self.size(i)).sum();
                    out.push(sopp(0x20, d as u32 + 1));
                    self.emit(body, out);
                    // `s_setpc_b64 s[84:85]` = be804854.
                    out.push(0xBE80_4800 | S_RET);
                }
                RItem::Loop { depth, count, body } => {
                    let c = S_LOOP[*depth];
                    out.extend(s_mov(c, *count));
                    let start = out.len();
                    self.emit(body, out);
                    // s_sub_u32 sC, sC, 1 (SOP2 opcode 1: `s_sub_u32 s90, s90, 1` = 80da815a).
                    out.push(0x8080_0000 | c << 16 | 0x81 << 8 | c);
                    // s_cmp_lg_u32 sC, 0 (SOPC opcode 7: `s_cmp_lg_u32 s90, 0` = bf07805a).
                    out.push(0xBF07_0000 | 0x80 << 8 | c);
                    let d = start as i64 - (out.len() as i64 + 1);
                    out.push(sopp(0x22, d as i32 as u32));
                }
            }
        }
    }

    /// Pool instructions in `items`, nested ones included.
    fn insts(items: &[RItem], out: &mut Vec<usize>) {
        for i in items {
            match i {
                RItem::Inst(k) => out.push(*k),
                RItem::Loop { body, .. } | RItem::Call { body, .. } => Self::insts(body, out),
                RItem::Branch { .. } | RItem::Barrier => {}
            }
        }
    }

    /// Runs program `seed` in both engines; `Err` describes a difference (seed, program text,
    /// first differing register, lane or byte).
    pub fn run_program(&mut self, seed: u64) -> Result<(), String> {
        if self.pool.is_empty() {
            return Err(format!("{}: empty instruction pool", self.target.gpu));
        }
        let mut rng = Rng(seed);
        let mut items = self.program(&mut rng);
        // An eighth of the programs run as a workgroup of 2-4 waves meeting at barriers.
        let waves = if rng.below(8) == 0 {
            2 + rng.below(3) as usize
        } else {
            1
        };
        if waves > 1 {
            let list = match items.as_mut_slice() {
                [RItem::Loop { body, .. }] => body,
                _ => &mut items,
            };
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(list.len() as u64 + 1) as usize;
                list.insert(at, RItem::Barrier);
            }
            self.workgroups += 1;
        }
        let words = self.layout(&items);
        let code = Code(super::gen::to_bytes(&words));
        let mut prog = Vec::new();
        Self::insts(&items, &mut prog);
        // RDNA MODE: round to nearest, denormal modes random (no IEEE/DX10 bits on RDNA4).
        let mode = match rng.below(4) {
            0 => (rng.below(16) as u32) << 4,
            _ => 0xf0,
        };
        let mut state = random_state(&mut rng, mode);
        state.wave_size = self.target.wave_size;
        let env = random_env(&mut rng);
        let mut states = vec![state];
        for _ in 1..waves {
            let mut s = random_state(&mut rng, mode);
            s.wave_size = self.target.wave_size;
            states.push(s);
        }
        let refs: Vec<&WaveState> = states.iter().map(|s| &**s).collect();
        let straight = seed.is_multiple_of(4);
        let t = &self.target;
        let a = run_waves(t, &code, &refs, &env, EngineKind::Interp, false);
        let b = run_waves(t, &code, &refs, &env, EngineKind::Jit, straight);
        self.programs += 1;
        self.insts += a.insts();
        if let Err(e) = &a.result {
            self.faults += 1;
            *self.fault_kinds.entry(super::fault_kind(e)).or_default() += 1;
            if matches!(e, ExecFault::BadJump(_) | ExecFault::Runaway(_)) {
                self.layout_faults += 1;
            }
        }
        self.opcodes.extend(prog.iter().map(|&i| self.pool[i].op));
        // The scaffolding too (branches, loops, calls).
        let mut off = 0;
        while off < code.0.len() {
            let Ok(i) = decode(&self.target, &code.0[off..], CODE_BASE + off as u64) else {
                break;
            };
            self.opcodes.insert(i.op);
            off += (i.size as usize).max(4);
        }
        let high = if self.target.wave_size == 32 {
            high_lanes_changed(&states, &a, "interp")
                .or_else(|| high_lanes_changed(&states, &b, "jit"))
        } else {
            None
        };
        match high.or_else(|| first_diff(&a, &b)) {
            None => Ok(()),
            Some(d) => Err(format!(
                "{} wave{} seed {seed:#x}: engines differ: {d}\nprogram:\n{}",
                self.target.gpu,
                self.target.wave_size,
                disassemble_words(&self.target, &words)
            )),
        }
    }
}

/// The first VGPR lane 32..63 that a wave32 run changed (the IR never writes them; the
/// fuzzer's initial states hold random values there), naming the engine.
fn high_lanes_changed(init: &[Box<WaveState>], o: &super::Outcome, engine: &str) -> Option<String> {
    let finals = std::iter::once(&o.state).chain(o.others.iter().map(|(_, s)| s));
    for (w, (s0, s1)) in init.iter().zip(finals).enumerate() {
        for r in 0..s0.vgpr.len() {
            if let Some(l) = (32..64).find(|&l| s0.vgpr[r][l] != s1.vgpr[r][l]) {
                return Some(format!(
                    "wave {w}: {engine} changed v{r} lane {l} of a wave32 wave: {:#010x} -> {:#010x}",
                    s0.vgpr[r][l], s1.vgpr[r][l]
                ));
            }
        }
    }
    None
}
