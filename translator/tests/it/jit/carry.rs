//! RDNA's 64-bit address adds (`v_add_co_u32` + `v_add_co_ci_u32` through VCC) in a
//! vadd-shaped block, compiled as kernel dispatch compiles it (final writes dropped at
//! `s_endpgm`, so the carry chain only makes addresses and leaves the lane loops,
//! `jit::analysis::affine::deferred`) and as a caller reading the final registers compiles
//! it (the chain stays), against the interpreter on the block as lifted. Windows straddle
//! 2^32 and 2^33 so some lanes carry and others do not; workitem ids start anywhere
//! (negative, near the 32-bit wrap of the byte offset) or are permuted (the general code);
//! EXEC is partial or empty; accesses run past a window (faults: same exit, lane, address,
//! pc and memory; registers too unless the caller promised not to read them). Registers
//! start poisoned and memory holds a non-zero pattern. Also the removal of register writes
//! a later write replaces (`ir::passes::forward`), on sequences of writes and reads under
//! different masks, interpreted before and after the pass.

use wavejit_translator::env::Space;
use wavejit_translator::interp::{run_block, test_env::FlatEnv};
use wavejit_translator::ir::passes::forward::Forwarding;
use wavejit_translator::ir::*;
use wavejit_translator::jit::{CompiledBlock, Jit, Tier};
use wavejit_translator::wave::WaveState;

/// Length of the test's one global window.
const LEN: usize = 0x2000;
/// Registers compared (the block writes v0..v5).
const VREGS: usize = 8;
/// SGPR pairs holding the three buffers' bases (a, b, c), as the kernel's `s_load`s leave
/// them.
const SBASE: [u8; 3] = [4, 6, 0];
const VCC: u8 = 106;

fn c32(b: &mut Builder, x: u32) -> Val {
    b.push(
        Op::Const {
            ty: Ty::S32,
            bits: x as u64,
        },
        Some(Ty::S32),
    )
}

fn set(b: &mut Builder, reg: u16, val: Val, mask: Val) {
    b.push(Op::SetVgpr { reg, val, mask }, None);
}

fn get(b: &mut Builder, reg: u16) -> Val {
    b.push(Op::GetVgpr(reg), Some(Ty::V32))
}

/// EXEC as the lifter reads it for the wave's size.
fn exec(b: &mut Builder, wave: u32) -> Val {
    let lo = b.push(Op::GetSgpr(126), Some(Ty::S32));
    if wave == 32 {
        b.push(Op::Conv(ConvOp::ZExt, lo), Some(Ty::S64))
    } else {
        let hi = b.push(Op::GetSgpr(127), Some(Ty::S32));
        b.push(Op::Pack { lo, hi }, Some(Ty::S64))
    }
}

/// `v[dst:dst+1] = s[sb:sb+1] + v[0:1]` as `v_add_co_u32 v(dst), vcc, s(sb), v0` +
/// `v_add_co_ci_u32 v(dst+1), null, s(sb+1), v1, vcc` lift: the carry-out through VCC.
fn add64(b: &mut Builder, dst: u16, sb: u8, wave: u32) {
    let m = exec(b, wave);
    let s = b.push(Op::GetSgpr(sb), Some(Ty::S32));
    let s = b.push(Op::Broadcast(s), Some(Ty::V32));
    let v0 = get(b, 0);
    let lo = b.push(Op::Bin(BinOp::Add, s, v0), Some(Ty::V32));
    let co = b.push(Op::Bin(BinOp::AddCarry, s, v0), Some(Ty::V32));
    let z = c32(b, 0);
    let z = b.push(Op::Broadcast(z), Some(Ty::V32));
    let cmp = b.push(Op::Cmp(CmpOp::Ne, co, z), Some(Ty::S64));
    let vcc = b.push(Op::Bin(BinOp::And, cmp, m), Some(Ty::S64));
    let x = b.push(Op::Conv(ConvOp::Lo, vcc), Some(Ty::S32));
    b.push(Op::SetSgpr(VCC, x), None);
    if wave == 64 {
        let y = b.push(Op::Conv(ConvOp::Hi, vcc), Some(Ty::S32));
        b.push(Op::SetSgpr(VCC + 1, y), None);
    }
    set(b, dst, lo, m);
    let m = exec(b, wave);
    let s = b.push(Op::GetSgpr(sb + 1), Some(Ty::S32));
    let s = b.push(Op::Broadcast(s), Some(Ty::V32));
    let v1 = get(b, 1);
    let x = b.push(Op::GetSgpr(VCC), Some(Ty::S32));
    let carry_in = if wave == 32 {
        b.push(Op::Conv(ConvOp::ZExt, x), Some(Ty::S64))
    } else {
        let y = b.push(Op::GetSgpr(VCC + 1), Some(Ty::S32));
        b.push(Op::Pack { lo: x, hi: y }, Some(Ty::S64))
    };
    let carry = b.push(Op::MaskToLanes(carry_in), Some(Ty::V32));
    let hi = b.push(Op::Bin(BinOp::Add, s, v1), Some(Ty::V32));
    let hi = b.push(Op::Bin(BinOp::Add, hi, carry), Some(Ty::V32));
    set(b, dst + 1, hi, m);
}

