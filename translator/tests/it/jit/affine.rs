//! Lane-affine addresses (`jit::analysis::affine`, `jit::lower::memory::affine`) against the
//! interpreter: addresses built the way the lifter builds them from a workitem-id VGPR
//! (`base + (sext(v0) << 2)`, zero extension, a multiply, `LaneId`), with v0 holding ids
//! (the entry test passes), other lane values (it fails: the general code runs), ids whose
//! sign extension wraps, partial EXEC, windows' edges and addresses outside every window
//! (faults: same lane, address and pc). Registers start poisoned and memory holds a
//! non-zero pattern, so a skipped or duplicated lane shows. Also register forwarding and
//! the dropped final writes of an `s_endpgm` block (`ir::passes::forward`).

use super::memory::{env, run_both_with, state, BASE, GLOBAL_LEN};
use wavejit_translator::env::Space;
use wavejit_translator::interp::run_block;
use wavejit_translator::ir::passes::forward::Forwarding;
use wavejit_translator::ir::*;
use wavejit_translator::jit::{Jit, Tier};
use wavejit_translator::wave::WaveState;

/// How the address is made from v0.
#[derive(Clone, Copy, Debug)]
pub(super) enum Shape {
    /// `base + (Pack(v0, v0 >> 31) << 2)` (`v_ashrrev_i32` + `v_lshlrev_b64`).
    SextShl,
    /// `base + ZExt(v0) * stride`.
    ZextMul(u64),
    /// `base + SExt(v0 * 4 + LaneId * 4)`: two affine sources.
    Lanes,
    /// [`Shape::SextShl`]'s offset added to `base` in 32-bit halves with the carry through
    /// a lane mask (RDNA's `v_add_co_u32` + `v_add_co_ci_u32` through VCC).
    Rdna,
}

pub(super) fn c64(b: &mut Builder, x: u64) -> Val {
    b.push(
        Op::Const {
            ty: Ty::S64,
            bits: x,
        },
        Some(Ty::S64),
    )
}

pub(super) fn c32(b: &mut Builder, x: u32) -> Val {
    b.push(
        Op::Const {
            ty: Ty::S32,
            bits: x as u64,
        },
        Some(Ty::S32),
    )
}

