//! Runs of LDS accesses from one address register (`jit::analysis::lds_runs`), lowered as
//! one access: lifted `ds_store_b8/b16/b32` (and `d16_hi`) and `ds_load_b32..b128`
//! sequences, JIT against the interpreter — registers, counters, LDS bytes, exit — with
//! scattered, colliding and unaligned lane addresses, partial and empty EXEC, and an active
//! lane past the end of LDS (the fault, and the accesses before it, as the interpreter's).

use super::memory::{env, state, BASE, GLOBAL_LEN, LDS_LEN};
use wavejit_translator::env::CodeSource;
use wavejit_translator::interp::run_block;
use wavejit_translator::ir::{Block, Exit, Op};
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::wave::WaveState;

struct Code(Vec<u8>);

impl CodeSource for Code {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        self.0.get(usize::try_from(pc.checked_sub(0x100)?).ok()?..)
    }
}

/// The block of `words` at 0x100 for `gpu` (it ends at the first `s_endpgm`).
fn lift(gpu: Gpu, words: &[u32]) -> Block {
    let code = Code(words.iter().flat_map(|w| w.to_le_bytes()).collect());
    wavejit_translator::lift::lift_block(&Target::new(gpu), &code, 0x100, 0)
}

/// Two store runs split by a VALU write (`v_add … v7`), from llvm-mc-22 `-show-encoding`:
/// b16, b16_d16_hi +80, `s_nop`, b16 +160; then b8 +3, b32 +200, b8_d16_hi +7, b16 +201
/// (overlapping the b32 before it: order matters), b32 of v7 +400.
#[rustfmt::skip]
const GFX1100: [u32; 20] = [
    0xd87c0000, 0x00000201, // ds_store_b16 v1, v2
    0xda840050, 0x00000201, // ds_store_b16_d16_hi v1, v2 offset:80
    0xbf800000,             // s_nop 0
    0xd87c00a0, 0x00000301, // ds_store_b16 v1, v3 offset:160
    0x4a0e0a81,             // v_add_nc_u32_e32 v7, 1, v5
    0xd8780003, 0x00000401, // ds_store_b8 v1, v4 offset:3
    0xd83400c8, 0x00000501, // ds_store_b32 v1, v5 offset:200
    0xda800007, 0x00000401, // ds_store_b8_d16_hi v1, v4 offset:7
    0xd87c00c9, 0x00000601, // ds_store_b16 v1, v6 offset:201
    0xd8340190, 0x00000701, // ds_store_b32 v1, v7 offset:400
    0xbfb00000, 0xbfb00000, // s_endpgm (twice)
];

/// The same program for gfx942 (`ds_write_*`, `v_add_u32`).
#[rustfmt::skip]
const GFX942: [u32; 20] = [
    0xd83e0000, 0x00000201, // ds_write_b16 v1, v2
    0xd8aa0050, 0x00000201, // ds_write_b16_d16_hi v1, v2 offset:80
    0xbf800000,             // s_nop 0
    0xd83e00a0, 0x00000301, // ds_write_b16 v1, v3 offset:160
    0x680e0a81,             // v_add_u32_e32 v7, 1, v5
    0xd83c0003, 0x00000401, // ds_write_b8 v1, v4 offset:3
    0xd81a00c8, 0x00000501, // ds_write_b32 v1, v5 offset:200
    0xd8a80007, 0x00000401, // ds_write_b8_d16_hi v1, v4 offset:7
    0xd83e00c9, 0x00000601, // ds_write_b16 v1, v6 offset:201
    0xd81a0190, 0x00000701, // ds_write_b32 v1, v7 offset:400
    0xbf810000, 0xbf810000, // s_endpgm (twice)
];

