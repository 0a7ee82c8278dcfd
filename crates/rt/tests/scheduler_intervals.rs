//! `Builder::global_queue_interval` and `event_interval`: 0 is refused with a panic that says
//! so (as tokio), and with the smallest interval a busy worker still takes remote work and
//! fires timers.

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use support::deadline;

#[test]
#[should_panic(expected = "global_queue_interval must be greater than 0")]
fn global_queue_interval_of_zero_panics() {
    rt::Builder::new_multi_thread().global_queue_interval(0);
}

#[test]
#[should_panic(expected = "event_interval must be greater than 0")]
fn event_interval_of_zero_panics() {
    rt::Builder::new_multi_thread().event_interval(0);
}

#[test]
#[should_panic(expected = "event_interval must be greater than 0")]
fn event_interval_of_zero_panics_on_current_thread() {
    rt::Builder::new_current_thread().event_interval(0);
}

/// A task that yields until `stop` is set keeps its worker's local queue non-empty, so the
/// worker reaches the injector (a spawn from the `block_on` thread) and its IO driver (the
/// timer) only through the intervals.
async fn spin_until(stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::SeqCst) {
        rt::task::yield_now().await;
    }
}

fn busy_worker_still_sees_remote_work_and_timers(mut b: rt::Builder) {
    let rt = b
        .global_queue_interval(1)
        .event_interval(1)
        .build()
        .unwrap();
    deadline(move || {
        rt.block_on(async {
            let stop = Arc::new(AtomicBool::new(false));
            let spinner = rt::spawn(spin_until(stop.clone()));
            // Spawned from outside the worker: into the injector.
            let remote = rt::spawn(async {
                rt::time::sleep(Duration::from_millis(1)).await;
            });
            remote.await.unwrap();
            stop.store(true, Ordering::SeqCst);
            spinner.await.unwrap();
        })
    });
}

#[test]
fn interval_of_one_multi_thread() {
    let mut b = rt::Builder::new_multi_thread();
    b.worker_threads(1);
    busy_worker_still_sees_remote_work_and_timers(b);
}

#[test]
fn interval_of_one_current_thread() {
    busy_worker_still_sees_remote_work_and_timers(rt::Builder::new_current_thread());
}
