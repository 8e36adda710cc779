//! Profiles of a launch: per-instruction and per-basic-block counts with the cycle estimate.
//!
//! The counts come from a profiling translator
//! ([`Translator::profiling`](wavejit_translator::exec::Translator::profiling)); [`build`]
//! decodes the kernel's code, forms its static basic blocks, attaches the cost model's
//! estimate ([`wavejit_translator::cost`]) and returns the [`Profile`], whose JSON form is
//! the versioned schema documented in `docs/profiling.md`.

pub mod control;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use wavejit_translator::cost::{inst_cost, InstCost};
use wavejit_translator::env::CodeSource;
use wavejit_translator::isa::{decode, disassemble, Inst, Target};
use wavejit_translator::profile::PcCount;

pub use control::LaunchControl;

/// Version of the profile schema; bumped on any incompatible change.
pub const PROFILE_VERSION: u32 = 1;

/// Name of the cost model the estimate comes from.
pub const COST_MODEL: &str = "first-order-1";

/// Most instructions decoded when a kernel's symbol gives no size.
const MAX_STATIC_INSTS: usize = 1 << 16;

/// A launch's profile (the JSON schema, version [`PROFILE_VERSION`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Schema version.
    pub version: u32,
    /// Kernel name.
    pub kernel: String,
    /// Target (`gfx942`, ...).
    pub target: String,
    /// Wave size.
    pub wave_size: u32,
    /// Workgroups per dimension.
    pub grid: [u32; 3],
    /// Workgroup size.
    pub block: [u32; 3],
    /// Workgroups executed.
    pub workgroups: u64,
    /// Waves executed.
    pub waves: u64,
    /// True when the launch was stopped early (Ctrl-C): the counts cover the work-groups
    /// that finished.
    pub interrupted: bool,
    /// The cycle estimate.
    pub estimate: Estimate,
    /// Every instruction of the kernel (and any executed outside it), in pc order.
    pub instructions: Vec<InstRow>,
    /// Static basic blocks, in pc order.
    pub blocks: Vec<BlockRow>,
}

/// The cost model's estimate, summed over every executed instruction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Cost model name ([`COST_MODEL`]).
    pub model: String,
    /// Σ count × issue cycles: the busy cycles of the launch's execution units.
    pub issue_cycles: u64,
    /// Σ count × latency cycles: the launch's instructions run back to back, no overlap.
    pub latency_cycles: u64,
    /// `issue_cycles` per wave.
    pub issue_cycles_per_wave: f64,
    /// `latency_cycles` per wave.
    pub latency_cycles_per_wave: f64,
    /// Issue cycles by cost class (`valu`, `trans`, `matrix`, `vmem`, ...).
    pub issue_cycles_by_class: BTreeMap<String, u64>,
}

/// One instruction's counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstRow {
    /// Byte offset from the kernel's entry.
    pub pc: i64,
    /// Disassembly (LLVM syntax).
    pub text: String,
    /// Times a wave executed it.
    pub count: u64,
    /// Sum over those executions of the lanes active (EXEC) before it.
    pub active_lanes: u64,
    /// Bytes moved: active lanes × bytes per lane (vector memory, LDS), count × size
    /// (scalar memory), 0 otherwise.
    pub bytes: u64,
    /// Cost class.
    pub class: String,
    /// Issue cycles of one execution.
    pub issue: u32,
    /// Latency cycles of one execution.
    pub latency: u32,
    /// count × issue.
    pub cycles: u64,
}

/// One static basic block's totals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockRow {
    /// Offset of its first instruction from the kernel's entry.
    pub pc: i64,
    /// Offset just past its last instruction.
    pub end: i64,
    /// Instructions in it.
    pub insts: u32,
    /// Times a wave entered it (its first instruction's count).
    pub count: u64,
    /// Wave instructions executed in it (Σ count).
    pub wave_insts: u64,
    /// Σ active lanes.
    pub active_lanes: u64,
    /// Σ bytes.
    pub bytes: u64,
    /// Σ issue cycles.
    pub cycles: u64,
}

/// What [`build`] needs to know about the launch.
#[derive(Clone, Debug)]
pub struct LaunchFacts {
    /// Kernel name.
    pub kernel: String,
    /// Target and wave size.
    pub target: Target,
    /// Device address of the kernel's first instruction.
    pub entry: u64,
    /// Bytes of code from `entry` (the symbol's size; `None`: decode up to `s_endpgm`s and
    /// branch targets, see `static_pcs`).
    pub size: Option<u64>,
    /// Workgroups per dimension.
    pub grid: [u32; 3],
    /// Workgroup size.
    pub block: [u32; 3],
    /// Workgroups executed.
    pub workgroups: u64,
    /// Waves executed.
    pub waves: u64,
    /// Stopped early.
    pub interrupted: bool,
}