/// Runs `block` from a poisoned state with lane addresses `addr(l)` in v1 and `exec` on both
/// engines and compares everything; returns the JIT's count of accesses compiled as one and
/// of memory helper calls.
fn compare(block: &Block, exec: u64, addr: impl Fn(usize) -> u32) -> (u32, u32) {
    let jit = Jit::new().expect("host JIT");
    let fresh = || {
        let mut s: Box<WaveState> = state();
        s.wave_size = block.wave_size;
        for l in 0..64 {
            for r in 8..40 {
                s.vgpr[r][l] = 0xBAD0_0000 | (r as u32) << 8 | l as u32;
            }
            s.vgpr[1][l] = addr(l);
            s.vgpr[2][l] = 0xA1B2_C3D4 ^ (l as u32).wrapping_mul(0x0101_0101);
            s.vgpr[3][l] = 0x1F2E_3D4C ^ (l as u32) << 20;
            s.vgpr[4][l] = 0x9C8B_7A69u32.rotate_left(l as u32);
            s.vgpr[5][l] = 0x5A5A_0000 | (l as u32).wrapping_mul(0x3F1);
            s.vgpr[6][l] = 0xC0DE_0000 ^ (l as u32) << 3;
        }
        s.set_exec(exec);
        s
    };
    let (mut si, mut ei) = (fresh(), env());
    let ri = run_block(block, &mut si, &mut ei);
    let cb = jit.compile(block).expect("compiles");
    let (mut sj, mut ej) = (fresh(), env());
    let (rj, helpers) = cb.run_counting(&mut sj, &mut ej);
    let what = format!("exec {exec:#x}\n{block}");
    assert_eq!(ri, rj, "exit, {what}");
    assert_eq!(si.pc, sj.pc, "pc, {what}");
    for r in 0..40 {
        assert_eq!(si.vgpr[r], sj.vgpr[r], "v{r}, {what}");
    }
    assert_eq!(si.sgpr, sj.sgpr, "sgprs, {what}");
    assert_eq!(si.counters, sj.counters, "counters, {what}");
    assert!(ei == ej, "LDS differs, {what}");
    (cb.multi_accesses(), helpers)
}

/// Scattered lanes (a multiplicative pattern), some colliding, odd (unaligned) addresses,
/// with at least `room` bytes after each.
fn scattered_in(l: usize, room: u32) -> u32 {
    (((l as u32).wrapping_mul(2654435761) >> 7) % (LDS_LEN as u32 - room)) | (l as u32 & 1)
}

/// [`scattered_in`] for the store program (its farthest store ends 404 bytes on).
fn scattered(l: usize) -> u32 {
    scattered_in(l, 420)
}

#[test]
fn lds_store_runs_match_the_interpreter() {
    for (gpu, words) in [(Gpu::GFX1100, &GFX1100), (Gpu::GFX942, &GFX942)] {
        let block = lift(gpu, words);
        assert!(matches!(block.exit, Exit::EndPgm), "{block}");
        let stores = block
            .ops
            .iter()
            .filter(|o| matches!(o, Op::Store { .. }))
            .count();
        assert_eq!(stores, 8, "{block}");
        let lanes = block.wave_size as usize;
        let full = if lanes == 32 { 0xFFFF_FFFF } else { u64::MAX };
        let addrs: [&dyn Fn(usize) -> u32; 5] = [
            &scattered,
            // Lane-affine (the block's root test for v1 passes), overlapping lanes.
            &|l| 300 + l as u32,
            // Every lane at one address: later lanes win.
            &|_| 1000,
            // Consecutive lanes 2 bytes apart (overlapping the wider stores).
            &|l| 2 * l as u32,
            // The last byte of the farthest store at LDS's last byte.
            &|l| (LDS_LEN as u32 - 404) - (l as u32 % 3),
        ];
        for addr in addrs {
            for exec in [full, 0x8000_0001 & full, 0x5A5A_A5A5_0FF0_F00F & full] {
                let (runs, helpers) = compare(&block, exec, addr);
                assert_eq!((runs, helpers), (2, 0), "{gpu:?} exec {exec:#x}\n{block}");
            }
            compare(&block, 0, addr);
        }
    }
}

