//! Whole compiled kernels (clang-22 -O3 for gfx942, single wave of 64 work-items) whose
//! results are IEEE correctly rounded or exact, so the host computes them independently:
//! f32/f64 division (the `v_div_scale`/`v_div_fmas`/`v_div_fixup` idiom) and square root,
//! and 32/64-bit integer division and remainder (reciprocal idioms, divergent branches).
//! Source (HIP, `tid` = `__builtin_amdgcn_workitem_id_x()`):
//! ```text
//! divf(const float*a,const float*b,float*c){int i=tid; c[i]=a[i]/b[i]; c[i+64]=sqrtf(a[i]);}
//! divd(const double*a,const double*b,double*c){int i=tid; c[i]=a[i]/b[i]; c[i+64]=sqrt(a[i]);}
//! idiv(const unsigned*a,const unsigned*b,unsigned*c){int i=tid; unsigned x=a[i],y=b[i];
//!      c[i]=x/y; c[i+64]=x%y; c[i+128]=(unsigned)((int)x/(int)y);}
//! ldiv(const unsigned long*a,const unsigned long*b,unsigned long*c){int i=tid;
//!      unsigned long x=a[i],y=b[i]; c[i]=x/y; c[i+64]=(unsigned long)((long)x%(long)y);}
//! ```

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

