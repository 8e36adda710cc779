//! `wavejit compare OLD.json NEW.json [--max-regress PCT]`: a CI gate over two runs.
//!
//! The kind of each file is detected from its fields: a profile (`version`,
//! `instructions`, `blocks`: `wavejit run --profile`), a launch report (`counters`:
//! `wavejit run --stats`) or a benchmark table (`rows`: `wavejit bench --json`). Both files
//! must be of the same kind and describe the same launch (kernel, target, geometry). Every
//! metric is compared; a metric that got worse by more than PCT percent is a regression.
//! Exit status: 0 none, 1 a regression, 2 files that cannot be compared (error message).

use super::{io_err, read_file, CliError};
use clap::Args;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit status when the files cannot be compared.
pub const MISMATCH_EXIT: u8 = 2;
/// Exit status when a metric regressed past the threshold.
pub const REGRESSION_EXIT: u8 = 1;
/// Hot blocks of a profile compared one by one.
const HOT_BLOCKS: usize = 10;

/// `wavejit compare` options.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The baseline (stats, profile or bench JSON).
    pub old: PathBuf,
    /// The new run, of the same kind.
    pub new: PathBuf,
    /// Largest allowed worsening of any metric, in percent.
    #[arg(long, default_value_t = 5.0, value_name = "PCT")]
    pub max_regress: f64,
}

/// Whether more or less of a metric is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    /// Counts, cycles, times.
    Lower,
    /// Rates.
    Higher,
}

/// One compared metric.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    /// What it is (`counters.valu`, `block +0x40 cycles`, `vadd 1M: ns`).
    pub name: String,
    /// Baseline value.
    pub old: f64,
    /// New value.
    pub new: f64,
    /// Direction.
    pub better: Better,
}

impl Metric {
    /// How much worse the new value is, in percent of the old (negative: better). A metric
    /// that appears from 0 is infinitely worse (lower-is-better) or better.
    pub fn worse_pct(&self) -> f64 {
        let d = match self.better {
            Better::Lower => self.new - self.old,
            Better::Higher => self.old - self.new,
        };
        if d == 0.0 {
            0.0
        } else if self.old == 0.0 {
            f64::INFINITY.copysign(d)
        } else {
            100.0 * d / self.old.abs()
        }
    }
}

/// The kinds of JSON `compare` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `wavejit run --profile`.
    Profile,
    /// `wavejit run --stats`.
    Stats,
    /// `wavejit bench --json`.
    Bench,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Profile => "profile",
            Kind::Stats => "stats report",
            Kind::Bench => "bench table",
        }
    }
}

/// Detects the kind of `v` from its fields.
pub fn kind_of(v: &Value) -> Option<Kind> {
    if v.get("instructions").is_some() && v.get("blocks").is_some() {
        Some(Kind::Profile)
    } else if v.get("counters").is_some_and(Value::is_object) {
        Some(Kind::Stats)
    } else if v.get("rows").is_some_and(Value::is_array) || v.is_array() {
        Some(Kind::Bench)
    } else {
        None
    }
}

fn load(path: &Path) -> Result<Value, String> {
    let bytes = read_file(path).map_err(|e| e.0)?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{}: not JSON: {e}", path.display()))
}

