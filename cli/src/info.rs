//! `wavejit info`: target, code object version and each kernel's ABI.

use super::{io_err, load_code_object, CliResult};
use std::io::Write;
use std::path::Path;
use wavejit_runtime::code_object::{CodeObject, KernelInfo, TargetFeature};
use wavejit_translator::isa::{Family, Gpu};

fn feature(f: TargetFeature) -> &'static str {
    match f {
        TargetFeature::Any => "any",
        TargetFeature::On => "on",
        TargetFeature::Off => "off",
        TargetFeature::Unsupported => "unsupported",
    }
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

/// `s5` or `s[4:5]`.
fn sgprs(first: u32, n: u32) -> String {
    if n == 1 {
        format!("s{first}")
    } else {
        format!("s[{first}:{}]", first + n - 1)
    }
}

/// The SGPR inputs of a kernel in the order AMDGPUUsage's "Initial Kernel Execution State"
/// places them: enabled user SGPRs, preloaded kernargs, padding up to USER_SGPR_COUNT, then
/// the system SGPRs (workgroup ids, workgroup info, private segment wave offset). GFX12
/// (architected SGPRs) has the workgroup ids in ttmp9 (x) and ttmp7 (y low, z high half).
pub fn sgpr_inputs(k: &KernelInfo, gpu: Gpu) -> Vec<String> {
    let kd = &k.descriptor;
    let mut v = Vec::new();
    let mut next = 0u32;
    let mut add = |v: &mut Vec<String>, on: bool, n: u32, name: &str| {
        if on {
            v.push(format!("{} {name}", sgprs(next, n)));
            next += n;
        }
    };
    add(
        &mut v,
        kd.enable_sgpr_private_segment_buffer(),
        4,
        "private_segment_buffer",
    );
    add(&mut v, kd.enable_sgpr_dispatch_ptr(), 2, "dispatch_ptr");
    add(&mut v, kd.enable_sgpr_queue_ptr(), 2, "queue_ptr");
    add(
        &mut v,
        kd.enable_sgpr_kernarg_segment_ptr(),
        2,
        "kernarg_segment_ptr",
    );
    add(&mut v, kd.enable_sgpr_dispatch_id(), 2, "dispatch_id");
    add(
        &mut v,
        kd.enable_sgpr_flat_scratch_init(),
        2,
        "flat_scratch_init",
    );
    add(
        &mut v,
        kd.enable_sgpr_private_segment_size(),
        1,
        "private_segment_size",
    );
    let preload = kd.kernarg_preload_length();
    if preload > 0 {
        let name = format!(
            "preloaded kernarg dwords {}..{}",
            kd.kernarg_preload_offset(),
            kd.kernarg_preload_offset() + preload
        );
        add(&mut v, true, preload, &name);
    }
    let mut next = next.max(kd.user_sgpr_count());
    let gfx12 = gpu.family() == Some(Family::Gfx12);
    for (d, c) in ["x", "y", "z"].iter().enumerate() {
        if kd.workgroup_id_enabled(d) {
            if gfx12 {
                let reg = ["ttmp9", "ttmp7[15:0]", "ttmp7[31:16]"][d];
                v.push(format!("{reg} workgroup_id_{c}"));
            } else {
                v.push(format!("s{next} workgroup_id_{c}"));
                next += 1;
            }
        }
    }
    if kd.workgroup_info() {
        v.push(format!("s{next} workgroup_info"));
        next += 1;
    }
    if kd.enable_private_segment() {
        v.push(format!("s{next} private_segment_wave_offset"));
    }
    v
}

/// The VGPR inputs: work-item ids, packed into v0 on every target wavejit supports
/// (GFX90A+, GFX11, GFX12: x bits 9:0, y 19:10, z 29:20).
fn vgpr_inputs(k: &KernelInfo) -> String {
    match k.descriptor.workitem_id_vgprs() {
        0 => "v0 workitem_id_x (packed)".into(),
        1 => "v0 workitem_id_x,y (packed)".into(),
        _ => "v0 workitem_id_x,y,z (packed)".into(),
    }
}

