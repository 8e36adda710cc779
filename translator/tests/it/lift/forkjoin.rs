//! GCN fork/join: `s_cbranch_i_fork`, `s_cbranch_g_fork` and `s_cbranch_join` (CDNA4 ISA
//! 4.6). The programs are hand-written assembly (words from `llvm-mc-22
//! -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj` + `llvm-objdump-22 -d`); the expected
//! values are worked by hand from the ISA pseudocode (comments at each case): which paths
//! run in which order, EXEC on each path, the CSP (MODE[31:29]) after each join, and the
//! stack entries `SGPR[CSP*4 ..+3] = {EXEC lo, EXEC hi, PC lo, PC hi}` (the layout wavejit
//! reads from the pseudocode, see `lift/control.rs`). Every block also runs in the JIT,
//! which must agree with the interpreter.
//!
//! Each path records itself twice: `s66 = s66 << 4 | id` (the order the wave ran the paths)
//! and, per lane under EXEC, `v1 = v1 << 4 | id` (which paths each lane took).

use crate::lift_support::*;

use wavejit_translator::wave::WaveState;

/// Nested fork/join with `s_cbranch_i_fork`. Path ids: outer fail 1, outer pass 2, inner
/// fail 3, inner pass 4.
#[rustfmt::skip]
const NESTED: [u32; 30] = [
    0xb8b21741, // 0x00 s_getreg_b32 s50, hwreg(HW_REG_MODE, 29, 3)   ; CSP at the outer fork
    0xb8280006, // 0x04 s_cbranch_i_fork s[40:41], OPASS (0x20)
    // OFAIL (0x08)
    0x8e428442, // s_lshl_b32 s66, s66, 4
    0x87428142, // s_or_b32 s66, s66, 1
    0x24020284, // v_lshlrev_b32_e32 v1, 4, v1
    0x28020281, // v_or_b32_e32 v1, 1, v1
    0xbebc017e, // s_mov_b64 s[60:61], exec
    0xbf820012, // s_branch OJOIN (0x68)
    // OPASS (0x20)
    0x8e428442, // s_lshl_b32 s66, s66, 4
    0x87428242, // s_or_b32 s66, s66, 2
    0x24020284, // v_lshlrev_b32_e32 v1, 4, v1
    0x28020282, // v_or_b32_e32 v1, 2, v1
    0xbebe017e, // s_mov_b64 s[62:63], exec
    0xb8b31741, // s_getreg_b32 s51, hwreg(HW_REG_MODE, 29, 3)  ; CSP at the inner fork
    0xb82a0005, // 0x38 s_cbranch_i_fork s[42:43], IPASS (0x50)
    // IFAIL (0x3c)
    0x8e428442, // s_lshl_b32 s66, s66, 4
    0x87428342, // s_or_b32 s66, s66, 3
    0x24020284, // v_lshlrev_b32_e32 v1, 4, v1
    0x28020283, // v_or_b32_e32 v1, 3, v1
    0xbf820004, // s_branch IJOIN (0x60)
    // IPASS (0x50)
    0x8e428442, // s_lshl_b32 s66, s66, 4
    0x87428442, // s_or_b32 s66, s66, 4
    0x24020284, // v_lshlrev_b32_e32 v1, 4, v1
    0x28020284, // v_or_b32_e32 v1, 4, v1
    // IJOIN (0x60)
    0xbe802e33, // s_cbranch_join s51
    0xb8b41741, // s_getreg_b32 s52, hwreg(HW_REG_MODE, 29, 3)  ; CSP after the inner join
    // OJOIN (0x68)
    0xbe802e32, // s_cbranch_join s50
    0xb8c61741, // s_getreg_b32 s70, hwreg(HW_REG_MODE, 29, 3)  ; CSP at the end
    0xbec8017e, // s_mov_b64 s[72:73], exec
    0xbf810000, // s_endpgm
];

