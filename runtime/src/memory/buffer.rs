//! [`Buffer`]: a handle to one allocation of device memory.

/// A device buffer: an allocation in the device's checked memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// Device address (a host address in wavejit).
    pub addr: u64,
    /// Size in bytes.
    pub len: usize,
}
