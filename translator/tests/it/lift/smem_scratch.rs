//! GFX9 scalar scratch: `s_scratch_load_dword*` / `s_scratch_store_dword*`. Address (CDNA4
//! ISA 8.2.1.1): `ADDR = SGPR[base] + inst_offset + {M0 | SGPR[soffset]} * 64`, low two bits
//! ignored, in the wave's swizzled scratch (4-byte elements, 64 lanes: byte `a` is lane
//! `(a >> 2) % 64`'s private dword at offset `(a >> 8) * 4`; wavejit's wave scratch base is 0).
//! Expected values are those addresses worked by hand (comments at each), checked in the
//! per-lane scratch memory and through a vector `scratch_load_dword` of the same dwords.
//! Words from `llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx942` + `llvm-objdump-22 -d`.

use crate::lift_support::*;

use wavejit_translator::env::{ExecFault, MemError, Space};

#[rustfmt::skip]
const WORDS: [u32; 20] = [
    0xc05e0502, 0x00000010, // 0x00 s_scratch_store_dwordx4 s[20:23], s[4:5], 0x10
    0xc01e0602, 0x00000010, // 0x08 s_scratch_load_dwordx4 s[24:27], s[4:5], 0x10
    0xc01a4783, 0x12000044, // 0x10 s_scratch_load_dwordx2 s[30:31], s[6:7], s9 offset:0x44
    0xbefc00a0,             // 0x18 s_mov_b32 m0, 32
    0xc0140805, 0x0000007c, // 0x1c s_scratch_load_dword s32, s[10:11], m0
    0xc05a4883, 0xf8000004, // 0x24 s_scratch_store_dwordx2 s[34:35], s[6:7], m0 offset:0x4
    0xc0560905, 0x00000000, // 0x2c s_scratch_store_dword s36, s[10:11], 0x0
    0xbefe01c1,             // 0x34 s_mov_b64 exec, -1
    0xdc504008, 0x027f0000, // 0x38 scratch_load_dword v2, off, off offset:8
    0xbf810000,             // 0x40 s_endpgm
    0xc0160a06, 0x00000000, // 0x44 s_scratch_load_dword s40, s[12:13], 0x0
    0xbf810000,             // 0x4c s_endpgm
];

/// Lane `l`'s private dword at byte offset `off`.
fn priv_dword(m: &Mem, l: usize, off: usize) -> u32 {
    u32::from_le_bytes(m.scratch[l][off..off + 4].try_into().unwrap())
}

