//! Profiles, the cycle estimate, `wavejit compare` and Ctrl-C, through the command line.
//!
//! * `tests/kernels/src/asm/profile_counts.s` has counts known by construction (a loop of
//!   `n` trips, a branch with 20 active lanes, a branch no lane takes); its profile must
//!   give exactly those, identically for both engines and 1 or 2 host threads, with a
//!   summed count equal to the launch's `--stats` wave-instruction counter, and the
//!   estimate must equal the sums worked by hand below from the documented constants.
//! * The HIP `vadd` (`if (i < n) c[i] = a[i] + b[i]`) stores exactly `n` lanes: the store's
//!   active lanes and bytes, on gfx942 (wave64) and gfx1100 (wave32 and wave64).
//! * `compare` exits 0 without a regression, 1 with one, 2 on files it cannot compare.
//! * Ctrl-C (SIGINT) stops a long launch after its running work-groups: exit status 130, and
//!   the stats and profile files still written, marked interrupted, with whole work-groups'
//!   counts.

use crate::common::{kernels_dir, wavejit};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(test: &str) -> PathBuf {
    crate::common::scratch("profile", test)
}

fn ok(o: Output, what: &str) -> Output {
    assert!(
        o.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The row of the instruction at offset `pc`.
fn inst(prof: &Value, pc: i64) -> &Value {
    prof["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["pc"].as_i64() == Some(pc))
        .unwrap_or_else(|| panic!("no instruction at +{pc:#x}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

const GROUPS: u64 = 4;
const WAVES: u64 = GROUPS * 2;
const TRIPS: u64 = 100;

/// Per wave of `profile_counts` (see its listing): (offset, executions, active lanes per
/// execution, bytes per execution). Bytes: scalar loads their size, the LDS and global
/// dword stores 4 bytes × 64 lanes.
fn expected(n: u64) -> Vec<(i64, u64, u64, u64)> {
    let mut v = vec![
        (0x00, 1, 64, 8), // s_load_dwordx2
        (0x08, 1, 64, 4), // s_load_dword
    ];
    for pc in [
        0x10, 0x18, 0x20, 0x24, 0x28, 0x2c, 0x30, 0x34, 0x3c, 0x44, 0x48,
    ] {
        v.push((pc, 1, 64, 0));
    }
    for pc in [0x4c, 0x50, 0x54, 0x58] {
        v.push((pc, n, 64, 0)); // the loop
    }
    v.extend([
        (0x5c, 1, 64, 0), // v_cmp_gt_u32
        (0x60, 1, 64, 0), // s_and_saveexec_b64
        (0x64, 1, 20, 0), // s_cbranch_execz, EXEC = lanes 0..19
        (0x68, 1, 20, 0), // v_add_u32
        (0x70, 1, 20, 0), // v_exp_f32
        (0x74, 1, 20, 0), // s_or_b64 exec
        (0x78, 1, 64, 0), // v_cmp_lt_u32
        (0x7c, 1, 64, 0), // s_and_saveexec_b64
        (0x80, 1, 0, 0),  // s_cbranch_execz, EXEC = 0: taken
        (0x84, 0, 0, 0),  // v_add_u32: never runs
        (0x88, 1, 0, 0),  // s_or_b64 exec
        (0x8c, 1, 64, 0),
        (0x90, 1, 64, 256), // ds_write_b32
        (0x98, 1, 64, 0),
        (0x9c, 1, 64, 0),
        (0xa0, 1, 64, 256), // global_store_dword
        (0xa8, 1, 64, 0),   // s_endpgm
    ]);
    v
}

/// Runs `profile_counts` for `target` with `n` loop trips; returns (profile, stats, output).
fn run_counts(
    dir: &Path,
    target: &str,
    engine: &str,
    threads: &str,
    n: u64,
    profile: bool,
) -> (Option<Value>, Value, Vec<u8>) {
    let obj = kernels_dir().join(format!("asm/{target}/profile_counts.hsaco"));
    let tag = format!("{target}-{engine}-{threads}-{n}-{profile}");
    let (p, st, out) = (
        dir.join(format!("{tag}.json")),
        dir.join(format!("{tag}.stats.json")),
        dir.join(format!("{tag}.bin")),
    );
    let outarg = format!("out={}:{}", s(&out), GROUPS * 128 * 4);
    let nn = format!("u32={n}");
    let grid = GROUPS.to_string();
    let mut args = vec![
        "run",
        s(&obj),
        "--grid",
        &grid,
        "--block",
        "128",
        "--engine",
        engine,
        "--threads",
        threads,
        "--stats",
        s(&st),
    ];
    if profile {
        args.extend(["--profile", s(&p)]);
    }
    args.extend([outarg.as_str(), nn.as_str()]);
    ok(wavejit(&args), &tag);
    (
        profile.then(|| json(&p)),
        json(&st),
        std::fs::read(&out).unwrap(),
    )
}

#[test]
fn profile_counts_are_known_by_construction_and_engine_independent() {
    let dir = scratch("counts");
    for target in ["gfx942", "gfx950"] {
        let mut first: Option<Value> = None;
        for (engine, threads) in [("jit", "1"), ("jit", "2"), ("interp", "1"), ("interp", "2")] {
            let (prof, stats, out) = run_counts(&dir, target, engine, threads, TRIPS, true);
            let prof = prof.unwrap();
            let ctx = format!("{target} {engine} {threads} threads");
            // The kernel's results: out[gid] = n * lane + (lane < 20 ? 1000 : 0).
            for (gid, w) in out.chunks(4).enumerate() {
                let lane = (gid % 64) as u32;
                let want = TRIPS as u32 * lane + if lane < 20 { 1000 } else { 0 };
                assert_eq!(
                    u32::from_le_bytes(w.try_into().unwrap()),
                    want,
                    "{ctx} gid {gid}"
                );
            }
            // A launch without profiling gives the same results and counters.
            let (_, plain_stats, plain_out) =
                run_counts(&dir, target, engine, threads, TRIPS, false);
            assert_eq!(plain_out, out, "{ctx}: results differ when profiled");
            assert_eq!(plain_stats["counters"], stats["counters"], "{ctx}");

            assert_eq!(prof["version"], 1);
            assert_eq!(prof["kernel"], "profile_counts");
            assert_eq!(prof["target"], target);
            assert_eq!(prof["wave_size"], 64);
            assert_eq!(u(&prof["waves"]), WAVES);
            assert_eq!(prof["interrupted"], false);
            let rows = expected(TRIPS);
            assert_eq!(
                prof["instructions"].as_array().unwrap().len(),
                rows.len(),
                "{ctx}"
            );
            for (pc, count, lanes, bytes) in rows {
                let i = inst(&prof, pc);
                assert_eq!(
                    u(&i["count"]),
                    WAVES * count,
                    "{ctx} +{pc:#x} {}",
                    i["text"]
                );
                assert_eq!(
                    u(&i["active_lanes"]),
                    WAVES * count * lanes,
                    "{ctx} +{pc:#x} {}",
                    i["text"]
                );
                assert_eq!(u(&i["bytes"]), WAVES * count * bytes, "{ctx} +{pc:#x}");
            }
            assert!(inst(&prof, 0x70)["text"]
                .as_str()
                .unwrap()
                .starts_with("v_exp_f32"));
            // The summed counts are the launch's wave-instruction counter.
            let total: u64 = prof["instructions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| u(&i["count"]))
                .sum();
            let c = &stats["counters"];
            let classes: u64 = ["salu", "valu", "smem", "vmem", "lds", "control", "matrix"]
                .iter()
                .map(|k| u(&c[*k]))
                .sum();
            assert_eq!(total, classes, "{ctx}");
            assert_eq!(total, WAVES * (29 + 4 * TRIPS), "{ctx}");
            // Static basic blocks: (offset, end, instructions, entries per wave).
            let blocks: Vec<(i64, i64, u64, u64)> = prof["blocks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| {
                    (
                        b["pc"].as_i64().unwrap(),
                        b["end"].as_i64().unwrap(),
                        u(&b["insts"]),
                        u(&b["count"]) / WAVES,
                    )
                })
                .collect();
            assert_eq!(
                blocks,
                vec![
                    (0x00, 0x4c, 13, 1),
                    (0x4c, 0x5c, 4, TRIPS),
                    (0x5c, 0x68, 3, 1),
                    (0x68, 0x74, 2, 1),
                    (0x74, 0x84, 4, 1),
                    (0x84, 0x88, 1, 0),
                    (0x88, 0xac, 7, 1),
                ],
                "{ctx}"
            );
            // The estimate, worked by hand from docs/profiling.md's CDNA constants: every
            // instruction issues in 4 cycles (one pass of a wave64 on a 16-lane SIMD; f64
            // at the f32 rate; the dword store one pass; the LDS dword write 256 bytes at
            // 128 per clock, below the 4-cycle slot) except v_exp_f32 (quarter rate: 16)
            // and v_mfma_f32_16x16x16_f16 (16 cycles): 4 (27 + 4n) + 2 × 16 per wave.
            let e = &prof["estimate"];
            assert_eq!(
                u(&e["issue_cycles"]),
                WAVES * (4 * (27 + 4 * TRIPS) + 32),
                "{ctx}"
            );
            // Latencies: SMEM 64 (2), VALU 8 (12 + n), transcendental 16, f64 8, MFMA 16,
            // SALU 4 (6 + 2n), control 4 (4 + n), LDS 64, VMEM 500.
            let lat = 2 * 64
                + 8 * (12 + TRIPS)
                + 16
                + 8
                + 16
                + 4 * (6 + 2 * TRIPS)
                + 4 * (4 + TRIPS)
                + 64
                + 500;
            assert_eq!(u(&e["latency_cycles"]), WAVES * lat, "{ctx}");
            assert_eq!(u(&e["issue_cycles_by_class"]["trans"]), WAVES * 16, "{ctx}");
            assert_eq!(
                u(&e["issue_cycles_by_class"]["matrix"]),
                WAVES * 16,
                "{ctx}"
            );
            assert_eq!(
                e["issue_cycles_per_wave"].as_f64().unwrap(),
                (4 * (27 + 4 * TRIPS) + 32) as f64,
                "{ctx}"
            );
            // Identical across engines and thread counts.
            match &first {
                None => first = Some(prof),
                Some(f) => assert_eq!(f, &prof, "{ctx} differs from the first run"),
            }
        }
    }
}

#[test]
fn vadd_store_lanes_and_bytes_are_n() {
    let dir = scratch("vadd");
    let n: usize = 1000; // not a multiple of the block: the last group is partly masked
    let a: Vec<u8> = (0..n)
        .flat_map(|i| (i as f32 * 0.5).to_le_bytes())
        .collect();
    let b: Vec<u8> = (0..n)
        .flat_map(|i| (7.0 - i as f32).to_le_bytes())
        .collect();
    let (pa, pb) = (dir.join("a.bin"), dir.join("b.bin"));
    std::fs::write(&pa, &a).unwrap();
    std::fs::write(&pb, &b).unwrap();
    for (target, wave) in [("gfx942", 64), ("gfx1100", 32), ("gfx1100w64", 64)] {
        let obj = kernels_dir().join(format!("{target}/vadd.hsaco"));
        let mut first: Option<Value> = None;
        for (engine, threads) in [("jit", "2"), ("interp", "1")] {
            let (p, c) = (
                dir.join(format!("{target}-{engine}.json")),
                dir.join("c.bin"),
            );
            let (ina, inb, outc) = (
                format!("in={}", s(&pa)),
                format!("in={}", s(&pb)),
                format!("out={}:{}", s(&c), 4 * 1024),
            );
            ok(
                wavejit(&[
                    "run",
                    s(&obj),
                    "--kernel",
                    "vadd",
                    "--grid",
                    "4",
                    "--block",
                    "256",
                    "--engine",
                    engine,
                    "--threads",
                    threads,
                    "--profile",
                    s(&p),
                    &ina,
                    &inb,
                    &outc,
                    "i32=1000",
                ]),
                target,
            );
            let prof = json(&p);
            assert_eq!(u(&prof["wave_size"]), wave);
            let stores: Vec<&Value> = prof["instructions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|i| i["text"].as_str().unwrap().starts_with("global_store"))
                .collect();
            assert_eq!(stores.len(), 1, "{target}");
            assert_eq!(u(&stores[0]["active_lanes"]), n as u64, "{target}");
            assert_eq!(u(&stores[0]["bytes"]), 4 * n as u64, "{target}");
            let loads: u64 = prof["instructions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|i| i["text"].as_str().unwrap().starts_with("global_load"))
                .map(|i| u(&i["bytes"]))
                .sum();
            assert_eq!(loads, 2 * 4 * n as u64, "{target}");
            match &first {
                None => first = Some(prof),
                Some(f) => assert_eq!(f, &prof, "{target} {engine}"),
            }
        }
    }
}

/// `wavejit compare` with `extra` arguments; its exit status and stdout+stderr.
fn compare(old: &Path, new: &Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["compare", s(old), s(new)];
    args.extend(extra);
    let o = wavejit(&args);
    (
        o.status.code().unwrap(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

#[test]
fn compare_gates_on_regressions() {
    let dir = scratch("compare");
    // Baseline: 100 loop trips; "regressed": 110 (10% more loop work).
    let (p100, s100) = (
        dir.join("gfx942-jit-1-100-true.json"),
        dir.join("gfx942-jit-1-100-true.stats.json"),
    );
    let (p110, s110) = (
        dir.join("gfx942-jit-1-110-true.json"),
        dir.join("gfx942-jit-1-110-true.stats.json"),
    );
    run_counts(&dir, "gfx942", "jit", "1", 100, true);
    run_counts(&dir, "gfx942", "jit", "1", 110, true);
    for (old, new) in [(&p100, &p110), (&s100, &s110)] {
        let (code, out) = compare(old, old, &["--max-regress", "0"]);
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("no regression"), "{out}");
        let (code, out) = compare(old, new, &["--max-regress", "5"]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("REGRESSION"), "{out}");
        let (code, out) = compare(old, new, &["--max-regress", "50"]);
        assert_eq!(code, 0, "{out}");
        // The other way round it is an improvement.
        let (code, out) = compare(new, old, &["--max-regress", "0"]);
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("better"), "{out}");
    }
    // The hot loop block is named.
    let (_, out) = compare(&p100, &p110, &[]);
    assert!(out.contains("block +0x4c cycles"), "{out}");
    // Schema mismatches exit 2 with a message.
    let mut v = json(&p100);
    v["version"] = 2.into();
    let bad = dir.join("v2.json");
    std::fs::write(&bad, v.to_string()).unwrap();
    let (code, out) = compare(&p100, &bad, &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("schema mismatch"), "{out}");
    let (code, out) = compare(&p100, &s100, &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("cannot compare a profile with a stats report"),
        "{out}"
    );
    // Bench tables: rows by key, times lower and rates higher is better.
    let bench = |ns: f64, rate: f64| {
        serde_json::json!({"rows": [{"name": "vadd", "median_ns": ns, "elems_per_s": rate, "samples": 5}]})
            .to_string()
    };
    let (b1, b2, b3) = (
        dir.join("b1.json"),
        dir.join("b2.json"),
        dir.join("b3.json"),
    );
    std::fs::write(&b1, bench(100.0, 1e9)).unwrap();
    std::fs::write(&b2, bench(120.0, 1e9)).unwrap();
    std::fs::write(&b3, bench(100.0, 0.8e9)).unwrap();
    assert_eq!(compare(&b1, &b2, &["--max-regress", "10"]).0, 1);
    assert_eq!(compare(&b1, &b3, &["--max-regress", "10"]).0, 1);
    assert_eq!(compare(&b1, &b1, &["--max-regress", "0"]).0, 0);
    assert_eq!(compare(&b2, &b1, &["--max-regress", "0"]).0, 0);
}

#[test]
fn profile_views_print_hot_blocks_and_write_html() {
    let dir = scratch("views");
    run_counts(&dir, "gfx942", "jit", "1", TRIPS, true);
    let p = dir.join(format!("gfx942-jit-1-{TRIPS}-true.json"));
    let html = dir.join("report.html");
    let o = ok(
        wavejit(&["profile", s(&p), "--top", "2", "--html", s(&html)]),
        "profile",
    );
    let text = String::from_utf8_lossy(&o.stdout);
    // The loop is the hottest block; its branch is listed with its count.
    let hot = text.split("\nblock ").nth(1).unwrap();
    assert!(hot.starts_with("+0x4c..+0x5c"), "{text}");
    assert!(hot.contains(&format!("{}", WAVES * TRIPS)), "{text}");
    assert!(hot.contains("s_cbranch_scc1 65532 -> +0x4c"), "{text}");
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(h.starts_with("<!DOCTYPE html>"));
    assert!(h.contains("v_exp_f32"));
    assert!(h.contains("class=\"bar\""));
    assert!(!h.contains("http://") && !h.contains("https://") && !h.contains("<script"));
    // Profiling a code object directly gives the same profile.
    let obj = kernels_dir().join("asm/gfx942/profile_counts.hsaco");
    let (j, out) = (dir.join("direct.json"), dir.join("direct.bin"));
    let outarg = format!("out={}:{}", s(&out), GROUPS * 128 * 4);
    ok(
        wavejit(&[
            "profile",
            s(&obj),
            "--grid",
            "4",
            "--block",
            "128",
            "--json",
            s(&j),
            &outarg,
            &format!("u32={TRIPS}"),
        ]),
        "profile a code object",
    );
    assert_eq!(json(&j), json(&p));
    // A file that is neither gives a clear error.
    let o = wavejit(&["profile", s(&obj)]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--grid"));
}

#[test]
fn ctrl_c_stops_after_running_workgroups_and_reports() {
    let dir = scratch("sigint");
    let obj = kernels_dir().join("asm/gfx942/profile_counts.hsaco");
    let (p, st, out) = (dir.join("p.json"), dir.join("s.json"), dir.join("o.bin"));
    let groups: u64 = 20_000;
    let trips: u64 = 20_000;
    let outarg = format!("out={}:{}", s(&out), groups * 128 * 4);
    let (grid, n) = (groups.to_string(), format!("u32={trips}"));
    let args: [&str; 14] = [
        "run",
        s(&obj),
        "--grid",
        &grid,
        "--block",
        "128",
        "--threads",
        "2",
        "--stats",
        s(&st),
        "--profile",
        s(&p),
        &outarg,
        &n,
    ];
    let child = Command::new(env!("CARGO_BIN_EXE_wavejit"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    let k = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(k.success());
    let t0 = std::time::Instant::now();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    // stderr is a pipe here: no progress line.
    assert!(!err.contains("/20000 workgroups"), "{err}");
    // It stopped soon (the running work-groups only), not after the whole grid.
    assert!(t0.elapsed().as_secs() < 60);
    let (prof, stats) = (json(&p), json(&st));
    assert_eq!(stats["interrupted"], true);
    assert_eq!(prof["interrupted"], true);
    let done = u(&stats["workgroups"]);
    assert!(done >= 1 && done < groups, "{done} workgroups");
    assert_eq!(u(&prof["workgroups"]), done);
    // Whole work-groups: each wave ran all 29 + 4n instructions.
    let total: u64 = prof["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| u(&i["count"]))
        .sum();
    assert_eq!(total, done * 2 * (29 + 4 * trips));
    // A partial run is not a baseline.
    let (code, msg) = compare(&p, &p, &[]);
    assert_eq!(code, 2, "{msg}");
    assert!(msg.contains("interrupted"), "{msg}");
}

#[test]
fn progress_line_on_a_terminal() {
    // `script` (util-linux) runs the command on a pseudo-terminal and copies what it wrote.
    // The launch must outlast the progress line's quiet start (0.5 s) by several ticks on a
    // fast host: 3.2 G wave instructions take seconds (100 k trips took 0.48 s, too short
    // to draw a line).
    let dir = scratch("progress");
    let obj = kernels_dir().join("asm/gfx942/profile_counts.hsaco");
    let out = dir.join("o.bin");
    let cmd = format!(
        "{} run {} --grid 400 --block 128 --threads 2 out={}:{} u32=1000000",
        env!("CARGO_BIN_EXE_wavejit"),
        s(&obj),
        s(&out),
        400 * 128 * 4
    );
    let o = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .expect("script (util-linux) runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}");
    // At least one redraw: `\r\x1b[2KN/400 workgroups (P%), R/s, T s left`.
    let line = text
        .split("\r\x1b[2K")
        .find(|l| l.contains("/400 workgroups ("))
        .unwrap_or_else(|| panic!("no progress line in {text:?}"));
    assert!(line.contains("/s, ") && line.contains(" left"), "{line:?}");
    assert!(
        text.contains("profile_counts (jit): 400 workgroups"),
        "{text}"
    );
}