/// The metrics of two documents of one kind; `Err` says why they cannot be compared.
pub fn metrics(old: &Value, new: &Value) -> Result<(Kind, Vec<Metric>), String> {
    let (ko, kn) = (kind_of(old), kind_of(new));
    let k = match (ko, kn) {
        (Some(a), Some(b)) if a == b => a,
        (Some(a), Some(b)) => {
            return Err(format!("cannot compare a {} with a {}", a.name(), b.name()))
        }
        (None, _) => return Err("the first file is not a stats, profile or bench JSON".into()),
        (_, None) => return Err("the second file is not a stats, profile or bench JSON".into()),
    };
    let same = |field: &str| -> Result<(), String> {
        match (old.get(field), new.get(field)) {
            (Some(a), Some(b)) if a != b => Err(format!(
                "the files describe different launches: {field} is {a} in the first and {b} in the second"
            )),
            (Some(_), None) | (None, Some(_)) => {
                Err(format!("schema mismatch: only one file has `{field}`"))
            }
            _ => Ok(()),
        }
    };
    for (v, which) in [(old, "first"), (new, "second")] {
        if v.get("interrupted").and_then(Value::as_bool) == Some(true) {
            return Err(format!(
                "the {which} file is of an interrupted launch (partial counts)"
            ));
        }
    }
    let mut m = Vec::new();
    match k {
        Kind::Profile => {
            let (vo, vn) = (old.get("version"), new.get("version"));
            if vo != vn {
                return Err(format!(
                    "schema mismatch: profile version {} and {} (this wavejit writes version {})",
                    vo.map_or("none".into(), |v| v.to_string()),
                    vn.map_or("none".into(), |v| v.to_string()),
                    wavejit_runtime::profile::PROFILE_VERSION
                ));
            }
            if vo.and_then(Value::as_u64)
                != Some(u64::from(wavejit_runtime::profile::PROFILE_VERSION))
            {
                return Err(format!(
                    "schema mismatch: profile version {} is not the version {} this wavejit reads",
                    vo.map_or("none".into(), |v| v.to_string()),
                    wavejit_runtime::profile::PROFILE_VERSION
                ));
            }
            for f in ["kernel", "target", "wave_size", "grid", "block"] {
                same(f)?;
            }
            profile_metrics(old, new, &mut m)?;
        }
        Kind::Stats => {
            for f in ["kernel", "grid", "block"] {
                same(f)?;
            }
            let (co, cn) = (&old["counters"], &new["counters"]);
            let keys = number_keys(co);
            if keys != number_keys(cn) {
                return Err("schema mismatch: the files' counters differ in their names".into());
            }
            let total = |c: &Value| {
                CLASSES
                    .iter()
                    .filter_map(|k| c.get(*k).and_then(Value::as_f64))
                    .sum::<f64>()
            };
            for key in &keys {
                m.push(Metric {
                    name: format!("counters.{key}"),
                    old: co[key.as_str()].as_f64().unwrap_or(0.0),
                    new: cn[key.as_str()].as_f64().unwrap_or(0.0),
                    better: Better::Lower,
                });
            }
            m.push(Metric {
                name: "wave instructions".into(),
                old: total(co),
                new: total(cn),
                better: Better::Lower,
            });
        }
        Kind::Bench => bench_metrics(old, new, &mut m)?,
    }
    Ok((k, m))
}

/// The instruction-class counters of a stats report (their sum: wave instructions).
const CLASSES: [&str; 7] = ["salu", "valu", "smem", "vmem", "lds", "control", "matrix"];