#[test]
fn a_lane_past_lds_faults_as_in_the_interpreter() {
    for (gpu, words) in [(Gpu::GFX1100, &GFX1100), (Gpu::GFX942, &GFX942)] {
        let block = lift(gpu, words);
        let lanes = block.wave_size as usize;
        let full = if lanes == 32 { 0xFFFF_FFFF } else { u64::MAX };
        // Lane 5's stores from offset 160 on (then 200, 400) end past LDS; inactive, it runs
        // inline.
        let past = |l: usize| {
            if l == 5 {
                LDS_LEN as u32 - 170
            } else {
                scattered(l)
            }
        };
        compare(&block, full, past);
        compare(&block, full & !0x20, past);
        // Far out (a 32-bit address well past the window), a lane in the middle.
        compare(&block, full, |l| {
            if l == 17 {
                0xFFFF_FF00
            } else {
                4 * l as u32
            }
        });
    }
}

/// Load runs, from llvm-mc-22 `-show-encoding`: run A is b128, b128 +16, (`s_nop`), b64 +100,
/// b32 +7 into v20, b128 +200; the next load into v20 ends it and starts run B (with b128
/// +1000, 1016 bytes in all); a load into the address register v1 ends B and is not in a run;
/// the b64 from the new v1 is a multi-dword load (and faults: v1 is LDS data).
#[rustfmt::skip]
const LOADS_GFX1100: [u32; 21] = [
    0xdbfc0000, 0x0a000001, // ds_load_b128 v[10:13], v1
    0xdbfc0010, 0x0e000001, // ds_load_b128 v[14:17], v1 offset:16
    0xbf800000,             // s_nop 0
    0xd9d80064, 0x12000001, // ds_load_b64 v[18:19], v1 offset:100
    0xd8d80007, 0x14000001, // ds_load_b32 v20, v1 offset:7
    0xdbfc00c8, 0x16000001, // ds_load_b128 v[22:25], v1 offset:200
    0xd8d8012c, 0x14000001, // ds_load_b32 v20, v1 offset:300
    0xdbfc03e8, 0x1a000001, // ds_load_b128 v[26:29], v1 offset:1000
    0xd8d80028, 0x01000001, // ds_load_b32 v1, v1 offset:40
    0xd9d80008, 0x1e000001, // ds_load_b64 v[30:31], v1 offset:8
    0xbfb00000, 0xbfb00000, // s_endpgm (twice)
];

/// The same program for gfx942 (`ds_read_*`).
#[rustfmt::skip]
const LOADS_GFX942: [u32; 21] = [
    0xd9fe0000, 0x0a000001, // ds_read_b128 v[10:13], v1
    0xd9fe0010, 0x0e000001, // ds_read_b128 v[14:17], v1 offset:16
    0xbf800000,             // s_nop 0
    0xd8ec0064, 0x12000001, // ds_read_b64 v[18:19], v1 offset:100
    0xd86c0007, 0x14000001, // ds_read_b32 v20, v1 offset:7
    0xd9fe00c8, 0x16000001, // ds_read_b128 v[22:25], v1 offset:200
    0xd86c012c, 0x14000001, // ds_read_b32 v20, v1 offset:300
    0xd9fe03e8, 0x1a000001, // ds_read_b128 v[26:29], v1 offset:1000
    0xd86c0028, 0x01000001, // ds_read_b32 v1, v1 offset:40
    0xd8ec0008, 0x1e000001, // ds_read_b64 v[30:31], v1 offset:8
    0xbf810000, 0xbf810000, // s_endpgm (twice)
];