/// One fork/join with `s_cbranch_g_fork` and its target in s[44:45]. Path ids: fail 1,
/// pass 2.
#[rustfmt::skip]
const GFORK: [u32; 17] = [
    0xb8b21741, // 0x00 s_getreg_b32 s50, hwreg(HW_REG_MODE, 29, 3)
    0x94802c28, // 0x04 s_cbranch_g_fork s[40:41], s[44:45]
    // GFAIL (0x08)
    0x8e428442, // s_lshl_b32 s66, s66, 4
    0x87428142, // s_or_b32 s66, s66, 1
    0x24020284, // v_lshlrev_b32_e32 v1, 4, v1
    0x28020281, // v_or_b32_e32 v1, 1, v1
    0xbebc017e, // s_mov_b64 s[60:61], exec
    0xbf820005, // s_branch GJOIN (0x34)
    // GPASS (0x20)
    0x8e428442, // s_lshl_b32 s66, s66, 4
    0x87428242, // s_or_b32 s66, s66, 2
    0x24020284, // v_lshlrev_b32_e32 v1, 4, v1
    0x28020282, // v_or_b32_e32 v1, 2, v1
    0xbebe017e, // s_mov_b64 s[62:63], exec
    // GJOIN (0x34)
    0xbe802e32, // s_cbranch_join s50
    0xb8c61741, // s_getreg_b32 s70, hwreg(HW_REG_MODE, 29, 3)
    0xbec8017e, // s_mov_b64 s[72:73], exec
    0xbf810000, // s_endpgm
];

const OFAIL: u64 = CODE_BASE + 0x08;
const OPASS: u64 = CODE_BASE + 0x20;
const IFAIL: u64 = CODE_BASE + 0x3c;
const GFAIL: u64 = CODE_BASE + 0x08;
const GPASS: u64 = CODE_BASE + 0x20;

/// Inputs of one run: EXEC, the two condition masks, the initial CSP and (G_FORK) the
/// target pair.
struct Case {
    exec: u64,
    c1: u64,
    c2: u64,
    csp: u32,
    gtarget: u64,
}

fn run_case(words: &[u32], c: &Case, seed: u64) -> (Box<WaveState>, Box<WaveState>) {
    run_words(words, seed, c.exec, &mut Mem::new(64), |s| {
        s.set_sgpr64(40, c.c1);
        s.set_sgpr64(42, c.c2);
        s.set_sgpr64(44, c.gtarget);
        s.sgpr[66] = 0;
        s.vgpr[1] = [0; 64];
        s.mode = DEFAULT_MODE | c.csp << 29;
    })
}

fn nested(exec: u64, c1: u64, c2: u64, csp: u32) -> (Box<WaveState>, Box<WaveState>) {
    let c = Case {
        exec,
        c1,
        c2,
        csp,
        gtarget: 0,
    };
    run_case(&NESTED, &c, 0x51)
}

/// `v1` of every lane is `want(lane)` (0 for lanes that ran no path).
fn check_paths(a: &WaveState, want: impl Fn(usize) -> u32) {
    for l in 0..64 {
        assert_eq!(a.vgpr[1][l], want(l), "v1 lane {l}: paths taken");
    }
}

/// Asserts the four SGPRs of stack entry `e`: `{exec, pc}`.
fn check_entry(a: &WaveState, e: usize, exec: u64, pc: u64) {
    assert_eq!(a.sgpr64(4 * e), exec, "entry {e}: EXEC");
    assert_eq!(a.sgpr64(4 * e + 2), pc, "entry {e}: PC");
}

/// SGPRs `from..to` are unchanged.
fn check_untouched(b: &WaveState, a: &WaveState, from: usize, to: usize) {
    for r in from..to {
        assert_eq!(a.sgpr[r], b.sgpr[r], "s{r} unchanged");
    }
}

