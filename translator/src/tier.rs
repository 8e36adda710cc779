//! Tier-up: when a cached block is compiled, and how hard Cranelift works on it.
//!
//! A block runs interpreted until it is hot. A small block is then compiled once with
//! Cranelift's optimiser ([`Tier::Optimised`]). A long block (the straight-line stages of a
//! big kernel: thousands of instructions, each run once per wave, or the long body of a
//! loop) is first compiled quickly ([`Tier::Quick`]) after a few interpreted runs, and
//! recompiled optimised once it has run [`TierPolicy::optimise_after`] more times; the
//! optimised code then replaces the quick code for every later run.
//!
//! **Grid-aware tier-up.** The dispatcher tells the translator how many waves each launch
//! has ([`crate::exec::Translator::set_launch_waves`]). A long block first reached in a
//! launch of at least [`TierPolicy::eager_quick_waves`] waves (twice as many for wave32) is
//! compiled quickly on its first run instead of after [`TierPolicy::quick_threshold`]
//! interpreted runs: a block reached by most waves then runs hundreds of times, so its
//! interpreted runs are pure loss, while a quick compile costs about as much as 20 of them.
//! Small launches (and a translator that never ran a launch: the count is 0) keep the
//! interpreted runs, so a handful of waves does not pay for compiles it cannot earn back.
//! The count is a per-translator hint, the last launch's, read when a block is first
//! cached; concurrent launches of different sizes on one translator may see each other's
//! count, which changes only when blocks are compiled, never results.
//!
//! Runs are counted by the run loop, so quick code never loops inside the JIT (a block
//! looping to itself returns to the run loop after each iteration) and is never chained to
//! or from (the run loop links final code only): every run of it passes the run loop and
//! counts. Each tier's code is kept as long as the block (a wave may still run the quick
//! code when the optimised code replaces it). Compiles claim their block, so threads
//! compile different blocks at once; a thread that finds a block claimed runs what the
//! block has so far.

use crate::ir::passes::forward::Forwarding;
use crate::ir::Block;
use crate::jit::{CompiledBlock, Jit, Tier};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// When blocks are compiled, and at which tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TierPolicy {
    /// Interpreted runs after which a block is compiled optimised (when it has no quick
    /// tier).
    pub hot_threshold: u32,
    /// Blocks of at least this many instructions get the quick tier first (`u32::MAX`: no
    /// block does).
    pub quick_min_insts: u32,
    /// Interpreted runs after which such a block is compiled quickly.
    pub quick_threshold: u32,
    /// Further runs (of its quick code) after which such a block is compiled optimised, for
    /// wave64 blocks; a wave32 block runs twice as many (the same lane work).
    pub optimise_after: u32,
    /// Launches of at least this many wave64 waves (twice as many wave32 waves) compile a
    /// long block quickly on its first run (`u32::MAX`: never; see the module doc).
    pub eager_quick_waves: u32,
}

impl TierPolicy {
    /// The default: optimised after 64 interpreted runs; blocks of 128 instructions or more
    /// compiled quickly after 4 and optimised after 1024 more (2048 for wave32).
    ///
    /// Measured on the `cold_start` kernel (gfx942, wave64; `docs/jit.md`): an optimised
    /// compile of a lane-group block costs about 0.7 M host instructions per GPU instruction
    /// (the backtracking register allocator is most of it), a quick compile about 0.13 M;
    /// quick code runs about 400 host instructions per wave64 GPU instruction against about
    /// 45 for optimised code. So the optimised compile pays back after about 2000 runs;
    /// recompiling after 1024 keeps it out of the first launch of a kernel whose long
    /// blocks run a few hundred times per launch (a loop of three iterations over 256
    /// waves), and a kernel launched repeatedly reaches its fastest code within a few
    /// launches.
    pub const DEFAULT: TierPolicy = TierPolicy {
        hot_threshold: 64,
        quick_min_insts: 128,
        quick_threshold: 4,
        optimise_after: 1024,
        eager_quick_waves: 16,
    };

    /// One tier: every block optimised after `hot_threshold` interpreted runs.
    pub fn single(hot_threshold: u32) -> TierPolicy {
        TierPolicy {
            hot_threshold,
            quick_min_insts: u32::MAX,
            ..TierPolicy::DEFAULT
        }
    }

    /// Runs (of any kind) after which `block`, first cached during a launch of
    /// `launch_waves` waves, is compiled quickly (`None`: never), and after which it is
    /// compiled optimised.
    fn thresholds(&self, block: &Block, launch_waves: u64) -> (Option<u32>, u32) {
        if block.inst_count < self.quick_min_insts || self.quick_threshold >= self.hot_threshold {
            return (None, self.hot_threshold);
        }
        // Wave32 blocks do half the lane work per run: twice the runs for the same work.
        let per_wave64 = (64 / block.wave_size.max(1)).max(1);
        let after = self.optimise_after.saturating_mul(per_wave64);
        let optimise = self
            .quick_threshold
            .saturating_add(after)
            .max(self.hot_threshold);
        let eager = self.eager_quick_waves != u32::MAX
            && launch_waves >= u64::from(self.eager_quick_waves) * u64::from(per_wave64);
        let quick = if eager { 0 } else { self.quick_threshold };
        (Some(quick), optimise)
    }
}

impl Default for TierPolicy {
    fn default() -> TierPolicy {
        TierPolicy::DEFAULT
    }
}

