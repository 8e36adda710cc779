//! The code object loader (ELF, offload bundle, kernel descriptor, msgpack metadata) on
//! arbitrary bytes: it must return a value or an error, never panic. Seeded in CI with the
//! committed corpus objects (`fuzz/run.sh`), so libFuzzer mutates real code objects.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(co) = wavejit_runtime::code_object::load(data, None) {
        // Walk what the loader returned, as the runtime would.
        for k in &co.kernels {
            let _ = co.code_at(k.entry);
            let _ = co.code_end(k.entry);
        }
    }
});
