//! Block formation through the public `lift_block`: exits at barriers, branches, traps,
//! `s_endpgm`, `s_sleep`, `s_setpc`; unsupported and truncated instructions end the block
//! before them and start a block whose exit is `Unsupported`; the maximum block length;
//! `s_cbranch_execz` regions run under EXEC inside the block (if-conversion).

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;
use wavejit_translator::env::ExitCode;
use wavejit_translator::interp::run_block;
use wavejit_translator::ir::{verify, Exit, Op};
use wavejit_translator::lift::{lift_block, lift_block_limited, MAX_BLOCK_INSTS};
use wavejit_translator::wave::InstClass;
use wavejit_translator::wave::WaveState;

#[rustfmt::skip]
const PROGRAM: [u32; 11] = [
    0x68000501, // 0x00 v_add_u32_e32 v0, v1, v2
    0xbf8a0000, // 0x04 s_barrier
    0x68000500, // 0x08 v_add_u32_e32 v0, v0, v2
    0xbf880002, // 0x0c s_cbranch_execz 2
    0xbf920002, // 0x10 s_trap 2
    0xbf810000, // 0x14 s_endpgm
    0xd1770000, 0x00000101, // 0x18 v_screen_partition_4se_b32_e64 v0, v1 (unsupported)
    0xbf8e0001, // 0x20 s_sleep 1
    0xbe801d04, // 0x24 s_setpc_b64 s[4:5]
    0xbf810000, // 0x28 s_endpgm
];

#[test]
fn exits_of_control_instructions() {
    let t = target();
    let code = Code::from_words(&PROGRAM);
    let at = |off: u64| lift_block(&t, &code, CODE_BASE + off, 0);

    let b = at(0);
    verify(&b).unwrap();
    assert_eq!(
        b.exit,
        Exit::Barrier {
            next: CODE_BASE + 8
        }
    );
    assert_eq!(
        (b.inst_count, b.start_pc, b.end_pc),
        (2, CODE_BASE, CODE_BASE + 8)
    );
    assert_eq!(b.class_counts[InstClass::Valu as usize], 1);
    assert_eq!(b.class_counts[InstClass::Control as usize], 1);

    let b = at(8);
    match b.exit {
        Exit::Branch {
            taken, not_taken, ..
        } => {
            // s_cbranch_execz 2 at 0x0c: 0x0c + 4 + 2 * 4.
            assert_eq!(taken, CODE_BASE + 0x18);
            assert_eq!(not_taken, CODE_BASE + 0x10);
        }
        ref e => panic!("expected a branch, got {e:?}"),
    }
    assert_eq!(
        at(0x10).exit,
        Exit::Trap {
            pc: CODE_BASE + 0x10,
            code: 2
        }
    );
    assert_eq!(at(0x14).exit, Exit::EndPgm);

    let b = at(0x18);
    assert_eq!(b.inst_count, 0);
    match &b.exit {
        Exit::Unsupported { pc, reason } => {
            assert_eq!(*pc, CODE_BASE + 0x18);
            assert!(reason.contains("v_screen_partition_4se_b32"), "{reason}");
        }
        e => panic!("expected Unsupported, got {e:?}"),
    }
    assert_eq!(
        at(0x20).exit,
        Exit::Yield {
            next: CODE_BASE + 0x24
        }
    );
    assert!(matches!(at(0x24).exit, Exit::JumpIndirect(_)));
}

#[test]
fn unsupported_and_truncated_instructions_split_blocks() {
    let t = target();
    #[rustfmt::skip]
    let code = Code::from_words(&[
        0x68000501, // v_add_u32_e32 v0, v1, v2
        0x68000500, // v_add_u32_e32 v0, v0, v2
        0xd1770000, 0x00000101, // v_screen_partition_4se_b32_e64 v0, v1 (unsupported)
        0x68000500, // v_add_u32_e32 v0, v0, v2
        0xd3cd8000, // first word of a 64-bit instruction at the end of the code
    ]);
    let b = lift_block(&t, &code, CODE_BASE, 0);
    verify(&b).unwrap();
    assert_eq!(b.inst_count, 2);
    assert_eq!(b.exit, Exit::Jump(CODE_BASE + 8));
    let b = lift_block(&t, &code, CODE_BASE + 8, 0);
    assert!(matches!(b.exit, Exit::Unsupported { pc, .. } if pc == CODE_BASE + 8));
    let b = lift_block(&t, &code, CODE_BASE + 16, 0);
    assert_eq!(b.inst_count, 1);
    assert_eq!(b.exit, Exit::Jump(CODE_BASE + 20));
    let b = lift_block(&t, &code, CODE_BASE + 20, 0);
    assert_eq!(b.inst_count, 0);
    assert!(matches!(b.exit, Exit::Unsupported { pc, .. } if pc == CODE_BASE + 20));
    // Outside the code.
    let b = lift_block(&t, &code, CODE_BASE + 4096, 0);
    assert!(matches!(b.exit, Exit::Unsupported { pc, .. } if pc == CODE_BASE + 4096));
}

