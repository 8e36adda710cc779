//! Dispatch: grid → workgroups → waves on host threads.
//!
//! Workgroups are spread over the host threads (`std::thread::scope`), which take them in
//! chunks from one shared counter (`WorkQueue`). The waves of one workgroup run
//! cooperatively on one thread ([`schedule`]), so the workgroup's LDS needs no locks. Each
//! thread reuses its wave states, LDS, scratch and memory environment for all its
//! workgroups; a wave starts, right before its first run, from the launch's precomputed
//! initial state ([`wave_init::WaveTemplate`]). The first fault stops the launch: threads
//! stop taking workgroups, and the fault of the lowest-numbered workgroup that faulted is
//! reported.

pub mod float_env;
pub mod kernarg;
pub mod raw;
pub mod schedule;
pub mod wave_init;
pub mod wave_pool;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use thiserror::Error;
use wavejit_translator::env::{workgroup_barrier_state, CodeSource, ExecFault, ExitCode, WaveEnv};
use wavejit_translator::exec::{FreshStart, StartBlock, StartBlockState, Translator};
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::wave::{WaveCounters, WaveState};

use crate::code_object::{ArgKind, HiddenArg, KernelInfo};
use crate::fault::{fault_lane, instruction_text, FaultReport};
use crate::memory::{CodeImage, DeviceMemory, ScratchLayout, WaveMemEnv};
use crate::profile::LaunchControl;
use crate::stats::{Counters, TranslationStats};
pub use kernarg::{ArgValue, Geometry};
use schedule::{run_workgroup, run_workgroup_from, BarrierView, WaveStop};
use wave_init::{ResetPlan, WaveInputs, WaveTemplate};

/// LDS available to one workgroup on gfx942 (and the RDNA targets' per-workgroup limit).
pub const MAX_LDS_BYTES: u32 = 64 * 1024;
/// LDS available to one workgroup on gfx950 (CDNA4 ISA, "LDS": 160 KiB per compute unit,
/// all of it addressable by one workgroup; aiter's gfx950 attention kernels ask for it all).
pub const MAX_LDS_BYTES_GFX950: u32 = 160 * 1024;

/// LDS available to one workgroup of `gpu`.
pub fn max_lds_bytes(gpu: Gpu) -> u32 {
    if gpu == Gpu::GFX950 {
        MAX_LDS_BYTES_GFX950
    } else {
        MAX_LDS_BYTES
    }
}
/// Default per-wave instruction budget (runaway guard).
pub const DEFAULT_BUDGET: u64 = 1 << 34;
/// Instructions a wave runs before the dispatcher checks whether another thread's fault
/// has stopped the launch.
pub const BUDGET_SLICE: u64 = 1 << 24;
/// Largest scratch (private segment) allocation of one workgroup, all lanes together.
pub const MAX_SCRATCH_PER_GROUP: u64 = 256 << 20;
/// Private segment bytes per lane added for kernels that use a dynamic stack.
pub const DYNAMIC_STACK_BYTES: u32 = 16 * 1024;

/// Errors of a launch.
#[derive(Clone, Debug, Error)]
pub enum LaunchError {
    /// Wrong arguments, geometry or resources (the message names the kernel).
    #[error("{0}")]
    Usage(String),
    /// The kernel faulted.
    #[error("{0}")]
    Fault(Box<FaultReport>),
}

/// What to launch.
pub struct LaunchParams<'a> {
    /// The kernel.
    pub kernel: &'a KernelInfo,
    /// The GPU the code object is for.
    pub gpu: Gpu,
    /// The loaded code (kernel pcs are `code.base() + vaddr`).
    pub code: &'a CodeImage,
    /// Launch geometry.
    pub geometry: Geometry,
    /// The explicit arguments, then optionally [`ArgValue::PrintfBuffer`].
    pub args: &'a [ArgValue],
    /// Host threads (0 = all available).
    pub threads: usize,
    /// Per-wave instruction budget.
    pub budget: u64,
}

/// The result of a successful launch.
#[derive(Clone, Debug, Default)]
pub struct LaunchOutcome {
    /// Workgroups executed.
    pub workgroups: u64,
    /// Waves executed.
    pub waves: u64,
    /// Deterministic counters.
    pub counters: Counters,
    /// Translation work done during the launch.
    pub translation: TranslationStats,
    /// Wall time.
    pub elapsed_ns: u64,
    /// Stopped early by [`LaunchControl::cancel`]: the counts are those of the work-groups
    /// that finished.
    pub interrupted: bool,
}

