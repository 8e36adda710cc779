//! The operand conventions of the RDNA decoder (`isa::rdna` module docs): which `Inst` fields
//! hold what. Words from llvm-mc-22 (the assembly is in each comment); expected fields worked
//! out by hand from the RDNA4 ISA guide's field layouts (ch. 15).

use wavejit_translator::isa::{decode, Format, Gpu, Op, Opnd, Target};

fn words(gpu: Gpu, wave_size: u32, w: &[u32]) -> wavejit_translator::isa::Inst {
    let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let inst = decode(&Target { gpu, wave_size }, &bytes, 0x100).expect("decodes");
    assert_eq!(inst.size as usize, bytes.len());
    inst
}

const fn v(r: u8, n: u8) -> Opnd {
    Opnd::vgpr(r, n)
}

const fn s(r: u8, n: u8) -> Opnd {
    Opnd::scalar(r, n)
}

#[test]
fn vop3sd_null_sdst_and_scalar_sources() {
    // gfx1100 `v_mad_u64_u32 v[1:2], null, s15, s2, v[0:1]`
    let i = words(Gpu::GFX1100, 32, &[0xD6FE_7C01, 0x0400_040F]);
    assert_eq!(i.op, Op::V_MAD_U64_U32);
    assert_eq!(i.format, Format::Vop3b);
    assert_eq!(i.dst, [v(1, 2), Opnd::scalar(Opnd::NULL as u8, 1)]);
    assert_eq!(&i.src[..3], &[s(15, 1), s(2, 1), v(0, 2)]);
    // gfx1200 `v_mad_co_u64_u32 v[0:1], null, ttmp9, s2, v[0:1]` (ttmp9 = code 117).
    let i = words(Gpu::GFX1200, 32, &[0xD6FE_7C00, 0x0400_0475]);
    assert_eq!(i.op, Op::V_MAD_CO_U64_U32);
    assert_eq!(i.src[0], s(117, 1));
    // wave64: the SGPR carry-out is a pair.
    let i = words(Gpu::GFX1100, 64, &[0xD6FE_7C01, 0x0400_040F]);
    assert_eq!(i.dst[1].count, 2);
}

#[test]
fn m0_and_null_are_mapped_to_the_common_codes() {
    // gfx1100 `s_mov_b32 m0, s0`: RDNA encodes m0 as 125.
    let i = words(Gpu::GFX1100, 32, &[0xBEFD_0000]);
    assert_eq!(i.op, Op::S_MOV_B32);
    assert_eq!(i.dst[0], s(Opnd::M0 as u8, 1));
    // gfx1100 `s_load_b128 s[4:7], s[0:1], null`: a null SOFFSET is no operand.
    let i = words(Gpu::GFX1100, 32, &[0xF408_0100, 0xF800_0000]);
    assert_eq!(i.op, Op::S_LOAD_B128);
    assert_eq!(i.dst[0], s(4, 4));
    assert_eq!(i.src[0], s(0, 2));
    assert!(!i.src[2].is_some());
    assert_eq!(i.mem.offset, 0);
}

#[test]
fn true16_halves_are_in_op_sel() {
    // gfx1100 `v_add_f16_e32 v1.h, v2.h, v3.l`: bit 7 of each 16-bit register field.
    let i = words(Gpu::GFX1100, 32, &[0x6502_0782]);
    assert_eq!(i.op, Op::V_ADD_F16);
    assert_eq!(i.dst[0], v(1, 1));
    assert_eq!(&i.src[..2], &[v(2, 1), v(3, 1)]);
    assert_eq!(i.mods.op_sel, 0b1001);
}

#[test]
fn vopd_halves() {
    // `v_dual_mul_f32 v0, v1, v2 :: v_dual_add_f32 v3, v4, v5` (Y opcode 4 = add).
    let i = words(Gpu::GFX1100, 32, &[0xC8C8_0501, 0x0002_0B04]);
    assert_eq!(i.format, Format::Vopd);
    assert_eq!(i.op, Op::V_DUAL_MUL_F32);
    assert_eq!(i.imm, 4);
    assert_eq!(i.dst, [v(0, 1), v(3, 1)]);
    assert_eq!(i.src, [v(1, 1), v(2, 1), v(4, 1), v(5, 1)]);
}

#[test]
fn implicit_vcc_and_exec_follow_the_wave_size() {
    // `v_add_co_ci_u32_e32 v1, vcc_lo, v2, v3, vcc_lo`
    for (wave, n) in [(32, 1), (64, 2)] {
        let i = words(Gpu::GFX1100, wave, &[0x4002_0702]);
        assert_eq!(i.op, Op::V_ADD_CO_CI_U32);
        assert_eq!(i.dst[1], s(106, n));
        assert_eq!(i.src[2], s(106, n));
        // `v_cmpx_gt_u32_e32 v1, v2` writes EXEC.
        let i = words(Gpu::GFX1100, wave, &[0x7D98_0501]);
        assert_eq!(i.dst[0], s(126, n));
    }
}

#[test]
fn returning_atomics_have_a_destination() {
    // gfx1100 `global_atomic_cmpswap_b32 v1, v2, v[4:5], s[6:7] glc`: returns one dword.
    let i = words(Gpu::GFX1100, 32, &[0xDCD2_4000, 0x0106_0402]);
    assert_eq!(i.op, Op::GLOBAL_ATOMIC_CMPSWAP_B32);
    assert_eq!(i.dst[0], v(1, 1));
    assert_eq!(&i.src[..3], &[v(2, 1), v(4, 2), s(6, 2)]);
    // gfx1200 `global_atomic_add_u32 v1, v2, v3, s[4:5] th:TH_ATOMIC_RETURN`
    let i = words(Gpu::GFX1200, 32, &[0xEE0D_4004, 0x0190_0001, 0x0000_0002]);
    assert_eq!(i.op, Op::GLOBAL_ATOMIC_ADD_U32);
    assert_eq!(i.dst[0], v(1, 1));
    assert_eq!(&i.src[..3], &[v(2, 1), v(3, 1), s(4, 2)]);
    assert_eq!(i.mem.cpol & 7, 1);
}

#[test]
fn gfx1201_decodes_like_gfx1200_and_targets_gate_opcodes() {
    use wavejit_translator::isa::generated::{TARGET_GFX1100, TARGET_GFX1200, TARGET_GFX1201};
    let w = [0xEE0D_4004, 0x0190_0001, 0x0000_0002];
    assert_eq!(words(Gpu::GFX1201, 32, &w), words(Gpu::GFX1200, 32, &w));
    // `s_wait_loadcnt` exists on GFX12 only; `s_waitcnt_vscnt` on GFX11 only.
    let t = Op::S_WAIT_LOADCNT.targets();
    assert_eq!(
        t & (TARGET_GFX1100 | TARGET_GFX1200 | TARGET_GFX1201),
        TARGET_GFX1200 | TARGET_GFX1201
    );
    assert_eq!(Op::S_WAITCNT_VSCNT.targets() & TARGET_GFX1200, 0);
    // SOPP opcode 0x40 (`s_wait_loadcnt` on gfx12) is not an instruction on gfx1100.
    let b = 0xBFC0_0000u32.to_le_bytes();
    assert!(decode(&Target::new(Gpu::GFX1100), &b, 0).is_err());
    assert_eq!(
        decode(&Target::new(Gpu::GFX1200), &b, 0).unwrap().op,
        Op::S_WAIT_LOADCNT
    );
}
