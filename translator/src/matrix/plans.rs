//! The owner of every matrix [`Plan`]: the lifter plans an instruction here and carries
//! the [`PlanId`] handle in the IR ([`crate::ir::MatrixCall`]); the interpreter and the
//! JIT resolve it with [`get`].
//!
//! Plans are immutable and interned: one instruction (opcode, registers, controls,
//! modifiers) is planned once per process however many blocks, copies of blocks, engines
//! or translators use it, and its plan lives until the process ends. Compiled code can
//! therefore hold plain pointers into a plan (its fused kernels, the pair and group
//! descriptors of its neighbours) without keeping anything alive, and dropping IR frees
//! nothing that code points to. The table grows with the number of *distinct* matrix
//! instructions lifted (a few KiB each), not with blocks or launches.

use super::mfma::{Controls, MatrixError, Operands, Plan, Scales};
use super::shape::MatrixOp;
use super::wmma::{self, Wmma};
use crate::ir::PlanId;
use std::collections::HashMap;
use std::sync::{OnceLock, PoisonError, RwLock};

/// One scale operand of a block-scaled MFMA: a VGPR or a constant, and the byte of each
/// lane's 32-bit value that holds the scale (`{OP_SEL_HI[n], OP_SEL[n]}`, CDNA4 ISA 7.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScaleSrc {
    /// `Some(slot)` for a VGPR, else the constant in `value`.
    pub reg: Option<u16>,
    /// The constant's 32-bit value (when `reg` is `None`).
    pub value: u32,
    /// Byte select, 0..=3.
    pub byte: u8,
}

/// What a plan is built from: everything the instruction's encoding says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlanKey {
    /// A CDNA MFMA/SMFMAC ([`Plan::new`]); `scale` for the block-scaled forms.
    Mfma {
        /// Shape and types.
        op: MatrixOp,
        /// Register operands.
        opnds: Operands,
        /// CBSZ, ABID and BLGP (`mode` is ignored: the wave's MODE applies).
        ctl: Controls,
        /// A's and B's E8M0 scale sources.
        scale: Option<[ScaleSrc; 2]>,
    },
    /// An RDNA WMMA/SWMMAC ([`wmma::plan`]).
    Wmma {
        /// Shape and types.
        op: MatrixOp,
        /// Wave size and modifiers.
        w: Wmma,
        /// Register operands.
        opnds: Operands,
    },
}

/// A planned instruction: its [`Plan`] and, for block-scaled MFMAs, where the scale bytes
/// come from.
#[derive(Debug)]
pub struct Planned {
    /// Every element's location, the fast paths and the fused kernel.
    pub plan: Plan,
    /// A's and B's scale sources (block-scaled MFMA only).
    pub scale: Option<[ScaleSrc; 2]>,
}

impl Planned {
    /// Executes the instruction on a wave's register file with its MODE, the scale bytes
    /// read from the registers first (both engines run matrix ops through this).
    pub fn run(
        &self,
        isa: super::gemm::Isa,
        regs: &mut [[u32; 64]],
        mode: u32,
    ) -> Result<(), MatrixError> {
        let scales = self.scale.map(|[a, b]| {
            let bytes = |s: ScaleSrc| -> [u8; 64] {
                core::array::from_fn(|lane| {
                    let v = match s.reg {
                        Some(r) => regs.get(r as usize).map_or(0, |v| v[lane]),
                        None => s.value,
                    };
                    (v >> (8 * (s.byte & 3))) as u8
                })
            };
            Scales {
                a: bytes(a),
                b: bytes(b),
            }
        });
        self.plan.run(isa, regs, mode, scales.as_ref())
    }
}

/// The interned plans: a handle is an index into `plans`, whose entries are never freed.
#[derive(Default)]
struct Table {
    ids: HashMap<(PlanKey, usize), PlanId>,
    plans: Vec<&'static Planned>,
}

fn table() -> &'static RwLock<Table> {
    static TABLE: OnceLock<RwLock<Table>> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

/// Plans the instruction `key` for a register file of `nregs` registers (checking its
/// operands and controls) and returns its handle; an instruction planned before gets its
/// earlier handle.
pub fn plan(key: PlanKey, nregs: usize) -> Result<PlanId, MatrixError> {
    let lookup = |t: &Table| t.ids.get(&(key, nregs)).copied();
    if let Some(id) = lookup(&table().read().unwrap_or_else(PoisonError::into_inner)) {
        return Ok(id);
    }
    // Built outside the lock (it takes microseconds); a racing thread's equal plan loses.
    let planned = match key {
        PlanKey::Mfma {
            op,
            opnds,
            ctl,
            scale,
        } => Planned {
            plan: Plan::new(&op, &opnds, &ctl, nregs)?,
            scale,
        },
        PlanKey::Wmma { op, w, opnds } => Planned {
            plan: wmma::plan(&op, &w, &opnds, nregs)?,
            scale: None,
        },
    };
    let mut t = table().write().unwrap_or_else(PoisonError::into_inner);
    if let Some(id) = lookup(&t) {
        return Ok(id);
    }
    let id = PlanId(
        u32::try_from(t.plans.len())
            .map_err(|_| MatrixError::Unsupported("more than 2^32 matrix plans"))?,
    );
    // Leaked on purpose: the table owns its plans for the process's life, so the handles
    // and compiled code's pointers into them never dangle (see the module doc).
    t.plans.push(Box::leak(Box::new(planned)));
    t.ids.insert((key, nregs), id);
    Ok(id)
}

/// The plan behind a handle; `None` for a handle [`plan`] did not hand out.
pub fn get(id: PlanId) -> Option<&'static Planned> {
    let t = table().read().unwrap_or_else(PoisonError::into_inner);
    t.plans.get(id.0 as usize).copied()
}

/// How many distinct instructions have been planned in this process.
pub fn count() -> usize {
    table()
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .plans
        .len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Gpu;
    use crate::matrix::CSrc;

    fn key(d: u16) -> PlanKey {
        PlanKey::Mfma {
            op: MatrixOp::from_mnemonic("v_mfma_f32_16x16x16_f16", Gpu::GFX942).expect("an MFMA"),
            opnds: Operands {
                d,
                a: 32,
                b: 40,
                c: CSrc::Reg(d),
                index: 0,
            },
            ctl: Controls::default(),
            scale: None,
        }
    }

    /// An instruction planned twice gets one handle; another instruction another one; the
    /// handle resolves to a plan of that instruction.
    #[test]
    fn plans_are_interned_per_instruction() {
        let a = plan(key(0), 512).expect("plans");
        let b = plan(key(0), 512).expect("plans");
        let c = plan(key(4), 512).expect("plans");
        assert_eq!(a, b);
        assert_ne!(a, c);
        let d_regs = |id| {
            let p = &get(id).expect("resolves").plan;
            p.slots(crate::matrix::Which::D).iter().map(|s| s.0).min()
        };
        assert_eq!(d_regs(a), Some(0));
        assert_eq!(d_regs(c), Some(4));
    }

    /// Bad operands are an error and plan nothing; an unknown handle resolves to nothing.
    #[test]
    fn bad_operands_and_unknown_handles_are_errors() {
        assert_eq!(plan(key(510), 512), Err(MatrixError::RegisterRange));
        assert!(get(PlanId(u32::MAX)).is_none());
    }
}