fn kernel(out: &mut dyn Write, co: &CodeObject, k: &KernelInfo) -> std::io::Result<()> {
    let kd = &k.descriptor;
    writeln!(out)?;
    writeln!(out, "kernel {}", k.name)?;
    writeln!(out, "  entry: {:#x}  descriptor: {:#x}", k.entry, k.kd_addr)?;
    writeln!(out, "  arguments:")?;
    writeln!(
        out,
        "    {:>6} {:>4}  {:<26} name",
        "offset", "size", "kind"
    )?;
    for a in &k.args {
        writeln!(
            out,
            "    {:>6} {:>4}  {:<26} {}",
            a.offset,
            a.size,
            a.kind.to_string(),
            a.name.as_deref().unwrap_or("-")
        )?;
    }
    // Hand-written kernels leave the descriptor's size at 0; the size is the metadata's.
    let from_meta = if kd.kernarg_size == 0 && k.kernarg_size != 0 {
        ", descriptor 0: size from the metadata"
    } else {
        ""
    };
    writeln!(
        out,
        "  kernarg size: {} bytes (align {}{from_meta})",
        k.kernarg_size, k.kernarg_align
    )?;
    writeln!(out, "  LDS: {} bytes", k.group_segment_fixed_size)?;
    writeln!(
        out,
        "  scratch: {} bytes per work-item{}",
        k.private_segment_fixed_size,
        if k.uses_dynamic_stack {
            " (+ dynamic stack)"
        } else {
            ""
        }
    )?;
    writeln!(out, "  wave size: {}", k.wave_size)?;
    writeln!(out, "  max workgroup size: {}", k.max_flat_workgroup_size)?;
    writeln!(
        out,
        "  registers: {} SGPR, {} VGPR, {} AGPR",
        k.sgpr_count, k.vgpr_count, k.agpr_count
    )?;
    if co.gpu.family() == Some(Family::Gfx9) {
        writeln!(out, "  accum offset: {}", kd.accum_offset())?;
    }
    // GFX12 has no IEEE_MODE / DX10_CLAMP bits (rsrc1 bit 21 is WG_RR_EN there).
    let modes = if co.gpu.family() == Some(Family::Gfx12) {
        String::new()
    } else {
        format!(
            ", ieee {}, dx10 clamp {}",
            on_off(kd.ieee_mode()),
            on_off(kd.dx10_clamp())
        )
    };
    writeln!(
        out,
        "  initial mode: float mode {:#04x} (MODE[7:0]){modes}",
        kd.float_mode()
    )?;
    if kd.kernarg_preload_length() > 0 {
        writeln!(
            out,
            "  kernarg preload: {} dwords from dword {}",
            kd.kernarg_preload_length(),
            kd.kernarg_preload_offset()
        )?;
    }
    writeln!(out, "  user SGPRs: {}", kd.user_sgpr_count())?;
    writeln!(out, "  SGPR inputs: {}", sgpr_inputs(k, co.gpu).join(", "))?;
    writeln!(out, "  VGPR inputs: {}", vgpr_inputs(k))?;
    writeln!(
        out,
        "  rsrc1 {:#010x}  rsrc2 {:#010x}  rsrc3 {:#010x}  properties {:#06x}",
        kd.rsrc1, kd.rsrc2, kd.rsrc3, kd.kernel_code_properties
    )
}

/// Prints the code object summary.
pub fn info(path: &Path, out: &mut dyn Write) -> CliResult {
    let co = load_code_object(path)?;
    (|| -> std::io::Result<()> {
        writeln!(out, "target: {}", co.target_id)?;
        writeln!(
            out,
            "gpu: {} (xnack {}, sramecc {})",
            co.gpu,
            feature(co.xnack),
            feature(co.sramecc)
        )?;
        if let Some(g) = co.generic {
            writeln!(
                out,
                "generic target: {g} (runs on its family; here as {})",
                co.gpu
            )?;
        }
        writeln!(out, "code object: v{}", co.version)?;
        writeln!(out, "kernels: {}", co.kernels.len())?;
        for k in &co.kernels {
            kernel(out, &co, k)?;
        }
        Ok(())
    })()
    .map_err(io_err)
}
