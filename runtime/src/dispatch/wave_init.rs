//! Initial wave state from the kernel descriptor (AMDGPUUsage "Initial Kernel Execution
//! State"; notes/toolchain.md §3.3).
//!
//! SGPRs, in order: the enabled user SGPRs (private segment buffer 4, dispatch ptr 2, queue
//! ptr 2, kernarg segment ptr 2, dispatch id 2, flat scratch init 2, private segment size 1),
//! then the preloaded kernarg dwords, then padding up to USER_SGPR_COUNT from rsrc2 (gfx1100
//! pads to 15), then the enabled system SGPRs: workgroup id x, y, z and workgroup info.
//! All wavejit targets have architected flat scratch, so there is no private segment wave
//! offset SGPR. On GFX12 (architected SGPRs) the workgroup ids are in ttmp9 (x) and ttmp7
//! (y low 16 bits, z high 16 bits) instead.
//!
//! Kernarg preloading: the preloaded dwords are copied into their SGPRs *and* the wave starts
//! at the kernel entry, so the compatibility prologue (which reloads the same dwords from the
//! kernarg segment and branches to entry + 256) runs too; both paths give the same state.
//!
//! v0 holds the packed work-item ids `x | y << 10 | z << 20` (gfx90a+/GFX11/GFX12), with y
//! and z only when ENABLE_VGPR_WORKITEM_ID enables them. EXEC has the lanes of the wave that
//! hold work-items (a partial last wave has fewer). MODE: FP_ROUND/FP_DENORM from rsrc1
//! FLOAT_MODE, DX10_CLAMP (bit 8) and IEEE (bit 9) from rsrc1 on GFX9/GFX11.

use wavejit_translator::isa::{Family, Gpu};
use wavejit_translator::wave::{sreg, WaveState};

use crate::code_object::KernelDescriptor;

/// Addresses and sizes the user SGPRs point to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WaveInputs {
    /// Kernarg segment address.
    pub kernarg: u64,
    /// Dispatch packet address.
    pub dispatch_ptr: u64,
    /// Queue (amd_queue_t) address.
    pub queue_ptr: u64,
    /// Dispatch id.
    pub dispatch_id: u64,
    /// Private segment bytes per lane.
    pub private_size: u32,
    /// Workgroup size in work-items.
    pub block: [u32; 3],
    /// Waves per workgroup.
    pub waves_per_group: u32,
}

/// Initialises `st` (already zeroed, `wave_size` set) as wave `wave` of workgroup `wg`.
///
/// `kernarg` is the kernarg segment's bytes (for preloading). Errors when the descriptor's
/// enabled user SGPRs exceed its USER_SGPR_COUNT or the SGPRs would run past s105.
#[allow(clippy::too_many_arguments)]
pub fn init_wave(
    st: &mut WaveState,
    gpu: Gpu,
    kd: &KernelDescriptor,
    inputs: &WaveInputs,
    kernarg: &[u8],
    wg: [u32; 3],
    wave: u32,
    pc: u64,
) -> Result<(), String> {
    let mut s = SgprList {
        v: [0; SGPR_LIST],
        n: 0,
    };
    let pair = |s: &mut SgprList, v: u64| {
        s.push(v as u32);
        s.push((v >> 32) as u32);
    };
    if kd.enable_sgpr_private_segment_buffer() {
        // A V# over nothing: base 0, num_records = per-lane size. wavejit addresses scratch
        // through the WaveEnv, not through this descriptor.
        s.extend_from_slice(&[0, 0, inputs.private_size, 0]);
    }
    if kd.enable_sgpr_dispatch_ptr() {
        pair(&mut s, inputs.dispatch_ptr);
    }
    if kd.enable_sgpr_queue_ptr() {
        pair(&mut s, inputs.queue_ptr);
    }
    if kd.enable_sgpr_kernarg_segment_ptr() {
        pair(&mut s, inputs.kernarg);
    }
    if kd.enable_sgpr_dispatch_id() {
        pair(&mut s, inputs.dispatch_id);
    }
    if kd.enable_sgpr_flat_scratch_init() {
        // Scratch offset 0 (per-lane offsets are resolved by the WaveEnv), size per lane.
        s.extend_from_slice(&[0, inputs.private_size]);
    }
    if kd.enable_sgpr_private_segment_size() {
        s.push(inputs.private_size);
    }
    let pre_off = kd.kernarg_preload_offset() as usize * 4;
    for i in 0..kd.kernarg_preload_length() as usize {
        let o = pre_off + 4 * i;
        let d = kernarg
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .unwrap_or(0);
        s.push(d);
    }
    let user = kd.user_sgpr_count() as usize;
    if s.len() > user {
        return Err(format!(
            "kernel descriptor enables {} user SGPRs but USER_SGPR_COUNT is {user}",
            s.len()
        ));
    }
    s.pad_to(user);
    let gfx12 = gpu.family() == Some(Family::Gfx12);
    if !gfx12 {
        for (d, &id) in wg.iter().enumerate() {
            if kd.workgroup_id_enabled(d) {
                s.push(id);
            }
        }
        if kd.workgroup_info() {
            // {first_wave[31], ordered_append_term[16:6], threadgroup_size_in_waves[5:0]}.
            let first = if wave == 0 { 1u32 << 31 } else { 0 };
            s.push(first | (inputs.waves_per_group & 0x3f));
        }
    } else {
        st.sgpr[sreg::TTMP0 as usize + 9] = wg[0];
        st.sgpr[sreg::TTMP0 as usize + 7] = (wg[1] & 0xffff) | (wg[2] << 16);
        // TTMP8 = {DebugMark[31], GridYZvalid[30], waveIDinGroup[29:25],
        // dispatchIndex[24:0]} (RDNA4 ISA L1465): the wave's index in its workgroup, which
        // compilers read instead of deriving it from the work-item ids (Triton does).
        st.sgpr[sreg::TTMP0 as usize + 8] = (wave & 0x1f) << 25;
    }
    if s.len() > sreg::FLAT_SCRATCH_LO as usize || s.len() > SGPR_LIST {
        return Err(format!("{} initial SGPRs exceed the SGPR file", s.len()));
    }
    st.sgpr[..s.len()].copy_from_slice(s.as_slice());

    // Work-item ids and EXEC.
    let ws = st.wave_size as usize;
    let [bx, by, bz] = inputs.block;
    let total = bx as u64 * by as u64 * bz as u64;
    if total == 0 {
        return Err("empty workgroup".into());
    }
    let ids = kd.workitem_id_vgprs();
    let mut exec = 0u64;
    let first = wave as u64 * ws as u64;
    let (bx, by) = (bx as u64, by as u64);
    // Ids of the wave's first lane, then stepped lane by lane (no division per lane).
    let (mut x, mut y, mut z) = (first % bx, (first / bx) % by, first / (bx * by));
    let lanes = total.saturating_sub(first).min(ws as u64) as usize;
    if x + lanes as u64 <= bx {
        // The wave does not wrap in x (the common 1-D case): y and z are the same for
        // every lane, x counts up; a plain loop the compiler vectorises.
        let mut hi = 0u32;
        if ids >= 1 {
            hi |= (y as u32 & 0x3ff) << 10;
        }
        if ids >= 2 {
            hi |= (z as u32 & 0x3ff) << 20;
        }
        for (lane, v) in st.vgpr[0][..lanes].iter_mut().enumerate() {
            *v = ((x + lane as u64) as u32 & 0x3ff) | hi;
        }
        exec = if lanes == 0 {
            0
        } else {
            u64::MAX >> (64 - lanes)
        };
    } else {
        for lane in 0..lanes {
            exec |= 1 << lane;
            let mut v = x as u32 & 0x3ff;
            if ids >= 1 {
                v |= (y as u32 & 0x3ff) << 10;
            }
            if ids >= 2 {
                v |= (z as u32 & 0x3ff) << 20;
            }
            st.vgpr[0][lane] = v;
            x += 1;
            if x == bx {
                x = 0;
                y += 1;
                if y == by {
                    y = 0;
                    z += 1;
                }
            }
        }
    }
    st.set_exec(exec);
    let mut mode = kd.float_mode() & 0xff;
    if !gfx12 {
        mode |= (kd.dx10_clamp() as u32) << 8 | (kd.ieee_mode() as u32) << 9;
    }
    st.mode = mode;
    st.pc = pc;
    Ok(())
}