#[test]
fn i_fork_all_pass_jumps_without_pushing() {
    // mask_pass = C1 & EXEC = EXEC: PC = OPASS, no push. Inner fork: also all pass. Both
    // joins find CSP (0) equal to the CSP saved at their fork: continue.
    let e = EXEC_PARTIAL;
    let (b, a) = nested(e, u64::MAX, u64::MAX, 0);
    assert_eq!(a.sgpr[66], 0x24, "outer pass, inner pass");
    check_paths(&a, |l| if e >> l & 1 != 0 { 0x24 } else { 0 });
    assert_eq!(a.sgpr64(62), e, "EXEC on the pass path");
    assert_eq!(a.sgpr64(60), b.sgpr64(60), "fail path not run");
    assert_eq!((a.sgpr[51], a.sgpr[52], a.sgpr[70]), (0, 0, 0), "CSP");
    assert_eq!(a.exec(), e);
    check_untouched(&b, &a, 0, 32);
}

#[test]
fn i_fork_all_fail_falls_through_without_pushing() {
    // C1 has only bits outside EXEC: mask_pass = 0, mask_fail = EXEC: PC += 4.
    let e = EXEC_PARTIAL;
    let (b, a) = nested(e, !e, u64::MAX, 0);
    assert_eq!(a.sgpr[66], 0x1, "outer fail only");
    check_paths(&a, |l| if e >> l & 1 != 0 { 0x1 } else { 0 });
    assert_eq!(a.sgpr64(60), e, "EXEC on the fail path");
    assert_eq!(a.sgpr[52], b.sgpr[52], "inner join not reached");
    assert_eq!(a.sgpr[70], 0, "CSP");
    assert_eq!(a.exec(), e);
    check_untouched(&b, &a, 0, 32);
}

#[test]
fn i_fork_fewer_pass_runs_pass_first() {
    // EXEC = all, C1 = 0xff: 8 pass, 56 fail; popcount(fail) < popcount(pass) is false, so
    // EXEC = mask_pass, entry 0 = {mask_fail, PC + 4 = OFAIL}, CSP = 1, PC = OPASS. The inner
    // fork (C2 = all) does not diverge; the inner join sees CSP 1 == s51 (1): continue. The
    // outer join sees CSP 1 != s50 (0): CSP = 0, EXEC = mask_fail, PC = OFAIL; that path
    // branches to the outer join again, which now continues (CSP 0 == 0) with EXEC = the
    // fail mask (the pseudocode restores no union).
    let fail = !0xffu64;
    let (b, a) = nested(u64::MAX, 0xff, u64::MAX, 0);
    assert_eq!(a.sgpr[66], 0x241, "pass (outer, inner), then outer fail");
    check_paths(&a, |l| if l < 8 { 0x24 } else { 0x1 });
    assert_eq!(a.sgpr64(62), 0xff, "EXEC on the pass path");
    assert_eq!(a.sgpr64(60), fail, "EXEC on the fail path");
    assert_eq!((a.sgpr[51], a.sgpr[52], a.sgpr[70]), (1, 1, 0), "CSP");
    assert_eq!(a.exec(), fail);
    check_entry(&a, 0, fail, OFAIL);
    check_untouched(&b, &a, 4, 32);
}

#[test]
fn i_fork_fewer_fail_runs_fail_first() {
    // C1 = !0xff: 56 pass, 8 fail; popcount(fail) < popcount(pass): EXEC = mask_fail (0xff),
    // entry 0 = {mask_pass, OPASS}, CSP = 1, PC += 4. The fail path branches to the outer
    // join: first arrival (CSP 1 != 0): CSP = 0, EXEC = mask_pass, PC = OPASS. The inner fork
    // (C2 = all) and inner join (CSP 0 == s51 0) pass through; the outer join continues.
    let pass = !0xffu64;
    let (b, a) = nested(u64::MAX, pass, u64::MAX, 0);
    assert_eq!(a.sgpr[66], 0x124, "outer fail, then pass (outer, inner)");
    check_paths(&a, |l| if l < 8 { 0x1 } else { 0x24 });
    assert_eq!(a.sgpr64(60), 0xff, "EXEC on the fail path");
    assert_eq!(a.sgpr64(62), pass, "EXEC on the pass path");
    assert_eq!((a.sgpr[51], a.sgpr[52], a.sgpr[70]), (0, 0, 0), "CSP");
    assert_eq!(a.exec(), pass);
    check_entry(&a, 0, pass, OPASS);
    check_untouched(&b, &a, 4, 32);
}