/// Frees device allocations when dropped.
struct Temp<'m> {
    mem: &'m DeviceMemory,
    addrs: Vec<u64>,
}
impl Drop for Temp<'_> {
    fn drop(&mut self) {
        for &a in &self.addrs {
            self.mem.free(a);
        }
    }
}

/// A wave's state and its remaining instruction budget.
type WaveSlot = (Box<WaveState>, u64);

/// Per-launch constants shared by the worker threads.
struct Shared<'a> {
    p: &'a LaunchParams<'a>,
    mem: &'a DeviceMemory,
    runner: &'a WaveRunner<'a>,
    target: Target,
    inputs: WaveInputs,
    kernarg: Vec<u8>,
    lds_bytes: usize,
    per_lane: u32,
    waves_per_group: u32,
    groups: u64,
    control: Option<&'a LaunchControl>,
    /// Values for s[0..n) that replace what the descriptor's user SGPRs would hold (raw
    /// dispatches: the dispatch's USER_DATA registers); empty for code-object launches.
    user_sgprs: &'a [u32],
    /// The translator behind `runner`, when it is one.
    engine: Option<Engine<'a>>,
}

/// The translator a launch's runner runs waves with. Knowing it, the dispatcher resets
/// only the registers its blocks may write when it reuses a wave state
/// ([`Translator::registers_written`]), and starts waves in the kernel's compiled entry
/// block itself once there is one ([`Translator::run_from_counting`]), without the runner.
#[derive(Clone, Copy)]
struct Engine<'a> {
    translator: &'a Translator,
    /// The kernel's compiled entry block, once known (`None`: the runner never sets it).
    start: Option<&'a OnceLock<Option<StartBlock>>>,
}

/// Runs one wave until it ends, waits at a barrier, traps or faults (the signature of
/// [`Translator::run`]).
pub type WaveRunner<'a> = dyn Fn(&CodeImage, &mut WaveState, &mut WaveMemEnv, &mut u64) -> Result<ExitCode, ExecFault>
    + Sync
    + 'a;

/// Runs a kernel. `translator` must be for `p.gpu` and the kernel's wave size.
pub fn launch(
    mem: &DeviceMemory,
    translator: &Translator,
    p: &LaunchParams,
) -> Result<LaunchOutcome, LaunchError> {
    launch_controlled(mem, translator, p, None)
}

/// [`launch`] observed and cancellable through `control` (progress, Ctrl-C).
pub fn launch_controlled(
    mem: &DeviceMemory,
    translator: &Translator,
    p: &LaunchParams,
    control: Option<&LaunchControl>,
) -> Result<LaunchOutcome, LaunchError> {
    let before = translator.stats();
    // The launch's size decides how eagerly long blocks are compiled (`wavejit_translator::tier`).
    let ws = u64::from(p.kernel.wave_size.max(1));
    let count = |d: [u32; 3]| d.iter().map(|&n| u64::from(n)).product::<u64>();
    let waves = count(p.geometry.grid).saturating_mul(count(p.geometry.block).div_ceil(ws));
    translator.set_launch_waves(waves);
    // Once the kernel's entry block is compiled, waves start in its code directly
    // (`Translator::run_from`); until then, and for everything else, the run loop.
    let entry = p.code.base().wrapping_add(p.kernel.entry);
    let start: OnceLock<Option<StartBlock>> = OnceLock::new();
    let run =
        |code: &CodeImage, st: &mut WaveState, env: &mut WaveMemEnv, budget: &mut u64| match start
            .get()
        {
            Some(Some(s)) => translator.run_from(s, code, st, env, budget),
            Some(None) => translator.run(code, st, env, budget),
            None => {
                let key = (st.pc, st.mode, st.wave_size);
                let r = translator.run(code, st, env, budget);
                if key.0 == entry {
                    match translator.start_block(key.0, key.1, key.2) {
                        StartBlockState::Ready(s) => {
                            let _ = start.set(Some(s));
                        }
                        StartBlockState::Never => {
                            let _ = start.set(None);
                        }
                        StartBlockState::NotYet => {}
                    }
                }
                r
            }
        };
    let engine = Engine {
        translator,
        start: Some(&start),
    };
    let mut out = launch_prepared(mem, &run, Some(engine), p, control)?;
    out.translation = translator.stats().since(&before);
    Ok(out)
}

