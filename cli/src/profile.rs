//! `wavejit profile`: the hottest blocks of a profile with their disassembly and counts, and
//! a self-contained HTML report (annotated disassembly with a heat column, a per-block bar
//! chart).

use super::compare::offset;
use super::run::{EngineArg, RunArgs};
use super::{io_err, read_file, CliError, CliResult};
use clap::Args;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wavejit::Profile;

/// `wavejit profile` options.
#[derive(Args, Debug)]
pub struct ProfileArgs {
    /// A profile (`wavejit run --profile`), or a code object to profile now (then --grid
    /// and --block are needed, as for `wavejit run`).
    pub input: PathBuf,
    /// How many of the hottest blocks to print.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Also write a self-contained HTML report here.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
    /// Profiling a code object: also write the profile JSON here.
    #[arg(long, value_name = "FILE.json")]
    pub json: Option<PathBuf>,
    /// Profiling a code object: the kernel.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Profiling a code object: workgroups per dimension.
    #[arg(long, value_parser = super::args::parse_dims)]
    pub grid: Option<[u32; 3]>,
    /// Profiling a code object: work-items per workgroup.
    #[arg(long, value_parser = super::args::parse_dims)]
    pub block: Option<[u32; 3]>,
    /// Profiling a code object: dynamic LDS bytes.
    #[arg(long, default_value_t = 0)]
    pub lds: u32,
    /// Profiling a code object: engine.
    #[arg(long, value_enum, default_value_t = EngineArg::Jit)]
    pub engine: EngineArg,
    /// Profiling a code object: host threads (0 = all).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Profiling a code object: kernel arguments, as for `wavejit run`.
    pub args: Vec<String>,
}

/// Reads a profile JSON, checking its version.
pub fn read_profile(path: &Path) -> CliResult<Profile> {
    let bytes = read_file(path)?;
    let v: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| CliError(format!("{}: not JSON: {e}", path.display())))?;
    let want = wavejit_runtime::profile::PROFILE_VERSION;
    match v.get("version").and_then(serde_json::Value::as_u64) {
        Some(n) if n == u64::from(want) => {}
        Some(n) => {
            return Err(CliError(format!(
                "{}: profile version {n}; this wavejit reads version {want}",
                path.display()
            )))
        }
        None => {
            return Err(CliError(format!(
                "{}: not a wavejit profile (no `version`)",
                path.display()
            )))
        }
    }
    serde_json::from_value(v).map_err(|e| {
        CliError(format!(
            "{}: not a version {want} profile: {e}",
            path.display()
        ))
    })
}

/// Runs the command. Profiling a code object that Ctrl-C interrupts still prints (and
/// writes) the partial profile, then exits with status 130.
pub fn profile(a: &ProfileArgs, out: &mut dyn Write) -> CliResult<ExitCode> {
    let head = read_file(&a.input)?;
    let is_json = head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    let ran = !is_json;
    let p = if is_json {
        read_profile(&a.input)?
    } else {
        let (Some(grid), Some(block)) = (a.grid, a.block) else {
            return Err(CliError(format!(
                "{} is not a profile JSON; to profile a code object give --grid and --block",
                a.input.display()
            )));
        };
        let ra = RunArgs {
            code_object: a.input.clone(),
            kernel: a.kernel.clone(),
            grid,
            block,
            lds: a.lds,
            engine: a.engine,
            threads: a.threads,
            stats: None,
            profile: None,
            args: a.args.clone(),
        };
        let report = super::run::launch(&ra, true)?;
        let p = report
            .profile
            .ok_or_else(|| CliError("the launch returned no profile".into()))?;
        if let Some(j) = &a.json {
            std::fs::write(j, p.to_json() + "\n")
                .map_err(|e| CliError(format!("cannot write {}: {e}", j.display())))?;
        }
        *p
    };
    out.write_all(text_report(&p, a.top).as_bytes())
        .map_err(io_err)?;
    if let Some(h) = &a.html {
        std::fs::write(h, html_report(&p))
            .map_err(|e| CliError(format!("cannot write {}: {e}", h.display())))?;
    }
    if ran && p.interrupted {
        return Ok(ExitCode::from(super::progress::INTERRUPTED_EXIT));
    }
    Ok(ExitCode::SUCCESS)
}