#[rustfmt::skip]
const DIVF: &[u32] = &[
    0xc00a0100, 0x00000000, // s_load_dwordx4 s[4:7], s[0:1], 0x0
    0xc0060080, 0x00000010, // s_load_dwordx2 s[2:3], s[0:1], 0x10
    0x24000082, // v_lshlrev_b32_e32 v0, 2, v0
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xdc508000, 0x01040000, // global_load_dword v1, v0, s[4:5]
    0xdc508000, 0x02060000, // global_load_dword v2, v0, s[6:7]
    0xbf8c0f70, // s_waitcnt vmcnt(0)
    0xd1e00003, 0x04060502, // v_div_scale_f32 v3, s[0:1], v2, v2, v1
    0x7e084503, // v_rcp_f32_e32 v4, v3
    0xd1e06a05, 0x04060501, // v_div_scale_f32 v5, vcc, v1, v2, v1
    0xbe8000ff, 0x0f800000, // s_mov_b32 s0, 0xf800000
    0xd1cb0006, 0x23ca0903, // v_fma_f32 v6, -v3, v4, 1.0
    0x76080906, // v_fmac_f32_e32 v4, v6, v4
    0x0a0c0905, // v_mul_f32_e32 v6, v5, v4
    0xd1cb0007, 0x24160d03, // v_fma_f32 v7, -v3, v6, v5
    0x760c0907, // v_fmac_f32_e32 v6, v7, v4
    0xd1cb0003, 0x24160d03, // v_fma_f32 v3, -v3, v6, v5
    0xd1e20003, 0x041a0903, // v_div_fmas_f32 v3, v3, v4, v6
    0xd1de0001, 0x04060503, // v_div_fixup_f32 v1, v3, v2, v1
    0xdc708000, 0x00020100, // global_store_dword v0, v1, s[2:3]
    0xdc508000, 0x01040000, // global_load_dword v1, v0, s[4:5]
    0x7e0602ff, 0x00000260, // v_mov_b32_e32 v3, 0x260
    0xbf8c0f70, // s_waitcnt vmcnt(0)
    0x0a0402ff, 0x4f800000, // v_mul_f32_e32 v2, 0x4f800000, v1
    0x7c880200, // v_cmp_gt_f32_e32 vcc, s0, v1
    0xbf800001, // s_nop 1
    0x00020501, // v_cndmask_b32_e32 v1, v1, v2, vcc
    0x7e044f01, // v_sqrt_f32_e32 v2, v1
    0xbf800000, // s_nop 0
    0x680804c1, // v_add_u32_e32 v4, -1, v2
    0x680a0481, // v_add_u32_e32 v5, 1, v2
    0xd1cb0006, 0x24060504, // v_fma_f32 v6, -v4, v2, v1
    0xd1cb0007, 0x24060505, // v_fma_f32 v7, -v5, v2, v1
    0xd0460000, 0x00020c80, // v_cmp_ge_f32_e64 s[0:1], 0, v6
    0xbf800001, // s_nop 1
    0xd1000002, 0x00020902, // v_cndmask_b32_e64 v2, v2, v4, s[0:1]
    0xd0410000, 0x00020e80, // v_cmp_lt_f32_e64 s[0:1], 0, v7
    0xbf800001, // s_nop 1
    0xd1000002, 0x00020b02, // v_cndmask_b32_e64 v2, v2, v5, s[0:1]
    0x0a0804ff, 0x37800000, // v_mul_f32_e32 v4, 0x37800000, v2
    0x00040902, // v_cndmask_b32_e32 v2, v2, v4, vcc
    0x7c200701, // v_cmp_class_f32_e32 vcc, v1, v3
    0xbf800001, // s_nop 1
    0x00020302, // v_cndmask_b32_e32 v1, v2, v1, vcc
    0xdc708100, 0x00020100, // global_store_dword v0, v1, s[2:3] offset:256
    0xbf810000, // s_endpgm
];
#[rustfmt::skip]
const DIVD: &[u32] = &[
    0xc00a0100, 0x00000000, // s_load_dwordx4 s[4:7], s[0:1], 0x0
    0xc0060080, 0x00000010, // s_load_dwordx2 s[2:3], s[0:1], 0x10
    0x24180083, // v_lshlrev_b32_e32 v12, 3, v0
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xdc548000, 0x0004000c, // global_load_dwordx2 v[0:1], v12, s[4:5]
    0xdc548000, 0x0206000c, // global_load_dwordx2 v[2:3], v12, s[6:7]
    0xbf8c0f70, // s_waitcnt vmcnt(0)
    0xd1e10004, 0x04020502, // v_div_scale_f64 v[4:5], s[0:1], v[2:3], v[2:3], v[0:1]
    0x7e0c4b04, // v_rcp_f64_e32 v[6:7], v[4:5]
    0xd1e16a08, 0x04020500, // v_div_scale_f64 v[8:9], vcc, v[0:1], v[2:3], v[0:1]
    0xbe800080, // s_mov_b32 s0, 0
    0xd1cc000a, 0x23ca0d04, // v_fma_f64 v[10:11], -v[4:5], v[6:7], 1.0
    0x080c1506, // v_fmac_f64_e32 v[6:7], v[6:7], v[10:11]
    0xd1cc000a, 0x23ca0d04, // v_fma_f64 v[10:11], -v[4:5], v[6:7], 1.0
    0x080c1506, // v_fmac_f64_e32 v[6:7], v[6:7], v[10:11]
    0xd281000a, 0x00020d08, // v_mul_f64 v[10:11], v[8:9], v[6:7]
    0xd1cc0004, 0x24221504, // v_fma_f64 v[4:5], -v[4:5], v[10:11], v[8:9]
    0xd1e30004, 0x042a0d04, // v_div_fmas_f64 v[4:5], v[4:5], v[6:7], v[10:11]
    0xd1df0000, 0x04020504, // v_div_fixup_f64 v[0:1], v[4:5], v[2:3], v[0:1]
    0xdc748000, 0x0002000c, // global_store_dwordx2 v12, v[0:1], s[2:3]
    0xdc548000, 0x0004000c, // global_load_dwordx2 v[0:1], v12, s[4:5]
    0xbe810888, // s_brev_b32 s1, 8
    0x7e0402ff, 0x00000100, // v_mov_b32_e32 v2, 0x100
    0x7e0802ff, 0xffffff80, // v_mov_b32_e32 v4, 0xffffff80
    0x7e1002ff, 0x00000260, // v_mov_b32_e32 v8, 0x260
    0xbf8c0f70, // s_waitcnt vmcnt(0)
    0x7cc80000, // v_cmp_gt_f64_e32 vcc, s[0:1], v[0:1]
    0xbf800001, // s_nop 1
    0x00040480, // v_cndmask_b32_e32 v2, 0, v2, vcc
    0xd2840000, 0x00020500, // v_ldexp_f64 v[0:1], v[0:1], v2
    0x7e044d00, // v_rsq_f64_e32 v[2:3], v[0:1]
    0x00120880, // v_cndmask_b32_e32 v9, 0, v4, vcc
    0x7c241100, // v_cmp_class_f64_e32 vcc, v[0:1], v8
    0xd2810004, 0x00020500, // v_mul_f64 v[4:5], v[0:1], v[2:3]
    0xd2810002, 0x0001e102, // v_mul_f64 v[2:3], v[2:3], 0.5
    0xd1cc0006, 0x23c20902, // v_fma_f64 v[6:7], -v[2:3], v[4:5], 0.5
    0x08080d04, // v_fmac_f64_e32 v[4:5], v[4:5], v[6:7]
    0x08040d02, // v_fmac_f64_e32 v[2:3], v[2:3], v[6:7]
    0xd1cc0006, 0x24020904, // v_fma_f64 v[6:7], -v[4:5], v[4:5], v[0:1]
    0x08080506, // v_fmac_f64_e32 v[4:5], v[6:7], v[2:3]
    0xd1cc0006, 0x24020904, // v_fma_f64 v[6:7], -v[4:5], v[4:5], v[0:1]
    0x08080506, // v_fmac_f64_e32 v[4:5], v[6:7], v[2:3]
    0xd2840002, 0x00021304, // v_ldexp_f64 v[2:3], v[4:5], v9
    0x00020303, // v_cndmask_b32_e32 v1, v3, v1, vcc
    0x00000102, // v_cndmask_b32_e32 v0, v2, v0, vcc
    0xdc748200, 0x0002000c, // global_store_dwordx2 v12, v[0:1], s[2:3] offset:512
    0xbf810000, // s_endpgm
];
#[rustfmt::skip]
const IDIV: &[u32] = &[
    0xc00a0100, 0x00000000, // s_load_dwordx4 s[4:7], s[0:1], 0x0
    0xc0060080, 0x00000010, // s_load_dwordx2 s[2:3], s[0:1], 0x10
    0x24000082, // v_lshlrev_b32_e32 v0, 2, v0
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xdc508000, 0x01060000, // global_load_dword v1, v0, s[6:7]
    0xdc508000, 0x02040000, // global_load_dword v2, v0, s[4:5]
    0xbf8c0f71, // s_waitcnt vmcnt(1)
    0x7e060d01, // v_cvt_f32_u32_e32 v3, v1
    0x6a0e0280, // v_sub_u32_e32 v7, 0, v1
    0x1a0e0307, // v_max_i32_e32 v7, v7, v1
    0x7e100d07, // v_cvt_f32_u32_e32 v8, v7
    0x7e064703, // v_rcp_iflag_f32_e32 v3, v3
    0x6a080280, // v_sub_u32_e32 v4, 0, v1
    0x6a120e80, // v_sub_u32_e32 v9, 0, v7
    0x7e104708, // v_rcp_iflag_f32_e32 v8, v8
    0x0a0606ff, 0x4f7ffffe, // v_mul_f32_e32 v3, 0x4f7ffffe, v3
    0x7e060f03, // v_cvt_u32_f32_e32 v3, v3
    0xbf8c0f70, // s_waitcnt vmcnt(0)
    0x6a0c0480, // v_sub_u32_e32 v6, 0, v2
    0x0a1010ff, 0x4f7ffffe, // v_mul_f32_e32 v8, 0x4f7ffffe, v8
    0x7e100f08, // v_cvt_u32_f32_e32 v8, v8
    0xd2850004, 0x00020704, // v_mul_lo_u32 v4, v4, v3
    0xd2860004, 0x00020903, // v_mul_hi_u32 v4, v3, v4
    0x68060903, // v_add_u32_e32 v3, v3, v4
    0xd2850004, 0x00021109, // v_mul_lo_u32 v4, v9, v8
    0xd2860003, 0x00020702, // v_mul_hi_u32 v3, v2, v3
    0xd2860004, 0x00020908, // v_mul_hi_u32 v4, v8, v4
    0xd2850009, 0x00020303, // v_mul_lo_u32 v9, v3, v1
    0x1a0c0506, // v_max_i32_e32 v6, v6, v2
    0x68080908, // v_add_u32_e32 v4, v8, v4
    0x6a101302, // v_sub_u32_e32 v8, v2, v9
    0x68140681, // v_add_u32_e32 v10, 1, v3
    0xd2860004, 0x00020906, // v_mul_hi_u32 v4, v6, v4
    0x7d9c0308, // v_cmp_ge_u32_e32 vcc, v8, v1
    0x6a120308, // v_sub_u32_e32 v9, v8, v1
    0x68160881, // v_add_u32_e32 v11, 1, v4
    0x00061503, // v_cndmask_b32_e32 v3, v3, v10, vcc
    0xd285000a, 0x00020f04, // v_mul_lo_u32 v10, v4, v7
    0x00101308, // v_cndmask_b32_e32 v8, v8, v9, vcc
    0x68120681, // v_add_u32_e32 v9, 1, v3
    0x6a0c1506, // v_sub_u32_e32 v6, v6, v10
    0x7d9c0308, // v_cmp_ge_u32_e32 vcc, v8, v1
    0x6a100f06, // v_sub_u32_e32 v8, v6, v7
    0x2a0a0302, // v_xor_b32_e32 v5, v2, v1
    0x00061303, // v_cndmask_b32_e32 v3, v3, v9, vcc
    0x7d9c0f06, // v_cmp_ge_u32_e32 vcc, v6, v7
    0xdc708000, 0x00020300, // global_store_dword v0, v3, s[2:3]
    0xd2850001, 0x00020303, // v_mul_lo_u32 v1, v3, v1
    0x00081704, // v_cndmask_b32_e32 v4, v4, v11, vcc
    0x00061106, // v_cndmask_b32_e32 v3, v6, v8, vcc
    0x680c0881, // v_add_u32_e32 v6, 1, v4
    0x7d9c0f03, // v_cmp_ge_u32_e32 vcc, v3, v7
    0x220a0a9f, // v_ashrrev_i32_e32 v5, 31, v5
    0x6a020302, // v_sub_u32_e32 v1, v2, v1
    0x00040d04, // v_cndmask_b32_e32 v2, v4, v6, vcc
    0xdc708100, 0x00020100, // global_store_dword v0, v1, s[2:3] offset:256
    0x2a020b02, // v_xor_b32_e32 v1, v2, v5
    0x6a020b01, // v_sub_u32_e32 v1, v1, v5
    0xdc708200, 0x00020100, // global_store_dword v0, v1, s[2:3] offset:512
    0xbf810000, // s_endpgm
];
#[rustfmt::skip]
const LDIV: &[u32] = &[
    0xc00a0200, 0x00000000, // s_load_dwordx4 s[8:11], s[0:1], 0x0
    0xc0060100, 0x00000010, // s_load_dwordx2 s[4:5], s[0:1], 0x10
    0x24020083, // v_lshlrev_b32_e32 v1, 3, v0
    0x7e0c0280, // v_mov_b32_e32 v6, 0
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xdc548000, 0x02080001, // global_load_dwordx2 v[2:3], v1, s[8:9]
    0xdc548000, 0x040a0001, // global_load_dwordx2 v[4:5], v1, s[10:11]
    0xbf8c0f70, // s_waitcnt vmcnt(0)
    0x280e0b03, // v_or_b32_e32 v7, v3, v5
    0x7dda0c80, // v_cmp_ne_u64_e32 vcc, 0, v[6:7]
    0xbe80206a, // s_and_saveexec_b64 s[0:1], vcc
    0x8882007e, // s_xor_b64 s[2:3], exec, s[0:1]
    0xbf88009a, // s_cbranch_execz 154
    0x7e020d04, // v_cvt_f32_u32_e32 v1, v4
    0x7e100d05, // v_cvt_f32_u32_e32 v8, v5
    0x341e0880, // v_sub_co_u32_e32 v15, vcc, 0, v4
    0x7e1a0306, // v_mov_b32_e32 v13, v6
    0x2e020308, 0x4f800000, // v_fmamk_f32 v1, v8, 0x4f800000, v1
    0x7e024501, // v_rcp_f32_e32 v1, v1
    0x3a200a80, // v_subb_co_u32_e32 v16, vcc, 0, v5, vcc
    0x0a0202ff, 0x5f7ffffc, // v_mul_f32_e32 v1, 0x5f7ffffc, v1
    0x0a1002ff, 0x2f800000, // v_mul_f32_e32 v8, 0x2f800000, v1
    0x7e103908, // v_trunc_f32_e32 v8, v8
    0x2e020308, 0xcf800000, // v_fmamk_f32 v1, v8, 0xcf800000, v1
    0x7e1c0f08, // v_cvt_u32_f32_e32 v14, v8
    0x7e020f01, // v_cvt_u32_f32_e32 v1, v1
    0xd285000a, 0x00021d0f, // v_mul_lo_u32 v10, v15, v14
    0xd285000b, 0x00020310, // v_mul_lo_u32 v11, v16, v1
    0xd1e80008, 0x0202030f, // v_mad_u64_u32 v[8:9], s[0:1], v15, v1, 0
    0xd1ff0009, 0x042e1509, // v_add3_u32 v9, v9, v10, v11
    0xd1e8000a, 0x02021301, // v_mad_u64_u32 v[10:11], s[0:1], v1, v9, 0
    0xd286000c, 0x00021101, // v_mul_hi_u32 v12, v1, v8
    0xd208000a, 0x0429010c, // v_lshl_add_u64 v[10:11], v[12:13], 0, v[10:11]
    0xd1e8000c, 0x0202130e, // v_mad_u64_u32 v[12:13], s[0:1], v14, v9, 0
    0xd1e80008, 0x0202110e, // v_mad_u64_u32 v[8:9], s[0:1], v14, v8, 0
    0x3210110a, // v_add_co_u32_e32 v8, vcc, v10, v8
    0xbf800001, // s_nop 1
    0x3810130b, // v_addc_co_u32_e32 v8, vcc, v11, v9, vcc
    0x7e120306, // v_mov_b32_e32 v9, v6
    0xbf800000, // s_nop 0
    0x381a1a80, // v_addc_co_u32_e32 v13, vcc, 0, v13, vcc
    0xd2080008, 0x04310108, // v_lshl_add_u64 v[8:9], v[8:9], 0, v[12:13]
    0x32021101, // v_add_co_u32_e32 v1, vcc, v1, v8
    0xd285000b, 0x00020310, // v_mul_lo_u32 v11, v16, v1
    0xbf800000, // s_nop 0
    0x3822130e, // v_addc_co_u32_e32 v17, vcc, v14, v9, vcc
    0xd285000a, 0x0002230f, // v_mul_lo_u32 v10, v15, v17
    0xd1e80008, 0x0202030f, // v_mad_u64_u32 v[8:9], s[0:1], v15, v1, 0
    0xd1ff0009, 0x042e1509, // v_add3_u32 v9, v9, v10, v11
    0xd1e8000a, 0x02021311, // v_mad_u64_u32 v[10:11], s[0:1], v17, v9, 0
    0xd1e8000c, 0x02021111, // v_mad_u64_u32 v[12:13], s[0:1], v17, v8, 0
    0xd1e8000e, 0x02021301, // v_mad_u64_u32 v[14:15], s[0:1], v1, v9, 0
    0xd2860008, 0x00021101, // v_mul_hi_u32 v8, v1, v8
    0x7e120306, // v_mov_b32_e32 v9, v6
    0xd2080008, 0x04390108, // v_lshl_add_u64 v[8:9], v[8:9], 0, v[14:15]
    0x32101908, // v_add_co_u32_e32 v8, vcc, v8, v12
    0xbf800001, // s_nop 1
    0x38101b09, // v_addc_co_u32_e32 v8, vcc, v9, v13, vcc
    0x7e120306, // v_mov_b32_e32 v9, v6
    0xbf800000, // s_nop 0
    0x38161680, // v_addc_co_u32_e32 v11, vcc, 0, v11, vcc
    0xd2080008, 0x04290108, // v_lshl_add_u64 v[8:9], v[8:9], 0, v[10:11]
    0x32021101, // v_add_co_u32_e32 v1, vcc, v1, v8
    0xd286000a, 0x00020302, // v_mul_hi_u32 v10, v2, v1
    0xbf800000, // s_nop 0
    0x38181311, // v_addc_co_u32_e32 v12, vcc, v17, v9, vcc
    0xd1e80008, 0x02021902, // v_mad_u64_u32 v[8:9], s[0:1], v2, v12, 0
    0x7e160306, // v_mov_b32_e32 v11, v6
    0xd2080008, 0x0421010a, // v_lshl_add_u64 v[8:9], v[10:11], 0, v[8:9]
    0xd1e8000a, 0x02021903, // v_mad_u64_u32 v[10:11], s[0:1], v3, v12, 0
    0xd1e8000c, 0x02020303, // v_mad_u64_u32 v[12:13], s[0:1], v3, v1, 0
    0x32021908, // v_add_co_u32_e32 v1, vcc, v8, v12
    0xbf800001, // s_nop 1
    0x38101b09, // v_addc_co_u32_e32 v8, vcc, v9, v13, vcc
    0x7e120306, // v_mov_b32_e32 v9, v6
    0xbf800000, // s_nop 0
    0x38161680, // v_addc_co_u32_e32 v11, vcc, 0, v11, vcc
    0xd2080008, 0x04290108, // v_lshl_add_u64 v[8:9], v[8:9], 0, v[10:11]
    0xd2850001, 0x00021105, // v_mul_lo_u32 v1, v5, v8
    0xd2850006, 0x00021304, // v_mul_lo_u32 v6, v4, v9
    0xd1e8000a, 0x02021104, // v_mad_u64_u32 v[10:11], s[0:1], v4, v8, 0
    0xd1ff0001, 0x04060d0b, // v_add3_u32 v1, v11, v6, v1
    0x6a0c0303, // v_sub_u32_e32 v6, v3, v1
    0x341c1502, // v_sub_co_u32_e32 v14, vcc, v2, v10
    0xd208000c, 0x02050108, // v_lshl_add_u64 v[12:13], v[8:9], 0, 1
    0xbf800000, // s_nop 0
    0xd11d0006, 0x01aa0b06, // v_subb_co_u32_e64 v6, s[0:1], v6, v5, vcc
    0xd11a000a, 0x0002090e, // v_sub_co_u32_e64 v10, s[0:1], v14, v4
    0x3a020303, // v_subb_co_u32_e32 v1, vcc, v3, v1, vcc
    0xbf800000, // s_nop 0
    0xd11e0006, 0x00020c80, // v_subbrev_co_u32_e64 v6, s[0:1], 0, v6, s[0:1]
    0xd0ce0000, 0x00020b06, // v_cmp_ge_u32_e64 s[0:1], v6, v5
    0x7d9c0b01, // v_cmp_ge_u32_e32 vcc, v1, v5
    0xbf800000, // s_nop 0
    0xd100000b, 0x00018280, // v_cndmask_b32_e64 v11, 0, -1, s[0:1]
    0xd0ce0000, 0x0002090a, // v_cmp_ge_u32_e64 s[0:1], v10, v4
    0xbf800001, // s_nop 1
    0xd100000a, 0x00018280, // v_cndmask_b32_e64 v10, 0, -1, s[0:1]
    0xd0ca0000, 0x00020b06, // v_cmp_eq_u32_e64 s[0:1], v6, v5
    0xbf800001, // s_nop 1
    0xd1000006, 0x0002150b, // v_cndmask_b32_e64 v6, v11, v10, s[0:1]
    0xd208000a, 0x02090108, // v_lshl_add_u64 v[10:11], v[8:9], 0, 2
    0xd0cd0000, 0x00020c80, // v_cmp_ne_u32_e64 s[0:1], 0, v6
    0xbf800001, // s_nop 1
    0xd1000006, 0x0002170d, // v_cndmask_b32_e64 v6, v13, v11, s[0:1]
    0xd100000b, 0x01a98280, // v_cndmask_b32_e64 v11, 0, -1, vcc
    0x7d9c090e, // v_cmp_ge_u32_e32 vcc, v14, v4
    0xbf800001, // s_nop 1
    0xd100000d, 0x01a98280, // v_cndmask_b32_e64 v13, 0, -1, vcc
    0x7d940b01, // v_cmp_eq_u32_e32 vcc, v1, v5
    0xbf800001, // s_nop 1
    0x00021b0b, // v_cndmask_b32_e32 v1, v11, v13, vcc
    0x7d9a0280, // v_cmp_ne_u32_e32 vcc, 0, v1
    0xd1000001, 0x0002150c, // v_cndmask_b32_e64 v1, v12, v10, s[0:1]
    0xbf800000, // s_nop 0
    0x00120d09, // v_cndmask_b32_e32 v9, v9, v6, vcc
    0x00100308, // v_cndmask_b32_e32 v8, v8, v1, vcc
    0xbe802102, // s_or_saveexec_b64 s[0:1], s[2:3]
    0x7e140d04, // v_cvt_f32_u32_e32 v10, v4
    0x6a160880, // v_sub_u32_e32 v11, 0, v4
    0x88fe007e, // s_xor_b64 exec, exec, s[0:1]
    0xbf88001a, // s_cbranch_execz 26
    0x7e02470a, // v_rcp_iflag_f32_e32 v1, v10
    0xbf800000, // s_nop 0
    0x0a0202ff, 0x4f7ffffe, // v_mul_f32_e32 v1, 0x4f7ffffe, v1
    0x7e020f01, // v_cvt_u32_f32_e32 v1, v1
    0xd2850006, 0x0002030b, // v_mul_lo_u32 v6, v11, v1
    0xd2860006, 0x00020d01, // v_mul_hi_u32 v6, v1, v6
    0x68020d01, // v_add_u32_e32 v1, v1, v6
    0xd2860001, 0x00020302, // v_mul_hi_u32 v1, v2, v1
    0xd2850006, 0x00020901, // v_mul_lo_u32 v6, v1, v4
    0x6a0c0d02, // v_sub_u32_e32 v6, v2, v6
    0x68100281, // v_add_u32_e32 v8, 1, v1
    0x6a120906, // v_sub_u32_e32 v9, v6, v4
    0x7d9c0906, // v_cmp_ge_u32_e32 vcc, v6, v4
    0xbf800001, // s_nop 1
    0x000c1306, // v_cndmask_b32_e32 v6, v6, v9, vcc
    0x00021101, // v_cndmask_b32_e32 v1, v1, v8, vcc
    0x68100281, // v_add_u32_e32 v8, 1, v1
    0x7d9c0906, // v_cmp_ge_u32_e32 vcc, v6, v4
    0x7e120280, // v_mov_b32_e32 v9, 0
    0xbf800000, // s_nop 0
    0x00101101, // v_cndmask_b32_e32 v8, v1, v8, vcc
    0x87fe007e, // s_or_b64 exec, exec, s[0:1]
    0x7e020280, // v_mov_b32_e32 v1, 0
    0x7e0c0301, // v_mov_b32_e32 v6, v1
    0x24000083, // v_lshlrev_b32_e32 v0, 3, v0
    0x7dda0c80, // v_cmp_ne_u64_e32 vcc, 0, v[6:7]
    0xdc748000, 0x00040800, // global_store_dwordx2 v0, v[8:9], s[4:5]
    0xbe80206a, // s_and_saveexec_b64 s[0:1], vcc
    0x8886007e, // s_xor_b64 s[6:7], exec, s[0:1]
    0xbf890009, // s_cbranch_execnz 9
    0xbe802106, // s_or_saveexec_b64 s[0:1], s[6:7]
    0xd2080000, 0x04010004, // v_lshl_add_u64 v[0:1], s[4:5], 0, v[0:1]
    0x88fe007e, // s_xor_b64 exec, exec, s[0:1]
    0xbf8900b5, // s_cbranch_execnz 181
    0x87fe007e, // s_or_b64 exec, exec, s[0:1]
    0xdc748200, 0x007f0600, // global_store_dwordx2 v[0:1], v[6:7], off offset:512
    0xbf810000, // s_endpgm
    0x220c0a9f, // v_ashrrev_i32_e32 v6, 31, v5
    0x7e0e0306, // v_mov_b32_e32 v7, v6
    0xd2080004, 0x04190104, // v_lshl_add_u64 v[4:5], v[4:5], 0, v[6:7]
    0x2a180d05, // v_xor_b32_e32 v12, v5, v6
    0x2a1a0d04, // v_xor_b32_e32 v13, v4, v6
    0x7e080d0d, // v_cvt_f32_u32_e32 v4, v13
    0x7e0a0d0c, // v_cvt_f32_u32_e32 v5, v12
    0x34161a80, // v_sub_co_u32_e32 v11, vcc, 0, v13
    0x7e120301, // v_mov_b32_e32 v9, v1
    0x2e080905, 0x4f800000, // v_fmamk_f32 v4, v5, 0x4f800000, v4
    0x7e084504, // v_rcp_f32_e32 v4, v4
    0x3a1c1880, // v_subb_co_u32_e32 v14, vcc, 0, v12, vcc
    0x0a0808ff, 0x5f7ffffc, // v_mul_f32_e32 v4, 0x5f7ffffc, v4
    0x0a0a08ff, 0x2f800000, // v_mul_f32_e32 v5, 0x2f800000, v4
    0x7e0a3905, // v_trunc_f32_e32 v5, v5
    0x2e080905, 0xcf800000, // v_fmamk_f32 v4, v5, 0xcf800000, v4
    0x7e140f04, // v_cvt_u32_f32_e32 v10, v4
    0x7e1e0f05, // v_cvt_u32_f32_e32 v15, v5
    0xd2850006, 0x0002150e, // v_mul_lo_u32 v6, v14, v10
    0xd1e80004, 0x0202150b, // v_mad_u64_u32 v[4:5], s[0:1], v11, v10, 0
    0xd2850007, 0x00021f0b, // v_mul_lo_u32 v7, v11, v15
    0xd1ff0005, 0x041a0f05, // v_add3_u32 v5, v5, v7, v6
    0xd1e80006, 0x02020b0a, // v_mad_u64_u32 v[6:7], s[0:1], v10, v5, 0
    0xd2860008, 0x0002090a, // v_mul_hi_u32 v8, v10, v4
    0xd2080006, 0x04190108, // v_lshl_add_u64 v[6:7], v[8:9], 0, v[6:7]
    0xd1e80008, 0x02020b0f, // v_mad_u64_u32 v[8:9], s[0:1], v15, v5, 0
    0xd1e80004, 0x0202090f, // v_mad_u64_u32 v[4:5], s[0:1], v15, v4, 0
    0x32080906, // v_add_co_u32_e32 v4, vcc, v6, v4
    0xbf800001, // s_nop 1
    0x38080b07, // v_addc_co_u32_e32 v4, vcc, v7, v5, vcc
    0x7e0a0301, // v_mov_b32_e32 v5, v1
    0xbf800000, // s_nop 0
    0x38121280, // v_addc_co_u32_e32 v9, vcc, 0, v9, vcc
    0xd2080004, 0x04210104, // v_lshl_add_u64 v[4:5], v[4:5], 0, v[8:9]
    0x3220090a, // v_add_co_u32_e32 v16, vcc, v10, v4
    0xd2850007, 0x0002210e, // v_mul_lo_u32 v7, v14, v16
    0xbf800000, // s_nop 0
    0x381e0b0f, // v_addc_co_u32_e32 v15, vcc, v15, v5, vcc
    0xd2850006, 0x00021f0b, // v_mul_lo_u32 v6, v11, v15
    0xd1e80004, 0x0202210b, // v_mad_u64_u32 v[4:5], s[0:1], v11, v16, 0
    0xd1ff0005, 0x041e0d05, // v_add3_u32 v5, v5, v6, v7
    0xd1e80006, 0x02020b0f, // v_mad_u64_u32 v[6:7], s[0:1], v15, v5, 0
    0xd1e80008, 0x0202090f, // v_mad_u64_u32 v[8:9], s[0:1], v15, v4, 0
    0xd1e8000a, 0x02020b10, // v_mad_u64_u32 v[10:11], s[0:1], v16, v5, 0
    0xd2860004, 0x00020910, // v_mul_hi_u32 v4, v16, v4
    0x7e0a0301, // v_mov_b32_e32 v5, v1
    0xd2080004, 0x04290104, // v_lshl_add_u64 v[4:5], v[4:5], 0, v[10:11]
    0x32081104, // v_add_co_u32_e32 v4, vcc, v4, v8
    0xbf800001, // s_nop 1
    0x38081305, // v_addc_co_u32_e32 v4, vcc, v5, v9, vcc
    0x7e0a0301, // v_mov_b32_e32 v5, v1
    0xbf800000, // s_nop 0
    0x380e0e80, // v_addc_co_u32_e32 v7, vcc, 0, v7, vcc
    0xd2080004, 0x04190104, // v_lshl_add_u64 v[4:5], v[4:5], 0, v[6:7]
    0x32100910, // v_add_co_u32_e32 v8, vcc, v16, v4
    0x2208069f, // v_ashrrev_i32_e32 v4, 31, v3
    0xbf800000, // s_nop 0
    0x38120b0f, // v_addc_co_u32_e32 v9, vcc, v15, v5, vcc
    0x7e0a0304, // v_mov_b32_e32 v5, v4
    0xd2080002, 0x04110102, // v_lshl_add_u64 v[2:3], v[2:3], 0, v[4:5]
    0x2a140902, // v_xor_b32_e32 v10, v2, v4
    0x2a0a0903, // v_xor_b32_e32 v5, v3, v4
    0xd1e80002, 0x0202130a, // v_mad_u64_u32 v[2:3], s[0:1], v10, v9, 0
    0xd2860006, 0x0002110a, // v_mul_hi_u32 v6, v10, v8
    0x7e0e0301, // v_mov_b32_e32 v7, v1
    0xd2080002, 0x04090106, // v_lshl_add_u64 v[2:3], v[6:7], 0, v[2:3]
    0xd1e80006, 0x02021305, // v_mad_u64_u32 v[6:7], s[0:1], v5, v9, 0
    0xd1e80008, 0x02021105, // v_mad_u64_u32 v[8:9], s[0:1], v5, v8, 0
    0x32041102, // v_add_co_u32_e32 v2, vcc, v2, v8
    0xbf800001, // s_nop 1
    0x38041303, // v_addc_co_u32_e32 v2, vcc, v3, v9, vcc
    0x7e060301, // v_mov_b32_e32 v3, v1
    0xbf800000, // s_nop 0
    0x380e0e80, // v_addc_co_u32_e32 v7, vcc, 0, v7, vcc
    0xd2080002, 0x04190102, // v_lshl_add_u64 v[2:3], v[2:3], 0, v[6:7]
    0xd2850006, 0x0002050c, // v_mul_lo_u32 v6, v12, v2
    0xd2850007, 0x0002070d, // v_mul_lo_u32 v7, v13, v3
    0xd1e80002, 0x0202050d, // v_mad_u64_u32 v[2:3], s[0:1], v13, v2, 0
    0xd1ff0003, 0x041a0f03, // v_add3_u32 v3, v3, v7, v6
    0x6a0c0705, // v_sub_u32_e32 v6, v5, v3
    0x3404050a, // v_sub_co_u32_e32 v2, vcc, v10, v2
    0xbf800001, // s_nop 1
    0xd11d0006, 0x01aa1906, // v_subb_co_u32_e64 v6, s[0:1], v6, v12, vcc
    0xd11a0007, 0x00021b02, // v_sub_co_u32_e64 v7, s[0:1], v2, v13
    0x3a060705, // v_subb_co_u32_e32 v3, vcc, v5, v3, vcc
    0xbf800000, // s_nop 0
    0xd11e0208, 0x00020c80, // v_subbrev_co_u32_e64 v8, s[2:3], 0, v6, s[0:1]
    0xd0ce0002, 0x00021908, // v_cmp_ge_u32_e64 s[2:3], v8, v12
    0xd11d0006, 0x00021906, // v_subb_co_u32_e64 v6, s[0:1], v6, v12, s[0:1]
    0xbf800000, // s_nop 0
    0xd1000009, 0x00098280, // v_cndmask_b32_e64 v9, 0, -1, s[2:3]
    0xd0ce0002, 0x00021b07, // v_cmp_ge_u32_e64 s[2:3], v7, v13
    0x7d9c1903, // v_cmp_ge_u32_e32 vcc, v3, v12
    0xbf800000, // s_nop 0
    0xd100000a, 0x00098280, // v_cndmask_b32_e64 v10, 0, -1, s[2:3]
    0xd0ca0002, 0x00021908, // v_cmp_eq_u32_e64 s[2:3], v8, v12
    0xd1000005, 0x01a98280, // v_cndmask_b32_e64 v5, 0, -1, vcc
    0x7d9c1b02, // v_cmp_ge_u32_e32 vcc, v2, v13
    0xd1000009, 0x000a1509, // v_cndmask_b32_e64 v9, v9, v10, s[2:3]
    0xd11a000a, 0x00021b07, // v_sub_co_u32_e64 v10, s[0:1], v7, v13
    0xbf800001, // s_nop 1
    0xd11e0006, 0x00020c80, // v_subbrev_co_u32_e64 v6, s[0:1], 0, v6, s[0:1]
    0xd0cd0000, 0x00021280, // v_cmp_ne_u32_e64 s[0:1], 0, v9
    0xbf800001, // s_nop 1
    0xd1000006, 0x00020d08, // v_cndmask_b32_e64 v6, v8, v6, s[0:1]
    0xd1000008, 0x01a98280, // v_cndmask_b32_e64 v8, 0, -1, vcc
    0x7d941903, // v_cmp_eq_u32_e32 vcc, v3, v12
    0xbf800001, // s_nop 1
    0x000a1105, // v_cndmask_b32_e32 v5, v5, v8, vcc
    0x7d9a0a80, // v_cmp_ne_u32_e32 vcc, 0, v5
    0xd1000005, 0x00021507, // v_cndmask_b32_e64 v5, v7, v10, s[0:1]
    0xbf800000, // s_nop 0
    0x00040b02, // v_cndmask_b32_e32 v2, v2, v5, vcc
    0x00060d03, // v_cndmask_b32_e32 v3, v3, v6, vcc
    0x2a040902, // v_xor_b32_e32 v2, v2, v4
    0x2a060903, // v_xor_b32_e32 v3, v3, v4
    0x340c0902, // v_sub_co_u32_e32 v6, vcc, v2, v4
    0xbf800001, // s_nop 1
    0x3a0e0903, // v_subb_co_u32_e32 v7, vcc, v3, v4, vcc
    0xbe802106, // s_or_saveexec_b64 s[0:1], s[6:7]
    0xd2080000, 0x04010004, // v_lshl_add_u64 v[0:1], s[4:5], 0, v[0:1]
    0x88fe007e, // s_xor_b64 exec, exec, s[0:1]
    0xbf88ff4b, // s_cbranch_execz 65355
    0x7e06470a, // v_rcp_iflag_f32_e32 v3, v10
    0x7e0e0280, // v_mov_b32_e32 v7, 0
    0x0a0606ff, 0x4f7ffffe, // v_mul_f32_e32 v3, 0x4f7ffffe, v3
    0x7e060f03, // v_cvt_u32_f32_e32 v3, v3
    0xd2850005, 0x0002070b, // v_mul_lo_u32 v5, v11, v3
    0xd2860005, 0x00020b03, // v_mul_hi_u32 v5, v3, v5
    0x68060b03, // v_add_u32_e32 v3, v3, v5
    0xd2860003, 0x00020702, // v_mul_hi_u32 v3, v2, v3
    0xd2850003, 0x00020903, // v_mul_lo_u32 v3, v3, v4
    0x6a040702, // v_sub_u32_e32 v2, v2, v3
    0x6a060902, // v_sub_u32_e32 v3, v2, v4
    0x7d9c0902, // v_cmp_ge_u32_e32 vcc, v2, v4
    0xbf800001, // s_nop 1
    0x00040702, // v_cndmask_b32_e32 v2, v2, v3, vcc
    0x6a060902, // v_sub_u32_e32 v3, v2, v4
    0x7d9c0902, // v_cmp_ge_u32_e32 vcc, v2, v4
    0xbf800001, // s_nop 1
    0x000c0702, // v_cndmask_b32_e32 v6, v2, v3, vcc
    0x87fe007e, // s_or_b64 exec, exec, s[0:1]
    0xdc748200, 0x007f0600, // global_store_dwordx2 v[0:1], v[6:7], off offset:512
    0xbf810000, // s_endpgm
];