/// [`launch`] with any wave runner (tests drive the dispatcher with scripted waves).
pub fn launch_with(
    mem: &DeviceMemory,
    runner: &WaveRunner,
    p: &LaunchParams,
) -> Result<LaunchOutcome, LaunchError> {
    launch_with_control(mem, runner, p, None)
}

/// [`launch_with`] observed and cancellable through `control`.
pub fn launch_with_control(
    mem: &DeviceMemory,
    runner: &WaveRunner,
    p: &LaunchParams,
    control: Option<&LaunchControl>,
) -> Result<LaunchOutcome, LaunchError> {
    launch_prepared(mem, runner, None, p, control)
}

/// [`launch_with_control`], with the translator behind `runner` when there is one.
fn launch_prepared(
    mem: &DeviceMemory,
    runner: &WaveRunner,
    engine: Option<Engine>,
    p: &LaunchParams,
    control: Option<&LaunchControl>,
) -> Result<LaunchOutcome, LaunchError> {
    let start = Instant::now();
    let k = p.kernel;
    let usage = |m: String| LaunchError::Usage(format!("kernel {}: {m}", k.name));
    let geo = p.geometry;
    if geo.grid.contains(&0) || geo.block.contains(&0) {
        return Err(usage(format!(
            "grid {:?} and block {:?} must be at least 1 in every dimension",
            geo.grid, geo.block
        )));
    }
    let block_items = geo.block.iter().map(|&b| b as u64).product::<u64>();
    let max_wg = if k.max_flat_workgroup_size == 0 {
        1024
    } else {
        k.max_flat_workgroup_size.min(1024)
    };
    if block_items > max_wg as u64 || geo.block.iter().any(|&b| b > 1024) {
        return Err(usage(format!(
            "workgroup of {block_items} work-items exceeds the kernel's maximum of {max_wg}"
        )));
    }
    let ws = k.wave_size;
    if ws != 32 && ws != 64 {
        return Err(usage(format!("unsupported wave size {ws}")));
    }
    let lds = k.group_segment_fixed_size as u64 + geo.dynamic_lds as u64;
    let max_lds = max_lds_bytes(p.gpu);
    if lds > max_lds as u64 {
        return Err(usage(format!(
            "needs {lds} bytes of LDS ({} static + {} dynamic), more than the {max_lds} available",
            k.group_segment_fixed_size, geo.dynamic_lds
        )));
    }
    let per_lane = k
        .private_segment_fixed_size
        .checked_add(if k.uses_dynamic_stack {
            DYNAMIC_STACK_BYTES
        } else {
            0
        })
        .filter(|&s| s <= 1 << 20)
        .ok_or_else(|| usage("private segment larger than 1 MiB per lane".into()))?;
    let groups = geo.grid.iter().map(|&g| g as u64).product::<u64>();
    let wave_items = block_items.div_ceil(ws as u64) * ws as u64;
    if per_lane as u64 * wave_items > MAX_SCRATCH_PER_GROUP {
        return Err(usage(format!(
            "needs {} bytes of scratch per workgroup ({per_lane} per lane), more than the {MAX_SCRATCH_PER_GROUP} wavejit provides",
            per_lane as u64 * wave_items
        )));
    }

    let mut kernarg = kernarg::build_kernargs(k, p.args, &geo).map_err(usage)?;
    // Device copies: kernarg segment (+64 bytes of slack for wide scalar loads at its end),
    // dispatch packet, a zeroed queue descriptor.
    let mut temp = Temp { mem, addrs: vec![] };
    let mut alloc = |len: usize| -> Result<u64, LaunchError> {
        let a = mem
            .alloc(len)
            .map_err(|e| LaunchError::Usage(format!("kernel {}: {e}", k.name)))?;
        temp.addrs.push(a);
        Ok(a)
    };
    let ka = alloc(kernarg.len() + 64)?;
    let dp = alloc(kernarg::DISPATCH_PACKET_SIZE)?;
    let queue = alloc(256)?;
    let kd_addr = p.code.base().wrapping_add(k.kd_addr);
    let packet =
        kernarg::dispatch_packet(&geo, per_lane, lds as u32, kd_addr, ka).map_err(usage)?;
    // hidden_queue_ptr points at the (zeroed) queue descriptor, like the queue-pointer SGPR.
    for a in &k.args {
        if a.kind == ArgKind::Hidden(HiddenArg::QueuePtr) && a.size == 8 {
            if let Some(b) = kernarg.get_mut(a.offset as usize..a.offset as usize + 8) {
                b.copy_from_slice(&queue.to_le_bytes());
            }
        }
    }
    let host = |e| LaunchError::Usage(format!("kernel {}: {e}", k.name));
    mem.write(ka, &kernarg).map_err(host)?;
    mem.write(dp, &packet).map_err(host)?;
    kernarg.resize(kernarg.len() + 64, 0);
    let waves_per_group = block_items.div_ceil(ws as u64) as u32;
    let shared = Shared {
        p,
        mem,
        runner,
        target: Target {
            gpu: p.gpu,
            wave_size: ws,
        },
        inputs: WaveInputs {
            kernarg: ka,
            dispatch_ptr: dp,
            queue_ptr: queue,
            dispatch_id: 0,
            private_size: per_lane,
            block: geo.block,
            waves_per_group,
        },
        kernarg,
        lds_bytes: lds as usize,
        per_lane,
        waves_per_group,
        groups,
        control,
        user_sgprs: &[],
        engine,
    };
    if let Some(c) = control {
        c.start(groups);
    }
    let out = run_grid(&shared, start);
    drop(temp);
    out
}

