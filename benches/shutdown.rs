//! Shutdown: the time to drop a 2-worker runtime that holds 10,000 pending tasks, rt against
//! tokio, paired (alternating rounds, median of the per-round ratios). Only the drop is timed;
//! building the runtime and spawning the tasks is not.
//!
//! - `sleeping`: each task waits on a one-hour sleep (the drop cancels 10,000 timers).
//! - `receiving`: each task waits on a oneshot whose sender the bench holds.
//!
//! Run: `cargo bench -p rt-benches --bench shutdown`

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rt_benches::paired_measured;

const TASKS: usize = 10_000;
const ROUNDS: usize = 15;

/// Builds a 2-worker runtime of `$krate` (`rt` or `tokio`, from `$builder`), spawns `TASKS`
/// pending tasks, waits until each has run once, and returns the time its drop takes.
macro_rules! drop_time {
    ($krate:ident, $builder:expr, $sleeping:expr) => {{
        let rt = $builder.worker_threads(2).build().unwrap();
        let mut senders = Vec::with_capacity(TASKS);
        let started = Arc::new(AtomicUsize::new(0));
        for _ in 0..TASKS {
            let started = started.clone();
            if $sleeping {
                rt.spawn(async move {
                    started.fetch_add(1, Ordering::Relaxed);
                    $krate::time::sleep(Duration::from_secs(3600)).await
                });
            } else {
                let (tx, rx) = $krate::sync::oneshot::channel::<()>();
                senders.push(tx);
                rt.spawn(async move {
                    started.fetch_add(1, Ordering::Relaxed);
                    let _ = rx.await;
                });
            }
        }
        while started.load(Ordering::Relaxed) < TASKS {
            std::thread::yield_now();
        }
        let t = Instant::now();
        drop(rt);
        let d = t.elapsed();
        drop(senders);
        d
    }};
}

fn main() {
    for (name, sleeping) in [("sleeping", true), ("receiving", false)] {
        paired_measured(
            &format!("drop_10k_{name}"),
            ROUNDS,
            || drop_time!(rt, rt::Builder::new_multi_thread(), sleeping),
            || {
                drop_time!(
                    tokio,
                    tokio::runtime::Builder::new_multi_thread().enable_all(),
                    sleeping
                )
            },
        );
    }
}
