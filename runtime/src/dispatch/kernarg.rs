//! The kernarg segment: explicit arguments checked against the metadata, hidden arguments
//! (AMDGPUUsage "Code Object V5 Metadata", hidden argument kinds), and the AQL dispatch
//! packet that `dispatch_ptr` points to (`hsa_kernel_dispatch_packet_t`, 64 bytes).

use wavejit_translator::env::{PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE};

use crate::code_object::{ArgInfo, ArgKind, HiddenArg, KernelInfo};
use crate::memory::Buffer;

/// A kernel argument value, in kernel-argument order (the public API's `wavejit::Arg`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArgValue {
    /// A pointer argument (`global_buffer`): the start of a device buffer.
    Buffer(Buffer),
    /// A pointer argument given as an address: registered host memory, a place inside a
    /// buffer, or null.
    Pointer(u64),
    /// By-value i32.
    I32(i32),
    /// By-value u32.
    U32(u32),
    /// By-value i64.
    I64(i64),
    /// By-value u64.
    U64(u64),
    /// By-value f32.
    F32(f32),
    /// By-value f64.
    F64(f64),
    /// Not an explicit argument: the buffer the kernel's hidden printf-buffer argument points
    /// to (clang's buffered printf; the caller decodes it). Only as the last element of an
    /// argument list; without it the hidden pointer is null.
    PrintfBuffer(Buffer),
}

impl ArgValue {
    /// Short kind name for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ArgValue::Buffer(_) => "buffer",
            ArgValue::Pointer(_) => "pointer",
            ArgValue::I32(_) => "i32",
            ArgValue::U32(_) => "u32",
            ArgValue::I64(_) => "i64",
            ArgValue::U64(_) => "u64",
            ArgValue::F32(_) => "f32",
            ArgValue::F64(_) => "f64",
            ArgValue::PrintfBuffer(_) => "printf buffer",
        }
    }
    /// Size in bytes of the value.
    pub fn size(&self) -> u32 {
        match self {
            ArgValue::I32(_) | ArgValue::U32(_) | ArgValue::F32(_) => 4,
            _ => 8,
        }
    }
    /// The little-endian bits.
    pub fn bits(&self) -> u64 {
        match *self {
            ArgValue::Buffer(b) | ArgValue::PrintfBuffer(b) => b.addr,
            ArgValue::Pointer(a) | ArgValue::U64(a) => a,
            ArgValue::I32(v) => v as u32 as u64,
            ArgValue::U32(v) => v as u64,
            ArgValue::I64(v) => v as u64,
            ArgValue::F32(v) => v.to_bits() as u64,
            ArgValue::F64(v) => v.to_bits(),
        }
    }
}

/// Launch geometry as the hidden arguments and the dispatch packet see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Workgroups per dimension.
    pub grid: [u32; 3],
    /// Work-items per workgroup per dimension.
    pub block: [u32; 3],
    /// Dynamic LDS bytes.
    pub dynamic_lds: u32,
}

impl Geometry {
    /// Grid dimensions (1..3): the highest dimension with more than one work-item, at least 1.
    pub fn dims(&self) -> u16 {
        if self.grid[2] > 1 || self.block[2] > 1 {
            3
        } else if self.grid[1] > 1 || self.block[1] > 1 {
            2
        } else {
            1
        }
    }
}

/// "name: kind size" for each explicit argument, for usage messages.
pub fn describe_args(k: &KernelInfo) -> String {
    let list: Vec<String> = k
        .args
        .iter()
        .filter(|a| a.kind.is_explicit())
        .enumerate()
        .map(|(i, a)| {
            let name = a.name.clone().unwrap_or_else(|| format!("arg{i}"));
            let kind = match &a.kind {
                ArgKind::GlobalBuffer => "buffer".to_string(),
                ArgKind::ByValue => "value".to_string(),
                ArgKind::DynamicSharedPointer => "dynamic_shared_pointer".to_string(),
                ArgKind::Other(s) => s.clone(),
                ArgKind::Hidden(_) => "hidden".to_string(),
            };
            format!("{name}: {kind} {}", a.size)
        })
        .collect();
    if list.is_empty() {
        "no arguments".into()
    } else {
        list.join(", ")
    }
}

fn put(seg: &mut [u8], a: &ArgInfo, v: u64) -> Result<(), String> {
    let off = a.offset as usize;
    let size = a.size as usize;
    let end = off
        .checked_add(size)
        .filter(|&e| e <= seg.len())
        .ok_or_else(|| {
            format!("argument at offset {off} size {size} is outside the kernarg segment")
        })?;
    for (i, b) in seg[off..end].iter_mut().enumerate() {
        *b = if i < 8 { (v >> (8 * i)) as u8 } else { 0 };
    }
    Ok(())
}

