//! A sleep never completes before its deadline, for every length from zero to milliseconds, on
//! one task and on many tasks across both workers.

mod time_support;

use rt::time::Instant;
use std::time::Duration;

use rt::time::{sleep, sleep_until};

const LENGTHS_US: [u64; 8] = [0, 1, 5, 50, 100, 999, 1000, 4000];

#[test]
fn sleep_completes_at_or_after_its_deadline() {
    let rt = time_support::runtime();
    rt.block_on(async {
        for us in LENGTHS_US {
            for _ in 0..5 {
                let d = Duration::from_micros(us);
                let start = Instant::now();
                let s = sleep(d);
                let deadline = s.deadline();
                assert!(deadline >= start + d);
                s.await;
                assert!(Instant::now() >= deadline, "{us} µs sleep completed early");
            }
        }
    });
}

#[test]
fn sleep_until_completes_at_or_after_its_deadline() {
    let rt = time_support::runtime();
    rt.block_on(async {
        for us in LENGTHS_US {
            let deadline = Instant::now() + Duration::from_micros(us);
            let s = sleep_until(deadline);
            assert_eq!(s.deadline(), deadline);
            s.await;
            assert!(Instant::now() >= deadline);
        }
    });
}

#[test]
fn spawned_sleeps_on_both_workers_never_complete_early() {
    let rt = time_support::runtime();
    let handles: Vec<_> = (0..400u64)
        .map(|i| {
            rt.spawn(async move {
                let deadline = Instant::now() + Duration::from_micros(37 * (i % 50));
                sleep_until(deadline).await;
                Instant::now() >= deadline
            })
        })
        .collect();
    rt.block_on(async {
        for h in handles {
            assert!(h.await.unwrap(), "a spawned sleep completed early");
        }
    });
}
