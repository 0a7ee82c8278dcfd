//! Stall detection is quiet while nothing stalls: busy short polls produce no report and no
//! `stall_count`, and idle workers get no unpark (the monitor only reads stamps).
//!
//! A thread the OS deschedules in the middle of a poll looks stalled too, so the busy test uses
//! a threshold no descheduling on a loaded machine reaches (250 ms) and keeps the workers busy
//! for several times that: if stamps stopped moving under a busy worker, it would be reported.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn runtime(reports: Arc<AtomicUsize>, threshold: Duration) -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(4)
        .stall_threshold(Some(threshold))
        .on_stall(move |_| {
            reports.fetch_add(1, Ordering::Relaxed);
        })
        .build()
        .unwrap()
}

#[test]
fn busy_short_polls_are_no_stall() {
    let reports = Arc::new(AtomicUsize::new(0));
    let rt = runtime(reports.clone(), Duration::from_millis(250));
    rt.block_on(async {
        let start = Instant::now();
        // Busy for four thresholds (the length of the workload, not a check of timing).
        while start.elapsed() < Duration::from_secs(1) {
            let hs: Vec<_> = (0..50)
                .map(|i| {
                    rt::spawn(async move {
                        for _ in 0..i % 5 {
                            rt::task::yield_now().await;
                        }
                    })
                })
                .collect();
            for h in hs {
                h.await.unwrap();
            }
            rt::time::sleep(Duration::from_micros(200)).await;
        }
    });
    assert_eq!(reports.load(Ordering::Relaxed), 0);
    assert_eq!(rt.metrics().stall_count(), 0);
}

#[test]
fn idle_workers_are_not_unparked_by_the_monitor() {
    let reports = Arc::new(AtomicUsize::new(0));
    // A short threshold: the monitor samples every millisecond.
    let rt = runtime(reports.clone(), Duration::from_millis(4));
    // Let every worker settle into its park.
    rt.block_on(async {
        rt::spawn(async {}).await.unwrap();
    });
    let before = rt.metrics().total().unparks();
    // Many monitor periods with nothing to run (the main thread waits on its own timer).
    rt.block_on(async { rt::time::sleep(Duration::from_millis(300)).await });
    let after = rt.metrics().total().unparks();
    assert_eq!(
        after, before,
        "idle workers were unparked while nothing ran"
    );
    assert_eq!(reports.load(Ordering::Relaxed), 0);
}
