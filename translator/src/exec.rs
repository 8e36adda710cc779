//! The per-wave execution loop: block cache, tier-up from interpreter to JIT, running blocks.
//!
//! A [`Translator`] is shared by all host threads of a launch (it is `Send + Sync`); each call
//! to [`Translator::run`] executes one wave until it ends, reaches a barrier, traps or faults.
//!
//! Blocks are cached by `(pc, MODE, wave size)` in a `hashbrown` map behind an `RwLock`. A
//! block is interpreted until it is hot; then (with [`EngineKind::Jit`]) it is compiled and
//! runs as host code, a long block first quickly and later optimised ([`crate::tier`]). A
//! block the JIT rejects stays interpreted.
//!
//! Compiled code charges its instructions itself, against [`WaveState::credit`] (the budget
//! while it runs), so a compiled block that exits to its own start repeats inside the JIT,
//! and one that continues in another compiled block it has been linked to (block chaining,
//! [`CompiledBlock::link_slot`](crate::jit::CompiledBlock::link_slot)) tail-calls that block's code, both without a round trip
//! through this loop, as long as the budget lasts. This loop links a compiled block to the
//! compiled block it next runs when the block continued there (`Continue` at one of its
//! static targets).

use crate::env::{CodeSource, ExecFault, ExitCode, WaveEnv};
use crate::interp;
use crate::ir::{Block, Op};
use crate::isa::Target;
use crate::jit::helpers::JitCtx;
use crate::jit::{Jit, Links};
use crate::tier::{BlockTiers, Code, TierCounters, TierPolicy, TierStats};
use crate::wave::{RegSet, WaveState, NUM_SREGS, NUM_VREGS};
use hashbrown::HashMap;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, RwLock};
use std::time::Instant;

/// Which engine executes blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EngineKind {
    /// Interpret cold blocks, compile hot ones with Cranelift.
    #[default]
    Jit,
    /// Interpret every block.
    Interp,
}

impl EngineKind {
    /// Lower-case name used in reports (`jit`, `interp`).
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Jit => "jit",
            EngineKind::Interp => "interp",
        }
    }
}

/// Translation work and cache behaviour (not deterministic: depends on caching and timing).
/// [`Translator::stats`] gives a translator's totals so far; [`TranslationStats::since`] the
/// work between two snapshots, as launch reports carry it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TranslationStats {
    /// Blocks lifted to IR.
    pub blocks_lifted: u64,
    /// Blocks compiled to host code (a block recompiled optimised counts twice).
    pub blocks_compiled: u64,
    /// Block lookups that found a translated block.
    pub cache_hits: u64,
    /// Nanoseconds spent lifting and compiling.
    pub translate_ns: u64,
    /// Cached blocks still waiting for their last (optimised) code under the JIT engine:
    /// interpreted or running quick code ([`crate::tier`]). A level, not a count of work:
    /// [`TranslationStats::since`] keeps the later snapshot's value. Zero once every block
    /// the kernel ran has reached its steady state, and always zero for the interpreter.
    pub blocks_awaiting_optimised: u64,
}

impl TranslationStats {
    /// The work done since `before`, an earlier snapshot of the same translator's totals.
    pub fn since(&self, before: &TranslationStats) -> TranslationStats {
        TranslationStats {
            blocks_lifted: self.blocks_lifted.saturating_sub(before.blocks_lifted),
            blocks_compiled: self.blocks_compiled.saturating_sub(before.blocks_compiled),
            cache_hits: self.cache_hits.saturating_sub(before.cache_hits),
            translate_ns: self.translate_ns.saturating_sub(before.translate_ns),
            blocks_awaiting_optimised: self.blocks_awaiting_optimised,
        }
    }
}

/// One cached block.
struct Entry {
    block: Block,
    /// What the interpreter runs instead of `block` when the translator may drop register
    /// writes nothing reads ([`Translator::final_state_unread`], JIT engine): `block` with
    /// its register reads forwarded and those writes removed, as the JIT compiles it
    /// (`ir::passes::forward`), so cold runs write no more registers than compiled ones.
    cold: Option<Block>,
    /// Its compiled code and run count.
    tiers: BlockTiers,
    /// Executions, when profiling (see [`crate::profile`]).
    profile: crate::profile::PcCell,
}

type Key = (u64, u32, u32);

