//! Decoding entry points (PLACEHOLDER: filled in by the decoder work).

use super::{Inst, Target};
use thiserror::Error;

/// A word sequence that is not a valid instruction for the target.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("cannot decode instruction at {pc:#x} ({bytes}): {reason}")]
pub struct DecodeError {
    /// Address of the first byte.
    pub pc: u64,
    /// The bytes looked at, as hex words.
    pub bytes: String,
    /// Why.
    pub reason: String,
}

/// Decodes the instruction at the start of `bytes`, located at address `pc`.
pub fn decode(target: &Target, bytes: &[u8], pc: u64) -> Result<Inst, DecodeError> {
    let _ = target;
    Err(DecodeError {
        pc,
        bytes: format!("{:02x?}", &bytes[..bytes.len().min(8)]),
        reason: "decoder not built yet".into(),
    })
}

/// Prints `inst` (at address `pc`) exactly as llvm-objdump-22 prints its mnemonic and operands.
pub fn disassemble(target: &Target, inst: &Inst, pc: u64) -> String {
    let _ = (target, pc);
    format!("{:?}", inst.op)
}
