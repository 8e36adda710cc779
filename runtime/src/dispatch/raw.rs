//! Raw dispatch: a grid of raw code (no code object, no kernel descriptor, no metadata)
//! started the way a DISPATCH_DIRECT packet and its registers start it: COMPUTE_PGM_RSRC1/2/3,
//! COMPUTE_USER_DATA_* for the user SGPRs, the LDS and scratch sizes, the wave size.
//!
//! The registers are turned into a kernel descriptor with the same rsrc words and no user-SGPR
//! enable bits, so [`super::wave_init::init_wave`] lays out the system SGPRs exactly as for a
//! code object (workgroup ids after USER_SGPR_COUNT as the TGID enables say; ttmp9/ttmp7 on
//! GFX12; work-item ids in v0 as ENABLE_VGPR_WORKITEM_ID says; MODE from rsrc1), and then
//! s[0..USER_SGPR_COUNT) receive the user data. There is no kernarg segment, dispatch packet
//! or queue: the user data carries whatever addresses the code expects.

use std::time::Instant;

use wavejit_translator::env::CodeSource;
use wavejit_translator::exec::Translator;
use wavejit_translator::isa::{Family, Gpu, Target};
use wavejit_translator::wave::WaveState;

use super::kernarg::Geometry;
use super::wave_init::WaveInputs;
use super::{
    run_grid, Engine, LaunchError, LaunchOutcome, LaunchParams, Shared, MAX_LDS_BYTES,
    MAX_SCRATCH_PER_GROUP,
};
use crate::code_object::{KernelDescriptor, KernelInfo};
use crate::memory::{CodeImage, DeviceMemory, WaveMemEnv};

/// LDS of one workgroup on gfx950 (CDNA4 has 160 KiB).
pub const MAX_LDS_BYTES_GFX950: u32 = 160 * 1024;

/// Everything a raw dispatch needs.
#[derive(Clone, Debug)]
pub struct RawLaunch<'a> {
    /// Name used in reports and faults.
    pub name: &'a str,
    /// The GPU the code is for.
    pub gpu: Gpu,
    /// 32 or 64 (GFX9: 64 only).
    pub wave_size: u32,
    /// The code; the first instruction is at `code.base()`.
    pub code: &'a CodeImage,
    /// Workgroups per dimension.
    pub grid: [u32; 3],
    /// Work-items per workgroup per dimension.
    pub block: [u32; 3],
    /// COMPUTE_PGM_RSRC1 (MODE: FLOAT_MODE, DX10_CLAMP, IEEE; the VGPR count).
    pub rsrc1: u32,
    /// COMPUTE_PGM_RSRC2 (USER_SGPR_COUNT, TGID enables, TG_SIZE_EN, TIDIG_COMP_CNT).
    pub rsrc2: u32,
    /// COMPUTE_PGM_RSRC3 (GFX90A+: ACCUM_OFFSET).
    pub rsrc3: u32,
    /// LDS bytes per workgroup.
    pub lds_bytes: u32,
    /// Scratch bytes per work-item.
    pub scratch_per_lane: u32,
    /// COMPUTE_USER_DATA_*: s[0..n), n = min(len, USER_SGPR_COUNT).
    pub user_sgprs: &'a [u32],
    /// Host threads (0 = all available).
    pub threads: usize,
    /// Per-wave instruction budget.
    pub budget: u64,
}

/// Bytes per unit of COMPUTE_PGM_RSRC2.LDS_SIZE (AMDGPUUsage, compute_pgm_rsrc2: 128 dwords
/// on GFX7-GFX12, 320 dwords on gfx950).
pub fn lds_granule(gpu: Gpu) -> u32 {
    if gpu == Gpu::GFX950 {
        320 * 4
    } else {
        128 * 4
    }
}

/// The LDS size COMPUTE_PGM_RSRC2.LDS_SIZE (bits 23:15) asks for.
pub fn rsrc2_lds_bytes(gpu: Gpu, rsrc2: u32) -> u32 {
    ((rsrc2 >> 15) & 0x1ff) * lds_granule(gpu)
}

/// LDS available to one workgroup.
pub fn max_lds_bytes(gpu: Gpu) -> u32 {
    if gpu == Gpu::GFX950 {
        MAX_LDS_BYTES_GFX950
    } else {
        MAX_LDS_BYTES
    }
}

/// VGPRs (architected, AGPRs) a wave may use per COMPUTE_PGM_RSRC1.VGPRS (bits 5:0) and, on
/// GFX90A+, RSRC3.ACCUM_OFFSET: the registers cleared at wave start.
fn register_counts(gpu: Gpu, wave_size: u32, rsrc1: u32, rsrc3: u32) -> (u32, u32) {
    let g = (rsrc1 & 0x3f) + 1;
    match gpu.family() {
        // Unified file in granules of 8; AGPRs from ACCUM_OFFSET on.
        Some(Family::Gfx9) => {
            let total = (g * 8).min(512);
            let accum = (((rsrc3 & 0x3f) + 1) * 4).min(total);
            (accum.min(256), (total - accum).min(256))
        }
        // RDNA: granules of 8 (wave32) or 4 (wave64) VGPRs.
        _ => ((g * if wave_size == 32 { 8 } else { 4 }).min(256), 0),
    }
}

