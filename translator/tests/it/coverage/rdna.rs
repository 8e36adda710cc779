//! Coverage as a test for RDNA: every gfx1100 and gfx1200/gfx1201 opcode either lifts or is
//! listed in `tests/coverage_unsupported_rdna.txt` with a reason, and the list names nothing
//! that lifts.
//!
//! "Lifts" is measured on the decoder oracle (`gen/gfx1100_cases.txt`, `gen/gfx1200_cases.txt`:
//! instruction bytes and LLVM 22's text): an opcode lifts when one of its oracle instructions,
//! decoded for wave32, lifts as the first instruction of a block. Cases are attributed to
//! opcodes by decoding them (the RDNA mnemonics carry many encoding suffixes). The wave64
//! oracle files (`*_w64_cases.txt`) are lifted too and reported (VOPD does not exist there).

use std::collections::{BTreeMap, HashMap, HashSet};

use wavejit_translator::isa::generated::{TARGET_GFX1100, TARGET_GFX1200, TARGET_GFX1201};
use wavejit_translator::isa::{decode, Gpu, Op, Target};
use wavejit_translator::lift::coverage::lift_one;

/// Opcodes that do not lift, with the reason: `mnemonic[@target]<TAB>reason` per line.
const UNSUPPORTED: &str = include_str!("../../coverage_unsupported_rdna.txt");
const GFX1100_CASES: &str = include_str!("../../../gen/gfx1100_cases.txt");
const GFX1100_W64_CASES: &str = include_str!("../../../gen/gfx1100_w64_cases.txt");
const GFX1200_CASES: &str = include_str!("../../../gen/gfx1200_cases.txt");
const GFX1200_W64_CASES: &str = include_str!("../../../gen/gfx1200_w64_cases.txt");

/// `(bytes, LLVM text)` of every oracle line.
fn cases(text: &'static str) -> Vec<(Vec<u8>, &'static str)> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((hex, asm)) = line.split_once(" | ") else {
            continue;
        };
        let bytes: Option<Vec<u8>> = hex
            .split_whitespace()
            .map(|w| u32::from_str_radix(w, 16).ok().map(u32::to_le_bytes))
            .collect::<Option<Vec<_>>>()
            .map(|ws| ws.concat());
        if let Some(b) = bytes.filter(|b| !b.is_empty()) {
            out.push((b, asm.trim()));
        }
    }
    out
}

/// The list entries as `(mnemonic, target qualifier, reason)`.
fn entries() -> Vec<(&'static str, Option<&'static str>, &'static str)> {
    UNSUPPORTED
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (m, r) = l.split_once('\t').unwrap_or((l, ""));
            let (m, q) = match m.trim().split_once('@') {
                Some((m, q)) => (m, Some(q)),
                None => (m.trim(), None),
            };
            (m, q, r.trim())
        })
        .collect()
}

/// The reason the list gives for `mnemonic` on the target named `tname` (gfx1201 uses the
/// gfx1200 entries).
fn listed(tname: &str, mnemonic: &str) -> Option<&'static str> {
    let t = if tname == "gfx1201" { "gfx1200" } else { tname };
    entries()
        .into_iter()
        .find(|(m, q, _)| *m == mnemonic && q.is_none_or(|q| q == t))
        .map(|(_, _, r)| r)
}