/// Room for the initial SGPRs: at most 31 user SGPRs (USER_SGPR_COUNT is a 5-bit field of
/// rsrc2), three workgroup ids and the workgroup info.
const SGPR_LIST: usize = 40;

/// The initial SGPRs of a wave as [`init_wave`] lays them out, kept on the stack (this runs
/// for every wave). Pushes past the SGPR file are counted but dropped; `init_wave` rejects
/// such a layout.
struct SgprList {
    v: [u32; SGPR_LIST],
    n: usize,
}

impl SgprList {
    fn push(&mut self, x: u32) {
        if let Some(d) = self.v.get_mut(self.n) {
            *d = x;
        }
        self.n += 1;
    }

    fn extend_from_slice(&mut self, xs: &[u32]) {
        for &x in xs {
            self.push(x);
        }
    }

    fn len(&self) -> usize {
        self.n
    }

    /// Pads with zeros up to `n` entries.
    fn pad_to(&mut self, n: usize) {
        while self.n < n {
            self.push(0);
        }
    }

    fn as_slice(&self) -> &[u32] {
        &self.v[..self.n.min(SGPR_LIST)]
    }
}

/// Clears a wave state for reuse (registers, counters, flags) and sets its wave size.
/// Only the first `vgprs` VGPRs and `agprs` AGPRs are cleared (the ones the kernel's
/// metadata says it uses; clearing all 512 registers of every wave would dominate small
/// workgroups); 0 and 0 clear everything.
pub fn reset_wave(st: &mut WaveState, wave_size: u32, vgprs: u32, agprs: u32) {
    use wavejit_translator::wave::{AGPR_BASE, NUM_VREGS};
    let (nv, na) = if vgprs == 0 && agprs == 0 {
        (AGPR_BASE, NUM_VREGS - AGPR_BASE)
    } else {
        (
            (vgprs as usize).min(AGPR_BASE),
            (agprs as usize).min(NUM_VREGS - AGPR_BASE),
        )
    };
    // One contiguous fill each (this runs for every wave).
    st.vgpr[..nv].as_flattened_mut().fill(0);
    if na > 0 {
        st.vgpr[AGPR_BASE..AGPR_BASE + na]
            .as_flattened_mut()
            .fill(0);
    }
    st.sgpr.fill(0);
    st.scc = 0;
    st.mode = 0;
    st.status = 0;
    st.trapsts = 0;
    st.pc = 0;
    st.wave_size = wave_size;
    st.counters = Default::default();
}
