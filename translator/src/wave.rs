//! Wave state: the architectural registers of one wavefront, laid out for generated code.
//!
//! Structure-of-arrays (DESIGN.md, "Execution model"): `vgpr[r]` is one register for all 64
//! lanes, so a 128-bit host vector holds four consecutive lanes. Wave32 waves use lanes 0..32
//! of the same layout. The struct is `#[repr(C)]` because the JIT addresses its fields by
//! offset (see [`WaveState::vgpr_offset`] and friends).

use core::mem::offset_of;

/// Lanes in the largest wave (wave64). Wave32 waves use the first 32.
pub const MAX_LANES: usize = 64;
/// Vector register slots: `v0..v255` at 0..256, then the CDNA accumulation registers
/// `a0..a255` at 256..512.
pub const NUM_VREGS: usize = 512;
/// Index of `a0` in [`WaveState::vgpr`].
pub const AGPR_BASE: usize = 256;
/// Scalar register slots, indexed by the 7-bit scalar operand code (ISA "SGPR operand" table).
pub const NUM_SREGS: usize = 128;

/// Scalar operand codes of the special registers (GFX9 numbering; the translator maps
/// GFX11/12 codes onto these slots when it decodes).
pub mod sreg {
    /// `flat_scratch_lo` (GFX9).
    pub const FLAT_SCRATCH_LO: u8 = 102;
    /// `flat_scratch_hi` (GFX9).
    pub const FLAT_SCRATCH_HI: u8 = 103;
    /// `xnack_mask_lo`.
    pub const XNACK_MASK_LO: u8 = 104;
    /// `vcc_lo`.
    pub const VCC_LO: u8 = 106;
    /// `vcc_hi`.
    pub const VCC_HI: u8 = 107;
    /// `ttmp0`; `ttmp0..ttmp15` occupy 108..124.
    pub const TTMP0: u8 = 108;
    /// `m0`.
    pub const M0: u8 = 124;
    /// Slot that reads as zero and ignores writes (`null` on GFX11/12).
    pub const NULL: u8 = 125;
    /// `exec_lo`.
    pub const EXEC_LO: u8 = 126;
    /// `exec_hi`.
    pub const EXEC_HI: u8 = 127;
}

/// Deterministic per-wave counters that generated code updates (both engines identically).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WaveCounters {
    /// Sum over executed vector instructions of the number of active lanes
    /// (updated by generated code through `Op::CountVector`).
    pub active_lanes: u64,
    /// Vector instructions executed (updated through `Op::CountVector`).
    pub vector_insts: u64,
    /// Wave instructions executed, by [`InstClass`] (updated per executed block).
    pub by_class: [u64; InstClass::COUNT],
}

impl WaveCounters {
    /// Adds `o`'s counts (wrapping, like the counters themselves).
    #[inline]
    pub fn add(&mut self, o: &WaveCounters) {
        self.active_lanes = self.active_lanes.wrapping_add(o.active_lanes);
        self.vector_insts = self.vector_insts.wrapping_add(o.vector_insts);
        for (a, b) in self.by_class.iter_mut().zip(&o.by_class) {
            *a = a.wrapping_add(*b);
        }
    }
}

/// Instruction classes for counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum InstClass {
    /// Scalar ALU (SOP*), except branches and program control.
    Salu = 0,
    /// Vector ALU (VOP*), except matrix.
    Valu = 1,
    /// Scalar memory.
    Smem = 2,
    /// Vector memory (global, flat, scratch, buffer).
    Vmem = 3,
    /// LDS/GDS.
    Lds = 4,
    /// Branches, barriers, waits and other program control (SOPP).
    Control = 5,
    /// Matrix (MFMA/SMFMAC/WMMA/SWMMAC).
    Matrix = 6,
}