/// Lift outcome per opcode: `Ok` if some case lifts, else the first reason.
fn outcomes(target: &Target, cs: &[(Vec<u8>, &'static str)]) -> HashMap<Op, Result<(), String>> {
    let mut out: HashMap<Op, Result<(), String>> = HashMap::new();
    for (bytes, text) in cs {
        let Ok(inst) = decode(target, bytes, 0x1000) else {
            continue;
        };
        // A VOPD case counts for its X opcode and for its Y opcode (`... :: v_dual_y ...`).
        let y = text
            .split_once("::")
            .and_then(|(_, y)| y.split_whitespace().next())
            .and_then(Op::from_name);
        for op in std::iter::once(inst.op).chain(y) {
            if matches!(out.get(&op), Some(Ok(()))) {
                continue;
            }
            let r = lift_one(target, bytes);
            match (out.get(&op), r) {
                (_, Ok(())) => {
                    out.insert(op, Ok(()));
                }
                (None, Err(e)) => {
                    out.insert(op, Err(e));
                }
                (Some(_), Err(_)) => {}
            }
        }
    }
    out
}

/// Checks every opcode of the target against the list; prints the coverage summary.
fn check_target(
    tname: &str,
    gpu: Gpu,
    bit: u8,
    cs: &'static str,
    w64: &'static str,
) -> Vec<String> {
    let mut problems = Vec::new();
    let t32 = Target { gpu, wave_size: 32 };
    let t64 = Target { gpu, wave_size: 64 };
    let res = outcomes(&t32, &cases(cs));
    let ops: Vec<Op> = Op::ALL
        .iter()
        .copied()
        .filter(|op| op.targets() & bit != 0)
        .collect();
    let mut lifted = 0;
    let mut by_reason: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for &op in &ops {
        let r = res
            .get(&op)
            .cloned()
            .unwrap_or_else(|| Err("no oracle case decodes to it".into()));
        match (r, listed(tname, op.name())) {
            (Ok(()), None) => lifted += 1,
            (Ok(()), Some(reason)) => {
                lifted += 1;
                problems.push(format!(
                    "{tname}: {} lifts but is listed as unsupported ({reason})",
                    op.name()
                ));
            }
            (Err(why), None) => problems.push(format!(
                "{tname}: {} does not lift and is not listed: {why}",
                op.name()
            )),
            (Err(_), Some(reason)) => by_reason.entry(reason).or_default().push(op.name()),
        }
    }
    let total = ops.len();
    let pct = |n: usize| 100.0 * n as f64 / total.max(1) as f64;
    println!(
        "{tname}: {total} opcodes, {lifted} lifted ({:.1}%), {} unsupported ({:.1}%)",
        pct(lifted),
        total - lifted,
        pct(total - lifted)
    );
    let mut reasons: Vec<_> = by_reason.iter().collect();
    reasons.sort_by_key(|(r, o)| (std::cmp::Reverse(o.len()), **r));
    for (reason, o) in reasons {
        println!("  {:4} {:5.1}%  {reason}", o.len(), pct(o.len()));
    }
    // Wave64: the same opcodes lift there (VOPD excepted, which wave64 does not have).
    let res64 = outcomes(&t64, &cases(w64));
    let n64 = res64.len();
    let ok64 = res64.values().filter(|r| r.is_ok()).count();
    println!("  wave64 oracle: {ok64} of {n64} opcodes with cases lift");
    for (op, r) in &res64 {
        if r.is_err() && matches!(res.get(op), Some(Ok(()))) {
            problems.push(format!(
                "{tname} wave64: {} lifts in wave32 but not in wave64: {}",
                op.name(),
                r.as_ref().err().map_or("", |e| e.as_str())
            ));
        }
    }
    problems
}

#[test]
fn every_rdna_opcode_lifts_or_is_listed() {
    let mut problems = Vec::new();
    problems.extend(check_target(
        "gfx1100",
        Gpu::GFX1100,
        TARGET_GFX1100,
        GFX1100_CASES,
        GFX1100_W64_CASES,
    ));
    problems.extend(check_target(
        "gfx1200",
        Gpu::GFX1200,
        TARGET_GFX1200,
        GFX1200_CASES,
        GFX1200_W64_CASES,
    ));
    problems.extend(check_target(
        "gfx1201",
        Gpu::GFX1201,
        TARGET_GFX1201,
        GFX1200_CASES,
        GFX1200_W64_CASES,
    ));
    for p in &problems {
        eprintln!("{p}");
    }
    assert!(problems.is_empty(), "{} coverage problems", problems.len());
}

#[test]
fn rdna_unsupported_list_is_well_formed() {
    let mut seen = HashSet::new();
    let mut problems = Vec::new();
    for (m, q, reason) in entries() {
        let bit = match q {
            None => TARGET_GFX1100 | TARGET_GFX1200,
            Some("gfx1100") => TARGET_GFX1100,
            Some("gfx1200") => TARGET_GFX1200,
            Some(other) => {
                problems.push(format!("{m}@{other}: unknown target"));
                0
            }
        };
        if Op::from_name(m).is_none_or(|op| op.targets() & bit == 0) {
            problems.push(format!("{m}: not an opcode of its target(s)"));
        }
        if reason.is_empty() {
            problems.push(format!("{m}: no reason given"));
        }
        if !seen.insert((m, q)) {
            problems.push(format!("{m}: listed twice"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
