//! A `JoinSet` that is never drained keeps its finished tasks' outputs, not their cells:
//! 100,000 tasks, each with a 2,000-byte future and a one-byte output, all finished and none
//! collected, leave resident memory within `BOUND` of where it started. A set that kept each
//! finished cell (as a `JoinHandle` would) holds at least 200 MB here and fails.
//!
//! One test in its own binary, so no other test's allocations move the numbers. The set lives
//! in a task on a worker, so the cells come from the workers' pool heaps, which give memory
//! back once idle (see `pool_rss.rs`); `settled_rss` waits for that.

mod support;

use support::rss::{rss, settled_rss, BOUND, MIB};

const TASKS: usize = 100_000;
const PAD: usize = 2_000;

#[test]
fn an_undrained_set_keeps_outputs_not_cells() {
    let rt = support::multi_thread(2);
    // Start the workers and their heaps before the baseline.
    rt.block_on(rt.spawn(async {})).unwrap();
    let base = rss();
    let set = rt
        .block_on(rt.spawn(async {
            let mut set = rt::task::JoinSet::new();
            for i in 0..TASKS {
                let pad = [i as u8; PAD];
                set.spawn(async move { pad[i % PAD] });
            }
            // This task is the one live task left once every task of the set has ended.
            while rt::Handle::current().metrics().num_alive_tasks() > 1 {
                rt::task::yield_now().await;
            }
            set
        }))
        .unwrap();
    assert_eq!(set.len(), TASKS);
    let settled = settled_rss(base + BOUND);
    assert!(
        settled <= base + BOUND,
        "RSS {} MiB above the baseline with {TASKS} finished, uncollected tasks",
        (settled - base) / MIB
    );
    // Every output is still there.
    let mut set = set;
    let mut n = 0;
    while let Some(v) = set.try_join_next() {
        v.unwrap();
        n += 1;
    }
    assert_eq!(n, TASKS);
}