/// The compiled code of a run's start block (a kernel's entry), handed out once by
/// [`Translator::start_block`] so a dispatcher can start every wave of a launch in it
/// directly ([`Translator::run_from`]) instead of finding it through the run loop.
pub struct StartBlock {
    key: Key,
    /// Owns the compiled code (set once, never replaced).
    entry: Arc<Entry>,
    /// The translator that handed it out.
    owner: u64,
}

/// What [`Translator::start_block`] found.
pub enum StartBlockState {
    /// The block is compiled: start waves in it.
    Ready(StartBlock),
    /// Not yet (not lifted, or not hot yet): ask again later.
    NotYet,
    /// Never (interpreter engine, profiling, or the JIT rejected the block).
    Never,
}

/// A [`StartBlock`]'s code resolved for a dispatcher that starts many waves in it
/// ([`Translator::fresh_start`]): [`FreshStart::run`] for one wave, and
/// [`FreshStart::run_waves`] for a run of waves back to back.
pub struct FreshStart<'a> {
    translator: &'a Translator,
    key: Key,
    cb: &'a crate::jit::CompiledBlock,
    /// The block's instruction count (at least 1), as the run loop charges it.
    cost: u64,
}

/// Where [`FreshStart::run_waves`] stopped: the first wave that did not end.
#[derive(Debug)]
pub struct WaveStopped {
    /// Its index.
    pub wave: usize,
    /// Its budget left.
    pub budget: u64,
    /// How its run stopped (not `Ok(EndPgm)`).
    pub result: Result<ExitCode, ExecFault>,
}

impl FreshStart<'_> {
    /// [`Translator::run_from_counting`] with the per-launch checks already made: the same
    /// results, counts and budget.
    pub fn run(
        &self,
        code: &dyn CodeSource,
        state: &mut WaveState,
        env: &mut dyn WaveEnv,
        budget: &mut u64,
        hits: &mut u64,
    ) -> Result<ExitCode, ExecFault> {
        let t = self.translator;
        if (state.pc, state.mode, state.wave_size) != self.key {
            return t.run(code, state, env, budget);
        }
        if *budget < self.cost {
            return Err(ExecFault::Runaway(*budget));
        }
        *hits += 1;
        // As in `step`: the compiled code charges itself.
        state.credit = *budget;
        let r = self.cb.run_chained(state, env);
        *budget = state.credit;
        state.credit = 0;
        let exit = r?;
        if exit != ExitCode::Continue {
            return Ok(exit);
        }
        t.continue_after(self.cb, code, state, env, budget, hits)
    }

    /// Runs `waves` in order, each with `budget` instructions, while each ends
    /// (`s_endpgm`) in this one run; returns the first that does not, with its result and
    /// the budget it has left (`None`: all ended). `begin(index, state, env)` starts a wave
    /// (its registers, and `env` through [`WaveEnv::start_wave`]) right before it runs;
    /// `state_of` finds a wave's state.
    ///
    /// Each wave runs exactly as [`FreshStart::run`] would run it (the same results,
    /// counts, cache hits into `hits` and budget), in a loop that the caller's code is
    /// compiled into (the wave start, the environment and the call of the compiled code
    /// without calls between crates). Waves that end in the compiled code share one
    /// [`JitCtx`]: its memory windows stay valid from wave to wave, since the environment
    /// is touched between them only through [`WaveEnv::start_wave`].
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn run_waves<W, E: WaveEnv>(
        &self,
        code: &dyn CodeSource,
        waves: &mut [W],
        env: &mut E,
        budget: u64,
        hits: &mut u64,
        state_of: fn(&mut W) -> &mut WaveState,
        mut begin: impl FnMut(usize, &mut WaveState, &mut dyn WaveEnv),
    ) -> Option<WaveStopped> {
        let fits = budget >= self.cost;
        let mut i = 0;
        while i < waves.len() {
            // Waves whose compiled entry code ends them, back to back on one context; the
            // first that does not leaves with its raw exit code (its state started).
            let (at, exit) = {
                let mut ctx = JitCtx::new(env);
                let mut stop = None;
                while i < waves.len() {
                    let state = state_of(&mut waves[i]);
                    begin(i, state, ctx.env);
                    if !(fits && (state.pc, state.mode, state.wave_size) == self.key) {
                        stop = Some((i, None));
                        break;
                    }
                    *hits += 1;
                    // As in `step`: the compiled code charges itself.
                    state.credit = budget;
                    let exit = self.cb.enter(state, &mut ctx);
                    if exit != ExitCode::EndPgm as u32 {
                        stop = Some((i, Some(self.cb.exit_of(exit, &mut ctx))));
                        break;
                    }
                    state.credit = 0;
                    i += 1;
                }
                stop?
            };
            let state = state_of(&mut waves[at]);
            let mut left = budget;
            let result = match exit {
                Some(r) => {
                    left = state.credit;
                    state.credit = 0;
                    match r {
                        Ok(ExitCode::Continue) => {
                            let t = self.translator;
                            t.continue_after(self.cb, code, state, env, &mut left, hits)
                        }
                        r => r,
                    }
                }
                None => self.run(code, state, env, &mut left, hits),
            };
            if !matches!(result, Ok(ExitCode::EndPgm)) {
                return Some(WaveStopped {
                    wave: at,
                    budget: left,
                    result,
                });
            }
            i = at + 1;
        }
        None
    }
}

