//! Kernel arguments from Python values.
//!
//! Each explicit argument of the kernel (in the code object's metadata order) takes:
//!
//! - a pointer (`global_buffer`): a buffer-protocol object (numpy array, bytearray, bytes,
//!   memoryview, ...), copied to device memory for the launch and back after it when writable
//!   (see `host`); a `wavejit.Buffer` (device memory, passed as is); or `None` (a null pointer);
//! - a by-value argument: a typed scalar (`wavejit.i32(5)`, `u32`, `i64`, `u64`, `f32`, `f64`);
//!   a Python `int` (two's complement in the argument's size: 4 bytes or less as i32, or u32
//!   when above i32's range; 8 bytes as i64, or u64); a Python `float` (f32 for a 4-byte
//!   argument, f64 for an 8-byte one); or an object whose `tobytes()` has exactly the
//!   argument's size (a numpy scalar such as `np.float16(1.5)` or `np.uint64(7)`, a 0-d
//!   array): those bytes are the value.

use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt};
use wavejit::Arg;
use wavejit_runtime::code_object::{ArgInfo, ArgKind};

use crate::errors::usage;
use crate::host::HostArg;
use crate::DeviceBuffer;

/// A by-value kernel argument of an explicit type (made by `wavejit.i32(...)` and friends).
#[pyclass(frozen, module = "wavejit")]
pub struct Scalar {
    arg: Arg,
}

#[pymethods]
impl Scalar {
    /// The type name (`"i32"`, `"u32"`, `"i64"`, `"u64"`, `"f32"`, `"f64"`).
    #[getter]
    fn kind(&self) -> &'static str {
        self.arg.kind_name()
    }

    /// The value as a Python int or float (an `f32` shows its rounded value).
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self.arg {
            Arg::I32(v) => v.into_pyobject(py)?.into_any(),
            Arg::U32(v) => v.into_pyobject(py)?.into_any(),
            Arg::I64(v) => v.into_pyobject(py)?.into_any(),
            Arg::U64(v) => v.into_pyobject(py)?.into_any(),
            Arg::F32(v) => (v as f64).into_pyobject(py)?.into_any(),
            Arg::F64(v) => v.into_pyobject(py)?.into_any(),
            Arg::Buffer(_) | Arg::Pointer(_) | Arg::PrintfBuffer(_) => {
                self.arg.bits().into_pyobject(py)?.into_any()
            }
        })
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "wavejit.{}({})",
            self.kind(),
            self.value(py)?.repr()?
        ))
    }
}

/// An integer scalar: `v` (an int or an object with `__index__`, like a numpy integer) in
/// `lo..=hi`, made into an argument by `make`.
fn int_scalar(
    kind: &str,
    v: &Bound<'_, PyAny>,
    lo: i128,
    hi: i128,
    make: fn(i128) -> Arg,
) -> PyResult<Scalar> {
    let x: i128 = if v.is_instance_of::<PyInt>() {
        v.extract()?
    } else {
        v.call_method0("__index__")
            .and_then(|i| i.extract())
            .map_err(|_| {
                usage(format!(
                    "wavejit.{kind}() takes an integer, got {}",
                    type_name(v)
                ))
            })?
    };
    if x < lo || x > hi {
        return Err(usage(format!("{x} does not fit in {kind} ({lo}..={hi})")));
    }
    Ok(Scalar { arg: make(x) })
}

fn float_value(kind: &str, v: &Bound<'_, PyAny>) -> PyResult<f64> {
    v.extract().map_err(|_| {
        usage(format!(
            "wavejit.{kind}() takes a number, got {}",
            type_name(v)
        ))
    })
}

/// A 32-bit signed by-value argument.
#[pyfunction]
pub fn i32(v: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    int_scalar("i32", v, i32::MIN as i128, i32::MAX as i128, |x| {
        Arg::I32(x as i32)
    })
}

/// A 32-bit unsigned by-value argument.
#[pyfunction]
pub fn u32(v: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    int_scalar("u32", v, 0, u32::MAX as i128, |x| Arg::U32(x as u32))
}

/// A 64-bit signed by-value argument.
#[pyfunction]
pub fn i64(v: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    int_scalar("i64", v, i64::MIN as i128, i64::MAX as i128, |x| {
        Arg::I64(x as i64)
    })
}

