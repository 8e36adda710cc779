//! The AMDGPU metadata note (`NT_AMDGPU_METADATA`, owner `AMDGPU`): a MessagePack map with
//! `amdhsa.version`, `amdhsa.target` and `amdhsa.kernels` (AMDGPUUsage.rst, "Code Object V3
//! to V6 Metadata").

use super::LoadError;
use rmpv::Value;

/// Maximum MessagePack nesting accepted (real metadata nests 4 deep).
const MAX_DEPTH: usize = 16;

/// How a kernel argument is passed (`.value_kind`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// `global_buffer`: a pointer to device memory.
    GlobalBuffer,
    /// `by_value`: the value itself.
    ByValue,
    /// `dynamic_shared_pointer`: a pointer into dynamically allocated LDS.
    DynamicSharedPointer,
    /// A hidden argument filled in by the runtime.
    Hidden(HiddenArg),
    /// Any other kind (`image`, `sampler`, `pipe`, `queue`, ...), by its metadata name.
    Other(String),
}

/// Hidden (implicit) kernel arguments (`.value_kind` `hidden_*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HiddenArg {
    /// `hidden_block_count_{x,y,z}`: workgroups in dimension 0..2.
    BlockCount(u8),
    /// `hidden_group_size_{x,y,z}`: work-group size in dimension 0..2.
    GroupSize(u8),
    /// `hidden_remainder_{x,y,z}`: size of the last, partial work-group.
    Remainder(u8),
    /// `hidden_global_offset_{x,y,z}`.
    GlobalOffset(u8),
    /// `hidden_grid_dims`: number of grid dimensions.
    GridDims,
    /// `hidden_printf_buffer`.
    PrintfBuffer,
    /// `hidden_hostcall_buffer`.
    HostcallBuffer,
    /// `hidden_multigrid_sync_arg`.
    MultigridSyncArg,
    /// `hidden_heap_v1`.
    HeapV1,
    /// `hidden_default_queue`.
    DefaultQueue,
    /// `hidden_completion_action`.
    CompletionAction,
    /// `hidden_dynamic_lds_size`.
    DynamicLdsSize,
    /// `hidden_private_base`.
    PrivateBase,
    /// `hidden_shared_base`.
    SharedBase,
    /// `hidden_queue_ptr`.
    QueuePtr,
    /// `hidden_none`: unused space.
    None,
    /// Another `hidden_*` kind, by its full metadata name.
    Unknown(String),
}

impl ArgKind {
    /// Maps a `.value_kind` string.
    pub fn from_value_kind(s: &str) -> ArgKind {
        let dim = |suffix: &str| match suffix {
            "x" => Some(0u8),
            "y" => Some(1),
            "z" => Some(2),
            _ => None,
        };
        let xyz =
            |prefix: &str, f: fn(u8) -> HiddenArg| s.strip_prefix(prefix).and_then(dim).map(f);
        let hidden = xyz("hidden_block_count_", HiddenArg::BlockCount)
            .or_else(|| xyz("hidden_group_size_", HiddenArg::GroupSize))
            .or_else(|| xyz("hidden_remainder_", HiddenArg::Remainder))
            .or_else(|| xyz("hidden_global_offset_", HiddenArg::GlobalOffset));
        if let Some(h) = hidden {
            return ArgKind::Hidden(h);
        }
        match s {
            "global_buffer" => ArgKind::GlobalBuffer,
            "by_value" => ArgKind::ByValue,
            "dynamic_shared_pointer" => ArgKind::DynamicSharedPointer,
            "hidden_grid_dims" => ArgKind::Hidden(HiddenArg::GridDims),
            "hidden_printf_buffer" => ArgKind::Hidden(HiddenArg::PrintfBuffer),
            "hidden_hostcall_buffer" => ArgKind::Hidden(HiddenArg::HostcallBuffer),
            "hidden_multigrid_sync_arg" => ArgKind::Hidden(HiddenArg::MultigridSyncArg),
            "hidden_heap_v1" => ArgKind::Hidden(HiddenArg::HeapV1),
            "hidden_default_queue" => ArgKind::Hidden(HiddenArg::DefaultQueue),
            "hidden_completion_action" => ArgKind::Hidden(HiddenArg::CompletionAction),
            "hidden_dynamic_lds_size" => ArgKind::Hidden(HiddenArg::DynamicLdsSize),
            "hidden_private_base" => ArgKind::Hidden(HiddenArg::PrivateBase),
            "hidden_shared_base" => ArgKind::Hidden(HiddenArg::SharedBase),
            "hidden_queue_ptr" => ArgKind::Hidden(HiddenArg::QueuePtr),
            "hidden_none" => ArgKind::Hidden(HiddenArg::None),
            h if h.starts_with("hidden_") => ArgKind::Hidden(HiddenArg::Unknown(h.to_string())),
            other => ArgKind::Other(other.to_string()),
        }
    }

