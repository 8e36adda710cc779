//! Differential fuzzing of the two engines on RDNA code: gfx1100 and gfx1200, wave32 and
//! wave64.
//!
//! The instruction pool is the decoder oracle (`gen/gfx1100_cases.txt`,
//! `gen/gfx1200_cases.txt` and their `_w64` wave64 variants: LLVM-encoded instructions with
//! LLVM's text), restricted to the ALU encodings (SOP1/SOP2/SOPK/SOPC, VOP1/VOP2/VOPC/VOP3/
//! VOP3SD/VOP3P, VOPD; DPP16/DPP8 forms included) whose instructions lift. A program is a
//! random sequence of pool instructions ending in `s_endpgm`; the oracle's fixed register
//! choices (`v2`, `v4`, `v8`, `s[4:5]`, ...) make later instructions read what earlier ones
//! wrote. Each program runs from a random wave state (float specials, NaN payloads,
//! denormals, integer edges, random EXEC and VCC, RDNA MODE values) in the interpreter and in
//! the JIT (every block compiled on first use; a quarter of the programs in the JIT's
//! straight-line form), which must agree on the exit, every register and counter, and memory.
//!
//! Not generated: memory instructions (the oracle's addresses are arbitrary), branches and
//! other program control, matrix instructions (interpreter only).

use super::gen::Code;
use super::{first_diff, random_env, random_state, run_engine, Rng};
use crate::exec::EngineKind;
use crate::isa::{decode, Format, Gpu, Op, Target};
use std::collections::HashSet;

static GFX1100_CASES: &str = include_str!("../../gen/gfx1100_cases.txt");
static GFX1100_W64_CASES: &str = include_str!("../../gen/gfx1100_w64_cases.txt");
static GFX1200_CASES: &str = include_str!("../../gen/gfx1200_cases.txt");
static GFX1200_W64_CASES: &str = include_str!("../../gen/gfx1200_w64_cases.txt");

/// `s_endpgm` (the same word on GFX11 and GFX12).
const S_ENDPGM: u32 = 0xbfb0_0000;

/// One pool instruction.
#[derive(Clone, Debug)]
pub struct PoolInst {
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
    /// Distinct opcodes executed.
    pub opcodes: HashSet<Op>,
}

/// Whether an oracle instruction may go into a program: an ALU encoding, and not one that
/// jumps, sleeps, traps or changes the program counter.
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
    );
    // Program control, and the matrix instructions (covered by the matrix tests; their
    // operand constraints are beyond this generator).
    let control = [
        "v_wmma",
        "v_swmmac",
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
        // Matrix instructions (see above).
        "v_wmma",
        "v_swmmac",
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
        let cases = match (gpu.family(), wave) {
            (Some(crate::isa::Family::Gfx11), 32) => GFX1100_CASES,
            (Some(crate::isa::Family::Gfx11), _) => GFX1100_W64_CASES,
            (_, 32) => GFX1200_CASES,
            _ => GFX1200_W64_CASES,
        };
        let mut pool = Vec::new();
        for line in cases.lines().filter(|l| !l.starts_with('#')) {
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
            if crate::lift::coverage::lift_one(&target, &bytes).is_err() {
                continue;
            }
            pool.push(PoolInst {
                bytes,
                text: text.trim(),
                op: inst.op,
            });
        }
        RdnaFuzzer {
            target,
            pool,
            programs: 0,
            insts: 0,
            faults: 0,
            opcodes: HashSet::new(),
        }
    }

    /// The instructions of program `seed` (indices into the pool).
    pub fn program(&self, rng: &mut Rng) -> Vec<usize> {
        let n = 16 + rng.below(48) as usize;
        (0..n)
            .map(|_| rng.below(self.pool.len() as u64) as usize)
            .collect()
    }

    /// Runs program `seed` in both engines; `Err` describes a difference (seed, program text,
    /// first differing register, lane or byte).
    pub fn run_program(&mut self, seed: u64) -> Result<(), String> {
        if self.pool.is_empty() {
            return Err(format!("{}: empty instruction pool", self.target.gpu));
        }
        let mut rng = Rng(seed);
        let prog = self.program(&mut rng);
        let mut bytes: Vec<u8> = prog
            .iter()
            .flat_map(|&i| self.pool[i].bytes.iter().copied())
            .collect();
        bytes.extend_from_slice(&S_ENDPGM.to_le_bytes());
        let code = Code(bytes);
        // RDNA MODE: round to nearest, denormal modes random (no IEEE/DX10 bits on RDNA4).
        let mode = match rng.below(4) {
            0 => (rng.below(16) as u32) << 4,
            _ => 0xf0,
        };
        let mut state = random_state(&mut rng, mode);
        state.wave_size = self.target.wave_size;
        let env = random_env(&mut rng);
        let straight = seed % 4 == 0;
        let a = run_engine(
            &self.target,
            &code,
            &state,
            &env,
            EngineKind::Interp,
            straight,
        );
        let b = run_engine(&self.target, &code, &state, &env, EngineKind::Jit, straight);
        self.programs += 1;
        self.insts += a.insts();
        if a.result.is_err() {
            self.faults += 1;
        }
        self.opcodes.extend(prog.iter().map(|&i| self.pool[i].op));
        match first_diff(&a, &b) {
            None => Ok(()),
            Some(d) => {
                let text: Vec<&str> = prog.iter().map(|&i| self.pool[i].text).collect();
                Err(format!(
                    "{} wave{} seed {seed:#x}: engines differ: {d}\nprogram:\n  {}",
                    self.target.gpu,
                    self.target.wave_size,
                    text.join("\n  ")
                ))
            }
        }
    }
}