const KA: u64 = 0x10_0000;
const A: u64 = 0x20_0000;
const B: u64 = 0x30_0000;
const C: u64 = 0x40_0000;

/// Runs `words` on one wave of 64 work-items with kernel arguments (A, B, C), returning
/// the C buffer.
fn launch(words: &[u32], a: Vec<u8>, b: Vec<u8>, c_len: usize) -> Vec<u8> {
    let mut ka = vec![0u8; 64];
    ka[0..8].copy_from_slice(&A.to_le_bytes());
    ka[8..16].copy_from_slice(&B.to_le_bytes());
    ka[16..24].copy_from_slice(&C.to_le_bytes());
    let mut mem = Mem::new(0);
    mem.add(KA, ka);
    mem.add(A, a);
    mem.add(B, b);
    mem.add(C, vec![0xcd; c_len]);
    run_words(words, 77, u64::MAX, &mut mem, |s| {
        s.set_sgpr64(0, KA);
        s.sgpr[2] = 0;
        for l in 0..64 {
            s.vgpr[0][l] = l as u32;
        }
    });
    mem.region(C).to_vec()
}

fn f32_inputs(seed: u64) -> Vec<f32> {
    const SPECIAL: [u32; 12] = [
        0x7fc0_0000,
        0x0000_0000,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x0000_0001,
        0x807f_ffff,
        0x3f80_0000,
        0x7f7f_ffff,
        0x0080_0000,
        0x4049_0fdb,
        0xc2c8_0000,
    ];
    let mut r = Rng(seed);
    (0..64)
        .map(|l| {
            if l % 4 == 0 {
                f32::from_bits(SPECIAL[(l / 4) % 12])
            } else if l % 4 == 1 {
                f32::from_bits(r.u32())
            } else {
                (r.u32() as i32 as f32) / 65536.0
            }
        })
        .collect()
}