/// A 64-bit unsigned by-value argument.
#[pyfunction]
pub fn u64(v: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    int_scalar("u64", v, 0, u64::MAX as i128, |x| Arg::U64(x as u64))
}

/// A single-precision by-value argument (the value is rounded to f32).
#[pyfunction]
pub fn f32(v: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    Ok(Scalar {
        arg: Arg::F32(float_value("f32", v)? as f32),
    })
}

/// A double-precision by-value argument.
#[pyfunction]
pub fn f64(v: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    Ok(Scalar {
        arg: Arg::F64(float_value("f64", v)?),
    })
}

/// An argument ready for the launch, or host memory still to be staged.
pub enum Prepared {
    Ready(Arg),
    Host(HostArg),
}

/// The Python type name of `v`, for messages.
pub fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// Converts argument `i` (`v`) for the kernel argument `info`.
pub fn prepare(i: usize, v: &Bound<'_, PyAny>, info: &ArgInfo) -> PyResult<Prepared> {
    let name = info.name.clone().unwrap_or_else(|| format!("arg{i}"));
    let what = || format!("argument {i} ({name})");
    if let Ok(s) = v.cast::<Scalar>() {
        return Ok(Prepared::Ready(s.get().arg));
    }
    match &info.kind {
        ArgKind::GlobalBuffer => {
            if v.is_none() {
                return Ok(Prepared::Ready(Arg::Pointer(0)));
            }
            if let Ok(b) = v.cast::<DeviceBuffer>() {
                return Ok(Prepared::Ready(Arg::Buffer(b.get().buffer())));
            }
            match HostArg::get(v)? {
                Some(h) => Ok(Prepared::Host(h)),
                None => Err(usage(format!(
                    "{} is a pointer: pass an array (any buffer-protocol object), a \
                     wavejit.Buffer or None, not {}",
                    what(),
                    type_name(v)
                ))),
            }
        }
        ArgKind::ByValue => by_value(v, info.size, &what).map(Prepared::Ready),
        other => Err(usage(format!(
            "{} has kind {other:?}, which wavejit cannot pass",
            what()
        ))),
    }
}

/// A by-value argument of `size` bytes from an untyped Python value (see the module docs).
fn by_value(v: &Bound<'_, PyAny>, size: u32, what: &dyn Fn() -> String) -> PyResult<Arg> {
    if v.is_instance_of::<PyInt>() {
        let x: i128 = v
            .extract()
            .map_err(|_| usage(format!("{} is too large for a {size}-byte integer", what())))?;
        let arg = if size <= 4 {
            if let Ok(x) = i32::try_from(x) {
                Some(Arg::I32(x))
            } else {
                u32::try_from(x).ok().map(Arg::U32)
            }
        } else if size == 8 {
            if let Ok(x) = i64::try_from(x) {
                Some(Arg::I64(x))
            } else {
                u64::try_from(x).ok().map(Arg::U64)
            }
        } else {
            None
        };
        return arg.ok_or_else(|| {
            usage(format!(
                "{}: {x} does not fit in a {size}-byte integer",
                what()
            ))
        });
    }
    if v.is_instance_of::<PyFloat>() {
        let x: f64 = v.extract()?;
        return match size {
            4 => Ok(Arg::F32(x as f32)),
            8 => Ok(Arg::F64(x)),
            _ => Err(usage(format!(
                "{} is a {size}-byte value: a Python float is f32 or f64; pass a numpy \
                 scalar of the argument's type",
                what()
            ))),
        };
    }
    // numpy scalars and 0-d arrays: their bytes are the value.
    if let Ok(bytes) = v.call_method0("tobytes") {
        if let Ok(bytes) = bytes.extract::<Vec<u8>>() {
            if bytes.len() == size as usize && size <= 8 {
                let mut bits = [0u8; 8];
                bits[..bytes.len()].copy_from_slice(&bytes);
                let bits = u64::from_le_bytes(bits);
                return Ok(if size == 8 {
                    Arg::U64(bits)
                } else {
                    Arg::U32(bits as u32)
                });
            }
            return Err(usage(format!(
                "{} is a {size}-byte value, got a {}-byte {}",
                what(),
                bytes.len(),
                type_name(v)
            )));
        }
    }
    Err(usage(format!(
        "{} is a {size}-byte value: pass an int, a float, a numpy scalar or a typed \
         wavejit scalar (wavejit.i32(...)), not {}",
        what(),
        type_name(v)
    )))
}