/// The address of `shape` from v0 (through v1 written with the high half first, as the
/// lifter does, so forwarding is exercised), plus `base`.
pub(super) fn address(b: &mut Builder, shape: Shape, base: u64, mask: Val, wave: u32) -> Val {
    let v0 = b.push(Op::GetVgpr(0), Some(Ty::V32));
    let off = match shape {
        Shape::SextShl | Shape::Rdna => {
            let k31 = c32(b, 31);
            let k31 = b.push(Op::Broadcast(k31), Some(Ty::V32));
            let hi = b.push(Op::Bin(BinOp::AShr, v0, k31), Some(Ty::V32));
            b.push(
                Op::SetVgpr {
                    reg: 1,
                    val: hi,
                    mask,
                },
                None,
            );
            let lo = b.push(Op::GetVgpr(0), Some(Ty::V32));
            let hi = b.push(Op::GetVgpr(1), Some(Ty::V32));
            let w = b.push(Op::Pack { lo, hi }, Some(Ty::V64));
            let k2 = c64(b, 2);
            let k2 = b.push(Op::Broadcast(k2), Some(Ty::V64));
            b.push(Op::Bin(BinOp::Shl, w, k2), Some(Ty::V64))
        }
        Shape::ZextMul(s) => {
            let w = b.push(Op::Conv(ConvOp::ZExt, v0), Some(Ty::V64));
            let k = c64(b, s);
            let k = b.push(Op::Broadcast(k), Some(Ty::V64));
            b.push(Op::Bin(BinOp::Mul, w, k), Some(Ty::V64))
        }
        Shape::Lanes => {
            let l = b.push(Op::LaneId, Some(Ty::V32));
            let k4 = c32(b, 4);
            let k4 = b.push(Op::Broadcast(k4), Some(Ty::V32));
            let a = b.push(Op::Bin(BinOp::Mul, v0, k4), Some(Ty::V32));
            let l4 = b.push(Op::Bin(BinOp::Mul, l, k4), Some(Ty::V32));
            let s = b.push(Op::Bin(BinOp::Add, a, l4), Some(Ty::V32));
            b.push(Op::Conv(ConvOp::SExt, s), Some(Ty::V64))
        }
    };
    if let Shape::Rdna = shape {
        let (blo, bhi) = (c32(b, base as u32), c32(b, (base >> 32) as u32));
        let blo = b.push(Op::Broadcast(blo), Some(Ty::V32));
        let bhi = b.push(Op::Broadcast(bhi), Some(Ty::V32));
        let olo = b.push(Op::Conv(ConvOp::Lo, off), Some(Ty::V32));
        let ohi = b.push(Op::Conv(ConvOp::Hi, off), Some(Ty::V32));
        let lo = b.push(Op::Bin(BinOp::Add, blo, olo), Some(Ty::V32));
        let co = b.push(Op::Bin(BinOp::AddCarry, blo, olo), Some(Ty::V32));
        let z = c32(b, 0);
        let z = b.push(Op::Broadcast(z), Some(Ty::V32));
        let cmp = b.push(Op::Cmp(CmpOp::Ne, co, z), Some(Ty::S64));
        let vcc = b.push(Op::Bin(BinOp::And, cmp, mask), Some(Ty::S64));
        // Through VCC (s106) as the wave's size has it.
        let vcc = if wave == 32 {
            let x = b.push(Op::Conv(ConvOp::Lo, vcc), Some(Ty::S32));
            b.push(Op::SetSgpr(106, x), None);
            let x = b.push(Op::GetSgpr(106), Some(Ty::S32));
            b.push(Op::Conv(ConvOp::ZExt, x), Some(Ty::S64))
        } else {
            let x = b.push(Op::Conv(ConvOp::Lo, vcc), Some(Ty::S32));
            let y = b.push(Op::Conv(ConvOp::Hi, vcc), Some(Ty::S32));
            b.push(Op::SetSgpr(106, x), None);
            b.push(Op::SetSgpr(107, y), None);
            let x = b.push(Op::GetSgpr(106), Some(Ty::S32));
            let y = b.push(Op::GetSgpr(107), Some(Ty::S32));
            b.push(Op::Pack { lo: x, hi: y }, Some(Ty::S64))
        };
        let carry = b.push(Op::MaskToLanes(vcc), Some(Ty::V32));
        let hi = b.push(Op::Bin(BinOp::Add, bhi, ohi), Some(Ty::V32));
        let hi = b.push(Op::Bin(BinOp::Add, hi, carry), Some(Ty::V32));
        return b.push(Op::Pack { lo, hi }, Some(Ty::V64));
    }
    let base = c64(b, base);
    let base = b.push(Op::Broadcast(base), Some(Ty::V64));
    b.push(Op::Bin(BinOp::Add, base, off), Some(Ty::V64))
}

/// `v4 = load(addr)`; `store(addr2, v4 + v2)` with `addr2` the same shape 1 KiB further;
/// ends in `exit`.
fn block(shape: Shape, base: u64, size: u8, mask: u64, wave: u32, exit: Exit) -> Block {
    let mut b = Builder::new(0x100, wave);
    let m = c64(&mut b, mask);
    let addr = address(&mut b, shape, base, m, wave);
    let v = b.push(
        Op::Load {
            pc: 0x100,
            space: Space::Global,
            addr,
            size,
            signed: false,
            mask: m,
        },
        Some(Ty::V32),
    );
    b.push(
        Op::SetVgpr {
            reg: 4,
            val: v,
            mask: m,
        },
        None,
    );
    let x = b.push(Op::GetVgpr(4), Some(Ty::V32));
    let y = b.push(Op::GetVgpr(2), Some(Ty::V32));
    let s = b.push(Op::Bin(BinOp::Add, x, y), Some(Ty::V32));
    let addr2 = address(&mut b, shape, base + 1024, m, wave);
    b.push(
        Op::Store {
            pc: 0x108,
            space: Space::Global,
            addr: addr2,
            size,
            data: s,
            mask: m,
        },
        None,
    );
    let k = c32(&mut b, 0x5EED);
    b.push(Op::SetSgpr(9, k), None);
    b.finish(exit)
}

