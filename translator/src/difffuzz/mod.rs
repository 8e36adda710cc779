//! Differential fuzzing of the two engines at the instruction level.
//!
//! [`gen`] builds random gfx942/gfx950 programs from the generated opcode tables: straight-line
//! runs of random instructions with random legal operands (SGPRs, VGPRs, AGPRs, inline
//! constants, literals, VOP3/VOP3P modifiers, DPP (with `row_newbcast`, the only control of
//! 64-bit DPP) and SDWA forms), MFMA/SMFMAC with CBSZ/ABID/BLGP and VGPR or AGPR operands,
//! memory instructions against small checked buffers (addresses masked into range most of the
//! time; FLAT also into LDS and scratch through the apertures; MUBUF typed accesses under
//! random V# formats, MTBUF), forward branches on SCC/VCC/EXEC, computed `s_setpc`/`s_swappc`
//! jumps, subroutine calls (`s_call_b64` or `s_swappc_b64`, returning by `s_setpc_b64`),
//! bounded loops, EXEC-masked `if`s and fork/join (`s_cbranch_i_fork`/`g_fork` on a compare,
//! `s_cbranch_join`), ending in `s_endpgm`. Every generated word is decoded
//! back and must give the encoded opcode. An eighth of the programs run as a workgroup of 2-4
//! waves with `s_barrier`s added ([`run_waves`]: shared LDS and memory, deterministic
//! cooperative scheduling, every wave compared).
//!
//! [`Fuzzer::run_program`] runs one program from a random wave state (float specials, NaN
//! payloads, denormals, integer edges; full, partial and zero EXEC; random MODE) through a
//! [`Translator`] with [`EngineKind::Interp`] and one with [`EngineKind::Jit`] compiling every
//! block on first use, and requires the same exit or fault, the same final wave state (all
//! registers, counters) and the same memory; every block is compiled except those holding a
//! matrix instruction, which the JIT declines (they run interpreted in both engines: the
//! matrix semantics themselves are checked against host GEMMs in `tests/it/matrix_kernels.rs`;
//! here the blocks around them and the values they feed are). A difference is shrunk
//! (dropping items while the engines still disagree) and reported with the seed, the
//! disassembled program and the first differing register, lane or byte. A quarter of the
//! programs ([`straight_line_for`]) compile every block in the JIT's straight-line form, the
//! others in the lane-group loop form where a block qualifies.
//!
//! Not generated: nested fork/join (the hand-written tests in `tests/it/lift/forkjoin.rs` nest),
//! `s_rfe`, `s_endpgm_*` variants, the gfx950
//! scaled-MFMA pair (`v_mfma_ld_scale_b32` prefix), VOPC DPP (LLVM-22 has no GFX9 VOPC DPP
//! encoding: "dpp variant of this instruction is not supported"), DPP `row_share` (GFX10+
//! only; its GFX9 field values are `row_newbcast`), unaligned VGPR tuples. (V#s are swizzled
//! or ADD_TID in a quarter of the programs each.)

pub mod gen;
pub mod rdna;

use crate::env::{ExecFault, ExitCode};
use crate::exec::{EngineKind, Translator};
use crate::interp::test_env::FlatEnv;
use crate::isa::{decode, disassemble, Gpu, Target};
use crate::wave::{WaveState, AGPR_BASE, NUM_SREGS, NUM_VREGS};
use gen::{Code, Item, Pool, CODE_BASE, GLOBAL_BASE, GLOBAL_SIZE, LDS_SIZE, SCRATCH_PER_LANE};
use std::fmt::Write as _;

/// A small deterministic PRNG (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A value in `0..n` (`0` when `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }
}

/// Instruction budget of one program run (loops are bounded; this catches counters clobbered
/// by indexed writes).
const BUDGET: u64 = 100_000;

/// f32 corner values.
const F32_SPECIALS: [u32; 20] = [
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x7FC0_0000, // qNaN
    0xFFC0_1234, // -qNaN with payload
    0x7F80_0001, // sNaN
    0xFFA5_5555, // -sNaN with payload
    0x0000_0001, // min denormal
    0x807F_FFFF, // -max denormal
    0x0080_0000, // min normal
    0x7F7F_FFFF, // max normal
    0xFF7F_FFFF, // -max normal
    0x3F80_0000, // 1.0
    0xBF80_0000, // -1.0
    0x3F00_0000, // 0.5
    0x4F00_0000, // 2^31
    0xCF00_0000, // -2^31
    0x3EA2_F983, // 1/pi
    0x4B80_0000, // 2^24
];

