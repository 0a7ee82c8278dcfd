//! The global queue interval tunes itself to the tasks' poll time, as tokio's does: with slow
//! tasks a worker looks at the injector every few ticks, so a task spawned from outside waits
//! for a handful of them, not for 61. A fixed interval (`Builder::global_queue_interval`) is
//! kept as set.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A chain of tasks on the one worker, each busy for `busy` and then spawning the next (into
/// the worker's own queue), counting itself in `counter`.
fn chain(flag: Arc<AtomicBool>, counter: Arc<AtomicUsize>, busy: Duration) {
    if flag.load(Relaxed) {
        let start = Instant::now();
        while start.elapsed() < busy {
            std::hint::spin_loop();
        }
        counter.fetch_add(1, Relaxed);
        rt::spawn(async move { chain(flag, counter, busy) });
    }
}

/// Injects probes from this thread, each taking how many chain tasks ran since the previous
/// probe, until `done` says stop or 20 s pass (a hang guard). Returns the probes' readings.
fn probe(
    rt: &rt::Runtime,
    counter: &Arc<AtomicUsize>,
    done: impl Fn(&[usize]) -> bool,
) -> Vec<usize> {
    let readings = Arc::new(std::sync::Mutex::new(Vec::new()));
    let guard = Instant::now();
    loop {
        let seen = readings.lock().unwrap().clone();
        if done(&seen) || guard.elapsed() > Duration::from_secs(20) {
            return seen;
        }
        let (counter, readings) = (counter.clone(), readings.clone());
        rt.block_on(rt.spawn(async move {
            let ran = counter.swap(0, Relaxed);
            readings.lock().unwrap().push(ran);
        }))
        .unwrap();
    }
}

#[test]
fn slow_tasks_let_remote_spawns_in_within_a_few_ticks() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let flag = Arc::new(AtomicBool::new(true));
    let counter = Arc::new(AtomicUsize::new(0));
    {
        let (flag, counter) = (flag.clone(), counter.clone());
        rt.spawn(async move { chain(flag, counter, Duration::from_micros(50)) });
    }
    // Three probes in a row that waited for at most 8 chain tasks, as tokio's `test_tuning`.
    let readings = probe(&rt, &counter, |r| {
        r.len() >= 3 && r[r.len() - 3..].iter().all(|&n| n <= 8)
    });
    flag.store(false, Relaxed);
    let tail = &readings[readings.len().saturating_sub(3)..];
    assert!(
        readings.len() >= 3 && tail.iter().all(|&n| n <= 8),
        "the interval did not come down: {readings:?}"
    );
}

#[test]
fn a_fixed_interval_is_kept() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .global_queue_interval(61)
        .build()
        .unwrap();
    let flag = Arc::new(AtomicBool::new(true));
    let counter = Arc::new(AtomicUsize::new(0));
    {
        let (flag, counter) = (flag.clone(), counter.clone());
        rt.spawn(async move { chain(flag, counter, Duration::from_micros(50)) });
    }
    let readings = probe(&rt, &counter, |r| r.len() >= 12);
    flag.store(false, Relaxed);
    // The first probe may land at any point of the countdown; after it, each waits about a
    // full interval of chain tasks.
    assert!(
        readings[2..].iter().all(|&n| n > 8),
        "a fixed interval of 61 let a probe in early: {readings:?}"
    );
}