/// Builds the kernarg segment of `k` for `args` and `geo`. Errors are usage messages
/// (without the kernel name, which the caller adds).
pub fn build_kernargs(
    k: &KernelInfo,
    args: &[ArgValue],
    geo: &Geometry,
) -> Result<Vec<u8>, String> {
    let end = k
        .args
        .iter()
        .map(|a| a.offset as u64 + a.size as u64)
        .max()
        .unwrap_or(0);
    let len = (k.kernarg_size as u64).max(end).next_multiple_of(8);
    if len > 1 << 20 {
        return Err(format!("kernarg segment of {len} bytes is too large"));
    }
    let mut seg = vec![0u8; len as usize];
    let (args, printf_buffer) = match args.split_last() {
        Some((ArgValue::PrintfBuffer(p), rest)) => (rest, p.addr),
        _ => (args, 0),
    };
    let explicit: Vec<&ArgInfo> = k.args.iter().filter(|a| a.kind.is_explicit()).collect();
    if explicit.len() != args.len() {
        return Err(format!(
            "expects {} arguments ({}), got {}",
            explicit.len(),
            describe_args(k),
            args.len()
        ));
    }
    for (i, (a, v)) in explicit.iter().zip(args).enumerate() {
        let name = a.name.clone().unwrap_or_else(|| format!("arg{i}"));
        let mismatch = || {
            format!(
                "argument {i} ({name}) expects {}, got {} (arguments: {})",
                match a.kind {
                    ArgKind::GlobalBuffer => format!("a buffer of {} bytes", a.size),
                    _ => format!("a {}-byte value", a.size),
                },
                v.kind_name(),
                describe_args(k)
            )
        };
        match (&a.kind, v) {
            (_, ArgValue::PrintfBuffer(_)) => {
                return Err(format!(
                    "argument {i} ({name}): a printf buffer may only end the argument list"
                ))
            }
            (ArgKind::GlobalBuffer, ArgValue::Buffer(_) | ArgValue::Pointer(_)) if a.size == 8 => {
                put(&mut seg, a, v.bits())?
            }
            (ArgKind::ByValue, ArgValue::Buffer(_) | ArgValue::Pointer(_))
            | (ArgKind::GlobalBuffer, _) => return Err(mismatch()),
            (ArgKind::ByValue, v) if v.size() == a.size => put(&mut seg, a, v.bits())?,
            // 1- and 2-byte values (bool, char, short) take a 32-bit integer that fits.
            (ArgKind::ByValue, ArgValue::I32(x)) if a.size < 4 => {
                let bits = 8 * a.size;
                let (lo, hi) = (-(1i64 << (bits - 1)), (1i64 << bits) - 1);
                if (*x as i64) < lo || (*x as i64) > hi {
                    return Err(mismatch());
                }
                put(&mut seg, a, *x as u32 as u64)?
            }
            (ArgKind::ByValue, ArgValue::U32(x)) if a.size < 4 && (*x as u64) < 1 << (8 * a.size) => {
                put(&mut seg, a, *x as u64)?
            }
            (ArgKind::ByValue, _) => return Err(mismatch()),
            (kind, _) => {
                return Err(format!(
                    "argument {i} ({name}) has kind {kind:?}, which wavejit cannot pass (arguments: {})",
                    describe_args(k)
                ))
            }
        }
    }
    for a in k.args.iter() {
        let ArgKind::Hidden(h) = &a.kind else {
            continue;
        };
        let v: u64 = match h {
            HiddenArg::BlockCount(d) => geo.grid.get(*d as usize).copied().unwrap_or(1) as u64,
            HiddenArg::GroupSize(d) => geo.block.get(*d as usize).copied().unwrap_or(1) as u64,
            // The grid is a whole number of workgroups, so there is no partial group.
            HiddenArg::Remainder(_) => 0,
            HiddenArg::GlobalOffset(_) => 0,
            HiddenArg::GridDims => geo.dims() as u64,
            HiddenArg::DynamicLdsSize => geo.dynamic_lds as u64,
            // Apertures: the high 32 bits of the FLAT aperture bases.
            HiddenArg::PrivateBase => PRIVATE_APERTURE_BASE >> 32,
            HiddenArg::SharedBase => SHARED_APERTURE_BASE >> 32,
            HiddenArg::PrintfBuffer => printf_buffer,
            // No hostcall/heap/queue services: null.
            _ => 0,
        };
        put(&mut seg, a, v)?;
    }
    Ok(seg)
}

/// Size of an AQL kernel dispatch packet.
pub const DISPATCH_PACKET_SIZE: usize = 64;

/// The AQL kernel dispatch packet (`hsa_kernel_dispatch_packet_t`): header type
/// KERNEL_DISPATCH (2), setup = dimensions, workgroup sizes (u16), grid sizes in work-items
/// (u32), private and group segment sizes, kernel object (the `.kd` address) and kernarg
/// address. Errors when a grid size in work-items does not fit in 32 bits.
pub fn dispatch_packet(
    geo: &Geometry,
    private_size: u32,
    group_size: u32,
    kernel_object: u64,
    kernarg: u64,
) -> Result<[u8; DISPATCH_PACKET_SIZE], String> {
    let mut p = [0u8; DISPATCH_PACKET_SIZE];
    let mut w = |off: usize, bytes: &[u8]| p[off..off + bytes.len()].copy_from_slice(bytes);
    w(0, &2u16.to_le_bytes());
    w(2, &geo.dims().to_le_bytes());
    for d in 0..3 {
        let b = u16::try_from(geo.block[d]).map_err(|_| {
            format!(
                "workgroup size {} does not fit the dispatch packet",
                geo.block[d]
            )
        })?;
        w(4 + 2 * d, &b.to_le_bytes());
        let g = geo.grid[d].checked_mul(geo.block[d]).ok_or_else(|| {
            format!(
                "grid of {} work-items in dimension {d} exceeds 2^32",
                geo.grid[d] as u64 * geo.block[d] as u64
            )
        })?;
        w(12 + 4 * d, &g.to_le_bytes());
    }
    w(24, &private_size.to_le_bytes());
    w(28, &group_size.to_le_bytes());
    w(32, &kernel_object.to_le_bytes());
    w(40, &kernarg.to_le_bytes());
    Ok(p)
}