/// The kernel description a raw dispatch runs as.
pub fn kernel_info(l: &RawLaunch) -> KernelInfo {
    let (vgprs, agprs) = register_counts(l.gpu, l.wave_size, l.rsrc1, l.rsrc3);
    KernelInfo {
        name: l.name.to_string(),
        symbol_addr: 0,
        kd_addr: 0,
        entry: 0,
        descriptor: KernelDescriptor {
            group_segment_fixed_size: l.lds_bytes,
            private_segment_fixed_size: l.scratch_per_lane,
            kernarg_size: 0,
            entry_offset: 0,
            rsrc3: l.rsrc3,
            rsrc1: l.rsrc1,
            rsrc2: l.rsrc2,
            // ENABLE_WAVEFRONT_SIZE32; no user-SGPR enables (the user data replaces them).
            kernel_code_properties: if l.wave_size == 32 { 1 << 10 } else { 0 },
            kernarg_preload: 0,
        },
        args: Vec::new(),
        kernarg_size: 0,
        kernarg_align: 16,
        group_segment_fixed_size: l.lds_bytes,
        private_segment_fixed_size: l.scratch_per_lane,
        wave_size: l.wave_size,
        sgpr_count: 0,
        vgpr_count: vgprs,
        agpr_count: agprs,
        max_flat_workgroup_size: 1024,
        uses_dynamic_stack: false,
    }
}

/// Checks a raw dispatch's parameters; the message says what is wrong.
pub fn validate(l: &RawLaunch) -> Result<(), String> {
    let family = l
        .gpu
        .family()
        .ok_or_else(|| format!("unsupported GPU {}", l.gpu))?;
    match (family, l.wave_size) {
        (Family::Gfx9, 64) | (Family::Gfx11 | Family::Gfx12, 32 | 64) => {}
        (_, ws) => return Err(format!("wave size {ws} is not available on {}", l.gpu)),
    }
    if l.grid.contains(&0) || l.block.contains(&0) {
        return Err(format!(
            "grid {:?} and block {:?} must be at least 1 in every dimension",
            l.grid, l.block
        ));
    }
    let items: u64 = l.block.iter().map(|&b| b as u64).product();
    if items > 1024 {
        return Err(format!(
            "workgroup of {items} work-items exceeds the maximum of 1024"
        ));
    }
    if l.lds_bytes > max_lds_bytes(l.gpu) {
        return Err(format!(
            "{} bytes of LDS requested, {} has {}",
            l.lds_bytes,
            l.gpu,
            max_lds_bytes(l.gpu)
        ));
    }
    if l.scratch_per_lane > 1 << 20 {
        return Err(format!(
            "{} bytes of scratch per lane requested, more than 1 MiB",
            l.scratch_per_lane
        ));
    }
    let wave_items = items.div_ceil(l.wave_size as u64) * l.wave_size as u64;
    if l.scratch_per_lane as u64 * wave_items > MAX_SCRATCH_PER_GROUP {
        return Err(format!(
            "needs {} bytes of scratch per workgroup, more than the {MAX_SCRATCH_PER_GROUP} wavejit provides",
            l.scratch_per_lane as u64 * wave_items
        ));
    }
    if l.code.bytes_at(l.code.base()).is_none_or(|b| b.is_empty()) {
        return Err("no code bytes".into());
    }
    Ok(())
}

/// Runs a raw dispatch. `translator` must be for `l.gpu` and `l.wave_size`.
pub fn launch_raw(
    mem: &DeviceMemory,
    translator: &Translator,
    l: &RawLaunch,
) -> Result<LaunchOutcome, LaunchError> {
    let start = Instant::now();
    validate(l).map_err(|m| LaunchError::Usage(format!("kernel {}: {m}", l.name)))?;
    let info = kernel_info(l);
    let params = LaunchParams {
        kernel: &info,
        gpu: l.gpu,
        code: l.code,
        geometry: Geometry {
            grid: l.grid,
            block: l.block,
            dynamic_lds: 0,
        },
        args: &[],
        threads: l.threads,
        budget: l.budget,
    };
    let before = translator.stats();
    let run = |code: &CodeImage, st: &mut WaveState, env: &mut WaveMemEnv, budget: &mut u64| {
        translator.run(code, st, env, budget)
    };
    let items: u64 = l.block.iter().map(|&b| b as u64).product();
    let waves_per_group = items.div_ceil(l.wave_size as u64) as u32;
    let user = (info.descriptor.user_sgpr_count() as usize).min(l.user_sgprs.len());
    let shared = Shared {
        p: &params,
        mem,
        runner: &run,
        target: Target {
            gpu: l.gpu,
            wave_size: l.wave_size,
        },
        inputs: WaveInputs {
            kernarg: 0,
            dispatch_ptr: 0,
            queue_ptr: 0,
            dispatch_id: 0,
            private_size: l.scratch_per_lane,
            block: l.block,
            waves_per_group,
        },
        kernarg: Vec::new(),
        lds_bytes: l.lds_bytes as usize,
        per_lane: l.scratch_per_lane,
        waves_per_group,
        groups: l.grid.iter().map(|&g| g as u64).product(),
        control: None,
        user_sgprs: &l.user_sgprs[..user],
        engine: Some(Engine {
            translator,
            start: None,
        }),
    };
    let mut out = run_grid(&shared, start)?;
    out.translation = translator.stats().since(&before);
    Ok(out)
}
