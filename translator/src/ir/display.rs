//! Text form of IR blocks, for debugging and test failure messages.

use super::{Block, Op};
use core::fmt;

impl fmt::Display for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "block {:#x}..{:#x} ({} insts, wave{}):",
            self.start_pc, self.end_pc, self.inst_count, self.wave_size
        )?;
        for (i, op) in self.ops.iter().enumerate() {
            match (self.types[i], op) {
                (Some(t), op) => writeln!(f, "  %{i}: {t:?} = {op:?}")?,
                (None, op) => writeln!(f, "  {op:?}")?,
            }
        }
        writeln!(f, "  exit {:?}", self.exit)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}