#[test]
fn long_straight_line_code_is_split() {
    let t = target();
    let n = MAX_BLOCK_INSTS as usize + 10;
    let mut words = vec![0x68000501u32; n]; // v_add_u32_e32 v0, v1, v2
    words.push(0xbf810000); // s_endpgm
    let code = Code::from_words(&words);
    let b = lift_block(&t, &code, CODE_BASE, 0);
    assert_eq!(b.inst_count, MAX_BLOCK_INSTS);
    assert_eq!(b.exit, Exit::Jump(CODE_BASE + 4 * MAX_BLOCK_INSTS as u64));
    let b = lift_block(&t, &code, b.end_pc, 0);
    assert_eq!(b.inst_count, 11);
    assert_eq!(b.exit, Exit::EndPgm);
}

#[test]
fn fences_and_hints_are_no_ops() {
    #[rustfmt::skip]
    let words = [
        0xe0a08000, 0x00000000, // buffer_wbl2 sc1
        0xbf8c0f70, // s_waitcnt vmcnt(0)
        0xe0a48000, 0x00000000, // buffer_inv sc1
        0xbf800001, // s_nop 1
        0xbf810000, // s_endpgm
    ];
    let t = target();
    let code = Code::from_words(&words);
    let b = lift_block(&t, &code, CODE_BASE, 0);
    assert_eq!(b.inst_count, 5);
    assert_eq!(b.exit, Exit::EndPgm);
    assert_eq!(b.class_counts[InstClass::Vmem as usize], 2);
    let mut mem = Mem::new(0);
    let (before, after) = run_words(&words, 2, EXEC_PARTIAL, &mut mem, |_| {});
    assert!(before.vgpr == after.vgpr && before.sgpr == after.sgpr);
    assert_eq!(after.counters.vector_insts, 2);
}

/// `llvm-mc-22 -mcpu=gfx942`, `llvm-objdump-22 -d`: a guarded region of VALU and a load.
#[rustfmt::skip]
const GUARDED: [u32; 11] = [
    0xbefe0104, // 0x00 s_mov_b64 exec, s[4:5]
    0xbe862008, // 0x04 s_and_saveexec_b64 s[6:7], s[8:9]
    0xbf880004, // 0x08 s_cbranch_execz 0x1c
    0x68000501, // 0x0c v_add_u32_e32 v0, v1, v2
    0xdc508000, 0x037f000a, // 0x10 global_load_dword v3, v[10:11], off
    0x7e0a0287, // 0x18 v_mov_b32_e32 v5, 7
    0x87fe067e, // 0x1c s_or_b64 exec, exec, s[6:7]
    0x68080300, // 0x20 v_add_u32_e32 v4, v0, v1
    0xbf810000, // 0x24 s_endpgm
    0xbf810000, // 0x28 s_endpgm (padding)
];

