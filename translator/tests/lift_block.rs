//! Block formation through the public `lift_block`: exits at barriers, branches, traps,
//! `s_endpgm`, `s_sleep`, `s_setpc`; unsupported and truncated instructions end the block
//! before them and start a block whose exit is `Unsupported`; the maximum block length.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

mod lift_support;
use lift_support::*;
use wavejit_translator::ir::{verify, Exit};
use wavejit_translator::lift::{lift_block, MAX_BLOCK_INSTS};
use wavejit_translator::wave::InstClass;

#[rustfmt::skip]
const PROGRAM: [u32; 11] = [
    0x68000501, // 0x00 v_add_u32_e32 v0, v1, v2
    0xbf8a0000, // 0x04 s_barrier
    0x68000500, // 0x08 v_add_u32_e32 v0, v0, v2
    0xbf880002, // 0x0c s_cbranch_execz 2
    0xbf920002, // 0x10 s_trap 2
    0xbf810000, // 0x14 s_endpgm
    0xd3be8000, 0x04020500, // 0x18 v_mfma_f32_16x16x8_xf32 a[0:3], v[0:1], v[2:3], a[0:3] (unsupported)
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
            assert!(reason.contains("v_mfma_f32_16x16x8_xf32"), "{reason}");
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
        0xd3be8000, 0x04020500, // v_mfma_f32_16x16x8_xf32 a[0:3], v[0:1], v[2:3], a[0:3] (unsupported)
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
