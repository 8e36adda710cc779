//! Decoding and disassembly entry points: dispatch on the target's family.

pub use super::error::DecodeError;
use super::{Family, Inst, Target};

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
