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
use wavejit_translator::wave::{
    sreg, RegSet, WaveState, AGPR_BASE, MAX_LANES, NUM_SREGS, NUM_VREGS,
};

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
/// (The dispatcher computes the same state once per launch, [`WaveTemplate`], and copies it
/// into every wave.)
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
    let mut s = user_sgprs(kd, inputs, kernarg)?;
    let gfx12 = gpu.family() == Some(Family::Gfx12);
    if !gfx12 {
        for (d, &id) in wg.iter().enumerate() {
            if kd.workgroup_id_enabled(d) {
                s.push(id);
            }
        }
        if kd.workgroup_info() {
            s.push(workgroup_info(wave, inputs.waves_per_group));
        }
    } else {
        set_gfx12_ids(&mut st.sgpr, wg, wave);
    }
    check_sgpr_count(s.len())?;
    st.sgpr[..s.len()].copy_from_slice(s.as_slice());
    let (v0, exec) = workitem_ids(st.wave_size, inputs.block, kd.workitem_id_vgprs(), wave)?;
    // The lanes of the wave's work-items (EXEC is contiguous from lane 0); the others keep
    // their (zero) value.
    let lanes = exec.count_ones() as usize;
    st.vgpr[0][..lanes].copy_from_slice(&v0[..lanes]);
    st.set_exec(exec);
    st.mode = initial_mode(kd, gfx12);
    st.pc = pc;
    Ok(())
}

/// The initial state of every wave of one launch, computed once ([`WaveTemplate::new`]) and
/// copied into each wave ([`WaveTemplate::start_wave`]): the waves of a launch differ only
/// in their workgroup ids, the workgroup-info SGPR and their work-item ids, which depend on
/// the wave's index in its workgroup alone.
pub struct WaveTemplate {
    /// The scalar file every wave starts with: user SGPRs (and a raw dispatch's user
    /// data), zeros elsewhere (EXEC and the workgroup ids are set per wave).
    sgpr: [u32; NUM_SREGS],
    /// SGPR holding workgroup id x, y, z when enabled (GFX9-GFX11; `u8::MAX`: none).
    wg_slot: [u8; 3],
    /// SGPR holding the workgroup info (`u8::MAX`: none).
    info_slot: u8,
    waves_per_group: u32,
    gfx12: bool,
    /// v0 (packed work-item ids) and EXEC of each wave index of a workgroup.
    ids: Vec<([u32; MAX_LANES], u64)>,
    mode: u32,
    pc: u64,
    wave_size: u32,
    /// The SGPRs the template sets from s0 (the user SGPRs and the workgroup ids/info);
    /// every other slot of `sgpr` is zero.
    init_sgprs: usize,
    /// VGPRs (from v0) and AGPRs the kernel's metadata says it uses.
    vgprs: usize,
    agprs: usize,
}

/// What [`WaveTemplate::start_wave`] resets in a reused wave state besides the registers
/// every wave starts with (`s[0..n)` of the template, v0, EXEC): the registers an earlier
/// wave may have written ([`WaveTemplate::reset_plan`]). Made when that set grows, not per
/// wave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResetPlan {
    /// SGPRs copied from the template: `s[0..sgpr_copy)`.
    sgpr_copy: usize,
    /// Other scalar slots to zero.
    sgpr_zero: Vec<u8>,
    /// VGPR/AGPR slot ranges `[from, to)` to zero (v0 excluded).
    vgpr_zero: Vec<(u16, u16)>,
}

