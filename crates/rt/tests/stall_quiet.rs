//! Stall detection is quiet while nothing stalls: busy short polls and idle workers produce no
//! report, no `stalls` count, and no unpark of an idle worker (the monitor only reads stamps).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

fn runtime(reports: Arc<AtomicUsize>) -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(4)
        // A short threshold: the monitor samples every millisecond.
        .stall_threshold(Some(Duration::from_millis(4)))
        .on_stall(move |_| {
            reports.fetch_add(1, Ordering::Relaxed);
        })
        .build()
        .unwrap()
}

#[test]
fn busy_short_polls_are_no_stall() {
    let reports = Arc::new(AtomicUsize::new(0));
    let rt = runtime(reports.clone());
    rt.block_on(async {
        for _ in 0..200 {
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
    assert_eq!(rt.metrics().stalls, 0);
}

#[test]
fn idle_workers_are_not_unparked_by_the_monitor() {
    let reports = Arc::new(AtomicUsize::new(0));
    let rt = runtime(reports.clone());
    // Let every worker settle into its park.
    rt.block_on(async {
        rt::spawn(async {}).await.unwrap();
    });
    let before = rt.metrics().total().unparks;
    // Many monitor periods with nothing to run (the main thread waits on its own timer).
    rt.block_on(async { rt::time::sleep(Duration::from_millis(300)).await });
    let after = rt.metrics().total().unparks;
    assert_eq!(
        after, before,
        "idle workers were unparked while nothing ran"
    );
    assert_eq!(reports.load(Ordering::Relaxed), 0);
}