/// The instruction's text, with a direct branch's target offset appended (`s_cbranch_scc1
/// 65532 -> +0x4c`; LLVM prints the raw 16-bit word count).
fn annotated(i: &wavejit_runtime::profile::InstRow) -> String {
    let mut words = i.text.split_whitespace();
    let name = words.next().unwrap_or("");
    let branch = (name == "s_branch" || name.starts_with("s_cbranch_"))
        && !name.contains("fork")
        && !name.contains("join");
    match words.next().and_then(|w| w.parse::<u16>().ok()) {
        Some(simm) if branch => {
            let target = i.pc + 4 + 4 * i64::from(simm as i16);
            format!("{} -> {}", i.text, offset(target))
        }
        _ => i.text.clone(),
    }
}

fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// Blocks by issue cycles, hottest first (ties: by pc).
fn hottest(p: &Profile) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..p.blocks.len()).collect();
    idx.sort_by(|&a, &b| {
        p.blocks[b]
            .cycles
            .cmp(&p.blocks[a].cycles)
            .then(p.blocks[a].pc.cmp(&p.blocks[b].pc))
    });
    idx
}

/// The summary and the `top` hottest blocks with their instructions.
pub fn text_report(p: &Profile, top: usize) -> String {
    let e = &p.estimate;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "kernel {} ({}, wave{}): grid {:?}, block {:?}, {} workgroups, {} waves{}",
        p.kernel,
        p.target,
        p.wave_size,
        p.grid,
        p.block,
        p.workgroups,
        p.waves,
        if p.interrupted {
            " (interrupted: partial counts)"
        } else {
            ""
        }
    );
    let insts: u64 = p.instructions.iter().map(|i| i.count).sum();
    let _ = writeln!(
        s,
        "{insts} wave instructions; estimate ({}): {} issue cycles ({:.1} per wave), {} latency cycles ({:.1} per wave)",
        e.model, e.issue_cycles, e.issue_cycles_per_wave, e.latency_cycles, e.latency_cycles_per_wave
    );
    let mut classes: Vec<(&String, &u64)> = e.issue_cycles_by_class.iter().collect();
    classes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let list: Vec<String> = classes
        .iter()
        .map(|(k, v)| format!("{k} {v} ({:.1}%)", pct(**v, e.issue_cycles)))
        .collect();
    let _ = writeln!(s, "issue cycles by class: {}", list.join(", "));
    let order = hottest(p);
    let _ = writeln!(
        s,
        "\nhottest blocks ({} of {}, by issue cycles):",
        top.min(order.len()),
        order.len()
    );
    for &bi in order.iter().take(top) {
        let b = &p.blocks[bi];
        let _ = writeln!(
            s,
            "\nblock {}..{}: entered {} times, {} wave instructions, {} bytes, {} cycles ({:.1}%)",
            offset(b.pc),
            offset(b.end),
            b.count,
            b.wave_insts,
            b.bytes,
            b.cycles,
            pct(b.cycles, e.issue_cycles)
        );
        let _ = writeln!(
            s,
            "  {:>8} {:>12} {:>6} {:>12} {:>12}  instruction",
            "pc", "count", "lanes", "bytes", "cycles"
        );
        for i in p
            .instructions
            .iter()
            .filter(|i| i.pc >= b.pc && i.pc < b.end)
        {
            let lanes = if i.count == 0 {
                "-".to_string()
            } else {
                format!("{:.1}", i.active_lanes as f64 / i.count as f64)
            };
            let _ = writeln!(
                s,
                "  {:>8} {:>12} {:>6} {:>12} {:>12}  {}",
                offset(i.pc),
                i.count,
                lanes,
                i.bytes,
                i.cycles,
                annotated(i)
            );
        }
    }
    s
}