/// The address pair `v[r:r+1]`.
fn pair(b: &mut Builder, r: u16) -> Val {
    let lo = get(b, r);
    let hi = get(b, r + 1);
    b.push(Op::Pack { lo, hi }, Some(Ty::V64))
}

/// gfx1100's vadd main block: `v[0:1] = sext(v0) << 2`; `c[id] = a[id] + b[id]` with each
/// address made by [`add64`]; ends in `exit`.
fn vadd(wave: u32, exit: Exit) -> Block {
    let mut b = Builder::new(0x1000, wave);
    let m = exec(&mut b, wave);
    let k31 = c32(&mut b, 31);
    let k31 = b.push(Op::Broadcast(k31), Some(Ty::V32));
    let v0 = get(&mut b, 0);
    let hi = b.push(Op::Bin(BinOp::AShr, v0, k31), Some(Ty::V32));
    set(&mut b, 1, hi, m);
    let m = exec(&mut b, wave);
    let w = pair(&mut b, 0);
    let k2 = b.push(
        Op::Const {
            ty: Ty::S64,
            bits: 2,
        },
        Some(Ty::S64),
    );
    let k2 = b.push(Op::Broadcast(k2), Some(Ty::V64));
    let off = b.push(Op::Bin(BinOp::Shl, w, k2), Some(Ty::V64));
    let lo = b.push(Op::Conv(ConvOp::Lo, off), Some(Ty::V32));
    let hi = b.push(Op::Conv(ConvOp::Hi, off), Some(Ty::V32));
    set(&mut b, 0, lo, m);
    set(&mut b, 1, hi, m);
    add64(&mut b, 2, SBASE[0], wave);
    add64(&mut b, 4, SBASE[1], wave);
    // The loads replace address registers, and c's address replaces the offset (v[0:1]),
    // as in the kernel: with the VCC writes before the last, writes a later one replaces.
    for (k, dst) in [(2u16, 2u16), (4, 3)] {
        let m = exec(&mut b, wave);
        let addr = pair(&mut b, k);
        let v = b.push(
            Op::Load {
                pc: 0x1040 + 8 * k as u64,
                space: Space::Global,
                addr,
                size: 4,
                signed: false,
                mask: m,
            },
            Some(Ty::V32),
        );
        set(&mut b, dst, v, m);
    }
    add64(&mut b, 0, SBASE[2], wave);
    let m = exec(&mut b, wave);
    let x = get(&mut b, 2);
    let y = get(&mut b, 3);
    let s = b.push(Op::Bin(BinOp::FAdd, x, y), Some(Ty::V32));
    set(&mut b, 2, s, m);
    let m = exec(&mut b, wave);
    let addr = pair(&mut b, 0);
    let data = get(&mut b, 2);
    b.push(
        Op::Store {
            pc: 0x1070,
            space: Space::Global,
            addr,
            size: 4,
            data,
            mask: m,
        },
        None,
    );
    b.finish(exit)
}