/// f16 corner values (used in pairs).
const F16_SPECIALS: [u16; 14] = [
    0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7D01, 0xFE55, 0x0001, 0x83FF, 0x0400, 0x7BFF, 0x3C00,
    0xBC00, 0x3800,
];

/// f64 corner values (split over a register pair).
const F64_SPECIALS: [u64; 14] = [
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x7FF0_0000_0000_0000,
    0xFFF0_0000_0000_0000,
    0x7FF8_0000_0000_0000,
    0x7FF0_0000_0000_0001,
    0xFFF8_0000_DEAD_BEEF,
    0x0000_0000_0000_0001,
    0x000F_FFFF_FFFF_FFFF,
    0x0010_0000_0000_0000,
    0x7FEF_FFFF_FFFF_FFFF,
    0x3FF0_0000_0000_0000,
    0xC1E0_0000_0000_0000,
    0x41DF_FFFF_FFC0_0000,
];

/// Integer edges.
const INT_EDGES: [u32; 18] = [
    0,
    1,
    2,
    0xFFFF_FFFF,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF,
    0x8000,
    0x7FFF,
    0xFF,
    0x80,
    31,
    32,
    33,
    63,
    64,
    0xFFFF_FFE0,
    0x0001_0000,
];

/// One 32-bit value from a random class: float/half/integer specials, small or random.
fn value(rng: &mut Rng) -> u32 {
    match rng.below(10) {
        0..=2 => F32_SPECIALS[rng.below(20) as usize],
        3 => {
            F16_SPECIALS[rng.below(14) as usize] as u32
                | (F16_SPECIALS[rng.below(14) as usize] as u32) << 16
        }
        4 => INT_EDGES[rng.below(18) as usize],
        5 => rng.below(256) as u32,
        6 => {
            // A float of moderate magnitude.
            let e = 100 + rng.below(56) as u32;
            (rng.next_u64() as u32 & 0x807F_FFFF) | e << 23
        }
        _ => rng.next_u64() as u32,
    }
}

/// A random MODE: mostly that of HIP kernels (`0x3f0`), sometimes other denormal, IEEE and
/// DX10_CLAMP settings, sometimes directed rounding modes (FP_ROUND, f32 and f64/f16 fields
/// drawn separately) with or without FP16_OVFL, rarely GPR_IDX_EN.
pub fn random_mode(rng: &mut Rng) -> u32 {
    match rng.below(24) {
        0..=10 => 0x3F0,
        11..=17 => (rng.below(16) as u32) << 4 | (rng.below(4) as u32) << 8,
        18..=22 => {
            let base = if rng.below(2) == 0 {
                0x3F0
            } else {
                (rng.below(16) as u32) << 4 | (rng.below(4) as u32) << 8
            };
            base | rng.below(16) as u32 | (rng.below(2) as u32) << 23
        }
        _ => 0x3F0 | 1 << 27,
    }
}

