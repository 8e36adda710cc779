//! Device printf: decodes the records clang's buffered printf (`-mprintf-kind=buffered`)
//! writes, and formats them with the C library's `snprintf`, one conversion at a time.
//!
//! Buffer (wavejit's layout, allocated by `__printf_alloc` in `hip/hip_runtime.h`): u32 bytes
//! used, u32 capacity, then records. A record, as clang-22 emits it: a u32 control word
//! (`size << 2 | 2` with a constant format, `size << 2` without; `size` counts the whole
//! record), then with a constant format the u64 hash naming it in the `amdhsa.printf`
//! metadata, else the format string inline; then the arguments: 8 bytes each (integers
//! extended, `float` promoted to `double`, pointers), a string argument of a constant format
//! as its bytes with the NUL, padded to 8 bytes. A null string argument gets no bytes at all,
//! so the arguments after it in that record cannot be decoded (clang's format).

use std::collections::HashMap;
use std::ffi::{c_char, c_int, CString};

/// Size of the buffer header (used, capacity).
pub const HEADER: usize = 8;

extern "C" {
    fn snprintf(buf: *mut c_char, len: usize, fmt: *const c_char, ...) -> c_int;
}

/// One argument as `snprintf` takes it.
enum CArg {
    Int(c_int),
    Long(i64),
    Double(f64),
    Str(CString),
    Ptr(u64),
}

/// Formats one conversion specification (`%-8.3f`) with `arg` through the C library.
fn c_format(spec: &str, arg: CArg) -> String {
    let Ok(fmt) = CString::new(spec) else {
        return spec.to_string();
    };
    let mut buf = vec![0u8; 256];
    loop {
        let p = buf.as_mut_ptr() as *mut c_char;
        let f = fmt.as_ptr();
        // SAFETY: `buf` is writable for `buf.len()` bytes; `fmt` is one NUL-terminated
        // conversion whose type matches the argument passed (the caller chose `arg` from the
        // conversion character and length modifier), so snprintf reads exactly that argument.
        let n = unsafe {
            match &arg {
                CArg::Int(v) => snprintf(p, buf.len(), f, *v),
                CArg::Long(v) => snprintf(p, buf.len(), f, *v),
                CArg::Double(v) => snprintf(p, buf.len(), f, *v),
                CArg::Str(s) => snprintf(p, buf.len(), f, s.as_ptr()),
                CArg::Ptr(v) => snprintf(p, buf.len(), f, *v as usize as *const u8),
            }
        };
        if n < 0 {
            return String::new();
        }
        if (n as usize) < buf.len() {
            buf.truncate(n as usize);
            return String::from_utf8_lossy(&buf).into_owned();
        }
        buf.resize(n as usize + 1, 0);
    }
}

/// Reads the arguments of one record.
struct Args<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// String arguments are inline (constant format).
    inline_strings: bool,
}

impl Args<'_> {
    fn word(&mut self) -> u64 {
        let v = self
            .bytes
            .get(self.pos..self.pos + 8)
            .map(|s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])))
            .unwrap_or(0);
        self.pos += 8;
        v
    }
    fn string(&mut self) -> Option<CString> {
        let rest = self.bytes.get(self.pos..).unwrap_or(&[]);
        let len = rest.iter().position(|&b| b == 0)?;
        self.pos += (len + 1).next_multiple_of(8);
        CString::new(&rest[..len]).ok()
    }
}

/// Formats `fmt` with the arguments in `args`.
fn format(fmt: &str, args: &mut Args) -> String {
    let mut out = String::new();
    let b = fmt.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            let next = fmt[i..].find('%').map_or(b.len(), |n| i + n);
            out.push_str(&fmt[i..next]);
            i = next;
            continue;
        }
        if b.get(i + 1) == Some(&b'%') {
            out.push('%');
            i += 2;
            continue;
        }
        // %[flags][width][.precision][length]conversion; '*' takes an int argument.
        let mut spec = String::from("%");
        let mut j = i + 1;
        while j < b.len() && b"-+ #0".contains(&b[j]) {
            spec.push(b[j] as char);
            j += 1;
        }
        let number = |j: &mut usize, spec: &mut String, args: &mut Args| {
            if b.get(*j) == Some(&b'*') {
                spec.push_str(&(args.word() as u32 as i32).to_string());
                *j += 1;
            } else {
                while *j < b.len() && b[*j].is_ascii_digit() {
                    spec.push(b[*j] as char);
                    *j += 1;
                }
            }
        };
        number(&mut j, &mut spec, args);
        if b.get(j) == Some(&b'.') {
            spec.push('.');
            j += 1;
            number(&mut j, &mut spec, args);
            if spec.ends_with(".-") || spec.contains(".-") {
                // A negative '*' precision means none.
                let cut = spec.rfind('.').unwrap_or(spec.len());
                spec.truncate(cut);
            }
        }
        let len_start = j;
        while j < b.len() && b"hljztL".contains(&b[j]) {
            j += 1;
        }
        let length = &fmt[len_start..j];
        let Some(&conv) = b.get(j) else {
            out.push_str(&fmt[i..]);
            break;
        };
        j += 1;
        // An unknown conversion character may be the first byte of a multi-byte character:
        // it is printed as written, up to the next character boundary.
        while !fmt.is_char_boundary(j) {
            j += 1;
        }
        let wide = matches!(length, "l" | "ll" | "j" | "z" | "t");
        let text = match conv {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' => {
                let v = args.word();
                let signed = matches!(conv, b'd' | b'i');
                let arg = if wide {
                    CArg::Long(v as i64)
                } else {
                    let v = match (length, signed) {
                        ("hh", true) => v as i8 as c_int,
                        ("hh", false) => v as u8 as c_int,
                        ("h", true) => v as i16 as c_int,
                        ("h", false) => v as u16 as c_int,
                        _ => v as u32 as c_int,
                    };
                    CArg::Int(v)
                };
                let l = if wide { "ll" } else { "" };
                c_format(&format!("{spec}{l}{}", conv as char), arg)
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => c_format(
                &format!("{spec}{}", conv as char),
                CArg::Double(f64::from_bits(args.word())),
            ),
            b'p' => c_format(&format!("{spec}p"), CArg::Ptr(args.word())),
            b's' if args.inline_strings => match args.string() {
                Some(s) => c_format(&format!("{spec}s"), CArg::Str(s)),
                None => c_format(&format!("{spec}s"), CArg::Str(c"(null)".into())),
            },
            b's' => {
                // A runtime format: the argument is a device pointer wavejit does not follow.
                format!("<string at {:#x}>", args.word())
            }
            _ => fmt[i..j].to_string(),
        };
        out.push_str(&text);
        i = j;
    }
    out
}

