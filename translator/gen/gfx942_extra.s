// Hand-picked gfx942 instructions (the forms compilers emit and the syntax corner cases
// the disassembler must print exactly). gen_tables.py assembles them with llvm-mc-22 and
// adds LLVM's disassembly of the result to gfx942_cases.txt.
s_load_dword s3, s[0:1], 0x2c
s_load_dwordx2 s[2:3], s[0:1], 0x10
s_load_dwordx4 s[4:7], s[0:1], 0x0
s_load_dwordx8 s[8:15], s[0:1], 0x20
s_load_dwordx16 s[16:31], s[0:1], 0x40
s_load_dword s3, s[0:1], s4
s_buffer_load_dword s3, s[0:3], 0x4
s_buffer_load_dwordx4 s[4:7], s[8:11], s12 offset:0x10
s_store_dword s3, s[0:1], 0x8 glc
s_dcache_wb
s_dcache_inv
s_memtime s[0:1]
s_memrealtime s[2:3]
s_waitcnt vmcnt(0) lgkmcnt(0)
s_waitcnt vmcnt(0)
s_waitcnt lgkmcnt(0)
s_waitcnt expcnt(0)
s_waitcnt vmcnt(12)
s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)
s_waitcnt 0
s_nop 0
s_nop 7
s_endpgm
s_barrier
s_setprio 3
s_setprio 0
s_sleep 1
s_trap 2
s_icache_inv
s_branch 5
s_branch -3
s_cbranch_execz 22
s_cbranch_execnz -20
s_cbranch_scc0 1
s_cbranch_scc1 0x7fff
s_cbranch_vccz -1
s_cbranch_vccnz 100
s_set_gpr_idx_on s0, gpr_idx(SRC0)
s_set_gpr_idx_on s2, gpr_idx(SRC0,SRC1,SRC2,DST)
s_set_gpr_idx_off
s_set_gpr_idx_mode gpr_idx(DST)
s_set_gpr_idx_idx s4
s_getpc_b64 s[0:1]
s_setpc_b64 s[30:31]
s_swappc_b64 s[30:31], s[4:5]
s_sendmsg sendmsg(MSG_INTERRUPT)
s_getreg_b32 s0, hwreg(HW_REG_MODE, 0, 4)
s_getreg_b32 s0, hwreg(HW_REG_HW_ID)
s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s1
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 8), 0xab
s_movk_i32 s0, 0x1234
s_movk_i32 s0, 0xffff
s_addk_i32 s0, 0x10
s_mulk_i32 s1, 0x3
s_cmpk_eq_u32 s2, 0x40
s_mov_b32 s0, 0x12345678
s_mov_b32 s0, -1
s_mov_b32 s0, 64
s_mov_b32 s0, 65
s_mov_b32 s0, 0.5
s_mov_b32 s0, 1.0
s_mov_b32 s0, 0x3e22f983
s_mov_b64 s[0:1], src_private_base
s_mov_b64 s[0:1], src_shared_base
s_mov_b32 s0, src_shared_limit
s_mov_b64 s[0:1], exec
s_mov_b64 exec, s[2:3]
s_mov_b32 m0, -1
s_mov_b32 s0, flat_scratch_lo
s_mov_b64 s[0:1], vcc
s_and_saveexec_b64 s[2:3], vcc
s_or_b64 exec, exec, s[2:3]
s_andn2_b64 exec, exec, s[4:5]
s_xor_b64 s[0:1], exec, -1
s_and_b32 s3, s3, 0xffff
s_lshl_b64 s[0:1], s[2:3], 2
s_lshr_b32 s0, s1, 31
s_ashr_i32 s0, s1, 31
s_bfe_u32 s0, s1, 0x80008
s_mul_i32 s2, s2, s3
s_mul_hi_u32 s4, s5, s6
s_add_u32 s0, s0, s4
s_addc_u32 s1, s1, s5
s_cselect_b32 s0, s1, s2
s_cselect_b64 s[0:1], -1, 0
s_cmp_lt_i32 s0, s1
s_cmp_eq_u64 s[0:1], 0
s_bitcmp1_b32 s0, 3
s_ff1_i32_b32 s0, s1
s_bcnt1_i32_b64 s0, s[2:3]
s_abs_i32 s0, s1
s_sext_i32_i16 s0, s1
v_mov_b32_e32 v0, src_shared_base
v_mov_b32_e32 v1, 0
v_mov_b32_e32 v1, 0x7fffffff
v_mov_b32_e32 v1, s2
v_mov_b32_e32 v1, exec_lo
v_mov_b32_e32 v1, vcc_hi
v_mov_b32_e32 v1, m0
v_mov_b32_e32 v1, 0.15915494
v_readfirstlane_b32 s0, v1
v_add_u32_e32 v0, s2, v0
v_add_f32_e32 v2, v6, v7
v_add_f32_e64 v2, -v6, |v7| clamp
v_add_f32_e64 v2, v6, v7 mul:2
v_add_f32_e64 v2, v6, v7 div:2
v_sub_f32_e64 v2, -|v6|, -1.0
v_mul_f32_e32 v0, 0x3fb8aa3b, v1
v_fma_f32 v0, v1, v2, v3
v_fma_f32 v0, -v1, s2, 1.0
v_fmac_f32_e32 v0, v1, v2
v_fmamk_f32 v0, v1, 0x40490fdb, v2
v_fmaak_f32 v0, v1, v2, 0x40490fdb
v_mad_u32_u24 v0, v1, v2, v3
v_mad_u64_u32 v[0:1], s[12:13], v2, s5, v[4:5]
v_mad_i64_i32 v[0:1], s[12:13], v2, v3, v[4:5]
v_lshl_add_u64 v[4:5], s[4:5], 0, v[0:1]
v_lshlrev_b64 v[0:1], 2, v[0:1]
v_lshl_or_b32 v0, s2, 8, v0
v_add_co_u32_e32 v0, vcc, s0, v0
v_add_co_u32_e64 v0, s[0:1], s0, v0
v_addc_co_u32_e32 v1, vcc, v2, v1, vcc
v_addc_co_u32_e64 v1, s[0:1], v2, v1, s[2:3]
v_sub_co_u32_e32 v0, vcc, v1, v2
v_subrev_co_u32_e32 v0, vcc, v1, v2
v_subb_co_u32_e32 v1, vcc, v2, v3, vcc
v_cndmask_b32_e32 v0, 0, v1, vcc
v_cndmask_b32_e64 v0, 0, 1, s[2:3]
v_cmp_gt_u32_e32 vcc, s4, v0
v_cmp_gt_i32_e64 s[0:1], s4, v0
v_cmp_lt_f32_e64 s[0:1], |v1|, 1.0
v_cmp_class_f32_e64 s[0:1], v1, 3
v_cmpx_eq_u32_e32 vcc, 0, v1
v_cmpx_gt_u32_e64 s[0:1], s3, v1
v_cmp_eq_u64_e32 vcc, 0, v[0:1]
v_cmp_ne_u64_e64 s[4:5], v[0:1], v[2:3]
v_div_scale_f32 v0, vcc, v1, v1, v2
v_div_scale_f64 v[0:1], s[2:3], v[2:3], v[2:3], v[4:5]
v_div_fmas_f32 v0, v1, v2, v3
v_div_fixup_f32 v0, v1, v2, v3
v_rcp_f32_e32 v0, v1
v_exp_f32_e32 v0, v1
v_sqrt_f32_e64 v0, |v1|
v_cvt_f32_u32_e32 v0, v1
v_cvt_u32_f32_e32 v0, v1
v_cvt_f16_f32_e32 v0, v1
v_cvt_f32_f16_e32 v0, v1
v_cvt_pkrtz_f16_f32 v0, v1, v2
v_cvt_f64_f32_e32 v[0:1], v2
v_add_f64 v[0:1], v[2:3], v[4:5]
v_fma_f64 v[0:1], v[2:3], v[4:5], v[6:7]
v_mul_f64 v[0:1], v[2:3], 1.0
v_add_f16_e32 v0, 0x3c00, v1
v_max3_f16 v0, v1, v2, v3 op_sel:[1,0,0,0]
v_pk_add_f16 v0, v1, v2
v_pk_add_f16 v0, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]
v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]
v_pk_fma_f32 v[2:3], v[2:3], s[2:3], v[6:7] op_sel_hi:[1,0,1]
v_pk_mul_f32 v[0:1], v[2:3], v[4:5] neg_lo:[1,0] neg_hi:[1,0]
v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel:[0,1]
v_fma_mix_f32 v0, v1, v2, v3 op_sel_hi:[1,1,0]
v_dot2_f32_f16 v0, v1, v2, v3
// VOP3P dot products in their only defined form (LLVM rejects op_sel/op_sel_hi on them)
v_dot2_i32_i16 v0, v1, v2, v3
v_dot2_u32_u16 v4, v5, s6, v7 clamp
v_dot4_u32_u8 v0, v1, v2, v3
v_perm_b32 v0, v1, v2, s3
v_bfe_u32 v0, v1, 8, 8
v_bfi_b32 v0, v1, v2, v3
v_alignbit_b32 v0, v1, v2, 16
v_mbcnt_lo_u32_b32 v0, -1, 0
v_mbcnt_hi_u32_b32 v0, -1, v0
v_readlane_b32 s1, v4, s0
v_writelane_b32 v0, s1, 5
v_mul_hi_u32 v0, v1, v2
v_mul_lo_u32 v0, v1, v2
v_max3_f32 v0, v1, v2, v3
v_med3_i32 v0, v1, v2, v3
v_ashrrev_i32_e32 v1, 31, v0
v_lshrrev_b32_e32 v1, 5, v0
v_and_b32_e32 v0, 0x3ff, v0
v_bfrev_b32_e32 v0, v1
v_ffbh_u32_e32 v0, v1
v_not_b32_e32 v0, v1
v_mov_b32_dpp v0, v6 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
v_add_u32_dpp v2, v2, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_add_f32_dpp v0, v1, v2 row_bcast:15 row_mask:0xa bank_mask:0xf
v_add_f32_dpp v0, -v1, |v2| row_bcast:31 row_mask:0xc bank_mask:0xf
v_mov_b32_dpp v0, v1 wave_shr:1 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 row_mirror row_mask:0xf bank_mask:0xf
v_max_i32_dpp v0, v1, v2 row_half_mirror row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 row_newbcast:1 row_mask:0xf bank_mask:0xf
v_add_f32_sdwa v0, v1, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_mov_b32_sdwa v0, v1 dst_sel:BYTE_0 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_2
v_cvt_f32_ubyte0_e32 v0, v1
v_cmp_eq_u32_sdwa s[6:7], v5, v2 src0_sel:BYTE_0 src1_sel:DWORD
v_cmp_eq_u32_sdwa vcc, v5, v2 src0_sel:WORD_1 src1_sel:WORD_0
v_and_b32_sdwa v0, sext(v1), v2 dst_sel:WORD_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_1 src1_sel:DWORD
v_accvgpr_write_b32 a3, 0
v_accvgpr_write_b32 a0, v1
v_accvgpr_read_b32 v0, a0
v_accvgpr_mov_b32 a1, a2
v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]
v_mfma_f32_32x32x8_f16 v[0:15], v[28:29], v[30:31], v[0:15]
v_mfma_f32_16x16x16_f16 a[0:3], v[20:21], v[10:11], a[0:3]
v_mfma_f32_16x16x16_f16 a[0:3], v[20:21], v[10:11], 0
v_mfma_f32_32x32x2_f32 a[0:15], v0, v1, a[0:15] cbsz:1 abid:1 blgp:2
v_mfma_f32_16x16x32_fp8_fp8 a[0:3], v[0:1], v[2:3], a[0:3]
v_mfma_f32_16x16x8_xf32 v[0:3], v[4:5], v[6:7], v[0:3]
v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]
v_mfma_i32_32x32x16_i8 a[0:15], v[0:1], v[2:3], a[0:15]
v_mfma_f32_32x32x4_2b_bf16 a[0:31], v[0:1], v[2:3], a[0:31]
v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10
ds_write_b32 v1, v2
ds_write_b32 v1, v2 offset:8
ds_write_b64 v1, v[2:3] offset:65528
ds_write_b128 v1, v[4:7]
ds_write2_b32 v1, v2, v3 offset0:1 offset1:2
ds_write2st64_b64 v1, v[2:3], v[4:5] offset1:1
ds_read_b32 v8, v1
ds_read_b64 v[8:9], v1 offset:256
ds_read_b128 v[8:11], v1
ds_read2_b32 v[8:9], v1 offset1:2
ds_read2st64_b32 v[2:3], v1 offset1:2
ds_read_u16 v0, v1
ds_read_u8 v0, v1 offset:3
ds_add_u32 v1, v2
ds_add_rtn_u32 v0, v1, v2
ds_cmpst_rtn_b32 v0, v1, v2, v3
ds_swizzle_b32 v2, v6 offset:swizzle(SWAP,1)
ds_swizzle_b32 v2, v6 offset:swizzle(QUAD_PERM,1,0,3,2)
ds_swizzle_b32 v2, v6 offset:swizzle(BROADCAST,8,3)
ds_swizzle_b32 v2, v6 offset:swizzle(REVERSE,16)
ds_swizzle_b32 v2, v6 offset:swizzle(BITMASK_PERM,"01pip")
ds_bpermute_b32 v0, v1, v2
ds_permute_b32 v0, v1, v2 offset:4
ds_nop
ds_write_b32 v1, a2
ds_read_b32 a0, v1
global_load_dword v6, v[4:5], off
global_load_dword v6, v4, s[0:1]
global_load_dword v6, v4, s[0:1] offset:-16
global_load_dwordx2 v[6:7], v[4:5], off offset:8
global_load_dwordx4 v[0:3], v4, s[0:1] offset:16 sc0 nt
global_load_ushort v0, v[2:3], off sc1
global_load_short_d16_hi v0, v[2:3], off
global_load_dword a0, v[2:3], off
global_store_dword v[0:1], v2, off
global_store_dword v[4:5], a0, off
global_store_dwordx4 v0, v[4:7], s[2:3] offset:4095
global_store_byte v[0:1], v2, off offset:-4096
global_atomic_add_f32 v0, v1, s[6:7]
global_atomic_add v[2:3], v4, off
global_atomic_add v0, v[2:3], v4, off sc0
global_atomic_cmpswap v0, v[2:3], v[4:5], off sc0
global_atomic_cmpswap_x2 v[0:1], v[2:3], v[4:7], off sc0
global_atomic_pk_add_f16 v0, v1, s[2:3]
global_load_lds_dword v[2:3], off
flat_load_dword v0, v[2:3]
flat_load_dword v0, v[2:3] offset:4095
flat_store_dword v[2:3], v4 offset:16 sc0 sc1
flat_atomic_add v0, v[2:3], v4 sc0
scratch_load_dword v0, v1, off
scratch_load_dword v0, off, s2 offset:16
scratch_load_dword v0, v1, s2
scratch_store_dword off, v1, s3 offset:-8
scratch_store_dwordx2 v1, v[2:3], off
buffer_load_dword v0, v1, s[4:7], 0 offen
buffer_load_dword v0, v1, s[4:7], s8 idxen offset:16
buffer_load_dword v0, v[2:3], s[4:7], 0 idxen offen
buffer_load_dword v0, off, s[4:7], s8 offset:4095 sc0 nt sc1
buffer_load_dwordx4 v[0:3], v4, s[8:11], 0 offen offset:64
buffer_store_dword v0, v1, s[4:7], 0 offen
buffer_store_short v0, off, s[4:7], s1
buffer_atomic_add v0, v1, s[4:7], 0 offen sc0
buffer_load_dword v1, s[4:7], 0 offen lds
buffer_wbl2 sc0 sc1
buffer_inv sc1
tbuffer_load_format_x v0, off, s[4:7], 0 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]
s_addc_u32 s1, s1, lit(0xffffffff)
s_mov_b32 s0, lit(0x40)
s_mov_b64 s[0:1], lit(0x10)
v_add_f32_e32 v0, lit(0x3f800000), v1
v_add_u32_e32 v0, lit(0x3f800000), v1
v_add_f16_e32 v0, lit(0x3c00), v1
v_add_u16_e32 v0, lit(0x10), v1
v_mov_b32_e32 v0, lit(0x3e22f983)
