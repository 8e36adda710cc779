//! Random GFX9 (gfx942/gfx950) programs: opcodes from the generated tables, operands legal
//! for each opcode, encoded to instruction words from the bit layouts (`notes/cdna.md` §3.2,
//! the same layouts [`crate::isa::gfx9`] decodes), every word checked by decoding it back.

use super::Rng;
use crate::env::CodeSource;
use crate::ir::Exit;
use crate::isa::generated::{
    gfx9 as t, Op, OpInfo, CLASS_ACCMOV, CLASS_ATOMIC, CLASS_CMPSWAP, CLASS_MADAK, CLASS_MADMK,
    CLASS_MAI, CLASS_SBUFFER, CLASS_SDST_READ, CLASS_STORE, MOD_ABS0, MOD_CLAMP, MOD_NEG0,
    MOD_NEG_HI, MOD_NEG_LO, MOD_OMOD, MOD_OPSEL, MOD_OPSEL_HI,
};
use crate::isa::{decode, Gpu, Target};

/// Device address of the global buffer the generated memory instructions target.
pub const GLOBAL_BASE: u64 = 0x0000_0001_4000_0000;
/// Size of the global buffer in bytes.
pub const GLOBAL_SIZE: usize = 0x4000;
/// LDS bytes.
pub const LDS_SIZE: usize = 0x1_0000;
/// Scratch bytes per lane.
pub const SCRATCH_PER_LANE: usize = 256;
/// Address of the first instruction of a program.
pub const CODE_BASE: u64 = 0x1_0000;

/// Reserved SGPRs (never written by random instructions; `s84..s101`): `s[100:101]` = global base,
/// `s[96:99]` = buffer resource (V#), `s94` = scratch/buffer offset (`s95` = 0: `s[94:95]` is
/// the base of scalar scratch accesses), `s90`/`s91` loop counters, `s[92:93]`/`s[88:89]`
/// saved EXEC of structured `if`s. Fork/join scaffolding uses `s64..s74` (random
/// instructions use at most `s0..s63`).
pub const S_GLOBAL: u32 = 100;
/// First SGPR of the V#.
pub const S_VSHARP: u32 = 96;
/// Scalar offset for scratch and buffer accesses.
pub const S_SOFF: u32 = 94;
const S_LOOP: [u32; 2] = [90, 91];
/// Pair holding computed jump targets (`s[86:87]`); `s[84:85]` gets `s_swappc`'s return address.
const S_PC: u32 = 86;
const S_SAVE: [u32; 2] = [92, 88];
/// Fork/join: `s[64:67]` keeps stack entry 0 (`s[0:3]`) and `s75` the CSP while a path
/// runs, `s[72:73]` the EXEC before the fork, `s74` the CSP at the fork (0).
const S_FORK_ENTRY: u32 = 64;
const S_FORK_EXEC: u32 = 72;
const S_FORK_CSP: u32 = 74;
const S_PATH_CSP: u32 = 75;
/// `hwreg(HW_REG_MODE, 29, 3)`: the fork/join stack pointer CSP.
const HWREG_CSP: u32 = 1 | 29 << 6 | 2 << 11;

/// VGPRs random instructions use (`v0..v31`); AGPRs `a0..a7`.
const NVGPR: u32 = 32;
const NAGPR: u32 = 8;
/// VGPRs and AGPRs matrix instructions use (`v0..v63`, `a0..a31`).
const MAI_NVGPR: u32 = 64;
const MAI_NAGPR: u32 = 32;
/// SGPRs random instructions write (`s0..s63` plus VCC, M0, rarely EXEC).
const NSGPR: u32 = 64;

/// Instruction encodings the generator produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enc {
    /// SOP1.
    Sop1,
    /// SOP2.
    Sop2,
    /// SOPK.
    Sopk,
    /// SOPC.
    Sopc,
    /// SOPP (only the non-branch ones in the random pool).
    Sopp,
    /// SMEM.
    Smem,
    /// VOP1.
    Vop1,
    /// VOP2.
    Vop2,
    /// VOPC.
    Vopc,
    /// VOP3A/VOP3B.
    Vop3,
    /// VOP3P (not MAI).
    Vop3p,
    /// DS.
    Ds,
    /// FLAT.
    Flat,
    /// GLOBAL.
    Global,
    /// SCRATCH.
    Scratch,
    /// MUBUF.
    Mubuf,
    /// MTBUF (typed buffer accesses, the format in the instruction).
    Mtbuf,
}

/// One opcode of one encoding the generator may pick.
#[derive(Clone, Copy, Debug)]
pub struct Cand {
    /// Encoding.
    pub enc: Enc,
    /// Opcode field value.
    pub opc: u32,
    /// The table entry.
    pub info: OpInfo,
}

/// A program element: instructions, or structured control flow around generated bodies.
#[derive(Clone, Debug)]
pub enum Item {
    /// Instruction words (address setup plus one instruction, or one instruction).
    Inst(Vec<u32>),
    /// A SOPP branch (opcode field `opc`) over the next `skip` items of the same level.
    Branch {
        /// SOPP opcode.
        opc: u32,
        /// Items skipped when taken.
        skip: usize,
    },
    /// `s_mov_b32 sC, count; body; s_sub_u32 sC, sC, 1; s_cmp_lg_u32 sC, 0; s_cbranch_scc1`.
    Loop {
        /// Nesting depth (selects the counter SGPR).
        depth: usize,
        /// Iterations.
        count: u32,
        /// Loop body.
        body: Vec<Item>,
    },
    /// `s_getpc_b64 s[86:87]; s_add_u32 s86, s86, off; s_addc_u32 s87, s87, 0;
    /// s_setpc_b64 s[86:87]` (or `s_swappc_b64 s[84:85], s[86:87]`): an indirect jump over
    /// the next `skip` items of the same level.
    SetPc {
        /// Items skipped.
        skip: usize,
        /// Use `s_swappc_b64` (writing the return address to `s[84:85]`).
        swap: bool,
    },
    /// `s_set_gpr_idx_on idx, mode; body; s_set_gpr_idx_off`: VGPR indexing (M0 low bits =
    /// the index `idx`, `mode` = which operands are indexed) around a body.
    GprIdx {
        /// Index (an inline constant 0..=16).
        idx: u32,
        /// Mode bits (src0, src1, src2, dst).
        mode: u32,
        /// The indexed body.
        body: Vec<Item>,
    },
    /// A subroutine call and return: `s_call_b64 s[84:85], sub` (or, with `swap`, the
    /// target computed by `s_getpc_b64`/`s_add_u32`/`s_addc_u32` into `s[86:87]` and called
    /// by `s_swappc_b64 s[84:85], s[86:87]`); `s_branch end; sub: body; s_setpc_b64
    /// s[84:85]; end:`. The body contains no calls or `s_swappc` (they would overwrite the
    /// return address).
    Call {
        /// Call through `s_swappc_b64` instead of `s_call_b64`.
        swap: bool,
        /// The subroutine body.
        body: Vec<Item>,
    },
    /// A GCN fork/join on the lanes of a compare (CDNA4 ISA 4.6): `cmp (into VCC);
    /// s_setreg_imm32_b32 hwreg(HW_REG_MODE, 29, 3), 0` (CSP = 0); `s_mov_b32 s74, 0;
    /// s_mov_b64 s[72:73], exec; s_cbranch_i_fork vcc, pass` (or, with `g`, the target
    /// computed into `s[86:87]` and `s_cbranch_g_fork vcc, s[86:87]`); `fail: save; body;
    /// restore; s_branch join; pass: save; body; restore; join: s_cbranch_join s74;
    /// s_mov_b64 exec, s[72:73]`. Save/restore keep what random instructions of a path may
    /// change and the join needs: stack entry 0 (`s[0:3]`, in `s[64:67]`) and CSP (random
    /// `s_setreg`s of MODE; in `s75`). Bodies are generated at depth 2 (no nested forks,
    /// loops, `if`s or calls).
    Fork {
        /// `s_cbranch_g_fork` with an SGPR-pair target instead of `s_cbranch_i_fork`.
        g: bool,
        /// The compare's words.
        cmp: Vec<u32>,
        /// The path at the next instruction (lanes whose VCC bit is clear).
        fail: Vec<Item>,
        /// The path at the target (lanes whose VCC bit is set).
        pass: Vec<Item>,
    },
    /// `cmp (into VCC); s_and_saveexec_b64 sS, vcc; s_cbranch_execz end; body; end:
    /// s_or_b64 exec, exec, sS`.
    If {
        /// Nesting depth (selects the save pair).
        depth: usize,
        /// The compare's words.
        cmp: Vec<u32>,
        /// The guarded body.
        body: Vec<Item>,
    },
}

/// The opcode field of `op` in `table`.
fn opc_of(table: &[Option<OpInfo>], op: Op) -> u32 {
    table
        .iter()
        .position(|e| e.is_some_and(|i| i.op == op))
        .unwrap_or(0) as u32
}