    /// True for the kinds the caller passes explicitly (not `Hidden`).
    pub fn is_explicit(&self) -> bool {
        !matches!(self, ArgKind::Hidden(_))
    }
}

impl std::fmt::Display for ArgKind {
    /// The metadata `.value_kind` spelling (`global_buffer`, `hidden_block_count_x`, ...).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let xyz = |d: u8| ["x", "y", "z"].get(d as usize).copied().unwrap_or("?");
        match self {
            ArgKind::GlobalBuffer => f.write_str("global_buffer"),
            ArgKind::ByValue => f.write_str("by_value"),
            ArgKind::DynamicSharedPointer => f.write_str("dynamic_shared_pointer"),
            ArgKind::Other(s) => f.write_str(s),
            ArgKind::Hidden(h) => match h {
                HiddenArg::BlockCount(d) => write!(f, "hidden_block_count_{}", xyz(*d)),
                HiddenArg::GroupSize(d) => write!(f, "hidden_group_size_{}", xyz(*d)),
                HiddenArg::Remainder(d) => write!(f, "hidden_remainder_{}", xyz(*d)),
                HiddenArg::GlobalOffset(d) => write!(f, "hidden_global_offset_{}", xyz(*d)),
                HiddenArg::GridDims => f.write_str("hidden_grid_dims"),
                HiddenArg::PrintfBuffer => f.write_str("hidden_printf_buffer"),
                HiddenArg::HostcallBuffer => f.write_str("hidden_hostcall_buffer"),
                HiddenArg::MultigridSyncArg => f.write_str("hidden_multigrid_sync_arg"),
                HiddenArg::HeapV1 => f.write_str("hidden_heap_v1"),
                HiddenArg::DefaultQueue => f.write_str("hidden_default_queue"),
                HiddenArg::CompletionAction => f.write_str("hidden_completion_action"),
                HiddenArg::DynamicLdsSize => f.write_str("hidden_dynamic_lds_size"),
                HiddenArg::PrivateBase => f.write_str("hidden_private_base"),
                HiddenArg::SharedBase => f.write_str("hidden_shared_base"),
                HiddenArg::QueuePtr => f.write_str("hidden_queue_ptr"),
                HiddenArg::None => f.write_str("hidden_none"),
                HiddenArg::Unknown(s) => f.write_str(s),
            },
        }
    }
}

/// One kernel argument from the metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgInfo {
    /// `.name`, when the compiler recorded it.
    pub name: Option<String>,
    /// `.offset` in the kernarg segment.
    pub offset: u32,
    /// `.size` in bytes.
    pub size: u32,
    /// `.value_kind`.
    pub kind: ArgKind,
}

/// One `amdhsa.kernels` entry, as read from the note (before cross-checking).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct KernelMeta {
    /// `.name`.
    pub name: String,
    /// `.symbol` (the descriptor symbol, `<name>.kd`).
    pub symbol: String,
    /// `.args`.
    pub args: Vec<ArgInfo>,
    /// `.kernarg_segment_size`.
    pub kernarg_size: u32,
    /// `.kernarg_segment_align`.
    pub kernarg_align: u32,
    /// `.group_segment_fixed_size`.
    pub group_segment_fixed_size: u32,
    /// `.private_segment_fixed_size`.
    pub private_segment_fixed_size: u32,
    /// `.wavefront_size`.
    pub wave_size: u32,
    /// `.sgpr_count`.
    pub sgpr_count: u32,
    /// `.vgpr_count`.
    pub vgpr_count: u32,
    /// `.agpr_count` (0 when absent).
    pub agpr_count: u32,
    /// `.max_flat_workgroup_size`.
    pub max_flat_workgroup_size: u32,
    /// `.uses_dynamic_stack` (false when absent).
    pub uses_dynamic_stack: bool,
}

