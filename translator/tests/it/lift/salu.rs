//! SALU and program control: carries and SCC, bitfield ops, compares, `s_*_saveexec`, a
//! counted loop through `s_cbranch_scc1`, `s_getpc_b64`, checked against host computations.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

#[test]
fn scalar_alu_and_loop() {
    #[rustfmt::skip]
    let words = [
        0x80000201, // s_add_u32 s0, s1, s2
        0x82030504, // s_addc_u32 s3, s4, s5
        0x8506c387, // s_cselect_b32 s6, 7, -3
        0x81870201, // s_sub_i32 s7, s1, s2
        0x85088081, // s_cselect_b32 s8, 1, 0
        0x97890201, // s_lshl2_add_u32 s9, s1, s2
        0x928aff01, 0x00080004, // s_bfe_u32 s10, s1, 0x80004
        0x930bff01, 0x000c0010, // s_bfe_i32 s11, s1, 0xc0010
        0xbe8c1114, // s_ff1_i32_b64 s12, s[20:21]
        0xbe8d1216, // s_flbit_i32_b32 s13, s22
        0xbe8e0d14, // s_bcnt1_i32_b64 s14, s[20:21]
        0x850f8081, // s_cselect_b32 s15, 1, 0
        0x96100201, // s_mul_hi_u32 s16, s1, s2
        0x83110201, // s_min_i32 s17, s1, s2
        0x85128081, // s_cselect_b32 s18, 1, 0
        0x89981a14, // s_andn2_b64 s[24:25], s[20:21], s[26:27]
        0x8f9c0114, // s_lshr_b64 s[28:29], s[20:21], s1
        0xb01e8001, // s_movk_i32 s30, 0x8001
        0xb51f8000, // s_cmpk_gt_u32 s31, 0x8000
        0x85208081, // s_cselect_b32 s32, 1, 0
        0xbea22024, // s_and_saveexec_b64 s[34:35], s[36:37]
        0x85218081, // s_cselect_b32 s33, 1, 0
        0xbea80080, // s_mov_b32 s40, 0
        0xbea90080, // s_mov_b32 s41, 0
        0x81288128, // s_add_i32 s40, s40, 1
        0x81292829, // s_add_i32 s41, s41, s40
        0xbf0a8a28, // s_cmp_lt_u32 s40, 10
        0xbf85fffc, // s_cbranch_scc1 -4
        0xbeaa1c00, // s_getpc_b64 s[42:43]
        0xbeac0801, // s_brev_b32 s44, s1
        0xbeae0514, // s_not_b64 s[46:47], s[20:21]
        0xbf810000, // s_endpgm
    ];
    for seed in [3u64, 4, 5, 6] {
        let mut mem = Mem::new(0);
        let (b, a) = run_words(&words, seed, EXEC_PARTIAL, &mut mem, |s| {
            if seed == 4 {
                // Low-word zero for s_ff1 to search the high half; s22 = 0 for s_flbit.
                s.sgpr[20] = 0;
                s.sgpr[22] = 0;
                s.sgpr[1] = 0x7fff_ffff;
                s.sgpr[2] = 0x8000_0000;
            }
            if seed == 5 {
                s.sgpr[20] = 0;
                s.sgpr[21] = 0;
                s.sgpr[36] = 0;
                s.sgpr[37] = 0;
            }
        });
        let s = |r: usize| b.sgpr[r];
        let (s1, s2) = (s(1), s(2));
        let add = s1 as u64 + s2 as u64;
        assert_eq!(a.sgpr[0], add as u32);
        let carry = add >> 32;
        let addc = s(4) as u64 + s(5) as u64 + carry;
        assert_eq!(a.sgpr[3], addc as u32);
        assert_eq!(a.sgpr[6], if addc >> 32 != 0 { 7 } else { -3i32 as u32 });
        let (d, ov) = (s1 as i32).overflowing_sub(s2 as i32);
        assert_eq!(a.sgpr[7], d as u32);
        assert_eq!(a.sgpr[8], ov as u32);
        assert_eq!(a.sgpr[9], (s1 << 2).wrapping_add(s2));
        assert_eq!(a.sgpr[10], (s1 >> 4) & 0xff);
        assert_eq!(a.sgpr[11], (((s1 >> 16) << 20) as i32 >> 20) as u32);
        let m20 = b.sgpr64(20);
        let ff1 = if m20 == 0 {
            u32::MAX
        } else {
            m20.trailing_zeros()
        };
        assert_eq!(a.sgpr[12], ff1);
        let fl = if s(22) == 0 {
            u32::MAX
        } else {
            s(22).leading_zeros()
        };
        assert_eq!(a.sgpr[13], fl);
        assert_eq!(a.sgpr[14], m20.count_ones());
        assert_eq!(a.sgpr[15], (m20 != 0) as u32);
        assert_eq!(a.sgpr[16], ((s1 as u64 * s2 as u64) >> 32) as u32);
        assert_eq!(a.sgpr[17], (s1 as i32).min(s2 as i32) as u32);
        assert_eq!(a.sgpr[18], ((s1 as i32) < (s2 as i32)) as u32);
        assert_eq!(a.sgpr64(24), m20 & !b.sgpr64(26));
        assert_eq!(a.sgpr64(28), m20 >> (s1 & 63));
        assert_eq!(a.sgpr[30], 0xffff_8001);
        assert_eq!(a.sgpr[32], (s(31) > 0x8000) as u32);
        // s_and_saveexec_b64: s[34:35] = old EXEC, EXEC &= s[36:37], SCC = EXEC != 0.
        assert_eq!(a.sgpr64(34), EXEC_PARTIAL);
        let ne = EXEC_PARTIAL & b.sgpr64(36);
        assert_eq!(a.exec(), ne);
        assert_eq!(a.sgpr[33], (ne != 0) as u32);
        // The loop ran 10 times.
        assert_eq!(a.sgpr[40], 10);
        assert_eq!(a.sgpr[41], 55);
        assert_eq!(a.sgpr64(42), CODE_BASE + 124);
        assert_eq!(a.sgpr[44], s1.reverse_bits());
        assert_eq!(a.sgpr64(46), !m20);
        // The last SCC writer is s_not_b64: SCC = result != 0.
        assert_eq!(a.scc, (!m20 != 0) as u32);
    }
}