/// A decoded instruction at an address.
struct Decoded {
    pc: u64,
    size: u64,
    text: String,
    /// Static successor edges: ends its block, and where it may branch.
    ends_block: bool,
    target: Option<u64>,
    cost: InstCost,
}

fn decode_at(t: &Target, code: &dyn CodeSource, pc: u64) -> Option<Decoded> {
    let bytes = code.bytes_at(pc)?;
    let inst: Inst = decode(t, bytes, pc).ok()?;
    let name = inst.op.name();
    let branch = name == "s_branch" || name.starts_with("s_cbranch_");
    let target = (branch && !name.contains("fork") && !name.contains("join")).then(|| {
        pc.wrapping_add(4)
            .wrapping_add_signed(i64::from(inst.imm) * 4)
    });
    let ends_block = branch
        || matches!(
            name,
            "s_endpgm" | "s_setpc_b64" | "s_swappc_b64" | "s_trap" | "s_rfe_b64" | "s_code_end"
        );
    Some(Decoded {
        pc,
        size: u64::from(inst.size.max(4)),
        text: disassemble(t, &inst, pc),
        ends_block,
        target,
        cost: inst_cost(t, &inst),
    })
}

/// The kernel's static instruction addresses: the `size` bytes from `entry`, or, without a
/// size, everything reachable by fall-through and direct branches from `entry`.
fn static_pcs(t: &Target, code: &dyn CodeSource, entry: u64, size: Option<u64>) -> Vec<u64> {
    let mut pcs = BTreeSet::new();
    match size {
        Some(n) => {
            let mut pc = entry;
            while pc < entry.saturating_add(n) && pcs.len() < MAX_STATIC_INSTS {
                let Some(d) = decode_at(t, code, pc) else {
                    break;
                };
                pcs.insert(pc);
                pc += d.size;
            }
        }
        None => {
            let mut work = vec![entry];
            while let Some(mut pc) = work.pop() {
                while pcs.len() < MAX_STATIC_INSTS && !pcs.contains(&pc) {
                    let Some(d) = decode_at(t, code, pc) else {
                        break;
                    };
                    pcs.insert(pc);
                    if let Some(tg) = d.target {
                        work.push(tg);
                    }
                    let name = d.text.split_whitespace().next().unwrap_or("");
                    if d.ends_block && !name.starts_with("s_cbranch") {
                        break;
                    }
                    pc += d.size;
                }
            }
        }
    }
    pcs.into_iter().collect()
}

