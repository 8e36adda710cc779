// Hand-picked gfx1100 instructions for the oracle (assembled by llvm-mc-22 by gen_tables.py).
ds_swizzle_b32 v0, v5 offset:swizzle(SWAP,1)
ds_swizzle_b32 v0, v5 offset:swizzle(REVERSE,8)
ds_swizzle_b32 v0, v5 offset:swizzle(BROADCAST,4,1)
ds_swizzle_b32 v0, v5 offset:swizzle(BITMASK_PERM,"pp1i0")
ds_swizzle_b32 v0, v5 offset:swizzle(QUAD_PERM,3,2,1,0)
ds_swizzle_b32 v0, v5 offset:swizzle(FFT,5)
ds_swizzle_b32 v0, v5 offset:swizzle(ROTATE,1,3)
ds_swizzle_b32 v0, v5 offset:0x9000
v_permlanex16_b32 v15, v14, -1, -1 op_sel:[1,0]
v_permlane16_b32 v1, v2, s3, s4 op_sel:[0,1]
s_waitcnt vmcnt(0) lgkmcnt(0)
s_waitcnt expcnt(2)
s_waitcnt_depctr depctr_va_vdst(0)
s_delay_alu instid0(VALU_DEP_1) | instskip(SKIP_1) | instid1(VALU_DEP_1)
s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)
s_getreg_b32 s0, hwreg(HW_REG_MODE, 0, 4)
s_setreg_imm32_b32 hwreg(HW_REG_MODE), 0x1234
s_load_b64 s[0:1], s[4:5], 0x0
s_load_b128 s[4:7], s[0:1], s8 offset:0x20 glc dlc
global_load_b32 v1, v2, s[4:5] offset:-16 glc slc dlc
global_atomic_add_u32 v1, v2, v3, s[4:5] offset:8 glc
global_atomic_cmpswap_b32 v1, v2, v[4:5], s[6:7] glc
scratch_store_b32 off, v1, s3 offset:4
buffer_load_b32 v1, v2, s[4:7], s9 idxen offset:16 glc slc dlc
buffer_atomic_add_u32 v1, v2, s[4:7], 0 offen glc
tbuffer_store_format_xyzw v[1:4], off, s[4:7], 0 format:[BUF_FMT_32_32_32_32_FLOAT]
v_dual_mul_f32 v0, v1, v2 :: v_dual_add_f32 v3, v4, v5
v_dual_fmamk_f32 v0, v1, 0x40490fdb, v2 :: v_dual_mov_b32 v3, v4
v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7]
v_mov_b16_e32 v20.h, v9.l
v_add_f16_e64 v1.h, -v2.l, |v3.h| clamp
v_fma_f16 v1.h, v2.h, v3.l, v4.h op_sel:[1,0,1,1]
v_cndmask_b32_e64 v0, v1, v2, s4
v_add_co_u32 v0, s4, v1, v2
v_mad_u64_u32 v[0:1], null, s15, s2, v[0:1]
v_add_f32_dpp v1, v2, v3 row_share:3 row_mask:0xf bank_mask:0xf fi:1
v_add_f32_e64_dpp v1, -v2, |v3| dpp8:[7,6,5,4,3,2,1,0]
v_mov_b32_e32 v0, lit(0x40)
v_fma_f64 v[0:1], 0x40490000, v[2:3], 1.0
exp mrt0 v1, off, v3, off done
v_interp_p10_f32 v1, -v2, v3, v4 clamp wait_exp:2
lds_param_load v1, attr3.z wait_vdst:2
// s_version: named codes and nested flag ORs; s_delay_alu: field values without a name.
s_version 0xa04d
s_version 0xe000
s_version 0x4006
s_version 0x2009
s_version 77
s_delay_alu 0x33e3
s_delay_alu 0x78c
s_delay_alu 0x8061
s_sendmsg_rtn_b32 s2, sendmsg(MSG_RTN_GET_REALTIME)
s_sendmsg_rtn_b64 s[2:3], sendmsg(MSG_RTN_GET_REALTIME)
s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s2
// ADD_TID global accesses with SADDR (the RDNA fuzzer's pool needs one).
global_load_addtid_b32 v11, s[90:91] offset:2048
global_store_addtid_b32 v2, s[4:5] offset:-64
