//! WaitGroup: `wait` returns when the count reaches zero, wakes every waiter, and panics on
//! more `done` than `add`.

mod lock_util;

use lock_util::{block_on, Task};
use rt_sync::wait_group::WaitGroup;
use std::sync::Arc;

#[test]
fn wait_at_zero_returns_at_once() {
    let wg = WaitGroup::new();
    block_on(wg.wait());
}

#[test]
fn wait_returns_when_the_count_reaches_zero() {
    let wg = WaitGroup::new();
    wg.add(2);
    let mut a = Task::new(wg.wait());
    let mut b = Task::new(wg.wait());
    a.pending();
    b.pending();
    wg.done();
    assert!(!a.woken());
    a.pending();
    wg.done();
    assert_eq!(wg.count(), 0);
    assert!(a.woken() && b.woken());
    a.ready();
    b.ready();
}

#[test]
fn a_waiter_created_before_the_last_done_but_not_polled_sees_it() {
    let wg = WaitGroup::new();
    wg.add(1);
    let mut w = Task::new(wg.wait());
    w.pending();
    wg.add(1);
    wg.done();
    w.pending();
    wg.done();
    w.ready();
}

#[test]
#[should_panic(expected = "more times than added")]
fn done_below_zero_panics() {
    WaitGroup::new().done();
}

#[test]
#[should_panic(expected = "overflow")]
fn add_past_the_maximum_panics_and_keeps_the_count() {
    let wg = WaitGroup::new();
    wg.add(usize::MAX);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| wg.add(1)));
    assert_eq!(wg.count(), usize::MAX, "the failed add changed the count");
    std::panic::resume_unwind(r.unwrap_err());
}

#[test]
fn threads_finishing_work_release_the_waiter() {
    let wg = Arc::new(WaitGroup::new());
    wg.add(8);
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let wg = wg.clone();
            std::thread::spawn(move || wg.done())
        })
        .collect();
    block_on(wg.wait());
    assert_eq!(wg.count(), 0);
    for t in threads {
        t.join().unwrap();
    }
}