/// Fixed opcodes used for scaffolding, looked up in the tables.
#[derive(Clone, Copy, Debug)]
struct Fixed {
    s_mov_b32: u32,
    s_mov_b64: u32,
    s_setreg_imm32_b32: u32,
    s_getreg_b32: u32,
    s_setreg_b32: u32,
    s_cbranch_i_fork: u32,
    s_cbranch_g_fork: u32,
    s_cbranch_join: u32,
    s_sub_u32: u32,
    s_cmp_lg_u32: u32,
    s_and_saveexec_b64: u32,
    s_or_b64: u32,
    s_cbranch_scc1: u32,
    s_cbranch_execz: u32,
    s_endpgm: u32,
    s_getpc_b64: u32,
    s_set_gpr_idx_on: u32,
    s_set_gpr_idx_off: u32,
    s_setpc_b64: u32,
    s_swappc_b64: u32,
    s_call_b64: u32,
    s_branch: u32,
    s_barrier: u32,
    s_add_u32: u32,
    s_addc_u32: u32,
    v_and_b32: u32,
    v_or_b32: u32,
    v_mov_b32: u32,
    branches: [u32; 7],
}

/// The tables of one target and the opcodes that lift there.
pub struct Pool {
    /// The target.
    pub target: Target,
    /// Candidates that lifted at least once.
    pub cands: Vec<Cand>,
    /// `v_cmp_*` VOPC candidates (for structured `if`s).
    cmps: Vec<usize>,
    fixed: Fixed,
    /// Instances whose decoded opcode differed from the encoded one (encoder/decoder bugs).
    pub decode_mismatches: Vec<String>,
    /// VGPRs random instructions use (`v0..`, at most 32; fewer = denser dependences).
    pub nvgpr: u32,
    /// Single and paired SGPRs random instructions use (`s0..`, at most 64).
    pub nsgpr: u32,
}

/// Mnemonics never generated at random: control transfer (generated structurally instead),
/// program end, and `v_mfma_ld_scale_b32` (only valid as the first half of a scaled MFMA
/// pair). (`s_barrier` and `s_sleep` are generated: the runner resumes a single wave after
/// them.)
fn excluded(name: &str) -> bool {
    matches!(
        name,
        "s_setpc_b64"
            | "s_swappc_b64"
            | "s_rfe_b64"
            | "s_cbranch_join"
            | "s_cbranch_g_fork"
            | "s_cbranch_i_fork"
            | "s_call_b64"
            | "s_endpgm"
            | "s_endpgm_saved"
            | "s_endpgm_ordered_ps_done"
            | "s_branch"
    ) || name.starts_with("s_cbranch")
        || name == "v_mfma_ld_scale_b32"
}

/// Code made of instruction bytes at [`CODE_BASE`].
pub struct Code(pub Vec<u8>);

impl CodeSource for Code {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        let off = usize::try_from(pc.checked_sub(CODE_BASE)?).ok()?;
        self.0.get(off..).filter(|b| !b.is_empty())
    }
}

/// Words → bytes.
pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

