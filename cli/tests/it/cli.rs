//! Integration tests of the `wavejit` command line on the loader fixtures
//! (`runtime/tests/fixtures`, built with clang-22).

use crate::common::{fixture, wavejit};
use std::process::Output;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts failure with one `error: ...` paragraph mentioning `needle`, and no panic.
fn assert_fails(o: &Output, needle: &str) {
    let e = stderr(o);
    assert!(!o.status.success(), "unexpected success: {e}");
    assert!(e.starts_with("error: "), "stderr: {e}");
    assert!(e.contains(needle), "stderr lacks `{needle}`: {e}");
    assert!(!e.contains("panicked"), "stderr: {e}");
}

#[test]
fn argument_errors() {
    let f = fixture("vadd_gfx942_v6.hsaco");
    // clang usage errors (exit status 2).
    let o = wavejit(&["run", &f, "--block", "64"]);
    assert_fails(&o, "--grid");
    assert_eq!(o.status.code(), Some(2));
    assert_fails(
        &wavejit(&["run", &f, "--grid", "0", "--block", "64"]),
        "at least 1",
    );
    assert_fails(
        &wavejit(&["run", &f, "--grid", "1,2,3,4", "--block", "64"]),
        "X[,Y[,Z]]",
    );
    assert_fails(
        &wavejit(&[
            "run", &f, "--grid", "1", "--block", "64", "--engine", "fast",
        ]),
        "fast",
    );
    assert_fails(&wavejit(&["frobnicate"]), "frobnicate");
    // Our own errors (exit status 1).
    let o = wavejit(&[
        "run", &f, "--kernel", "vadd", "--grid", "1", "--block", "64", "q32=1",
    ]);
    assert_fails(&o, "unknown kind `q32`");
    assert_eq!(o.status.code(), Some(1));
    assert_fails(
        &wavejit(&["run", &f, "--grid", "1", "--block", "64", "i32=99999999999"]),
        "not a valid i32",
    );
    assert_fails(
        &wavejit(&["run", &f, "--grid", "1", "--block", "64"]),
        "choose one with --kernel: vadd, scale",
    );
    assert_fails(
        &wavejit(&[
            "run", &f, "--kernel", "nope", "--grid", "1", "--block", "64",
        ]),
        "no kernel named `nope`",
    );
    let missing = fixture("does_not_exist.hsaco");
    assert_fails(&wavejit(&["info", &missing]), "cannot read");
    assert_fails(
        &wavejit(&["disasm", &f, "--kernel", "nope"]),
        "kernels: vadd, scale",
    );
    // A non-ELF input is a load error, not a crash.
    assert_fails(
        &wavejit(&["info", &fixture("vadd.hip")]),
        "neither an ELF file nor a clang offload bundle",
    );
    assert_fails(
        &wavejit(&["info", &fixture("vadd_multi.bundle")]),
        "several AMDGPU device entries",
    );
}

