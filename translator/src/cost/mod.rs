//! A first-order cycle model: what one execution of an instruction by one wave costs.
//!
//! It compares versions of a kernel; it is not a simulator. Each instruction gets an
//! *issue* cost (cycles the wave's execution unit is busy with it: throughput) and a
//! *latency* (cycles until its result can be used, for the memory classes the time to the
//! data). A launch's estimate sums them over every executed instruction, so it ignores
//! overlap between waves, dual issue, caches, bank conflicts, coalescing and waits. The
//! constants and where each comes from are listed in `docs/profiling.md`.
//!
//! Sources: CDNA4 ISA (TRAP_STS.EXCP_CYCLE: "0-3 for normal float operations, 0-7 for
//! double float add, and 0-15 for double float muladd or transcendentals", i.e. a wave64
//! VALU op takes four clocks on a 16-lane SIMD and transcendentals four times that;
//! Table 28's MFMA cycle counts; 7.6: "PASS = 4 clock cycles"); RDNA4 ISA 2.1 (a wave64
//! executes as two passes of a wave32 on the 32-lane SIMD). The rest are stated assumptions.

use crate::isa::{Family, Format, Inst, Target};
use crate::matrix::shape::{Acc, Kind, MatrixOp};

/// Execution-unit classes of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CostClass {
    /// Scalar ALU.
    Salu,
    /// Vector ALU at full rate.
    Valu,
    /// Transcendental VALU (`v_exp`, `v_log`, `v_rcp`, `v_rsq`, `v_sqrt`, `v_sin`, `v_cos`).
    Trans,
    /// Double-precision VALU.
    F64,
    /// Matrix core (MFMA/SMFMAC/WMMA/SWMMAC).
    Matrix,
    /// Scalar memory.
    Smem,
    /// Vector memory (global, flat, scratch, buffer).
    Vmem,
    /// LDS.
    Lds,
    /// Branches, waits, barriers and other program control.
    Control,
}

impl CostClass {
    /// Lower-case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            CostClass::Salu => "salu",
            CostClass::Valu => "valu",
            CostClass::Trans => "trans",
            CostClass::F64 => "f64",
            CostClass::Matrix => "matrix",
            CostClass::Smem => "smem",
            CostClass::Vmem => "vmem",
            CostClass::Lds => "lds",
            CostClass::Control => "control",
        }
    }
}

/// What one execution of one instruction by one wave costs in the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstCost {
    /// Execution-unit class.
    pub class: CostClass,
    /// Cycles the unit is busy (issue/throughput cost).
    pub issue: u32,
    /// Cycles until the result is available (issue included).
    pub latency: u32,
    /// Memory instructions: bytes moved per active lane (vector memory, LDS) or per
    /// execution (scalar memory); 0 otherwise.
    pub bytes: u32,
    /// Whether `bytes` counts per execution (scalar memory) rather than per active lane.
    pub bytes_per_wave: bool,
}

/// Assumed latency of a scalar memory load (scalar cache hit), cycles.
pub const SMEM_LATENCY: u32 = 64;
/// Assumed latency of an LDS access, cycles.
pub const LDS_LATENCY: u32 = 64;
/// Assumed latency of a vector memory access (L2 miss to HBM/GDDR), cycles.
pub const VMEM_LATENCY: u32 = 500;
/// Latency of a full-rate VALU result, in passes (CDNA: 4-cycle passes, the ISA's
/// dependency tables count "4 & 8 cycle forwarding"; RDNA: assumed 5 cycles as for RDNA's
/// documented VALU → VALU dependency stalls).
const VALU_LATENCY_PASSES: u32 = 2;

