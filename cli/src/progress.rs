//! Long launches: a progress line on a terminal, and Ctrl-C that stops cleanly.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wavejit::LaunchControl;

/// Exit status of a launch stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const INTERRUPTED_EXIT: u8 = 130;

/// How often the progress line is redrawn.
const TICK: Duration = Duration::from_millis(250);
/// No line for launches shorter than this.
const QUIET_START: Duration = Duration::from_millis(500);

/// The control Ctrl-C cancels (the process's current launch).
static CURRENT: Mutex<Option<Arc<LaunchControl>>> = Mutex::new(None);

/// Makes Ctrl-C (SIGINT) cancel `control`: the launch stops after its running work-groups
/// and reports what ran. A second Ctrl-C exits at once with status 130.
pub fn install_ctrlc(control: &Arc<LaunchControl>) {
    *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = Some(control.clone());
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    if INSTALLED.swap(true, Ordering::Relaxed) {
        return;
    }
    // Failing to install (another handler exists) leaves Ctrl-C's default: exit at once.
    let _ = ctrlc::set_handler(|| {
        let c = CURRENT.lock().unwrap_or_else(|e| e.into_inner()).clone();
        match c {
            Some(c) if !c.is_cancelled() => {
                c.cancel();
                eprintln!("\nstopping after the running workgroups (Ctrl-C again to quit now)");
            }
            _ => std::process::exit(i32::from(INTERRUPTED_EXIT)),
        }
    });
}

/// Runs `f` (a launch observed through `control`); meanwhile, when stderr is a terminal,
/// redraws a progress line there: work-groups done of total, rate, time left.
pub fn while_running<T>(control: &LaunchControl, f: impl FnOnce() -> T) -> T {
    if !std::io::stderr().is_terminal() {
        return f();
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let start = Instant::now();
            let mut shown = false;
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(TICK);
                let elapsed = start.elapsed();
                if elapsed < QUIET_START || done.load(Ordering::Relaxed) {
                    continue;
                }
                let (n, total) = control.progress();
                eprint!("\r\x1b[2K{}", line(n, total, elapsed));
                let _ = std::io::stderr().flush();
                shown = true;
            }
            if shown {
                eprint!("\r\x1b[2K");
            }
        });
        let r = f();
        done.store(true, Ordering::Relaxed);
        r
    })
}

/// `12/100 workgroups (12%), 40.0/s, 2.2 s left`.
pub fn line(done: u64, total: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 { done as f64 / secs } else { 0.0 };
    let pct = if total > 0 {
        100.0 * done as f64 / total as f64
    } else {
        0.0
    };
    let left = if rate > 0.0 {
        format!("{:.1} s left", total.saturating_sub(done) as f64 / rate)
    } else {
        "time left unknown".to_string()
    };
    format!("{done}/{total} workgroups ({pct:.0}%), {rate:.1}/s, {left}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_line_shows_rate_and_time_left() {
        assert_eq!(
            line(25, 100, Duration::from_secs(5)),
            "25/100 workgroups (25%), 5.0/s, 15.0 s left"
        );
        assert_eq!(
            line(0, 8, Duration::from_secs(1)),
            "0/8 workgroups (0%), 0.0/s, time left unknown"
        );
    }
}