#[test]
fn info_gfx942_v4() {
    let o = wavejit(&["info", &fixture("vadd_gfx942_v4.hsaco")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    // Values from llvm-readelf-22 -h/-s/--notes and the .rodata descriptor bytes.
    for want in [
        "target: amdgcn-amd-amdhsa--gfx942\n",
        "code object: v4\n",
        "kernels: 2\n",
        "kernel vadd\n",
        "  entry: 0x1800  descriptor: 0x780\n",
        "         0    8  global_buffer",
        "        24    4  by_value",
        "  kernarg size: 28 bytes (align 8)\n",
        "  registers: 14 SGPR, 8 VGPR, 0 AGPR\n",
        "  wave size: 64\n",
        // kernel code properties 0x0a (dispatch ptr, kernarg ptr), rsrc2 0x88 (4 user SGPRs, wg id x).
        "  user SGPRs: 4\n",
        // rsrc1 0x00af0040: bits 19:12 = 0xf0, IEEE_MODE (23) and DX10_CLAMP (21) set.
        "  initial mode: float mode 0xf0 (MODE[7:0]), ieee on, dx10 clamp on\n",
        "  SGPR inputs: s[0:1] dispatch_ptr, s[2:3] kernarg_segment_ptr, s4 workgroup_id_x\n",
        "kernel scale\n",
        "  SGPR inputs: s[0:1] kernarg_segment_ptr, s2 workgroup_id_x\n",
    ] {
        assert!(s.contains(want), "missing {want:?} in:\n{s}");
    }
}

#[test]
fn info_gfx1100_and_gfx1200_sgpr_layout() {
    let o = wavejit(&["info", &fixture("vadd_gfx1100.hsaco")]);
    let s = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    // rsrc2 0x9e: USER_SGPR_COUNT 15, so the workgroup id lands in s15 (the vadd code reads s15).
    assert!(s.contains("  user SGPRs: 15\n"), "{s}");
    assert!(
        s.contains("  SGPR inputs: s[0:1] kernarg_segment_ptr, s15 workgroup_id_x\n"),
        "{s}"
    );
    assert!(s.contains("  wave size: 32\n"), "{s}");
    assert!(s.contains("        32    4  hidden_block_count_x"), "{s}");
    let o = wavejit(&["info", &fixture("vadd_gfx1200.hsaco")]);
    let s = stdout(&o);
    // gfx12: the workgroup id is in ttmp9 (the vadd code reads ttmp9).
    assert!(
        s.contains("  SGPR inputs: s[0:1] kernarg_segment_ptr, ttmp9 workgroup_id_x\n"),
        "{s}"
    );
    assert!(s.contains("target: amdgcn-amd-amdhsa--gfx1200\n"), "{s}");
    // rsrc1 0xe00f0000: bits 19:12 = 0xf0; GFX12 has no IEEE/DX10 clamp bits.
    assert!(
        s.contains("  initial mode: float mode 0xf0 (MODE[7:0])\n"),
        "{s}"
    );
}

/// `llvm-objdump-22 -d --disassemble-symbols=scale vadd_gfx942_v6.hsaco`, verbatim up to
/// s_endpgm; after it llvm-objdump prints `s_nop 0` (BF800000) padding up to the end of
/// .text at 0x2080.
const SCALE_GFX942: &str = "
0000000000001c00 <scale>:
\ts_load_dwordx2 s[4:5], s[0:1], 0x8                         // 000000001C00: C0060100 00000008
\tv_lshl_add_u32 v0, s2, 6, v0                               // 000000001C08: D1FD0000 04010C02
\ts_waitcnt lgkmcnt(0)                                       // 000000001C10: BF8CC07F
\tv_cmp_gt_u32_e32 vcc, s5, v0                               // 000000001C14: 7D980005
\ts_and_saveexec_b64 s[2:3], vcc                             // 000000001C18: BE82206A
\ts_cbranch_execz 12                                         // 000000001C1C: BF88000C <scale+0x50>
\ts_load_dwordx2 s[0:1], s[0:1], 0x0                         // 000000001C20: C0060000 00000000
\tv_mov_b32_e32 v1, 0                                        // 000000001C28: 7E020280
\ts_waitcnt lgkmcnt(0)                                       // 000000001C2C: BF8CC07F
\tv_lshl_add_u64 v[0:1], v[0:1], 2, s[0:1]                   // 000000001C30: D2080000 00010500
\tglobal_load_dword v2, v[0:1], off                          // 000000001C38: DC508000 027F0000
\ts_waitcnt vmcnt(0)                                         // 000000001C40: BF8C0F70
\tv_mul_f32_e32 v2, s4, v2                                   // 000000001C44: 0A040404
\tglobal_store_dword v[0:1], v2, off                         // 000000001C48: DC708000 007F0200
\ts_endpgm                                                   // 000000001C50: BF810000
";

fn expected_scale_listing() -> String {
    let mut s = SCALE_GFX942.to_string();
    for pc in (0x1c54u64..0x2080).step_by(4) {
        s += &format!(
            "\ts_nop 0                                                    // {pc:012X}: BF800000\n"
        );
    }
    s
}

/// `(address, word)` pairs of a listing's `// ADDR: WORDS` comments, one per 4 bytes.
fn words(listing: &str) -> Vec<(u64, String)> {
    let mut v = Vec::new();
    for l in listing.lines().filter(|l| l.starts_with('\t')) {
        let c = &l[l.find("// ").expect("comment") + 3..];
        let (addr, rest) = c.split_once(": ").expect("ADDR: WORDS");
        assert_eq!(addr.len(), 12, "{l:?}");
        let addr = u64::from_str_radix(addr, 16).expect("hex address");
        for (i, w) in rest
            .split(' ')
            .take_while(|w| !w.starts_with('<'))
            .enumerate()
        {
            assert_eq!(w.len(), 8, "{l:?}");
            assert_eq!(w, w.to_uppercase(), "{l:?}");
            v.push((addr + 4 * i as u64, w.to_string()));
        }
    }
    v
}

#[test]
fn disasm_layout_addresses_and_words() {
    let o = wavejit(&[
        "disasm",
        &fixture("vadd_gfx942_v6.hsaco"),
        "--kernel",
        "scale",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let got = stdout(&o);
    let want = expected_scale_listing();
    // Header, and every word at its address (independent of how words group into
    // instructions, which the decoder decides).
    assert!(got.starts_with("\n0000000000001c00 <scale>:\n\t"), "{got}");
    assert_eq!(words(&got), words(&want));
    // Comment column: a tab, then the text padded to 59 columns.
    for l in got.lines().filter(|l| l.starts_with('\t')) {
        let c = l.find("// ").unwrap();
        assert!(c == 60 || l.as_bytes()[c - 1] != b' ', "{l:?}");
    }
}

#[test]
fn disasm_matches_llvm_objdump() {
    let o = wavejit(&[
        "disasm",
        &fixture("vadd_gfx942_v6.hsaco"),
        "--kernel",
        "scale",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), expected_scale_listing());
}

/// Hand-written assembly with local labels: `wavejit disasm` prints the label listings and
/// symbolised branches exactly as llvm-objdump-22 (its output, `kernarg0_gfx942_v5.objdump`,
/// is written by the fixtures' build.sh and checked in CI).
#[test]
fn disasm_symbolises_branches_like_llvm_objdump() {
    let o = wavejit(&["disasm", &fixture("kernarg0_gfx942_v5.hsaco")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = std::fs::read_to_string(fixture("kernarg0_gfx942_v5.objdump")).unwrap();
    assert_eq!(stdout(&o), want);
    // --kernel lists the kernel's code up to the next kernel, its labels included.
    let o = wavejit(&[
        "disasm",
        &fixture("kernarg0_gfx942_v5.hsaco"),
        "--kernel",
        "twice",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let start = want.find("\n0000000000001a00 <twice>:").unwrap();
    let end = want.find("\n0000000000001b00 <z_entry>:").unwrap();
    assert_eq!(stdout(&o), want[start..end]);
}

#[test]
fn disasm_lists_every_kernel_in_address_order() {
    let o = wavejit(&["disasm", &fixture("vadd_gfx942.bundle")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    let headers: Vec<&str> = s.lines().filter(|l| l.ends_with(">:")).collect();
    // llvm-objdump-22 -d: vadd at 0x1b00, scale at 0x1c00.
    assert_eq!(
        headers,
        vec!["0000000000001b00 <vadd>:", "0000000000001c00 <scale>:"]
    );
    // Together the listings cover .text (0x1b00..0x2080) word by word, without gaps.
    let addrs: Vec<u64> = words(&s).iter().map(|(a, _)| *a).collect();
    assert_eq!(addrs, (0x1b00u64..0x2080).step_by(4).collect::<Vec<_>>());
}

/// A scratch folder for one test's files.
fn scratch(test: &str) -> std::path::PathBuf {
    crate::common::scratch("cli", test)
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn run_vadd_gfx942_both_engines() {
    let d = scratch("vadd");
    let n = 200usize;
    let a: Vec<f32> = (0..256).map(|i| i as f32 * 0.5 + 0.25).collect();
    let b: Vec<f32> = (0..256).map(|i| 1000.0 - i as f32 * 3.0).collect();
    std::fs::write(d.join("a.bin"), f32s(&a)).unwrap();
    std::fs::write(d.join("b.bin"), f32s(&b)).unwrap();
    let mut counters = Vec::new();
    for engine in ["interp", "jit"] {
        let c = d.join(format!("c_{engine}.bin"));
        let stats = d.join(format!("stats_{engine}.json"));
        let o = wavejit(&[
            "run",
            &fixture("vadd_gfx942_v6.hsaco"),
            "--kernel",
            "vadd",
            "--grid",
            "4",
            "--block",
            "64",
            "--engine",
            engine,
            &format!("in={}", d.join("a.bin").display()),
            &format!("in={}", d.join("b.bin").display()),
            &format!("out={}:1024", c.display()),
            &format!("i32={n}"),
            // Options may follow the kernel arguments.
            "--stats",
            stats.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{engine}: {}", stderr(&o));
        let got = std::fs::read(&c).unwrap();
        assert_eq!(got.len(), 1024);
        for i in 0..256 {
            let w = &got[i * 4..i * 4 + 4];
            if i < n {
                // Host computation is the oracle.
                assert_eq!(w, (a[i] + b[i]).to_le_bytes(), "{engine} c[{i}]");
            } else {
                assert_eq!(w, [0xA5; 4], "{engine} c[{i}] must keep the poison");
            }
        }
        let json = std::fs::read_to_string(&stats).unwrap();
        assert!(json.contains("\"kernel\": \"vadd\""), "{json}");
        let start = json.find("\"counters\"").expect("counters");
        let end = json[start..].find('}').expect("end of counters") + start;
        counters.push(json[start..end].to_string());
    }
    // Counters are deterministic and identical for both engines.
    assert_eq!(counters[0], counters[1]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn run_scale_inout() {
    let d = scratch("scale");
    let x: Vec<f32> = (0..128).map(|i| i as f32 - 17.5).collect();
    std::fs::write(d.join("x.bin"), f32s(&x)).unwrap();
    let out = d.join("y.bin");
    let o = wavejit(&[
        "run",
        &fixture("vadd_gfx942_v6.hsaco"),
        "--kernel",
        "scale",
        "--grid",
        "2",
        "--block",
        "64",
        &format!("inout={}:{}", d.join("x.bin").display(), out.display()),
        "f32=-1.5",
        "u32=100",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let got = std::fs::read(&out).unwrap();
    for (i, xi) in x.iter().enumerate() {
        let want = if i < 100 { xi * -1.5 } else { *xi };
        assert_eq!(&got[i * 4..i * 4 + 4], want.to_le_bytes(), "y[{i}]");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn run_argument_mismatch_names_the_kernel() {
    // vadd takes (a, b, c, n): a missing argument is a usage error listing them.
    let o = wavejit(&[
        "run",
        &fixture("vadd_gfx942_v6.hsaco"),
        "--kernel",
        "vadd",
        "--grid",
        "1",
        "--block",
        "64",
        "i32=1",
    ]);
    assert_fails(&o, "vadd");
}

#[test]
fn run_fault_is_an_error_and_writes_nothing() {
    let d = scratch("fault");
    std::fs::write(d.join("a.bin"), f32s(&[1.0; 64])).unwrap();
    let c = d.join("c.bin");
    // 64 work-items store 4 bytes each into a 16-byte buffer: lane 4 is out of range.
    let o = wavejit(&[
        "run",
        &fixture("vadd_gfx942_v6.hsaco"),
        "--kernel",
        "vadd",
        "--grid",
        "1",
        "--block",
        "64",
        &format!("in={}", d.join("a.bin").display()),
        &format!("in={}", d.join("a.bin").display()),
        &format!("out={}:16", c.display()),
        "i32=64",
    ]);
    assert_fails(&o, "kernel vadd faulted");
    assert_eq!(o.status.code(), Some(1));
    assert!(!c.exists(), "no output is written after a fault");
    let missing = d.join("missing.bin");
    let o = wavejit(&[
        "run",
        &fixture("vadd_gfx942_v6.hsaco"),
        "--kernel",
        "vadd",
        "--grid",
        "1",
        "--block",
        "64",
        &format!("in={}", missing.display()),
    ]);
    assert_fails(&o, "cannot read");
    let _ = std::fs::remove_dir_all(&d);
}