/// Decodes every record in `buf` (the bytes after the header) into the text printf prints.
pub fn decode(buf: &[u8], formats: &HashMap<u64, String>) -> String {
    let mut out = String::new();
    let mut pos = 0;
    while pos + 4 <= buf.len() {
        let ctrl = u32::from_le_bytes(buf[pos..pos + 4].try_into().unwrap_or([0; 4]));
        let size = (ctrl >> 2) as usize;
        let Some(rec) = buf.get(pos..pos + size).filter(|_| size >= 4) else {
            out.push_str("<wavejit: truncated printf record>\n");
            break;
        };
        if ctrl & 2 != 0 {
            let hash = rec
                .get(4..12)
                .map(|s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])))
                .unwrap_or(0);
            let mut args = Args {
                bytes: rec,
                pos: 12,
                inline_strings: true,
            };
            match formats.get(&hash) {
                Some(f) => out.push_str(&format(f, &mut args)),
                None => out.push_str(&format!("<wavejit: unknown printf format {hash:016x}>\n")),
            }
        } else {
            let mut args = Args {
                bytes: rec,
                pos: 4,
                inline_strings: false,
            };
            let fmt = args.string().map(|s| s.to_string_lossy().into_owned());
            out.push_str(&format(&fmt.unwrap_or_default(), &mut args));
        }
        pos += size;
    }
    out
}

/// Prints device printf output on the C library's stdout (in order with the program's own
/// printf output, which shares that buffer).
pub fn print_stdout(text: &str) {
    extern "C" {
        fn printf(fmt: *const c_char, ...) -> c_int;
    }
    let Ok(s) = CString::new(text.replace('\0', "")) else {
        return;
    };
    // SAFETY: both arguments are NUL-terminated strings; "%s" reads exactly one.
    unsafe { printf(c"%s".as_ptr(), s.as_ptr()) };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(ctrl_flag: u32, body: &[u8]) -> Vec<u8> {
        let size = 4 + body.len() as u32;
        let mut r = ((size << 2) | ctrl_flag).to_le_bytes().to_vec();
        r.extend(body);
        r
    }

    #[test]
    fn records_decode_like_c_printf() {
        let mut formats = HashMap::new();
        formats.insert(
            7u64,
            "i=%d u=%u x=%08lx f=%.3f s=%s|%-4s|%c %5.1e %%\n".to_string(),
        );
        let mut body = 7u64.to_le_bytes().to_vec();
        body.extend((-5i32 as u32 as u64).to_le_bytes());
        body.extend(4000000000u64.to_le_bytes());
        body.extend(0xbeefu64.to_le_bytes());
        body.extend(2.71875f64.to_bits().to_le_bytes());
        body.extend(b"hello\0\0\0");
        body.extend(b"ab\0\0\0\0\0\0");
        body.extend((b'Z' as u64).to_le_bytes());
        body.extend(12345.0f64.to_bits().to_le_bytes());
        // Two records, the second with a runtime format.
        let mut buf = rec(2, &body);
        buf.extend(rec(
            0,
            &[
                b"n=%*d\n\0\0".as_slice(),
                &6u64.to_le_bytes(),
                &42u64.to_le_bytes(),
            ]
            .concat(),
        ));
        let text = decode(&buf, &formats);
        assert_eq!(
            text,
            "i=-5 u=4000000000 x=0000beef f=2.719 s=hello|ab  |Z 1.2e+04 %\nn=    42\n"
        );
    }

    #[test]
    fn an_unknown_multibyte_conversion_prints_as_written() {
        let mut formats = HashMap::new();
        formats.insert(3u64, "a%\u{e9}b %d\n".to_string());
        let mut body = 3u64.to_le_bytes().to_vec();
        body.extend(7u64.to_le_bytes());
        assert_eq!(decode(&rec(2, &body), &formats), "a%\u{e9}b 7\n");
    }

    #[test]
    fn unknown_and_truncated_records_are_reported() {
        let formats = HashMap::new();
        let buf = rec(2, &9u64.to_le_bytes());
        assert!(decode(&buf, &formats).contains("unknown printf format"));
        let mut bad = buf.clone();
        bad.truncate(6);
        assert!(decode(&bad, &formats).contains("truncated"));
    }
}