/// The decoded metadata note.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Metadata {
    /// `amdhsa.version` `[major, minor]`.
    pub version: Vec<u64>,
    /// `amdhsa.target`, when present.
    pub target: Option<String>,
    /// `amdhsa.kernels`.
    pub kernels: Vec<KernelMeta>,
}

fn get<'a>(map: &'a [(Value, Value)], key: &str) -> Option<&'a Value> {
    map.iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

fn bad(what: String) -> LoadError {
    LoadError::MalformedMetadata(what)
}

fn req_u32(map: &[(Value, Value)], key: &str, ctx: &str) -> Result<u32, LoadError> {
    opt_u32(map, key, ctx)?.ok_or_else(|| bad(format!("{ctx}: missing {key}")))
}

fn opt_u32(map: &[(Value, Value)], key: &str, ctx: &str) -> Result<Option<u32>, LoadError> {
    match get(map, key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|x| u32::try_from(x).ok())
            .map(Some)
            .ok_or_else(|| {
                bad(format!(
                    "{ctx}: {key} is not a 32-bit unsigned integer ({v})"
                ))
            }),
    }
}

fn req_str(map: &[(Value, Value)], key: &str, ctx: &str) -> Result<String, LoadError> {
    match get(map, key) {
        None => Err(bad(format!("{ctx}: missing {key}"))),
        Some(v) => v
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| bad(format!("{ctx}: {key} is not a string"))),
    }
}

fn parse_arg(v: &Value, ctx: &str) -> Result<ArgInfo, LoadError> {
    let m = v
        .as_map()
        .ok_or_else(|| bad(format!("{ctx} is not a map")))?;
    let name = match get(m, ".name") {
        None => None,
        Some(n) => Some(
            n.as_str()
                .ok_or_else(|| bad(format!("{ctx}: .name is not a string")))?
                .to_string(),
        ),
    };
    Ok(ArgInfo {
        name,
        offset: req_u32(m, ".offset", ctx)?,
        size: req_u32(m, ".size", ctx)?,
        kind: ArgKind::from_value_kind(&req_str(m, ".value_kind", ctx)?),
    })
}

fn parse_kernel(v: &Value, idx: usize) -> Result<KernelMeta, LoadError> {
    let m = v
        .as_map()
        .ok_or_else(|| bad(format!("amdhsa.kernels[{idx}] is not a map")))?;
    let name = req_str(m, ".name", &format!("amdhsa.kernels[{idx}]"))?;
    let ctx = format!("kernel {name}");
    let args = match get(m, ".args") {
        None => Vec::new(),
        Some(a) => a
            .as_array()
            .ok_or_else(|| bad(format!("{ctx}: .args is not an array")))?
            .iter()
            .enumerate()
            .map(|(i, a)| parse_arg(a, &format!("{ctx}: argument {i}")))
            .collect::<Result<_, _>>()?,
    };
    let uses_dynamic_stack = match get(m, ".uses_dynamic_stack") {
        None => false,
        Some(b) => b
            .as_bool()
            .ok_or_else(|| bad(format!("{ctx}: .uses_dynamic_stack is not a boolean")))?,
    };
    Ok(KernelMeta {
        symbol: req_str(m, ".symbol", &ctx)?,
        args,
        kernarg_size: req_u32(m, ".kernarg_segment_size", &ctx)?,
        kernarg_align: req_u32(m, ".kernarg_segment_align", &ctx)?,
        group_segment_fixed_size: req_u32(m, ".group_segment_fixed_size", &ctx)?,
        private_segment_fixed_size: req_u32(m, ".private_segment_fixed_size", &ctx)?,
        wave_size: req_u32(m, ".wavefront_size", &ctx)?,
        sgpr_count: req_u32(m, ".sgpr_count", &ctx)?,
        vgpr_count: req_u32(m, ".vgpr_count", &ctx)?,
        agpr_count: opt_u32(m, ".agpr_count", &ctx)?.unwrap_or(0),
        max_flat_workgroup_size: req_u32(m, ".max_flat_workgroup_size", &ctx)?,
        uses_dynamic_stack,
        name,
    })
}