impl WaveTemplate {
    /// The template of a launch: `vgprs`/`agprs` are the kernel's register counts (0 and 0:
    /// unknown, clear all), `user_data` replaces s[0..n) (raw dispatches; at most
    /// USER_SGPR_COUNT values are used), `pc` is the kernel's entry. Errors as
    /// [`init_wave`] does.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        gpu: Gpu,
        kd: &KernelDescriptor,
        inputs: &WaveInputs,
        kernarg: &[u8],
        wave_size: u32,
        (vgprs, agprs): (u32, u32),
        user_data: &[u32],
        pc: u64,
    ) -> Result<WaveTemplate, String> {
        let s = user_sgprs(kd, inputs, kernarg)?;
        let gfx12 = gpu.family() == Some(Family::Gfx12);
        let mut sgpr = [0u32; NUM_SREGS];
        sgpr[..s.len()].copy_from_slice(s.as_slice());
        let n = user_data.len().min(s.len());
        sgpr[..n].copy_from_slice(&user_data[..n]);
        let mut next = s.len();
        let mut wg_slot = [u8::MAX; 3];
        let mut info_slot = u8::MAX;
        if !gfx12 {
            for (d, slot) in wg_slot.iter_mut().enumerate() {
                if kd.workgroup_id_enabled(d) {
                    *slot = next as u8;
                    next += 1;
                }
            }
            if kd.workgroup_info() {
                info_slot = next as u8;
                next += 1;
            }
        }
        check_sgpr_count(next)?;
        let ids = (0..inputs.waves_per_group)
            .map(|w| workitem_ids(wave_size, inputs.block, kd.workitem_id_vgprs(), w))
            .collect::<Result<Vec<_>, String>>()?;
        let (nv, na) = cleared_registers(vgprs, agprs);
        Ok(WaveTemplate {
            init_sgprs: next,
            sgpr,
            wg_slot,
            info_slot,
            waves_per_group: inputs.waves_per_group,
            gfx12,
            ids,
            mode: initial_mode(kd, gfx12),
            pc,
            wave_size,
            vgprs: nv,
            agprs: na,
        })
    }

    /// What [`WaveTemplate::start_wave`] must reset in a wave state that earlier waves of
    /// this launch used, when they can only have written the registers in `written`
    /// ([`wavejit_translator::exec::Translator::registers_written`]); `None`: unknown, reset
    /// the whole scalar file and every VGPR and AGPR the kernel's metadata counts.
    ///
    /// A state the launch starts with is zeroed whole, and each wave is reset to the
    /// template's state in every register some wave may have written, so a register
    /// outside `written` still holds the template's value (zero) when a wave starts.
    pub fn reset_plan(&self, written: Option<&RegSet>) -> ResetPlan {
        let metadata = |r: usize| {
            (1..self.vgprs).contains(&r) || (AGPR_BASE..AGPR_BASE + self.agprs).contains(&r)
        };
        let (sgpr_copy, sgpr_zero, vgpr) = match written {
            None => (
                NUM_SREGS,
                vec![],
                (1..NUM_VREGS).filter(|&r| metadata(r)).collect(),
            ),
            Some(w) => {
                // A fixed-size copy (the template is zero past its initial SGPRs; the short
                // one the compiler writes out in line); then the written slots past it,
                // except those `start_wave` sets anyway.
                let copy = if self.init_sgprs <= SGPR_SHORT {
                    SGPR_SHORT
                } else {
                    SGPR_LIST.max(self.init_sgprs).min(NUM_SREGS)
                };
                let set_anyway = |c: usize| {
                    c == sreg::EXEC_LO as usize
                        || (c == sreg::EXEC_HI as usize && self.wave_size == 64)
                        || (self.gfx12
                            && (sreg::TTMP0 as usize + 7..=sreg::TTMP0 as usize + 9).contains(&c))
                };
                let zero = w
                    .sgprs()
                    .filter(|&c| c >= copy && !set_anyway(c))
                    .map(|c| c as u8)
                    .collect();
                let vgpr: Vec<usize> = (1..NUM_VREGS)
                    .filter(|&r| w.has_vgpr(r) || (w.vgpr_unknown && metadata(r)))
                    .collect();
                (copy, zero, vgpr)
            }
        };
        // Consecutive registers as one range (one fill).
        let mut vgpr_zero: Vec<(u16, u16)> = vec![];
        for r in vgpr {
            match vgpr_zero.last_mut() {
                Some((_, to)) if *to as usize == r => *to += 1,
                _ => vgpr_zero.push((r as u16, r as u16 + 1)),
            }
        }
        ResetPlan {
            sgpr_copy,
            sgpr_zero,
            vgpr_zero,
        }
    }

    /// Makes `st` wave `wave` of workgroup `wg` at the kernel's entry: the template's
    /// registers set, the registers `plan` names cleared, flags zeroed. `st` must be a
    /// state this launch started zeroed and whose earlier waves wrote only registers `plan`
    /// covers ([`WaveTemplate::reset_plan`]). Its counters carry over: they sum the waves
    /// the state ran, and the dispatcher adds each state's sum once, when its thread is
    /// done (one addition per state, not per wave).
    ///
    /// A wave32 wave gets lanes 0..31 only: no op of a wave32 block reads or writes lanes
    /// 32..63 of a register (the IR's lane rule, `wavejit_translator::ir`; the translator's
    /// `wave32_lanes` test runs random wave32 programs with other values there), so they
    /// keep the zeroes the state started with.
    #[inline(always)]
    pub fn start_wave(&self, st: &mut WaveState, wg: [u32; 3], wave: usize, plan: &ResetPlan) {
        // Constant sizes where they apply: copies the compiler writes out in line.
        // The other sizes out of line, so that the compiler does not merge the copies into
        // one `memcpy` call of a variable size.
        if plan.sgpr_copy == SGPR_SHORT {
            st.sgpr[..SGPR_SHORT].copy_from_slice(&self.sgpr[..SGPR_SHORT]);
        } else {
            self.copy_sgprs(st, plan.sgpr_copy);
        }
        for &c in &plan.sgpr_zero {
            st.sgpr[c as usize] = 0;
        }
        if self.gfx12 {
            set_gfx12_ids(&mut st.sgpr, wg, wave as u32);
        } else {
            for (d, &slot) in self.wg_slot.iter().enumerate() {
                if let Some(r) = st.sgpr.get_mut(slot as usize) {
                    *r = wg[d];
                }
            }
            if let Some(r) = st.sgpr.get_mut(self.info_slot as usize) {
                *r = workgroup_info(wave as u32, self.waves_per_group);
            }
        }
        let (v0, exec) = &self.ids[wave];
        if self.wave_size == 32 {
            st.vgpr[0][..32].copy_from_slice(&v0[..32]);
            for &(from, to) in &plan.vgpr_zero {
                for r in &mut st.vgpr[from as usize..to as usize] {
                    r[..32].fill(0);
                }
            }
        } else {
            st.vgpr[0] = *v0;
            for &(from, to) in &plan.vgpr_zero {
                st.vgpr[from as usize..to as usize]
                    .as_flattened_mut()
                    .fill(0);
            }
        }
        st.wave_size = self.wave_size;
        st.set_exec(*exec);
        st.scc = 0;
        st.mode = self.mode;
        st.status = 0;
        st.trapsts = 0;
        st.pc = self.pc;
        st.credit = 0;
    }
}