/// The host's hardware threads, read once: `available_parallelism` reads cgroup files on
/// every call (about 90 µs, most of an empty launch's cost).
fn host_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Runs every workgroup of a prepared launch on the host threads (`start`: when the launch
/// began, for its wall time).
fn run_grid(shared: &Shared, start: Instant) -> Result<LaunchOutcome, LaunchError> {
    let (p, mem, groups) = (shared.p, shared.mem, shared.groups);
    let threads = match p.threads {
        0 => host_threads(),
        n => n,
    }
    .min(groups.min(1024) as usize)
    .max(1);
    let k = p.kernel;
    // Every wave's initial state, computed once for the launch (an error here is every
    // workgroup's fault, reported for the first).
    let template = WaveTemplate::new(
        p.gpu,
        &k.descriptor,
        &shared.inputs,
        &shared.kernarg,
        shared.target.wave_size,
        (k.vgpr_count, k.agpr_count),
        shared.user_sgprs,
        p.code.base().wrapping_add(k.entry),
    );
    let queue = WorkQueue::new(groups, threads);
    let fault: Mutex<Option<(u64, FaultReport)>> = Mutex::new(None);
    let results: Mutex<Vec<(u64, u64, Counters)>> = Mutex::new(vec![]);
    {
        let _gate = mem.begin_launch();
        let work = || {
            let r = worker(shared, &template, &queue, &fault);
            results.lock().unwrap_or_else(|e| e.into_inner()).push(r);
        };
        std::thread::scope(|s| {
            // The calling thread is one of the workers; if the host refuses more threads
            // the launch simply runs on fewer.
            for _ in 1..threads {
                if std::thread::Builder::new().spawn_scoped(s, work).is_err() {
                    break;
                }
            }
            work();
        });
    }
    if let Some((_, f)) = fault.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(LaunchError::Fault(Box::new(f)));
    }
    let mut out = LaunchOutcome::default();
    for (wgs, waves, c) in results.into_inner().unwrap_or_else(|e| e.into_inner()) {
        out.workgroups += wgs;
        out.waves += waves;
        out.counters.add(&c);
    }
    out.elapsed_ns = start.elapsed().as_nanos() as u64;
    out.interrupted = out.workgroups < groups;
    Ok(out)
}

/// Where a workgroup's run failed: `None` when another thread's fault stopped it (nothing
/// to report), else (wave, lane, cause, pc).
type GroupError = Option<(usize, Option<u32>, String, u64)>;

