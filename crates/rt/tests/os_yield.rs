//! A worker that runs tasks without a break gives its CPU to the OS now and then
//! (`Builder::os_yield_after`), counted by `RuntimeMetrics::worker_os_yield_count`; with `None`
//! it never does.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A task that keeps its worker busy (re-queues itself) until `stop` is set: the worker never
/// runs out of work, so it never parks.
async fn busy_until(stop: Arc<AtomicBool>) -> u64 {
    let mut turns = 0u64;
    while !stop.load(Ordering::Relaxed) {
        rt::task::yield_now().await;
        turns += 1;
    }
    turns
}

#[test]
fn a_busy_worker_yields_its_cpu() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .os_yield_after(Some(Duration::from_micros(200)))
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let task = rt.spawn(busy_until(stop.clone()));
    let deadline = Instant::now() + Duration::from_secs(30);
    while rt.metrics().worker_os_yield_count(0) < 3 {
        assert!(
            Instant::now() < deadline,
            "a worker busy for 30 s never yielded its CPU"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    stop.store(true, Ordering::Relaxed);
    let turns = rt.block_on(task).unwrap();
    assert!(turns > 0);
}

#[test]
fn no_yield_when_turned_off() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .os_yield_after(None)
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let task = rt.spawn(busy_until(stop.clone()));
    // Busy far longer than the default 1 ms, and across many `event_interval` ticks.
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(50) || rt.metrics().worker_poll_count(0) < 1000 {
        std::thread::sleep(Duration::from_millis(1));
    }
    stop.store(true, Ordering::Relaxed);
    rt.block_on(task).unwrap();
    let m = rt.metrics();
    assert!(m.worker_poll_count(0) >= 1000);
    assert_eq!(m.worker_os_yield_count(0), 0, "yielded although turned off");
}

#[test]
#[should_panic(expected = "os_yield_after must be greater than zero")]
fn zero_is_refused() {
    rt::Builder::new_multi_thread().os_yield_after(Some(Duration::ZERO));
}