/// Compiles done at each tier (a block recompiled optimised counts at both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierStats {
    /// Blocks compiled at [`Tier::Quick`].
    pub quick: u64,
    /// Blocks compiled at [`Tier::Optimised`].
    pub optimised: u64,
}

/// The counters a translator's [`BlockTiers`] report their compiles to.
#[derive(Default)]
pub(crate) struct TierCounters {
    quick: AtomicU64,
    optimised: AtomicU64,
    /// Nanoseconds spent compiling.
    pub(crate) compile_ns: AtomicU64,
}

impl TierCounters {
    pub(crate) fn stats(&self) -> TierStats {
        TierStats {
            quick: self.quick.load(Ordering::Relaxed),
            optimised: self.optimised.load(Ordering::Relaxed),
        }
    }

    /// Blocks compiled at any tier.
    pub(crate) fn compiled(&self) -> u64 {
        let s = self.stats();
        s.quick + s.optimised
    }
}

/// The compiled code of one cached block, by tier, and its run count.
pub(crate) struct BlockTiers {
    /// Runs counted so far (interpreted, then quick).
    runs: AtomicU32,
    /// Held by the thread compiling the block.
    claimed: AtomicBool,
    /// Runs after which the block is compiled quickly (`u32::MAX`: never).
    quick_at: u32,
    /// Runs after which it is compiled optimised.
    optimise_at: u32,
    /// Quick code (`None` inside: the JIT rejected the block).
    quick: OnceLock<Option<CompiledBlock>>,
    /// Optimised code (`None` inside: the JIT rejected the block).
    optimised: OnceLock<Option<CompiledBlock>>,
}

/// Code to run for a block.
pub(crate) struct Code<'a> {
    pub(crate) block: &'a CompiledBlock,
    /// The block's last code: it may be chained to and from (quick code never is, so
    /// that all its runs are counted).
    pub(crate) last: bool,
}

impl BlockTiers {
    /// The tiers of `block` under `policy`, first cached during a launch of `launch_waves`
    /// waves (0: outside a launch), nothing compiled yet.
    pub(crate) fn new(block: &Block, policy: &TierPolicy, launch_waves: u64) -> BlockTiers {
        let (quick, optimise_at) = policy.thresholds(block, launch_waves);
        BlockTiers {
            runs: AtomicU32::new(0),
            claimed: AtomicBool::new(false),
            quick_at: quick.unwrap_or(u32::MAX),
            optimise_at,
            quick: OnceLock::new(),
            optimised: OnceLock::new(),
        }
    }

    /// The code to run `block` (this entry's block) with now, compiling it with `jit` when a
    /// tier is due, under what `how` lets it assume of its register writes; `None`: interpret
    /// it. Counts the run until the optimised code exists.
    pub(crate) fn code<'a>(
        &'a self,
        block: &Block,
        jit: impl FnOnce() -> Option<&'a Jit>,
        counters: &TierCounters,
        how: Forwarding,
    ) -> Option<Code<'a>> {
        if let Some(done) = self.optimised.get() {
            return self.last(done);
        }
        let runs = self.runs.fetch_add(1, Ordering::Relaxed);
        if runs >= self.optimise_at {
            self.try_compile(block, Tier::Optimised, jit, counters, how);
        } else if runs >= self.quick_at && self.quick.get().is_none() {
            self.try_compile(block, Tier::Quick, jit, counters, how);
        }
        match self.optimised.get() {
            Some(done) => self.last(done),
            None => self
                .quick
                .get()?
                .as_ref()
                .map(|block| Code { block, last: false }),
        }
    }

    /// The block's last code, which never changes once it exists: `None` while the
    /// optimised compile has not happened, `Some(None)` when neither tier compiled it.
    pub(crate) fn last_code(&self) -> Option<Option<&CompiledBlock>> {
        self.optimised
            .get()
            .map(|done| self.last(done).map(|c| c.block))
    }

    /// The code once the optimised compile is done (`done`): that code, or the quick code
    /// when the JIT rejected the block at the optimised tier.
    fn last<'a>(&'a self, done: &'a Option<CompiledBlock>) -> Option<Code<'a>> {
        let block = done
            .as_ref()
            .or_else(|| self.quick.get().and_then(Option::as_ref))?;
        Some(Code { block, last: true })
    }

    /// Compiles `block` at `tier` unless another thread is compiling it (then the caller
    /// runs what there is; no wave waits for a compile).
    fn try_compile<'a>(
        &'a self,
        block: &Block,
        tier: Tier,
        jit: impl FnOnce() -> Option<&'a Jit>,
        counters: &TierCounters,
        how: Forwarding,
    ) {
        let Some(jit) = jit() else { return };
        if self
            .claimed
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        let cell = match tier {
            Tier::Quick => &self.quick,
            Tier::Optimised => &self.optimised,
        };
        // Under the claim: nobody else sets the cell meanwhile.
        if cell.get().is_none() {
            let t0 = Instant::now();
            let code = jit.compile_with(block, tier, how).ok();
            counters
                .compile_ns
                .fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
            if code.is_some() {
                match tier {
                    Tier::Quick => &counters.quick,
                    Tier::Optimised => &counters.optimised,
                }
                .fetch_add(1, Ordering::Relaxed);
            }
            let _ = cell.set(code);
        }
        self.claimed.store(false, Ordering::Release);
    }
}