/// One host thread: takes chunks of workgroups until none are left or a fault stops the
/// launch. Returns (workgroups, waves, counters) done by this thread.
///
/// Nothing is allocated per workgroup or wave: the thread's wave states, LDS, scratch and
/// memory environment are taken once and reused, each wave started from the launch's
/// [`WaveTemplate`] (clearing only the registers the kernel uses).
fn worker(
    sh: &Shared,
    template: &Result<WaveTemplate, String>,
    queue: &WorkQueue,
    fault: &Mutex<Option<(u64, FaultReport)>>,
) -> (u64, u64, Counters) {
    // Waves compute with the host FPU: run them under the default float state.
    let _float_env = float_env::KernelFloatEnv::enter();
    let k = sh.p.kernel;
    let ws = sh.target.wave_size;
    let nw = sh.waves_per_group as usize;
    let lane_bytes = sh.per_lane as usize;
    let mut waves: Vec<WaveSlot> = wave_pool::take(nw, ws)
        .into_iter()
        .map(|st| (st, 0))
        .collect();
    let mut lds = vec![0u8; sh.lds_bytes];
    let mut scratch = vec![0u8; nw * ws as usize * lane_bytes];
    // One memory environment for all the thread's waves (`WaveMemEnv::start_wave` points
    // it at the running wave); its allocation cache carries over from wave to wave.
    let mut env = WaveMemEnv::new(
        sh.mem,
        &mut lds,
        &mut scratch,
        ScratchLayout {
            per_lane: lane_bytes as u64,
        },
    );
    let (mut done_groups, mut done_waves) = (0u64, 0u64);
    // What a reused wave state needs reset: remade when the translator's set of written
    // registers grows (a new block), checked once per workgroup through the set's
    // generation (read before the set).
    let generation = || {
        sh.engine
            .map(|e| e.translator.registers_written_generation())
    };
    let written = || sh.engine.map(|e| e.translator.registers_written());
    let mut seen = generation();
    let mut plan = match template {
        Ok(t) => t.reset_plan(written().as_ref()),
        Err(_) => ResetPlan::default(),
    };
    // Block-cache hits of the waves started directly, added to the translator's count when
    // the thread is done.
    let mut hits = 0u64;
    // The kernel's compiled entry block, once there is one: the thread's waves start in it.
    let mut direct: Option<FreshStart> = None;
    let [gx, gy, _] = sh.p.geometry.grid;
    let entry = sh.p.code.base().wrapping_add(k.entry);
    // Workgroups finished but not yet reported to `sh.control`.
    let mut finished = 0u64;
    'chunks: while let Some(chunk) = queue.take() {
        for g in chunk {
            // A cancelled launch stops taking work-groups; running ones finish.
            if queue.stopped() || sh.control.is_some_and(|c| c.is_cancelled()) {
                break 'chunks;
            }
            let wg = [
                (g % gx as u64) as u32,
                ((g / gx as u64) % gy as u64) as u32,
                (g / (gx as u64 * gy as u64)) as u32,
            ];
            let res = match template {
                Err(e) => Err(Some((0usize, None, e.clone(), entry))),
                Ok(t) => {
                    let now = generation();
                    if now != seen {
                        plan = t.reset_plan(written().as_ref());
                        seen = now;
                    }
                    env.clear_workgroup();
                    if direct.is_none() {
                        direct = sh.engine.and_then(|e| match e.start?.get() {
                            Some(Some(s)) => e.translator.fresh_start(s),
                            _ => None,
                        });
                    }
                    run_group(
                        sh,
                        queue,
                        &mut waves,
                        &mut env,
                        direct.as_ref(),
                        &mut hits,
                        WaveStart {
                            template: t,
                            wg,
                            plan: &plan,
                        },
                    )
                }
            };
            match res {
                Ok(()) => {
                    done_groups += 1;
                    done_waves += nw as u64;
                    finished += 1;
                }
                // Another thread's fault stopped this workgroup: nothing to report.
                Err(None) => break 'chunks,
                Err(Some((wave, lane, cause, pc))) => {
                    let report = FaultReport {
                        kernel: k.name.clone(),
                        workgroup: wg,
                        wave: wave as u32,
                        lane,
                        pc: sh.p.code.vaddr(pc).unwrap_or(pc),
                        instruction: instruction_text(&sh.target, sh.p.code as &dyn CodeSource, pc),
                        cause,
                    };
                    let mut f = fault.lock().unwrap_or_else(|e| e.into_inner());
                    if f.as_ref().is_none_or(|(g0, _)| g < *g0) {
                        *f = Some((g, report));
                    }
                    queue.stop();
                    break 'chunks;
                }
            }
        }
        report_progress(sh, &mut finished);
    }
    // The groups of a chunk left early.
    report_progress(sh, &mut finished);
    if let Some(e) = sh.engine {
        e.translator.add_cache_hits(hits);
    }
    // Each state holds the sum of the counters of the waves it ran (`start_wave` carries
    // them over): every workgroup the thread started finished (a fault fails the launch,
    // a cancel stops only between workgroups).
    let mut counters = WaveCounters::default();
    for (st, _) in &waves {
        counters.add(&st.counters);
    }
    wave_pool::give(waves.into_iter().map(|(st, _)| st));
    let mut total = Counters::default();
    total.add_wave(&counters);
    (done_groups, done_waves, total)
}