impl InstClass {
    /// Number of classes.
    pub const COUNT: usize = 7;
    /// All classes, in counter order.
    pub const ALL: [InstClass; 7] = [
        InstClass::Salu,
        InstClass::Valu,
        InstClass::Smem,
        InstClass::Vmem,
        InstClass::Lds,
        InstClass::Control,
        InstClass::Matrix,
    ];
    /// Lower-case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            InstClass::Salu => "salu",
            InstClass::Valu => "valu",
            InstClass::Smem => "smem",
            InstClass::Vmem => "vmem",
            InstClass::Lds => "lds",
            InstClass::Control => "control",
            InstClass::Matrix => "matrix",
        }
    }
}

/// The architectural state of one wave.
#[repr(C, align(64))]
pub struct WaveState {
    /// Vector registers, `vgpr[reg][lane]`; `reg >= AGPR_BASE` are AGPRs.
    pub vgpr: [[u32; MAX_LANES]; NUM_VREGS],
    /// Scalar registers by operand code (SGPRs, VCC, TTMPs, M0, EXEC; see [`sreg`]).
    pub sgpr: [u32; NUM_SREGS],
    /// Scalar condition code, 0 or 1.
    pub scc: u32,
    /// MODE register (ISA "MODE" table): round, denorm, dx10_clamp, ieee, ...
    pub mode: u32,
    /// STATUS register.
    pub status: u32,
    /// TRAPSTS register.
    pub trapsts: u32,
    /// Byte address of the next instruction to execute.
    pub pc: u64,
    /// 32 or 64.
    pub wave_size: u32,
    /// Keeps `credit` and `counters` 8-byte aligned.
    pub _pad: u32,
    /// Instruction credit of compiled code: every compiled block subtracts its instruction
    /// count from it when it starts, or, when the credit is short, returns to the run loop
    /// at its own start without executing anything. Set by [`crate::exec::Translator`] from
    /// the instruction budget, so compiled blocks can loop to themselves and continue in
    /// their linked successors (block chaining) without returning to the run loop; the
    /// run loop takes the rest back into the budget afterwards.
    pub credit: u64,
    /// Counters updated by generated code.
    pub counters: WaveCounters,
}

impl WaveState {
    /// A zeroed wave of `wave_size` (32 or 64) lanes, on the heap (the struct is ~130 KiB;
    /// it is allocated zeroed in place, never built on the stack and moved).
    pub fn new_boxed(wave_size: u32) -> Box<WaveState> {
        let layout = std::alloc::Layout::new::<WaveState>();
        // SAFETY: the layout has a non-zero size; every field of WaveState is an integer or
        // an array of integers, for which the all-zero bit pattern is a valid value, so the
        // zeroed allocation is a valid WaveState, and `Box::from_raw` takes ownership of an
        // allocation made by the global allocator with `WaveState`'s own layout.
        let mut b = unsafe {
            let p = std::alloc::alloc_zeroed(layout).cast::<WaveState>();
            if p.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            Box::from_raw(p)
        };
        b.wave_size = wave_size;
        b
    }

    /// Byte offset of `vgpr[reg][lane]` from the start of the struct.
    pub const fn vgpr_offset(reg: usize, lane: usize) -> usize {
        offset_of!(WaveState, vgpr) + (reg * MAX_LANES + lane) * 4
    }
    /// Byte offset of scalar slot `code`.
    pub const fn sgpr_offset(code: usize) -> usize {
        offset_of!(WaveState, sgpr) + code * 4
    }
    /// Byte offset of `scc`.
    pub const SCC_OFFSET: usize = offset_of!(WaveState, scc);
    /// Byte offset of `mode`.
    pub const MODE_OFFSET: usize = offset_of!(WaveState, mode);
    /// Byte offset of `pc`.
    pub const PC_OFFSET: usize = offset_of!(WaveState, pc);
    /// Byte offset of `credit`.
    pub const CREDIT_OFFSET: usize = offset_of!(WaveState, credit);
    /// Byte offset of `counters.active_lanes`.
    pub const ACTIVE_LANES_OFFSET: usize =
        offset_of!(WaveState, counters) + offset_of!(WaveCounters, active_lanes);
    /// Byte offset of `counters.vector_insts`.
    pub const VECTOR_INSTS_OFFSET: usize =
        offset_of!(WaveState, counters) + offset_of!(WaveCounters, vector_insts);