/// Source of [`Translator`] identities for the per-thread block caches.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// This thread's copy of the block-cache entries it has used, for one translator. Hits
    /// here touch no shared cache line: the shared map's `RwLock`, its hit counter and the
    /// entries' `Arc` counts are contended atomics when several threads run waves of the
    /// same kernel.
    static LOCAL: RefCell<LocalCache> = RefCell::new(LocalCache::default());
}

/// Start blocks remembered per thread ([`LocalCache::starts`]).
const START_MEMO: usize = 4;

/// A thread's copy of the block cache of the translator with id `id` (0 = none).
#[derive(Default)]
struct LocalCache {
    id: u64,
    map: HashMap<Key, Arc<Entry>>,
    /// The first distinct blocks runs started at (a kernel's entry, the resume points
    /// after its barriers), found by comparing keys instead of hashing: every wave's run
    /// starts with one of them. Filled once, never replaced (no `Arc` count traffic).
    starts: [Option<(Key, Arc<Entry>)>; START_MEMO],
}

impl LocalCache {
    /// The entry of the block with `key`, from the start memo or the map.
    fn get(&self, key: &Key) -> Option<&Arc<Entry>> {
        for (k, e) in self.starts.iter().flatten() {
            if k == key {
                return Some(e);
            }
        }
        self.map.get(key)
    }

    /// Remembers the block with `key` as a run's start if a memo slot is free.
    fn remember_start(&mut self, key: Key) {
        if let Some(slot) = self.starts.iter_mut().find(|s| s.is_none()) {
            if let Some(e) = self.map.get(&key) {
                *slot = Some((key, e.clone()));
            }
        }
    }
}

/// Stripes of [`Translator`]'s hit counter.
const STRIPES: usize = 8;

/// One counter on its own cache line(s).
#[derive(Default)]
#[repr(align(128))]
struct Stripe(AtomicU64);

/// This thread's stripe of the hit counter.
fn hit_stripe() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static STRIPE: usize = NEXT.fetch_add(1, Ordering::Relaxed) % STRIPES;
    }
    STRIPE.try_with(|s| *s).unwrap_or(0)
}

/// A function producing the IR block at `pc` (signature of [`crate::lift::lift_block`]).
pub type LiftFn = fn(&Target, &dyn CodeSource, u64, u32) -> Block;

/// Translates and runs the code of one code object for one target.
pub struct Translator {
    target: Target,
    engine: EngineKind,
    policy: TierPolicy,
    lift: LiftFn,
    /// Unique identity (keys this thread's copy of the cache, [`LOCAL`]).
    id: u64,
    cache: RwLock<HashMap<Key, Arc<Entry>>>,
    /// Created on first use (`Err` text when the host JIT is unavailable).
    jit: OnceLock<Result<Jit, String>>,
    blocks_lifted: AtomicU64,
    /// Compiles by tier, and their time.
    compiles: TierCounters,
    /// Striped by thread ([`hit_stripe`]): every wave run adds its hits, and one shared
    /// counter would bounce between the cores running waves.
    cache_hits: [Stripe; STRIPES],
    translate_ns: AtomicU64,
    /// Profiling mode ([`Translator::profiling`]).
    profile: bool,
    /// What the JIT may assume of register writes ([`Translator::final_state_unread`]).
    forwarding: crate::ir::passes::forward::Forwarding,
    /// The registers some cached block may write ([`Translator::registers_written`]).
    written: WrittenRegs,
    /// Waves of the current launch ([`Translator::set_launch_waves`]; 0: none).
    launch_waves: AtomicU64,
}