/// Reports `finished` workgroups to the launch's observer and clears the count. Called per
/// chunk, so the threads update the shared progress counter once per chunk, not once per
/// workgroup.
fn report_progress(sh: &Shared, finished: &mut u64) {
    if let Some(c) = sh.control {
        for _ in 0..*finished {
            c.finished_one();
        }
    }
    *finished = 0;
}

/// How the waves of one workgroup start: wave `i` from the launch's template as wave `i` of
/// workgroup `wg`, resetting what `plan` names ([`WaveTemplate::start_wave`]).
#[derive(Clone, Copy)]
struct WaveStart<'a> {
    template: &'a WaveTemplate,
    wg: [u32; 3],
    plan: &'a ResetPlan,
}

impl WaveStart<'_> {
    /// Starts wave `i` in `st` (in line in the loop of waves: no call per wave).
    #[inline(always)]
    fn start(&self, i: usize, st: &mut WaveState) {
        self.template.start_wave(st, self.wg, i, self.plan);
    }
}

/// Runs the waves of one workgroup to completion (barriers, slices) on the thread's memory
/// environment `env`, each started by `start` ([`WaveStart`]) before its first run; a panic
/// in the translator becomes the fault of the wave that was running, so it cannot take down
/// the host. With `direct` (the kernel's compiled entry block, of the runner's translator)
/// the waves run through it instead of the runner, their cache hits added to `hits`: first
/// back to back ([`FreshStart::run_waves`]) while each ends in its first run, then, from
/// the first that does not (a barrier, a slice's end, a fault), under the scheduler.
fn run_group(
    sh: &Shared,
    queue: &WorkQueue,
    waves: &mut [WaveSlot],
    env: &mut WaveMemEnv,
    direct: Option<&FreshStart>,
    hits: &mut u64,
    start: WaveStart,
) -> Result<(), GroupError> {
    let ws = sh.target.wave_size;
    let nw = waves.len();
    // The wave running, for a panic's report.
    let mut current = 0usize;
    // Waves started so far: the scheduler's first round runs every wave in index order,
    // so wave `i` is started right before its first run (its state is then still in the
    // host's cache).
    let mut started = 0usize;
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // The scheduler's first round while every wave ends in it: wave `i` sees the waves
        // before it ended and none waiting at the barrier.
        let mut first = None;
        if let Some(f) = direct {
            let given = sh.p.budget.min(BUDGET_SLICE);
            let stopped = f.run_waves(
                sh.p.code,
                waves,
                env,
                given,
                hits,
                |w| &mut w.0,
                |i, st, env: &mut dyn WaveEnv| {
                    current = i;
                    start.start(i, st);
                    env.start_wave(i, ws, workgroup_barrier_state(nw, nw - i, 0));
                },
            );
            let Some(s) = stopped else {
                return Ok(());
            };
            started = s.wave + 1;
            waves[s.wave].1 = sh.p.budget - (given - s.budget);
            first = Some((s.wave, s.result, given));
        }
        // One run of wave `i` (in slices), or the rest of its run when `ran` holds the
        // result of its first slice (`given` instructions) from the loop above.
        let mut run = |i: usize,
                       w: &mut WaveSlot,
                       bar: BarrierView,
                       mut ran: Option<(Result<ExitCode, ExecFault>, u64)>| {
            current = i;
            let (st, budget) = w;
            if ran.is_none() {
                if i >= started {
                    start.start(i, st);
                    *budget = sh.p.budget;
                    started = i + 1;
                }
                env.start_wave(
                    i,
                    ws,
                    workgroup_barrier_state(bar.waves, bar.live, bar.signaled),
                );
            }
            // The wave runs in slices of at most BUDGET_SLICE instructions so that a
            // fault elsewhere stops long-running workgroups soon. The translator checks
            // the budget before a block, so a wave stopped by its slice resumes at
            // `st.pc` (nothing of that block has executed).
            let ran = loop {
                let (r, given, total) = match ran.take() {
                    Some((r, given)) => (r, given, sh.p.budget),
                    None => {
                        let total = *budget;
                        let mut slice = total.min(BUDGET_SLICE);
                        let given = slice;
                        let r = match direct {
                            Some(f) => f.run(sh.p.code, st, env, &mut slice, hits),
                            None => (sh.runner)(sh.p.code, st, env, &mut slice),
                        };
                        *budget = total - (given - slice);
                        (r, given, total)
                    }
                };
                match r {
                    Err(ExecFault::Runaway(_)) if given < total => {
                        if queue.stopped() {
                            return Err(None);
                        }
                    }
                    Err(ExecFault::Runaway(_)) => break Err(ExecFault::Runaway(sh.p.budget)),
                    r => break r,
                }
            };
            match ran {
                Ok(ExitCode::EndPgm) => Ok(WaveStop::Ended),
                Ok(ExitCode::Barrier) => Ok(WaveStop::Barrier),
                Ok(ExitCode::Continue | ExitCode::Yield) => Ok(WaveStop::Yield),
                Ok(ExitCode::Trap) => Err(Some((i, None, "s_trap".to_string(), st.pc))),
                Ok(ExitCode::Fault) => {
                    Err(Some((i, None, "fault without details".to_string(), st.pc)))
                }
                Err(e) => Err(Some((i, fault_lane(&e), cause(&e), st.pc))),
            }
        };
        match first {
            Some((i, r, given)) => {
                let view = BarrierView {
                    waves: nw,
                    live: nw - i,
                    signaled: 0,
                };
                let stop = run(i, &mut waves[i], view, Some((r, given)))?;
                run_workgroup_from(waves, i, stop, |i, w, bar| run(i, w, bar, None))
            }
            None => run_workgroup(waves, |i, w, bar| run(i, w, bar, None)),
        }
        .map(|_| ())
    }));
    ran.unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let e = ExecFault::Unsupported(format!("internal error (translator panicked: {msg})"));
        let pc = waves.get(current).map_or(0, |w| w.0.pc);
        Err(Some((current, None, cause(&e), pc)))
    })
}

