//! What a matrix opcode computes, derived from its LLVM mnemonic.
//!
//! CDNA names follow `V_MFMA_<out>_<M>X<N>X<K>[_<B>B]_<in>` (CDNA4 ISA 7.1, L2680;
//! `notes/cdna.md` §5.1–5.2): for every block `b < B`, `D[b] = C[b] + A[b]·B[b]` with A
//! M×K, B K×N. SMFMAC (`V_SMFMAC_...`) has a 2:4-sparse A packed to K/2 columns and
//! accumulates into its destination. The mnemonics come from the generated opcode tables
//! (LLVM), so no shape is typed by hand; register counts follow from the shape and are
//! checked against LLVM's printed operand widths in the tests.

use super::formats::Elem;
use crate::isa::{Family, Gpu};

/// Accumulator (C/D) type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Acc {
    /// f32 accumulation.
    F32,
    /// Wrapping (or, with MODE.FP16_OVFL, saturating) i32 accumulation.
    I32,
    /// f64 accumulation.
    F64,
}

/// The family of a matrix opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Dense MFMA with fixed operand types.
    Dense,
    /// Dense F8F6F4 MFMA: CBSZ and BLGP select A's and B's formats.
    F8f6f4,
    /// Block-scaled F8F6F4 MFMA (`v_mfma_scale_*`, gfx950).
    ScaledF8f6f4,
    /// 2:4-sparse SMFMAC.
    Sparse,
    /// RDNA dense WMMA (`crate::matrix::wmma`).
    Wmma,
    /// RDNA 2:4-sparse SWMMAC (`crate::matrix::wmma`).
    Swmmac,
}

/// Shape and types of one MFMA/SMFMAC opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatrixOp {
    /// Rows of A, C and D.
    pub m: usize,
    /// Columns of B, C and D.
    pub n: usize,
    /// The reduction length (logical, i.e. dense, for SMFMAC).
    pub k: usize,
    /// Independent blocks computed side by side.
    pub blocks: usize,
    /// A's element type (F8F6F4: the default, E4M3; the real one comes from CBSZ).
    pub a: Elem,
    /// B's element type (F8F6F4: the default, E4M3; the real one comes from BLGP).
    pub b: Elem,
    /// Accumulator type.
    pub acc: Acc,
    /// Dense, F8F6F4, scaled or sparse.
    pub kind: Kind,
    /// 16-bit C and D (RDNA `v_wmma_f16_*`/`_bf16_*`, `v_swmmac_f16_*`/`_bf16_*`): f32
    /// accumulation (`acc` is [`Acc::F32`]) rounded once to this type. `None`: C and D hold
    /// `acc`.
    pub d16: Option<Elem>,
}

impl MatrixOp {
    /// Parses an MFMA/SMFMAC mnemonic (`v_mfma_f32_32x32x8_f16`, `v_smfmac_i32_16x16x64_i8`,
    /// `v_mfma_scale_f32_16x16x128_f8f6f4`) for `gpu`. `None` for other mnemonics.
    pub fn from_mnemonic(name: &str, gpu: Gpu) -> Option<MatrixOp> {
        if matches!(gpu.family(), Some(Family::Gfx11 | Family::Gfx12)) {
            return Self::from_rdna_mnemonic(name, gpu);
        }
        let (kind, rest) = if let Some(r) = name.strip_prefix("v_mfma_scale_") {
            (Kind::ScaledF8f6f4, r)
        } else if let Some(r) = name.strip_prefix("v_mfma_") {
            (Kind::Dense, r)
        } else if let Some(r) = name.strip_prefix("v_smfmac_") {
            (Kind::Sparse, r)
        } else {
            return None;
        };
        let mut parts = rest.split('_');
        let acc = match parts.next()? {
            "f32" => Acc::F32,
            "i32" => Acc::I32,
            "f64" => Acc::F64,
            _ => return None,
        };
        let mut dims = parts.next()?.split('x').map(|d| d.parse::<usize>().ok());
        let (m, n, k) = (dims.next()??, dims.next()??, dims.next()??);
        if dims.next().is_some() {
            return None;
        }
        let mut blocks = 1;
        let mut ty: Vec<&str> = parts.collect();
        if let Some(b) = ty.first().and_then(|t| t.strip_suffix('b')) {
            if let Ok(b) = b.parse::<usize>() {
                blocks = b;
                ty.remove(0);
            }
        }
        // CDNA3 FP8/BF8 are FNUZ, CDNA4's are OCP (notes/cdna.md §5.8).
        let fnuz = gpu == Gpu::GFX942;
        let f8 = |t: &str| -> Option<Elem> {
            Some(match (t, fnuz) {
                ("fp8", true) => Elem::Fp8Fnuz,
                ("bf8", true) => Elem::Bf8Fnuz,
                ("fp8", false) => Elem::Fp8,
                ("bf8", false) => Elem::Bf8,
                _ => return None,
            })
        };
        let (a, b, kind) = match ty.as_slice() {
            ["f32"] => (Elem::F32, Elem::F32, kind),
            ["xf32"] => (Elem::Xf32, Elem::Xf32, kind),
            ["f16"] => (Elem::F16, Elem::F16, kind),
            ["bf16"] => (Elem::Bf16, Elem::Bf16, kind),
            ["i8"] => (Elem::I8, Elem::I8, kind),
            ["f64"] => (Elem::F64, Elem::F64, kind),
            ["f8f6f4"] if kind == Kind::Dense => (Elem::Fp8, Elem::Fp8, Kind::F8f6f4),
            ["f8f6f4"] if kind == Kind::ScaledF8f6f4 => (Elem::Fp8, Elem::Fp8, kind),
            [x, y] => (f8(x)?, f8(y)?, kind),
            _ => return None,
        };
        if kind == Kind::ScaledF8f6f4 && a != Elem::Fp8 {
            return None;
        }
        let op = MatrixOp {
            m,
            n,
            k,
            blocks,
            a,
            b,
            acc,
            kind,
            d16: None,
        };
        // Every lane group must hold whole rows: M·B and N·B divide 64 (ISA L3016).
        if m == 0 || n == 0 || k == 0 || 64 % (m * blocks) != 0 || 64 % (n * blocks) != 0 {
            return None;
        }
        let groups = 64 / (m * blocks);
        let k_stored = if kind == Kind::Sparse { k / 2 } else { k };
        if k_stored % groups != 0 || gpu.family() != Some(Family::Gfx9) {
            return None;
        }
        Some(op)
    }

