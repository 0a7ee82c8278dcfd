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

/// A sleep's first poll compares its deadline with this thread's last clock reading, not with
/// a fresh one (`recent_lower_bound` in `time/sleep.rs`). A deadline that passed after that
/// reading is registered and fired by the next turn: the sleep still completes, on a worker
/// and on a `block_on` thread, and not before its deadline.
#[test]
fn a_deadline_passed_since_the_last_clock_reading_still_completes() {
    let rt = time_support::runtime();
    let body = || async {
        for us in [1, 100, 1000] {
            // The thread's last reading of rt's clock.
            let deadline = Instant::now() + Duration::from_micros(us);
            // Past the deadline, reading only std's clock.
            let spin = std::time::Instant::now();
            while spin.elapsed() < Duration::from_micros(us + 2000) {
                std::hint::spin_loop();
            }
            sleep_until(deadline).await;
            assert!(Instant::now() >= deadline);
        }
    };
    rt.block_on(body());
    rt.block_on(rt.spawn(body())).unwrap();
}