/// A random wave state for gfx9 wave64 at [`CODE_BASE`] with MODE `mode`; the reserved
/// SGPRs (see [`gen`]) hold the global base, a V# over the global buffer and a small scratch
/// offset.
pub fn random_state(rng: &mut Rng, mode: u32) -> Box<WaveState> {
    let mut s = WaveState::new_boxed(64);
    for reg in 0..NUM_VREGS {
        // The registers random instructions (and matrix tuples) use get special values.
        let rich = reg < 64 || (AGPR_BASE..AGPR_BASE + 32).contains(&reg);
        let class = rng.below(6);
        for l in 0..64 {
            s.vgpr[reg][l] = if !rich {
                rng.next_u64() as u32
            } else if class == 0 && reg % 2 == 0 && reg + 1 < NUM_VREGS {
                let v = F64_SPECIALS[rng.below(14) as usize];
                s.vgpr[reg + 1][l] = (v >> 32) as u32;
                v as u32
            } else if class == 0 && reg % 2 == 1 {
                s.vgpr[reg][l]
            } else {
                value(rng)
            };
        }
    }
    for c in 0..NUM_SREGS {
        s.sgpr[c] = if c % 2 == 0 && rng.below(8) == 0 {
            let v = F64_SPECIALS[rng.below(14) as usize];
            s.sgpr[c] = v as u32;
            if c + 1 < NUM_SREGS {
                s.sgpr[c + 1] = (v >> 32) as u32;
            }
            continue;
        } else {
            value(rng)
        };
    }
    s.set_sgpr64(gen::S_GLOBAL as usize, GLOBAL_BASE);
    // V#: base (upper half of the buffer), stride, num_records (bytes, or records when
    // strided): sometimes short so lanes go out of range.
    let vbase = GLOBAL_BASE + (GLOBAL_SIZE as u64) / 2;
    let stride = [0u64, 0, 4, 8, 16, 12][rng.below(6) as usize];
    let nrec = match rng.below(4) {
        0 => rng.below(GLOBAL_SIZE as u64 / 2) as u32,
        1 => 0,
        _ => match (GLOBAL_SIZE as u64 / 2).checked_div(stride) {
            Some(n) => n as u32,
            None => GLOBAL_SIZE as u32 / 2,
        },
    };
    let v = gen::S_VSHARP as usize;
    s.sgpr[v] = vbase as u32;
    s.sgpr[v + 1] = ((vbase >> 32) as u32 & 0xFFFF) | (stride as u32) << 16;
    s.sgpr[v + 2] = nrec;
    // Dword 3: DST_SEL_X..W [11:0], NUM_FORMAT [14:12], DATA_FORMAT [18:15] (the typed
    // `buffer_*_format_*` accesses): mostly xyzw and 32-bit float, else random selects
    // (0, 1, x, y, z, w) and formats.
    s.sgpr[v + 3] = if rng.below(2) == 0 {
        0x0002_7FAC
    } else {
        let sel = |r: &mut Rng| [0u32, 1, 4, 5, 6, 7][r.below(6) as usize];
        let sels = sel(rng) | sel(rng) << 3 | sel(rng) << 6 | sel(rng) << 9;
        sels | (rng.below(8) as u32) << 12 | (rng.below(16) as u32) << 15
    };
    // A quarter of the V#s are swizzled (dword1[31] SWIZZLE_EN) and a quarter add the lane id
    // to the index (dword3[23] ADD_TID_ENABLE); ELEMENT_SIZE dword3[20:19] and INDEX_STRIDE
    // dword3[22:21] are random (they matter only when swizzled).
    if rng.below(4) == 0 {
        s.sgpr[v + 1] |= 1 << 31;
    }
    s.sgpr[v + 3] |= (rng.below(4) as u32) << 19 | (rng.below(4) as u32) << 21;
    if rng.below(4) == 0 {
        s.sgpr[v + 3] |= 1 << 23;
    }
    s.sgpr[gen::S_SOFF as usize] = rng.below(16) as u32 * 4;
    s.sgpr[gen::S_SOFF as usize + 1] = 0;
    s.sgpr[104] = 0;
    s.sgpr[105] = 0;
    s.sgpr[crate::wave::sreg::M0 as usize] = match rng.below(4) {
        0 => u32::MAX,
        1 => rng.below(64) as u32,
        _ => value(rng),
    };
    s.set_exec(match rng.below(10) {
        0..=3 => u64::MAX,
        4 => 0,
        5 => 1 << rng.below(64),
        6 => 0xFFFF_FFFF,
        7 => 0x5555_5555_5555_5555,
        _ => rng.next_u64(),
    });
    if rng.below(4) == 0 {
        s.set_sgpr64(106, [0, u64::MAX, 1][rng.below(3) as usize]);
    }
    s.scc = rng.below(2) as u32;
    s.mode = mode;
    s.pc = CODE_BASE;
    s
}

/// Random memory: bytes mixed with special words.
pub fn random_env(rng: &mut Rng) -> FlatEnv {
    let mut e = FlatEnv::new(GLOBAL_BASE, GLOBAL_SIZE, LDS_SIZE, SCRATCH_PER_LANE);
    for buf in [&mut e.global, &mut e.lds, &mut e.scratch] {
        for w in buf.chunks_mut(4) {
            let v = value(rng).to_le_bytes();
            w.copy_from_slice(&v[..w.len()]);
        }
    }
    e.clock = rng.next_u64() >> 8;
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
    n.credit = s.credit;
    n.counters = s.counters;
    n
}