/// The model's cost of `inst` on `target` (its wave size included).
pub fn inst_cost(target: &Target, inst: &Inst) -> InstCost {
    let name = inst.op.name();
    let cdna = target.gpu.family() == Some(Family::Gfx9);
    // One pass: CDNA runs a wave64 on a 16-lane SIMD in 4 clocks; RDNA runs a wave32 on a
    // 32-lane SIMD in one clock and a wave64 in two passes.
    let pass = if cdna { 4 } else { target.wave_size / 32 };
    // CDNA issues at most one instruction of a wave per 4 clocks; RDNA one per clock.
    let slot = if cdna { 4 } else { 1 };
    let c = |class, issue: u32, latency: u32| InstCost {
        class,
        issue,
        latency: latency.max(issue),
        bytes: 0,
        bytes_per_wave: false,
    };
    match inst.format {
        Format::Sopp => return c(CostClass::Control, slot, slot),
        Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc => {
            return c(CostClass::Salu, slot, slot)
        }
        Format::Smem => {
            return InstCost {
                bytes: smem_bytes(name),
                bytes_per_wave: true,
                ..c(CostClass::Smem, slot, SMEM_LATENCY)
            }
        }
        Format::Ds => {
            let bytes = mem_bytes_per_lane(name);
            // LDS moves 128 bytes per clock (assumed): a wave's bytes beyond that take more.
            let issue = (bytes * target.wave_size).div_ceil(128).max(slot);
            return InstCost {
                bytes,
                ..c(CostClass::Lds, issue, LDS_LATENCY)
            };
        }
        Format::Flat | Format::Global | Format::Scratch | Format::Mubuf | Format::Mtbuf => {
            let bytes = mem_bytes_per_lane(name);
            // The address path takes one pass per 16 bytes a lane moves (assumed: one dword
            // quad per lane per pass), at least one pass.
            let issue = pass * bytes.div_ceil(16).max(1);
            return InstCost {
                bytes,
                ..c(CostClass::Vmem, issue.max(slot), VMEM_LATENCY)
            };
        }
        _ => {}
    }
    if let Some(op) = MatrixOp::from_mnemonic(name, target.gpu) {
        let cycles = matrix_cycles(target, &op, inst);
        return c(CostClass::Matrix, cycles, cycles);
    }
    let (class, rate) = if is_transcendental(name) {
        // Quarter rate (CDNA4 ISA EXCP_CYCLE: 0-15 for transcendentals; RDNA3/4: the
        // transcendental unit, assumed quarter rate as well).
        (CostClass::Trans, 4)
    } else if is_f64(name) {
        // CDNA3/CDNA4 run f64 VALU at the f32 rate (MI300/MI355 vector FP64 = FP32
        // non-packed peak); RDNA3/4 at 1/16 of it (assumed from published peak rates).
        (CostClass::F64, if cdna { 1 } else { 16 })
    } else {
        (CostClass::Valu, 1)
    };
    let issue = pass * rate;
    c(class, issue, pass * VALU_LATENCY_PASSES.max(rate))
}