#[test]
fn nested_forks_from_csp_2_use_entries_2_and_3() {
    // MODE.CSP = 2 at the start. Outer: C1 = 0xff of EXEC = all: pass first, entry 2
    // (s[8:11]) = {!0xff, OFAIL}, CSP = 3, EXEC = 0xff. Inner: C2 = 0x0f0f: mask_pass = 0x0f,
    // mask_fail = 0xf0 (4 and 4: not fewer, so pass first), entry 3 (s[12:15]) = {0xf0,
    // IFAIL}, CSP = 4, EXEC = 0x0f, PC = IPASS. Inner join: CSP 4 != 3: CSP = 3, EXEC = 0xf0,
    // PC = IFAIL, which returns to the inner join: 3 == 3, continue. Outer join: 3 != 2:
    // CSP = 2, EXEC = !0xff, PC = OFAIL; its second arrival continues with CSP 2.
    let (b, a) = nested(u64::MAX, 0xff, 0x0f0f, 2);
    assert_eq!(
        a.sgpr[66], 0x2431,
        "outer pass, inner pass, inner fail, outer fail"
    );
    check_paths(&a, |l| match l {
        0..=3 => 0x24,
        4..=7 => 0x23,
        _ => 0x1,
    });
    assert_eq!((a.sgpr[50], a.sgpr[51]), (2, 3), "CSP at the forks");
    assert_eq!((a.sgpr[52], a.sgpr[70]), (3, 2), "CSP after the joins");
    assert_eq!(a.exec(), !0xffu64);
    check_entry(&a, 2, !0xffu64, OFAIL);
    check_entry(&a, 3, 0xf0, IFAIL);
    check_untouched(&b, &a, 0, 8);
    check_untouched(&b, &a, 16, 32);
}

#[test]
fn csp_wraps_in_its_three_bits() {
    // Malformed depth (wavejit's reading of the 3-bit CSP, see `lift/control.rs`): from
    // CSP = 7 the outer fork (8 pass of 64: pass first) pushes entry 7 (s[28:31]) = {!0xff,
    // OFAIL} and CSP wraps to 0. The inner fork (all pass) and join (CSP 0 == s51 0) pass
    // through; the outer join finds CSP 0 != 7: CSP = 7 again, pop entry 7, run the fail
    // side; its second arrival continues with CSP 7.
    let (b, a) = nested(u64::MAX, 0xff, u64::MAX, 7);
    assert_eq!(a.sgpr[66], 0x241);
    assert_eq!(
        (a.sgpr[50], a.sgpr[51], a.sgpr[52], a.sgpr[70]),
        (7, 0, 0, 7)
    );
    check_entry(&a, 7, !0xffu64, OFAIL);
    check_untouched(&b, &a, 0, 28);
    assert_eq!(a.exec(), !0xffu64);
}

#[test]
fn i_fork_with_exec_zero_takes_the_target() {
    // EXEC = 0: mask_pass = 0 = EXEC, tested first: PC = target, nothing pushed. No lane runs
    // the vector instructions; the scalar ones run on both pass paths.
    let (b, a) = nested(0, 0x1234, 0, 0);
    assert_eq!(a.sgpr[66], 0x24);
    check_paths(&a, |_| 0);
    assert_eq!(a.sgpr[70], 0);
    assert_eq!(a.exec(), 0);
    check_untouched(&b, &a, 0, 32);
}