/// What one engine did with one program.
pub struct Outcome {
    /// The last exit, or the fault.
    pub result: Result<ExitCode, ExecFault>,
    /// Final wave state.
    pub state: Box<WaveState>,
    /// Final memory.
    pub env: FlatEnv,
    /// Blocks lifted and compiled by the translator.
    pub lifted: u64,
    /// Blocks compiled to host code.
    pub compiled: u64,
    /// Lifted blocks holding a matrix instruction (the JIT compiles them too, calling the
    /// matrix microkernel from the block).
    pub matrix_blocks: u64,
    /// The other waves of a workgroup run ([`run_waves`]): last exit and final state.
    pub others: Vec<(Result<ExitCode, ExecFault>, Box<WaveState>)>,
}

thread_local! {
    /// Matrix blocks lifted on this thread by [`counting_lift`].
    static MATRIX_BLOCKS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// [`crate::lift::lift_block`], counting the blocks that hold a matrix instruction.
fn counting_lift(
    target: &Target,
    code: &dyn crate::env::CodeSource,
    pc: u64,
    mode: u32,
) -> crate::ir::Block {
    let b = crate::lift::lift_block(target, code, pc, mode);
    if b.class_counts[crate::wave::InstClass::Matrix as usize] > 0 {
        MATRIX_BLOCKS.with(|c| c.set(c.get() + 1));
    }
    b
}

impl Outcome {
    /// Wave instructions executed (the per-class counters).
    pub fn insts(&self) -> u64 {
        std::iter::once(&self.state)
            .chain(self.others.iter().map(|(_, s)| s))
            .map(|s| s.counters.by_class.iter().sum::<u64>())
            .sum()
    }
}

/// Scheduling rounds of a run: each resumes every wave that is not done or waiting at a
/// barrier (after `s_sleep` or a barrier).
const MAX_ROUNDS: usize = 65;

/// Runs `code` from `init`/`env` under `engine` (the JIT compiles every block on first use;
/// with `straight_line`, never in the lane-group loop form), resuming after `s_sleep` and
/// (single-wave) barriers.
pub fn run_engine(
    target: &Target,
    code: &Code,
    init: &WaveState,
    env: &FlatEnv,
    engine: EngineKind,
    straight_line: bool,
) -> Outcome {
    run_waves(target, code, &[init], env, engine, straight_line)
}

/// Runs the waves `inits` of one workgroup on `code` (one translator, shared LDS and
/// memory), cooperatively and deterministically: in each round every wave runs in turn
/// until it ends, faults, sleeps or reaches a barrier; a barrier opens once every wave still
/// running waits at it. The outcome is wave 0's, the others in [`Outcome::others`].
///
/// # Panics
/// If `inits` is empty (the fuzzer always passes at least one wave).
pub fn run_waves(
    target: &Target,
    code: &Code,
    inits: &[&WaveState],
    env: &FlatEnv,
    engine: EngineKind,
    straight_line: bool,
) -> Outcome {
    let mut states: Vec<Box<WaveState>> = inits.iter().map(|s| clone_state(s)).collect();
    let mut env = env.clone();
    let n = states.len();
    let mut results: Vec<Result<ExitCode, ExecFault>> =
        (0..n).map(|_| Ok(ExitCode::Yield)).collect();
    let (mut lifted, mut compiled) = (0, 0);
    MATRIX_BLOCKS.with(|c| c.set(0));
    match translator(target, engine, straight_line) {
        Ok(tr) => {
            let mut done = vec![false; n];
            let mut waiting = vec![false; n];
            let mut budgets = vec![BUDGET; n];
            for _ in 0..MAX_ROUNDS {
                for w in 0..n {
                    if done[w] || waiting[w] {
                        continue;
                    }
                    env.barrier = crate::env::workgroup_barrier_state(
                        n,
                        done.iter().filter(|&&d| !d).count(),
                        waiting.iter().filter(|&&x| x).count(),
                    );
                    let r = tr.run(code, &mut states[w], &mut env, &mut budgets[w]);
                    match r {
                        Ok(ExitCode::Yield) => {}
                        Ok(ExitCode::Barrier) => waiting[w] = true,
                        _ => done[w] = true,
                    }
                    results[w] = r;
                }
                if done.iter().all(|&d| d) {
                    break;
                }
                if (0..n).all(|w| done[w] || waiting[w]) {
                    waiting.fill(false);
                }
            }
            let st = tr.stats();
            (lifted, compiled) = (st.blocks_lifted, st.blocks_compiled);
        }
        Err(e) => results[0] = Err(e),
    }
    let mut waves = states.into_iter().zip(results);
    let (state, result) = waves.next().expect("at least one wave");
    Outcome {
        result,
        state,
        env,
        lifted,
        compiled,
        matrix_blocks: MATRIX_BLOCKS.with(|c| c.get()),
        others: waves.map(|(s, r)| (r, s)).collect(),
    }
}

/// A translator compiling every block on first use (in the straight-line form only with
/// `straight_line`), lifting through [`counting_lift`].
fn translator(
    target: &Target,
    engine: EngineKind,
    straight_line: bool,
) -> Result<Translator, ExecFault> {
    let mut tr = Translator::new(*target, engine)?
        .with_hot_threshold(0)
        .with_lifter(counting_lift);
    if straight_line {
        let j = crate::jit::Jit::new()
            .map_err(|e| ExecFault::Unsupported(format!("no host JIT: {e}")))?;
        tr = tr.with_jit(j.without_loop_form());
    }
    Ok(tr)
}

/// The first difference between two outcomes (interpreter `a`, JIT `b`), if any.
pub fn first_diff(a: &Outcome, b: &Outcome) -> Option<String> {
    let wa = std::iter::once((&a.result, &a.state)).chain(a.others.iter().map(|(r, s)| (r, s)));
    let wb = std::iter::once((&b.result, &b.state)).chain(b.others.iter().map(|(r, s)| (r, s)));
    if a.others.len() != b.others.len() {
        return Some("different numbers of waves".into());
    }
    for (w, ((ra, sa), (rb, sb))) in wa.zip(wb).enumerate() {
        let wave = if a.others.is_empty() {
            String::new()
        } else {
            format!("wave {w}: ")
        };
        if ra != rb {
            return Some(format!("{wave}exit: interp {ra:?}, jit {rb:?}"));
        }
        if let Some(d) = state_diff(sa, sb) {
            return Some(format!("{wave}{d}"));
        }
    }
    memory_diff(a, b)
}

/// The first difference between two wave states.
fn state_diff(x: &WaveState, y: &WaveState) -> Option<String> {
    for r in 0..NUM_VREGS {
        if x.vgpr[r] != y.vgpr[r] {
            let l = (0..64).find(|&l| x.vgpr[r][l] != y.vgpr[r][l]).unwrap_or(0);
            let name = if r >= AGPR_BASE {
                format!("a{}", r - AGPR_BASE)
            } else {
                format!("v{r}")
            };
            return Some(format!(
                "{name} lane {l}: interp {:#010x}, jit {:#010x}",
                x.vgpr[r][l], y.vgpr[r][l]
            ));
        }
    }
    for c in 0..NUM_SREGS {
        if x.sgpr[c] != y.sgpr[c] {
            return Some(format!(
                "sgpr code {c}: interp {:#010x}, jit {:#010x}",
                x.sgpr[c], y.sgpr[c]
            ));
        }
    }
    let scalars = [
        ("scc", x.scc as u64, y.scc as u64),
        ("mode", x.mode as u64, y.mode as u64),
        ("status", x.status as u64, y.status as u64),
        ("trapsts", x.trapsts as u64, y.trapsts as u64),
        ("pc", x.pc, y.pc),
    ];
    for (n, p, q) in scalars {
        if p != q {
            return Some(format!("{n}: interp {p:#x}, jit {q:#x}"));
        }
    }
    if x.counters != y.counters {
        return Some(format!(
            "counters: interp {:?}, jit {:?}",
            x.counters, y.counters
        ));
    }
    None
}

/// The first difference in memory, clock or compiled blocks.
fn memory_diff(a: &Outcome, b: &Outcome) -> Option<String> {
    let mems = [
        ("global", &a.env.global, &b.env.global),
        ("lds", &a.env.lds, &b.env.lds),
        ("scratch", &a.env.scratch, &b.env.scratch),
    ];
    for (n, p, q) in mems {
        if let Some(i) = (0..p.len()).find(|&i| p[i] != q[i]) {
            return Some(format!(
                "{n} byte {i:#x}: interp {:#04x}, jit {:#04x}",
                p[i], q[i]
            ));
        }
    }
    if a.env.clock != b.env.clock {
        return Some(format!(
            "clock: interp {}, jit {}",
            a.env.clock, b.env.clock
        ));
    }
    if b.compiled != b.lifted {
        return Some(format!(
            "the JIT compiled {} of {} lifted blocks ({} with matrix instructions)",
            b.compiled, b.lifted, b.matrix_blocks
        ));
    }
    None
}

/// The disassembly of `words` laid out at [`CODE_BASE`], one instruction per line.
pub fn disassemble_words(target: &Target, words: &[u32]) -> String {
    let bytes = gen::to_bytes(words);
    let mut out = String::new();
    let mut off = 0usize;
    while off < bytes.len() {
        let pc = CODE_BASE + off as u64;
        match decode(target, &bytes[off..], pc) {
            Ok(i) => {
                let hex: Vec<String> = (0..i.size as usize / 4)
                    .map(|k| format!("{:08x}", i.words[k]))
                    .collect();
                let _ = writeln!(
                    out,
                    "  {pc:#07x}: {:<40} // {}",
                    disassemble(target, &i, pc),
                    hex.join(" ")
                );
                off += i.size.max(4) as usize;
            }
            Err(e) => {
                let _ = writeln!(out, "  {pc:#07x}: <{e}>");
                off += 4;
            }
        }
    }
    out
}

/// A difference between the engines, shrunk.
#[derive(Clone, Debug)]
pub struct Finding {
    /// Target.
    pub gpu: Gpu,
    /// Program seed (replay with the same pool seed).
    pub seed: u64,
    /// The first difference.
    pub diff: String,
    /// The shrunk program's disassembly.
    pub program: String,
    /// Instructions in the original and the shrunk program.
    pub sizes: (usize, usize),
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "engine difference on {} (program seed {:#x}, JIT {} form, shrunk from {} to {} \
             dwords): {}",
            self.gpu,
            self.seed,
            if straight_line_for(self.seed) {
                "straight-line"
            } else {
                "lane-group"
            },
            self.sizes.0,
            self.sizes.1,
            self.diff
        )?;
        write!(f, "{}", self.program)
    }
}

