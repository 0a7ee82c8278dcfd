//! Metrics: idle workers park, a remote spawn unparks one, and busy time grows by at least the
//! time a task kept its worker busy.

use std::time::{Duration, Instant};

fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::yield_now();
    }
}

#[test]
fn parks_unparks_and_busy_time() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    // With nothing to do, both workers park.
    eventually("both workers to park", || {
        let m = rt.metrics().snapshot();
        m.worker_park_count(0) >= 1 && m.worker_park_count(1) >= 1
    });
    let before = rt.metrics().snapshot();
    let unparks_before: u64 = (0..2).map(|w| before.worker_unpark_count(w)).sum();

    // A spawn from outside wakes a sleeping worker, which keeps busy for 30 ms of CPU.
    const SPIN: Duration = Duration::from_millis(30);
    rt.block_on(rt.spawn(async {
        let start = Instant::now();
        while start.elapsed() < SPIN {
            std::hint::spin_loop();
        }
    }))
    .unwrap();
    let after = rt.metrics().snapshot();
    let unparks_after: u64 = (0..2).map(|w| after.worker_unpark_count(w)).sum();
    assert!(unparks_after > unparks_before, "no unpark counted");

    // Busy time is added when the worker parks again, which it does once idle: the total
    // then covers at least the spin.
    let busy_before: Duration = (0..2).map(|w| before.worker_total_busy_duration(w)).sum();
    eventually("busy time to cover the spin", || {
        let m = rt.metrics().snapshot();
        let busy: Duration = (0..2).map(|w| m.worker_total_busy_duration(w)).sum();
        busy - busy_before >= SPIN
    });
}