fn same_f64(got: u64, want: f64, what: &str) {
    if want.is_nan() {
        assert!(f64::from_bits(got).is_nan(), "{what}: want NaN");
    } else {
        assert_eq!(
            got,
            want.to_bits(),
            "{what}: got {}, want {want}",
            f64::from_bits(got)
        );
    }
}

#[test]
fn f32_division_and_sqrt() {
    let a = f32_inputs(1);
    let mut b = f32_inputs(2);
    b.rotate_left(5);
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let c = launch(DIVF, bytes(&a), bytes(&b), 4 * 128);
    let word = |i: usize| u32::from_le_bytes(c[4 * i..4 * i + 4].try_into().unwrap());
    for l in 0..64 {
        same32(
            word(l),
            a[l] / b[l],
            &format!("lane {l}: {} / {}", a[l], b[l]),
        );
        same32(
            word(64 + l),
            a[l].sqrt(),
            &format!("lane {l}: sqrt {}", a[l]),
        );
    }
}

#[test]
fn f64_division_and_sqrt() {
    let mut r = Rng(3);
    let gen = |r: &mut Rng, l: usize| -> f64 {
        match l % 4 {
            0 => [
                0.0,
                -0.0,
                f64::INFINITY,
                1.0,
                f64::MIN_POSITIVE,
                4.9e-324,
                f64::NAN,
                1e300,
            ][l / 4 % 8],
            1 => f64::from_bits(r.next()),
            _ => (r.next() as i64 as f64) / 1e6,
        }
    };
    let a: Vec<f64> = (0..64).map(|l| gen(&mut r, l)).collect();
    let b: Vec<f64> = (0..64).map(|l| gen(&mut r, (l + 5) % 64)).collect();
    let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let c = launch(DIVD, bytes(&a), bytes(&b), 8 * 128);
    let dword = |i: usize| u64::from_le_bytes(c[8 * i..8 * i + 8].try_into().unwrap());
    for l in 0..64 {
        same_f64(
            dword(l),
            a[l] / b[l],
            &format!("lane {l}: {} / {}", a[l], b[l]),
        );
        same_f64(
            dword(64 + l),
            a[l].sqrt(),
            &format!("lane {l}: sqrt {}", a[l]),
        );
    }
}