/// Whether `name` is a transcendental VALU op (quarter rate).
fn is_transcendental(name: &str) -> bool {
    [
        "v_exp_", "v_log_", "v_rcp_", "v_rsq_", "v_sqrt_", "v_sin_", "v_cos_",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// Whether `name` is a double-precision VALU op (an `f64` operand type in its mnemonic).
fn is_f64(name: &str) -> bool {
    name.split('_').any(|t| t == "f64")
}

/// Cycles of one matrix instruction.
///
/// CDNA: CDNA4 ISA Table 28 (and the CDNA3 guide's equivalent): single-block 32×32 shapes
/// take 32 cycles, 16×16 shapes 16, twice that for f32 inputs and for F8F6F4 with an F8
/// operand; multi-block shapes take 64 (32×32, 2 blocks), 32 (16×16, 4 blocks) or 8
/// (4×4, 16 blocks); f64: 16×16×4 64, 4×4×4 (4 blocks) 32. SMFMAC as the dense shape.
/// RDNA WMMA/SWMMAC (assumed; no ISA document gives rates): 16×16×16 16-bit inputs take
/// 32 cycles on RDNA3 and 16 on RDNA4, 8-bit inputs half that, 4-bit a quarter; SWMMAC as
/// its dense K.
fn matrix_cycles(target: &Target, op: &MatrixOp, inst: &Inst) -> u32 {
    if matches!(op.kind, Kind::Wmma | Kind::Swmmac) {
        let macs = (op.m * op.n * op.k) as u32;
        let bits = op.a.bits().max(op.b.bits());
        let per_clk_16 = if target.gpu.family() == Some(Family::Gfx12) {
            256
        } else {
            128
        };
        let per_clk = match bits {
            0..=4 => per_clk_16 * 4,
            5..=8 => per_clk_16 * 2,
            _ => per_clk_16,
        };
        return macs.div_ceil(per_clk).max(1);
    }
    if op.acc == Acc::F64 {
        return if op.blocks > 1 { 32 } else { 64 };
    }
    if op.blocks > 1 {
        return match op.m {
            32 => 64,
            16 => 32,
            _ => 8,
        };
    }
    let base = if op.m >= 32 { 32 } else { 16 };
    let f8 = |code: u8| code <= 1; // CBSZ/BLGP 0 = E4M3, 1 = E5M2
    let doubled = match op.kind {
        Kind::F8f6f4 | Kind::ScaledF8f6f4 => f8(inst.mai.cbsz & 7) || f8(inst.mai.blgp & 7),
        _ => op.a.bits() == 32,
    };
    if doubled {
        base * 2
    } else {
        base
    }
}

/// Bytes per execution of a scalar memory instruction (`s_load_dwordx4` 16, `s_load_b64` 8).
fn smem_bytes(name: &str) -> u32 {
    if name.contains("load") || name.contains("store") || name.contains("atomic") {
        let b = mem_bytes_per_lane(name);
        if b == 0 {
            4
        } else {
            b
        }
    } else {
        0
    }
}

/// Bytes one lane moves in a memory instruction, from the mnemonic's data-size suffix
/// (`dwordx4` 16, `b64` 8, `ushort` 2, `format_xyz` 12, `read2_b32` 8); 0 when it names
/// none (`s_dcache_inv`, `ds_nop`, `buffer_wbl2`).
pub fn mem_bytes_per_lane(name: &str) -> u32 {
    let mut size = 0u32;
    let mut d16 = false;
    for t in name.split('_') {
        let s = match t {
            "dword" | "b32" | "u32" | "i32" | "f32" => 4,
            "dwordx2" | "b64" | "u64" | "i64" | "f64" | "x2" => 8,
            "dwordx3" | "b96" => 12,
            "dwordx4" | "b128" => 16,
            "dwordx8" | "b256" => 32,
            "dwordx16" | "b512" => 64,
            "ubyte" | "sbyte" | "byte" | "u8" | "i8" | "b8" => 1,
            "ushort" | "sshort" | "short" | "u16" | "i16" | "b16" | "f16" | "bf16" => 2,
            "x" => 4,
            "xy" => 8,
            "xyz" => 12,
            "xyzw" => 16,
            "d16" => {
                d16 = true;
                continue;
            }
            _ => continue,
        };
        // `buffer_atomic_cmpswap_x2`: the size suffix comes last and wins.
        size = s;
    }
    if d16 && name.contains("format") {
        size /= 2;
    } else if d16 && size == 0 {
        size = 2;
    }
    // `ds_read2_b32`, `ds_write2st64_b64`: two elements per lane.
    if name.contains("read2") || name.contains("write2") || name.contains("load_2") {
        size *= 2;
    }
    if name.contains("cmpswap") && !name.starts_with("ds_") {
        // Compare-and-swap sends data and compare value (the suffix names one).
        size *= 2;
    }
    size
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Gpu;

    /// The cost of the instruction `bytes` (llvm-mc-22 encodings) on `gpu` in wave `wave`.
    fn cost(gpu: Gpu, wave: u32, bytes: &[u8]) -> (CostClass, u32, u32, u32) {
        let t = Target {
            gpu,
            wave_size: wave,
        };
        let inst = crate::isa::decode(&t, bytes, 0).expect("decodes");
        let c = inst_cost(&t, &inst);
        (c.class, c.issue, c.latency, c.bytes)
    }

    /// A cost as (class, issue, latency, bytes).
    type Expect = (CostClass, u32, u32, u32);

    /// The table of docs/profiling.md worked by hand for RDNA3 in wave32 and wave64 (a
    /// wave64 takes two passes).
    #[test]
    fn rdna_costs_by_hand() {
        use CostClass::*;
        #[rustfmt::skip]
        let cases: [(&[u8], Expect, Expect); 8] = [
            // v_add_f32_e32 v1, v2, v3: one pass, latency two passes.
            (&[0x02, 0x07, 0x02, 0x06], (Valu, 1, 2, 0), (Valu, 2, 4, 0)),
            // v_exp_f32_e32 v1, v2: quarter rate.
            (&[0x02, 0x4b, 0x02, 0x7e], (Trans, 4, 4, 0), (Trans, 8, 8, 0)),
            // v_fma_f64: 1/16 rate on RDNA.
            (&[0x00, 0x00, 0x14, 0xd6, 0x02, 0x09, 0x1a, 0x04], (F64, 16, 16, 0), (F64, 32, 32, 0)),
            // s_add_u32 s0, s1, s2: one slot.
            (&[0x01, 0x02, 0x00, 0x80], (Salu, 1, 1, 0), (Salu, 1, 1, 0)),
            // global_load_b128: 16 bytes a lane, one pass per 16 bytes.
            (&[0x00, 0x00, 0x5e, 0xdc, 0x04, 0x00, 0x00, 0x00], (Vmem, 1, 500, 16), (Vmem, 2, 500, 16)),
            // ds_load_b64: lanes x 8 bytes at 128 bytes per clock.
            (&[0x00, 0x00, 0xd8, 0xd9, 0x02, 0x00, 0x00, 0x00], (Lds, 2, 64, 8), (Lds, 4, 64, 8)),
            // s_load_b64: 8 bytes per execution.
            (&[0x01, 0x00, 0x04, 0xf4, 0x00, 0x00, 0x00, 0xf8], (Smem, 1, 64, 8), (Smem, 1, 64, 8)),
            // s_branch 0.
            (&[0x00, 0x00, 0xa0, 0xbf], (Control, 1, 1, 0), (Control, 1, 1, 0)),
        ];
        for (bytes, w32, w64) in cases {
            assert_eq!(cost(Gpu::GFX1100, 32, bytes), w32, "{bytes:x?} wave32");
            assert_eq!(cost(Gpu::GFX1100, 64, bytes), w64, "{bytes:x?} wave64");
        }
        // v_wmma_f32_16x16x16_f16 (wave32): 4096 MACs at 128 per clock on RDNA3, 256 on RDNA4.
        let wmma = [0x00, 0x40, 0x40, 0xcc, 0x08, 0x21, 0x02, 0x1c];
        assert_eq!(cost(Gpu::GFX1100, 32, &wmma), (Matrix, 32, 32, 0));
    }

    /// CDNA4 ISA Table 28 cycles and the CDNA pass rules.
    #[test]
    fn cdna_costs_by_hand() {
        use CostClass::*;
        #[rustfmt::skip]
        let gfx942: [(&[u8], Expect); 7] = [
            // v_mfma_f32_32x32x8_f16: 32 cycles.
            (&[0x00, 0x00, 0xcc, 0xd3, 0x10, 0x25, 0x02, 0x04], (Matrix, 32, 32, 0)),
            // v_mfma_f32_32x32x2_f32: f32 inputs, 64.
            (&[0x00, 0x00, 0xc4, 0xd3, 0x10, 0x23, 0x02, 0x04], (Matrix, 64, 64, 0)),
            // v_mfma_f32_4x4x4_16b_f16: 16 blocks, 8.
            (&[0x00, 0x00, 0xca, 0xd3, 0x10, 0x25, 0x02, 0x04], (Matrix, 8, 8, 0)),
            // v_mfma_f64_16x16x4_f64: 64.
            (&[0x00, 0x00, 0xee, 0xd3, 0x10, 0x25, 0x02, 0x04], (Matrix, 64, 64, 0)),
            // v_exp_f32_e32: 4 passes of 4 clocks.
            (&[0x02, 0x41, 0x02, 0x7e], (Trans, 16, 16, 0)),
            // v_fma_f64: f32 rate on CDNA3.
            (&[0x00, 0x00, 0xcc, 0xd1, 0x02, 0x09, 0x1a, 0x04], (F64, 4, 8, 0)),
            // global_load_dwordx4: one pass for 16 bytes a lane.
            (&[0x00, 0x80, 0x5c, 0xdc, 0x04, 0x00, 0x00, 0x00], (Vmem, 4, 500, 16)),
        ];
        for (bytes, want) in gfx942 {
            assert_eq!(cost(Gpu::GFX942, 64, bytes), want, "{bytes:x?}");
        }
        #[rustfmt::skip]
        let gfx950: [(&[u8], u32); 3] = [
            // v_mfma_f32_16x16x128_f8f6f4, FP8 x FP8: "If either matrix = F8 -> 32 cycles".
            (&[0x00, 0x00, 0xad, 0xd3, 0x04, 0x19, 0x02, 0x04], 32),
            // ... cbsz:2 blgp:4 (FP6 x FP4): 16.
            (&[0x00, 0x02, 0xad, 0xd3, 0x04, 0x19, 0x02, 0x84], 16),
            // v_mfma_f32_16x16x32_f16: 16.
            (&[0x00, 0x00, 0xd4, 0xd3, 0x04, 0x11, 0x02, 0x04], 16),
        ];
        for (bytes, cycles) in gfx950 {
            assert_eq!(
                cost(Gpu::GFX950, 64, bytes),
                (Matrix, cycles, cycles, 0),
                "{bytes:x?}"
            );
        }
    }

    #[test]
    fn memory_sizes_from_mnemonics() {
        for (n, b) in [
            ("global_load_dwordx4", 16),
            ("global_load_dword", 4),
            ("global_store_short", 2),
            ("global_load_b128", 16),
            ("ds_read_b64", 8),
            ("ds_read2_b32", 8),
            ("ds_write2st64_b64", 16),
            ("buffer_load_format_xyz", 12),
            ("buffer_load_format_d16_xyzw", 8),
            ("global_load_ubyte", 1),
            ("global_atomic_add_f32", 4),
            ("global_atomic_cmpswap_x2", 16),
            ("s_load_dwordx8", 32),
            ("s_buffer_load_b64", 8),
            ("ds_nop", 0),
        ] {
            assert_eq!(mem_bytes_per_lane(n), b, "{n}");
        }
    }
}