/// The profile of a launch from its per-pc counts.
pub fn build(code: &dyn CodeSource, facts: &LaunchFacts, counts: &[PcCount]) -> Profile {
    let t = &facts.target;
    let by_pc: BTreeMap<u64, &PcCount> = counts.iter().map(|c| (c.pc, c)).collect();
    let mut pcs: BTreeSet<u64> = static_pcs(t, code, facts.entry, facts.size)
        .into_iter()
        .collect();
    pcs.extend(by_pc.keys().copied());
    let decoded: Vec<Decoded> = pcs
        .iter()
        .map(|&pc| {
            decode_at(t, code, pc).unwrap_or_else(|| Decoded {
                pc,
                size: 4,
                text: "<not decodable>".into(),
                ends_block: true,
                target: None,
                cost: InstCost {
                    class: wavejit_translator::cost::CostClass::Control,
                    issue: 0,
                    latency: 0,
                    bytes: 0,
                    bytes_per_wave: false,
                },
            })
        })
        .collect();
    let off = |pc: u64| pc.wrapping_sub(facts.entry) as i64;
    let mut rows = Vec::with_capacity(decoded.len());
    let mut by_class: BTreeMap<String, u64> = BTreeMap::new();
    let (mut issue_total, mut latency_total) = (0u64, 0u64);
    for d in &decoded {
        let (count, active_lanes) = by_pc
            .get(&d.pc)
            .map_or((0, 0), |c| (c.count, c.active_lanes));
        let bytes = if d.cost.bytes_per_wave {
            count * u64::from(d.cost.bytes)
        } else {
            active_lanes * u64::from(d.cost.bytes)
        };
        let cycles = count * u64::from(d.cost.issue);
        issue_total += cycles;
        latency_total += count * u64::from(d.cost.latency);
        if cycles != 0 {
            *by_class.entry(d.cost.class.name().to_string()).or_default() += cycles;
        }
        rows.push(InstRow {
            pc: off(d.pc),
            text: d.text.clone(),
            count,
            active_lanes,
            bytes,
            class: d.cost.class.name().to_string(),
            issue: d.cost.issue,
            latency: d.cost.latency,
            cycles,
        });
    }
    // Leaders: the entry, branch targets, instructions after a block's end, instructions
    // not directly after the previous one, and instructions executed more or less often
    // than the one before (which does not end a block): control entered there from
    // elsewhere, e.g. by `s_setpc`/`s_swappc` to a computed address.
    let targets: BTreeSet<u64> = decoded.iter().filter_map(|d| d.target).collect();
    let mut blocks: Vec<BlockRow> = Vec::new();
    for (i, d) in decoded.iter().enumerate() {
        let leader = i == 0
            || d.pc == facts.entry
            || targets.contains(&d.pc)
            || decoded[i - 1].ends_block
            || decoded[i - 1].pc + decoded[i - 1].size != d.pc
            || rows[i - 1].count != rows[i].count;
        let r = &rows[i];
        if leader {
            blocks.push(BlockRow {
                pc: r.pc,
                end: r.pc,
                insts: 0,
                count: r.count,
                wave_insts: 0,
                active_lanes: 0,
                bytes: 0,
                cycles: 0,
            });
        }
        if let Some(b) = blocks.last_mut() {
            b.end = r.pc + d.size as i64;
            b.insts += 1;
            b.wave_insts += r.count;
            b.active_lanes += r.active_lanes;
            b.bytes += r.bytes;
            b.cycles += r.cycles;
        }
    }
    let per_wave = |x: u64| {
        if facts.waves == 0 {
            0.0
        } else {
            x as f64 / facts.waves as f64
        }
    };
    Profile {
        version: PROFILE_VERSION,
        kernel: facts.kernel.clone(),
        target: t.gpu.to_string(),
        wave_size: t.wave_size,
        grid: facts.grid,
        block: facts.block,
        workgroups: facts.workgroups,
        waves: facts.waves,
        interrupted: facts.interrupted,
        estimate: Estimate {
            model: COST_MODEL.to_string(),
            issue_cycles: issue_total,
            latency_cycles: latency_total,
            issue_cycles_per_wave: per_wave(issue_total),
            latency_cycles_per_wave: per_wave(latency_total),
            issue_cycles_by_class: by_class,
        },
        instructions: rows,
        blocks,
    }
}

impl Profile {
    /// The profile as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| format!("{{\"error\": \"cannot serialise the profile: {e}\"}}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavejit_translator::isa::Gpu;

    struct Words(Vec<u8>);
    impl CodeSource for Words {
        fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
            self.0.get(usize::try_from(pc.checked_sub(0x1000)?).ok()?..)
        }
    }

    /// A count that changes between two instructions with no branch between them starts a
    /// block there (control entered from elsewhere, e.g. a computed `s_setpc`).
    #[test]
    fn count_changes_start_blocks() {
        // s_mov_b32 s0, 0; s_mov_b32 s1, 0; s_endpgm (gfx942 words from llvm-mc-22).
        let words: Vec<u8> = [0xbe80_0080u32, 0xbe81_0080, 0xbf81_0000]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let facts = LaunchFacts {
            kernel: "k".into(),
            target: Target::new(Gpu::GFX942),
            entry: 0x1000,
            size: Some(12),
            grid: [1, 1, 1],
            block: [64, 1, 1],
            workgroups: 1,
            waves: 2,
            interrupted: false,
        };
        let c = |pc, count| PcCount {
            pc,
            count,
            active_lanes: 64 * count,
        };
        let p = build(
            &Words(words),
            &facts,
            &[c(0x1000, 1), c(0x1004, 2), c(0x1008, 2)],
        );
        let blocks: Vec<(i64, i64, u64, u64)> = p
            .blocks
            .iter()
            .map(|b| (b.pc, b.end, b.count, b.wave_insts))
            .collect();
        assert_eq!(blocks, [(0, 4, 1, 1), (4, 12, 2, 4)]);
        assert_eq!(p.instructions[1].text, "s_mov_b32 s1, 0");
        // Every instruction issues in 4 cycles on CDNA: 5 executions.
        assert_eq!(p.estimate.issue_cycles, 20);
        assert_eq!(p.estimate.issue_cycles_per_wave, 10.0);
    }
}