fn esc(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A self-contained HTML page: summary, a bar per block (issue cycles), and the annotated
/// disassembly with a heat column. No scripts, fonts or other external assets.
pub fn html_report(p: &Profile) -> String {
    let e = &p.estimate;
    let max_block = p.blocks.iter().map(|b| b.cycles).max().unwrap_or(0).max(1);
    let max_inst = p
        .instructions
        .iter()
        .map(|i| i.cycles)
        .max()
        .unwrap_or(0)
        .max(1);
    let mut h = String::new();
    let _ = write!(
        h,
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>wavejit profile: {k}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; color: #222; }}
h1 {{ font-size: 1.3em; }} h2 {{ font-size: 1.1em; margin-top: 1.5em; }}
table {{ border-collapse: collapse; font-size: 13px; }}
td, th {{ padding: 2px 8px; text-align: right; white-space: nowrap; }}
th {{ background: #eee; position: sticky; top: 0; }}
td.text {{ text-align: left; font-family: monospace; }}
td.heat {{ width: 70px; }}
tr.leader td {{ border-top: 2px solid #888; }}
.bar {{ display: inline-block; height: 12px; background: #d9480f; vertical-align: middle; }}
.muted {{ color: #999; }}
</style></head><body>
<h1>wavejit profile: {k}</h1>
<p>{t}, wave{w}; grid {g:?}, block {b:?}; {wg} workgroups, {wv} waves{int}.<br>
Estimate ({m}): <b>{ic}</b> issue cycles ({icw:.1} per wave), {lc} latency cycles ({lcw:.1} per wave).
The estimate compares versions of a kernel; it is not a simulator.</p>
<h2>Blocks by issue cycles</h2>
<table><tr><th>block</th><th>entered</th><th>wave insts</th><th>bytes</th><th>cycles</th><th>share</th><th style="text-align:left">issue cycles</th></tr>
"#,
        k = esc(&p.kernel),
        t = esc(&p.target),
        w = p.wave_size,
        g = p.grid,
        b = p.block,
        wg = p.workgroups,
        wv = p.waves,
        int = if p.interrupted {
            " <b>(interrupted: partial counts)</b>"
        } else {
            ""
        },
        m = esc(&e.model),
        ic = e.issue_cycles,
        icw = e.issue_cycles_per_wave,
        lc = e.latency_cycles,
        lcw = e.latency_cycles_per_wave,
    );
    for &bi in &hottest(p) {
        let b = &p.blocks[bi];
        let width = (300.0 * b.cycles as f64 / max_block as f64).round() as u32;
        let _ = writeln!(
            h,
            "<tr><td class=\"text\"><a href=\"#b{pc}\">{o}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}%</td><td style=\"text-align:left\"><span class=\"bar\" style=\"width:{width}px\"></span></td></tr>",
            b.count,
            b.wave_insts,
            b.bytes,
            b.cycles,
            pct(b.cycles, e.issue_cycles),
            pc = b.pc,
            o = offset(b.pc),
        );
    }
    h.push_str("</table>\n<h2>Annotated disassembly</h2>\n<table><tr><th>heat</th><th>pc</th><th>count</th><th>lanes/exec</th><th>bytes</th><th>cycles</th><th style=\"text-align:left\">instruction</th></tr>\n");
    let leaders: std::collections::BTreeSet<i64> = p.blocks.iter().map(|b| b.pc).collect();
    for i in &p.instructions {
        let heat = i.cycles as f64 / max_inst as f64;
        // White to deep orange as the instruction's share of the hottest grows.
        let (r, g, bl) = (
            255.0 - 38.0 * heat,
            255.0 - 183.0 * heat,
            255.0 - 240.0 * heat,
        );
        let lanes = if i.count == 0 {
            "-".to_string()
        } else {
            format!("{:.1}", i.active_lanes as f64 / i.count as f64)
        };
        let leader = leaders.contains(&i.pc);
        let _ = writeln!(
            h,
            "<tr{cls}{id}><td class=\"heat\" style=\"background:rgb({r:.0},{g:.0},{bl:.0})\" title=\"{share:.1}% of the hottest\"></td><td class=\"text\">{o}</td><td>{}</td><td>{lanes}</td><td>{}</td><td>{}</td><td class=\"text{muted}\">{}</td></tr>",
            i.count,
            i.bytes,
            i.cycles,
            esc(&annotated(i)),
            cls = if leader { " class=\"leader\"" } else { "" },
            id = if leader { format!(" id=\"b{}\"", i.pc) } else { String::new() },
            share = 100.0 * heat,
            o = offset(i.pc),
            muted = if i.count == 0 { " muted" } else { "" },
        );
    }
    h.push_str("</table>\n</body></html>\n");
    h
}