impl Translator {
    /// Interpreted runs after which a block is compiled (optimised, when it has no quick
    /// tier; see [`TierPolicy`]).
    pub const DEFAULT_HOT_THRESHOLD: u32 = TierPolicy::DEFAULT.hot_threshold;

    /// A translator for code of `target`, executing with `engine`.
    pub fn new(target: Target, engine: EngineKind) -> Result<Translator, ExecFault> {
        Ok(Translator {
            target,
            engine,
            policy: TierPolicy::DEFAULT,
            lift: crate::lift::lift_block,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            cache: RwLock::new(HashMap::new()),
            jit: OnceLock::new(),
            blocks_lifted: AtomicU64::new(0),
            compiles: TierCounters::default(),
            cache_hits: Default::default(),
            translate_ns: AtomicU64::new(0),
            profile: false,
            forwarding: Default::default(),
            written: Default::default(),
            launch_waves: AtomicU64::new(0),
        })
    }

    /// Profiling mode (see [`crate::profile`]): blocks of one instruction, each run once per
    /// step of the run loop, which counts its executions ([`Translator::profile_counts`]).
    pub fn profiling(mut self) -> Translator {
        self.profile = true;
        self.lift = crate::profile::lift_one;
        self
    }

    /// Per-pc executions so far (profiling mode; empty otherwise), in pc order.
    pub fn profile_counts(&self) -> Vec<crate::profile::PcCount> {
        let mut by_pc: std::collections::BTreeMap<u64, (u64, u64)> = Default::default();
        if let Ok(map) = self.cache.read() {
            for (&(pc, _, _), e) in map.iter() {
                let (n, lanes) = e.profile.get();
                if n != 0 {
                    let c = by_pc.entry(pc).or_default();
                    c.0 += n;
                    c.1 += lanes;
                }
            }
        }
        by_pc
            .into_iter()
            .map(|(pc, (count, active_lanes))| crate::profile::PcCount {
                pc,
                count,
                active_lanes,
            })
            .collect()
    }

    /// Declares that nothing reads a wave's registers (VGPRs, SGPRs, SCC) after it ends
    /// (kernel dispatch: each wave starts from a reset state): compiled blocks ending in
    /// `s_endpgm` then skip their register writes. Not for callers that read the final
    /// registers (raw runs returning them, tests comparing them).
    pub fn final_state_unread(mut self) -> Translator {
        self.forwarding.drop_final_writes = true;
        self
    }

    /// Sets the number of interpreted runs before a block is compiled (0 = compile on first
    /// use, optimised; a threshold at or below the policy's quick threshold leaves no quick
    /// tier).
    pub fn with_hot_threshold(mut self, runs: u32) -> Translator {
        self.policy.hot_threshold = runs;
        self
    }

    /// Sets when blocks are compiled, and at which tier ([`crate::tier`]).
    pub fn with_tiers(mut self, policy: TierPolicy) -> Translator {
        self.policy = policy;
        self
    }

    /// Tells the translator that a launch of `waves` waves starts (a dispatcher calls it
    /// before each launch; 0 = no launch). Long blocks first reached in a launch large enough
    /// are compiled quickly on their first run ([`crate::tier`], grid-aware tier-up).
    pub fn set_launch_waves(&self, waves: u64) {
        self.launch_waves.store(waves, Ordering::Relaxed);
    }

    /// Compiles so far, by tier.
    pub fn tier_stats(&self) -> TierStats {
        self.compiles.stats()
    }

    /// Uses `jit` (e.g. one configured with [`Jit::without_loop_form`]) instead of a default
    /// one created on first use. Has no effect once the translator has compiled a block.
    pub fn with_jit(self, jit: Jit) -> Translator {
        let _ = self.jit.set(Ok(jit));
        self
    }

    /// Replaces the lifter (for tests and tools that build IR blocks directly).
    pub fn with_lifter(mut self, lift: LiftFn) -> Translator {
        self.lift = lift;
        self
    }