/// v0 lanes: ids from `first` (affine), or another pattern.
pub(super) fn ids(first: u32, affine: bool) -> impl Fn(&mut WaveState) {
    move |s: &mut WaveState| {
        for l in 0..64u32 {
            s.vgpr[0][l as usize] = if affine {
                first.wrapping_add(l)
            } else {
                first.wrapping_add(l ^ 5)
            };
        }
    }
}

pub(super) fn full(wave: u32) -> u64 {
    if wave == 32 {
        0xFFFF_FFFF
    } else {
        u64::MAX
    }
}

/// Runs `blk` in both engines (exits with faults, pc, v0..v7, SGPRs and memory agree);
/// returns (requests reaching the environment, helper calls).
fn agree(blk: &Block, first: u32, affine: bool) -> (u32, u32) {
    run_both_with(blk, ids(first, affine))
}

#[test]
fn affine_addresses_take_the_inline_path_and_match() {
    for wave in [32u32, 64] {
        for (shape, size) in [
            (Shape::SextShl, 4u8),
            (Shape::ZextMul(4), 4),
            (Shape::ZextMul(12), 4),
            (Shape::ZextMul(2), 2),
            (Shape::Lanes, 4),
            (Shape::Rdna, 4),
        ] {
            for first in [0u32, 3, 64] {
                let blk = block(shape, BASE, size, full(wave), wave, Exit::Jump(0x200));
                let (slow, helpers) = agree(&blk, first, true);
                assert_eq!((slow, helpers), (0, 0), "{shape:?} first {first} w{wave}");
            }
        }
    }
}

#[test]
fn rdna_carries_that_differ_between_lanes() {
    for wave in [32u32, 64] {
        // The offset's low half wraps at lane 16: lanes below carry into the high half,
        // the others do not, and every lane's address is `BASE + 4 * lane`.
        let first = (1u32 << 30) - 16;
        let base = BASE.wrapping_sub(4 * first as u64);
        let blk = block(Shape::Rdna, base, 4, full(wave), wave, Exit::Jump(0x200));
        assert_eq!(agree(&blk, first, true), (0, 0), "w{wave}");
    }
}

#[test]
fn non_affine_and_wrapping_values_take_the_general_code() {
    for wave in [32u32, 64] {
        for shape in [Shape::SextShl, Shape::ZextMul(4), Shape::Lanes, Shape::Rdna] {
            let blk = block(shape, BASE, 4, full(wave), wave, Exit::Jump(0x200));
            // Lanes permuted: inside the window, the per-lane path serves them.
            let (slow, _) = agree(&blk, 8, false);
            assert_eq!(slow, 0, "{shape:?} permuted w{wave}");
        }
        // Ids whose sign (zero) extension wraps inside the wave: the lanes past the wrap
        // are far outside the window and fault in both engines.
        for (shape, first) in [
            (Shape::SextShl, i32::MAX as u32 - 5),
            (Shape::ZextMul(4), u32::MAX - 5),
        ] {
            let base = BASE.wrapping_sub(4 * first as u64);
            let blk = block(shape, base, 4, full(wave), wave, Exit::Jump(0x200));
            let (slow, _) = agree(&blk, first, true);
            assert!(slow >= 1, "{shape:?} wrap w{wave}");
        }
    }
}

