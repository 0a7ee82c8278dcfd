//! Background work progresses while normal tasks keep the only worker busy: every
//! `background_interval`th tick the worker runs a queued background task first. Two normal
//! tasks yield to each other until the background task has counted to its goal, or until
//! they have yielded far more often than the share needs (then the background task starved
//! and the test fails). The slice is zero, so each background poll is one step; no clock
//! decides anything.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rt::task::Priority;

const GOAL: u64 = 50;
const INTERVAL: u32 = 8;
/// Yields per normal task after which the background task counts as starved: with one
/// background poll per `INTERVAL` ticks it reaches `GOAL` after about `GOAL * INTERVAL`
/// ticks; this is a hundred times that.
const STARVED_AFTER: u64 = 100 * GOAL * INTERVAL as u64;

fn scenario(rt: &rt::Runtime) {
    let done = Arc::new(AtomicBool::new(false));
    let steps = Arc::new(AtomicU64::new(0));
    rt.block_on(async {
        let bg = {
            let (done, steps) = (done.clone(), steps.clone());
            rt::task::Builder::new()
                .priority(Priority::Background)
                .spawn(async move {
                    while steps.fetch_add(1, Ordering::Relaxed) + 1 < GOAL {
                        rt::task::consume_budget().await;
                    }
                    done.store(true, Ordering::Release);
                })
                .unwrap()
        };
        let busy: Vec<_> = (0..2)
            .map(|_| {
                let done = done.clone();
                rt::spawn(async move {
                    let mut yields = 0u64;
                    while !done.load(Ordering::Acquire) && yields < STARVED_AFTER {
                        rt::task::yield_now().await;
                        yields += 1;
                    }
                    done.load(Ordering::Acquire)
                })
            })
            .collect();
        for b in busy {
            assert!(
                b.await.unwrap(),
                "the background task starved at {} steps",
                steps.load(Ordering::Relaxed)
            );
        }
        bg.await.unwrap();
    });
    assert_eq!(steps.load(Ordering::Relaxed), GOAL);
}

#[test]
fn multi_thread_one_worker() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .background_time_slice(Duration::ZERO)
        .background_interval(INTERVAL)
        .build()
        .unwrap();
    scenario(&rt);
}

#[test]
fn current_thread() {
    let rt = rt::Builder::new_current_thread()
        .background_time_slice(Duration::ZERO)
        .background_interval(INTERVAL)
        .build()
        .unwrap();
    scenario(&rt);
}