fn set_priv_dword(m: &mut Mem, l: usize, off: usize, v: u32) {
    m.scratch[l][off..off + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn scalar_scratch_addresses_the_swizzled_wave_scratch() {
    let mut m = Mem::new(64);
    set_priv_dword(&mut m, 17, 32, 0x1717_0001);
    set_priv_dword(&mut m, 18, 32, 0x1818_0002);
    set_priv_dword(&mut m, 0, 36, 0xc0de_0024);
    let init = m.clone();
    // EXEC_PARTIAL has lanes 4..7 off: scalar accesses ignore EXEC.
    let (b, a) = run_words(&WORDS, 5, EXEC_PARTIAL, &mut m, |s| {
        s.set_sgpr64(4, 0x200);
        s.set_sgpr64(6, 0);
        s.sgpr[9] = 0x20;
        s.set_sgpr64(10, 0x103);
    });
    let s = |r: usize| b.sgpr[r];
    // Store x4 at 0x200 + 0x10 = 0x210: dwords at 0x210, 0x214, 0x218, 0x21c are lanes
    // 0x84 % 64 = 4, 5, 6, 7, private offset (0x210 >> 8) * 4 = 8.
    for (i, l) in (4..8).enumerate() {
        assert_eq!(priv_dword(&m, l, 8), s(20 + i), "lane {l} offset 8");
    }
    // The load x4 from the same address reads them back.
    for i in 0..4 {
        assert_eq!(a.sgpr[24 + i], s(20 + i), "s{}", 24 + i);
    }
    // 0 + 0x44 + s9 (0x20) * 64 = 0x844: lane 0x211 % 64 = 17 then 18, offset 8 * 4 = 32.
    assert_eq!((a.sgpr[30], a.sgpr[31]), (0x1717_0001, 0x1818_0002));
    // 0x103 + M0 (0x20) * 64 = 0x903 → 0x900 (low bits ignored): lane 0, offset 9 * 4 = 36.
    assert_eq!(a.sgpr[32], 0xc0de_0024);
    // Store x2 at 0 + 4 + 0x800 = 0x804: lanes 1 and 2, offset 32.
    assert_eq!(priv_dword(&m, 1, 32), s(34));
    assert_eq!(priv_dword(&m, 2, 32), s(35));
    // Store at 0x103 → 0x100: lane 0, offset 4.
    assert_eq!(priv_dword(&m, 0, 4), s(36));
    // Nothing else changed in scratch.
    let written = [(4, 8), (5, 8), (6, 8), (7, 8), (1, 32), (2, 32), (0, 4)];
    for l in 0..64 {
        for off in (0..256).step_by(4) {
            if !written.contains(&(l, off)) {
                assert_eq!(
                    priv_dword(&m, l, off),
                    priv_dword(&init, l, off),
                    "lane {l} {off}"
                );
            }
        }
    }
    // The vector path sees the scalar stores: each lane's private dword at offset 8.
    check_vgpr(&b, &a, 2, u64::MAX, |l| match l {
        4..=7 => s(20 + l - 4),
        _ => 0x5a5a_5a5a,
    });
}

#[test]
fn scalar_scratch_beyond_the_private_segment_faults() {
    // 0x10000: lane 0, private offset (0x10000 >> 8) * 4 = 1024, past the 256 bytes per lane.
    let code = Code::from_words(&WORDS);
    let mut s = random_state(9, EXEC_PARTIAL);
    s.pc = CODE_BASE + 0x44;
    s.set_sgpr64(12, 0x1_0000);
    let r = run(&code, &mut s, &mut Mem::new(64));
    match r {
        Err(ExecFault::Memory(MemError::OutOfRange {
            space: Space::Scratch,
            addr: 1024,
            lane: 0,
            ..
        })) => {}
        other => panic!("expected a scratch range fault, got {other:?}"),
    }
}

#[test]
fn scalar_scratch_blocks_compile() {
    // `run` compares the JIT with the interpreter on every block the JIT compiles; the
    // scalar scratch block must be one of them.
    use wavejit_translator::jit::Jit;
    use wavejit_translator::lift::lift_block;
    let code = Code::from_words(&WORDS);
    let block = lift_block(&target(), &code, CODE_BASE, DEFAULT_MODE);
    assert!(
        block.inst_count >= 7,
        "the scalar scratch instructions lift"
    );
    let jit = Jit::new().expect("JIT for the host");
    assert!(jit.compile(&block).is_ok());
}

/// Operand codes 230/231, which LLVM's gfx950 disassembler prints as
/// `src_flat_scratch_base_lo/hi` (and its gfx950 assembler rejects: "register not available
/// on this GPU"), are reserved in the CDNA4 ISA: the instruction ends the block as
/// unsupported, with the reason, while the same instruction reading `src_private_base` lifts.
#[test]
fn flat_scratch_base_operands_do_not_lift() {
    use wavejit_translator::ir::Exit;
    use wavejit_translator::isa::{Gpu, Target};
    use wavejit_translator::lift::lift_block;
    let t = Target::new(Gpu::GFX950);
    for word in [
        0x7e02_02e6u32, // v_mov_b32_e32 v1, src_flat_scratch_base_lo
        0x8000_81e7,    // s_add_u32 s0, src_flat_scratch_base_hi, 1
    ] {
        let code = Code::from_words(&[word, 0xbf81_0000]);
        match lift_block(&t, &code, CODE_BASE, DEFAULT_MODE).exit {
            Exit::Unsupported { pc, reason } => {
                assert_eq!(pc, CODE_BASE);
                assert!(reason.contains("reserved"), "{word:#x}: {reason}");
            }
            other => panic!("{word:#x} lifted: {other:?}"),
        }
    }
    // v_mov_b32_e32 v1, src_private_base
    let code = Code::from_words(&[0x7e02_02ed, 0xbf81_0000]);
    let exit = lift_block(&t, &code, CODE_BASE, DEFAULT_MODE).exit;
    assert!(!matches!(exit, Exit::Unsupported { .. }), "{exit:?}");
}
