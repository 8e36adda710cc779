// Hand-written GFX9 (gfx942/gfx950) kernel exercising DPP, SDWA and computed program-counter
// control flow; checked against a host reference through `wavejit run` (tests/asm_kernels.rs).
//
//   dpp_sdwa_pc(uint32_t *out, const uint32_t *in, uint32_t sel)
//
// One wave per workgroup (block 64). Lane l of workgroup w reads x = in[64 w + l] and writes
// 20 dwords at out[20 (64 w + l) ..]:
//   [0..14)  DPP results (row shifts/rotates, quad_perm, row_bcast, mirrors, wave shifts,
//            row/bank masks, bound_ctrl),
//   [14..19) SDWA results (byte/word selects, sext, UNUSED_PRESERVE/SEXT/PAD), where [18] is
//            then updated by the function called below,
//   [19]     1 after s_setpc to a computed target, + 10 after the s_swappc call returns.
// The called function is chosen at run time: f1 when (sel ^ w) is odd, else f0. The exact
// value of every dword is worked out in tests/asm_kernels.rs.

	.text
	.globl	dpp_sdwa_pc
	.p2align	8
	.type	dpp_sdwa_pc,@function
dpp_sdwa_pc:
	s_load_dwordx4 s[4:7], s[0:1], 0x0          // out, in
	s_load_dword s8, s[0:1], 0x10               // sel
	s_lshl_b32 s9, s2, 6                        // 64 * workgroup id
	v_add_u32_e32 v1, s9, v0                    // global index
	v_lshlrev_b32_e32 v2, 2, v1
	v_mul_u32_u24_e32 v4, 80, v1                // 20 dwords per lane
	s_waitcnt lgkmcnt(0)
	global_load_dword v3, v2, s[6:7]
	s_waitcnt vmcnt(0)

	// ---- DPP ----
	v_mov_b32_e32 v10, -1
	v_mov_b32_dpp v10, v3 row_shr:1 row_mask:0xf bank_mask:0xf
	v_mov_b32_dpp v11, v3 row_ror:3 row_mask:0xf bank_mask:0xf
	v_mov_b32_dpp v12, v3 quad_perm:[3,0,2,1] row_mask:0xf bank_mask:0xf
	v_mov_b32_e32 v13, 7
	v_mov_b32_dpp v13, v3 row_bcast:15 row_mask:0xa bank_mask:0xf
	v_mov_b32_e32 v14, 5
	v_add_u32_dpp v14, v3, v3 row_shl:1 row_mask:0xf bank_mask:0x9 bound_ctrl:0
	v_mov_b32_dpp v15, v3 row_mirror row_mask:0xf bank_mask:0xf
	v_mov_b32_dpp v16, v3 row_half_mirror row_mask:0xf bank_mask:0xf
	v_mov_b32_dpp v17, v3 wave_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
	v_mov_b32_dpp v18, v3 wave_rol:1 row_mask:0xf bank_mask:0xf
	v_mov_b32_e32 v19, 3
	v_mov_b32_dpp v19, v3 row_bcast:31 row_mask:0xc bank_mask:0xf
	v_mov_b32_dpp v20, v3 row_shr:15 row_mask:0xf bank_mask:0xf bound_ctrl:0
	v_mov_b32_dpp v21, v3 quad_perm:[0,0,0,0] row_mask:0xf bank_mask:0xf
	v_mov_b32_e32 v22, 9
	v_mov_b32_dpp v22, v3 row_ror:8 row_mask:0xf bank_mask:0x6
	v_mov_b32_e32 v23, 11
	v_mov_b32_dpp v23, v3 wave_shl:1 row_mask:0xf bank_mask:0xf

	// ---- SDWA ----
	v_mov_b32_e32 v24, 0x12345678
	v_add_u32_sdwa v24, v3, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_2 src1_sel:WORD_0
	v_mov_b32_sdwa v25, v3 dst_sel:BYTE_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_3
	v_mov_b32_sdwa v26, sext(v3) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0
	v_sub_u32_sdwa v27, v3, v0 dst_sel:BYTE_0 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:BYTE_0
	v_mul_u32_u24_sdwa v28, v3, v3 dst_sel:WORD_0 dst_unused:UNUSED_SEXT src0_sel:BYTE_1 src1_sel:BYTE_2

	// ---- computed jump: s_getpc + offset, s_setpc ----
	s_getpc_b64 s[10:11]
.Lpc1:
	s_add_u32 s10, s10, .Ltarget-.Lpc1
	s_addc_u32 s11, s11, 0
	s_setpc_b64 s[10:11]
	v_mov_b32_e32 v29, 0xdead                   // skipped
	s_endpgm
.Ltarget:
	v_mov_b32_e32 v29, 1

	// ---- computed call: f0 or f1 by (sel ^ workgroup id) & 1, s_swappc, return ----
	s_getpc_b64 s[12:13]
.Lpc2:
	s_xor_b32 s14, s8, s2
	s_bitcmp1_b32 s14, 0
	s_mov_b32 s15, .Lf0-.Lpc2
	s_cselect_b32 s15, .Lf1-.Lpc2, s15
	s_add_u32 s12, s12, s15
	s_addc_u32 s13, s13, 0
	s_swappc_b64 s[30:31], s[12:13]
	v_add_u32_e32 v29, 10, v29                  // after the return

	global_store_dwordx4 v4, v[10:13], s[4:5]
	global_store_dwordx4 v4, v[14:17], s[4:5] offset:16
	global_store_dwordx4 v4, v[18:21], s[4:5] offset:32
	global_store_dwordx4 v4, v[22:25], s[4:5] offset:48
	global_store_dwordx4 v4, v[26:29], s[4:5] offset:64
	s_endpgm

.Lf0:                                           // v28 += x + 100
	v_add_u32_e32 v5, 0x64, v3
	v_add_u32_e32 v28, v28, v5
	s_setpc_b64 s[30:31]
.Lf1:                                           // v28 ^= ~x
	v_not_b32_e32 v5, v3
	v_xor_b32_e32 v28, v28, v5
	s_setpc_b64 s[30:31]
.Lend:
	.size	dpp_sdwa_pc, .Lend-dpp_sdwa_pc

	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel dpp_sdwa_pc
		.amdhsa_kernarg_size 20
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 30
		.amdhsa_next_free_sgpr 32
		.amdhsa_accum_offset 32
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
      - .offset:         16
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 20
    .max_flat_workgroup_size: 64
    .name:           dpp_sdwa_pc
    .private_segment_fixed_size: 0
    .sgpr_count:     32
    .symbol:         dpp_sdwa_pc.kd
    .vgpr_count:     30
    .wavefront_size: 64
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