/// Totals of a fuzzing run.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Programs run.
    pub programs: u64,
    /// Wave instructions executed (counted once per program, from the interpreter).
    pub insts: u64,
    /// Programs that ended in a fault (memory, unsupported, runaway) in both engines.
    pub faults: u64,
    /// Programs run as a workgroup of several waves.
    pub workgroups: u64,
    /// Blocks compiled by the JIT.
    pub blocks: u64,
    /// Faults by kind (memory space, unsupported instruction, runaway, ...).
    pub fault_kinds: std::collections::BTreeMap<String, u64>,
    /// Distinct opcodes in the generated programs.
    pub opcodes: std::collections::BTreeSet<crate::isa::Op>,
    /// Generated instructions by encoding form (`Vop2 dpp`, `Vop3`, `Ds`, ...).
    pub forms: std::collections::BTreeMap<String, u64>,
}

/// A short name of the kind of `f`, for [`Totals::fault_kinds`].
fn fault_kind(f: &ExecFault) -> String {
    match f {
        ExecFault::Memory(crate::env::MemError::OutOfRange { space, .. }) => {
            format!("out of range {space:?}")
        }
        ExecFault::Memory(crate::env::MemError::Misaligned { space, .. }) => {
            format!("misaligned {space:?}")
        }
        ExecFault::Unsupported(s) => {
            let s = s.split(':').next().unwrap_or("");
            format!("unsupported {}", s.split_whitespace().next().unwrap_or(""))
        }
        ExecFault::Illegal(_) => "illegal instruction".into(),
        ExecFault::Undecodable(_) => "undecodable".into(),
        ExecFault::BadJump(_) => "bad jump".into(),
        ExecFault::Runaway(_) => "runaway".into(),
    }
}

