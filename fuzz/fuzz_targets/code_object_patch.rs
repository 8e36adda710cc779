//! The loader on a real code object (the corpus vector add) with the fuzz input applied as
//! byte patches: each 3-byte record is (offset low, offset high, XOR value), so headers,
//! section tables, the descriptor and the metadata note are all hit with small, targeted
//! corruptions that a random byte string would rarely reach. Must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

static VADD: &[u8] = include_bytes!("../../tests/kernels/gfx942/vadd.hsaco");

fuzz_target!(|data: &[u8]| {
    let mut obj = VADD.to_vec();
    for p in data.chunks_exact(3) {
        let off = u16::from_le_bytes([p[0], p[1]]) as usize % obj.len();
        obj[off] ^= p[2];
    }
    // Also cut the object at a length taken from the input.
    if data.len() % 3 == 2 {
        let cut = u16::from_le_bytes([data[data.len() - 2], data[data.len() - 1]]) as usize;
        obj.truncate(cut.max(1));
    }
    if let Ok(co) = wavejit_runtime::code_object::load(&obj, None) {
        for k in &co.kernels {
            let _ = co.code_at(k.entry);
            let _ = co.code_end(k.entry);
        }
    }
});
