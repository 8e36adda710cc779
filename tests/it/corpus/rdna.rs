//! The RDNA builds of the HIP corpus (`tests/kernels/<target>/`), for the RDNA status test:
//! not bundled in the binary, so included here.

macro_rules! rdna_objects {
    ($($name:literal),* $(,)?) => {
        /// (target, object name, code object) for every RDNA build.
        const OBJECTS: &[(&str, &str, &[u8])] = &[$(
            ("gfx1100", $name, include_bytes!(concat!("../../kernels/gfx1100/", $name, ".hsaco"))),
            ("gfx1100w64", $name, include_bytes!(concat!("../../kernels/gfx1100w64/", $name, ".hsaco"))),
            ("gfx1200", $name, include_bytes!(concat!("../../kernels/gfx1200/", $name, ".hsaco"))),
            ("gfx1200w64", $name, include_bytes!(concat!("../../kernels/gfx1200w64/", $name, ".hsaco"))),
            ("gfx1201", $name, include_bytes!(concat!("../../kernels/gfx1201/", $name, ".hsaco"))),
        )*];
    };
}
rdna_objects!(
    "alu_fma",
    "atomics",
    "barrier_loop",
    "control",
    "dynlds",
    "floatmath",
    "indexing",
    "intops",
    "memwidth",
    "reduce",
    "scan",
    "scratch",
    "vadd"
);

/// The RDNA targets with corpus builds (`w64` = compiled with `-mwavefrontsize64`).
pub const TARGETS: &[&str] = &["gfx1100", "gfx1100w64", "gfx1200", "gfx1200w64", "gfx1201"];

/// The `target` build of the corpus object `name`, if there is one.
pub fn object(target: &str, name: &str) -> Option<&'static [u8]> {
    OBJECTS
        .iter()
        .find(|(t, n, _)| *t == target && *n == name)
        .map(|(_, _, b)| *b)
}