/// Names of the numeric fields of an object, sorted.
fn number_keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .map(|o| {
            o.iter()
                .filter(|(_, x)| x.is_number())
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default();
    k.sort();
    k
}

fn num(v: &Value, path: &[&str]) -> Result<f64, String> {
    let mut x = v;
    for p in path {
        x = x
            .get(p)
            .ok_or_else(|| format!("schema mismatch: a profile lacks `{}`", path.join(".")))?;
    }
    x.as_f64()
        .ok_or_else(|| format!("schema mismatch: `{}` is not a number", path.join(".")))
}

fn profile_metrics(old: &Value, new: &Value, m: &mut Vec<Metric>) -> Result<(), String> {
    let sums = |v: &Value, field: &str| -> Result<f64, String> {
        let insts = v["instructions"]
            .as_array()
            .ok_or("schema mismatch: `instructions` is not an array")?;
        insts.iter().try_fold(0.0, |acc, i| {
            Ok(acc
                + i.get(field).and_then(Value::as_f64).ok_or_else(|| {
                    format!("schema mismatch: an instruction lacks a numeric `{field}`")
                })?)
        })
    };
    for (name, field) in [
        ("wave instructions", "count"),
        ("active lanes", "active_lanes"),
        ("bytes", "bytes"),
    ] {
        m.push(Metric {
            name: name.into(),
            old: sums(old, field)?,
            new: sums(new, field)?,
            better: Better::Lower,
        });
    }
    for f in ["issue_cycles", "latency_cycles"] {
        m.push(Metric {
            name: format!("estimate.{f}"),
            old: num(old, &["estimate", f])?,
            new: num(new, &["estimate", f])?,
            better: Better::Lower,
        });
    }
    // The hottest blocks of the baseline, matched in the new profile by their offset.
    let blocks = |v: &Value| -> Result<Vec<(i64, f64)>, String> {
        v["blocks"]
            .as_array()
            .ok_or("schema mismatch: `blocks` is not an array")?
            .iter()
            .map(|b| {
                Ok((
                    b.get("pc")
                        .and_then(Value::as_i64)
                        .ok_or("schema mismatch: a block lacks `pc`")?,
                    b.get("cycles")
                        .and_then(Value::as_f64)
                        .ok_or("schema mismatch: a block lacks `cycles`")?,
                ))
            })
            .collect()
    };
    let (bo, bn) = (blocks(old)?, blocks(new)?);
    let mut hot = bo.clone();
    hot.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    for (pc, cycles) in hot.into_iter().take(HOT_BLOCKS).filter(|b| b.1 > 0.0) {
        let now = bn.iter().find(|b| b.0 == pc).map_or(0.0, |b| b.1);
        m.push(Metric {
            name: format!("block {} cycles", offset(pc)),
            old: cycles,
            new: now,
            better: Better::Lower,
        });
    }
    Ok(())
}

/// `+0x40` (or `-0x8` for code before the entry).
pub fn offset(pc: i64) -> String {
    if pc < 0 {
        format!("-{:#x}", pc.unsigned_abs())
    } else {
        format!("+{pc:#x}")
    }
}

/// Fields that identify a bench row (its key: the values present, in this order).
const ROW_KEYS: [&str; 11] = [
    "key",
    "name",
    "label",
    "workload",
    "kernel",
    "engine",
    "what",
    "target",
    "wave_size",
    "mode",
    "threads",
];

/// Whether a bench field is a time (lower is better), a rate (higher is better), or neither.
fn direction(field: &str) -> Option<Better> {
    let f = field.to_ascii_lowercase();
    // The references measured beside a row (host-native code, memcpy) are not what it
    // measures.
    if f.starts_with("native_") || f.starts_with("memcpy_") {
        return None;
    }
    let tokens: Vec<&str> = f.split('_').collect();
    let rate = [
        "per",
        "rate",
        "gbs",
        "gflops",
        "tflops",
        "mips",
        "throughput",
        "ratio",
        "speedup",
        "scaling",
    ];
    if tokens.iter().any(|t| rate.contains(t)) {
        return Some(Better::Higher);
    }
    let time = ["ns", "us", "ms", "s", "sec", "secs", "seconds", "cycles"];
    let last = tokens.last().copied().unwrap_or("");
    if time.contains(&last)
        || tokens
            .iter()
            .any(|t| ["time", "elapsed", "duration"].contains(t))
    {
        return Some(Better::Lower);
    }
    None
}

fn bench_metrics(old: &Value, new: &Value, m: &mut Vec<Metric>) -> Result<(), String> {
    let rows = |v: &Value| -> Result<Vec<(String, Value)>, String> {
        let arr = v
            .get("rows")
            .unwrap_or(v)
            .as_array()
            .ok_or("schema mismatch: `rows` is not an array")?;
        let mut seen: Vec<String> = Vec::new();
        arr.iter()
            .map(|r| {
                let parts: Vec<String> = ROW_KEYS
                    .iter()
                    .filter_map(|k| match r.get(*k)? {
                        Value::String(s) => Some(s.clone()),
                        Value::Number(n) => Some(format!("{k}={n}")),
                        _ => None,
                    })
                    .collect();
                if parts.is_empty() {
                    return Err(format!(
                        "schema mismatch: a bench row has none of the key fields {}",
                        ROW_KEYS.join(", ")
                    ));
                }
                let mut key = parts.join(" ");
                // Rows with the same key are told apart by their order.
                let dup = seen.iter().filter(|k| **k == key).count();
                seen.push(key.clone());
                if dup > 0 {
                    key = format!("{key} #{}", dup + 1);
                }
                Ok((key, r.clone()))
            })
            .collect()
    };
    let (ro, rn) = (rows(old)?, rows(new)?);
    for (key, r) in &ro {
        let Some((_, n)) = rn.iter().find(|(k, _)| k == key) else {
            return Err(format!(
                "schema mismatch: the second table has no row `{key}`"
            ));
        };
        for field in number_keys(r) {
            let Some(better) = direction(&field) else {
                continue;
            };
            let Some(nv) = n.get(&field).and_then(Value::as_f64) else {
                return Err(format!(
                    "schema mismatch: row `{key}` of the second table has no `{field}`"
                ));
            };
            m.push(Metric {
                name: format!("{key}: {field}"),
                old: r[field.as_str()].as_f64().unwrap_or(0.0),
                new: nv,
                better,
            });
        }
    }
    if m.is_empty() {
        return Err("the bench tables have no time or rate fields to compare".into());
    }
    Ok(())
}

fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.4}")
    }
}