#[test]
fn lds_load_runs_match_the_interpreter() {
    for (gpu, words) in [(Gpu::GFX1100, &LOADS_GFX1100), (Gpu::GFX942, &LOADS_GFX942)] {
        let block = lift(gpu, words);
        assert!(matches!(block.exit, Exit::EndPgm), "{block}");
        let full = if block.wave_size == 32 {
            0xFFFF_FFFF
        } else {
            u64::MAX
        };
        let addrs: [&dyn Fn(usize) -> u32; 5] = [
            &|l| scattered_in(l, 1100),
            &|l| 300 + l as u32,
            &|_| 2000,
            // The farthest load's last byte at LDS's last byte.
            &|l| (LDS_LEN as u32 - 1016) - 4 * (l as u32 % 5),
            // Lane 9 one dword too far for run B only (A runs, B faults).
            &|l| {
                if l == 9 {
                    LDS_LEN as u32 - 1012
                } else {
                    64 * l as u32
                }
            },
        ];
        for addr in addrs {
            for exec in [full, 0x8000_0001 & full, 0x5A5A_A5A5_0FF0_F00F & full] {
                let (runs, _) = compare(&block, exec, addr);
                assert_eq!(runs, 3, "{gpu:?} exec {exec:#x}\n{block}");
            }
            compare(&block, 0, addr);
        }
    }
}

/// Load runs over several address registers, from llvm-mc-22 `-show-encoding`. Run A: v1
/// +16, v2 +2048, (`s_nop`), v1 +0 (below the first), v2 +3400, v2 +1000 (below the base's
/// first: 2416 bytes from v2 in all), v1 +1500, v3 +8, v1 +4, v1 +12; a load into v3 (one of
/// its address registers) ends it. That load is alone: the next load's base, v3, is a
/// register it wrote (not read before the run). Run B: v3 +16 (b64), then v2 +6.
#[rustfmt::skip]
const TWO_BASES_GFX1100: [u32; 27] = [
    0xdbfc0010, 0x0a000001, // ds_load_b128 v[10:13], v1 offset:16
    0xdbfc0800, 0x0e000002, // ds_load_b128 v[14:17], v2 offset:2048
    0xbf800000,             // s_nop 0
    0xdbfc0000, 0x12000001, // ds_load_b128 v[18:21], v1
    0xdbfc0d48, 0x16000002, // ds_load_b128 v[22:25], v2 offset:3400
    0xd9d803e8, 0x1a000002, // ds_load_b64 v[26:27], v2 offset:1000
    0xd8d805dc, 0x1c000001, // ds_load_b32 v28, v1 offset:1500
    0xdbfc0008, 0x1e000003, // ds_load_b128 v[30:33], v3 offset:8
    0xd8d80004, 0x27000001, // ds_load_b32 v39, v1 offset:4
    0xd8d8000c, 0x22000001, // ds_load_b32 v34, v1 offset:12
    0xd8d80014, 0x03000001, // ds_load_b32 v3, v1 offset:20
    0xd9d80010, 0x24000003, // ds_load_b64 v[36:37], v3 offset:16
    0xd8d80006, 0x26000002, // ds_load_b32 v38, v2 offset:6
    0xbfb00000, 0xbfb00000, // s_endpgm (twice)
];

/// The same program for gfx942 (`ds_read_*`).
#[rustfmt::skip]
const TWO_BASES_GFX942: [u32; 27] = [
    0xd9fe0010, 0x0a000001, // ds_read_b128 v[10:13], v1 offset:16
    0xd9fe0800, 0x0e000002, // ds_read_b128 v[14:17], v2 offset:2048
    0xbf800000,             // s_nop 0
    0xd9fe0000, 0x12000001, // ds_read_b128 v[18:21], v1
    0xd9fe0d48, 0x16000002, // ds_read_b128 v[22:25], v2 offset:3400
    0xd8ec03e8, 0x1a000002, // ds_read_b64 v[26:27], v2 offset:1000
    0xd86c05dc, 0x1c000001, // ds_read_b32 v28, v1 offset:1500
    0xd9fe0008, 0x1e000003, // ds_read_b128 v[30:33], v3 offset:8
    0xd86c0004, 0x27000001, // ds_read_b32 v39, v1 offset:4
    0xd86c000c, 0x22000001, // ds_read_b32 v34, v1 offset:12
    0xd86c0014, 0x03000001, // ds_read_b32 v3, v1 offset:20
    0xd8ec0010, 0x24000003, // ds_read_b64 v[36:37], v3 offset:16
    0xd86c0006, 0x26000002, // ds_read_b32 v38, v2 offset:6
    0xbf810000, 0xbf810000, // s_endpgm (twice)
];