/// Decodes the note's MessagePack payload.
pub fn parse(desc: &[u8]) -> Result<Metadata, LoadError> {
    let mut rd = desc;
    let root = rmpv::decode::read_value_with_max_depth(&mut rd, MAX_DEPTH)
        .map_err(|e| bad(format!("not valid MessagePack: {e}")))?;
    let m = root
        .as_map()
        .ok_or_else(|| bad("the root is not a map".into()))?;
    let version = match get(m, "amdhsa.version") {
        None => return Err(bad("missing amdhsa.version".into())),
        Some(v) => v
            .as_array()
            .and_then(|a| a.iter().map(Value::as_u64).collect::<Option<Vec<_>>>())
            .ok_or_else(|| bad("amdhsa.version is not an array of integers".into()))?,
    };
    let target = match get(m, "amdhsa.target") {
        None => None,
        Some(t) => Some(
            t.as_str()
                .ok_or_else(|| bad("amdhsa.target is not a string".into()))?
                .to_string(),
        ),
    };
    let kernels = match get(m, "amdhsa.kernels") {
        None => return Err(bad("missing amdhsa.kernels".into())),
        Some(k) => k
            .as_array()
            .ok_or_else(|| bad("amdhsa.kernels is not an array".into()))?
            .iter()
            .enumerate()
            .map(|(i, k)| parse_kernel(k, i))
            .collect::<Result<_, _>>()?,
    };
    Ok(Metadata {
        version,
        target,
        kernels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_kinds() {
        assert_eq!(
            ArgKind::from_value_kind("global_buffer"),
            ArgKind::GlobalBuffer
        );
        assert_eq!(
            ArgKind::from_value_kind("hidden_block_count_y"),
            ArgKind::Hidden(HiddenArg::BlockCount(1))
        );
        assert_eq!(
            ArgKind::from_value_kind("hidden_group_size_z"),
            ArgKind::Hidden(HiddenArg::GroupSize(2))
        );
        assert_eq!(
            ArgKind::from_value_kind("hidden_remainder_x"),
            ArgKind::Hidden(HiddenArg::Remainder(0))
        );
        assert_eq!(
            ArgKind::from_value_kind("hidden_group_size_w"),
            ArgKind::Hidden(HiddenArg::Unknown("hidden_group_size_w".into()))
        );
        assert_eq!(
            ArgKind::from_value_kind("image"),
            ArgKind::Other("image".into())
        );
        assert!(!ArgKind::from_value_kind("hidden_none").is_explicit());
        // Display gives back the metadata spelling.
        for k in [
            "global_buffer",
            "by_value",
            "dynamic_shared_pointer",
            "image",
            "hidden_block_count_z",
            "hidden_group_size_x",
            "hidden_remainder_y",
            "hidden_global_offset_z",
            "hidden_grid_dims",
            "hidden_printf_buffer",
            "hidden_hostcall_buffer",
            "hidden_multigrid_sync_arg",
            "hidden_heap_v1",
            "hidden_default_queue",
            "hidden_completion_action",
            "hidden_dynamic_lds_size",
            "hidden_private_base",
            "hidden_shared_base",
            "hidden_queue_ptr",
            "hidden_none",
            "hidden_new_thing",
        ] {
            assert_eq!(ArgKind::from_value_kind(k).to_string(), k);
        }
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse(&[]).is_err());
        assert!(parse(&[0xc1]).is_err());
        // A map with a wrong amdhsa.version type: {"amdhsa.version": 1, "amdhsa.kernels": []}.
        let mut v = vec![0x82, 0xae];
        v.extend(b"amdhsa.version");
        v.push(0x01);
        v.push(0xae);
        v.extend(b"amdhsa.kernels");
        v.push(0x90);
        let e = parse(&v).unwrap_err().to_string();
        assert!(e.contains("amdhsa.version"), "{e}");
        // Deep nesting is rejected, not recursed into.
        assert!(parse(&[0x91; 4096]).is_err());
    }
}