/// Per-target fuzzing state: the opcode pool and counters.
pub struct Fuzzer {
    /// The opcode pool.
    pub pool: Pool,
    /// Totals so far.
    pub totals: Totals,
    /// Print every program that ends in a fault (with the fault).
    pub show_faults: bool,
    /// Compile in the straight-line form only (set per program, [`straight_line_for`]).
    straight_line: bool,
    /// Test hook for the shrinker: report a (fake) difference for every program that
    /// contains this opcode.
    pub inject: Option<crate::isa::Op>,
}

/// Whether program `seed` runs the JIT in the straight-line form only (a quarter of the
/// seeds; the others use the lane-group loop form wherever a block qualifies, the
/// straight-line form elsewhere). Straight-line code for a whole wave is larger and slower to
/// compile, hence the smaller share.
pub fn straight_line_for(seed: u64) -> bool {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62 == 3
}

/// Seed of the pool construction (fixed so program seeds replay).
const POOL_SEED: u64 = 0x00C0_FFEE;

impl Fuzzer {
    /// A fuzzer for `gpu` (gfx942 or gfx950; the generator encodes GFX9 words only, so for
    /// other targets the pool stays empty and programs are `s_nop`s).
    pub fn new(gpu: Gpu) -> Fuzzer {
        let mut rng = Rng(POOL_SEED ^ gpu.id as u64);
        Fuzzer {
            pool: Pool::new(gpu, &mut rng, 12),
            totals: Totals::default(),
            show_faults: false,
            inject: None,
            straight_line: false,
        }
    }

