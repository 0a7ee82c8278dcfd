//! After 1,000,000 tasks finish, the process's resident memory settles back near where it
//! started: the task cells (from the frame pool, the default) go back to the OS, not just to a
//! free list. One test in its own binary, so no other test's allocations move the numbers.
//!
//! The tasks are spawned by a task, so their cells come from the workers' pool heaps. A block
//! freed on a worker other than the one that allocated it waits in its slab's remote list until
//! the owner trims, which a worker does once it has been parked for a while (`TRIM_AFTER` in
//! `rt-sched/src/multi_thread/worker.rs`): there is no event to wait for, so the test reads RSS
//! until it is back under the bound, and fails if it is not within `SETTLE`.

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use support::rss::{rss, settled_rss, BOUND, MIB, SETTLE};
use support::Gate;

const TASKS: usize = 1_000_000;

/// Spawns `n` tasks from a task on a worker, all parked on one gate at once, then opens the
/// gate and waits until every task has finished and left the runtime. Returns the RSS seen
/// while all `n` were pending.
fn run_gated(rt: &rt::Runtime, n: usize) -> usize {
    let gate = Arc::new(Gate::default());
    let done = Arc::new(AtomicUsize::new(0));
    let (g, d) = (gate.clone(), done.clone());
    rt.block_on(rt.spawn(async move {
        for _ in 0..n {
            let (g, d) = (g.clone(), d.clone());
            drop(rt::spawn(async move {
                g.wait().await;
                d.fetch_add(1, Ordering::Relaxed);
            }));
        }
        while g.waiting() < n {
            rt::task::yield_now().await;
        }
    }))
    .unwrap();
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
fn rss_settles_after_a_million_tasks() {
    let rt = support::multi_thread(2);
    // Warm-up: threads, queues and the pool's first slabs exist before the baseline.
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