#[test]
fn partial_exec_and_window_edges() {
    for wave in [32u32, 64] {
        for mask in [0x0000_FFFF_0000_FFFFu64, 0xFFFF_FFFE, 1 << 31, 0] {
            let blk = block(
                Shape::SextShl,
                BASE,
                4,
                mask & full(wave),
                wave,
                Exit::EndPgm,
            );
            let (slow, _) = agree(&blk, 16, true);
            assert_eq!(slow, 0, "mask {mask:#x} w{wave}");
        }
        let n = wave as u64;
        // The store's lanes end exactly at the window's end: inline.
        let end = BASE + GLOBAL_LEN as u64 - 1024 - 4 * n;
        let blk = block(Shape::SextShl, end, 4, full(wave), wave, Exit::Jump(0x200));
        assert_eq!(agree(&blk, 0, true), (0, 0), "at the end w{wave}");
        // One element further: the last lane of the store is outside (a fault).
        let blk = block(
            Shape::SextShl,
            end + 4,
            4,
            full(wave),
            wave,
            Exit::Jump(0x200),
        );
        assert_eq!(agree(&blk, 0, true).0, 1, "past the end w{wave}");
        // Below the window's start; far outside every window.
        for base in [BASE - 4, 1 << 40] {
            let blk = block(Shape::SextShl, base, 4, full(wave), wave, Exit::Jump(0x200));
            assert_eq!(agree(&blk, 0, true).0, 1, "base {base:#x} w{wave}");
        }
    }
}

/// Runs `blk` compiled with `how` and interpreted from the same state: the exits, pcs and
/// memory agree; returns the final VGPRs v0..v7 and SGPRs of (interpreter, JIT, start).
#[allow(clippy::type_complexity)]
fn run_forwarded(blk: &Block, how: Forwarding) -> ([[u32; 64]; 8], [[u32; 64]; 8], [[u32; 64]; 8]) {
    let jit = Jit::new().expect("host JIT");
    let mut s0 = state();
    for l in 0..64 {
        s0.vgpr[2][l] = 0xA1B2_C3D4 ^ (l as u32).wrapping_mul(0x0101_0101);
    }
    s0.wave_size = blk.wave_size;
    ids(0, true)(&mut s0);
    let fresh = || {
        let mut s = state();
        s.wave_size = s0.wave_size;
        s.vgpr = s0.vgpr;
        s.sgpr = s0.sgpr;
        s
    };
    let (mut si, mut ei) = (fresh(), env());
    let ri = run_block(blk, &mut si, &mut ei);
    let cb = jit
        .compile_with(blk, Tier::Optimised, how)
        .expect("compiles");
    // The address ops left out of the lane-group loops still leave a valid loop form.
    assert!(cb.is_grouped(), "lane-group form\n{blk}");
    let (mut sj, mut ej) = (fresh(), env());
    let rj = cb.run(&mut sj, &mut ej);
    assert_eq!(ri, rj, "exit\n{blk}");
    assert_eq!(si.pc, sj.pc, "pc\n{blk}");
    assert!(ei == ej, "memory differs\n{blk}");
    let regs = |s: &WaveState| std::array::from_fn(|r| s.vgpr[r]);
    if regs(&si) == regs(&sj) {
        assert_eq!(si.sgpr, sj.sgpr, "sgprs\n{blk}");
    }
    (regs(&si), regs(&sj), regs(&s0))
}

#[test]
fn final_writes_are_dropped_only_when_allowed() {
    let drop = Forwarding {
        drop_final_writes: true,
    };
    for wave in [32u32, 64] {
        // Every shape in the lane-group form.
        for shape in [Shape::SextShl, Shape::ZextMul(4), Shape::Lanes, Shape::Rdna] {
            for how in [Forwarding::default(), drop] {
                let blk = block(shape, BASE, 4, full(wave), wave, Exit::EndPgm);
                run_forwarded(&blk, how);
            }
        }
        // Without the promise, or not at `s_endpgm`: every register as the interpreter.
        for (exit, how) in [
            (Exit::EndPgm, Forwarding::default()),
            (Exit::Jump(0x200), drop),
        ] {
            let blk = block(Shape::SextShl, BASE, 4, full(wave), wave, exit);
            let (i, j, _) = run_forwarded(&blk, how);
            assert_eq!(i, j, "registers w{wave} {how:?}");
        }
        // With it at `s_endpgm`: memory as the interpreter, registers as they started.
        let blk = block(Shape::SextShl, BASE, 4, full(wave), wave, Exit::EndPgm);
        let (i, j, start) = run_forwarded(&blk, drop);
        assert_eq!(j, start, "writes dropped w{wave}");
        assert_ne!(i, start, "the block writes registers w{wave}");
    }
}