    /// Runs the wave in `state` from `state.pc` until it ends (`EndPgm`), waits at a barrier
    /// (`Barrier`, `state.pc` = where to resume), traps or faults. Every executed wave
    /// instruction is subtracted from `budget`; when it would go below zero the run stops
    /// with [`ExecFault::Runaway`]. Executed instructions are added to `state.counters`.
    /// On `Err`, and on `Trap`, `state.pc` is the address of the faulting (trapping)
    /// instruction, so the runtime can report it and its disassembly.
    pub fn run(
        &self,
        code: &dyn CodeSource,
        state: &mut WaveState,
        env: &mut dyn WaveEnv,
        budget: &mut u64,
    ) -> Result<ExitCode, ExecFault> {
        let mut hits = 0u64;
        let r = LOCAL
            .try_with(|local| match local.try_borrow_mut() {
                Ok(mut l) => {
                    if l.id != self.id {
                        *l = LocalCache {
                            id: self.id,
                            ..Default::default()
                        };
                    }
                    let start = (state.pc, state.mode, state.wave_size);
                    let r = self.run_loop(code, state, env, budget, Some(&mut l), &mut hits, None);
                    if l.starts[START_MEMO - 1].is_none()
                        && !l.starts.iter().flatten().any(|(k, _)| *k == start)
                    {
                        l.remember_start(start);
                    }
                    r
                }
                // Re-entered on this thread: use the shared cache only.
                Err(_) => self.run_loop(code, state, env, budget, None, &mut hits, None),
            })
            // Thread-local storage already destroyed (thread exit).
            .unwrap_or_else(|_| self.run_loop(code, state, env, budget, None, &mut hits, None));
        if hits != 0 {
            self.cache_hits[hit_stripe()]
                .0
                .fetch_add(hits, Ordering::Relaxed);
        }
        r
    }

    /// The compiled start block at `pc` for runs under `mode` with `wave_size` lanes (see
    /// [`StartBlock`]). Does not lift or compile: the block becomes `Ready` once runs have
    /// made it hot.
    pub fn start_block(&self, pc: u64, mode: u32, wave_size: u32) -> StartBlockState {
        if self.engine != EngineKind::Jit || self.profile {
            return StartBlockState::Never;
        }
        let key = (pc, mode, wave_size);
        let entry = match self.cache.read() {
            Ok(map) => match map.get(&key) {
                Some(e) => e.clone(),
                None => return StartBlockState::NotYet,
            },
            Err(_) => return StartBlockState::Never,
        };
        match entry.tiers.last_code() {
            None => StartBlockState::NotYet,
            Some(None) => StartBlockState::Never,
            Some(Some(_)) => StartBlockState::Ready(StartBlock {
                key,
                entry,
                owner: self.id,
            }),
        }
    }

    /// [`Translator::run`] for a wave about to start: when it starts at `start` (same pc,
    /// MODE and wave size, and `start` is this translator's), calls `start`'s compiled code
    /// directly, with the budget check and accounting of the run loop, and continues in the
    /// run loop only if the code stops at a block boundary (`Continue`). Counts the start
    /// as one cache hit, like the run loop's lookup it replaces. Any other wave goes to
    /// [`Translator::run`].
    pub fn run_from(
        &self,
        start: &StartBlock,
        code: &dyn CodeSource,
        state: &mut WaveState,
        env: &mut dyn WaveEnv,
        budget: &mut u64,
    ) -> Result<ExitCode, ExecFault> {
        let mut hits = 0u64;
        let r = self.run_from_counting(start, code, state, env, budget, &mut hits);
        self.add_cache_hits(hits);
        r
    }

    /// [`Translator::run_from`] that adds its cache hits to `hits` instead of the
    /// translator's counter: a dispatcher running many waves adds them once
    /// ([`Translator::add_cache_hits`]) instead of once per wave.
    pub fn run_from_counting(
        &self,
        start: &StartBlock,
        code: &dyn CodeSource,
        state: &mut WaveState,
        env: &mut dyn WaveEnv,
        budget: &mut u64,
        hits: &mut u64,
    ) -> Result<ExitCode, ExecFault> {
        let key = (state.pc, state.mode, state.wave_size);
        let cb = match start.entry.tiers.last_code() {
            Some(Some(cb)) if key == start.key && start.owner == self.id => cb,
            _ => return self.run(code, state, env, budget),
        };
        let cost = u64::from(start.entry.block.inst_count).max(1);
        if *budget < cost {
            return Err(ExecFault::Runaway(*budget));
        }
        *hits += 1;
        self.record_writes(cb);
        // As in `step`: the compiled code charges itself.
        state.credit = *budget;
        let r = cb.run_chained(state, env);
        *budget = state.credit;
        state.credit = 0;
        let exit = r?;
        if exit != ExitCode::Continue {
            return Ok(exit);
        }
        self.continue_after(cb, code, state, env, budget, hits)
    }