#[test]
fn u32_and_i32_division() {
    let mut r = Rng(4);
    let a: Vec<u32> = (0..64)
        .map(|l| if l % 3 == 0 { l as u32 * 1000 } else { r.u32() })
        .collect();
    let b: Vec<u32> = (0..64)
        .map(|l| match l % 4 {
            0 => 1 + l as u32,
            1 => r.u32(),
            2 => r.u32() >> 20 | 1,
            _ => (-l - 1) as u32,
        })
        .collect();
    let bytes = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let c = launch(IDIV, bytes(&a), bytes(&b), 4 * 192);
    let word = |i: usize| u32::from_le_bytes(c[4 * i..4 * i + 4].try_into().unwrap());
    for l in 0..64 {
        let (x, y) = (a[l], b[l]);
        assert_eq!(word(l), x / y, "lane {l}: {x} / {y}");
        assert_eq!(word(64 + l), x % y, "lane {l}: {x} % {y}");
        assert_eq!(
            word(128 + l),
            (x as i32).wrapping_div(y as i32) as u32,
            "lane {l}"
        );
    }
}

#[test]
fn u64_and_i64_division_with_divergent_paths() {
    let mut r = Rng(5);
    // Lanes with both operands below 2^32 take the compiler's 32-bit fast path.
    let a: Vec<u64> = (0..64)
        .map(|l| if l % 2 == 0 { r.next() >> 32 } else { r.next() })
        .collect();
    let b: Vec<u64> = (0..64)
        .map(|l| match l % 4 {
            0 => (r.next() >> 40) | 1,
            1 => r.next() >> (l % 50),
            2 => 3,
            _ => (-(l as i64) * 7777) as u64,
        })
        .collect();
    let bytes = |v: &[u64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let c = launch(LDIV, bytes(&a), bytes(&b), 8 * 128);
    let dword = |i: usize| u64::from_le_bytes(c[8 * i..8 * i + 8].try_into().unwrap());
    for l in 0..64 {
        let (x, y) = (a[l], b[l]);
        assert_eq!(dword(l), x / y, "lane {l}: {x} / {y}");
        assert_eq!(
            dword(64 + l),
            (x as i64).wrapping_rem(y as i64) as u64,
            "lane {l}: {x} % {y}"
        );
    }
}