/// One wave's inputs: the window's base, the buffers' first elements (device addresses of
/// the element of id `first`), v0's ids, EXEC.
#[derive(Clone, Copy, Debug)]
struct Case {
    window: u64,
    bufs: [u64; 3],
    first: u32,
    permuted: bool,
    exec: u64,
}

fn env(window: u64) -> FlatEnv {
    let mut e = FlatEnv::new(window, LEN, 64, 16);
    for (i, b) in e.global.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37).wrapping_add(0x81);
    }
    e
}

fn start(c: &Case, wave: u32) -> Box<WaveState> {
    let mut s = WaveState::new_boxed(64);
    s.wave_size = wave;
    for r in 0..VREGS {
        for l in 0..64 {
            s.vgpr[r][l] = 0xDEAD_0000 | (r as u32) << 8 | l as u32;
        }
    }
    for (k, r) in s.sgpr.iter_mut().enumerate() {
        *r = 0x5A5A_0000 | k as u32;
    }
    for l in 0..64u32 {
        let i = if c.permuted { l ^ 5 } else { l };
        s.vgpr[0][l as usize] = c.first.wrapping_add(i);
    }
    for (k, &sb) in SBASE.iter().enumerate() {
        // The base whose element `first` is at `bufs[k]`: addresses are base + 4 * sext(id).
        let base = c.bufs[k].wrapping_sub((c.first as i32 as i64 as u64).wrapping_mul(4));
        s.sgpr[sb as usize] = base as u32;
        s.sgpr[sb as usize + 1] = (base >> 32) as u32;
    }
    let exec = if wave == 32 {
        c.exec & 0xFFFF_FFFF
    } else {
        c.exec
    };
    s.sgpr[126] = exec as u32;
    s.sgpr[127] = (exec >> 32) as u32;
    s
}

/// The block as lifted, ending in `exit`, and compiled with `how`.
struct Form {
    blk: Block,
    exit: Exit,
    how: Forwarding,
    code: CompiledBlock,
}

const DROP: Forwarding = Forwarding {
    drop_final_writes: true,
};

/// Every way of compiling the block for a wave size: at `s_endpgm` with dropped final
/// writes (every carry chain deferred) and without (none is); ending in a jump with dropped
/// replaced writes (the chains of the two VCC writes the last replaces deferred).
fn forms(jit: &Jit, wave: u32) -> Vec<Form> {
    [
        (Exit::EndPgm, DROP),
        (Exit::EndPgm, Forwarding::default()),
        (Exit::Jump(0x2000), DROP),
    ]
    .into_iter()
    .map(|(exit, how)| {
        let blk = vadd(wave, exit.clone());
        let code = jit
            .compile_with(&blk, Tier::Optimised, how)
            .expect("compiles");
        assert!(
            code.is_grouped(),
            "lane-group form w{wave} {exit:?} {how:?}"
        );
        Form {
            blk,
            exit,
            how,
            code,
        }
    })
    .collect()
}

/// Runs form `f` for case `c` interpreted (as lifted) and compiled: exit (fault lane and
/// address included), pc and memory agree, and so do the registers, except where the form
/// promises nothing reads them: at `s_endpgm` (then they are as they started: every write
/// is final) and after a fault (which ends the wave). Returns whether the run faulted.
fn agree(f: &Form, c: &Case, wave: u32) -> bool {
    let (mut si, mut ei) = (start(c, wave), env(c.window));
    let ri = run_block(&f.blk, &mut si, &mut ei);
    let (mut sj, mut ej) = (start(c, wave), env(c.window));
    let rj = f.code.run(&mut sj, &mut ej);
    let what = format!("{c:x?} w{wave} {:?} {:?}", f.exit, f.how);
    assert_eq!(ri, rj, "exit {what}");
    assert_eq!(si.pc, sj.pc, "pc {what}");
    assert!(ei.global == ej.global, "memory {what}");
    if f.how.drop_final_writes && ri.is_err() {
        return true;
    }
    let dropped = f.how.drop_final_writes && f.exit == Exit::EndPgm;
    let expect = if dropped { start(c, wave) } else { si };
    for r in 0..VREGS {
        assert_eq!(expect.vgpr[r], sj.vgpr[r], "v{r} {what}");
    }
    assert_eq!(expect.sgpr, sj.sgpr, "sgprs {what}");
    ri.is_err()
}

