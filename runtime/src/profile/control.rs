//! Watching and stopping a running launch from another thread.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Shared between a launch and its observers (a progress line, a Ctrl-C handler): the
/// launch counts finished work-groups here and stops taking new ones once cancelled; the
/// work-groups already running finish, so the counters of a cancelled launch are those of
/// whole work-groups.
#[derive(Debug, Default)]
pub struct LaunchControl {
    cancelled: AtomicBool,
    done: AtomicU64,
    total: AtomicU64,
}

impl LaunchControl {
    /// A control with nothing done and no cancellation.
    pub fn new() -> LaunchControl {
        LaunchControl::default()
    }

    /// Asks the launch to stop after the work-groups it is running.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether [`LaunchControl::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// (work-groups finished, work-groups in the launch; 0 before it starts).
    pub fn progress(&self) -> (u64, u64) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    /// The launch starts with `total` work-groups.
    pub fn start(&self, total: u64) {
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }

    /// One more work-group finished.
    pub fn finished_one(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }
}
