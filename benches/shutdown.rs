//! Shutdown: the time to drop a 2-worker runtime that holds 10,000 pending tasks, rt against
//! tokio, paired (alternating rounds, median of the per-round ratios). Only the drop is timed;
//! building the runtime and spawning the tasks is not.
//!
//! - `sleeping`: each task waits on a one-hour sleep (the drop cancels 10,000 timers).
//! - `receiving`: each task waits on a oneshot whose sender the bench holds.
//!
//! Run: `cargo bench -p rt-benches --bench shutdown`

use std::time::{Duration, Instant};

const TASKS: usize = 10_000;
const ROUNDS: usize = 15;

fn rt_drop(sleeping: bool) -> Duration {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let mut senders = Vec::with_capacity(TASKS);
    let started = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for _ in 0..TASKS {
        let started = started.clone();
        if sleeping {
            rt.spawn(async move {
                started.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                rt::time::sleep(Duration::from_secs(3600)).await
            });
        } else {
            let (tx, rx) = rt::sync::oneshot::channel::<()>();
            senders.push(tx);
            rt.spawn(async move {
                started.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let _ = rx.await;
            });
        }
    }
    while started.load(std::sync::atomic::Ordering::Relaxed) < TASKS {
        std::thread::yield_now();
    }
    let t = Instant::now();
    drop(rt);
    let d = t.elapsed();
    drop(senders);
    d
}

fn tokio_drop(sleeping: bool) -> Duration {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut senders = Vec::with_capacity(TASKS);
    let started = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for _ in 0..TASKS {
        let started = started.clone();
        if sleeping {
            rt.spawn(async move {
                started.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(Duration::from_secs(3600)).await
            });
        } else {
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            senders.push(tx);
            rt.spawn(async move {
                started.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let _ = rx.await;
            });
        }
    }
    while started.load(std::sync::atomic::Ordering::Relaxed) < TASKS {
        std::thread::yield_now();
    }
    let t = Instant::now();
    drop(rt);
    let d = t.elapsed();
    drop(senders);
    d
}

fn main() {
    for (name, sleeping) in [("sleeping", true), ("receiving", false)] {
        let (mut rts, mut tokios, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            let (r, t) = if round % 2 == 0 {
                let r = rt_drop(sleeping);
                (r, tokio_drop(sleeping))
            } else {
                let t = tokio_drop(sleeping);
                (rt_drop(sleeping), t)
            };
            rts.push(r);
            tokios.push(t);
            ratios.push(r.as_secs_f64() / t.as_secs_f64());
        }
        rts.sort();
        tokios.sort();
        ratios.sort_by(f64::total_cmp);
        let mid = ROUNDS / 2;
        println!(
            "drop_10k_{name} paired ({ROUNDS} alternating rounds): rt median {:.3?}, tokio median \
             {:.3?}, median of per-round rt/tokio = {:.2} (range {:.2}-{:.2})",
            rts[mid],
            tokios[mid],
            ratios[mid],
            ratios[0],
            ratios[ROUNDS - 1]
        );
    }
}