#[test]
fn execz_region_of_masked_work_stays_in_the_block() {
    let code = Code::from_words(&GUARDED);
    let b = lift_block(&target(), &code, CODE_BASE, DEFAULT_MODE);
    verify(&b).unwrap();
    assert_eq!(b.exit, Exit::EndPgm);
    assert_eq!((b.inst_count, b.end_pc), (9, CODE_BASE + 0x28));
    // The region's three instructions are counted by its CountRegion, not the block.
    let cls = |c: InstClass| b.class_counts[c as usize];
    assert_eq!(cls(InstClass::Valu), 1);
    assert_eq!(cls(InstClass::Vmem), 0);
    assert_eq!((cls(InstClass::Salu), cls(InstClass::Control)), (3, 2));
    let regions: Vec<_> = b
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::CountRegion { counts, .. } => Some(counts.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(regions.len(), 1);
    assert_eq!(regions[0].vector, 3);
    assert_eq!(regions[0].classes[InstClass::Valu as usize], 2);
    assert_eq!(regions[0].classes[InstClass::Vmem as usize], 1);
}

/// Runs [`GUARDED`] with EXEC = `p` and s[8:9] = `m` (both engines, `run`), checking
/// registers and counters against the branching program's meaning.
fn run_guarded(p: u64, m: u64, seed: u64) {
    const BUF: u64 = 0x20_0000;
    let mut mem = Mem::new(0);
    mem.add(
        BUF,
        (0..256u32)
            .flat_map(|i| (i * 0x0101_0007 + 11).to_le_bytes())
            .collect(),
    );
    let region = p & m;
    let (before, after) = run_words(&GUARDED, seed, 0, &mut mem, |s| {
        for (r, x) in [(4, p), (8, m)] {
            s.sgpr[r] = x as u32;
            s.sgpr[r + 1] = (x >> 32) as u32;
        }
        for l in 0..64 {
            let a = if region >> l & 1 != 0 {
                BUF + 4 * l as u64
            } else {
                // Inactive lanes' addresses are never used: make them fault if they were.
                0xdead_0000_0000 + l as u64
            };
            s.vgpr[10][l] = a as u32;
            s.vgpr[11][l] = (a >> 32) as u32;
        }
    });
    let add = |a: u32, b: u32| a.wrapping_add(b);
    check_vgpr(&before, &after, 0, region, |l| {
        add(before.vgpr[1][l], before.vgpr[2][l])
    });
    check_vgpr(&before, &after, 3, region, |l| mem.dword(BUF, l));
    check_vgpr(&before, &after, 5, region, |_| 7);
    check_vgpr(&before, &after, 4, p, |l| {
        add(after.vgpr[0][l], before.vgpr[1][l])
    });
    assert_eq!(after.exec(), p);
    assert_eq!(after.sgpr[6] as u64 | (after.sgpr[7] as u64) << 32, p);
    let ran = u64::from(region != 0);
    let c = &after.counters;
    assert_eq!(c.by_class[InstClass::Salu as usize], 3);
    assert_eq!(c.by_class[InstClass::Control as usize], 2);
    assert_eq!(c.by_class[InstClass::Valu as usize], 1 + 2 * ran);
    assert_eq!(c.by_class[InstClass::Vmem as usize], ran);
    assert_eq!(c.vector_insts, 1 + 3 * ran);
    let lanes = |x: u64| u64::from(x.count_ones());
    assert_eq!(c.active_lanes, lanes(p) + 3 * lanes(region));
}

#[test]
fn execz_region_runs_or_is_skipped_as_the_branch_says() {
    run_guarded(EXEC_PARTIAL, 0x0FF0_00FF_F00F_0F0F, 3);
    run_guarded(EXEC_PARTIAL, !0, 4);
    // EXEC & s[8:9] = 0: the branch skips the region (no access, no counts).
    run_guarded(EXEC_PARTIAL, !EXEC_PARTIAL, 5);
    run_guarded(0, !0, 6);
}

/// `llvm-mc-22 -mcpu=gfx942`, `llvm-objdump-22 -d`: a guarded region whose instructions write
/// SGPRs and SCC (carries, a compare, SALU, `v_readfirstlane`, EXEC itself), all read after it.
#[rustfmt::skip]
const SCALAR_REGION: [u32; 15] = [
    0xbe862008, // 0x00 s_and_saveexec_b64 s[6:7], s[8:9]
    0xbf880009, // 0x04 s_cbranch_execz 0x2c
    0x32000501, // 0x08 v_add_co_u32_e32 v0, vcc, v1, v2
    0xd11c0a03, 0x01aa0b04, // 0x0c v_addc_co_u32_e64 v3, s[10:11], v4, v5, vcc
    0xd0cc000c, 0x00020300, // 0x14 v_cmp_gt_u32_e64 s[12:13], v0, v1
    0x800e100f, // 0x1c s_add_u32 s14, s15, s16
    0x7e220501, // 0x20 v_readfirstlane_b32 s17, v1
    0xbefe0112, // 0x24 s_mov_b64 exec, s[18:19]
    0x85141615, // 0x28 s_cselect_b32 s20, s21, s22
    0x85171918, // 0x2c s_cselect_b32 s23, s24, s25
    0x87fe067e, // 0x30 s_or_b64 exec, exec, s[6:7]
    0xbf810000, // 0x34 s_endpgm
    0xbf810000, // 0x38 s_endpgm (padding)
];

/// Runs `code` from `s` in the interpreter one instruction per block, so every
/// `s_cbranch_execz` branches as written (the reference for if-converted regions).
fn run_one_by_one(code: &Code, s: &mut WaveState, mem: &mut Mem) {
    let t = target();
    for _ in 0..1000 {
        let b = lift_block_limited(&t, code, s.pc, s.mode, 1);
        assert_eq!(b.inst_count, 1, "{b}");
        if run_block(&b, s, mem).expect("program runs") == ExitCode::EndPgm {
            return;
        }
    }
    panic!("program did not end");
}

#[test]
fn execz_region_with_scalar_writes_stays_in_the_block() {
    let code = Code::from_words(&SCALAR_REGION);
    let b = lift_block(&target(), &code, CODE_BASE, DEFAULT_MODE);
    verify(&b).unwrap();
    assert_eq!(b.exit, Exit::EndPgm);
    assert_eq!(b.inst_count, 12);
}

/// The converted region (interpreter and JIT of the whole block, `run`) against the branching
/// program run one instruction at a time: every register, SCC and counter, with EXEC empty,
/// partial and full, the region taken or skipped, from random (poisoned) registers.
#[test]
fn execz_region_scalar_writes_match_the_branching_program() {
    let code = Code::from_words(&SCALAR_REGION);
    let cases = [
        (0, !0u64, 1),
        (EXEC_PARTIAL, !EXEC_PARTIAL, 2),
        (EXEC_PARTIAL, 0x0FF0_00FF_F00F_0F0F, 3),
        (EXEC_PARTIAL, !0, 4),
        (!0, !0, 5),
        (!0, 1 << 63, 6),
    ];
    for (exec, cond, seed) in cases {
        for scc in [0, 1] {
            let mut s = random_state(seed, exec);
            s.set_sgpr64(8, cond);
            s.scc = scc;
            let before = clone_state(&s);
            let mut want = clone_state(&s);
            let mut mem = Mem::new(0);
            run_one_by_one(&code, &mut want, &mut Mem::new(0));
            assert_eq!(run(&code, &mut s, &mut mem), Ok(ExitCode::EndPgm));
            let what = format!("exec {exec:#x}, s[8:9] {cond:#x}, scc {scc}");
            assert_eq!(s.sgpr, want.sgpr, "{what}");
            assert_eq!(s.vgpr, want.vgpr, "{what}");
            assert_eq!((s.scc, s.pc), (want.scc, want.pc), "{what}");
            assert_eq!(s.counters, want.counters, "{what}");
            // A skipped region leaves its scalar destinations; SCC is saveexec's 0.
            if exec & cond == 0 {
                assert_eq!(s.sgpr[10..=22], before.sgpr[10..=22], "{what}");
                assert_eq!(s.sgpr[23], before.sgpr[25], "{what}");
            } else {
                assert_ne!(s.sgpr[10..=17], before.sgpr[10..=17], "{what}");
            }
        }
    }
}

#[test]
fn execz_regions_with_scalar_memory_keep_the_branch() {
    #[rustfmt::skip]
    let code = Code::from_words(&[
        0xbe862008, // 0x00 s_and_saveexec_b64 s[6:7], s[8:9]
        0xbf88fffe, // 0x04 s_cbranch_execz 0x00
        0x68000501, // 0x08 v_add_u32_e32 v0, v1, v2
        0xbf82fffc, // 0x0c s_branch 0x00
        0xbe862008, // 0x10 s_and_saveexec_b64 s[6:7], s[8:9]
        0xbf880002, // 0x14 s_cbranch_execz 0x20
        0xc0020501, 0x00000000, // 0x18 s_load_dword s20, s[2:3], 0x0 (faults whatever EXEC is)
        0xbf810000, // 0x20 s_endpgm
    ]);
    let t = target();
    // A region ending in `s_branch` to the execz target converts too.
    let b = lift_block(&t, &code, CODE_BASE, DEFAULT_MODE);
    assert_eq!(b.exit, Exit::Jump(CODE_BASE));
    assert_eq!(b.inst_count, 4);
    let b = lift_block(&t, &code, CODE_BASE + 0x10, DEFAULT_MODE);
    assert!(matches!(b.exit, Exit::Branch { taken, .. } if taken == CODE_BASE + 0x20));
    assert_eq!(b.inst_count, 2);
}