/// LDS of dwords that are themselves LDS addresses (a loaded v3 is an address), from a hash
/// of their index: not periodic, so a piece read at a wrong offset reads other bytes.
fn address_env() -> wavejit_translator::interp::test_env::FlatEnv {
    let mut e = env();
    for (i, w) in e.lds.chunks_exact_mut(4).enumerate() {
        let h = (i as u32 ^ 0x5bd1).wrapping_mul(2654435761);
        let v = ((h >> 8) % (LDS_LEN as u32 - 128)) | 0x40;
        w.copy_from_slice(&v.to_le_bytes());
    }
    e
}

/// Runs `block` from a poisoned state with `v1..=v3` of lane `l` at `addr(l)` on both
/// engines over [`address_env`] and compares registers, counters, LDS and the exit; returns
/// the JIT's count of accesses compiled as one.
fn compare_bases(block: &Block, exec: u64, addr: impl Fn(usize) -> [u32; 3]) -> u32 {
    let jit = Jit::new().expect("host JIT");
    let fresh = || {
        let mut s: Box<WaveState> = state();
        s.wave_size = block.wave_size;
        for l in 0..64 {
            for r in 8..48 {
                s.vgpr[r][l] = 0xBAD0_0000 | (r as u32) << 8 | l as u32;
            }
            for (r, a) in addr(l).into_iter().enumerate() {
                s.vgpr[1 + r][l] = a;
            }
        }
        s.set_exec(exec);
        s
    };
    let (mut si, mut ei) = (fresh(), address_env());
    let ri = run_block(block, &mut si, &mut ei);
    let cb = jit.compile(block).expect("compiles");
    let (mut sj, mut ej) = (fresh(), address_env());
    let (rj, _) = cb.run_counting(&mut sj, &mut ej);
    let what = format!("exec {exec:#x}\n{block}");
    assert_eq!(ri, rj, "exit, {what}");
    assert_eq!(si.pc, sj.pc, "pc, {what}");
    for r in 0..48 {
        assert_eq!(si.vgpr[r], sj.vgpr[r], "v{r}, {what}");
    }
    assert_eq!(si.sgpr, sj.sgpr, "sgprs, {what}");
    assert_eq!(si.counters, sj.counters, "counters, {what}");
    assert!(ei == ej, "LDS differs, {what}");
    cb.multi_accesses()
}

