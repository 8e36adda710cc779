//! The decoders' error: bytes that are not a valid instruction for the target.

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
