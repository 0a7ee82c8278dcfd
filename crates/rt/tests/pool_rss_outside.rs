//! Like `pool_rss.rs`, but the 1,000,000 tasks are spawned from outside the workers (the test
//! thread, through `Runtime::spawn`, as a multi-thread `block_on` or any plain thread with a
//! `Handle` does): their cells come from that thread's pool heap and are freed on the workers.
//! RSS must still settle back near where it started once they are gone.

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use support::rss::{rss, settled_rss, BOUND, MIB, SETTLE};
use support::Gate;

const TASKS: usize = 1_000_000;

/// Spawns `n` tasks from this (non-worker) thread, all parked on one gate at once, then opens
/// the gate and waits until every task has finished and left the runtime. Returns the RSS seen
/// while all `n` were pending.
fn run_gated(rt: &rt::Runtime, n: usize) -> usize {
    let gate = Arc::new(Gate::default());
    let done = Arc::new(AtomicUsize::new(0));
    for _ in 0..n {
        let (g, d) = (gate.clone(), done.clone());
        drop(rt.spawn(async move {
            g.wait().await;
            d.fetch_add(1, Ordering::Relaxed);
        }));
    }
    rt.block_on(async {
        while gate.waiting() < n {
            rt::task::yield_now().await;
        }
    });
    let peak = rss();
    gate.open();
    rt.block_on(async {
        while done.load(Ordering::Relaxed) < n
            || rt::Handle::current().metrics().num_alive_tasks() > 0
        {
            rt::task::yield_now().await;
        }
    });
    peak
}

#[test]
fn rss_settles_after_a_million_tasks_spawned_from_outside() {
    let rt = support::multi_thread(2);
    run_gated(&rt, 10_000);
    let start = rss();
    let peak = run_gated(&rt, TASKS);
    assert!(
        peak > start + BOUND,
        "a million pending tasks should take more than {} MiB: {} MiB from {} MiB",
        BOUND / MIB,
        peak / MIB,
        start / MIB
    );
    let end = settled_rss(start + BOUND);
    assert!(
        end <= start + BOUND,
        "{SETTLE:?} after {TASKS} tasks finished RSS is {} MiB, from {} MiB before (peak {} MiB)",
        end / MIB,
        start / MIB,
        peak / MIB
    );
}