    /// The compiled code of `start` for starting many waves in it back to back
    /// ([`FreshStart::run`]): the checks of [`Translator::run_from_counting`] that do not
    /// depend on the wave are made here, once, and its writes recorded. `None` when
    /// `start` is not this translator's.
    pub fn fresh_start<'a>(&'a self, start: &'a StartBlock) -> Option<FreshStart<'a>> {
        let cb = match start.entry.tiers.last_code() {
            Some(Some(cb)) if start.owner == self.id => cb,
            _ => return None,
        };
        self.record_writes(cb);
        Some(FreshStart {
            translator: self,
            key: start.key,
            cb,
            cost: u64::from(start.entry.block.inst_count).max(1),
        })
    }

    /// The run loop after the compiled block `cb` stopped at a block boundary (`Continue`),
    /// linking `cb` to the next block as the loop would.
    fn continue_after(
        &self,
        cb: &crate::jit::CompiledBlock,
        code: &dyn CodeSource,
        state: &mut WaveState,
        env: &mut dyn WaveEnv,
        budget: &mut u64,
        hits: &mut u64,
    ) -> Result<ExitCode, ExecFault> {
        let link = cb.link_slot(state.pc);
        LOCAL
            .try_with(|local| match local.try_borrow_mut() {
                Ok(mut l) if l.id == self.id => {
                    self.run_loop(code, state, env, budget, Some(&mut l), hits, link)
                }
                _ => self.run_loop(code, state, env, budget, None, hits, link),
            })
            // Thread-local storage already destroyed (thread exit): no link then.
            .unwrap_or_else(|_| self.run_loop(code, state, env, budget, None, hits, None))
    }

    /// Adds the registers `cb` may write to [`Translator::registers_written`] unless that
    /// is done: called before its code runs (code that other code continues in has run
    /// before it is linked), so a thread that ran it finds them there afterwards.
    fn record_writes(&self, cb: &crate::jit::CompiledBlock) {
        let (writes, recorded) = cb.writes();
        if !recorded {
            self.written.add(writes);
            cb.writes_recorded();
        }
    }

    /// Adds `hits` block-cache hits to the translator's count ([`TranslationStats::cache_hits`]).
    pub fn add_cache_hits(&self, hits: u64) {
        if hits != 0 {
            self.cache_hits[hit_stripe()]
                .0
                .fetch_add(hits, Ordering::Relaxed);
        }
    }

    /// [`Translator::run`] with this thread's cache copy `local` (if available); hits in it
    /// are added to `hits`. `link`: the link slot of a compiled block that continued here.
    #[allow(clippy::too_many_arguments)]
    fn run_loop(
        &self,
        code: &dyn CodeSource,
        state: &mut WaveState,
        env: &mut dyn WaveEnv,
        budget: &mut u64,
        mut local: Option<&mut LocalCache>,
        hits: &mut u64,
        mut link: Option<(Arc<Links>, usize)>,
    ) -> Result<ExitCode, ExecFault> {
        let initial_budget = *budget;
        loop {
            let pc = state.pc;
            let key = (pc, state.mode, state.wave_size);
            // On a hit in this thread's copy: a key comparison for a run's start block, one hash
            // lookup for the others.
            if let Some(e) = local.as_deref().and_then(|m| m.get(&key)) {
                *hits += 1;
                if let Some(exit) = self.step(e, state, env, budget, initial_budget, &mut link)? {
                    return Ok(exit);
                }
                continue;
            }
            let e = self.lookup(code, pc, state.mode, state.wave_size)?;
            if let Some(m) = local.as_deref_mut() {
                m.map.insert(key, e.clone());
            }
            if let Some(exit) = self.step(&e, state, env, budget, initial_budget, &mut link)? {
                return Ok(exit);
            }
        }
    }

