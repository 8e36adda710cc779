//! RDNA DS offsets follow the shared `Inst` convention (`isa::MemFields`), which the lifter
//! relies on: one 16-bit `offset` for single-address forms (and `ds_swizzle_b32`'s pattern),
//! `offset`/`offset1` bytes for the two-address forms. Encodings from llvm-mc-22 -mcpu=gfx1100.

use wavejit_translator::isa::{decode, disassemble, Gpu, Target};

#[test]
fn ds_offsets_in_the_shared_convention() {
    let t = Target::new(Gpu::GFX1100);
    let cases: [(&[u8], &str, i32, u8); 3] = [
        (
            &[0xf8, 0x03, 0xd8, 0xd8, 0x02, 0x00, 0x00, 0x03],
            "ds_load_b32 v3, v2 offset:1016",
            1016,
            0,
        ),
        (
            &[0x03, 0xfa, 0xdc, 0xd8, 0x02, 0x00, 0x00, 0x04],
            "ds_load_2addr_b32 v[4:5], v2 offset0:3 offset1:250",
            3,
            250,
        ),
        (
            &[0x1f, 0x04, 0xd4, 0xd8, 0x05, 0x00, 0x00, 0x00],
            "ds_swizzle_b32 v0, v5 offset:swizzle(SWAP,1)",
            0x041f,
            0,
        ),
    ];
    for (bytes, text, off, off1) in cases {
        let inst = decode(&t, bytes, 0).unwrap();
        assert_eq!(disassemble(&t, &inst, 0), text);
        assert_eq!((inst.mem.offset, inst.mem.offset1), (off, off1), "{text}");
    }
}