impl Pool {
    /// The pool of `gpu` (gfx942 or gfx950): every table entry outside the exclusions whose
    /// random instances lift under MODE `0x3f0` at least once in `tries` attempts.
    pub fn new(gpu: Gpu, rng: &mut Rng, tries: u32) -> Pool {
        let target = Target::new(gpu);
        let g950 = gpu == Gpu::GFX950;
        let tb = |a: &'static [Option<OpInfo>], b: &'static [Option<OpInfo>]| {
            if g950 {
                b
            } else {
                a
            }
        };
        let tables: [(Enc, &'static [Option<OpInfo>]); 17] = [
            (Enc::Sop1, tb(&t::GFX942_SOP1, &t::GFX950_SOP1)),
            (Enc::Sop2, tb(&t::GFX942_SOP2, &t::GFX950_SOP2)),
            (Enc::Sopk, tb(&t::GFX942_SOPK, &t::GFX950_SOPK)),
            (Enc::Sopc, tb(&t::GFX942_SOPC, &t::GFX950_SOPC)),
            (Enc::Sopp, tb(&t::GFX942_SOPP, &t::GFX950_SOPP)),
            (Enc::Smem, tb(&t::GFX942_SMEM, &t::GFX950_SMEM)),
            (Enc::Vop1, tb(&t::GFX942_VOP1, &t::GFX950_VOP1)),
            (Enc::Vop2, tb(&t::GFX942_VOP2, &t::GFX950_VOP2)),
            (Enc::Vopc, tb(&t::GFX942_VOPC, &t::GFX950_VOPC)),
            (Enc::Vop3, tb(&t::GFX942_VOP3, &t::GFX950_VOP3)),
            (Enc::Vop3p, tb(&t::GFX942_VOP3P, &t::GFX950_VOP3P)),
            (Enc::Ds, tb(&t::GFX942_DS, &t::GFX950_DS)),
            (Enc::Flat, tb(&t::GFX942_FLAT, &t::GFX950_FLAT)),
            (Enc::Global, tb(&t::GFX942_GLOBAL, &t::GFX950_GLOBAL)),
            (Enc::Scratch, tb(&t::GFX942_SCRATCH, &t::GFX950_SCRATCH)),
            (Enc::Mubuf, tb(&t::GFX942_MUBUF, &t::GFX950_MUBUF)),
            (Enc::Mtbuf, tb(&t::GFX942_MTBUF, &t::GFX950_MTBUF)),
        ];
        let sop1 = tables[0].1;
        let sop2 = tables[1].1;
        let sopc = tables[3].1;
        let sopp = tables[4].1;
        let vop2 = tables[7].1;
        let vop1 = tables[6].1;
        let fixed = Fixed {
            s_mov_b32: opc_of(sop1, Op::S_MOV_B32),
            s_mov_b64: opc_of(sop1, Op::S_MOV_B64),
            s_setreg_imm32_b32: opc_of(tables[2].1, Op::S_SETREG_IMM32_B32),
            s_getreg_b32: opc_of(tables[2].1, Op::S_GETREG_B32),
            s_setreg_b32: opc_of(tables[2].1, Op::S_SETREG_B32),
            s_cbranch_i_fork: opc_of(tables[2].1, Op::S_CBRANCH_I_FORK),
            s_cbranch_g_fork: opc_of(sop2, Op::S_CBRANCH_G_FORK),
            s_cbranch_join: opc_of(sop1, Op::S_CBRANCH_JOIN),
            s_sub_u32: opc_of(sop2, Op::S_SUB_U32),
            s_cmp_lg_u32: opc_of(sopc, Op::S_CMP_LG_U32),
            s_and_saveexec_b64: opc_of(sop1, Op::S_AND_SAVEEXEC_B64),
            s_or_b64: opc_of(sop2, Op::S_OR_B64),
            s_cbranch_scc1: opc_of(sopp, Op::S_CBRANCH_SCC1),
            s_cbranch_execz: opc_of(sopp, Op::S_CBRANCH_EXECZ),
            s_endpgm: opc_of(sopp, Op::S_ENDPGM),
            s_getpc_b64: opc_of(sop1, Op::S_GETPC_B64),
            s_set_gpr_idx_on: opc_of(sopc, Op::S_SET_GPR_IDX_ON),
            s_set_gpr_idx_off: opc_of(sopp, Op::S_SET_GPR_IDX_OFF),
            s_setpc_b64: opc_of(sop1, Op::S_SETPC_B64),
            s_swappc_b64: opc_of(sop1, Op::S_SWAPPC_B64),
            s_call_b64: opc_of(tables[2].1, Op::S_CALL_B64),
            s_branch: opc_of(sopp, Op::S_BRANCH),
            s_barrier: opc_of(sopp, Op::S_BARRIER),
            s_add_u32: opc_of(sop2, Op::S_ADD_U32),
            s_addc_u32: opc_of(sop2, Op::S_ADDC_U32),
            v_and_b32: opc_of(vop2, Op::V_AND_B32),
            v_or_b32: opc_of(vop2, Op::V_OR_B32),
            v_mov_b32: opc_of(vop1, Op::V_MOV_B32),
            branches: [
                opc_of(sopp, Op::S_BRANCH),
                opc_of(sopp, Op::S_CBRANCH_SCC0),
                opc_of(sopp, Op::S_CBRANCH_SCC1),
                opc_of(sopp, Op::S_CBRANCH_VCCZ),
                opc_of(sopp, Op::S_CBRANCH_VCCNZ),
                opc_of(sopp, Op::S_CBRANCH_EXECZ),
                opc_of(sopp, Op::S_CBRANCH_EXECNZ),
            ],
        };
        let mut pool = Pool {
            target,
            cands: Vec::new(),
            cmps: Vec::new(),
            fixed,
            decode_mismatches: Vec::new(),
            nvgpr: NVGPR,
            nsgpr: NSGPR,
        };
        for (enc, table) in tables {
            for (opc, e) in table.iter().enumerate() {
                let Some(info) = *e else { continue };
                let name = info.op.name();
                if excluded(name) {
                    continue;
                }
                if enc == Enc::Sopp
                    && !matches!(
                        name,
                        "s_nop"
                            | "s_set_gpr_idx_off"
                            | "s_set_gpr_idx_mode"
                            | "s_setprio"
                            | "s_sleep"
                            | "s_waitcnt"
                            | "s_barrier"
                            | "s_icache_inv"
                            | "s_incperflevel"
                            | "s_decperflevel"
                            | "s_ttracedata"
                            | "s_wakeup"
                            | "s_trap"
                            | "s_sethalt"
                            | "s_setkill"
                            | "s_sendmsg"
                            | "s_sendmsghalt"
                    )
                {
                    continue;
                }
                let cand = Cand {
                    enc,
                    opc: opc as u32,
                    info,
                };
                let ok = (0..tries).any(|_| pool.instance(rng, &cand, 0x3f0).is_some());
                if ok {
                    if enc == Enc::Vopc && name.starts_with("v_cmp_") {
                        pool.cmps.push(pool.cands.len());
                    }
                    pool.cands.push(cand);
                }
            }
        }
        pool
    }

    /// A random instance of `cand` (with any address setup before it), checked by decoding
    /// it back and by lifting it under `mode`; `None` when it does not lift (or did not
    /// decode back, recorded in [`Pool::decode_mismatches`]).
    pub fn instance(&mut self, rng: &mut Rng, cand: &Cand, mode: u32) -> Option<Vec<u32>> {
        let g = Gen {
            rng,
            nv: self.nvgpr.clamp(4, NVGPR),
            ns: self.nsgpr.clamp(4, NSGPR),
            gfx950: self.target.gpu == Gpu::GFX950,
            fixed: self.fixed,
        };
        let (prefix, inst) = g.encode(cand)?;
        let bytes = to_bytes(&inst);
        match decode(&self.target, &bytes, CODE_BASE) {
            Ok(d) if d.op == cand.info.op && d.size as usize == bytes.len() => {}
            Ok(d) => {
                if self.decode_mismatches.len() < 20 {
                    self.decode_mismatches.push(format!(
                        "{:?} {} {:08x?}: decoded as {:?} ({} bytes)",
                        cand.enc, cand.info.mnemonic, inst, d.op, d.size
                    ));
                }
                return None;
            }
            Err(e) => {
                if self.decode_mismatches.len() < 20 {
                    self.decode_mismatches.push(format!(
                        "{:?} {} {:08x?}: {e}",
                        cand.enc, cand.info.mnemonic, inst
                    ));
                }
                return None;
            }
        }
        let code = Code(bytes);
        let block = crate::lift::lift_block(&self.target, &code, CODE_BASE, mode);
        if let Exit::Unsupported { pc, .. } = block.exit {
            if pc == CODE_BASE {
                return None;
            }
        }
        let mut w = prefix;
        w.extend_from_slice(&inst);
        Some(w)
    }

    /// A random instance of a random candidate (retrying until one lifts).
    pub fn random_inst(&mut self, rng: &mut Rng, mode: u32) -> Vec<u32> {
        for _ in 0..64 {
            if self.cands.is_empty() {
                break;
            }
            let c = self.cands[rng.below(self.cands.len() as u64) as usize];
            if let Some(w) = self.instance(rng, &c, mode) {
                return w;
            }
        }
        // s_nop 0.
        vec![0xBF80_0000]
    }

    /// A random program: `len` top-level items with nested loops, branches and `if`s.
    pub fn program(&mut self, rng: &mut Rng, mode: u32, len: usize) -> Vec<Item> {
        if rng.below(8) != 0 {
            // The whole program in a loop (more executed instructions per compiled block).
            let body = self.items(rng, mode, len, 1);
            vec![Item::Loop {
                depth: 0,
                count: 8 + rng.below(25) as u32,
                body,
            }]
        } else {
            self.items(rng, mode, len, 0)
        }
    }

    fn items(&mut self, rng: &mut Rng, mode: u32, len: usize, depth: usize) -> Vec<Item> {
        let mut v = Vec::with_capacity(len);
        while v.len() < len {
            let r = rng.below(100);
            if r < 2 {
                v.push(Item::SetPc {
                    skip: rng.below(4) as usize,
                    // Not inside a call's body (the return address is in s[84:85]).
                    swap: depth < 2 && rng.below(2) == 0,
                });
            } else if (20..22).contains(&r) && depth < 2 {
                // The body at depth 2: no loops, `if`s, calls or `s_swappc` inside.
                let n = 1 + rng.below(5) as usize;
                let body = self.items(rng, mode, n, 2);
                v.push(Item::Call {
                    swap: rng.below(2) == 0,
                    body,
                });
            } else if r < 7 {
                let opc = self.fixed.branches[rng.below(7) as usize];
                v.push(Item::Branch {
                    opc,
                    skip: 1 + rng.below(4) as usize,
                });
            } else if r < 12 && depth < 2 {
                let n = 2 + rng.below(8) as usize;
                let body = self.items(rng, mode, n, depth + 1);
                v.push(Item::Loop {
                    depth,
                    count: 2 + rng.below(11) as u32,
                    body,
                });
            } else if (17..20).contains(&r) && depth < 2 {
                let n = 1 + rng.below(5) as usize;
                let body = self.items(rng, mode, n, depth + 1);
                v.push(Item::GprIdx {
                    idx: rng.below(17) as u32,
                    mode: 1 + rng.below(15) as u32,
                    body,
                });
            } else if r < 17 && depth < 2 && !self.cmps.is_empty() {
                let c = self.cands[self.cmps[rng.below(self.cmps.len() as u64) as usize]];
                let Some(cmp) = self.instance(rng, &c, mode) else {
                    continue;
                };
                let n = 1 + rng.below(6) as usize;
                if rng.below(4) == 0 {
                    // A fork/join on the same kind of compare; its paths at depth 2.
                    let fail = self.items(rng, mode, n, 2);
                    let n2 = 1 + rng.below(6) as usize;
                    let pass = self.items(rng, mode, n2, 2);
                    v.push(Item::Fork {
                        g: rng.below(2) == 0,
                        cmp,
                        fail,
                        pass,
                    });
                    continue;
                }
                let body = self.items(rng, mode, n, depth + 1);
                v.push(Item::If { depth, cmp, body });
            } else {
                v.push(Item::Inst(self.random_inst(rng, mode)));
            }
        }
        v
    }

    /// Adds `n` `s_barrier`s at random places of `items`' top level (inside the loop when
    /// the whole program is one).
    pub fn add_barriers(&self, rng: &mut Rng, items: &mut Vec<Item>, n: usize) {
        let list = match items.as_mut_slice() {
            [Item::Loop { body, .. }] => body,
            _ => items,
        };
        for _ in 0..n {
            let at = rng.below(list.len() as u64 + 1) as usize;
            list.insert(at, Item::Inst(vec![sopp(self.fixed.s_barrier, 0)]));
        }
    }

    /// Lays `items` out at [`CODE_BASE`], followed by `s_endpgm`.
    pub fn layout(&self, items: &[Item]) -> Vec<u32> {
        let mut out = Vec::new();
        self.emit(items, &mut out);
        out.push(sopp(self.fixed.s_endpgm, 0));
        out
    }

    /// Size in dwords of an item.
    fn size(&self, item: &Item) -> usize {
        match item {
            Item::Inst(w) => w.len(),
            Item::Branch { .. } => 1,
            Item::SetPc { .. } => 5,
            Item::Call { swap, body } => {
                // (s_getpc, s_add + literal, s_addc, s_swappc | s_call), s_branch, body,
                // s_setpc.
                let call = if *swap { 5 } else { 1 };
                call + 1 + body.iter().map(|i| self.size(i)).sum::<usize>() + 1
            }
            Item::GprIdx { body, .. } => 2 + body.iter().map(|i| self.size(i)).sum::<usize>(),
            Item::Loop { body, .. } => {
                // s_mov_b32 + literal, body, s_sub_u32, s_cmp_lg_u32, s_cbranch_scc1.
                2 + body.iter().map(|i| self.size(i)).sum::<usize>() + 3
            }
            Item::If { cmp, body, .. } => {
                cmp.len() + 1 + 1 + body.iter().map(|i| self.size(i)).sum::<usize>() + 1
            }
            Item::Fork { g, cmp, fail, pass } => {
                cmp.len() + self.fork_head(*g) + self.fork_path(fail) + 1 + self.fork_path(pass) + 2
            }
        }
    }

    /// Dwords from the `s_setreg` to the fork instruction, inclusive.
    fn fork_head(&self, g: bool) -> usize {
        // s_setreg_imm32 (2), s_mov_b32, s_mov_b64, [s_getpc, s_add + literal, s_addc], fork.
        if g {
            9
        } else {
            5
        }
    }

    /// Dwords of a fork path: save (3), body, restore (3).
    fn fork_path(&self, body: &[Item]) -> usize {
        6 + body.iter().map(|i| self.size(i)).sum::<usize>()
    }

    /// Saves or restores what a fork path's random instructions may change: `s_getreg_b32
    /// s75, CSP` or `s_setreg_b32 CSP, s75`, and `s_mov_b64` twice (stack entry 0 to or from
    /// `s[64:67]`).
    fn fork_copy(&self, to_save: bool, out: &mut Vec<u32>) {
        let f = self.fixed;
        let reg = if to_save {
            f.s_getreg_b32
        } else {
            f.s_setreg_b32
        };
        out.push(0xB << 28 | reg << 23 | S_PATH_CSP << 16 | HWREG_CSP);
        for j in [0, 2] {
            let (d, s) = if to_save {
                (S_FORK_ENTRY + j, j)
            } else {
                (j, S_FORK_ENTRY + j)
            };
            out.push(0x17D << 23 | d << 16 | f.s_mov_b64 << 8 | s);
        }
    }

    fn emit(&self, items: &[Item], out: &mut Vec<u32>) {
        let f = self.fixed;
        for (k, item) in items.iter().enumerate() {
            match item {
                Item::Inst(w) => out.extend_from_slice(w),
                Item::Branch { opc, skip } => {
                    let end = (k + 1 + skip).min(items.len());
                    let d: usize = items[k + 1..end].iter().map(|i| self.size(i)).sum();
                    out.push(sopp(*opc, d as u32));
                }
                Item::SetPc { skip, swap } => {
                    let end = (k + 1 + skip).min(items.len());
                    let d: usize = items[k + 1..end].iter().map(|i| self.size(i)).sum();
                    // Bytes from the address s_getpc returns (the s_add) to the target.
                    let off = 4 * (4 + d as u32);
                    out.push(0x17D << 23 | S_PC << 16 | f.s_getpc_b64 << 8);
                    out.push(2 << 30 | f.s_add_u32 << 23 | S_PC << 16 | 255 << 8 | S_PC);
                    out.push(off);
                    out.push(
                        2 << 30 | f.s_addc_u32 << 23 | (S_PC + 1) << 16 | 128 << 8 | (S_PC + 1),
                    );
                    out.push(if *swap {
                        0x17D << 23 | (S_PC - 2) << 16 | f.s_swappc_b64 << 8 | S_PC
                    } else {
                        0x17D << 23 | f.s_setpc_b64 << 8 | S_PC
                    });
                }
                Item::Call { swap, body } => {
                    let ret = S_PC - 2;
                    if *swap {
                        // Bytes from the s_add (the address s_getpc returns) to the body:
                        // s_add + literal, s_addc, s_swappc, s_branch.
                        out.push(0x17D << 23 | S_PC << 16 | f.s_getpc_b64 << 8);
                        out.push(2 << 30 | f.s_add_u32 << 23 | S_PC << 16 | 255 << 8 | S_PC);
                        out.push(4 * 5);
                        out.push(
                            2 << 30 | f.s_addc_u32 << 23 | (S_PC + 1) << 16 | 128 << 8 | (S_PC + 1),
                        );
                        out.push(0x17D << 23 | ret << 16 | f.s_swappc_b64 << 8 | S_PC);
                    } else {
                        // s_call_b64 s[84:85], 1: over the s_branch (SOPK, PC + 4 + 4 * 1).
                        out.push(0xB << 28 | f.s_call_b64 << 23 | ret << 16 | 1);
                    }
                    let d: usize = body.iter().map(|i| self.size(i)).sum();
                    out.push(sopp(f.s_branch, d as u32 + 1));
                    self.emit(body, out);
                    out.push(0x17D << 23 | f.s_setpc_b64 << 8 | ret);
                }
                Item::GprIdx { idx, mode, body } => {
                    // s_set_gpr_idx_on idx, mode (SSRC1 holds the mode bits).
                    out.push(0x17E << 23 | f.s_set_gpr_idx_on << 16 | mode << 8 | (128 + idx));
                    self.emit(body, out);
                    out.push(sopp(f.s_set_gpr_idx_off, 0));
                }
                Item::Loop { depth, count, body } => {
                    let c = S_LOOP[*depth];
                    // s_mov_b32 sC, literal
                    out.push(0x17D << 23 | c << 16 | f.s_mov_b32 << 8 | 255);
                    out.push(*count);
                    let start = out.len();
                    self.emit(body, out);
                    // s_sub_u32 sC, sC, 1
                    out.push(2 << 30 | f.s_sub_u32 << 23 | c << 16 | 129 << 8 | c);
                    // s_cmp_lg_u32 sC, 0
                    out.push(0x17E << 23 | f.s_cmp_lg_u32 << 16 | 128 << 8 | c);
                    let d = start as i64 - (out.len() as i64 + 1);
                    out.push(sopp(f.s_cbranch_scc1, d as i32 as u32));
                }
                Item::Fork { g, cmp, fail, pass } => {
                    out.extend_from_slice(cmp);
                    // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 29, 3), 0: CSP = 0.
                    out.push(0xB << 28 | f.s_setreg_imm32_b32 << 23 | HWREG_CSP);
                    out.push(0);
                    out.push(0x17D << 23 | S_FORK_CSP << 16 | f.s_mov_b32 << 8 | 128);
                    out.push(0x17D << 23 | S_FORK_EXEC << 16 | f.s_mov_b64 << 8 | 126);
                    let fail_len = self.fork_path(fail) + 1;
                    if *g {
                        // s[86:87] = address of the s_add + bytes to `pass`: s_add + literal,
                        // s_addc, the fork, then the fail path.
                        let off = 4 * (4 + fail_len as u32);
                        out.push(0x17D << 23 | S_PC << 16 | f.s_getpc_b64 << 8);
                        out.push(2 << 30 | f.s_add_u32 << 23 | S_PC << 16 | 255 << 8 | S_PC);
                        out.push(off);
                        out.push(
                            2 << 30 | f.s_addc_u32 << 23 | (S_PC + 1) << 16 | 128 << 8 | (S_PC + 1),
                        );
                        // s_cbranch_g_fork vcc, s[86:87]
                        out.push(2 << 30 | f.s_cbranch_g_fork << 23 | S_PC << 8 | 106);
                    } else {
                        // s_cbranch_i_fork vcc, pass
                        out.push(
                            0xB << 28 | f.s_cbranch_i_fork << 23 | 106 << 16 | fail_len as u32,
                        );
                    }
                    self.fork_copy(true, out);
                    self.emit(fail, out);
                    self.fork_copy(false, out);
                    out.push(sopp(f.s_branch, self.fork_path(pass) as u32));
                    self.fork_copy(true, out);
                    self.emit(pass, out);
                    self.fork_copy(false, out);
                    // s_cbranch_join s74; s_mov_b64 exec, s[72:73]
                    out.push(0x17D << 23 | f.s_cbranch_join << 8 | S_FORK_CSP);
                    out.push(0x17D << 23 | 126 << 16 | f.s_mov_b64 << 8 | S_FORK_EXEC);
                }
                Item::If { depth, cmp, body } => {
                    let s = S_SAVE[*depth];
                    out.extend_from_slice(cmp);
                    // s_and_saveexec_b64 sS, vcc
                    out.push(0x17D << 23 | s << 16 | f.s_and_saveexec_b64 << 8 | 106);
                    let d: usize = body.iter().map(|i| self.size(i)).sum();
                    out.push(sopp(f.s_cbranch_execz, d as u32));
                    self.emit(body, out);
                    // s_or_b64 exec, exec, sS
                    out.push(2 << 30 | f.s_or_b64 << 23 | 126 << 16 | s << 8 | 126);
                }
            }
        }
    }
}

/// A SOPP word.
fn sopp(opc: u32, simm16: u32) -> u32 {
    0x17F << 23 | opc << 16 | (simm16 & 0xFFFF)
}

/// Operand choice state for one instruction.
struct Gen<'r> {
    rng: &'r mut Rng,
    /// VGPRs in use (`v0..v{nv}`).
    nv: u32,
    /// Single and paired SGPRs in use (`s0..s{ns}`).
    ns: u32,
    gfx950: bool,
    fixed: Fixed,
}