    /// Runs one block (compiled: and whatever it loops to or continues in while the budget
    /// lasts, see [`CompiledBlock::run_chained`]): charges the instructions to `budget`
    /// (`initial` is the run's budget, for the runaway report), and returns the exit unless
    /// it is `Continue`. `link`: the link slot of the compiled block that continued here
    /// (taken; linked to this block when it is compiled and may be chained to); set when
    /// this block's compiled code continues in a block it may be linked to.
    fn step(
        &self,
        entry: &Entry,
        state: &mut WaveState,
        env: &mut dyn WaveEnv,
        budget: &mut u64,
        initial: u64,
        link: &mut Option<(Arc<Links>, usize)>,
    ) -> Result<Option<ExitCode>, ExecFault> {
        // Every block costs at least one, so even empty loops end.
        let cost = u64::from(entry.block.inst_count).max(1);
        if *budget < cost {
            return Err(ExecFault::Runaway(initial));
        }
        let from = link.take();
        if self.profile {
            entry.profile.record(state.exec());
        }
        let compiled = self.compiled(entry);
        if let Some(c) = &compiled {
            self.record_writes(c.block);
        }
        let exit = match compiled {
            // Profiling: exactly this block, once (no loop or chain the loop cannot see).
            Some(Code { block: cb, .. }) if self.profile => {
                *budget -= cost;
                cb.run(state, env)?
            }
            Some(Code { block: cb, last }) => {
                // The predecessor ran under the same MODE and wave size (blocks that write
                // MODE have no links), so this code is the one it may continue in. Only a
                // block's last code is linked to or from (every run of quick code passes
                // here and counts towards its optimised compile).
                if let Some((links, slot)) = from {
                    if last && cb.is_chain_target() {
                        links.link(slot, cb);
                    }
                }
                // The compiled code charges itself (and any blocks it continues in).
                state.credit = *budget;
                let r = cb.run_chained(state, env);
                *budget = state.credit;
                state.credit = 0;
                let exit = r?;
                if exit == ExitCode::Continue && last {
                    *link = cb.link_slot(state.pc);
                }
                exit
            }
            None => {
                *budget -= cost;
                interp::run_block(entry.cold.as_ref().unwrap_or(&entry.block), state, env)?
            }
        };
        Ok((exit != ExitCode::Continue).then_some(exit))
    }

    /// The compiled code of `entry`, compiling it if a tier is due ([`crate::tier`]).
    fn compiled<'e>(&'e self, entry: &'e Entry) -> Option<Code<'e>> {
        if self.engine != EngineKind::Jit {
            return None;
        }
        let jit = || self.jit.get_or_init(Jit::new).as_ref().ok();
        entry
            .tiers
            .code(&entry.block, jit, &self.compiles, self.forwarding)
    }

    /// The cached block at `pc`, lifting it on a miss.
    fn lookup(
        &self,
        code: &dyn CodeSource,
        pc: u64,
        mode: u32,
        wave_size: u32,
    ) -> Result<Arc<Entry>, ExecFault> {
        let key = (pc, mode, wave_size);
        if let Ok(map) = self.cache.read() {
            if let Some(e) = map.get(&key) {
                self.cache_hits[hit_stripe()]
                    .0
                    .fetch_add(1, Ordering::Relaxed);
                return Ok(e.clone());
            }
        }
        if code.bytes_at(pc).is_none() {
            return Err(ExecFault::BadJump(pc));
        }
        let t0 = Instant::now();
        let target = Target {
            wave_size,
            ..self.target
        };
        let block = (self.lift)(&target, code, pc, mode);
        let cold =
            if self.engine == EngineKind::Jit && self.forwarding.drop_final_writes && !self.profile
            {
                crate::ir::passes::forward::forward(&block, self.forwarding)
                    .filter(|b| crate::ir::verify(b).is_ok())
            } else {
                None
            };
        // Published before the block can run anywhere (it is cached below, under the lock);
        // compiled code adds its own writes before it first runs ([`Translator::record_writes`]).
        self.written
            .add(&block_writes(cold.as_ref().unwrap_or(&block)));
        self.translate_ns
            .fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
        self.blocks_lifted.fetch_add(1, Ordering::Relaxed);
        let entry = Arc::new(Entry {
            tiers: BlockTiers::new(
                &block,
                &self.policy,
                self.launch_waves.load(Ordering::Relaxed),
            ),
            block,
            cold,
            profile: Default::default(),
        });
        let mut map = self
            .cache
            .write()
            .map_err(|_| ExecFault::Unsupported("block cache lock poisoned".into()))?;
        // Another thread may have lifted the same block meanwhile: keep the first.
        Ok(map.entry(key).or_insert(entry).clone())
    }

