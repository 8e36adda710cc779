//! The `Inst` fields the lifter relies on, for one instruction of each shape. Words are
//! llvm-mc-22's encodings of the assembly in each comment; the expected fields follow the
//! operand-role rules documented on `isa::Inst` and the GFX9 bit layouts.

use wavejit_translator::isa::{decode, Format, Gpu, Inst, Op, Opnd, Target};

const VCC: Opnd = Opnd::scalar(106, 2);

fn dec(words: &[u32]) -> Inst {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let inst = decode(&Target::new(Gpu::GFX942), &bytes, 0x100).expect("decodes");
    assert_eq!(inst.size as usize, bytes.len(), "size of {words:08x?}");
    inst
}

#[test]
fn vop2_carry_has_explicit_vcc() {
    // v_addc_co_u32_e32 v1, vcc, v2, v1, vcc
    let i = dec(&[0x38020302]);
    assert_eq!((i.op, i.format), (Op::V_ADDC_CO_U32, Format::Vop2));
    assert_eq!(i.dst, [Opnd::vgpr(1, 1), VCC]);
    assert_eq!(&i.src[..3], &[Opnd::vgpr(2, 1), Opnd::vgpr(1, 1), VCC]);
}

#[test]
fn vopc_and_vop3_compare_destinations() {
    // v_cmp_gt_i32_e64 s[0:1], s4, v0
    let i = dec(&[0xd0c40000, 0x00020004]);
    assert_eq!((i.op, i.format), (Op::V_CMP_GT_I32, Format::Vop3));
    assert_eq!(i.dst[0], Opnd::scalar(0, 2));
    assert_eq!(&i.src[..2], &[Opnd::scalar(4, 1), Opnd::vgpr(0, 1)]);
    // v_cmp_gt_u32_e32 vcc, s4, v0 (from the vadd kernel)
    let i = dec(&[0x7d980004]);
    assert_eq!((i.op, i.dst[0]), (Op::V_CMP_GT_U32, VCC));
}

#[test]
fn vop3_modifiers_and_vop3b() {
    // v_add_f32_e64 v2, -v6, |v7| clamp
    let i = dec(&[0xd1018202, 0x20020f06]);
    assert_eq!((i.mods.neg, i.mods.abs, i.mods.clamp), (1, 2, true));
    // v_mad_u64_u32 v[0:1], s[12:13], v2, s5, v[4:5]
    let i = dec(&[0xd1e80c00, 0x04100b02]);
    assert_eq!(i.format, Format::Vop3b);
    assert_eq!(i.dst, [Opnd::vgpr(0, 2), Opnd::scalar(12, 2)]);
    assert_eq!(
        &i.src[..3],
        &[Opnd::vgpr(2, 1), Opnd::scalar(5, 1), Opnd::vgpr(4, 2)]
    );
}

#[test]
fn literal_and_k_constant() {
    // s_and_b32 s3, s3, 0xffff
    let i = dec(&[0x8603ff03, 0x0000ffff]);
    assert_eq!(i.src[1].code, Opnd::LITERAL);
    assert_eq!(i.literal, Some(0xffff));
    // v_fmamk_f32 v0, v1, 0x40490fdb, v2: K is the second source
    let i = dec(&[0x2e000501, 0x40490fdb]);
    assert_eq!(i.src[1].code, Opnd::LITERAL);
    assert_eq!(i.src[2], Opnd::vgpr(2, 1));
    assert_eq!(i.literal, Some(0x40490fdb));
}

#[test]
fn dpp_and_sdwa_controls() {
    // v_mov_b32_dpp v0, v6 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
    let i = dec(&[0x7e0002fa, 0xff00b106]);
    assert_eq!(i.src[0], Opnd::vgpr(6, 1));
    let d = i.dpp.expect("dpp");
    assert_eq!(
        (d.ctrl, d.row_mask, d.bank_mask, d.bound_ctrl),
        (0xb1, 0xf, 0xf, false)
    );
    // v_cmp_eq_u32_sdwa s[6:7], v5, v2 src0_sel:BYTE_0 src1_sel:DWORD
    let i = dec(&[0x7d9404f9, 0x06008605]);
    assert_eq!(i.dst[0], Opnd::scalar(6, 2));
    let s = i.sdwa.expect("sdwa");
    assert_eq!((s.src0_sel, s.src1_sel), (0, 6));
}

#[test]
fn scalar_memory_and_branches() {
    // s_load_dword s3, s[0:1], 0x2c
    let i = dec(&[0xc00200c0, 0x0000002c]);
    assert_eq!(i.dst[0], Opnd::scalar(3, 1));
    assert_eq!(i.src[0], Opnd::scalar(0, 2));
    assert_eq!(i.mem.offset, 0x2c);
    // s_cbranch_execnz -20 (target = pc + 4 + imm * 4)
    let i = dec(&[0xbf89ffec]);
    assert_eq!((i.op, i.imm), (Op::S_CBRANCH_EXECNZ, -20));
}

#[test]
fn vector_memory_operand_roles() {
    // global_load_dword v6, v4, s[0:1] offset:-16
    let i = dec(&[0xdc509ff0, 0x06000004]);
    assert_eq!(i.format, Format::Global);
    assert_eq!(i.dst[0], Opnd::vgpr(6, 1));
    assert_eq!(i.src[0], Opnd::vgpr(4, 1));
    assert_eq!(i.src[2], Opnd::scalar(0, 2));
    assert_eq!(i.mem.offset, -16);
    // scratch_store_dword off, v1, s3 offset:-8
    let i = dec(&[0xdc705ff8, 0x00030100]);
    assert!(!i.src[0].is_some());
    assert_eq!(
        (i.src[1], i.src[2], i.mem.offset),
        (Opnd::vgpr(1, 1), Opnd::scalar(3, 1), -8)
    );
    // ds_read2_b32 v[8:9], v1 offset1:2
    let i = dec(&[0xd86e0200, 0x08000001]);
    assert_eq!((i.dst[0], i.src[0]), (Opnd::vgpr(8, 2), Opnd::vgpr(1, 1)));
    assert_eq!((i.mem.offset, i.mem.offset1), (0, 2));
    // buffer_load_dword v0, v1, s[4:7], s8 idxen offset:16
    let i = dec(&[0xe0502010, 0x08010001]);
    assert_eq!(i.dst[0], Opnd::vgpr(0, 1));
    assert_eq!(i.src[0], Opnd::vgpr(1, 1));
    assert_eq!(
        (i.src[2], i.src[3]),
        (Opnd::scalar(8, 1), Opnd::scalar(4, 4))
    );
    assert!(i.mem.idxen && !i.mem.offen);
    assert_eq!(i.mem.offset, 16);
}

#[test]
fn matrix_operands() {
    // v_mfma_f32_16x16x16_f16 a[0:3], v[20:21], v[10:11], a[0:3]
    let i = dec(&[0xd3cd8000, 0x04021514]);
    assert_eq!(i.format, Format::Mai);
    assert_eq!(i.dst[0], Opnd::agpr(0, 4));
    assert_eq!(
        &i.src[..3],
        &[Opnd::vgpr(20, 2), Opnd::vgpr(10, 2), Opnd::agpr(0, 4)]
    );
    // v_accvgpr_read_b32 v0, a0
    let i = dec(&[0xd3d84000, 0x18000100]);
    assert_eq!((i.dst[0], i.src[0]), (Opnd::vgpr(0, 1), Opnd::agpr(0, 1)));
}
