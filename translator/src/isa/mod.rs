//! Instruction-set support: targets, the decoded-instruction model, decoders and the
//! LLVM-syntax disassembler.
//!
//! The decoder turns instruction words into [`Inst`]s. An `Inst` names its *semantic* opcode
//! ([`Op`], shared by every encoding of one mnemonic: `v_add_f32_e32`, `_e64`, `_dpp` and
//! `_sdwa` are all `Op::V_ADD_F32`) and carries operands in one uniform code space
//! ([`Opnd`]), so the lifter handles each instruction once, whatever its encoding.

pub mod inst;
pub mod target;

pub use inst::*;
pub use target::*;

pub mod decode;
mod error;
pub mod generated;
pub mod gfx9;
pub mod rdna;
mod syntax;

pub use decode::{decode, decode_into, disassemble, DecodeError};