impl WaveTemplate {
    /// Copies the template's `s[0..n)` into `st` (`n` > [`SGPR_SHORT`]).
    #[inline(never)]
    fn copy_sgprs(&self, st: &mut WaveState, n: usize) {
        if n == SGPR_LIST {
            st.sgpr[..SGPR_LIST].copy_from_slice(&self.sgpr[..SGPR_LIST]);
        } else {
            st.sgpr[..n].copy_from_slice(&self.sgpr[..n]);
        }
    }
}

/// The user SGPRs of a wave (the same for every wave of a launch), padded to
/// USER_SGPR_COUNT.
fn user_sgprs(
    kd: &KernelDescriptor,
    inputs: &WaveInputs,
    kernarg: &[u8],
) -> Result<SgprList, String> {
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
    Ok(s)
}

/// The workgroup-info SGPR: {first_wave[31], ordered_append_term[16:6],
/// threadgroup_size_in_waves[5:0]}.
fn workgroup_info(wave: u32, waves_per_group: u32) -> u32 {
    let first = if wave == 0 { 1u32 << 31 } else { 0 };
    first | (waves_per_group & 0x3f)
}

/// GFX12 (architected SGPRs): the workgroup ids in ttmp9 (x) and ttmp7 (y low 16 bits, z
/// high 16 bits), and TTMP8 = {DebugMark[31], GridYZvalid[30], waveIDinGroup[29:25],
/// dispatchIndex[24:0]} (RDNA4 ISA L1465): the wave's index in its workgroup, which
/// compilers read instead of deriving it from the work-item ids (Triton does).
fn set_gfx12_ids(sgpr: &mut [u32; NUM_SREGS], wg: [u32; 3], wave: u32) {
    sgpr[sreg::TTMP0 as usize + 9] = wg[0];
    sgpr[sreg::TTMP0 as usize + 7] = (wg[1] & 0xffff) | (wg[2] << 16);
    sgpr[sreg::TTMP0 as usize + 8] = (wave & 0x1f) << 25;
}