/// [`agree`] for every form; whether the case faulted (in all of them alike).
fn each_form(forms: &[Form], c: &Case, wave: u32) -> bool {
    let faulted = agree(&forms[0], c, wave);
    for f in &forms[1..] {
        assert_eq!(agree(f, c, wave), faulted, "{c:x?}");
    }
    faulted
}

const EXECS: [u64; 7] = [
    u64::MAX,
    0x0000_FFFF_0000_FFFF,
    0xFFFF_FFFF_FFFF_FFFE,
    0x5555_5555_5555_5555,
    1 << 31,
    1 << 63,
    0,
];

/// Windows whose middle is a multiple of 2^32 (so lanes of one access cross it), and one
/// that is not.
const WINDOWS: [u64; 3] = [(1 << 32) - 0x1000, (1 << 33) - 0x1000, 0x5000_0000];

#[test]
fn carries_that_differ_between_lanes_match_the_interpreter() {
    let jit = Jit::new().expect("host JIT");
    for wave in [32u32, 64] {
        let forms = forms(&jit, wave);
        for window in WINDOWS {
            let mid = window + 0x1000;
            // Each buffer crosses the window's middle at another lane: a, b and c carry in
            // the lanes below 16, 40 and 5 (if the middle is a multiple of 2^32).
            let bufs = [mid - 4 * 16, mid - 4 * 40, mid - 4 * 5];
            // Ids from 0, negative ones (sign extended), and ids whose byte offset wraps
            // 32 bits inside the wave (the offset's own high half changes between lanes).
            for first in [0u32, 3, (-8i32) as u32, (1 << 30) - 20] {
                for exec in EXECS {
                    for permuted in [false, true] {
                        let c = Case {
                            window,
                            bufs,
                            first,
                            permuted,
                            exec,
                        };
                        assert!(!each_form(&forms, &c, wave), "no fault expected {c:x?}");
                    }
                }
            }
        }
    }
}

#[test]
fn faults_inside_the_block_report_what_the_interpreter_reports() {
    let jit = Jit::new().expect("host JIT");
    for wave in [32u32, 64] {
        let forms = forms(&jit, wave);
        let n = wave as u64;
        for window in WINDOWS {
            let mid = window + 0x1000;
            let end = window + LEN as u64;
            let ok = [mid - 4 * 16, mid - 4 * 40, mid - 4 * 5];
            // The second load's last lane one element past the window; the store's first
            // lane two elements below it; the first load far away.
            for (k, addr) in [(1usize, end - 4 * n + 4), (2, window - 8), (0, 1 << 40)] {
                let mut bufs = ok;
                bufs[k] = addr;
                for exec in [u64::MAX, 0xFFFF_FFFF_FFFF_FFFE] {
                    let c = Case {
                        window,
                        bufs,
                        first: 5,
                        permuted: false,
                        exec,
                    };
                    assert!(each_form(&forms, &c, wave), "fault expected {c:x?}");
                }
            }
        }
    }
}

/// A block of register writes and reads: per step `(reg, mask, read)`, `v{reg}` under
/// `mask` and `s{reg}` are written with values made from the step's index after, when
/// `read`, both are read and copied to v7 and s7. Ends in a jump (so no write is dropped
/// for being final).
fn writes(wave: u32, steps: &[(u16, u64, bool)]) -> Block {
    let mut b = Builder::new(0x3000, wave);
    for (i, &(reg, mask, read)) in steps.iter().enumerate() {
        let m = b.push(
            Op::Const {
                ty: Ty::S64,
                bits: mask,
            },
            Some(Ty::S64),
        );
        if read {
            let r = get(&mut b, reg);
            let all = b.push(
                Op::Const {
                    ty: Ty::S64,
                    bits: u64::MAX,
                },
                Some(Ty::S64),
            );
            set(&mut b, 7, r, all);
            let s = b.push(Op::GetSgpr(reg as u8), Some(Ty::S32));
            b.push(Op::SetSgpr(7, s), None);
        }
        let k = c32(&mut b, 0x1000 * (i as u32 + 1));
        let k = b.push(Op::Broadcast(k), Some(Ty::V32));
        let l = b.push(Op::LaneId, Some(Ty::V32));
        let v = b.push(Op::Bin(BinOp::Add, k, l), Some(Ty::V32));
        set(&mut b, reg, v, m);
        let x = c32(&mut b, 0x7700 + i as u32);
        b.push(Op::SetSgpr(reg as u8, x), None);
    }
    b.finish(Exit::Jump(0x4000))
}

