//! Timing of repeated runs. Every row reports the median of its samples and their spread
//! (min, max); the scaling column comes from one-thread samples taken alternately with the
//! row's own, on the same warm state, so that both see the same load on a shared machine.

use std::time::{Duration, Instant};
use wavejit::Error;

/// The samples of one measurement: median, fastest, slowest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// The median (the mean of the two middle samples for an even count).
    pub median: Duration,
    /// The fastest sample.
    pub min: Duration,
    /// The slowest sample.
    pub max: Duration,
    /// Samples taken.
    pub samples: usize,
}

impl Timing {
    /// The timing of `times` (`None` when empty).
    pub fn of(times: &[Duration]) -> Option<Timing> {
        let mut v = times.to_vec();
        v.sort_unstable();
        let n = v.len();
        let median = match n {
            0 => return None,
            _ if n % 2 == 1 => v[n / 2],
            _ => (v[n / 2 - 1] + v[n / 2]) / 2,
        };
        Some(Timing {
            median,
            min: v[0],
            max: v[n - 1],
            samples: n,
        })
    }
}

/// What [`sample`] measured.
pub(crate) struct Sampled<T> {
    /// The runs on the requested threads.
    pub(crate) timing: Timing,
    /// The same runs on one thread, when asked for.
    pub(crate) one_thread: Option<Timing>,
    /// The result of the last run on the requested threads.
    pub(crate) last: T,
    /// Mean process CPU time (all threads) per run on the requested threads; `None` where
    /// the platform does not report it.
    pub(crate) cpu: Option<Duration>,
    /// Runs done (both thread counts).
    pub(crate) runs: u64,
}

/// Runs `run(threads)` `samples` times (at least once) and, when `scaling`, `run(1)` as many
/// times, interleaved in the order N 1 1 N N 1 … so that a drift in the machine's load falls
/// on both alike.
pub(crate) fn sample<T>(
    samples: usize,
    threads: usize,
    scaling: bool,
    mut run: impl FnMut(usize) -> Result<T, Error>,
) -> Result<Sampled<T>, Error> {
    let n = samples.max(1);
    let mut times = Vec::with_capacity(n);
    let mut one = Vec::with_capacity(n);
    let mut last = None;
    let mut cpu = Some(Duration::ZERO);
    let mut runs = 0;
    for i in 0..n {
        // Pairs alternate their order: (N, 1), (1, N), (N, 1), …
        let order: &[bool] = match (scaling, i % 2) {
            (false, _) => &[false],
            (true, 0) => &[false, true],
            (true, _) => &[true, false],
        };
        for &single in order {
            let c0 = process_cpu();
            let t0 = Instant::now();
            let r = run(if single { 1 } else { threads })?;
            let dt = t0.elapsed();
            runs += 1;
            if single {
                one.push(dt);
            } else {
                cpu = match (cpu, c0, process_cpu()) {
                    (Some(sum), Some(a), Some(b)) => b.checked_sub(a).map(|d| sum + d),
                    _ => None,
                };
                times.push(dt);
                last = Some(r);
            }
        }
    }
    let timing = Timing::of(&times).ok_or_else(|| Error::Usage("no samples".into()))?;
    let last = last.ok_or_else(|| Error::Usage("no samples".into()))?;
    Ok(Sampled {
        timing,
        one_thread: Timing::of(&one),
        last,
        cpu: cpu.map(|d| d / n as u32),
        runs,
    })
}

/// CPU time (user + system) of this process so far: `/proc/self/stat` fields 14 and 15, in
/// Linux's fixed 100 Hz `USER_HZ` ticks. `None` elsewhere or when unreadable.
fn process_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may contain spaces; fields after its ')' are plain.
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_is_the_median_and_the_extremes() {
        let ms = Duration::from_millis;
        let t = Timing::of(&[ms(9), ms(3), ms(5)]).expect("three samples");
        assert_eq!(
            (t.median, t.min, t.max, t.samples),
            (ms(5), ms(3), ms(9), 3)
        );
        let t = Timing::of(&[ms(8), ms(2), ms(4), ms(30)]).expect("four samples");
        assert_eq!((t.median, t.min, t.max), (ms(6), ms(2), ms(30)));
        assert_eq!(Timing::of(&[]), None);
    }

    #[test]
    fn scaling_samples_alternate_and_keep_the_last_result_of_n_threads() {
        let mut calls = Vec::new();
        let s = sample(3, 2, true, |threads| {
            calls.push(threads);
            Ok(calls.len())
        })
        .expect("samples");
        assert_eq!(calls, [2, 1, 1, 2, 2, 1]);
        assert_eq!(s.runs, 6);
        // The last run on 2 threads was the fifth call.
        assert_eq!(s.last, 5);
        assert_eq!(
            (s.timing.samples, s.one_thread.map(|t| t.samples)),
            (3, Some(3))
        );
        let plain = sample(0, 4, false, Ok::<usize, Error>).expect("one sample");
        assert_eq!((plain.runs, plain.last, plain.one_thread), (1, 4, None));
    }

    #[test]
    fn a_failing_run_is_the_error() {
        let r = sample(3, 2, true, |threads| {
            if threads == 1 {
                Err(Error::Usage("boom".into()))
            } else {
                Ok(())
            }
        });
        assert!(matches!(r, Err(Error::Usage(m)) if m == "boom"));
    }
}
