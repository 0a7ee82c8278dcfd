//! Where rt-sync's waits spend the cooperative budget, as tokio's do: `watch`'s `wait_for` and
//! `closed` spend it (a loop of them yields), and a `Mutex` or `Semaphore` waiter out of budget
//! still queues in its turn when it must wait anyway, rather than waking itself; with the lock
//! or permits there it yields without taking them.

mod channel_util;

use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;

use channel_util::{poll_with, CountWaker};
use rt_core::coop;
use rt_sync::mutex::Mutex;
use rt_sync::semaphore::Semaphore;
use rt_sync::watch;

/// Spends the rest of the current budget.
fn spend_budget() {
    let w = CountWaker::new();
    while poll_with(pin!(coop::consume_budget()), &w).is_ready() {}
}

#[test]
fn ready_wait_for_spends_one_unit_and_stops_when_the_budget_is_spent() {
    let (tx, mut rx) = watch::channel(0);
    let w = CountWaker::new();
    let ready = coop::budget(|| {
        let mut ready = 0u32;
        loop {
            tx.send(1).unwrap();
            match poll_with(pin!(rx.wait_for(|v| *v == 1)), &w) {
                Poll::Ready(r) => assert_eq!(*r.unwrap(), 1),
                Poll::Pending => return ready,
            }
            ready += 1;
        }
    });
    assert_eq!(ready, u32::from(coop::BUDGET));
    assert_eq!(w.count(), 1, "the spent budget wakes the task to run again");
    // The value was not lost: the next poll, with a new budget, takes it.
    let r = coop::budget(|| poll_with(pin!(rx.wait_for(|v| *v == 1)), &w).map(|r| r.is_ok()));
    assert_eq!(r, Poll::Ready(true));
}

#[test]
fn wait_for_through_several_values_spends_one_unit() {
    let (tx, mut rx) = watch::channel(0);
    let w = CountWaker::new();
    coop::budget(|| {
        let mut f = pin!(rx.wait_for(|v| *v == 3));
        assert!(poll_with(f.as_mut(), &w).is_pending());
        for v in 1..=3 {
            tx.send(v).unwrap();
            let _ = poll_with(f.as_mut(), &w);
        }
        spend_budget();
    });
    let left = coop::budget(|| {
        let mut f = pin!(rx.wait_for(|v| *v == 3));
        assert!(poll_with(f.as_mut(), &w).is_ready());
        let mut left = 0u32;
        while poll_with(pin!(coop::consume_budget()), &w).is_ready() {
            left += 1;
        }
        left
    });
    assert_eq!(left, u32::from(coop::BUDGET) - 1);
}

#[test]
fn closed_on_a_closed_channel_stops_when_the_budget_is_spent() {
    let (tx, rx) = watch::channel(());
    drop(rx);
    let w = CountWaker::new();
    let ready = coop::budget(|| {
        let mut ready = 0u32;
        while poll_with(pin!(tx.closed()), &w).is_ready() {
            ready += 1;
        }
        ready
    });
    assert_eq!(ready, u32::from(coop::BUDGET));
    assert_eq!(w.count(), 1);
}

#[test]
fn a_lock_waiter_out_of_budget_queues_in_its_turn() {
    let m = Arc::new(Mutex::new(()));
    let g0 = m.try_lock().unwrap();
    let (wa, wb) = (CountWaker::new(), CountWaker::new());
    coop::budget(|| {
        spend_budget();
        let mut a = pin!(m.clone().lock_owned());
        assert!(poll_with(a.as_mut(), &wa).is_pending());
        let mut b = pin!(m.clone().lock_owned());
        assert!(poll_with(b.as_mut(), &wb).is_pending());
        assert_eq!(
            (wa.count(), wb.count()),
            (0, 0),
            "queued, not woken by the budget"
        );
        drop(g0);
        assert_eq!(
            (wa.count(), wb.count()),
            (1, 0),
            "the first in the queue is woken"
        );
    });
}

#[test]
fn out_of_budget_a_free_lock_is_left_free_and_the_task_yields() {
    let m = Mutex::new(5);
    let w = CountWaker::new();
    coop::budget(|| {
        spend_budget();
        let mut l = pin!(m.lock());
        assert!(poll_with(l.as_mut(), &w).is_pending());
        assert_eq!(w.count(), 1, "the spent budget wakes the task");
        assert!(m.try_lock().is_ok(), "the lock was not taken");
        let r = coop::budget(|| poll_with(l.as_mut(), &w).map(|g| *g));
        assert_eq!(r, Poll::Ready(5));
    });
}

#[test]
fn a_queued_lock_waiter_out_of_budget_keeps_its_place() {
    let m = Mutex::new(());
    let g0 = m.try_lock().unwrap();
    let (wa, wb) = (CountWaker::new(), CountWaker::new());
    let mut a = pin!(m.lock());
    assert!(poll_with(a.as_mut(), &wa).is_pending());
    coop::budget(|| {
        spend_budget();
        assert!(poll_with(a.as_mut(), &wa).is_pending());
        assert_eq!(wa.count(), 1, "out of budget, it yields");
    });
    let mut b = pin!(m.lock());
    assert!(poll_with(b.as_mut(), &wb).is_pending());
    drop(g0);
    assert_eq!((wa.count(), wb.count()), (2, 0), "still first in the queue");
    assert!(poll_with(a.as_mut(), &wa).is_ready());
}

#[test]
fn a_permit_waiter_out_of_budget_queues_in_its_turn() {
    let s = Semaphore::new(0);
    let (wa, wb) = (CountWaker::new(), CountWaker::new());
    coop::budget(|| {
        spend_budget();
        let mut a = pin!(s.acquire());
        assert!(poll_with(a.as_mut(), &wa).is_pending());
        let mut b = pin!(s.acquire());
        assert!(poll_with(b.as_mut(), &wb).is_pending());
        assert_eq!(
            (wa.count(), wb.count()),
            (0, 0),
            "queued, not woken by the budget"
        );
        s.add_permits(1);
        assert_eq!(
            (wa.count(), wb.count()),
            (1, 0),
            "the first in the queue is served"
        );
    });
}

#[test]
fn out_of_budget_available_permits_are_left_and_the_task_yields() {
    let s = Semaphore::new(2);
    let w = CountWaker::new();
    coop::budget(|| {
        spend_budget();
        let mut a = pin!(s.acquire_many(2));
        assert!(poll_with(a.as_mut(), &w).is_pending());
        assert_eq!(w.count(), 1, "the spent budget wakes the task");
        assert_eq!(s.available_permits(), 2, "no permit was taken");
        let p = coop::budget(|| match poll_with(a.as_mut(), &w) {
            Poll::Ready(p) => p.unwrap(),
            Poll::Pending => panic!("a new budget takes the permits"),
        });
        assert_eq!(s.available_permits(), 0);
        drop(p);
    });
    assert_eq!(s.available_permits(), 2);
}
