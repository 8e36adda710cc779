//! The emulated GPU: chosen by `WAVEJIT_GPU` (default gfx942), and the properties HIP
//! reports for it (the real product's shape; memory and LDS as wavejit provides them).

use wavejit_translator::isa::Gpu;

/// Environment variable choosing the emulated GPU.
pub const GPU_ENV: &str = "WAVEJIT_GPU";

/// Properties of the emulated GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuProps {
    /// The GPU.
    pub gpu: Gpu,
    /// Marketing name.
    pub name: String,
    /// Full target id (`gfx942:sramecc+:xnack-`).
    pub arch_name: String,
    /// Wave size of compiled HIP code (64 on CDNA, 32 on RDNA).
    pub warp_size: i32,
    /// Compute units.
    pub cu_count: i32,
    /// LDS per workgroup wavejit provides.
    pub lds_per_block: usize,
    /// Shader clock in kHz.
    pub clock_khz: i32,
    /// gfx major and minor version (`9`, `4` for gfx942).
    pub major: i32,
    /// See `major`.
    pub minor: i32,
    /// L2 cache bytes.
    pub l2_bytes: i32,
}

/// The GPU named by `WAVEJIT_GPU`, or gfx942; an error message for an unknown name.
pub fn emulated_gpu() -> Result<Gpu, String> {
    match std::env::var(GPU_ENV) {
        Ok(name) if !name.trim().is_empty() => {
            let n = name.trim();
            let n = n.split(':').next().unwrap_or(n);
            Gpu::from_name(n).ok_or_else(|| {
                format!(
                    "{GPU_ENV}={name} is not a GPU wavejit emulates (gfx942, gfx950, gfx1100-gfx1103, gfx1150-gfx1153, gfx1200, gfx1201)"
                )
            })
        }
        _ => Ok(Gpu::GFX942),
    }
}

/// The properties of `gpu`.
pub fn props(gpu: Gpu) -> GpuProps {
    let lds = wavejit_runtime::dispatch::MAX_LDS_BYTES as usize;
    let (name, arch, warp, cus, clock, l2) = match gpu.id {
        0x942 => (
            "AMD Instinct MI300X",
            "gfx942:sramecc+:xnack-",
            64,
            304,
            2_100_000,
            4 << 20,
        ),
        0x950 => (
            "AMD Instinct MI355X",
            "gfx950:sramecc+:xnack-",
            64,
            256,
            2_400_000,
            4 << 20,
        ),
        0x1100 => (
            "AMD Radeon RX 7900 XTX",
            "gfx1100",
            32,
            96,
            2_500_000,
            6 << 20,
        ),
        0x1101 => (
            "AMD Radeon RX 7800 XT",
            "gfx1101",
            32,
            60,
            2_430_000,
            4 << 20,
        ),
        0x1102 => ("AMD Radeon RX 7600", "gfx1102", 32, 32, 2_650_000, 2 << 20),
        0x1200 => (
            "AMD Radeon RX 9060 XT",
            "gfx1200",
            32,
            32,
            3_130_000,
            4 << 20,
        ),
        0x1201 => (
            "AMD Radeon RX 9070 XT",
            "gfx1201",
            32,
            64,
            2_970_000,
            8 << 20,
        ),
        _ => ("AMD Radeon Graphics", "", 32, 16, 2_000_000, 2 << 20),
    };
    let arch = if arch.is_empty() {
        gpu.to_string()
    } else {
        arch.to_string()
    };
    let hex = format!("{:x}", gpu.id);
    // gfx942 -> 9.4, gfx1100 -> 11.0, gfx1201 -> 12.0.
    let (major, minor) = if hex.len() == 3 {
        (
            hex[..1].parse().unwrap_or(9),
            hex[1..2].parse().unwrap_or(0),
        )
    } else {
        (
            hex[..2].parse().unwrap_or(11),
            hex[2..3].parse().unwrap_or(0),
        )
    };
    GpuProps {
        gpu,
        name: format!("{name} (wavejit)"),
        arch_name: arch,
        warp_size: warp,
        cu_count: cus,
        lds_per_block: lds,
        clock_khz: clock,
        major,
        minor,
        l2_bytes: l2,
    }
}

/// Total host memory (what device memory is carved from), from `/proc/meminfo`.
pub fn host_memory() -> usize {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024)
        })
        .unwrap_or(16 << 30)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_come_from_the_target_name() {
        let p = props(Gpu::GFX942);
        assert_eq!((p.major, p.minor, p.warp_size), (9, 4, 64));
        let p = props(Gpu::GFX1100);
        assert_eq!((p.major, p.minor, p.warp_size), (11, 0, 32));
        assert_eq!(props(Gpu::GFX1201).major, 12);
        assert_eq!(props(Gpu::GFX950).minor, 5);
    }
}
