//! Cooperative scheduling of the waves of one workgroup on one host thread.
//!
//! Each ready wave runs until it ends, reaches a barrier or yields. When every wave that has
//! not ended waits at the barrier, all of them are released. A wave that ends no longer
//! counts towards the barrier. Any number of barriers; the order is deterministic (wave
//! index order within each round).

/// How one run of a wave stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaveStop {
    /// `s_endpgm`.
    Ended,
    /// Waiting at the workgroup barrier.
    Barrier,
    /// Still runnable (a yield or an interrupted run).
    Yield,
}

/// Waves whose status [`run_workgroup`] keeps on the stack.
const INLINE_WAVES: usize = 32;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Ready,
    Waiting,
    Done,
}

/// The work-group barrier as a wave about to run sees it: how many waves the work-group was
/// launched with, how many have not ended, and how many wait at the barrier (have signalled
/// it in this phase; a wave stops at its signal, so the running wave is not among them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierView {
    /// Waves of the work-group.
    pub waves: usize,
    /// Waves that have not ended.
    pub live: usize,
    /// Waves waiting at the barrier.
    pub signaled: usize,
}

/// Runs `waves` to completion with `run(index, wave, barrier)`; the first error stops the
/// workgroup. Returns the number of barrier releases.
pub fn run_workgroup<T, E>(
    waves: &mut [T],
    mut run: impl FnMut(usize, &mut T, BarrierView) -> Result<WaveStop, E>,
) -> Result<u64, E> {
    // The first round without statuses while every wave ends in its first run (a kernel
    // whose waves do not meet at a barrier): wave `i` then sees the waves before it ended
    // and none waiting, as in the general loop's first round.
    let n = waves.len();
    for (i, w) in waves.iter_mut().enumerate() {
        let view = BarrierView {
            waves: n,
            live: n - i,
            signaled: 0,
        };
        match run(i, w, view)? {
            WaveStop::Ended => {}
            stop => return run_workgroup_from(waves, i, stop, run),
        }
    }
    Ok(0)
}

