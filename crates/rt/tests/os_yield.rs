//! A worker that runs tasks without a break gives its CPU to the OS now and then
//! (`Builder::os_yield_after`), counted by `RuntimeMetrics::worker_os_yield_count`; a worker
//! that runs out of work parks without yielding, even while another one runs. With `None` no
//! worker yields.

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
    let m = rt.metrics().snapshot();
    assert!(m.worker_poll_count(0) >= 1000);
    assert_eq!(m.worker_os_yield_count(0), 0, "yielded although turned off");
}

#[test]
#[should_panic(expected = "os_yield_after must be greater than zero")]
fn zero_is_refused() {
    rt::Builder::new_multi_thread().os_yield_after(Some(Duration::ZERO));
}

/// Two workers, one kept busy by `busy_until`; `os_yield_after` far longer than the test, so
/// the busy worker makes no interval yield. Each `block_on` of a trivial spawned task wakes
/// the idle worker (or lets it find nothing), which then runs out of work while the busy one
/// runs. Returns the yields and the parks counted once the idle worker has been through that
/// `rounds` times.
fn yields_and_parks_of_an_idle_worker_beside_a_busy_one(
    os_yield_after: Option<Duration>,
    rounds: usize,
) -> (u64, u64) {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .os_yield_after(os_yield_after)
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let busy = rt.spawn(busy_until(stop.clone()));
    // `metrics()` is a snapshot: take a fresh one for each look.
    let polls = || {
        let m = rt.metrics().snapshot();
        m.worker_poll_count(0) + m.worker_poll_count(1)
    };
    let parks = || {
        let m = rt.metrics().snapshot();
        m.worker_park_count(0) + m.worker_park_count(1)
    };
    while polls() < 1000 {
        std::thread::yield_now();
    }
    let parks_before = parks();
    for _ in 0..rounds {
        rt.block_on(rt.spawn(async {})).unwrap();
        std::thread::sleep(Duration::from_millis(1));
    }
    let parked = parks() - parks_before;
    stop.store(true, Ordering::Relaxed);
    rt.block_on(busy).unwrap();
    let m = rt.metrics().snapshot();
    (
        m.worker_os_yield_count(0) + m.worker_os_yield_count(1),
        parked,
    )
}

#[test]
fn an_idle_worker_parks_without_yielding_while_another_runs() {
    let (yields, parks) =
        yields_and_parks_of_an_idle_worker_beside_a_busy_one(Some(Duration::from_secs(3600)), 50);
    assert!(parks > 0, "the idle worker never parked");
    assert_eq!(
        yields, 0,
        "an idle worker beside a busy one yielded before parking"
    );
}

#[test]
fn no_yield_before_parking_when_turned_off() {
    let (yields, parks) = yields_and_parks_of_an_idle_worker_beside_a_busy_one(None, 50);
    assert!(parks > 0, "the idle worker never parked");
    assert_eq!(yields, 0, "yielded before parking although yielding is off");
}