#[test]
fn replaced_writes_go_only_when_every_lane_is_replaced_unread() {
    let full32 = 0xFFFF_FFFFu64;
    for wave in [32u32, 64] {
        let cases: Vec<Vec<(u16, u64, bool)>> = vec![
            // Same mask twice: the first goes.
            vec![
                (1, 0x00FF_00FF_00FF_00FF, false),
                (1, 0x00FF_00FF_00FF_00FF, false),
            ],
            // All lanes, then fewer: the first stays (lanes outside the second keep it).
            vec![(1, u64::MAX, false), (1, 0x0F0F_0F0F_0F0F_0F0F, false)],
            // Fewer, then all: the first goes.
            vec![(1, 0x0F0F, false), (1, u64::MAX, false)],
            // The wave32 all-ones replaces every lane of a wave32 block only.
            vec![(2, u64::MAX, false), (2, full32, false)],
            // A read between: the first stays.
            vec![(3, u64::MAX, false), (3, u64::MAX, true)],
            // Interleaved registers, a read of another one between.
            vec![
                (1, u64::MAX, false),
                (2, 0x1234, false),
                (1, 0xFFFF, true),
                (2, 0x1234, false),
                (1, u64::MAX, false),
            ],
        ];
        for steps in cases {
            let blk = writes(wave, &steps);
            let run = |b: &Block| {
                let mut s = WaveState::new_boxed(64);
                s.wave_size = wave;
                for r in 0..VREGS {
                    for l in 0..64 {
                        s.vgpr[r][l] = 0xDEAD_0000 | (r as u32) << 8 | l as u32;
                    }
                }
                for (k, r) in s.sgpr.iter_mut().enumerate() {
                    *r = 0x5A5A_0000 | k as u32;
                }
                let mut e = env(0x5000_0000);
                let r = run_block(b, &mut s, &mut e);
                (r, s)
            };
            let fwd = wavejit_translator::ir::passes::forward::forward(&blk, DROP)
                .expect("changes the block");
            verify(&fwd).expect("verifies");
            let ((ra, a), (rb, b)) = (run(&blk), run(&fwd));
            assert_eq!(ra, rb, "{steps:x?} w{wave}");
            for r in 0..VREGS {
                assert_eq!(a.vgpr[r], b.vgpr[r], "v{r} {steps:x?} w{wave}\n{fwd}");
            }
            assert_eq!(a.sgpr, b.sgpr, "{steps:x?} w{wave}\n{fwd}");
            // And compiled.
            let cb = Jit::new()
                .expect("host JIT")
                .compile_with(&blk, Tier::Optimised, DROP)
                .expect("compiles");
            let mut s = WaveState::new_boxed(64);
            s.wave_size = wave;
            for r in 0..VREGS {
                for l in 0..64 {
                    s.vgpr[r][l] = 0xDEAD_0000 | (r as u32) << 8 | l as u32;
                }
            }
            for (k, r) in s.sgpr.iter_mut().enumerate() {
                *r = 0x5A5A_0000 | k as u32;
            }
            let mut e = env(0x5000_0000);
            assert_eq!(cb.run(&mut s, &mut e), ra, "{steps:x?} w{wave}");
            for r in 0..VREGS {
                assert_eq!(a.vgpr[r], s.vgpr[r], "jit v{r} {steps:x?} w{wave}");
            }
            assert_eq!(a.sgpr, s.sgpr, "jit {steps:x?} w{wave}");
        }
    }
}