#[test]
fn lds_load_runs_over_two_registers_match_the_interpreter() {
    let len = LDS_LEN as u32;
    // v2's pieces reach from +1000 to +3416, v1's from +0 to +1504, v3's to +24.
    let addrs: [&dyn Fn(usize) -> [u32; 3]; 7] = [
        &|l| {
            [
                scattered_in(l, 1520),
                scattered_in(l, 3420),
                scattered_in(l, 40),
            ]
        },
        &|l| [4 * l as u32, 100 + 16 * l as u32, len - 100 - 4 * l as u32],
        &|_| [2000, 777, 4000],
        // Each base's farthest byte at LDS's last byte.
        &|l| [len - 1504 - (l as u32 % 3), len - 3416, len - 24],
        // Lane 9's v2 one dword too far: run A faults at its fourth load.
        &|l| {
            let v2 = if l == 9 { len - 3412 } else { 8 * l as u32 };
            [12 * l as u32, v2, 4 * l as u32]
        },
        // Lane 3's v1 far out: the first load faults.
        &|l| {
            let v1 = if l == 3 { 0xFFFF_FF00 } else { 4 * l as u32 };
            [v1, 8 * l as u32, 4 * l as u32]
        },
        // Lane 20's v3 past LDS: run A faults at its seventh load.
        &|l| {
            let v3 = if l == 20 { len - 16 } else { 4 * l as u32 };
            [8 * l as u32, 16 * l as u32, v3]
        },
    ];
    for (gpu, words) in [
        (Gpu::GFX1100, &TWO_BASES_GFX1100),
        (Gpu::GFX942, &TWO_BASES_GFX942),
    ] {
        let block = lift(gpu, words);
        assert!(matches!(block.exit, Exit::EndPgm), "{block}");
        let full = if block.wave_size == 32 {
            0xFFFF_FFFF
        } else {
            u64::MAX
        };
        for addr in addrs {
            for exec in [
                full,
                0x8000_0001 & full,
                0x5A5A_A5A5_0FF0_F00F & full,
                0x200,
            ] {
                let runs = compare_bases(&block, exec, addr);
                assert_eq!(runs, 2, "{gpu:?} exec {exec:#x}\n{block}");
            }
            compare_bases(&block, 0, addr);
        }
    }
}

/// A global load run over three register pairs, from llvm-mc-22 `-show-encoding`: run A is
/// v[4:5] +16, v[6:7] +0, v[4:5] +0 (below the first), v[8:9] −8, v[6:7] +2000; a load into
/// v9 (half of an address pair) ends it and starts run B with the next load from v[6:7].
#[rustfmt::skip]
const GLOBAL_GFX942: [u32; 16] = [
    0xdc5c8010, 0x147f0004, // global_load_dwordx4 v[20:23], v[4:5], off offset:16
    0xdc5c8000, 0x187f0006, // global_load_dwordx4 v[24:27], v[6:7], off
    0xdc5c8000, 0x1c7f0004, // global_load_dwordx4 v[28:31], v[4:5], off
    0xdc549ff8, 0x207f0008, // global_load_dwordx2 v[32:33], v[8:9], off offset:-8
    0xdc5087d0, 0x227f0006, // global_load_dword v34, v[6:7], off offset:2000
    0xdc508004, 0x097f0006, // global_load_dword v9, v[6:7], off offset:4
    0xdc508008, 0x237f0006, // global_load_dword v35, v[6:7], off offset:8
    0xbf810000, 0xbf810000, // s_endpgm (twice)
];

/// The same program for gfx1100 (`global_load_b*`).
#[rustfmt::skip]
const GLOBAL_GFX1100: [u32; 16] = [
    0xdc5e0010, 0x147c0004, // global_load_b128 v[20:23], v[4:5], off offset:16
    0xdc5e0000, 0x187c0006, // global_load_b128 v[24:27], v[6:7], off
    0xdc5e0000, 0x1c7c0004, // global_load_b128 v[28:31], v[4:5], off
    0xdc561ff8, 0x207c0008, // global_load_b64 v[32:33], v[8:9], off offset:-8
    0xdc5207d0, 0x227c0006, // global_load_b32 v34, v[6:7], off offset:2000
    0xdc520004, 0x097c0006, // global_load_b32 v9, v[6:7], off offset:4
    0xdc520008, 0x237c0006, // global_load_b32 v35, v[6:7], off offset:8
    0xbfb00000, 0xbfb00000, // s_endpgm (twice)
];