/// Errors when `n` initial SGPRs would run past the SGPR file.
fn check_sgpr_count(n: usize) -> Result<(), String> {
    if n > sreg::FLAT_SCRATCH_LO as usize || n > SGPR_LIST {
        return Err(format!("{n} initial SGPRs exceed the SGPR file"));
    }
    Ok(())
}

/// MODE at wave start: FP_ROUND/FP_DENORM from rsrc1 FLOAT_MODE, DX10_CLAMP (bit 8) and IEEE
/// (bit 9) from rsrc1 on GFX9/GFX11.
fn initial_mode(kd: &KernelDescriptor, gfx12: bool) -> u32 {
    let mut mode = kd.float_mode() & 0xff;
    if !gfx12 {
        mode |= (kd.dx10_clamp() as u32) << 8 | (kd.ieee_mode() as u32) << 9;
    }
    mode
}

/// v0 (all 64 lanes; zero beyond the wave's work-items) and EXEC of wave `wave` of a
/// workgroup of `block` work-items, with `ids` (ENABLE_VGPR_WORKITEM_ID) selecting which
/// of y and z are packed in.
fn workitem_ids(
    wave_size: u32,
    block: [u32; 3],
    ids: u32,
    wave: u32,
) -> Result<([u32; MAX_LANES], u64), String> {
    let mut v0 = [0u32; MAX_LANES];
    let ws = (wave_size as usize).min(MAX_LANES);
    let [bx, by, bz] = block;
    let total = bx as u64 * by as u64 * bz as u64;
    if total == 0 {
        return Err("empty workgroup".into());
    }
    let mut exec = 0u64;
    let first = wave as u64 * ws as u64;
    let (bx, by) = (bx as u64, by as u64);
    // Ids of the wave's first lane, then stepped lane by lane (no division per lane).
    let (mut x, mut y, mut z) = (first % bx, (first / bx) % by, first / (bx * by));
    let lanes = total.saturating_sub(first).min(ws as u64) as usize;
    for (lane, v) in v0[..lanes].iter_mut().enumerate() {
        exec |= 1 << lane;
        let mut id = x as u32 & 0x3ff;
        if ids >= 1 {
            id |= (y as u32 & 0x3ff) << 10;
        }
        if ids >= 2 {
            id |= (z as u32 & 0x3ff) << 20;
        }
        *v = id;
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
    Ok((v0, exec))
}

/// VGPRs (from v0) and AGPRs to clear for a kernel whose metadata gives these counts; 0 and
/// 0 (unknown) clear everything.
fn cleared_registers(vgprs: u32, agprs: u32) -> (usize, usize) {
    if vgprs == 0 && agprs == 0 {
        (AGPR_BASE, NUM_VREGS - AGPR_BASE)
    } else {
        (
            (vgprs as usize).min(AGPR_BASE),
            (agprs as usize).min(NUM_VREGS - AGPR_BASE),
        )
    }
}

/// Room for the initial SGPRs: at most 31 user SGPRs (USER_SGPR_COUNT is a 5-bit field of
/// rsrc2), three workgroup ids and the workgroup info.
const SGPR_LIST: usize = 40;

/// The SGPR copy of a wave start when the initial SGPRs fit: 128 bytes, which the compiler
/// copies in line (a longer copy calls `memcpy`).
const SGPR_SHORT: usize = 32;

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
    let (nv, na) = cleared_registers(vgprs, agprs);
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