/// Per-instruction bookkeeping of scalar reads (a GFX9 VALU instruction reads at most one
/// SGPR or literal) and of the literal.
#[derive(Default)]
struct Bus {
    /// The SGPR code read, if any.
    sgpr: Option<u32>,
    literal: Option<u32>,
    /// Literal allowed at all in this encoding.
    lit_ok: bool,
    /// Scalar operands allowed at all (false for DPP).
    scalar_ok: bool,
}

impl Bus {
    fn can_scalar(&self, code: u32) -> bool {
        self.scalar_ok && self.literal.is_none() && self.sgpr.is_none_or(|s| s == code)
    }
}

/// Interesting 32-bit literal values.
const LITERALS: [u32; 16] = [
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0001,
    0x7F80_0001,
    0x0000_0001,
    0x807F_FFFF,
    0x7F7F_FFFF,
    0x3F80_0000,
    0x8000_0000,
    0x7FFF_FFFF,
    0xFFFF_FFFF,
    0x0000_FFFF,
    0x3C00_7C00,
    0x7E00_FC01,
    0x4049_0FDB,
    0x0000_001F,
];

impl Gen<'_> {
    fn below(&mut self, n: u64) -> u32 {
        self.rng.below(n) as u32
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.rng.below(100) < percent
    }

    /// A register number in `0..n` for a tuple of `w` registers (tuples of 2+ even-aligned).
    fn reg(&mut self, n: u32, w: u8) -> u32 {
        let w = u32::from(w.max(1));
        let top = n.saturating_sub(w) + 1;
        let r = self.below(u64::from(top));
        if w >= 2 {
            r & !1
        } else {
            r
        }
    }

    /// An SGPR destination code for `w` registers.
    fn sdst(&mut self, w: u8) -> u32 {
        let r = self.below(100);
        match w {
            0 | 1 => match r {
                0..=5 => 106 + self.below(2),
                6..=8 => 124,
                9 => 126 + self.below(2),
                _ => self.reg(self.ns, 1),
            },
            2 => match r {
                0..=9 => 106,
                10 => 126,
                _ => self.reg(self.ns, 2),
            },
            _ => {
                let w = u32::from(w);
                let a = w.min(4);
                (self.below(u64::from(NSGPR - w + 1)) / a) * a
            }
        }
    }

    /// A single SGPR read as a source (from the random pool, sometimes VCC or M0).
    fn sgpr_src(&mut self) -> u32 {
        match self.below(10) {
            0 => 106,
            1 => 124,
            _ => self.reg(self.ns, 1),
        }
    }

    /// A scalar source code (SGPR, special register, inline constant or literal) of `w`
    /// registers, for an encoding that allows the literal when `bus.lit_ok`.
    fn ssrc(&mut self, w: u8, bus: &mut Bus) -> u32 {
        loop {
            let r = self.below(100);
            let code = match r {
                0..=49 => {
                    if w <= 1 {
                        match self.below(20) {
                            0 => 106 + self.below(2),
                            1 => 124,
                            2 => 126 + self.below(2),
                            3 => 88 + self.below(14),
                            _ => self.reg(self.ns, 1),
                        }
                    } else if w == 2 {
                        match self.below(20) {
                            0 => 106,
                            1 => 126,
                            2 => S_GLOBAL,
                            _ => self.reg(self.ns, 2),
                        }
                    } else {
                        let w = u32::from(w);
                        let a = w.min(4);
                        (self.below(u64::from(NSGPR - w + 1)) / a) * a
                    }
                }
                50..=69 => 128 + self.below(81), // 0, 1..64, -1..-16
                70..=84 => 240 + self.below(9),  // float constants
                85..=87 if w <= 1 => 251 + self.below(3), // vccz, execz, scc
                88..=89 if w <= 2 => 235 + self.below(4), // apertures
                _ => {
                    if !bus.lit_ok {
                        continue;
                    }
                    255
                }
            };
            if code < 128 && !bus.can_scalar(code) {
                continue;
            }
            if code == 255 {
                if !bus.can_scalar(255) && bus.literal.is_none() {
                    continue;
                }
                if bus.literal.is_none() {
                    let lit = if self.chance(50) {
                        LITERALS[self.below(16) as usize]
                    } else {
                        self.rng.next_u64() as u32
                    };
                    bus.literal = Some(lit);
                }
            }
            if code < 128 {
                bus.sgpr = Some(code);
            }
            return code;
        }
    }

    /// A 9-bit VALU source of `w` registers and register-file `kind` (2 = AGPR).
    fn vsrc(&mut self, w: u8, kind: u8, bus: &mut Bus) -> u32 {
        if kind == 2 {
            return 256 + self.reg(NAGPR, w);
        }
        if kind == 1 {
            // An SGPR operand (a lane mask or select).
            if bus.scalar_ok && bus.sgpr.is_none() && bus.literal.is_none() {
                let c = if w >= 2 {
                    if self.chance(40) {
                        106
                    } else {
                        self.reg(self.ns, 2)
                    }
                } else {
                    self.reg(self.ns, 1)
                };
                bus.sgpr = Some(c);
                return c;
            }
            return bus.sgpr.unwrap_or(106);
        }
        // Wider than 64 bits: a VGPR tuple (scalar sources of VALU ops are at most a pair).
        if !bus.scalar_ok || w > 2 || self.chance(70) {
            return 256 + self.reg(self.nv, w);
        }
        self.ssrc(w, bus)
    }

    fn vdst(&mut self, w: u8) -> u32 {
        self.reg(self.nv, w)
    }

    /// Encodes a random instance of `c`: (address setup words, instruction words).
    fn encode(mut self, c: &Cand) -> Option<(Vec<u32>, Vec<u32>)> {
        let info = c.info;
        let w = info.widths;
        let k = info.kinds;
        let opc = c.opc;
        let mut pre = Vec::new();
        let mut bus = Bus {
            lit_ok: true,
            scalar_ok: true,
            ..Bus::default()
        };
        let mut words = match c.enc {
            Enc::Sop2 => {
                let d = if w[0] != 0 { self.sdst(w[0]) } else { 0 };
                let s0 = self.ssrc(w[1], &mut bus);
                bus.sgpr = None;
                let s1 = self.ssrc(w[2], &mut bus);
                vec![2 << 30 | opc << 23 | d << 16 | s1 << 8 | s0]
            }
            Enc::Sop1 => {
                let d = if w[0] != 0 { self.sdst(w[0]) } else { 0 };
                let s0 = if w[1] != 0 {
                    self.ssrc(w[1], &mut bus)
                } else {
                    0
                };
                vec![0x17D << 23 | d << 16 | opc << 8 | s0]
            }
            Enc::Sopc => {
                let s0 = self.ssrc(w[0], &mut bus);
                bus.sgpr = None;
                let s1 = if info.op == Op::S_SET_GPR_IDX_ON {
                    self.below(16)
                } else {
                    self.ssrc(w[1], &mut bus)
                };
                vec![0x17E << 23 | opc << 16 | s1 << 8 | s0]
            }
            Enc::Sopk => {
                let name = info.op.name();
                let hwreg = name.contains("reg");
                let imm = if hwreg {
                    // hwreg(id, offset, size): id[5:0], offset[10:6], size-1[15:11].
                    let ids = [1u32, 1, 1, 2, 3, 4, 5, 6, 7, 23];
                    let id = ids[self.below(ids.len() as u64) as usize];
                    let off = self.below(32);
                    let size = self.below(32 - u64::from(off)) + 1;
                    id | off << 6 | (size - 1) << 11
                } else if self.chance(50) {
                    self.below(64)
                } else {
                    self.rng.next_u64() as u32 & 0xFFFF
                };
                let sd = if info.class & CLASS_SDST_READ != 0 {
                    self.sgpr_src()
                } else if w[0] != 0 {
                    self.sdst(w[0])
                } else {
                    0
                };
                let mut v = vec![0xB << 28 | opc << 23 | sd << 16 | imm];
                if info.op == Op::S_SETREG_IMM32_B32 {
                    v.push(self.rng.next_u64() as u32 & 0x3FF);
                }
                v
            }
            Enc::Sopp => {
                let imm = match info.op {
                    // The opcode has no SIMM16 operand: the field must be 0.
                    _ if w[0] == 0 => 0,
                    Op::S_SET_GPR_IDX_MODE => self.below(16),
                    Op::S_SLEEP | Op::S_SETPRIO => self.below(4),
                    _ => self.below(0x10000),
                };
                vec![sopp(opc, imm)]
            }
            Enc::Smem => {
                if w[1] == 0 && w[2] == 0 {
                    // No address (s_memtime, s_dcache_wb, ...).
                    let d = if w[0] != 0 { self.sdst(w[0]) } else { 0 };
                    vec![0x30 << 26 | opc << 18 | d << 6, 0]
                } else {
                    let quad = info.class & CLASS_SBUFFER != 0;
                    let scratch = info.op.name().starts_with("s_scratch_");
                    let base = if quad {
                        S_VSHARP
                    } else if scratch {
                        S_SOFF
                    } else {
                        S_GLOBAL
                    };
                    let store = info.class & (CLASS_STORE | CLASS_ATOMIC) != 0;
                    let sd = if store {
                        if w[0] <= 1 {
                            // Not M0 or EXEC (LLVM: SReg_32_XM0_XEXEC).
                            self.reg(self.ns, 1)
                        } else {
                            self.sdst(w[0]) & 0x3F
                        }
                    } else if w[0] <= 2 {
                        // SMEM data is never M0 or EXEC (LLVM: SReg_32_XM0_XEXEC).
                        self.reg(self.ns, w[0])
                    } else {
                        self.sdst(w[0])
                    };
                    let glc = u32::from(self.chance(20));
                    // Scalar scratch addresses the wave's swizzled scratch: 64 lanes' bytes.
                    let range = if scratch {
                        (SCRATCH_PER_LANE * 64) as u64 - 16
                    } else {
                        GLOBAL_SIZE as u64 / 8
                    };
                    let off = if self.chance(98) {
                        self.below(range) & !3
                    } else {
                        self.rng.next_u64() as u32 & 0x1F_FFFF
                    };
                    // IMM=1: 21-bit offset (plus SOFFSET when SOE); IMM=0: the OFFSET field
                    // names an SGPR holding the offset.
                    let imm = u32::from(self.chance(85));
                    let soe = u32::from(imm == 1 && self.chance(15));
                    let off = if imm == 1 { off } else { S_SOFF };
                    vec![
                        0x30 << 26
                            | opc << 18
                            | imm << 17
                            | glc << 16
                            | soe << 14
                            | sd << 6
                            | (base / 2),
                        off | (soe * S_SOFF) << 25,
                    ]
                }
            }
            Enc::Vop1 | Enc::Vop2 | Enc::Vopc => return self.vop_short(c),
            Enc::Vop3 => {
                bus.lit_ok = self.gfx950;
                let vop3b = matches!(
                    info.op,
                    Op::V_ADD_CO_U32
                        | Op::V_SUB_CO_U32
                        | Op::V_SUBREV_CO_U32
                        | Op::V_ADDC_CO_U32
                        | Op::V_SUBB_CO_U32
                        | Op::V_SUBBREV_CO_U32
                        | Op::V_DIV_SCALE_F32
                        | Op::V_DIV_SCALE_F64
                        | Op::V_MAD_U64_U32
                        | Op::V_MAD_I64_I32
                );
                let d = if w[0] == 0 {
                    0
                } else if k[0] == 1 {
                    self.sdst(w[0])
                } else if k[0] == 2 {
                    self.reg(NAGPR, w[0])
                } else {
                    self.vdst(w[0])
                };
                // The carry-in / select mask of the VOP3 carry ops and v_cndmask is an SGPR
                // pair (LLVM rejects constants there); it takes the scalar read first.
                let mask_src = matches!(
                    info.op,
                    Op::V_ADDC_CO_U32
                        | Op::V_SUBB_CO_U32
                        | Op::V_SUBBREV_CO_U32
                        | Op::V_CNDMASK_B32
                );
                // v_readlane_b32 reads a VGPR (LLVM: VRegOrLds_32).
                let lane_read = info.op == Op::V_READLANE_B32;
                let mut s = [0u32; 3];
                let order = if mask_src { [2, 0, 1] } else { [0, 1, 2] };
                for i in order {
                    if w[i + 1] != 0 {
                        let (wi, kind) = if mask_src && i == 2 {
                            (2, 1)
                        } else {
                            (w[i + 1], k[i + 1])
                        };
                        s[i] = if i == 0 && lane_read {
                            256 + self.reg(self.nv, 1)
                        } else {
                            self.vsrc(wi, kind, &mut bus)
                        };
                    }
                }
                let m = info.mods;
                let mut hi = 0;
                if vop3b {
                    hi |= self.sdst(2) << 8;
                } else {
                    let abs = (m / MOD_ABS0) & 7;
                    hi |= (self.below(8) & abs) << 8;
                    if m & MOD_OPSEL != 0 {
                        // Bits of absent sources stay 0 (bit 3 is the destination's).
                        let present = (0..3).filter(|&i| w[i + 1] != 0).fold(8, |a, i| a | 1 << i);
                        hi |= (self.below(16) & present) << 11;
                    }
                    if matches!(
                        info.op,
                        Op::V_PERMLANE16_SWAP_B32 | Op::V_PERMLANE32_SWAP_B32
                    ) {
                        // fi and bound_ctrl are OP_SEL bits 0 and 1 (llvm-mc-22:
                        // `v_permlane16_swap_b32_e64 v0, v1 bound_ctrl:1 fi:1` = d1991800).
                        hi |= self.below(4) << 11;
                    }
                }
                let bitop3 = matches!(info.op, Op::V_BITOP3_B16 | Op::V_BITOP3_B32);
                let clamp = u32::from(m & MOD_CLAMP != 0 && self.chance(20));
                let omod = if m & MOD_OMOD != 0 && self.chance(20) {
                    self.below(4)
                } else {
                    0
                };
                let neg = ((m / MOD_NEG0) & 7) & self.below(8);
                let (omod, neg) = if bitop3 {
                    // The truth table lives in OMOD/ABS/NEG.
                    hi |= self.below(8) << 8;
                    (self.below(4), self.below(8))
                } else {
                    (omod, neg)
                };
                let mut v = vec![
                    0x34 << 26 | opc << 16 | clamp << 15 | hi | d,
                    s[0] | s[1] << 9 | s[2] << 18 | omod << 27 | neg << 29,
                ];
                if let Some(l) = bus.literal {
                    v.push(l);
                }
                v
            }
            Enc::Vop3p if info.class & CLASS_MAI != 0 => return self.mai(c),
            Enc::Vop3p => {
                // gfx950 VOP3P takes a 32-bit literal (gfx942 none; v_accvgpr_* never).
                bus.lit_ok = self.gfx950 && info.class & CLASS_ACCMOV == 0;
                let d = if w[0] == 0 {
                    0
                } else if k[0] == 2 {
                    self.reg(NAGPR, w[0])
                } else {
                    self.vdst(w[0])
                };
                let mut s = [0u32; 3];
                for i in 0..3 {
                    if w[i + 1] != 0 {
                        s[i] = self.vsrc(w[i + 1], k[i + 1], &mut bus);
                    }
                }
                let m = info.mods;
                let clamp = u32::from(m & MOD_CLAMP != 0 && self.chance(20));
                let opsel = if m & MOD_OPSEL != 0 { self.below(8) } else { 0 };
                // Without an op_sel_hi operand the assembler encodes all ones (llvm-mc-22:
                // `v_dot4_i32_i8 v0, v1, v2, v3` = d3a84000 1c0e0501).
                let opsel_hi = if m & MOD_OPSEL_HI != 0 {
                    self.below(8)
                } else {
                    7
                };
                let neg = if m & MOD_NEG_LO != 0 {
                    self.below(8)
                } else {
                    0
                };
                let neg_hi = if m & MOD_NEG_HI != 0 {
                    self.below(8)
                } else {
                    0
                };
                // Absent sources: op_sel and neg bits 0, op_sel_hi 1 (as LLVM encodes them).
                let absent = (0..3).filter(|&i| w[i + 1] == 0).fold(0, |a, i| a | 1 << i);
                let (opsel, neg, neg_hi) = (opsel & !absent, neg & !absent, neg_hi & !absent);
                let opsel_hi = opsel_hi | absent;
                let mut v = vec![
                    0x1A7 << 23
                        | opc << 16
                        | clamp << 15
                        | (opsel_hi >> 2) << 14
                        | opsel << 11
                        | neg_hi << 8
                        | d,
                    s[0] | s[1] << 9 | s[2] << 18 | (opsel_hi & 3) << 27 | neg << 29,
                ];
                if let Some(l) = bus.literal {
                    v.push(l);
                }
                v
            }
            Enc::Ds => {
                let acc = w != [0; 4] && self.chance(12);
                let vr = |g: &mut Self, w: u8| {
                    if acc {
                        g.reg(NAGPR, w)
                    } else {
                        g.reg(g.nv, w)
                    }
                };
                let two = info.class & crate::isa::generated::CLASS_TWO_OFFSETS != 0;
                let (addr, p) = if w[1] != 0 {
                    self.addr_vgpr(0x3FFC & (LDS_SIZE as u32 - 1), 128)
                } else {
                    // No address operand (ds_nop): the field must be 0.
                    (0, Vec::new())
                };
                pre.extend(p);
                let d = if w[0] != 0 { vr(&mut self, w[0]) } else { 0 };
                let d0 = if w[2] != 0 { vr(&mut self, w[2]) } else { 0 };
                let d1 = if w[3] != 0 { vr(&mut self, w[3]) } else { 0 };
                let off = if w == [0; 4] {
                    // ds_nop and friends: no operands, every field 0.
                    0
                } else if two {
                    let n = if self.chance(90) { 16 } else { 256 };
                    self.below(n) | self.below(n) << 8
                } else if self.chance(95) {
                    self.below(512)
                } else {
                    self.below(0x10000)
                };
                vec![
                    0x36 << 26 | u32::from(acc) << 25 | opc << 17 | off,
                    addr | d0 << 8 | d1 << 16 | d << 24,
                ]
            }
            Enc::Flat | Enc::Global | Enc::Scratch => {
                // The `_lds_` loads write LDS, not registers: their ACC bit is 0.
                let acc = !info.mnemonic.contains("_lds_") && self.chance(12);
                let vr = |g: &mut Self, w: u8| {
                    if acc {
                        g.reg(NAGPR, w)
                    } else {
                        g.reg(g.nv, w)
                    }
                };
                let atomic = info.class & CLASS_ATOMIC != 0;
                let mut glc = u32::from(self.chance(if atomic { 50 } else { 20 }));
                let slc = u32::from(self.chance(10));
                let sc1 = u32::from(self.chance(10));
                let format = match c.enc {
                    Enc::Flat => crate::isa::Format::Flat,
                    Enc::Global => crate::isa::Format::Global,
                    _ => crate::isa::Format::Scratch,
                };
                if acc && crate::isa::gfx9::no_agpr_return(info.op, format, sc1 == 1) {
                    // LLVM (and so the decoder) has no AGPR returning form of these.
                    glc = 0;
                }
                let data = if w[2] != 0 { vr(&mut self, w[2]) } else { 0 };
                let mut dst = if w[0] != 0 { vr(&mut self, w[0]) } else { 0 };
                if w[0] == 0 && atomic && glc == 1 {
                    let n = if info.class & CLASS_CMPSWAP != 0 {
                        (w[2] / 2).max(1)
                    } else {
                        w[2]
                    };
                    dst = vr(&mut self, n);
                }
                let (seg, sve, addr, saddr, off) = match c.enc {
                    Enc::Flat => {
                        let (a, p) = match self.below(8) {
                            // LDS and scratch through the shared and private apertures.
                            0 => self.aperture_pair(0x7FFC, 235),
                            1 => self.aperture_pair(0x7C, 237),
                            _ => self.addr_pair(0x1FFC),
                        };
                        pre.extend(p);
                        // FLAT has no SADDR: the field is 0.
                        (0, 0, a, 0, self.below(64))
                    }
                    Enc::Global => {
                        // Bit 13 (LDS) is 0 in every GLOBAL encoding LLVM accepts.
                        let lds = 0;
                        let off = if self.chance(95) {
                            self.below(64)
                        } else {
                            (self.below(64) as i32 - 64) as u32 & 0x1FFF
                        };
                        if self.chance(50) {
                            let (a, p) = self.addr_vgpr(0x1FFC, 128);
                            pre.extend(p);
                            (2, lds, a, S_GLOBAL, off)
                        } else {
                            let (a, p) = self.addr_pair(0x1FFC);
                            pre.extend(p);
                            (2, lds, a, 0x7F, off)
                        }
                    }
                    _ => {
                        let use_v = self.chance(70);
                        let saddr = if !use_v || self.chance(30) {
                            S_SOFF
                        } else {
                            0x7F
                        };
                        let (a, p) = if use_v {
                            self.addr_vgpr(0x7C, 64)
                        } else {
                            (0, Vec::new())
                        };
                        pre.extend(p);
                        (1, u32::from(use_v), a, saddr, self.below(64))
                    }
                };
                vec![
                    0x37 << 26
                        | sc1 << 25
                        | opc << 18
                        | slc << 17
                        | glc << 16
                        | seg << 14
                        | sve << 13
                        | off,
                    addr | data << 8 | saddr << 16 | u32::from(acc) << 23 | dst << 24,
                ]
            }
            Enc::Mubuf if w[0] == 0 && w[1] == 0 => {
                // buffer_wbl2, buffer_inv, ...: only the cache-policy bits.
                let sc0 = u32::from(self.chance(30));
                let sc1 = u32::from(self.chance(30));
                vec![0x38 << 26 | opc << 18 | sc1 << 15 | sc0 << 14, 0]
            }
            Enc::Mubuf | Enc::Mtbuf => {
                let acc = self.chance(12);
                let offen = u32::from(self.chance(60));
                let idxen = u32::from(self.chance(30));
                let data = if w[0] != 0 {
                    if acc {
                        self.reg(NAGPR, w[0])
                    } else {
                        self.reg(self.nv, w[0])
                    }
                } else {
                    0
                };
                let mut vaddr = 0;
                if offen + idxen == 2 {
                    // v[a:a+1] = index, offset.
                    let a = self.reg(self.nv, 2);
                    pre.extend(self.v_and(a, 0x3F, a));
                    pre.extend(self.v_and(a + 1, 0xFFC, a + 1));
                    vaddr = a;
                } else if idxen == 1 {
                    let (a, p) = self.addr_vgpr(0x3F, 16);
                    pre.extend(p);
                    vaddr = a;
                } else if offen == 1 {
                    let (a, p) = self.addr_vgpr(0xFFC, 16);
                    pre.extend(p);
                    vaddr = a;
                }
                let glc = u32::from(self.chance(30));
                let slc = u32::from(self.chance(10));
                let soff = if self.chance(50) { 128 } else { S_SOFF };
                let common = glc << 14 | idxen << 13 | offen << 12 | self.below(256);
                let w1 = vaddr | data << 8 | (S_VSHARP / 4) << 16 | u32::from(acc) << 23;
                if c.enc == Enc::Mtbuf {
                    // MTBUF: OP[18:15], DFMT[22:19], NFMT[25:23]; SC1 and NT (SLC) in the
                    // second word (llvm-mc-22: `tbuffer_store_format_xy a[4:5], v1, s[8:11],
                    // 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT] idxen sc0 sc1 nt`
                    // = ebaae000 80e20401). Mostly the formats the ISA defines, sometimes any.
                    let dfmt = if self.chance(85) {
                        1 + self.below(14)
                    } else {
                        self.below(16)
                    };
                    let nfmt = self.below(8);
                    let sc1 = u32::from(self.chance(10));
                    vec![
                        0x3A << 26 | nfmt << 23 | dfmt << 19 | opc << 15 | common,
                        w1 | sc1 << 21 | slc << 22 | soff << 24,
                    ]
                } else {
                    vec![0x38 << 26 | opc << 18 | slc << 17 | common, w1 | soff << 24]
                }
            }
        };
        if words.is_empty() {
            return None;
        }
        if matches!(c.enc, Enc::Sop1 | Enc::Sop2 | Enc::Sopc) {
            if let Some(l) = bus.literal {
                words.push(l);
            }
        }
        Some((pre, words))
    }

    /// A VGPR pair holding a FLAT address in an aperture: the low half masked by `mask`, the
    /// high half the aperture base's (`src` = 235 `src_shared_base`, 237
    /// `src_private_base`).
    fn aperture_pair(&mut self, mask: u32, src: u32) -> (u32, Vec<u32>) {
        let a = self.reg(self.nv, 2);
        let [and, lit] = self.v_and(a, mask, a);
        // v_mov_b32_e32 vA+1, src
        let mov = 0x3F << 25 | (a + 1) << 17 | self.fixed.v_mov_b32 << 9 | src;
        (a, vec![and, lit, mov])
    }

    /// MFMA/SMFMAC (VOP3P-MAI, `notes/cdna.md` §3.2): D and C in VGPRs or AGPRs (ACC_CD),
    /// A and B in VGPRs or AGPRs (ACC bits 59/60), C sometimes an inline constant or the same
    /// tuple as D; CBSZ/ABID/BLGP random (mostly in range: the lifter rejects the rest).
    /// Tuples span `v0..v63` and `a0..a31` (wider than the pools of other instructions: a
    /// 32x32 MFMA's D alone is 16 or 32 registers). `llvm-mc-22`: `v_mfma_f32_4x4x1_16b_f32
    /// a[0:3], v0, v1, a[0:3] cbsz:3 abid:2 blgp:5` = d3c29300 a4020300.
    fn mai(mut self, c: &Cand) -> Option<(Vec<u32>, Vec<u32>)> {
        let info = c.info;
        let w = info.widths;
        let smfmac = info.mnemonic.starts_with("v_smfmac");
        let f8f6f4 = matches!(
            info.op,
            Op::V_MFMA_F32_16X16X128_F8F6F4 | Op::V_MFMA_F32_32X32X64_F8F6F4
        );
        let acc_cd = self.chance(50);
        let file = |g: &mut Self, acc: bool, n: u8| {
            if acc {
                g.reg(MAI_NAGPR, n)
            } else {
                g.reg(MAI_NVGPR.max(g.nv), n)
            }
        };
        let d = file(&mut self, acc_cd, w[0]);
        let (cbsz, abid, blgp) = if f8f6f4 {
            // CBSZ/BLGP = A/B element format (FP8, BF8, FP6, BF6, FP4); no ABID.
            (self.below(5), 0, self.below(5))
        } else {
            let cbsz = if self.chance(60) { 0 } else { self.below(5) };
            let abid = if cbsz == 0 && self.chance(80) {
                0
            } else {
                self.below(16) & ((1 << cbsz.max(1)) - 1)
            };
            let blgp = if smfmac || self.chance(50) {
                0
            } else {
                self.below(8)
            };
            (cbsz, abid, blgp)
        };
        // F8F6F4: FP6/BF6 operands take 6 registers, FP4 4, the others 8.
        let width = |fmt: u32, full: u8| match fmt {
            2 | 3 if f8f6f4 => 6,
            4 if f8f6f4 => 4,
            _ => full,
        };
        let acc_a = self.chance(30);
        let acc_b = self.chance(30);
        let a = 256 + file(&mut self, acc_a, width(cbsz, w[1]));
        let b = 256 + file(&mut self, acc_b, width(blgp, w[2]));
        let src2 = if smfmac {
            // The sparsity index: one VGPR.
            256 + self.reg(self.nv, 1)
        } else if self.chance(10) {
            // An inline constant C (0, 1..64, -1..-16, or a float constant).
            if self.chance(50) {
                128 + self.below(81)
            } else {
                240 + self.below(9)
            }
        } else if self.chance(60) {
            256 + d
        } else {
            256 + file(&mut self, acc_cd, w[3])
        };
        let (acc_a, acc_b) = (u32::from(acc_a), u32::from(acc_b));
        Some((
            Vec::new(),
            vec![
                0x1A7 << 23 | c.opc << 16 | u32::from(acc_cd) << 15 | abid << 11 | cbsz << 8 | d,
                a | b << 9 | src2 << 18 | acc_a << 27 | acc_b << 28 | blgp << 29,
            ],
        ))
    }

    /// `v_and_b32_e32 vD, lit, vS` with the literal `mask`.
    fn v_and(&self, d: u32, mask: u32, s: u32) -> [u32; 2] {
        [self.fixed.v_and_b32 << 25 | d << 17 | s << 9 | 255, mask]
    }

    /// A VGPR holding an address masked by `mask` (setup words follow the instruction words
    /// pattern `v_and_b32 vA, mask, vA`), left unmasked `1/oor_in` of the time.
    fn addr_vgpr(&mut self, mask: u32, oor_in: u64) -> (u32, Vec<u32>) {
        let a = self.reg(self.nv, 1);
        if self.rng.below(oor_in) == 0 {
            return (a, Vec::new());
        }
        (a, self.v_and(a, mask, a).to_vec())
    }

    /// A VGPR pair holding `GLOBAL_BASE + (v & mask)`, unmasked 1/64 of the time.
    fn addr_pair(&mut self, mask: u32) -> (u32, Vec<u32>) {
        let a = self.reg(self.nv, 2);
        if self.rng.below(128) == 0 {
            return (a, Vec::new());
        }
        let f = self.fixed;
        let [and, lit] = self.v_and(a, mask, a);
        (
            a,
            vec![
                and,
                lit,
                // v_or_b32_e32 vA, s100, vA
                f.v_or_b32 << 25 | a << 17 | a << 9 | S_GLOBAL,
                // v_mov_b32_e32 vA+1, s101
                0x3F << 25 | (a + 1) << 17 | f.v_mov_b32 << 9 | (S_GLOBAL + 1),
            ],
        )
    }

    /// VOP1/VOP2/VOPC, plain (with literal), DPP or SDWA.
    fn vop_short(mut self, c: &Cand) -> Option<(Vec<u32>, Vec<u32>)> {
        let info = c.info;
        let w = info.widths;
        let k = info.kinds;
        let opc = c.opc;
        let (dw, s0w, s0k, s1w) = match c.enc {
            Enc::Vop1 => (w[0], w[1], k[1], 0),
            Enc::Vop2 => (w[0], w[1], k[1], w[2]),
            _ => (0, w[0], k[0], w[1]),
        };
        let madk = info.class & (CLASS_MADMK | CLASS_MADAK) != 0;
        // v_swap_b32 writes two registers: LLVM has no DPP/SDWA form of it.
        // (Nor of the dot products.)
        let narrow = info.op != Op::V_SWAP_B32
            && !info.mnemonic.starts_with("v_dot")
            && dw <= 1
            && s0w == 1
            && s1w <= 1
            && k[0] != 1
            && s0k == 0
            && !madk;
        // gfx90a+ DPP on 64-bit operands (DP ALU), with row_newbcast only (llvm-mc-22:
        // `v_rcp_f64_dpp v[0:1], v[2:3] row_newbcast:1` = 7e004afa ff015102); no SDWA.
        let wide = !narrow
            && info.op != Op::V_SWAP_B32
            && !info.mnemonic.starts_with("v_dot")
            && dw <= 2
            && (1..=2).contains(&s0w)
            && s1w <= 2
            && (dw == 2 || s0w == 2 || s1w == 2)
            && k[0] != 1
            && s0k == 0
            && !madk
            && c.enc != Enc::Vopc;
        let mut ext = match (narrow, wide) {
            (true, _) => self.below(100),
            (_, true) if self.chance(20) => 0,
            _ => 100,
        };
        // LLVM (and so the decoder) has no SDWA form of the accumulating opcodes, no DPP or
        // SDWA form of some others.
        if ext < 40 && crate::isa::gfx9::no_ext_form(&info, ext >= 20) {
            ext = 100;
        }
        let implicit_vcc = matches!(
            info.op,
            Op::V_ADDC_CO_U32 | Op::V_SUBB_CO_U32 | Op::V_SUBBREV_CO_U32 | Op::V_CNDMASK_B32
        );
        let mut bus = Bus {
            lit_ok: !madk,
            scalar_ok: true,
            sgpr: implicit_vcc.then_some(106),
            literal: None,
        };
        if madk {
            bus.literal = Some(if self.chance(50) {
                LITERALS[self.below(16) as usize]
            } else {
                self.rng.next_u64() as u32
            });
        }
        let d = if dw == 0 {
            0
        } else if c.enc != Enc::Vopc && k[0] == 1 {
            self.sdst(1)
        } else {
            self.vdst(dw)
        };
        let s1 = if s1w != 0 { self.reg(self.nv, s1w) } else { 0 };
        let head = |src0: u32| match c.enc {
            Enc::Vop1 => 0x3F << 25 | d << 17 | opc << 9 | src0,
            Enc::Vop2 => opc << 25 | d << 17 | s1 << 9 | src0,
            _ => 0x3E << 25 | opc << 17 | s1 << 9 | src0,
        };
        let m = info.mods;
        if ext < 20 && c.enc != Enc::Vopc {
            // DPP (not for VOPC: LLVM has no GFX9 VOPC DPP encodings, compilers never emit
            // them).
            let ctrl = match if wide { 8 } else { self.below(9) } {
                0..=2 => self.below(256),
                3 => 0x101 + self.below(15),
                4 => 0x111 + self.below(15),
                5 => 0x121 + self.below(15),
                6 => [0x130, 0x134, 0x138, 0x13C][self.below(4) as usize],
                7 => 0x140 + self.below(4),
                // row_newbcast (gfx90a+; row_share is its GFX10+ spelling, not on GFX9).
                _ => 0x150 + self.below(16),
            };
            let row = if self.chance(60) { 0xF } else { self.below(16) };
            let bank = if self.chance(60) { 0xF } else { self.below(16) };
            let bc = u32::from(self.chance(50));
            let mods = self.below(16) & ((m >> 10) & 3 | ((m >> 13) & 3) << 2);
            // mods bits: abs0, abs1, neg0, neg1 → DPP neg0[20] abs0[21] neg1[22] abs1[23].
            let (abs0, abs1, neg0, neg1) = (mods & 1, mods >> 1 & 1, mods >> 2 & 1, mods >> 3 & 1);
            let src = self.reg(self.nv, s0w);
            let e = src
                | ctrl << 8
                | bc << 19
                | neg0 << 20
                | abs0 << 21
                | neg1 << 22
                | abs1 << 23
                | bank << 24
                | row << 28;
            return Some((Vec::new(), vec![head(250), e]));
        }
        if ext < 40 {
            // SDWA: sources may be VGPRs or (S0/S1) scalar operands.
            let mut sel = || self.below(7);
            let (mut dst_sel, src0_sel, src1_sel) = (sel(), sel(), sel());
            let dst_unused = self.below(3);
            if info.mnemonic.starts_with("v_cvt_f32_fp8")
                || info.mnemonic.starts_with("v_cvt_f32_bf8")
            {
                // These converts decode only with DST_SEL = DWORD (as LLVM: the decoder rejects
                // other selects).
                dst_sel = 6;
            }
            let mods = self.below(16) & ((m >> 10) & 3 | ((m >> 13) & 3) << 2);
            let (abs0, abs1, neg0, neg1) = (mods & 1, mods >> 1 & 1, mods >> 2 & 1, mods >> 3 & 1);
            // SEXT applies to integer sources only (those without float modifiers); VOP1 has
            // no src1, so its SRC1 fields stay 0.
            let float_srcs = (m >> 10) & 3;
            let mut sext = self.below(4) & !float_srcs;
            let (src1_sel, abs1, neg1) = if c.enc == Enc::Vop1 {
                sext &= 1;
                (0, 0, 0)
            } else {
                (src1_sel, abs1, neg1)
            };
            let mut b2 = Bus {
                lit_ok: false,
                scalar_ok: true,
                sgpr: bus.sgpr,
                literal: None,
            };
            let (src0, s0s) = if self.chance(20) && b2.can_scalar(0) {
                let cde = self.ssrc(1, &mut b2);
                (cde, 1)
            } else {
                (self.reg(self.nv, 1), 0)
            };
            let mut word0 = head(249);
            let mut s1s = 0;
            if c.enc != Enc::Vop1 && self.chance(15) && b2.sgpr.is_none() && src0 >= 128 {
                // S1: VSRC1 holds a scalar code.
                let cde = self.ssrc(1, &mut b2);
                word0 = (word0 & !(0xFF << 9)) | (cde & 0xFF) << 9;
                s1s = 1;
            }
            let (tail, clamp, omod) = if c.enc == Enc::Vopc {
                let sd = self.chance(50);
                let bits = if sd { (self.sdst(2) & 0x7F) | 0x80 } else { 0 };
                (bits << 8, 0, 0)
            } else {
                let clamp = u32::from(m & MOD_CLAMP != 0 && self.chance(20));
                let omod = if m & MOD_OMOD != 0 && self.chance(20) {
                    self.below(4)
                } else {
                    0
                };
                (dst_sel << 8 | dst_unused << 11, clamp, omod)
            };
            let e = src0 & 0xFF
                | tail
                | clamp << 13
                | omod << 14
                | src0_sel << 16
                | (sext & 1) << 19
                | neg0 << 20
                | abs0 << 21
                | s0s << 23
                | src1_sel << 24
                | (sext >> 1) << 27
                | neg1 << 28
                | abs1 << 29
                | s1s << 31;
            return Some((Vec::new(), vec![word0, e]));
        }
        let src0 = if s0w == 0 {
            256
        } else if info.op == Op::V_READFIRSTLANE_B32 {
            // Reads a VGPR (LLVM: VRegOrLds_32).
            256 + self.reg(self.nv, 1)
        } else if s0k == 2 {
            256 + self.reg(NAGPR, s0w)
        } else {
            self.vsrc(s0w, 0, &mut bus)
        };
        let mut v = vec![head(src0)];
        if let Some(l) = bus.literal {
            v.push(l);
        }
        Some((Vec::new(), v))
    }
}
