//! Lifter coverage: which semantic opcodes [`lift_block`](super::lift_block) handles.
//!
//! Coverage is measured, not declared: an opcode counts as lifted when one of its canonical
//! instructions from the decoder oracle (`gen/gfx942_cases.txt`, `gen/gfx950_cases.txt`:
//! instruction bytes and LLVM's text, generated from LLVM's disassembler) lifts as the first
//! instruction of a block, i.e. the block does not end in [`Exit::Unsupported`] at its start.
//! The reasons for the opcodes that do not lift come from the checked-in list
//! `tests/coverage_unsupported.txt` (`mnemonic<TAB>reason`); the `lift_coverage` test keeps
//! that list exact in both directions.
//!
//! The oracle files are embedded (about 0.7 MB, linked only where these functions are used)
//! and scanned on every query: this module is for tests and reports, not for hot paths.

use crate::env::CodeSource;
use crate::ir::Exit;
use crate::isa::generated::{TARGET_GFX942, TARGET_GFX950};
use crate::isa::{Gpu, Op, Target};

/// The decoder oracle of gfx942: `hex words | LLVM text` per line.
static GFX942_CASES: &str = include_str!("../../gen/gfx942_cases.txt");
/// The decoder oracle of gfx950.
static GFX950_CASES: &str = include_str!("../../gen/gfx950_cases.txt");
/// Opcodes that do not lift, with the reason: `mnemonic<TAB>reason` per line.
static UNSUPPORTED: &str = include_str!("../../tests/coverage_unsupported.txt");

/// Reason reported for an opcode that neither lifts nor appears in the unsupported list.
pub const UNLISTED: &str = "not lifted and not listed in tests/coverage_unsupported.txt";

/// MODE used for the coverage lifts: that of HIP/OpenCL kernels (round to nearest-even,
/// f32 and f64/f16 denormals kept, DX10_CLAMP and IEEE set).
const COVERAGE_MODE: u32 = 0x3f0;

/// Address at which a canonical instruction is placed for lifting.
const CASE_PC: u64 = 0x1000;

/// Whether the lifter handles an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// A canonical instruction of the opcode lifts.
    Lifted,
    /// No canonical instruction of the opcode lifts; the reason comes from
    /// `tests/coverage_unsupported.txt` ([`UNLISTED`] when the opcode is missing there).
    Unsupported(&'static str),
}

/// Whether the lifter handles `op`, on gfx942 when the opcode exists there, else on gfx950.
pub fn support(op: Op) -> Support {
    let gpu = if op.targets() & TARGET_GFX942 != 0 {
        Gpu::GFX942
    } else {
        Gpu::GFX950
    };
    support_on(&Target::new(gpu), op)
}

/// Whether the lifter handles `op` on `target` (gfx942 or gfx950).
pub fn support_on(target: &Target, op: Op) -> Support {
    match try_lift(target, op) {
        Ok(()) => Support::Lifted,
        Err(_) => Support::Unsupported(listed_reason(target, op.name()).unwrap_or(UNLISTED)),
    }
}

/// The reason `tests/coverage_unsupported.txt` gives for `mnemonic` (a base mnemonic, see
/// [`Op::name`]) on `target`, if it lists it: an entry `mnemonic` applies to every target,
/// `mnemonic@gfx950` only to that one.
pub fn listed_reason(target: &Target, mnemonic: &str) -> Option<&'static str> {
    let qualified = format!("{mnemonic}@gfx{:x}", target.gpu.id);
    unsupported_list()
        .find(|(m, _)| *m == mnemonic || *m == qualified)
        .map(|(_, r)| r)
}

/// The entries of `tests/coverage_unsupported.txt` as `(mnemonic, reason)`, skipping blank
/// lines and `#` comments; a line without a tab yields an empty reason. The mnemonic may carry
/// a target qualifier (`@gfx950`).
pub fn unsupported_list() -> impl Iterator<Item = (&'static str, &'static str)> {
    UNSUPPORTED
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once('\t') {
            Some((m, r)) => (m.trim(), r.trim()),
            None => (l.trim(), ""),
        })
}

/// The canonical instructions of `op` on `target`: each as its instruction bytes and LLVM's
/// text. Empty for a target other than gfx942/gfx950 or an opcode without oracle cases.
pub fn canonical_cases(target: &Target, op: Op) -> Vec<(Vec<u8>, &'static str)> {
    let (cases, bit) = match target.gpu {
        Gpu::GFX942 => (GFX942_CASES, TARGET_GFX942),
        Gpu::GFX950 => (GFX950_CASES, TARGET_GFX950),
        _ => return Vec::new(),
    };
    if op.targets() & bit == 0 {
        return Vec::new();
    }
    let name = op.name();
    let mut out = Vec::new();
    for line in cases.lines().filter(|l| !l.starts_with('#')) {
        let Some((hex, text)) = line.split_once(" | ") else {
            continue;
        };
        let text = text.trim();
        let mnemonic = text.split_whitespace().next().unwrap_or("");
        if base_mnemonic(mnemonic) != name {
            continue;
        }
        let mut bytes = Vec::new();
        let mut valid = true;
        for word in hex.split_whitespace() {
            match u32::from_str_radix(word, 16) {
                Ok(w) => bytes.extend_from_slice(&w.to_le_bytes()),
                Err(_) => valid = false,
            }
        }
        if valid && !bytes.is_empty() {
            out.push((bytes, text));
        }
    }
    out
}

/// `mnemonic` without its encoding suffix (`_e32`, `_e64`, `_dpp`, `_sdwa`): the spelling of
/// [`Op::name`].
pub fn base_mnemonic(mnemonic: &str) -> &str {
    ["_e32", "_e64", "_dpp", "_sdwa"]
        .iter()
        .find_map(|s| mnemonic.strip_suffix(s))
        .unwrap_or(mnemonic)
}

/// Lifts the canonical instructions of `op` on `target` until one lifts. `Err` carries the
/// lifter's reason for the first case that failed, or says that there is no case.
pub fn try_lift(target: &Target, op: Op) -> Result<(), String> {
    let mut first_err = None;
    for (bytes, _) in canonical_cases(target, op) {
        // The lifter's reason already names the instruction.
        match lift_one(target, &bytes) {
            Ok(()) => return Ok(()),
            Err(why) => {
                first_err.get_or_insert(why);
            }
        }
    }
    Err(first_err.unwrap_or_else(|| format!("no canonical instruction of {}", op.name())))
}

/// Lifts the instruction in `bytes` as the start of a block: `Ok` unless the block is the
/// empty one that ends in [`Exit::Unsupported`] at its first instruction.
pub fn lift_one(target: &Target, bytes: &[u8]) -> Result<(), String> {
    let code = OneInst(bytes);
    let block = super::lift_block(target, &code, CASE_PC, COVERAGE_MODE);
    match block.exit {
        Exit::Unsupported { pc, reason } if pc == CASE_PC => Err(reason),
        _ => Ok(()),
    }
}

/// Code made of one instruction at [`CASE_PC`].
struct OneInst<'a>(&'a [u8]);

impl CodeSource for OneInst<'_> {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        let off = usize::try_from(pc.checked_sub(CASE_PC)?).ok()?;
        self.0.get(off..).filter(|b| !b.is_empty())
    }
}
