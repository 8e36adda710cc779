//! wavejit's Python exceptions and the conversion of the Rust API's errors into them.
//!
//! `WavejitError` is the base class; `LoadError` (a code object that cannot be loaded),
//! `UsageError` (wrong kernel name, arguments, launch geometry or buffers) and `KernelFault`
//! (the kernel faulted; the exception carries the fault report's fields as attributes).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use wavejit::FaultReport;

create_exception!(
    wavejit,
    WavejitError,
    PyException,
    "Base class of every error wavejit raises."
);
create_exception!(
    wavejit,
    LoadError,
    WavejitError,
    "A code object could not be loaded (not an AMDGPU ELF, malformed, unsupported)."
);
create_exception!(
    wavejit,
    UsageError,
    WavejitError,
    "Wrong use of the API: unknown kernel, wrong arguments, bad geometry or buffers."
);
create_exception!(
    wavejit,
    KernelFault,
    WavejitError,
    "The kernel faulted. Attributes: kernel, workgroup (x, y, z), wave, lane (None when the \
     cause is not per lane), pc (code-object address), instruction (its disassembly), cause."
);

/// A `UsageError` with `msg`.
pub fn usage(msg: impl Into<String>) -> PyErr {
    UsageError::new_err(msg.into())
}

/// A `KernelFault` whose message is the report's text and whose attributes are its fields.
fn fault(py: Python<'_>, report: &FaultReport) -> PyErr {
    let err = KernelFault::new_err(report.to_string());
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("kernel", &report.kernel)?;
        value.setattr("workgroup", PyTuple::new(py, report.workgroup)?)?;
        value.setattr("wave", report.wave)?;
        value.setattr("lane", report.lane)?;
        value.setattr("pc", report.pc)?;
        value.setattr("instruction", &report.instruction)?;
        value.setattr("cause", &report.cause)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// The Python exception for an error of the Rust API.
pub fn from_api(py: Python<'_>, e: wavejit::Error) -> PyErr {
    match e {
        wavejit::Error::Load(e) => LoadError::new_err(e.to_string()),
        wavejit::Error::Fault(report) => fault(py, &report),
        // Usage, device memory (allocation failures, ranges outside live buffers) and
        // anything else the API adds: the caller's use of the API.
        other => UsageError::new_err(other.to_string()),
    }
}