/// VGPR indexing as LLVM emits it for a uniform index into a register array
/// (`s_set_gpr_idx_on` / `v_mov_b32` / `s_set_gpr_idx_off`), reading and writing.
#[test]
fn vgpr_indexing() {
    #[rustfmt::skip]
    let words = [
        0xbf110100, // s_set_gpr_idx_on s0, gpr_idx(SRC0)
        0x7e220300, // v_mov_b32_e32 v17, v0
        0xbf9c0000, // s_set_gpr_idx_off
        0xbf110801, // s_set_gpr_idx_on s1, gpr_idx(DST)
        0x7e000311, // v_mov_b32_e32 v0, v17
        0xbf9c0000, // s_set_gpr_idx_off
        0x68240311, // v_add_u32_e32 v18, v17, v1
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 13, exec, &mut mem, |s| {
        s.sgpr[0] = 0x100 | 7; // only bits [7:0] are the index
        s.sgpr[1] = 12;
    });
    // v17 = v[0 + 7]; then v[0 + 12] = v17; v18 = v17 + v1 without indexing.
    check_vgpr(&b, &a, 17, exec, |l| b.vgpr[7][l]);
    let v17 = |l: usize| {
        if exec >> l & 1 != 0 {
            b.vgpr[7][l]
        } else {
            b.vgpr[17][l]
        }
    };
    check_vgpr(&b, &a, 12, exec, v17);
    check_vgpr(&b, &a, 0, 0, |_| 0);
    check_vgpr(&b, &a, 18, exec, |l| v17(l).wrapping_add(b.vgpr[1][l]));
    assert_eq!(a.mode & (1 << 27), 0);
    assert_eq!(a.mode, DEFAULT_MODE);
}
