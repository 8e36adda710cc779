//! Parsing of `run` values: launch dimensions and kernel arguments.

use super::{CliError, CliResult};
use std::path::PathBuf;

/// Parses `X[,Y[,Z]]` into three dimensions (missing ones are 1); every one must be ≥ 1.
pub fn parse_dims(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}` is not X[,Y[,Z]]"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        let v: u32 = p
            .trim()
            .parse()
            .map_err(|_| format!("`{p}` in `{s}` is not a positive integer"))?;
        if v == 0 {
            return Err(format!("`{s}`: every dimension must be at least 1"));
        }
        d[i] = v;
    }
    Ok(d)
}

/// One kernel argument as written on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSpec {
    /// `in=PATH`: a buffer holding PATH's bytes.
    In(PathBuf),
    /// `out=PATH:BYTES`: a buffer of BYTES poisoned with 0xA5, written to PATH after the run.
    Out(PathBuf, usize),
    /// `inout=INPATH:OUTPATH`: a buffer holding INPATH's bytes, written to OUTPATH after.
    InOut(PathBuf, PathBuf),
    /// `i32=V`.
    I32(i32),
    /// `u32=V`.
    U32(u32),
    /// `i64=V`.
    I64(i64),
    /// `u64=V`.
    U64(u64),
    /// `f32=V`.
    F32(f32),
    /// `f64=V`.
    F64(f64),
}

/// Parses an unsigned integer in decimal or `0x` hexadecimal.
fn parse_u64(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Parses a signed integer in decimal or (`-`)`0x` hexadecimal.
fn parse_i64(s: &str) -> Option<i64> {
    match s.strip_prefix('-') {
        Some(m) => parse_u64(m).and_then(|v| 0i64.checked_sub_unsigned(v)),
        None => parse_u64(s).and_then(|v| i64::try_from(v).ok()),
    }
}

impl ArgSpec {
    /// Parses one `KIND=VALUE` argument; `index` (from 0) is used in messages.
    pub fn parse(s: &str, index: usize) -> CliResult<ArgSpec> {
        let err = |what: String| CliError(format!("kernel argument {index} `{s}`: {what}"));
        let (kind, val) = s.split_once('=').ok_or_else(|| {
            err("expected in=PATH, out=PATH:BYTES, inout=INPATH:OUTPATH, or i32/u32/i64/u64/f32/f64=VALUE".into())
        })?;
        let range = |t: &str| err(format!("`{val}` is not a valid {t}"));
        Ok(match kind {
            "in" if !val.is_empty() => ArgSpec::In(val.into()),
            "out" => {
                let (path, bytes) = val
                    .rsplit_once(':')
                    .ok_or_else(|| err("expected out=PATH:BYTES".into()))?;
                let n = parse_u64(bytes)
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or_else(|| range("byte count"))?;
                if path.is_empty() || n == 0 {
                    return Err(err(
                        "expected out=PATH:BYTES with a path and at least one byte".into(),
                    ));
                }
                ArgSpec::Out(path.into(), n)
            }
            "inout" => match val.split_once(':') {
                Some((i, o)) if !i.is_empty() && !o.is_empty() => {
                    ArgSpec::InOut(i.into(), o.into())
                }
                _ => return Err(err("expected inout=INPATH:OUTPATH".into())),
            },
            "i32" => ArgSpec::I32(
                parse_i64(val)
                    .and_then(|v| i32::try_from(v).ok())
                    .ok_or_else(|| range("i32"))?,
            ),
            "u32" => ArgSpec::U32(
                parse_u64(val)
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(|| range("u32"))?,
            ),
            "i64" => ArgSpec::I64(parse_i64(val).ok_or_else(|| range("i64"))?),
            "u64" => ArgSpec::U64(parse_u64(val).ok_or_else(|| range("u64"))?),
            "f32" => ArgSpec::F32(val.parse().map_err(|_| range("f32"))?),
            "f64" => ArgSpec::F64(val.parse().map_err(|_| range("f64"))?),
            "in" => return Err(err("expected in=PATH".into())),
            other => return Err(err(format!("unknown kind `{other}`"))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims() {
        assert_eq!(parse_dims("4"), Ok([4, 1, 1]));
        assert_eq!(parse_dims("4,2"), Ok([4, 2, 1]));
        assert_eq!(parse_dims("4,2,3"), Ok([4, 2, 3]));
        assert!(parse_dims("0").is_err());
        assert!(parse_dims("1,2,3,4").is_err());
        assert!(parse_dims("x").is_err());
        assert!(parse_dims("").is_err());
        assert!(parse_dims("4294967296").is_err());
    }

    #[test]
    fn arg_specs() {
        let p = |s| ArgSpec::parse(s, 0);
        assert_eq!(p("in=a.bin").unwrap(), ArgSpec::In("a.bin".into()));
        assert_eq!(
            p("out=c:d.bin:1024").unwrap(),
            ArgSpec::Out("c:d.bin".into(), 1024)
        );
        assert_eq!(
            p("out=c.bin:0x10").unwrap(),
            ArgSpec::Out("c.bin".into(), 16)
        );
        assert_eq!(
            p("inout=a:b").unwrap(),
            ArgSpec::InOut("a".into(), "b".into())
        );
        assert_eq!(p("i32=-5").unwrap(), ArgSpec::I32(-5));
        assert_eq!(p("i32=-2147483648").unwrap(), ArgSpec::I32(i32::MIN));
        assert!(p("i32=2147483648").is_err());
        assert_eq!(p("u32=0xffffffff").unwrap(), ArgSpec::U32(u32::MAX));
        assert!(p("u32=-1").is_err());
        assert_eq!(p("i64=-0x10").unwrap(), ArgSpec::I64(-16));
        assert_eq!(
            p("u64=18446744073709551615").unwrap(),
            ArgSpec::U64(u64::MAX)
        );
        assert_eq!(p("f32=1.5").unwrap(), ArgSpec::F32(1.5));
        assert_eq!(p("f64=-2.25e3").unwrap(), ArgSpec::F64(-2250.0));
        for bad in [
            "x", "in=", "out=a", "out=a:0", "out=:4", "inout=a", "f32=abc", "q32=1",
        ] {
            let e = p(bad).unwrap_err().0;
            assert!(e.contains(bad), "{bad}: {e}");
        }
    }
}
