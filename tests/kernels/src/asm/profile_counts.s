// Hand-written GFX9 (gfx942/gfx950) kernel whose profile is known by construction
// (tests/profile.rs): a loop with a trip count from the arguments, a divergent branch with
// 20 active lanes, a branch no lane takes, and one instruction of each cost class the
// estimate distinguishes (SALU, SMEM, VALU, transcendental, f64, MFMA, LDS, VMEM, control).
//
//   profile_counts(uint32_t *out, uint32_t n)
//
// Two waves per workgroup (block 128). With lane = the lane's index in its wave and
// gid = 128 * workgroup + work-item id, out[gid] = n * lane + (lane < 20 ? 1000 : 0).

	.text
	.globl	profile_counts
	.p2align	8
	.type	profile_counts,@function
profile_counts:
	s_load_dwordx2 s[4:5], s[0:1], 0x0          // out
	s_load_dword s6, s[0:1], 0x8                // n (the loop's trip count, >= 1)
	v_mbcnt_lo_u32_b32 v5, -1, 0
	v_mbcnt_hi_u32_b32 v5, -1, v5               // lane index in the wave
	v_mov_b32_e32 v1, 0
	v_mov_b32_e32 v10, 0
	v_mov_b32_e32 v11, 0
	v_mov_b32_e32 v12, 0
	v_mov_b32_e32 v13, 0
	v_mfma_f32_16x16x16_f16 v[10:13], v[14:15], v[14:15], v[10:13]
	v_fma_f64 v[16:17], v[16:17], v[16:17], v[16:17]
	s_mov_b32 s7, 0
	s_waitcnt lgkmcnt(0)
.Lloop:                                         // n times
	v_add_u32_e32 v1, v1, v5
	s_add_u32 s7, s7, 1
	s_cmp_lt_u32 s7, s6
	s_cbranch_scc1 .Lloop
	v_cmp_gt_u32_e32 vcc, 20, v5                // lanes 0..19
	s_and_saveexec_b64 s[8:9], vcc
	s_cbranch_execz .Lskip
	v_add_u32_e32 v1, 0x3e8, v1                 // 20 lanes
	v_exp_f32_e32 v2, v1                        // 20 lanes
.Lskip:
	s_or_b64 exec, exec, s[8:9]
	v_cmp_lt_u32_e32 vcc, 64, v5                // no lane (lane <= 63)
	s_and_saveexec_b64 s[10:11], vcc
	s_cbranch_execz .Lnever
	v_add_u32_e32 v1, 7, v1                     // never runs
.Lnever:
	s_or_b64 exec, exec, s[10:11]
	v_lshlrev_b32_e32 v3, 2, v0                 // work-item id * 4
	ds_write_b32 v3, v1
	s_lshl_b32 s12, s2, 9                       // workgroup * 128 * 4
	v_add_u32_e32 v3, s12, v3
	global_store_dword v3, v1, s[4:5]
	s_endpgm
.Lend:
	.size	profile_counts, .Lend-profile_counts

	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel profile_counts
		.amdhsa_kernarg_size 12
		.amdhsa_group_segment_fixed_size 512
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 18
		.amdhsa_next_free_sgpr 16
		.amdhsa_accum_offset 20
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .offset:         8
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 512
    .kernarg_segment_align: 8
    .kernarg_segment_size: 12
    .max_flat_workgroup_size: 128
    .name:           profile_counts
    .private_segment_fixed_size: 0
    .sgpr_count:     16
    .symbol:         profile_counts.kd
    .vgpr_count:     18
    .wavefront_size: 64
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