    /// Parses an RDNA WMMA/SWMMAC mnemonic (`v_wmma_f32_16x16x16_f16`,
    /// `v_wmma_i32_16x16x32_iu4`, `v_swmmac_f32_16x16x32_fp8_bf8`; RDNA4 ISA Table 41,
    /// `notes/rdna.md` §5.1). IU8/IU4 operands parse as unsigned; the NEG bits make them signed.
    /// RDNA3 (GFX11) has only the six dense 16x16x16 f16/bf16/iu8/iu4 forms.
    fn from_rdna_mnemonic(name: &str, gpu: Gpu) -> Option<MatrixOp> {
        let rdna4 = gpu.family() == Some(Family::Gfx12);
        let (kind, rest) = if let Some(r) = name.strip_prefix("v_wmma_") {
            (Kind::Wmma, r)
        } else if let Some(r) = name.strip_prefix("v_swmmac_") {
            (Kind::Swmmac, r)
        } else {
            return None;
        };
        let mut parts = rest.split('_');
        let (acc, d16) = match parts.next()? {
            "f32" => (Acc::F32, None),
            "i32" => (Acc::I32, None),
            "f16" => (Acc::F32, Some(Elem::F16)),
            "bf16" => (Acc::F32, Some(Elem::Bf16)),
            _ => return None,
        };
        let k = match (parts.next()?, kind) {
            ("16x16x16", Kind::Wmma) => 16,
            ("16x16x32", _) => 32,
            ("16x16x64", Kind::Swmmac) => 64,
            _ => return None,
        };
        let f8 = |t: &str| match t {
            "fp8" => Some(Elem::Fp8),
            "bf8" => Some(Elem::Bf8),
            _ => None,
        };
        let ty: Vec<&str> = parts.collect();
        let (a, b) = match ty.as_slice() {
            ["f16"] if acc == Acc::F32 && d16 != Some(Elem::Bf16) => (Elem::F16, Elem::F16),
            ["bf16"] if acc == Acc::F32 && d16 != Some(Elem::F16) => (Elem::Bf16, Elem::Bf16),
            ["iu8"] if acc == Acc::I32 => (Elem::U8, Elem::U8),
            ["iu4"] if acc == Acc::I32 => (Elem::U4, Elem::U4),
            [x, y] if acc == Acc::F32 && d16.is_none() && rdna4 => (f8(x)?, f8(y)?),
            _ => return None,
        };
        // K beyond 16 (dense) / 32 (sparse) exists for IU4 only; RDNA3 has no K = 32 and no
        // sparse forms.
        let k_base = if kind == Kind::Swmmac { 32 } else { 16 };
        if (k != k_base && a != Elem::U4) || (!rdna4 && (k != 16 || kind != Kind::Wmma)) {
            return None;
        }
        Some(MatrixOp {
            m: 16,
            n: 16,
            k,
            blocks: 1,
            a,
            b,
            acc,
            kind,
            d16,
        })
    }

    /// K as stored in A's registers (K/2 for sparse A).
    pub fn k_a(&self) -> usize {
        if matches!(self.kind, Kind::Sparse | Kind::Swmmac) {
            self.k / 2
        } else {
            self.k
        }
    }

    /// Items of A per lane: `K_L = K / (64 / (M·B))` (ISA 7.1.4), with K/2 for sparse A.
    pub fn a_per_lane(&self) -> usize {
        self.k_a() * self.m * self.blocks / 64
    }

    /// Items of B per lane: `K_L = K / (64 / (N·B))`.
    pub fn b_per_lane(&self) -> usize {
        self.k * self.n * self.blocks / 64
    }

    /// Registers holding A when its elements are `a`.
    pub fn a_regs(&self, a: Elem) -> usize {
        (self.m * self.k_a() * self.blocks * a.bits() as usize).div_ceil(2048)
    }

    /// Registers holding B when its elements are `b`.
    pub fn b_regs(&self, b: Elem) -> usize {
        (self.n * self.k * self.blocks * b.bits() as usize).div_ceil(2048)
    }

    /// Registers holding C and D (MFMA; WMMA/SWMMAC: `crate::matrix::wmma::operand_regs`).
    pub fn cd_regs(&self) -> usize {
        let bits = if self.acc == Acc::F64 { 64 } else { 32 };
        self.m * self.n * self.blocks * bits / 2048
    }

    /// Bits of one SMFMAC index set: 2 bits per packed A item of a lane (CDNA4 ISA 7.5,
    /// Tables 35/37); the index VGPR holds `32 / sparse_index_bits()` sets.
    pub fn sparse_index_bits(&self) -> u32 {
        2 * self.a_per_lane() as u32
    }
}
