//! Differential fuzzing of the interpreter against the JIT on random gfx942 and gfx950
//! instruction programs (`wavejit_translator::difffuzz`): a deterministic bounded run of at
//! least one million executed wave instructions. Any difference in exit, fault, wave state or
//! memory fails with the seed, the shrunk program and the first differing register.
//! Long runs: `cargo run -p wavejit-translator --release --example engine_fuzz -- --seconds N`.

use wavejit_translator::difffuzz::Fuzzer;
use wavejit_translator::isa::Gpu;

/// Executed wave instructions required per target.
const PER_TARGET: u64 = 500_000;

#[test]
fn engines_agree_on_random_programs() {
    let t0 = std::time::Instant::now();
    let mut total = 0;
    let mut failures = Vec::new();
    for (gpu, base) in [(Gpu::GFX942, 0x9420_0000u64), (Gpu::GFX950, 0x9500_0000)] {
        let mut f = Fuzzer::new(gpu);
        assert!(
            f.pool.decode_mismatches.is_empty(),
            "generated words that do not decode back:\n{}",
            f.pool.decode_mismatches.join("\n")
        );
        assert!(
            f.pool.cands.len() > 500,
            "only {} opcodes",
            f.pool.cands.len()
        );
        let mut seed = base;
        while f.totals.insts < PER_TARGET {
            if let Err(finding) = f.run_program(seed) {
                eprintln!("{finding}");
                failures.push(finding);
                if failures.len() >= 5 {
                    break;
                }
            }
            seed += 1;
        }
        assert!(
            f.pool.decode_mismatches.is_empty(),
            "generated words that do not decode back:\n{}",
            f.pool.decode_mismatches.join("\n")
        );
        let t = &f.totals;
        eprintln!(
            "{gpu}: {} opcodes, {} programs ({} workgroups), {} instructions executed, {} blocks, {} ended in a fault",
            f.pool.cands.len(),
            t.programs,
            t.workgroups,
            t.insts,
            t.blocks,
            t.faults
        );
        eprintln!("  {} distinct opcodes generated; by form:", t.opcodes.len());
        for (k, n) in &t.forms {
            eprintln!("  {n:>6} {k}");
        }
        eprintln!("  faults:");
        for (k, n) in &t.fault_kinds {
            eprintln!("  {n:>6} {k}");
        }
        // Every encoding family is exercised, with DPP and SDWA forms.
        for form in [
            "Sop1",
            "Sop2",
            "Sopk",
            "Sopc",
            "Sopp",
            "Smem",
            "Vop1",
            "Vop2",
            "Vopc",
            "Vop3",
            "Vop3b",
            "Vop3p",
            "Vop2 dpp",
            "Vop2 sdwa",
            "Vop1 dpp",
            "Vopc sdwa",
            "Ds",
            "Flat",
            "Global",
            "Scratch",
            "Mubuf",
            "Mtbuf",
            "Mai",
        ] {
            assert!(
                t.forms.get(form).copied().unwrap_or(0) > 10,
                "few {form} instructions"
            );
        }
        assert!(t.opcodes.len() > 700, "only {} opcodes", t.opcodes.len());
        assert!(t.workgroups > 10, "{} multi-wave programs", t.workgroups);
        let newbcast = t.forms.get("dpp row_newbcast").copied().unwrap_or(0);
        assert!(newbcast > 3, "{newbcast} DPP row_newbcast instructions");
        // Matrix instructions, typed buffers and calls are generated.
        let count = |p: &str| t.opcodes.iter().filter(|o| o.name().starts_with(p)).count();
        assert!(count("v_mfma_") > 20, "{} MFMA opcodes", count("v_mfma_"));
        assert!(
            count("v_smfmac_") > 5,
            "{} SMFMAC opcodes",
            count("v_smfmac_")
        );
        assert!(count("tbuffer_") > 8, "{} MTBUF opcodes", count("tbuffer_"));
        assert!(count("buffer_load_format_") > 3);
        assert!(count("s_call_b64") == 1 && count("s_swappc_b64") == 1);
        assert!(count("s_cbranch_i_fork") == 1 && count("s_cbranch_g_fork") == 1);
        // The six s_scratch_* opcodes are ordinary random SMEM picks (~4 each per run), so
        // one may be missing whenever the pool, and with it the random stream, changes.
        let (join, sscratch) = (count("s_cbranch_join"), count("s_scratch_"));
        assert!(
            join == 1 && sscratch >= 5,
            "{join} s_cbranch_join, {sscratch} s_scratch_* opcodes"
        );
        if gpu == Gpu::GFX950 {
            assert!(count("v_permlane16_swap") == 1 && count("v_permlane32_swap") == 1);
            // The stochastic-rounding scaled conversions: to FP8/BF8 from f32/f16/bf16 (6),
            // to FP4 (3) and FP6/BF6 (6). Ordinary random VOP3 picks (a few each per run), so
            // which ones appear moves with the pool and its random stream; most must.
            let sr = count("v_cvt_scalef32_sr_");
            assert!(sr >= 12, "{sr} of 15 v_cvt_scalef32_sr_* opcodes");
        }
        // Layout sanity: every branch and computed jump lands on an instruction, loops end.
        for (k, n) in &t.fault_kinds {
            assert!(
                !(k.starts_with("unsupported cannot") || k == "bad jump" || k == "runaway"),
                "{n} programs ended with {k}"
            );
        }
        total += t.insts;
    }
    assert!(failures.is_empty(), "{} engine differences", failures.len());
    assert!(total >= 1_000_000, "only {total} instructions");
    eprintln!(
        "{total} instructions executed in both engines in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

/// The comparison cannot pass vacuously: a one-bit change in the JIT's register file, memory
/// or exit is reported, naming the register and lane (or byte).
#[test]
fn differences_are_detected() {
    use wavejit_translator::difffuzz::gen::{Code, CODE_BASE};
    use wavejit_translator::difffuzz::{first_diff, random_env, random_state, run_engine, Rng};
    use wavejit_translator::exec::EngineKind;
    use wavejit_translator::isa::Target;
    let target = Target::new(Gpu::GFX942);
    // v_add_f32_e32 v2, v6, v7 (notes/cdna.md §3.4); s_endpgm.
    let code = Code(
        [0x0204_0F06u32, 0xBF81_0000]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect(),
    );
    let mut rng = Rng(7);
    let mut s0 = random_state(&mut rng, 0x3F0);
    s0.set_exec(u64::MAX);
    s0.pc = CODE_BASE;
    let env = random_env(&mut rng);
    let a = run_engine(&target, &code, &s0, &env, EngineKind::Interp, false);
    let mut b = run_engine(&target, &code, &s0, &env, EngineKind::Jit, false);
    assert_eq!(a.insts(), 2);
    assert_eq!(b.compiled, b.lifted);
    assert_eq!(first_diff(&a, &b), None);
    let c = run_engine(&target, &code, &s0, &env, EngineKind::Jit, true);
    assert_eq!(first_diff(&a, &c), None);
    // The add happened: lane 5 of v2 is the f32 sum of v6 and v7 (unless NaN or denormal).
    let (x, y) = (f32::from_bits(s0.vgpr[6][5]), f32::from_bits(s0.vgpr[7][5]));
    let sum = x + y;
    if !sum.is_nan() && sum.is_normal() && x.is_normal() && y.is_normal() {
        assert_eq!(a.state.vgpr[2][5], sum.to_bits());
    }
    b.state.vgpr[2][5] ^= 1;
    let d = first_diff(&a, &b).expect("register difference");
    assert!(d.starts_with("v2 lane 5"), "{d}");
    b.state.vgpr[2][5] ^= 1;
    b.env.lds[0x123] ^= 0x80;
    let d = first_diff(&a, &b).expect("memory difference");
    assert!(d.starts_with("lds byte 0x123"), "{d}");
    b.env.lds[0x123] ^= 0x80;
    b.state.scc ^= 1;
    assert!(first_diff(&a, &b).expect("scc").starts_with("scc"));
    b.state.scc ^= 1;
    b.result = Err(wavejit_translator::env::ExecFault::Runaway(1));
    assert!(first_diff(&a, &b).expect("exit").starts_with("exit"));
}

/// gfx90a+ `row_newbcast:n` reads lane n of each row into the whole row (the control values
/// of RDNA's `row_share`). `v_mov_b32_dpp v0, v1 row_newbcast:1 row_mask:0xf bank_mask:0xf`
/// = fa02007e 015101ff (llvm-mc-22 -mcpu=gfx942); `v_add_f32_dpp v0, v1, v2 row_newbcast:15
/// row_mask:0x5 bank_mask:0xf` = fa040002 015f015f. Both engines.
#[test]
fn dpp_row_newbcast() {
    use wavejit_translator::difffuzz::gen::{Code, CODE_BASE};
    use wavejit_translator::difffuzz::{first_diff, random_env, random_state, run_engine, Rng};
    use wavejit_translator::exec::EngineKind;
    use wavejit_translator::isa::Target;
    let code = Code(
        [
            0x7E00_02FAu32,
            0xFF01_5101,
            0x0200_04FA,
            0x5F01_5F01,
            0xBF81_0000,
        ]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect(),
    );
    for gpu in [Gpu::GFX942, Gpu::GFX950] {
        let target = Target::new(gpu);
        let mut rng = Rng(11);
        let mut s0 = random_state(&mut rng, 0x3F0);
        // Every lane active but lane 33: it keeps v0; it is row 2's lane 1, the v_mov's
        // source there (an inactive source: row 2 keeps v0), but the v_add rewrites row 2.
        s0.set_exec(!(1u64 << 33));
        s0.pc = CODE_BASE;
        for l in 0..64 {
            s0.vgpr[1][l] = 0x3F80_0000 + 0x1000 * l as u32; // 1.0 + small steps
            s0.vgpr[2][l] = 0x4000_0000; // 2.0
            s0.vgpr[0][l] = 0xDEAD_0000 | l as u32;
        }
        let env = random_env(&mut rng);
        let a = run_engine(&target, &code, &s0, &env, EngineKind::Interp, false);
        let b = run_engine(&target, &code, &s0, &env, EngineKind::Jit, false);
        assert!(a.result.is_ok(), "{:?}", a.result);
        assert_eq!(first_diff(&a, &b), None);
        for l in 0..64 {
            let row = l & !15;
            let want = if l == 33 {
                0xDEAD_0000 | l as u32
            } else if (row / 16) % 2 == 0 {
                // row_mask 0x5: rows 0 and 2 get v1[row + 15] + 2.0.
                (f32::from_bits(s0.vgpr[1][row + 15]) + 2.0).to_bits()
            } else {
                // Rows 1 and 3 keep the v_mov's v1[row + 1].
                s0.vgpr[1][row + 1]
            };
            assert_eq!(a.state.vgpr[0][l], want, "{gpu} lane {l}");
        }
    }
}

/// gfx90a+ DPP on 64-bit operands (row_newbcast only) moves whole 64-bit lane values:
/// `v_mov_b64_dpp v[0:1], v[2:3] row_newbcast:4 row_mask:0xd bank_mask:0xf` = 7e0070fa
/// df015402, `v_cvt_f32_f64_dpp v8, v[2:3] row_newbcast:7 row_mask:0xf bank_mask:0xf` =
/// 7e101efa ff015702 (llvm-mc-22 -mcpu=gfx942). Lane 36 (row 2's lane 4) is inactive: the
/// v_mov leaves row 2 alone (an inactive source lane, no bound_ctrl). Both engines.
#[test]
fn dpp_row_newbcast_64bit() {
    use wavejit_translator::difffuzz::gen::{Code, CODE_BASE};
    use wavejit_translator::difffuzz::{first_diff, random_env, random_state, run_engine, Rng};
    use wavejit_translator::exec::EngineKind;
    use wavejit_translator::isa::Target;
    let code = Code(
        [
            0x7E00_70FAu32,
            0xDF01_5402,
            0x7E10_1EFA,
            0xFF01_5702,
            0xBF81_0000,
        ]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect(),
    );
    let target = Target::new(Gpu::GFX942);
    let mut rng = Rng(12);
    let mut s0 = random_state(&mut rng, 0x3F0);
    s0.set_exec(!(1u64 << 36));
    s0.pc = CODE_BASE;
    for l in 0..64 {
        // Distinct per lane, exact in f32.
        let d = (l as f64 * 1.5 - 20.25).to_bits();
        s0.vgpr[2][l] = d as u32;
        s0.vgpr[3][l] = (d >> 32) as u32;
    }
    let env = random_env(&mut rng);
    let a = run_engine(&target, &code, &s0, &env, EngineKind::Interp, false);
    let b = run_engine(&target, &code, &s0, &env, EngineKind::Jit, false);
    assert!(a.result.is_ok(), "{:?}", a.result);
    assert_eq!(first_diff(&a, &b), None);
    let pair = |s: &wavejit_translator::wave::WaveState, r: usize, l: usize| {
        u64::from(s.vgpr[r][l]) | u64::from(s.vgpr[r + 1][l]) << 32
    };
    for l in 0..64 {
        let row = l & !15;
        if l == 36 {
            assert_eq!(pair(&a.state, 0, l), pair(&s0, 0, l));
            assert_eq!(a.state.vgpr[8][l], s0.vgpr[8][l]);
            continue;
        }
        let want = if row == 16 || row == 32 {
            pair(&s0, 0, l)
        } else {
            pair(&s0, 2, row + 4)
        };
        assert_eq!(pair(&a.state, 0, l), want, "v[0:1] lane {l}");
        let x = f64::from_bits(pair(&s0, 2, row + 7));
        assert_eq!(a.state.vgpr[8][l], (x as f32).to_bits(), "v8 lane {l}");
    }
}

/// A workgroup run meets at barriers: two waves each store their lanes' values to their own
/// LDS region, pass `s_barrier`, and load the other wave's region, which they see written
/// (the store of the wave that runs second happens after the first wave's store but before
/// its load). Both engines. `ds_write_b32 v0, v1; s_barrier; ds_read_b32 v2, v3;
/// s_waitcnt lgkmcnt(0); s_endpgm` = d81a0000 00000100 bf8a0000 d86c0000 02000003 bf8cc07f
/// bf810000 (llvm-mc-22 -mcpu=gfx942).
#[test]
fn workgroup_waves_meet_at_barriers() {
    use wavejit_translator::difffuzz::gen::{Code, CODE_BASE};
    use wavejit_translator::difffuzz::{first_diff, random_env, random_state, run_waves, Rng};
    use wavejit_translator::exec::EngineKind;
    use wavejit_translator::isa::Target;
    let words = [
        0xD81A_0000u32,
        0x0000_0100,
        0xBF8A_0000,
        0xD86C_0000,
        0x0200_0003,
        0xBF8C_C07F,
        0xBF81_0000,
    ];
    let code = Code(words.iter().flat_map(|w| w.to_le_bytes()).collect());
    let target = Target::new(Gpu::GFX942);
    let mut rng = Rng(5);
    let mut waves = Vec::new();
    for w in 0..2u32 {
        let mut s = random_state(&mut rng, 0x3F0);
        s.set_exec(u64::MAX);
        s.pc = CODE_BASE;
        s.sgpr[124] = u32::MAX; // M0
        for l in 0..64u32 {
            s.vgpr[0][l as usize] = w * 256 + 4 * l; // own region
            s.vgpr[1][l as usize] = 0x5A00_0000 | w << 16 | l;
            s.vgpr[3][l as usize] = (1 - w) * 256 + 4 * l; // the other wave's
        }
        waves.push(s);
    }
    let env = random_env(&mut rng);
    let refs: Vec<&_> = waves.iter().map(|s| &**s).collect();
    let a = run_waves(&target, &code, &refs, &env, EngineKind::Interp, false);
    let b = run_waves(&target, &code, &refs, &env, EngineKind::Jit, false);
    assert_eq!(first_diff(&a, &b), None);
    let states = std::iter::once((&a.result, &a.state)).chain(a.others.iter().map(|(r, s)| (r, s)));
    for (w, (r, s)) in states.enumerate() {
        assert!(r.is_ok(), "wave {w}: {r:?}");
        for l in 0..64u32 {
            let other = 1 - w as u32;
            assert_eq!(
                s.vgpr[2][l as usize],
                0x5A00_0000 | other << 16 | l,
                "wave {w} lane {l}"
            );
        }
    }
}

/// The shrinker reduces a failing program to the instructions that matter: with a fake
/// difference injected for every program containing `v_add_f32`, the reported program is a
/// few instructions long, still contains it, and names the seed.
#[test]
fn findings_are_shrunk() {
    use wavejit_translator::isa::Op;
    let mut f = Fuzzer::new(Gpu::GFX942);
    f.inject = Some(Op::V_MUL_F32);
    let mut found = None;
    for seed in 0..200u64 {
        if let Err(e) = f.run_program(0xA000 + seed) {
            found = Some(e);
            break;
        }
    }
    let e = found.expect("some program contains v_mul_f32");
    let text = e.to_string();
    assert!(text.contains("injected difference at v_mul_f32"), "{text}");
    assert!(text.contains(&format!("{:#x}", e.seed)), "{text}");
    let lines = e.program.lines().count();
    assert!(e.program.contains("v_mul_f32"), "{text}");
    assert!(e.sizes.1 < e.sizes.0, "{text}");
    assert!(lines <= 4, "not shrunk ({lines} instructions):\n{text}");
}
