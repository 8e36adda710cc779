//! Structured fault reports: where a launch stopped and why.
//!
//! The first fault of a launch stops it (other host threads stop taking workgroups). A report
//! names the kernel, the workgroup, the wave within it, the lane when the cause is per lane,
//! the pc relative to the code object's vaddrs (as `wavejit disasm` prints it), the
//! instruction's text and the cause.

use std::fmt;

use serde::Serialize;
use wavejit_translator::env::{CodeSource, ExecFault, MemError};
use wavejit_translator::isa::{decode, disassemble, Target};

/// Everything known about the first fault of a launch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FaultReport {
    /// Kernel name.
    pub kernel: String,
    /// Workgroup id (x, y, z).
    pub workgroup: [u32; 3],
    /// Wave index within the workgroup.
    pub wave: u32,
    /// Faulting lane, when the cause is per lane.
    pub lane: Option<u32>,
    /// Address of the faulting instruction as a code-object vaddr.
    pub pc: u64,
    /// The instruction's disassembly (or why it has none).
    pub instruction: String,
    /// What went wrong.
    pub cause: String,
}

impl fmt::Display for FaultReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.workgroup;
        write!(
            f,
            "kernel {} faulted in workgroup ({x},{y},{z}) wave {}",
            self.kernel, self.wave
        )?;
        if let Some(l) = self.lane {
            write!(f, " lane {l}")?;
        }
        write!(
            f,
            " at pc {:#x}: {}: {}",
            self.pc, self.instruction, self.cause
        )
    }
}

/// The lane an execution fault names, if any.
pub fn fault_lane(e: &ExecFault) -> Option<u32> {
    match e {
        ExecFault::Memory(MemError::OutOfRange { lane, .. })
        | ExecFault::Memory(MemError::Misaligned { lane, .. }) => Some(*lane),
        _ => None,
    }
}

/// The LLVM-syntax text of the instruction at device address `pc`, or a note saying why
/// there is none (pc outside the code, undecodable bytes).
pub fn instruction_text(target: &Target, code: &dyn CodeSource, pc: u64) -> String {
    let Some(bytes) = code.bytes_at(pc) else {
        return "<pc outside the code object's executable code>".into();
    };
    match decode(target, bytes, pc) {
        Ok(inst) => disassemble(target, &inst, pc),
        Err(_) => {
            let words: Vec<String> = bytes
                .chunks_exact(4)
                .take(2)
                .map(|w| format!("{:08X}", u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
                .collect();
            format!("<undecodable: {}>", words.join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_matches_the_api_format() {
        let mut r = FaultReport {
            kernel: "vadd".into(),
            workgroup: [3, 0, 1],
            wave: 2,
            lane: Some(17),
            pc: 0x1944,
            instruction: "global_load_dword v6, v[4:5], off".into(),
            cause: "out-of-range Global access".into(),
        };
        assert_eq!(
            r.to_string(),
            "kernel vadd faulted in workgroup (3,0,1) wave 2 lane 17 at pc 0x1944: \
             global_load_dword v6, v[4:5], off: out-of-range Global access"
        );
        r.lane = None;
        assert!(r.to_string().contains("wave 2 at pc 0x1944"));
    }

    #[test]
    fn lanes_come_from_memory_faults_only() {
        let m = ExecFault::Memory(MemError::OutOfRange {
            space: wavejit_translator::env::Space::Global,
            addr: 0,
            size: 4,
            lane: 9,
        });
        assert_eq!(fault_lane(&m), Some(9));
        assert_eq!(fault_lane(&ExecFault::Runaway(5)), None);
    }
}
