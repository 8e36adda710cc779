//! Coverage as a test: every gfx942 and gfx950 opcode either lifts or is listed in
//! `tests/coverage_unsupported.txt` with a reason, and the list names nothing that lifts.
//!
//! "Lifts" is measured by lifting the opcode's canonical instructions from the decoder oracle
//! (`gen/*_cases.txt`, LLVM's disassembly) through `lift_block` (see `lift::coverage`).

use std::collections::{BTreeMap, HashSet};

use wavejit_translator::isa::generated::{TARGET_GFX942, TARGET_GFX950};
use wavejit_translator::isa::{decode, Gpu, Op, Target};
use wavejit_translator::lift::coverage::{
    base_mnemonic, canonical_cases, lift_one, listed_reason, support_on, try_lift,
    unsupported_list, Support, UNLISTED,
};

/// The corpus mnemonics: `count mnemonic` per line.
const CORPUS_MNEMONICS: &str = include_str!("../../../../tests/kernels/gfx942/mnemonics.txt");

/// Checks every opcode of `target` against the list; returns the problems found and prints
/// the coverage summary.
fn check_target(name: &str, target: &Target, bit: u8) -> Vec<String> {
    let mut problems = Vec::new();
    let mut lifted = 0usize;
    let mut partial = Vec::new();
    let mut partial_cases = 0usize;
    let mut by_reason: BTreeMap<&'static str, Vec<&'static str>> = BTreeMap::new();
    let ops: Vec<Op> = Op::ALL
        .iter()
        .copied()
        .filter(|op| op.targets() & bit != 0)
        .collect();
    for &op in &ops {
        // The oracle cases found for an opcode must decode to that opcode, or the
        // mnemonic matching in `canonical_cases` is wrong.
        for (bytes, text) in canonical_cases(target, op) {
            match decode(target, &bytes, 0x1000) {
                Ok(inst) if inst.op == op => {}
                Ok(inst) => problems.push(format!(
                    "{name}: case `{text}` of {} decodes as {}",
                    op.name(),
                    inst.op.name()
                )),
                Err(e) => problems.push(format!("{name}: case `{text}` does not decode: {e}")),
            }
        }
        // Informational: oracle cases (other encodings or operand forms) of an opcode that
        // lifts, which themselves do not lift.
        let cases = canonical_cases(target, op);
        let failing: Vec<&str> = cases
            .iter()
            .filter(|(bytes, _)| lift_one(target, bytes).is_err())
            .map(|(_, text)| *text)
            .collect();
        if !failing.is_empty() && failing.len() < cases.len() {
            partial.push(failing[0]);
            partial_cases += failing.len();
        }
        let listed = listed_reason(target, op.name());
        match (try_lift(target, op), listed) {
            (Ok(()), None) => lifted += 1,
            (Ok(()), Some(reason)) => {
                lifted += 1;
                problems.push(format!(
                    "{name}: {} lifts but is listed as unsupported ({reason})",
                    op.name()
                ));
            }
            (Err(why), None) => {
                problems.push(format!(
                    "{name}: {} does not lift and is not listed: {why}",
                    op.name()
                ));
                by_reason.entry(UNLISTED).or_default().push(op.name());
            }
            (Err(_), Some(reason)) => by_reason.entry(reason).or_default().push(op.name()),
        }
    }
    let total = ops.len();
    let pct = |n: usize| 100.0 * n as f64 / total.max(1) as f64;
    println!(
        "{name}: {total} opcodes, {lifted} lifted ({:.1}%), {} unsupported ({:.1}%)",
        pct(lifted),
        total - lifted,
        pct(total - lifted)
    );
    println!(
        "  ({} lifted opcodes have {partial_cases} oracle cases that do not lift, e.g. {:?})",
        partial.len(),
        &partial[..partial.len().min(8)]
    );
    let mut reasons: Vec<_> = by_reason.iter().collect();
    reasons.sort_by_key(|(r, ops)| (std::cmp::Reverse(ops.len()), **r));
    for (reason, ops) in reasons {
        println!("  {:4} {:5.1}%  {reason}", ops.len(), pct(ops.len()));
    }
    problems
}

#[test]
fn every_opcode_lifts_or_is_listed() {
    let mut problems = Vec::new();
    problems.extend(check_target(
        "gfx942",
        &Target::new(Gpu::GFX942),
        TARGET_GFX942,
    ));
    problems.extend(check_target(
        "gfx950",
        &Target::new(Gpu::GFX950),
        TARGET_GFX950,
    ));
    for p in &problems {
        eprintln!("{p}");
    }
    assert!(problems.is_empty(), "{} coverage problems", problems.len());
}

#[test]
fn unsupported_list_is_well_formed() {
    let mut seen = HashSet::new();
    let mut problems = Vec::new();
    for (mnemonic, reason) in unsupported_list() {
        let (base, qualifier) = match mnemonic.split_once('@') {
            Some((b, q)) => (b, Some(q)),
            None => (mnemonic, None),
        };
        let bit = match qualifier {
            None => TARGET_GFX942 | TARGET_GFX950,
            Some("gfx942") => TARGET_GFX942,
            Some("gfx950") => TARGET_GFX950,
            Some(q) => {
                problems.push(format!("{mnemonic}: unknown target {q}"));
                0
            }
        };
        if Op::from_name(base).is_none_or(|op| op.targets() & bit == 0) {
            problems.push(format!("{mnemonic}: not an opcode of its target(s)"));
        }
        if reason.is_empty() {
            problems.push(format!("{mnemonic}: no reason given"));
        }
        if !seen.insert(mnemonic) {
            problems.push(format!("{mnemonic}: listed twice"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn support_agrees_with_the_list() {
    // One opcode that lifts and one that is listed, on each target (spot check of the public
    // entry point; `every_opcode_lifts_or_is_listed` covers all opcodes).
    let gfx942 = Target::new(Gpu::GFX942);
    assert_eq!(support_on(&gfx942, Op::V_ADD_F32), Support::Lifted);
    assert_eq!(
        wavejit_translator::lift::coverage::support(Op::S_LOAD_DWORD),
        Support::Lifted
    );
    if let Some((mnemonic, reason)) = unsupported_list().find(|(m, _)| !m.contains('@')) {
        let op = Op::from_name(mnemonic).expect("listed opcode");
        assert_eq!(
            wavejit_translator::lift::coverage::support(op),
            Support::Unsupported(reason)
        );
    }
}

#[test]
fn corpus_mnemonics_lift() {
    let target = Target::new(Gpu::GFX942);
    let mut problems = Vec::new();
    let mut count = 0;
    for line in CORPUS_MNEMONICS.lines() {
        let Some(mnemonic) = line.split_whitespace().nth(1) else {
            continue;
        };
        count += 1;
        let Some(op) = Op::from_name(base_mnemonic(mnemonic)) else {
            problems.push(format!("{mnemonic}: no such opcode"));
            continue;
        };
        if let Err(why) = try_lift(&target, op) {
            problems.push(format!("{mnemonic}: {why}"));
        }
    }
    assert!(count > 100, "only {count} corpus mnemonics read");
    assert!(problems.is_empty(), "{problems:#?}");
}
