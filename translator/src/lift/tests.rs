//! Unit tests of block formation and a few semantics on hand-built instructions (the
//! encoding-driven tests are in `translator/tests/lift_*.rs`).

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use super::{lift_from, Pass, MAX_BLOCK_INSTS};

/// MODE of HIP/OpenCL kernels: round to nearest, denormals kept, DX10_CLAMP and IEEE set.
const DEFAULT_MODE: u32 = 0x3f0;
use crate::env::{AtomicOp, ExitCode, MemError, Space, WaveEnv};
use crate::interp::run_block;
use crate::ir::{verify, Block, Exit};
use crate::isa::{Dpp, Format, Gpu, Inst, MaiFields, MemFields, Mods, Op, Opnd, Target};
use crate::wave::WaveState;

fn inst(op: Op, format: Format, dst: [Opnd; 2], src: [Opnd; 4]) -> Inst {
    Inst {
        op,
        format,
        size: 4,
        words: [0; 4],
        dst,
        src,
        literal: None,
        imm: 0,
        mods: Mods::default(),
        dpp: None,
        dpp8: None,
        sdwa: None,
        mem: MemFields::default(),
        mai: MaiFields::default(),
    }
}

const N: Opnd = Opnd::NONE;

fn v(r: u8) -> Opnd {
    Opnd::vgpr(r, 1)
}

fn lift(insts: &[Inst]) -> Block {
    let t = Target::new(Gpu::GFX942);
    let base = 0x100u64;
    let mut next = |pc: u64| -> Result<Inst, String> {
        let i = ((pc - base) / 4) as usize;
        insts
            .get(i)
            .copied()
            .ok_or_else(|| "end of test code".into())
    };
    match lift_from(&t, base, DEFAULT_MODE, MAX_BLOCK_INSTS, &mut next) {
        Pass::Done(b) => b,
        Pass::Failed { pc, reason, .. } => panic!("lift failed at {pc:#x}: {reason}"),
    }
}

/// An environment without memory (these tests access none).
struct NoMem;

impl WaveEnv for NoMem {
    fn load(
        &mut self,
        s: Space,
        a: &[u64; 64],
        _: u64,
        z: u32,
        _: &mut [u64; 64],
    ) -> Result<(), MemError> {
        Err(MemError::OutOfRange {
            space: s,
            addr: a[0],
            size: z,
            lane: 0,
        })
    }
    fn store(
        &mut self,
        s: Space,
        a: &[u64; 64],
        _: u64,
        z: u32,
        _: &[u64; 64],
    ) -> Result<(), MemError> {
        Err(MemError::OutOfRange {
            space: s,
            addr: a[0],
            size: z,
            lane: 0,
        })
    }
    fn atomic(
        &mut self,
        s: Space,
        _: AtomicOp,
        a: &[u64; 64],
        _: u64,
        z: u32,
        _: &[u64; 64],
        _: &[u64; 64],
        _: &mut [u64; 64],
    ) -> Result<(), MemError> {
        Err(MemError::OutOfRange {
            space: s,
            addr: a[0],
            size: z,
            lane: 0,
        })
    }
    fn scalar_load(&mut self, addr: u64, _: &mut [u32]) -> Result<(), MemError> {
        Err(MemError::OutOfRange {
            space: Space::Global,
            addr,
            size: 4,
            lane: 0,
        })
    }
    fn scalar_store(&mut self, addr: u64, _: &[u32]) -> Result<(), MemError> {
        Err(MemError::OutOfRange {
            space: Space::Global,
            addr,
            size: 4,
            lane: 0,
        })
    }
    fn clock(&mut self) -> u64 {
        0
    }
}

fn state() -> Box<WaveState> {
    let mut s = WaveState::new_boxed(64);
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for r in s.vgpr.iter_mut() {
        for v in r.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *v = (x as u32) | 1;
        }
    }
    s
}

