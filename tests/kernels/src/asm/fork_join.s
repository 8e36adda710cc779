// Hand-written GFX9 (gfx942/gfx950) kernel exercising the GCN fork/join branches
// (s_cbranch_i_fork, s_cbranch_g_fork with a computed SGPR-pair target, s_cbranch_join;
// CDNA4 ISA 4.6), nested two deep; checked against a host reference through `wavejit run`
// (tests/asm_kernels.rs).
//
//   fork_join(uint32_t *out, const uint32_t *in)
//
// One wave per workgroup (block 64). Lane l of workgroup w reads x = in[64 w + l] and writes
// 3 dwords at out[3 (64 w + l) ..]:
//   [0] the paths the lane ran, one hex digit each, in order: 1 = x even, 2 = x odd, then
//       for odd x: 3 = bit 1 of x clear, 4 = bit 1 set;
//   [1] x >> 1 (even), 3 x + 1 (odd, bit 1 clear), ~x (odd, bit 1 set);
//   [2] the order in which the wave ran the paths (same digits, one per path run; a fork
//       runs the side with fewer lanes first), then a last digit 0 when CSP is back at 0
//       after the joins (8 otherwise); the same in every lane of the wave.
// The fork/join stack lives in s[0:7] (CSP*4), so everything the kernel needs after the first
// fork is kept in s40 and above.

	.text
	.globl	fork_join
	.p2align	8
	.type	fork_join,@function
fork_join:
	s_load_dwordx4 s[40:43], s[0:1], 0x0        // out, in
	s_lshl_b32 s44, s2, 6                       // 64 * workgroup id
	v_add_u32_e32 v1, s44, v0                   // global index
	v_lshlrev_b32_e32 v2, 2, v1
	v_mul_u32_u24_e32 v4, 12, v1                // 3 dwords per lane
	s_waitcnt lgkmcnt(0)
	global_load_dword v3, v2, s[42:43]
	s_waitcnt vmcnt(0)
	v_mov_b32_e32 v6, 0
	s_mov_b32 s31, 0
	s_mov_b64 s[46:47], exec
	v_and_b32_e32 v5, 1, v3
	v_cmp_ne_u32_e64 s[20:21], 0, v5            // odd lanes
	v_and_b32_e32 v5, 2, v3
	v_cmp_ne_u32_e64 s[24:25], 0, v5            // bit 1 set
	s_getreg_b32 s22, hwreg(HW_REG_MODE, 29, 3) // CSP at the outer fork
	s_cbranch_i_fork s[20:21], .Lodd

	// x even
	s_lshl_b32 s31, s31, 4
	s_or_b32 s31, s31, 1
	v_lshlrev_b32_e32 v6, 4, v6
	v_or_b32_e32 v6, 1, v6
	v_lshrrev_b32_e32 v7, 1, v3
	s_branch .Ljoin1

.Lodd:
	s_lshl_b32 s31, s31, 4
	s_or_b32 s31, s31, 2
	v_lshlrev_b32_e32 v6, 4, v6
	v_or_b32_e32 v6, 2, v6
	s_getreg_b32 s23, hwreg(HW_REG_MODE, 29, 3) // CSP at the inner fork
	s_getpc_b64 s[28:29]
.Lpc:
	s_add_u32 s28, s28, .Lbit1-.Lpc
	s_addc_u32 s29, s29, 0
	s_cbranch_g_fork s[24:25], s[28:29]

	// x odd, bit 1 clear
	s_lshl_b32 s31, s31, 4
	s_or_b32 s31, s31, 3
	v_lshlrev_b32_e32 v6, 4, v6
	v_or_b32_e32 v6, 3, v6
	v_mul_u32_u24_e32 v7, 3, v3
	v_add_u32_e32 v7, 1, v7
	s_branch .Ljoin2

.Lbit1:                                         // x odd, bit 1 set
	s_lshl_b32 s31, s31, 4
	s_or_b32 s31, s31, 4
	v_lshlrev_b32_e32 v6, 4, v6
	v_or_b32_e32 v6, 4, v6
	v_not_b32_e32 v7, v3

.Ljoin2:
	s_cbranch_join s23
.Ljoin1:
	s_cbranch_join s22
	// Last digit: 0 when CSP is back at its value before the forks (0), else 8.
	s_getreg_b32 s30, hwreg(HW_REG_MODE, 29, 3)
	s_lshl_b32 s31, s31, 4
	s_cmp_eq_u32 s30, 0
	s_cselect_b32 s30, 0, 8
	s_or_b32 s31, s31, s30
	s_mov_b64 exec, s[46:47]
	v_mov_b32_e32 v8, s31
	global_store_dwordx3 v4, v[6:8], s[40:41]
	s_endpgm
.Lend:
	.size	fork_join, .Lend-fork_join

	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel fork_join
		.amdhsa_kernarg_size 16
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 9
		.amdhsa_next_free_sgpr 48
		.amdhsa_accum_offset 12
		.amdhsa_reserve_vcc 0
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
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 64
    .name:           fork_join
    .private_segment_fixed_size: 0
    .sgpr_count:     48
    .symbol:         fork_join.kd
    .vgpr_count:     9
    .wavefront_size: 64
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
