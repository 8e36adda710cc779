//! `hipError_t` codes (values of the published HIP interface), their names and messages,
//! and the error type the runtime's operations return.

use std::ffi::CStr;
use std::fmt;

/// A `hipError_t` value.
pub type Code = i32;

/// `hipSuccess`.
pub const SUCCESS: Code = 0;
/// `hipErrorInvalidValue`.
pub const INVALID_VALUE: Code = 1;
/// `hipErrorOutOfMemory`.
pub const OUT_OF_MEMORY: Code = 2;
/// `hipErrorInvalidConfiguration`.
pub const INVALID_CONFIGURATION: Code = 9;
/// `hipErrorInvalidSymbol`.
pub const INVALID_SYMBOL: Code = 13;
/// `hipErrorInvalidDevicePointer`.
pub const INVALID_DEVICE_POINTER: Code = 17;
/// `hipErrorInvalidMemcpyDirection`.
pub const INVALID_MEMCPY_DIRECTION: Code = 21;
/// `hipErrorMissingConfiguration`.
pub const MISSING_CONFIGURATION: Code = 52;
/// `hipErrorInvalidDeviceFunction`.
pub const INVALID_DEVICE_FUNCTION: Code = 98;
/// `hipErrorInvalidDevice`.
pub const INVALID_DEVICE: Code = 101;
/// `hipErrorInvalidImage`.
pub const INVALID_IMAGE: Code = 200;
/// `hipErrorNoBinaryForGpu`.
pub const NO_BINARY_FOR_GPU: Code = 209;
/// `hipErrorFileNotFound`.
pub const FILE_NOT_FOUND: Code = 301;
/// `hipErrorInvalidHandle`.
pub const INVALID_HANDLE: Code = 400;
/// `hipErrorNotFound`.
pub const NOT_FOUND: Code = 500;
/// `hipErrorNotReady`.
pub const NOT_READY: Code = 600;
/// `hipErrorIllegalAddress`.
pub const ILLEGAL_ADDRESS: Code = 700;
/// `hipErrorLaunchOutOfResources`.
pub const LAUNCH_OUT_OF_RESOURCES: Code = 701;
/// `hipErrorLaunchFailure`.
pub const LAUNCH_FAILURE: Code = 719;
/// `hipErrorNotSupported`.
pub const NOT_SUPPORTED: Code = 801;
/// `hipErrorUnknown`.
pub const UNKNOWN: Code = 999;

const TABLE: &[(Code, &CStr, &CStr)] = &[
    (SUCCESS, c"hipSuccess", c"no error"),
    (INVALID_VALUE, c"hipErrorInvalidValue", c"invalid argument"),
    (OUT_OF_MEMORY, c"hipErrorOutOfMemory", c"out of memory"),
    (
        INVALID_CONFIGURATION,
        c"hipErrorInvalidConfiguration",
        c"invalid configuration argument",
    ),
    (
        INVALID_SYMBOL,
        c"hipErrorInvalidSymbol",
        c"invalid device symbol",
    ),
    (
        INVALID_DEVICE_POINTER,
        c"hipErrorInvalidDevicePointer",
        c"invalid device pointer",
    ),
    (
        INVALID_MEMCPY_DIRECTION,
        c"hipErrorInvalidMemcpyDirection",
        c"invalid copy direction for memcpy",
    ),
    (
        MISSING_CONFIGURATION,
        c"hipErrorMissingConfiguration",
        c"__global__ function call is not configured",
    ),
    (
        INVALID_DEVICE_FUNCTION,
        c"hipErrorInvalidDeviceFunction",
        c"invalid device function",
    ),
    (
        INVALID_DEVICE,
        c"hipErrorInvalidDevice",
        c"invalid device ordinal",
    ),
    (
        INVALID_IMAGE,
        c"hipErrorInvalidImage",
        c"device kernel image is invalid",
    ),
    (
        NO_BINARY_FOR_GPU,
        c"hipErrorNoBinaryForGpu",
        c"no kernel image is available for execution on the device",
    ),
    (FILE_NOT_FOUND, c"hipErrorFileNotFound", c"file not found"),
    (
        INVALID_HANDLE,
        c"hipErrorInvalidHandle",
        c"invalid resource handle",
    ),
    (NOT_FOUND, c"hipErrorNotFound", c"named symbol not found"),
    (NOT_READY, c"hipErrorNotReady", c"device not ready"),
    (
        ILLEGAL_ADDRESS,
        c"hipErrorIllegalAddress",
        c"an illegal memory access was encountered",
    ),
    (
        LAUNCH_OUT_OF_RESOURCES,
        c"hipErrorLaunchOutOfResources",
        c"too many resources requested for launch",
    ),
    (
        LAUNCH_FAILURE,
        c"hipErrorLaunchFailure",
        c"unspecified launch failure",
    ),
    (
        NOT_SUPPORTED,
        c"hipErrorNotSupported",
        c"operation not supported",
    ),
    (UNKNOWN, c"hipErrorUnknown", c"unknown error"),
];

/// The enumerator name of `code` as a NUL-terminated string (`hipErrorInvalidValue`).
pub fn name(code: Code) -> &'static CStr {
    TABLE
        .iter()
        .find(|(c, _, _)| *c == code)
        .map(|(_, n, _)| *n)
        .unwrap_or(c"hipErrorUnknown")
}

/// The message of `code` (`invalid argument`).
pub fn message(code: Code) -> &'static CStr {
    TABLE
        .iter()
        .find(|(c, _, _)| *c == code)
        .map(|(_, _, m)| *m)
        .unwrap_or(c"unknown error")
}

/// A failed runtime operation: the code the API returns and a message for stderr.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HipError {
    /// The `hipError_t` returned.
    pub code: Code,
    /// What went wrong, in words (printed on stderr unless empty).
    pub message: String,
}

impl HipError {
    /// An error with `code` and `message`.
    pub fn new(code: Code, message: impl Into<String>) -> HipError {
        HipError {
            code,
            message: message.into(),
        }
    }
    /// An error that prints nothing (the code says everything).
    pub fn quiet(code: Code) -> HipError {
        HipError {
            code,
            message: String::new(),
        }
    }
}

impl fmt::Display for HipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", name(self.code).to_string_lossy(), self.message)
    }
}

/// What the runtime's operations return.
pub type HipResult<T = ()> = Result<T, HipError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_messages_cover_every_code() {
        for (code, n, _) in TABLE {
            assert_eq!(name(*code), *n);
        }
        assert_eq!(name(12345).to_str().unwrap(), "hipErrorUnknown");
        assert_eq!(message(INVALID_VALUE).to_str().unwrap(), "invalid argument");
    }
}
