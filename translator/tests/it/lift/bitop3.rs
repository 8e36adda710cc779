//! gfx950 `v_bitop3_b32`: the truth-table bit op, through the lifter under both engines.
//!
//! Encodings are llvm-mc-22's (`v_bitop3_b32 v0, v1, v2, v3 bitop3:T`, -mcpu=gfx950); the
//! expected functions are the truth tables' meanings with S0 as the most significant index
//! bit (the same convention as x86 `vpternlog`): 0x80 = a&b&c, 0xFE = a|b|c, 0x96 = a^b^c,
//! 0xE8 = majority, 0x0F = !a, 0x01 = !(a|b|c).

use wavejit_translator::env::CodeSource;
use wavejit_translator::interp::{run_block, test_env::FlatEnv};
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::lift::lift_block;
use wavejit_translator::wave::WaveState;

const BASE: u64 = 0x1000;

struct Code(Vec<u8>);
impl CodeSource for Code {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        let off = pc.checked_sub(BASE)? as usize;
        self.0.get(off..).filter(|b| !b.is_empty())
    }
}

#[test]
fn truth_tables() {
    type F = fn(u32, u32, u32) -> u32;
    let cases: [([u8; 8], F); 6] = [
        (
            [0x00, 0x00, 0x34, 0xd2, 0x01, 0x05, 0x0e, 0x14],
            |a, b, c| a & b & c,
        ),
        (
            [0x00, 0x07, 0x34, 0xd2, 0x01, 0x05, 0x0e, 0xdc],
            |a, b, c| a | b | c,
        ),
        (
            [0x00, 0x02, 0x34, 0xd2, 0x01, 0x05, 0x0e, 0xd4],
            |a, b, c| a ^ b ^ c,
        ),
        (
            [0x00, 0x05, 0x34, 0xd2, 0x01, 0x05, 0x0e, 0x1c],
            |a, b, c| (a & b) | (a & c) | (b & c),
        ),
        (
            [0x00, 0x01, 0x34, 0xd2, 0x01, 0x05, 0x0e, 0xe4],
            |a, _, _| !a,
        ),
        (
            [0x00, 0x00, 0x34, 0xd2, 0x01, 0x05, 0x0e, 0x24],
            |a, b, c| !(a | b | c),
        ),
    ];
    let target = Target::new(Gpu::GFX950);
    let jit = Jit::new().expect("JIT for the host");
    let mut seed = 0x9E37_79B9u64;
    for (bytes, f) in cases {
        let mut code = bytes.to_vec();
        code.extend([0x00, 0x00, 0x81, 0xBF]); // s_endpgm
        let block = lift_block(&target, &Code(code), BASE, 0);
        let mut s = WaveState::new_boxed(64);
        for lane in 0..64 {
            for r in 1..4 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                s.vgpr[r][lane] = seed as u32;
            }
            s.vgpr[0][lane] = 0xDEAD_BEEF;
        }
        // Lanes 60..63 inactive: v0 keeps its poison there.
        s.set_exec(u64::MAX >> 4);
        let mut js = WaveState::new_boxed(64);
        js.vgpr = s.vgpr;
        js.sgpr = s.sgpr;
        run_block(&block, &mut s, &mut FlatEnv::new(0x7000_0000, 64, 64, 16)).expect("interp");
        let compiled = jit.compile(&block).expect("compiles");
        compiled
            .run(&mut js, &mut FlatEnv::new(0x7000_0000, 64, 64, 16))
            .expect("jit");
        for lane in 0..64 {
            let want = if lane < 60 {
                f(s.vgpr[1][lane], s.vgpr[2][lane], s.vgpr[3][lane])
            } else {
                0xDEAD_BEEF
            };
            assert_eq!(s.vgpr[0][lane], want, "{bytes:02x?} lane {lane}");
            assert_eq!(js.vgpr[0][lane], want, "JIT {bytes:02x?} lane {lane}");
        }
    }
}
