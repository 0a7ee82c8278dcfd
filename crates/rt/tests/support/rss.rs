//! Resident memory of this process, for the frame-pool tests (`pool_rss*.rs`).

use std::time::{Duration, Instant};

/// One mebibyte.
pub const MIB: usize = 1 << 20;
/// How far above its baseline RSS may stay once a burst of tasks is gone.
pub const BOUND: usize = 64 * MIB;
/// How long RSS may take to settle: 100 times the workers' idle-trim delay (`TRIM_AFTER` in
/// `rt-sched/src/multi_thread/worker.rs`), so a pass is no race against it.
pub const SETTLE: Duration = Duration::from_secs(10);

/// Resident set size of this process, from `/proc/self/statm` (second field, in pages).
pub fn rss() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("read /proc/self/statm");
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|f| f.parse().ok())
        .expect("statm has a resident field");
    // SAFETY: `sysconf` only reads a configuration value.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages * usize::try_from(page).expect("a positive page size")
}

/// Reads RSS until it is at most `bound`, for at most [`SETTLE`]; returns the last reading.
///
/// Memory goes back to the OS when a worker has been idle for a while: there is no event to
/// wait for, so this polls.
pub fn settled_rss(bound: usize) -> usize {
    let give_up = Instant::now() + SETTLE;
    loop {
        let now = rss();
        if now <= bound || Instant::now() >= give_up {
            return now;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
