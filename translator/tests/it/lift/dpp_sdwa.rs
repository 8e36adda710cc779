//! DPP (row shifts, quad permute, row broadcasts, wave shift, row rotate; row/bank masks and
//! bound_ctrl; source lanes disabled in EXEC are invalid on GFX9), SDWA selects and
//! destination handling, and integer clamp (saturation). The host computes each lane's
//! source from the DPP control's definition.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

#[test]
fn dpp_sdwa_and_clamp() {
    #[rustfmt::skip]
    let words = [
        0xd1348000, 0x00020501, // v_add_u32_e64 v0, v1, v2 clamp
        0xd1358003, 0x00020501, // v_sub_u32_e64 v3, v1, v2 clamp
        0xd1368004, 0x00020501, // v_subrev_u32_e64 v4, v1, v2 clamp
        0x680a04fa, 0xaf011101, // v_add_u32_dpp v5, v1, v2 row_shr:1 row_mask:0xa bank_mask:0xf
        0x680c04fa, 0xf5085301, // v_add_u32_dpp v6, v1, v2 quad_perm:[3,0,1,1] row_mask:0xf bank_mask:0x5 bound_ctrl:1
        0x7e0e02fa, 0xaf014201, // v_mov_b32_dpp v7, v1 row_bcast:15 row_mask:0xa bank_mask:0xf
        0x7e1002fa, 0xcf014301, // v_mov_b32_dpp v8, v1 row_bcast:31 row_mask:0xc bank_mask:0xf
        0x7e1202fa, 0xff093801, // v_mov_b32_dpp v9, v1 wave_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
        0x7e1402fa, 0xff012301, // v_mov_b32_dpp v10, v1 row_ror:3 row_mask:0xf bank_mask:0xf
        0x681604f9, 0x04011501, // v_add_u32_sdwa v11, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_0
        0x7e1802f9, 0x00050a01, // v_mov_b32_sdwa v12, v1 dst_sel:BYTE_2 dst_unused:UNUSED_SEXT src0_sel:WORD_1
        0x7e1a02f9, 0x000b0601, // v_mov_b32_sdwa v13, sext(v1) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_3
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 33, exec, &mut mem, |s| {
        for l in 0..64 {
            if l % 3 == 0 {
                s.vgpr[2][l] = s.vgpr[1][l]; // equal operands: no carry, no borrow
            }
        }
    });
    let v = |r: usize, l: usize| b.vgpr[r][l];
    let act = |l: usize| exec >> l & 1 != 0;
    check_vgpr(&b, &a, 0, exec, |l| v(1, l).saturating_add(v(2, l)));
    check_vgpr(&b, &a, 3, exec, |l| v(1, l).saturating_sub(v(2, l)));
    check_vgpr(&b, &a, 4, exec, |l| v(2, l).saturating_sub(v(1, l)));

    // A DPP result: `src` gives the source lane (None = out of range), `rows`/`banks` the
    // masks, `bound` the bound_ctrl bit; `f` combines the source value with the lane.
    let dpp = |reg: usize,
               src: &dyn Fn(usize) -> Option<usize>,
               rows: u32,
               banks: u32,
               bound: bool,
               f: &dyn Fn(u32, usize) -> u32| {
        for l in 0..64 {
            let enabled = act(l) && rows >> (l / 16) & 1 != 0 && banks >> ((l % 16) / 4) & 1 != 0;
            let s = src(l).filter(|&s| act(s));
            let want = match (enabled, s, bound) {
                (false, _, _) => v(reg, l),
                (true, Some(s), _) => f(v(1, s), l),
                (true, None, true) => f(0, l),
                (true, None, false) => v(reg, l),
            };
            assert_eq!(a.vgpr[reg][l], want, "v{reg} lane {l}");
        }
    };
    let add = |x: u32, l: usize| x.wrapping_add(v(2, l));
    let mov = |x: u32, _l: usize| x;
    dpp(5, &|l| (l % 16 >= 1).then(|| l - 1), 0xa, 0xf, false, &add);
    dpp(
        6,
        &|l| Some((l & !3) + [3, 0, 1, 1][l & 3]),
        0xf,
        0x5,
        true,
        &add,
    );
    dpp(
        7,
        &|l| (l >= 16).then(|| (l / 16) * 16 - 1),
        0xa,
        0xf,
        false,
        &mov,
    );
    dpp(8, &|l| (l >= 32).then_some(31), 0xc, 0xf, false, &mov);
    dpp(9, &|l| (l >= 1).then(|| l - 1), 0xf, 0xf, true, &mov);
    dpp(
        10,
        &|l| Some((l & !15) + (l % 16 + 13) % 16),
        0xf,
        0xf,
        false,
        &mov,
    );

    // SDWA.
    check_vgpr(&b, &a, 11, exec, |l| {
        let r = ((v(1, l) >> 8) & 0xff).wrapping_add(v(2, l) & 0xffff);
        (v(11, l) & 0xffff) | (r << 16)
    });
    check_vgpr(&b, &a, 12, exec, |l| {
        let byte = (v(1, l) >> 16) & 0xff;
        ((byte << 24) as i32 >> 8) as u32 & 0xffff_0000 | (byte << 16)
    });
    check_vgpr(&b, &a, 13, exec, |l| {
        (v(1, l) >> 24) as u8 as i8 as i32 as u32
    });
}