    /// Every register slot a block this translator has lifted so far may write (both
    /// engines write registers only through the ops of the lifted blocks). A dispatcher that
    /// reuses a wave state for the next wave of a launch needs to reset only these: a block
    /// is added here before it is cached, so before any wave can run it, and a thread that
    /// ran a block (found through the cache or a chain from a cached block) sees it here
    /// afterwards.
    pub fn registers_written(&self) -> RegSet {
        self.written.get()
    }

    /// Changes whenever [`Translator::registers_written`] grows, and before a block whose
    /// writes grew it can run: a dispatcher that read the set after reading a generation
    /// needs to read it again only when the generation differs.
    pub fn registers_written_generation(&self) -> u64 {
        self.written.generation.load(Ordering::Acquire)
    }

    /// Translation counters so far.
    pub fn stats(&self) -> TranslationStats {
        TranslationStats {
            blocks_lifted: self.blocks_lifted.load(Ordering::Relaxed),
            blocks_compiled: self.compiles.compiled(),
            cache_hits: self
                .cache_hits
                .iter()
                .map(|c| c.0.load(Ordering::Relaxed))
                .sum(),
            translate_ns: self.translate_ns.load(Ordering::Relaxed)
                + self.compiles.compile_ns.load(Ordering::Relaxed),
            blocks_awaiting_optimised: self.blocks_awaiting_optimised(),
        }
    }

    /// Cached blocks whose last code is not decided yet (see
    /// [`TranslationStats::blocks_awaiting_optimised`]).
    fn blocks_awaiting_optimised(&self) -> u64 {
        if self.engine != EngineKind::Jit {
            return 0;
        }
        self.cache.read().map_or(0, |map| {
            map.values()
                .filter(|e| e.tiers.last_code().is_none())
                .count() as u64
        })
    }
}

/// The registers the blocks of a [`Translator`] may write: a union that only grows.
#[derive(Default)]
struct WrittenRegs {
    vgpr: [AtomicU64; NUM_VREGS / 64],
    sgpr: [AtomicU64; NUM_SREGS / 64],
    vgpr_unknown: AtomicBool,
    /// Counts the additions that grew the set ([`Translator::registers_written_generation`]).
    generation: AtomicU64,
    /// Held while adding (once per block): an addition that finds its registers there
    /// already returns only after the one that put them there has counted its generation.
    adding: std::sync::Mutex<()>,
}

impl WrittenRegs {
    fn add(&self, r: &RegSet) {
        let _adding = self.adding.lock().unwrap_or_else(|e| e.into_inner());
        let mut grew = false;
        for (a, &b) in self.vgpr.iter().zip(&r.vgpr) {
            if b & !a.load(Ordering::Relaxed) != 0 {
                a.fetch_or(b, Ordering::Release);
                grew = true;
            }
        }
        for (a, &b) in self.sgpr.iter().zip(&r.sgpr) {
            if b & !a.load(Ordering::Relaxed) != 0 {
                a.fetch_or(b, Ordering::Release);
                grew = true;
            }
        }
        if r.vgpr_unknown && !self.vgpr_unknown.load(Ordering::Relaxed) {
            self.vgpr_unknown.store(true, Ordering::Release);
            grew = true;
        }
        // After the bits, before the caller publishes the block (and, by the lock, before
        // any other addition of these registers returns): whoever sees the block sees the
        // new generation, and then the bits.
        if grew {
            self.generation.fetch_add(1, Ordering::AcqRel);
        }
    }

    fn get(&self) -> RegSet {
        RegSet {
            vgpr: std::array::from_fn(|i| self.vgpr[i].load(Ordering::Acquire)),
            sgpr: std::array::from_fn(|i| self.sgpr[i].load(Ordering::Acquire)),
            vgpr_unknown: self.vgpr_unknown.load(Ordering::Acquire),
        }
    }
}

/// The register slots `block` may write: the targets of its `SetSgpr`/`SetVgpr` ops; a
/// dynamically indexed VGPR write or a matrix instruction (whose result registers only its
/// plan knows) makes the VGPRs unknown.
pub fn block_writes(block: &Block) -> RegSet {
    let mut w = RegSet::default();
    for op in &block.ops {
        match op {
            Op::SetSgpr(c, _) => w.add_sgpr(*c as usize),
            Op::SetVgpr { reg, .. } => w.add_vgpr(*reg as usize),
            Op::SetVgprDyn { .. } | Op::Matrix(_) => w.vgpr_unknown = true,
            _ => {}
        }
    }
    w
}
