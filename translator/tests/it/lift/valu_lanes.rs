//! VALU carries, compares, masks and cross-lane reads: carry chains into VCC and SGPR
//! pairs, `v_cndmask`, `v_mbcnt`, `v_readlane`/`v_readfirstlane`/`v_writelane`, 64-bit
//! arithmetic and shifts, and `v_cmpx` narrowing EXEC for the next instruction.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

fn mask_of(exec: u64, f: impl Fn(usize) -> bool) -> u64 {
    (0..64)
        .filter(|&l| exec >> l & 1 != 0 && f(l))
        .fold(0, |m, l| m | 1 << l)
}

#[test]
fn carries_masks_and_lanes() {
    #[rustfmt::skip]
    let words = [
        0x32000501, // v_add_co_u32_e32 v0, vcc, v1, v2
        0x38060b04, // v_addc_co_u32_e32 v3, vcc, v4, v5, vcc
        0xd11a0a06, 0x00020501, // v_sub_co_u32_e64 v6, s[10:11], v1, v2
        0xd11d0c07, 0x002a0b04, // v_subb_co_u32_e64 v7, s[12:13], v4, v5, s[10:11]
        0x7d980501, // v_cmp_gt_u32_e32 vcc, v1, v2
        0x00100b04, // v_cndmask_b32_e32 v8, v4, v5, vcc
        0xd0c1000e, 0x00010b01, // v_cmp_lt_i32_e64 s[14:15], v1, 5
        0xd1000009, 0x003a0af2, // v_cndmask_b32_e64 v9, 1.0, v5, s[14:15]
        0xd28c000a, 0x00010610, // v_mbcnt_lo_u32_b32 v10, s16, 3
        0xd28d000b, 0x00021411, // v_mbcnt_hi_u32_b32 v11, s17, v10
        0x7e240501, // v_readfirstlane_b32 s18, v1
        0xd2890013, 0x00014b02, // v_readlane_b32 s19, v2, 37
        0xd2890014, 0x00002b02, // v_readlane_b32 s20, v2, s21
        0xd28a000c, 0x00011216, // v_writelane_b32 v12, s22, 9
        0xd1e8180e, 0x04420501, // v_mad_u64_u32 v[14:15], s[24:25], v1, v2, v[16:17]
        0xd2080012, 0x04510710, // v_lshl_add_u64 v[18:19], v[16:17], 3, v[20:21]
        0xd28f0016, 0x00022101, // v_lshlrev_b64 v[22:23], v1, v[16:17]
        0xd2910018, 0x000220a8, // v_ashrrev_i64 v[24:25], 40, v[16:17]
        0x7dba371a, // v_cmpx_ne_u32_e32 vcc, v26, v27
        0x7e380301, // v_mov_b32_e32 v28, v1
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 11, exec, &mut mem, |s| {
        for l in 0..64 {
            // Small values in some lanes so both compare outcomes and both carries occur.
            if l % 3 == 0 {
                s.vgpr[1][l] = l as u32;
            }
            if l % 4 == 0 {
                s.vgpr[27][l] = s.vgpr[26][l];
            }
        }
        s.sgpr[21] = 0x4000_0000 | 50; // lane 50 after masking to 6 bits
    });
    let v = |r: usize, l: usize| b.vgpr[r][l];
    let v64 = |r: usize, l: usize| b.vgpr[r][l] as u64 | (b.vgpr[r + 1][l] as u64) << 32;
    // v_add_co / v_addc: a 64-bit add of {v4,v1} + {v5,v2}.
    let carry0 = |l: usize| (v(1, l) as u64 + v(2, l) as u64) >> 32;
    check_vgpr(&b, &a, 0, exec, |l| v(1, l).wrapping_add(v(2, l)));
    check_vgpr(&b, &a, 3, exec, |l| {
        (v(4, l) as u64 + v(5, l) as u64 + carry0(l)) as u32
    });
    // v_sub_co / v_subb: borrow chain through s[10:11].
    let borrow0 = |l: usize| (v(1, l) < v(2, l)) as u64;
    check_vgpr(&b, &a, 6, exec, |l| v(1, l).wrapping_sub(v(2, l)));
    check_vgpr(&b, &a, 7, exec, |l| {
        (v(4, l) as u64).wrapping_sub(v(5, l) as u64 + borrow0(l)) as u32
    });
    assert_eq!(a.sgpr64(10), mask_of(exec, |l| borrow0(l) == 1));
    assert_eq!(
        a.sgpr64(12),
        mask_of(exec, |l| (v(4, l) as u64) < v(5, l) as u64 + borrow0(l))
    );
    // v_cmp + v_cndmask.
    check_vgpr(&b, &a, 8, exec, |l| {
        if v(1, l) > v(2, l) {
            v(5, l)
        } else {
            v(4, l)
        }
    });
    assert_eq!(a.sgpr64(14), mask_of(exec, |l| (v(1, l) as i32) < 5));
    check_vgpr(&b, &a, 9, exec, |l| {
        if (v(1, l) as i32) < 5 {
            v(5, l)
        } else {
            0x3f80_0000
        }
    });
    // v_mbcnt_lo/hi: bits of s[16:17] below the lane, plus 3.
    let m = b.sgpr64(16);
    check_vgpr(&b, &a, 10, exec, |l| {
        (m as u32 as u64 & ((1u64 << l.min(32)) - 1)).count_ones() + 3
    });
    check_vgpr(&b, &a, 11, exec, |l| {
        (m & ((1u128 << l) - 1) as u64).count_ones() + 3
    });
    // Lane reads.
    assert_eq!(a.sgpr[18], b.vgpr[1][exec.trailing_zeros() as usize]);
    assert_eq!(a.sgpr[19], b.vgpr[2][37]);
    assert_eq!(a.sgpr[20], b.vgpr[2][50]);
    // v_writelane ignores EXEC: lane 9 is inactive in EXEC_PARTIAL's low byte pattern.
    for l in 0..64 {
        let want = if l == 9 { b.sgpr[22] } else { v(12, l) };
        assert_eq!(a.vgpr[12][l], want, "v12 lane {l}");
    }
    // 64-bit ops.
    let mad = |l: usize| (v(1, l) as u64 as u128 * v(2, l) as u128) + v64(16, l) as u128;
    check_vgpr(&b, &a, 14, exec, |l| mad(l) as u32);
    check_vgpr(&b, &a, 15, exec, |l| (mad(l) >> 32) as u32);
    assert_eq!(a.sgpr64(24), mask_of(exec, |l| mad(l) >> 64 != 0));
    let sh = |l: usize| (v64(16, l) << 3).wrapping_add(v64(20, l));
    check_vgpr(&b, &a, 18, exec, |l| sh(l) as u32);
    check_vgpr(&b, &a, 19, exec, |l| (sh(l) >> 32) as u32);
    check_vgpr(&b, &a, 22, exec, |l| (v64(16, l) << (v(1, l) & 63)) as u32);
    check_vgpr(&b, &a, 23, exec, |l| {
        ((v64(16, l) << (v(1, l) & 63)) >> 32) as u32
    });
    check_vgpr(&b, &a, 24, exec, |l| ((v64(16, l) as i64) >> 40) as u32);
    check_vgpr(&b, &a, 25, exec, |l| {
        (((v64(16, l) as i64) >> 40) >> 32) as u32
    });
    // v_cmpx writes VCC and EXEC; the following v_mov runs under the new EXEC.
    let nx = mask_of(exec, |l| v(26, l) != v(27, l));
    assert_eq!(a.exec(), nx);
    assert_eq!(a.sgpr64(106), nx);
    check_vgpr(&b, &a, 28, nx, |l| v(1, l));
}
