//! The Triton matmul builds of the `gemm_f16` rows beyond CDNA3's (which is in
//! [`super::GEMM_BUILDS`]): the same `matmul_kernel` (64×64×32 blocks, f16 C,
//! `tests/kernels/triton/kernels.py`) compiled by Triton for RDNA3, RDNA4 and CDNA4.

use super::{GemmBuild, GemmKind};

/// Triton `matmul_f16` for gfx1100 (wave32, WMMA), gfx1201 (wave32, RDNA4 WMMA) and gfx950
/// (wave64, MFMA).
pub(super) const TRITON_GEMM_BUILDS: &[GemmBuild] = &[
    GemmBuild {
        label: "Triton gfx1100 w32",
        kind_label: "Triton",
        gpu: "gfx1100",
        wave: 32,
        object: include_bytes!("../../../tests/kernels/triton/gfx1100/matmul_f16.hsaco"),
        kind: GemmKind::Triton {
            json: include_str!("../../../tests/kernels/triton/gfx1100/matmul_f16.json"),
        },
    },
    GemmBuild {
        label: "Triton gfx1201 w32",
        kind_label: "Triton",
        gpu: "gfx1201",
        wave: 32,
        object: include_bytes!("../../../tests/kernels/triton/gfx1201/matmul_f16.hsaco"),
        kind: GemmKind::Triton {
            json: include_str!("../../../tests/kernels/triton/gfx1201/matmul_f16.json"),
        },
    },
    GemmBuild {
        label: "Triton gfx950",
        kind_label: "Triton",
        gpu: "gfx950",
        wave: 64,
        object: include_bytes!("../../../tests/kernels/triton/gfx950/matmul_f16.hsaco"),
        kind: GemmKind::Triton {
            json: include_str!("../../../tests/kernels/triton/gfx950/matmul_f16.json"),
        },
    },
];