/// Runs `block` from a poisoned state with the address pairs v[4:5], v[6:7], v[8:9] of lane
/// `l` at `BASE + off(l)` on both engines over global memory of a non-periodic pattern and
/// compares registers, counters, memory and the exit; returns the JIT's count of accesses
/// compiled as one.
fn compare_global(block: &Block, exec: u64, off: impl Fn(usize) -> [u64; 3]) -> u32 {
    let jit = Jit::new().expect("host JIT");
    let fresh = || {
        let mut s: Box<WaveState> = state();
        s.wave_size = block.wave_size;
        for l in 0..64 {
            for r in 8..48 {
                s.vgpr[r][l] = 0xBAD0_0000 | (r as u32) << 8 | l as u32;
            }
            for (p, o) in off(l).into_iter().enumerate() {
                let a = BASE.wrapping_add(o);
                s.vgpr[4 + 2 * p][l] = a as u32;
                s.vgpr[5 + 2 * p][l] = (a >> 32) as u32;
            }
        }
        s.set_exec(exec);
        s
    };
    let mem = || {
        let mut e = env();
        for (i, b) in e.global.iter_mut().enumerate() {
            *b = ((i as u32 ^ 0x2c9).wrapping_mul(2654435761) >> 13) as u8 | 1;
        }
        e
    };
    let (mut si, mut ei) = (fresh(), mem());
    let ri = run_block(block, &mut si, &mut ei);
    let cb = jit.compile(block).expect("compiles");
    let (mut sj, mut ej) = (fresh(), mem());
    let (rj, _) = cb.run_counting(&mut sj, &mut ej);
    let what = format!("exec {exec:#x}\n{block}");
    assert_eq!(ri, rj, "exit, {what}");
    assert_eq!(si.pc, sj.pc, "pc, {what}");
    for r in 0..48 {
        assert_eq!(si.vgpr[r], sj.vgpr[r], "v{r}, {what}");
    }
    assert_eq!(si.sgpr, sj.sgpr, "sgprs, {what}");
    assert_eq!(si.counters, sj.counters, "counters, {what}");
    assert!(ei == ej, "memory differs, {what}");
    cb.multi_accesses()
}

#[test]
fn global_load_runs_over_register_pairs_match_the_interpreter() {
    let len = GLOBAL_LEN as u64;
    // v[4:5]'s pieces reach from +0 to +32, v[6:7]'s to +2004, v[8:9]'s from −8 to 0.
    let offs: [&dyn Fn(usize) -> [u64; 3]; 7] = [
        &|l| {
            let s = |room: u32| u64::from(scattered_in(l, room));
            [s(40), s(2010), s(8) + 8]
        },
        &|l| [16 * l as u64, 4000 - 32 * l as u64, 8 + 4 * l as u64],
        &|_| [100, 200, 300],
        // Each pair's farthest byte at the end of memory; v[8:9]'s first at its start.
        &|l| [len - 32 - (l as u64 % 3), len - 2004, 8],
        // Lane 9's v[6:7] one dword too far: run A faults at its fifth load.
        &|l| {
            let b = if l == 9 { len - 2000 } else { 8 * l as u64 };
            [12 * l as u64, b, 8 + 4 * l as u64]
        },
        // Lane 3's v[8:9] below memory: run A faults at its fourth load.
        &|l| {
            let c = if l == 3 { 4 } else { 8 + 4 * l as u64 };
            [4 * l as u64, 8 * l as u64, c]
        },
        // Lane 20's v[4:5] far out (its high half set).
        &|l| {
            let a = if l == 20 { 1 << 40 } else { 4 * l as u64 };
            [a, 16 * l as u64, 8 + 8 * l as u64]
        },
    ];
    for (gpu, words) in [
        (Gpu::GFX942, &GLOBAL_GFX942),
        (Gpu::GFX1100, &GLOBAL_GFX1100),
    ] {
        let block = lift(gpu, words);
        assert!(matches!(block.exit, Exit::EndPgm), "{block}");
        let full = if block.wave_size == 32 {
            0xFFFF_FFFF
        } else {
            u64::MAX
        };
        for off in offs {
            for exec in [
                full,
                0x8000_0001 & full,
                0x5A5A_A5A5_0FF0_F00F & full,
                0x200,
            ] {
                let runs = compare_global(&block, exec, off);
                assert_eq!(runs, 2, "{gpu:?} exec {exec:#x}\n{block}");
            }
            compare_global(&block, 0, off);
        }
    }
}