/// [`run_workgroup`] after its first round ran waves `..=first` in order, all but `first`
/// to their end, and `first` stopped with `stop`.
pub fn run_workgroup_from<T, E>(
    waves: &mut [T],
    first: usize,
    stop: WaveStop,
    mut run: impl FnMut(usize, &mut T, BarrierView) -> Result<WaveStop, E>,
) -> Result<u64, E> {
    // A work-group has at most 1024 / 32 waves: keep their status on the stack (no
    // allocation per work-group), falling back to the heap for larger callers.
    let mut inline = [Status::Ready; INLINE_WAVES];
    let mut heap = Vec::new();
    let status: &mut [Status] = if waves.len() <= INLINE_WAVES {
        &mut inline[..waves.len()]
    } else {
        heap.resize(waves.len(), Status::Ready);
        &mut heap
    };
    status[..first].fill(Status::Done);
    let mut releases = 0;
    // Counts of the statuses, kept as they change (this runs for every wave).
    let (mut live, mut waiting) = (waves.len() - first, 0usize);
    status[first] = match stop {
        WaveStop::Barrier => {
            waiting += 1;
            Status::Waiting
        }
        WaveStop::Yield => Status::Ready,
        WaveStop::Ended => {
            live -= 1;
            Status::Done
        }
    };
    // The rest of the first round starts after `first`.
    let mut from = first + 1;
    while live > 0 {
        for (i, w) in waves.iter_mut().enumerate().skip(from) {
            if status[i] == Status::Ready {
                let view = BarrierView {
                    waves: status.len(),
                    live,
                    signaled: waiting,
                };
                status[i] = match run(i, w, view)? {
                    WaveStop::Ended => {
                        live -= 1;
                        Status::Done
                    }
                    WaveStop::Barrier => {
                        waiting += 1;
                        Status::Waiting
                    }
                    WaveStop::Yield => Status::Ready,
                };
            }
        }
        from = 0;
        if live > 0 && waiting == live {
            releases += 1;
            waiting = 0;
            for s in status.iter_mut().filter(|s| **s == Status::Waiting) {
                *s = Status::Ready;
            }
        }
    }
    Ok(releases)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake wave: a script of stops, and a log of (wave, step) in execution order.
    struct Fake {
        script: Vec<WaveStop>,
        at: usize,
    }

    fn run(scripts: Vec<Vec<WaveStop>>) -> (Vec<(usize, usize)>, u64) {
        let mut waves: Vec<Fake> = scripts
            .into_iter()
            .map(|script| Fake { script, at: 0 })
            .collect();
        let mut log = vec![];
        let n = run_workgroup(&mut waves, |i, w, _| -> Result<WaveStop, ()> {
            log.push((i, w.at));
            let s = w.script[w.at];
            w.at += 1;
            Ok(s)
        })
        .unwrap();
        (log, n)
    }

    use WaveStop::*;

    #[test]
    fn barrier_waits_for_all_live_waves() {
        // Two waves, two barriers each: no wave passes a barrier before the other reaches it.
        let (log, n) = run(vec![
            vec![Barrier, Barrier, Ended],
            vec![Yield, Barrier, Barrier, Ended],
        ]);
        assert_eq!(n, 2);
        assert_eq!(
            log,
            vec![(0, 0), (1, 0), (1, 1), (0, 1), (1, 2), (0, 2), (1, 3)]
        );
    }

    #[test]
    fn ended_waves_do_not_count() {
        // Wave 1 ends early; wave 0's barriers are released without it.
        let (log, n) = run(vec![vec![Barrier, Barrier, Ended], vec![Ended]]);
        assert_eq!(n, 2);
        assert_eq!(log, vec![(0, 0), (1, 0), (0, 1), (0, 2)]);
    }

    #[test]
    fn barrier_view_counts_live_and_waiting_waves() {
        // Three waves: 0 and 1 wait at the barrier, then 2 arrives; after the release wave 0
        // ends, then 1 and 2 meet at a second barrier.
        let mut waves = vec![
            vec![Barrier, Ended],
            vec![Barrier, Barrier, Ended],
            vec![Barrier, Barrier, Ended],
        ];
        let mut at = [0usize; 3];
        let mut seen = vec![];
        run_workgroup(&mut waves, |i, w, v| -> Result<WaveStop, ()> {
            seen.push((i, v.waves, v.live, v.signaled));
            let s = w[at[i]];
            at[i] += 1;
            Ok(s)
        })
        .unwrap();
        let want = vec![
            (0, 3, 3, 0),
            (1, 3, 3, 1),
            (2, 3, 3, 2),
            (0, 3, 3, 0),
            (1, 3, 2, 0),
            (2, 3, 2, 1),
            (1, 3, 2, 0),
            (2, 3, 1, 0),
        ];
        assert_eq!(seen, want);
    }

    #[test]
    fn first_round_hands_over_after_waves_that_ended() {
        // Wave 0 ends in the first round, wave 1 is the first to wait: the waves after it
        // see wave 0 gone and wave 1 waiting, as in a round of the general loop.
        let mut waves = vec![vec![Ended], vec![Barrier, Ended], vec![Barrier, Ended]];
        let mut at = [0usize; 3];
        let mut seen = vec![];
        let n = run_workgroup(&mut waves, |i, w, v| -> Result<WaveStop, ()> {
            seen.push((i, v.waves, v.live, v.signaled));
            let s = w[at[i]];
            at[i] += 1;
            Ok(s)
        })
        .unwrap();
        assert_eq!(n, 1);
        let want = vec![
            (0, 3, 3, 0),
            (1, 3, 2, 0),
            (2, 3, 2, 1),
            (1, 3, 2, 0),
            (2, 3, 1, 0),
        ];
        assert_eq!(seen, want);
    }

    #[test]
    fn resumed_round_counts_a_wave_that_ended() {
        // A caller ran waves 0 and 1 itself, wave 1 ending late (after a slice): wave 2
        // then runs alone, and its barrier is released at once.
        let mut waves = vec![vec![], vec![], vec![Barrier, Ended]];
        let mut at = [0usize; 3];
        let mut seen = vec![];
        let n = run_workgroup_from(&mut waves, 1, Ended, |i, w, v| -> Result<WaveStop, ()> {
            seen.push((i, v.waves, v.live, v.signaled));
            let s = w[at[i]];
            at[i] += 1;
            Ok(s)
        })
        .unwrap();
        assert_eq!(n, 1);
        assert_eq!(seen, vec![(2, 3, 1, 0), (2, 3, 1, 0)]);
    }

    #[test]
    fn errors_stop_the_workgroup() {
        let mut waves = vec![0u32, 0];
        let r = run_workgroup(&mut waves, |i, w, _| {
            *w += 1;
            if i == 1 {
                Err("boom")
            } else {
                Ok(WaveStop::Barrier)
            }
        });
        assert_eq!(r, Err("boom"));
        assert_eq!(waves, vec![1, 1]);
    }
}