/// The launch's workgroups, handed out to the worker threads in chunks (guided: a share
/// of what is left, so the threads meet one shared counter rarely yet finish together),
/// and the flag that stops them after a fault. Each on its own cache line.
struct WorkQueue {
    next: Padded<AtomicU64>,
    stop: Padded<AtomicBool>,
    groups: u64,
    threads: u64,
}

/// Keeps a value on its own cache lines (adjacent-line prefetch included).
#[repr(align(128))]
struct Padded<T>(T);

/// Largest chunk of workgroups one thread takes at a time.
const MAX_CHUNK: u64 = 64;

impl WorkQueue {
    fn new(groups: u64, threads: usize) -> WorkQueue {
        WorkQueue {
            next: Padded(AtomicU64::new(0)),
            stop: Padded(AtomicBool::new(false)),
            groups,
            threads: threads.max(1) as u64,
        }
    }

    /// The next chunk: 1/(4 × threads) of the workgroups left, 1 to [`MAX_CHUNK`].
    fn take(&self) -> Option<std::ops::Range<u64>> {
        let mut at = self.next.0.load(Ordering::Relaxed);
        loop {
            if at >= self.groups || self.stopped() {
                return None;
            }
            let n = ((self.groups - at) / (4 * self.threads)).clamp(1, MAX_CHUNK);
            match self.next.0.compare_exchange_weak(
                at,
                at + n,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some(at..at + n),
                Err(now) => at = now,
            }
        }
    }

    fn stop(&self) {
        self.stop.0.store(true, Ordering::Relaxed);
    }

    fn stopped(&self) -> bool {
        self.stop.0.load(Ordering::Relaxed)
    }
}

fn cause(e: &ExecFault) -> String {
    e.to_string()
}