/// Runs the comparison, printing one line per metric.
pub fn compare(a: &CompareArgs, out: &mut dyn Write) -> Result<ExitCode, CliError> {
    if a.max_regress.is_nan() || a.max_regress < 0.0 {
        return Err(CliError(
            "--max-regress must be a percentage of at least 0".into(),
        ));
    }
    let mismatch = |msg: String| -> Result<ExitCode, CliError> {
        eprintln!("error: {msg}");
        Ok(ExitCode::from(MISMATCH_EXIT))
    };
    let (old, new) = match (load(&a.old), load(&a.new)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => return mismatch(e),
    };
    let (kind, ms) = match metrics(&old, &new) {
        Ok(x) => x,
        Err(e) => return mismatch(e),
    };
    writeln!(
        out,
        "comparing {}s (threshold {}%)",
        kind.name(),
        a.max_regress
    )
    .map_err(io_err)?;
    let width = ms.iter().map(|m| m.name.len()).max().unwrap_or(0);
    let mut regressions = 0;
    for m in &ms {
        let w = m.worse_pct();
        let status = if w > a.max_regress {
            regressions += 1;
            "REGRESSION"
        } else if w < 0.0 {
            "better"
        } else if w > 0.0 {
            "worse (within threshold)"
        } else {
            "same"
        };
        let change = if m.old == m.new {
            "0%".to_string()
        } else if m.old == 0.0 {
            "new".to_string()
        } else {
            format!("{:+.2}%", 100.0 * (m.new - m.old) / m.old.abs())
        };
        writeln!(
            out,
            "{:width$}  {:>14} -> {:<14} {:>9}  {status}",
            m.name,
            fmt_num(m.old),
            fmt_num(m.new),
            change
        )
        .map_err(io_err)?;
    }
    if regressions > 0 {
        writeln!(out, "{regressions} regression(s) past {}%", a.max_regress).map_err(io_err)?;
        return Ok(ExitCode::from(REGRESSION_EXIT));
    }
    writeln!(out, "no regression past {}%", a.max_regress).map_err(io_err)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn directions_of_bench_fields() {
        assert_eq!(direction("median_ns"), Some(Better::Lower));
        assert_eq!(direction("time_ms"), Some(Better::Lower));
        assert_eq!(direction("gflops"), Some(Better::Higher));
        assert_eq!(direction("elems_per_s"), Some(Better::Higher));
        assert_eq!(direction("samples"), None);
        assert_eq!(direction("native_time_ms"), None);
        assert_eq!(direction("duration_ms"), Some(Better::Lower));
        assert_eq!(direction("ratio_to_native"), Some(Better::Higher));
        assert_eq!(direction("wave_insts_per_s"), Some(Better::Higher));
        assert_eq!(direction("scaling_1_to_n_threads"), Some(Better::Higher));
        assert_eq!(direction("wave_size"), None);
        assert_eq!(direction("threads"), None);
    }

    #[test]
    fn kinds_and_mismatches() {
        let stats = json!({"kernel": "k", "grid": [1,1,1], "block": [64,1,1],
            "counters": {"valu": 10, "salu": 5, "vector_insts": 10, "active_lanes": 640}});
        let bench = json!({"rows": [{"name": "vadd", "median_ns": 100.0}]});
        assert_eq!(kind_of(&stats), Some(Kind::Stats));
        assert_eq!(kind_of(&bench), Some(Kind::Bench));
        assert!(metrics(&stats, &bench)
            .unwrap_err()
            .contains("cannot compare"));
        let mut other = stats.clone();
        other["grid"] = json!([2, 1, 1]);
        assert!(metrics(&stats, &other).unwrap_err().contains("grid"));
        let (_, m) = metrics(&stats, &stats).unwrap();
        let total = m.iter().find(|m| m.name == "wave instructions").unwrap();
        assert_eq!(total.old, 15.0);
    }

    #[test]
    fn bench_rows_are_keyed_by_their_identity_fields() {
        let row = |engine: &str, t: f64| {
            json!({"workload": "vadd", "engine": engine, "target": "gfx942", "wave_size": 64,
                "mode": null, "threads": 2, "time_ms": t, "native_time_ms": 1.0,
                "wave_insts_per_s": null})
        };
        let old = json!({"rows": [row("wavejit jit", 2.0), row("native host (Rust)", 1.0)]});
        let new = json!({"rows": [row("wavejit jit", 3.0), row("native host (Rust)", 1.0)]});
        let (k, m) = metrics(&old, &new).unwrap();
        assert_eq!(k, Kind::Bench);
        let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "vadd wavejit jit gfx942 wave_size=64 threads=2: time_ms",
                "vadd native host (Rust) gfx942 wave_size=64 threads=2: time_ms"
            ]
        );
        assert_eq!(m[0].worse_pct(), 50.0);
        assert_eq!(m[1].worse_pct(), 0.0);
    }

    #[test]
    fn worse_pct_by_direction() {
        let m = |old, new, better| Metric {
            name: String::new(),
            old,
            new,
            better,
        };
        assert_eq!(m(100.0, 110.0, Better::Lower).worse_pct(), 10.0);
        assert_eq!(m(100.0, 110.0, Better::Higher).worse_pct(), -10.0);
        assert_eq!(m(0.0, 1.0, Better::Lower).worse_pct(), f64::INFINITY);
        assert_eq!(m(5.0, 5.0, Better::Lower).worse_pct(), 0.0);
    }
}