fn gfork(exec: u64, c1: u64) -> (Box<WaveState>, Box<WaveState>) {
    let c = Case {
        exec,
        c1,
        c2: 0,
        csp: 0,
        gtarget: GPASS,
    };
    run_case(&GFORK, &c, 0x77)
}

#[test]
fn g_fork_all_pass_jumps_to_the_sgpr_pair() {
    let e = EXEC_PARTIAL;
    let (b, a) = gfork(e, e);
    assert_eq!(a.sgpr[66], 0x2);
    check_paths(&a, |l| if e >> l & 1 != 0 { 0x2 } else { 0 });
    assert_eq!(a.sgpr64(62), e);
    assert_eq!(a.sgpr[70], 0);
    check_untouched(&b, &a, 0, 32);
}

#[test]
fn g_fork_fewer_fail_pushes_the_sgpr_pair_target() {
    // EXEC_PARTIAL = 0xf0f0_1234_ffff_8001; C1 clears lanes 0 and 15: mask_fail = 0x8001
    // (2 lanes) < mask_pass: EXEC = 0x8001, entry 0 = {mask_pass, SGPR[44:45] = GPASS},
    // PC += 4 (GFAIL). The join (CSP 1 != 0) pops: EXEC = mask_pass, PC = GPASS; the second
    // arrival continues.
    let e = EXEC_PARTIAL;
    let pass = e & !0x8001;
    let (b, a) = gfork(e, pass | 0x0f0f_0000_0000_0000);
    assert_eq!(a.sgpr[66], 0x12);
    check_paths(&a, |l| match l {
        0 | 15 => 0x1,
        _ if pass >> l & 1 != 0 => 0x2,
        _ => 0,
    });
    assert_eq!(a.sgpr64(60), 0x8001);
    assert_eq!(a.sgpr64(62), pass);
    assert_eq!(a.sgpr[70], 0);
    assert_eq!(a.exec(), pass);
    check_entry(&a, 0, pass, GPASS);
    check_untouched(&b, &a, 4, 32);
}

#[test]
fn g_fork_fewer_pass_jumps_and_pushes_the_next_instruction() {
    // C1 = 0x8001: mask_pass = 0x8001 (2 lanes), not fewer fail: EXEC = 0x8001, entry 0 =
    // {mask_fail, PC + 4 = GFAIL}, PC = SGPR[44:45].
    let e = EXEC_PARTIAL;
    let fail = e & !0x8001;
    let (b, a) = gfork(e, 0x8001);
    assert_eq!(a.sgpr[66], 0x21);
    check_paths(&a, |l| match l {
        0 | 15 => 0x2,
        _ if fail >> l & 1 != 0 => 0x1,
        _ => 0,
    });
    assert_eq!(a.sgpr64(62), 0x8001);
    assert_eq!(a.sgpr64(60), fail);
    assert_eq!(a.exec(), fail);
    check_entry(&a, 0, fail, GFAIL);
    check_untouched(&b, &a, 4, 32);
}

#[test]
fn fork_and_join_blocks_compile() {
    // The runs above compare the JIT with the interpreter on every block the JIT compiles;
    // the fork and join blocks must be among them.
    use wavejit_translator::ir::Exit;
    use wavejit_translator::jit::Jit;
    use wavejit_translator::lift::lift_block;
    let jit = Jit::new().expect("JIT for the host");
    for (words, starts) in [
        (&NESTED[..], &[0x00u64, 0x20, 0x60, 0x68][..]),
        (&GFORK[..], &[0x00, 0x34][..]),
    ] {
        let code = Code::from_words(words);
        for &off in starts {
            let block = lift_block(&target(), &code, CODE_BASE + off, DEFAULT_MODE);
            assert!(
                !matches!(block.exit, Exit::Unsupported { .. }),
                "block at {off:#x} lifts"
            );
            assert!(jit.compile(&block).is_ok(), "block at {off:#x} compiles");
        }
    }
}