    /// EXEC as a 64-bit mask (wave32: the high half reads as zero).
    pub fn exec(&self) -> u64 {
        let lo = self.sgpr[sreg::EXEC_LO as usize] as u64;
        if self.wave_size == 32 {
            lo
        } else {
            lo | (self.sgpr[sreg::EXEC_HI as usize] as u64) << 32
        }
    }
    /// Sets EXEC from a 64-bit mask (wave32: only the low half is kept).
    #[inline]
    pub fn set_exec(&mut self, m: u64) {
        self.sgpr[sreg::EXEC_LO as usize] = m as u32;
        if self.wave_size == 64 {
            self.sgpr[sreg::EXEC_HI as usize] = (m >> 32) as u32;
        }
    }
    /// Reads the 64-bit pair `code`, `code + 1`.
    pub fn sgpr64(&self, code: usize) -> u64 {
        self.sgpr[code] as u64 | (self.sgpr[code + 1] as u64) << 32
    }
    /// Writes the 64-bit pair `code`, `code + 1`.
    pub fn set_sgpr64(&mut self, code: usize, v: u64) {
        self.sgpr[code] = v as u32;
        self.sgpr[code + 1] = (v >> 32) as u32;
    }
}

/// A set of register slots of a [`WaveState`]: VGPR/AGPR slots (`0..NUM_VREGS`) and scalar
/// slots (`0..NUM_SREGS`), one bit each, plus whether some VGPR/AGPR is addressed in a way
/// the set cannot name (a dynamic index, a matrix instruction's operands).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegSet {
    /// Bit `r % 64` of word `r / 64`: VGPR/AGPR slot `r`.
    pub vgpr: [u64; NUM_VREGS / 64],
    /// Bit `c % 64` of word `c / 64`: scalar slot `c`.
    pub sgpr: [u64; NUM_SREGS / 64],
    /// Some VGPR/AGPR slot outside `vgpr` may be in the set too.
    pub vgpr_unknown: bool,
}

impl RegSet {
    /// Adds VGPR/AGPR slot `reg`.
    pub fn add_vgpr(&mut self, reg: usize) {
        if reg < NUM_VREGS {
            self.vgpr[reg / 64] |= 1 << (reg % 64);
        }
    }
    /// Adds scalar slot `code`.
    pub fn add_sgpr(&mut self, code: usize) {
        if code < NUM_SREGS {
            self.sgpr[code / 64] |= 1 << (code % 64);
        }
    }
    /// Adds every slot of `other`.
    pub fn add(&mut self, other: &RegSet) {
        for (a, b) in self.vgpr.iter_mut().zip(&other.vgpr) {
            *a |= b;
        }
        for (a, b) in self.sgpr.iter_mut().zip(&other.sgpr) {
            *a |= b;
        }
        self.vgpr_unknown |= other.vgpr_unknown;
    }
    /// Whether VGPR/AGPR slot `reg` is named in the set.
    pub fn has_vgpr(&self, reg: usize) -> bool {
        reg < NUM_VREGS && self.vgpr[reg / 64] >> (reg % 64) & 1 != 0
    }
    /// Whether scalar slot `code` is in the set.
    pub fn has_sgpr(&self, code: usize) -> bool {
        code < NUM_SREGS && self.sgpr[code / 64] >> (code % 64) & 1 != 0
    }
    /// The VGPR/AGPR slots named in the set, in increasing order.
    pub fn vgprs(&self) -> impl Iterator<Item = usize> + '_ {
        (0..NUM_VREGS).filter(|&r| self.has_vgpr(r))
    }
    /// The scalar slots in the set, in increasing order.
    pub fn sgprs(&self) -> impl Iterator<Item = usize> + '_ {
        (0..NUM_SREGS).filter(|&c| self.has_sgpr(c))
    }
}