    /// Generates program `seed`: its items, the initial state of each wave (one, or for an
    /// eighth of the seeds a workgroup of 2-4 waves with `s_barrier`s added to the program)
    /// and memory.
    pub fn generate(&mut self, seed: u64) -> (Vec<Item>, Vec<Box<WaveState>>, FlatEnv) {
        let mut rng = Rng(seed);
        let mode = random_mode(&mut rng);
        let state = random_state(&mut rng, mode);
        let env = random_env(&mut rng);
        let len = 8 + rng.below(40) as usize;
        // Register pool sizes: small pools make dense chains of dependences.
        self.pool.nvgpr = [8, 16, 32, 32][rng.below(4) as usize];
        self.pool.nsgpr = [8, 16, 64, 64][rng.below(4) as usize];
        let mut items = self.pool.program(&mut rng, mode, len);
        let mut states = vec![state];
        if rng.below(8) == 0 {
            // A workgroup: the waves share LDS and memory and meet at barriers.
            for _ in 0..1 + rng.below(3) {
                states.push(random_state(&mut rng, mode));
            }
            let barriers = 1 + rng.below(3) as usize;
            self.pool.add_barriers(&mut rng, &mut items, barriers);
        }
        (items, states, env)
    }

    /// Runs both engines on `items`; the difference, if any, and the interpreter's outcome.
    fn check(
        &self,
        items: &[Item],
        states: &[Box<WaveState>],
        env: &FlatEnv,
    ) -> (Option<String>, Outcome) {
        let code = Code(gen::to_bytes(&self.pool.layout(items)));
        let t = &self.pool.target;
        let waves: Vec<&WaveState> = states.iter().map(|s| &**s).collect();
        let a = run_waves(t, &code, &waves, env, EngineKind::Interp, false);
        let b = run_waves(t, &code, &waves, env, EngineKind::Jit, self.straight_line);
        if let Some(op) = self.inject {
            if contains_op(t, &code.0, op) {
                return (Some(format!("injected difference at {}", op.name())), a);
            }
        }
        (first_diff(&a, &b), a)
    }

    /// Generates and runs program `seed`; a shrunk [`Finding`] when the engines differ.
    pub fn run_program(&mut self, seed: u64) -> Result<(), Box<Finding>> {
        self.straight_line = straight_line_for(seed);
        let (items, state, env) = self.generate(seed);
        let (diff, out) = self.check(&items, &state, &env);
        if state.len() > 1 {
            self.totals.workgroups += 1;
        }
        self.census(&items);
        self.totals.programs += 1;
        self.totals.insts += out.insts();
        if let Err(f) = &out.result {
            self.totals.faults += 1;
            let mut kind = fault_kind(f);
            if let ExecFault::Memory(_) = f {
                // Name the faulting instruction's mnemonic.
                let words = self.pool.layout(&items);
                let off = out.state.pc.wrapping_sub(CODE_BASE) as usize;
                let bytes = gen::to_bytes(&words);
                if let Some(b) = bytes.get(off..) {
                    if let Ok(i) = decode(&self.pool.target, b, out.state.pc) {
                        kind = format!("{kind} ({})", i.op.name());
                    }
                }
            }
            if self.show_faults {
                let words = self.pool.layout(&items);
                eprintln!(
                    "seed {seed:#x}: {f} at {:#x}\n{}",
                    out.state.pc,
                    disassemble_words(&self.pool.target, &words)
                );
            }
            *self.totals.fault_kinds.entry(kind).or_default() += 1;
        }
        self.totals.blocks += out.lifted;
        let Some(diff) = diff else {
            return Ok(());
        };
        let before = self.pool.layout(&items).len();
        let shrunk = self.shrink(items, &state, &env);
        let words = self.pool.layout(&shrunk);
        let diff = self.check(&shrunk, &state, &env).0.unwrap_or(diff);
        Err(Box::new(Finding {
            gpu: self.pool.target.gpu,
            seed,
            diff,
            program: disassemble_words(&self.pool.target, &words),
            sizes: (before, words.len()),
        }))
    }