#[test]
fn vop2_add_masked_by_exec() {
    let b = lift(&[
        inst(Op::V_ADD_U32, Format::Vop2, [v(0), N], [v(1), v(2), N, N]),
        inst(Op::S_ENDPGM, Format::Sopp, [N, N], [N; 4]),
    ]);
    verify(&b).expect("verifies");
    assert_eq!(b.exit, Exit::EndPgm);
    assert_eq!(b.inst_count, 2);
    let mut s = state();
    let exec = 0x8000_0001_0000_00f0u64;
    s.set_exec(exec);
    let old = s.vgpr[0];
    assert_eq!(
        run_block(&b, &mut s, &mut NoMem).expect("runs"),
        ExitCode::EndPgm
    );
    for l in 0..64 {
        let want = if exec >> l & 1 != 0 {
            s.vgpr[1][l].wrapping_add(s.vgpr[2][l])
        } else {
            old[l]
        };
        assert_eq!(s.vgpr[0][l], want, "lane {l}");
    }
    assert_eq!(s.counters.active_lanes, exec.count_ones() as u64);
}

#[test]
fn dpp_row_shr_with_row_mask() {
    // v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xa bank_mask:0xf (rows 1 and 3 written).
    let mut i = inst(Op::V_MOV_B32, Format::Vop1, [v(0), N], [v(1), N, N, N]);
    i.dpp = Some(Dpp {
        ctrl: 0x111,
        row_mask: 0xa,
        bank_mask: 0xf,
        bound_ctrl: false,
        fi: false,
    });
    let b = lift(&[i, inst(Op::S_ENDPGM, Format::Sopp, [N, N], [N; 4])]);
    let mut s = state();
    s.set_exec(u64::MAX);
    let (old, src) = (s.vgpr[0], s.vgpr[1]);
    run_block(&b, &mut s, &mut NoMem).expect("runs");
    for l in 0..64 {
        let row = l / 16;
        let want = if (row == 1 || row == 3) && l % 16 != 0 {
            src[l - 1]
        } else {
            old[l]
        };
        assert_eq!(s.vgpr[0][l], want, "lane {l}");
    }
}

#[test]
fn unsupported_instruction_splits_the_block() {
    // An instruction the lifter rejects (v_screen_partition_4se_b32, graphics-only) after
    // one supported instruction: the first pass fails at index 1, and lift_block's re-lift
    // would end the block before it. The error names the instruction from its word
    // (llvm-mc-22: `v_screen_partition_4se_b32_e32 v0, v1` is 0x7e006f01).
    let mut rejected = inst(
        Op::V_SCREEN_PARTITION_4SE_B32,
        Format::Vop1,
        [v(0), N],
        [v(1), N, N, N],
    );
    rejected.words[0] = 0x7e00_6f01;
    let insts = [
        inst(Op::V_ADD_U32, Format::Vop2, [v(0), N], [v(1), v(2), N, N]),
        rejected,
    ];
    let t = Target::new(Gpu::GFX942);
    let mut next = |pc: u64| -> Result<Inst, String> {
        insts
            .get(((pc - 0x100) / 4) as usize)
            .copied()
            .ok_or_else(|| "end".into())
    };
    match lift_from(&t, 0x100, DEFAULT_MODE, MAX_BLOCK_INSTS, &mut next) {
        Pass::Failed { index, pc, reason } => {
            assert_eq!((index, pc), (1, 0x104));
            assert!(reason.contains("v_screen_partition_4se_b32"), "{reason}");
        }
        Pass::Done(_) => panic!("v_screen_partition_4se_b32 was lifted"),
    }
    match lift_from(&t, 0x100, DEFAULT_MODE, 1, &mut next) {
        Pass::Done(b) => {
            assert_eq!(b.exit, Exit::Jump(0x104));
            assert_eq!(b.inst_count, 1);
        }
        Pass::Failed { reason, .. } => panic!("{reason}"),
    }
}
