// Hand-picked gfx950 instructions for the decoder oracle (gen_tables.py assembles them with
// llvm-mc-22 and records LLVM's text next to the random operand variants).
// VOP3P dot products in their only defined form (LLVM rejects op_sel/op_sel_hi on them)
v_dot2_f32_f16 v0, v1, v2, v3
v_dot2_f32_bf16 v0, v1, v2, v3
v_dot2_i32_i16 v0, v1, v2, v3
v_dot2_u32_u16 v4, v5, s6, v7 clamp
v_dot4_i32_i8 v0, v1, v2, v3
v_dot4_u32_u8 v0, v1, v2, v3
v_dot8_i32_i4 v0, v1, v2, v3
v_dot8_u32_u4 v0, v1, v2, v3
// MODE, the hardware register kernels read and write (the random variants pick other ids)
s_getreg_b32 s0, hwreg(HW_REG_MODE, 0, 4)
s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s1
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 8), 0xab