    /// Adds the opcodes and encoding forms of `items` to the totals.
    fn census(&mut self, items: &[Item]) {
        let bytes = gen::to_bytes(&self.pool.layout(items));
        let t = &self.pool.target;
        let mut off = 0;
        while off < bytes.len() {
            let Ok(i) = decode(t, &bytes[off..], CODE_BASE + off as u64) else {
                off += 4;
                continue;
            };
            self.totals.opcodes.insert(i.op);
            if i.dpp.is_some_and(|d| (0x150..=0x15F).contains(&d.ctrl)) {
                *self
                    .totals
                    .forms
                    .entry("dpp row_newbcast".into())
                    .or_default() += 1;
            }
            let ext = if i.dpp.is_some() {
                " dpp"
            } else if i.sdwa.is_some() {
                " sdwa"
            } else if i.literal.is_some() {
                " literal"
            } else {
                ""
            };
            *self
                .totals
                .forms
                .entry(format!("{:?}{ext}", i.format))
                .or_default() += 1;
            off += i.size.max(4) as usize;
        }
    }

    /// Drops items (and unwraps loops and `if`s) while the engines still differ.
    fn shrink(&self, mut items: Vec<Item>, state: &[Box<WaveState>], env: &FlatEnv) -> Vec<Item> {
        let mut tries = 0;
        let mut i = 0;
        while i < count(&items) && tries < 400 {
            let mut improved = false;
            for unwrap in [false, true] {
                let mut cand = items.clone();
                let mut k = i;
                if !edit(&mut cand, &mut k, unwrap) {
                    continue;
                }
                tries += 1;
                if self.check(&cand, state, env).0.is_some() {
                    items = cand;
                    improved = true;
                    break;
                }
            }
            if !improved {
                i += 1;
            }
        }
        items
    }
}

/// True when the code in `bytes` contains an instruction of opcode `op`.
fn contains_op(target: &Target, bytes: &[u8], op: crate::isa::Op) -> bool {
    let mut off = 0;
    while off < bytes.len() {
        match decode(target, &bytes[off..], CODE_BASE + off as u64) {
            Ok(i) if i.op == op => return true,
            Ok(i) => off += i.size.max(4) as usize,
            Err(_) => off += 4,
        }
    }
    false
}

/// Items in `items`, nested ones included.
fn count(items: &[Item]) -> usize {
    items
        .iter()
        .map(|i| match i {
            Item::Loop { body, .. }
            | Item::If { body, .. }
            | Item::GprIdx { body, .. }
            | Item::Call { body, .. } => 1 + count(body),
            Item::Fork { fail, pass, .. } => 1 + count(fail) + count(pass),
            _ => 1,
        })
        .sum()
}

/// Removes (or, with `unwrap`, replaces a loop or `if` by its body, a fork by its two paths)
/// the item at preorder index `*k`. False when there is nothing to do at that index.
fn edit(items: &mut Vec<Item>, k: &mut usize, unwrap: bool) -> bool {
    let mut j = 0;
    while j < items.len() {
        if *k == 0 {
            if unwrap {
                let body = match &items[j] {
                    Item::Loop { body, .. }
                    | Item::If { body, .. }
                    | Item::GprIdx { body, .. }
                    | Item::Call { body, .. } => body.clone(),
                    Item::Fork { fail, pass, .. } => [&fail[..], &pass[..]].concat(),
                    _ => return false,
                };
                items.splice(j..=j, body);
            } else {
                items.remove(j);
            }
            return true;
        }
        *k -= 1;
        if let Item::Loop { body, .. }
        | Item::If { body, .. }
        | Item::GprIdx { body, .. }
        | Item::Call { body, .. } = &mut items[j]
        {
            let n = count(body);
            if *k < n {
                return edit(body, k, unwrap);
            }
            *k -= n;
        } else if let Item::Fork { fail, pass, .. } = &mut items[j] {
            for path in [fail, pass] {
                let n = count(path);
                if *k < n {
                    return edit(path, k, unwrap);
                }
                *k -= n;
            }
        }
        j += 1;
    }
    false
}
