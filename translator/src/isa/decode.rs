//! Decoding and disassembly entry points: dispatch on the target's family.

use super::{Family, Inst, Target};
use core::fmt::Write as _;
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

impl DecodeError {
    /// An error for the instruction at `pc` whose first bytes are `bytes` (at most 16 shown).
    ///
    /// Cold and out of line: decoding valid code never gets here, and keeping error
    /// formatting out of the decoders' hot paths is part of their speed.
    #[cold]
    #[inline(never)]
    pub fn new(bytes: &[u8], pc: u64, reason: impl Into<String>) -> DecodeError {
        let mut s = String::new();
        for (i, chunk) in bytes[..bytes.len().min(16)].chunks(4).enumerate() {
            if i > 0 {
                s.push(' ');
            }
            if chunk.len() == 4 {
                let w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                let _ = write!(s, "{w:08X}");
            } else {
                for b in chunk {
                    let _ = write!(s, "{b:02x}");
                }
            }
        }
        if s.is_empty() {
            s.push_str("no bytes");
        }
        DecodeError {
            pc,
            bytes: s,
            reason: reason.into(),
        }
    }
}

/// Decodes the instruction at the start of `bytes`, located at address `pc`.
///
/// Never reads past `bytes`: a truncated instruction is an error. A convenience form of
/// [`decode_into`]; loops over many instructions should reuse one [`Inst`] with that.
#[inline]
pub fn decode(target: &Target, bytes: &[u8], pc: u64) -> Result<Inst, DecodeError> {
    let mut inst = Inst::default();
    decode_into(target, bytes, pc, &mut inst)?;
    Ok(inst)
}

/// Decodes the instruction at the start of `bytes`, located at address `pc`, into `inst`
/// (overwritten entirely, whatever it held; left unspecified on error).
///
/// The fast form of [`decode`]: the instruction is built in place, with no copies of the
/// (large) [`Inst`] on the way out. Never reads past `bytes`.
#[inline]
pub fn decode_into(
    target: &Target,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    match target.gpu.family() {
        Some(Family::Gfx9) => super::gfx9::decode_into(target, bytes, pc, inst),
        Some(Family::Gfx11 | Family::Gfx12) => super::rdna::decode_into(target, bytes, pc, inst),
        None => Err(no_decoder(target, bytes, pc)),
    }
}

/// The error for a GPU without a decoder (out of line: keeps [`decode_into`] small).
#[cold]
#[inline(never)]
fn no_decoder(target: &Target, bytes: &[u8], pc: u64) -> DecodeError {
    DecodeError::new(bytes, pc, format!("no decoder for {}", target.gpu))
}

/// Prints `inst` (at address `pc`) exactly as llvm-objdump-22 prints its mnemonic and operands.
pub fn disassemble(target: &Target, inst: &Inst, pc: u64) -> String {
    match target.gpu.family() {
        Some(Family::Gfx9) => super::gfx9::print::print(target, inst, pc),
        Some(Family::Gfx11 | Family::Gfx12) => super::rdna::print::print(target, inst, pc),
        None => format!("{:?}", inst.op),
    }
}
