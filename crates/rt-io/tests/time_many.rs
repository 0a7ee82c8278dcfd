//! Many timers at once: 10,000 tasks across both workers each sleep 1 ms, and threads outside the
//! workers create and await timers concurrently.

mod time_support;

use rt::time::Instant;
use std::time::Duration;

use rt::time::sleep;

#[test]
fn ten_thousand_tasks_sleep_one_millisecond() {
    let rt = time_support::runtime();
    let handles: Vec<_> = (0..10_000)
        .map(|_| {
            rt.spawn(async {
                let start = Instant::now();
                sleep(Duration::from_millis(1)).await;
                start.elapsed() >= Duration::from_millis(1)
            })
        })
        .collect();
    rt.block_on(async {
        for h in handles {
            assert!(h.await.unwrap(), "a sleep completed early");
        }
    });
}

#[test]
fn timers_from_many_threads() {
    let rt = time_support::runtime();
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let handle = rt.handle().clone();
            std::thread::spawn(move || {
                handle.block_on(async move {
                    for i in 0..200 {
                        let d = Duration::from_micros((t * 13 + i * 7) % 300);
                        let start = Instant::now();
                        sleep(d).await;
                        assert!(start.elapsed() >= d);
                    }
                })
            })
        })
        .collect();
    let spawned: Vec<_> = (0..1000u64)
        .map(|i| rt.spawn(async move { sleep(Duration::from_micros(i % 500)).await }))
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    rt.block_on(async {
        for h in spawned {
            h.await.unwrap();
        }
    });
}

#[test]
fn many_timers_cancelled_and_kept_together() {
    let rt = time_support::runtime();
    let handles: Vec<_> = (0..2000u64)
        .map(|i| {
            rt.spawn(async move {
                let short = Duration::from_micros(200 + i % 100);
                // Every task drops one timer unfired: the timeout's (odd) or the inner sleep's
                // (even, pending forever instead, so the outcome does not depend on timing).
                let ok = if i % 2 == 1 {
                    rt::time::timeout(Duration::from_secs(3600), sleep(short))
                        .await
                        .is_ok()
                } else {
                    rt::time::timeout(short, std::future::pending::<()>())
                        .await
                        .is_ok()
                };
                (i, ok)
            })
        })
        .collect();
    rt.block_on(async {
        for h in handles {
            let (i, ok) = h.await.unwrap();
            assert_eq!(ok, i % 2 == 1, "task {i}");
        }
    });
}
