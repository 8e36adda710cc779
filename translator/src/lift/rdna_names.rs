//! RDNA (GFX11/GFX12) mnemonics whose semantics a GFX9 lifting function already implements
//! under another name: LLVM renamed them (`s_load_b32` is `s_load_dword`, `ds_store_b32` is
//! `ds_write_b32`, `v_add_nc_u32` is GFX9's carry-less `v_add_u32`), or they are scheduling
//! hints and counter waits that have no effect when memory is synchronous (`s_clause`,
//! `s_delay_alu`, gfx12 `s_wait_*`). RDNA ISA (003) ch. 4 and the opcode tables give the
//! equivalences; everything not listed here is lifted under its own name (or is Unsupported).

/// The GFX9 mnemonic with the same semantics as RDNA's `name`, or `name` itself; `s_nop`
/// for hints, waits and cache invalidations.
pub(super) fn gfx9_equivalent(name: &'static str) -> &'static str {
    match name {
        // Hints and waits (memory is synchronous here).
        "s_clause" | "s_delay_alu" | "s_wait_idle" | "s_wait_alu" | "s_wait_loadcnt" | "s_wait_storecnt"
        | "s_wait_samplecnt" | "s_wait_bvhcnt" | "s_wait_expcnt" | "s_wait_dscnt" | "s_wait_kmcnt"
        | "s_wait_loadcnt_dscnt" | "s_wait_storecnt_dscnt" | "s_waitcnt_vscnt" | "s_waitcnt_vmcnt"
        | "s_waitcnt_expcnt" | "s_waitcnt_lgkmcnt" | "s_waitcnt_depctr" | "s_wait_event"
        // Cache invalidations (no caches here).
        | "buffer_gl0_inv" | "buffer_gl1_inv" | "global_inv" | "global_wb" | "global_wbinv"
        // gfx12 split barrier: the workgroup barrier happens at the signal (a valid schedule:
        // every wave signals before it waits), so the wait has nothing left to do.
        | "s_barrier_wait" => "s_nop",
        // "Flush the vector ALU pipeline through the destination cache" (RDNA4 ISA 16.8,
        // VOP1 27): no effect on registers or memory.
        "v_pipeflush" => "v_nop",

        // Renamed scalar ops.
        "s_and_not1_saveexec_b32" => "s_andn2_saveexec_b32",
        "s_and_not1_saveexec_b64" => "s_andn2_saveexec_b64",
        "s_or_not1_saveexec_b32" => "s_orn2_saveexec_b32",
        "s_or_not1_saveexec_b64" => "s_orn2_saveexec_b64",
        "s_and_not1_b32" => "s_andn2_b32",
        "s_and_not1_b64" => "s_andn2_b64",
        "s_or_not1_b32" => "s_orn2_b32",
        "s_or_not1_b64" => "s_orn2_b64",
        "s_ctz_i32_b32" => "s_ff1_i32_b32",
        "s_ctz_i32_b64" => "s_ff1_i32_b64",
        "s_clz_i32_u32" => "s_flbit_i32_b32",
        "v_clz_i32_u32" => "v_ffbh_u32",
        "v_ctz_i32_b32" => "v_ffbl_b32",
        "v_mad_co_u64_u32" => "v_mad_u64_u32",
        "v_mad_co_i64_i32" => "v_mad_i64_i32",
        "s_load_b96" => "s_load_dwordx3",
        "s_buffer_load_b96" => "s_buffer_load_dwordx3",
        // gfx12 renames of the 32-bit scalar add/sub (same SCC rule).
        "s_add_co_i32" => "s_add_i32",
        "s_addk_co_i32" => "s_addk_i32",
        "s_set_inst_prefetch_distance" => "s_nop",
        "s_sub_co_i32" => "s_sub_i32",
        "s_add_co_u32" => "s_add_u32",
        "s_sub_co_u32" => "s_sub_u32",
        "s_add_co_ci_u32" => "s_addc_u32",
        "s_sub_co_ci_u32" => "s_subb_u32",
        "v_max_num_f32" => "v_max_f32",
        "v_min_num_f32" => "v_min_f32",
        // Scalar memory.
        "s_load_b32" => "s_load_dword",
        "s_load_b64" => "s_load_dwordx2",
        "s_load_b128" => "s_load_dwordx4",
        "s_load_b256" => "s_load_dwordx8",
        "s_load_b512" => "s_load_dwordx16",
        "s_buffer_load_b32" => "s_buffer_load_dword",
        "s_buffer_load_b64" => "s_buffer_load_dwordx2",
        "s_buffer_load_b128" => "s_buffer_load_dwordx4",
        "s_buffer_load_b256" => "s_buffer_load_dwordx8",
        "s_buffer_load_b512" => "s_buffer_load_dwordx16",
        // Vector memory.
        "global_load_b32" => "global_load_dword",
        "global_load_b64" => "global_load_dwordx2",
        "global_load_b96" => "global_load_dwordx3",
        "global_load_b128" => "global_load_dwordx4",
        "global_load_u8" => "global_load_ubyte",
        "global_load_i8" => "global_load_sbyte",
        "global_load_u16" => "global_load_ushort",
        "global_load_i16" => "global_load_sshort",
        "global_store_b8" => "global_store_byte",
        "global_store_b16" => "global_store_short",
        "global_store_b32" => "global_store_dword",
        "global_store_b64" => "global_store_dwordx2",
        "global_store_b96" => "global_store_dwordx3",
        "global_store_b128" => "global_store_dwordx4",
        "flat_load_b32" => "flat_load_dword",
        "flat_load_b64" => "flat_load_dwordx2",
        "flat_load_b128" => "flat_load_dwordx4",
        "flat_store_b32" => "flat_store_dword",
        "flat_store_b64" => "flat_store_dwordx2",
        "flat_store_b128" => "flat_store_dwordx4",
        "scratch_load_b32" => "scratch_load_dword",
        "scratch_load_b64" => "scratch_load_dwordx2",
        "scratch_load_b128" => "scratch_load_dwordx4",
        "scratch_store_b32" => "scratch_store_dword",
        "scratch_store_b64" => "scratch_store_dwordx2",
        "scratch_store_b128" => "scratch_store_dwordx4",
        "global_load_d16_b16" => "global_load_short_d16",
        "global_load_d16_hi_b16" => "global_load_short_d16_hi",
        "global_load_d16_u8" => "global_load_ubyte_d16",
        "global_load_d16_hi_u8" => "global_load_ubyte_d16_hi",
        "global_load_d16_i8" => "global_load_sbyte_d16",
        "global_load_d16_hi_i8" => "global_load_sbyte_d16_hi",
        "global_store_d16_hi_b16" => "global_store_short_d16_hi",
        "global_store_d16_hi_b8" => "global_store_byte_d16_hi",
        "global_atomic_add_u32" => "global_atomic_add",
        "global_atomic_sub_u32" => "global_atomic_sub",
        "global_atomic_min_i32" => "global_atomic_smin",
        "global_atomic_max_i32" => "global_atomic_smax",
        "global_atomic_min_u32" => "global_atomic_umin",
        "global_atomic_max_u32" => "global_atomic_umax",
        "global_atomic_and_b32" => "global_atomic_and",
        "global_atomic_or_b32" => "global_atomic_or",
        "global_atomic_xor_b32" => "global_atomic_xor",
        "global_atomic_swap_b32" => "global_atomic_swap",
        "global_atomic_cmpswap_b32" => "global_atomic_cmpswap",
        // LDS.
        "ds_store_b32" => "ds_write_b32",
        "ds_store_b64" => "ds_write_b64",
        "ds_store_2addr_b32" => "ds_write2_b32",
        "ds_store_2addr_b64" => "ds_write2_b64",
        "ds_load_b32" => "ds_read_b32",
        "ds_load_b64" => "ds_read_b64",
        "ds_load_2addr_b32" => "ds_read2_b32",
        "ds_load_2addr_b64" => "ds_read2_b64",
        "ds_load_2addr_stride64_b32" => "ds_read2st64_b32",
        "ds_load_2addr_stride64_b64" => "ds_read2st64_b64",
        "ds_store_2addr_stride64_b32" => "ds_write2st64_b32",
        "ds_store_2addr_stride64_b64" => "ds_write2st64_b64",
        "ds_load_u8" => "ds_read_u8",
        "ds_load_i8" => "ds_read_i8",
        "ds_load_u16" => "ds_read_u16",
        "ds_load_i16" => "ds_read_i16",
        "ds_load_b96" => "ds_read_b96",
        "ds_load_b128" => "ds_read_b128",
        "ds_store_b8" => "ds_write_b8",
        "ds_store_b16" => "ds_write_b16",
        "ds_store_b96" => "ds_write_b96",
        "ds_store_b8_d16_hi" => "ds_write_b8_d16_hi",
        "ds_store_b16_d16_hi" => "ds_write_b16_d16_hi",
        "ds_load_u8_d16" => "ds_read_u8_d16",
        "ds_load_u8_d16_hi" => "ds_read_u8_d16_hi",
        "ds_load_i8_d16" => "ds_read_i8_d16",
        "ds_load_i8_d16_hi" => "ds_read_i8_d16_hi",
        "ds_load_u16_d16" => "ds_read_u16_d16",
        "ds_load_u16_d16_hi" => "ds_read_u16_d16_hi",
        "ds_storexchg_rtn_b32" => "ds_wrxchg_rtn_b32",
        // gfx12 names of the LDS float min/max atomics.
        "ds_min_num_f32" => "ds_min_f32",
        "ds_max_num_f32" => "ds_max_f32",
        "ds_min_num_rtn_f32" => "ds_min_rtn_f32",
        "ds_max_num_rtn_f32" => "ds_max_rtn_f32",
        "ds_min_num_f64" => "ds_min_f64",
        "ds_max_num_f64" => "ds_max_f64",
        "ds_min_num_rtn_f64" => "ds_min_rtn_f64",
        "ds_max_num_rtn_f64" => "ds_max_rtn_f64",
        "ds_storexchg_rtn_b64" => "ds_wrxchg_rtn_b64",
        "ds_store_b128" => "ds_write_b128",
        // More renamed scalar ops (RDNA "not0" = GFX9 "n1", "cls" = "flbit_i32").
        "s_and_not0_saveexec_b32" => "s_andn1_saveexec_b32",
        "s_and_not0_saveexec_b64" => "s_andn1_saveexec_b64",
        "s_or_not0_saveexec_b32" => "s_orn1_saveexec_b32",
        "s_or_not0_saveexec_b64" => "s_orn1_saveexec_b64",
        "s_cls_i32" => "s_flbit_i32",
        "s_cls_i32_i64" => "s_flbit_i32_i64",
        "s_clz_i32_u64" => "s_flbit_i32_b64",
        "s_gl1_inv" | "s_version" | "s_ttracedata_imm" => "s_nop",
        // "End of program; signal that a wave has been saved by the context-switch trap
        // handler and terminate wavefront" (RDNA4 ISA 16.5): no context switch happens off-GPU,
        // the wave ends as at s_endpgm.
        "s_endpgm_saved" => "s_endpgm",
        // More renamed VALU ops.
        "v_cvt_pk_rtz_f16_f32" => "v_cvt_pkrtz_f16_f32",
        "v_cvt_floor_i32_f32" => "v_cvt_flr_i32_f32",
        "v_cvt_nearest_i32_f32" => "v_cvt_rpi_i32_f32",
        "v_cls_i32" => "v_ffbh_i32",
        // 16/32-bit add/sub without carry: GFX9's, whose clamp saturates to the result
        // type's range, signed or unsigned (RDNA4 ISA 7.2.3.1: "Signed Int [INT_MIN,
        // INT_MAX], Unsigned int [0, UINT_MAX]"; LLVM 22 lowers llvm.sadd.sat/ssub.sat to
        // `v_add_nc_i32`/`v_sub_nc_i32`/`v_add_nc_i16`/`v_sub_nc_i16 ... clamp` on gfx11/gfx12).
        "v_add_nc_u16" => "v_add_u16",
        "v_sub_nc_u16" => "v_sub_u16",
        "v_add_nc_i16" => "v_add_i16",
        "v_sub_nc_i16" => "v_sub_i16",
        "v_add_nc_i32" => "v_add_i32",
        "v_sub_nc_i32" => "v_sub_i32",
        // VALU renames (same operation, LLVM's RDNA spelling).
        "v_add_nc_u32" => "v_add_u32",
        "v_sub_nc_u32" => "v_sub_u32",
        "v_subrev_nc_u32" => "v_subrev_u32",
        "v_add_co_ci_u32" => "v_addc_co_u32",
        "v_sub_co_ci_u32" => "v_subb_co_u32",
        "v_subrev_co_ci_u32" => "v_subbrev_co_u32",
        other => memory_rename(other).unwrap_or(other),
    }
}

/// RDNA data-type suffixes of vector memory operations and the GFX9 spelling of the same
/// operation, for every segment prefix (`global_`, `flat_`, `scratch_`, `buffer_`).
const MEMORY_SUFFIXES: &[(&str, &str)] = &[
    ("load_b32", "load_dword"),
    ("load_b64", "load_dwordx2"),
    ("load_b96", "load_dwordx3"),
    ("load_b128", "load_dwordx4"),
    ("load_u8", "load_ubyte"),
    ("load_i8", "load_sbyte"),
    ("load_u16", "load_ushort"),
    ("load_i16", "load_sshort"),
    ("load_d16_b16", "load_short_d16"),
    ("load_d16_hi_b16", "load_short_d16_hi"),
    ("load_d16_u8", "load_ubyte_d16"),
    ("load_d16_hi_u8", "load_ubyte_d16_hi"),
    ("load_d16_i8", "load_sbyte_d16"),
    ("load_d16_hi_i8", "load_sbyte_d16_hi"),
    ("store_b8", "store_byte"),
    ("store_b16", "store_short"),
    ("store_b32", "store_dword"),
    ("store_b64", "store_dwordx2"),
    ("store_b96", "store_dwordx3"),
    ("store_b128", "store_dwordx4"),
    ("store_d16_hi_b16", "store_short_d16_hi"),
    ("store_d16_hi_b8", "store_byte_d16_hi"),
    ("atomic_add_u32", "atomic_add"),
    ("atomic_sub_u32", "atomic_sub"),
    ("atomic_min_i32", "atomic_smin"),
    ("atomic_max_i32", "atomic_smax"),
    ("atomic_min_u32", "atomic_umin"),
    ("atomic_max_u32", "atomic_umax"),
    ("atomic_and_b32", "atomic_and"),
    ("atomic_or_b32", "atomic_or"),
    ("atomic_xor_b32", "atomic_xor"),
    ("atomic_swap_b32", "atomic_swap"),
    ("atomic_cmpswap_b32", "atomic_cmpswap"),
    ("atomic_inc_u32", "atomic_inc"),
    ("atomic_dec_u32", "atomic_dec"),
    ("atomic_add_u64", "atomic_add_x2"),
    ("atomic_sub_u64", "atomic_sub_x2"),
    ("atomic_min_i64", "atomic_smin_x2"),
    ("atomic_max_i64", "atomic_smax_x2"),
    ("atomic_min_u64", "atomic_umin_x2"),
    ("atomic_max_u64", "atomic_umax_x2"),
    ("atomic_and_b64", "atomic_and_x2"),
    ("atomic_or_b64", "atomic_or_x2"),
    ("atomic_xor_b64", "atomic_xor_x2"),
    ("atomic_swap_b64", "atomic_swap_x2"),
    ("atomic_cmpswap_b64", "atomic_cmpswap_x2"),
    ("atomic_inc_u64", "atomic_inc_x2"),
    ("atomic_dec_u64", "atomic_dec_x2"),
    ("atomic_min_num_f64", "atomic_min_f64"),
    ("atomic_max_num_f64", "atomic_max_f64"),
];

/// The GFX9 mnemonic of an RDNA vector memory operation (`global_load_u8` →
/// `global_load_ubyte`), when that mnemonic exists in the opcode table.
fn memory_rename(name: &str) -> Option<&'static str> {
    let (seg, rest) = ["global_", "flat_", "scratch_", "buffer_"]
        .iter()
        .find_map(|p| name.strip_prefix(p).map(|r| (*p, r)))?;
    let gfx9 = MEMORY_SUFFIXES.iter().find(|(r, _)| *r == rest)?.1;
    crate::isa::Op::from_name(&format!("{seg}{gfx9}")).map(crate::isa::Op::name)
}
