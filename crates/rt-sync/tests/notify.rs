//! Notify: the stored permit, FIFO `notify_one`, `notify_waiters` (stores nothing, reaches
//! un-polled futures, wakes more waiters than one wake batch), `enable`, and hand-on of a
//! notification whose future was dropped.

mod lock_util;

use lock_util::{block_on, Task};
use rt_sync::notify::Notify;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Wake, Waker};

#[test]
fn notify_one_without_waiters_stores_one_permit() {
    let notify = Notify::new();
    notify.notify_one();
    notify.notify_one();
    block_on(notify.notified());
    // Only one permit is stored however many calls found no waiter.
    Task::new(notify.notified()).pending();
}

#[test]
fn notify_one_wakes_waiters_in_fifo_order() {
    let notify = Notify::new();
    let mut tasks: Vec<_> = (0..3).map(|_| Task::new(notify.notified())).collect();
    for t in &mut tasks {
        t.pending();
    }
    for turn in 0..3 {
        notify.notify_one();
        for (i, t) in tasks.iter_mut().enumerate().skip(turn) {
            assert_eq!(t.woken(), i == turn);
            assert_eq!(t.poll().is_ready(), i == turn);
        }
    }
    // Every notification went to a waiter: none was stored.
    Task::new(notify.notified()).pending();
}

#[test]
fn notify_waiters_wakes_all_and_stores_nothing() {
    let notify = Notify::new();
    // More waiters than one wake batch (32), so the notifier releases its lock between batches.
    let mut tasks: Vec<_> = (0..100).map(|_| Task::new(notify.notified())).collect();
    for t in &mut tasks {
        t.pending();
    }
    notify.notify_waiters();
    for t in &mut tasks {
        assert!(t.woken());
        t.ready();
    }
    Task::new(notify.notified()).pending();
}

#[test]
fn notify_waiters_reaches_a_future_created_but_not_polled() {
    let notify = Notify::new();
    let notified = notify.notified();
    notify.notify_waiters();
    let late = notify.notified();
    Task::new(notified).ready();
    Task::new(late).pending();
}

#[test]
fn enable_registers_without_polling() {
    let notify = Notify::new();
    let mut notified = pin!(notify.notified());
    assert!(!notified.as_mut().enable());
    notify.notify_one();
    assert!(notified.as_mut().enable());
    block_on(notified);
    // The notification went to the enabled future, not into a stored permit.
    Task::new(notify.notified()).pending();
}

#[test]
fn a_notified_future_dropped_before_polling_passes_the_notification_on() {
    let notify = Notify::new();
    let mut a = Task::new(notify.notified());
    let mut b = Task::new(notify.notified());
    a.pending();
    b.pending();
    notify.notify_one();
    assert!(a.woken() && !b.woken());
    drop(a);
    assert!(b.woken());
    b.ready();
}

#[test]
fn a_passed_on_notification_with_no_one_left_becomes_the_permit() {
    let notify = Notify::new();
    let mut a = Task::new(notify.notified());
    a.pending();
    notify.notify_one();
    drop(a);
    Task::new(notify.notified()).ready();
}

#[test]
fn a_cancelled_waiter_leaves_the_queue() {
    let notify = Notify::new();
    let mut a = Task::new(notify.notified());
    let mut b = Task::new(notify.notified());
    a.pending();
    b.pending();
    drop(a);
    notify.notify_one();
    b.ready();
}

#[test]
fn ping_pong_between_threads() {
    let (ping, pong) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let (ping2, pong2) = (ping.clone(), pong.clone());
    let other = std::thread::spawn(move || {
        for _ in 0..1_000 {
            block_on(ping2.notified());
            pong2.notify_one();
        }
    });
    for _ in 0..1_000 {
        ping.notify_one();
        block_on(pong.notified());
    }
    other.join().unwrap();
}

/// A waker that calls `notify_one` on the `Notify` its future waits on.
struct NotifyOnWake(Arc<Notify>);

impl Wake for NotifyOnWake {
    fn wake(self: Arc<Self>) {
        self.0.notify_one();
    }
}

#[test]
fn notify_one_during_a_notify_waiters_drain_wakes_the_rest_and_stores_a_permit() {
    let notify = Arc::new(Notify::new());
    let mut first = Box::pin(notify.notified());
    let reentrant = Waker::from(Arc::new(NotifyOnWake(notify.clone())));
    assert!(first
        .as_mut()
        .poll(&mut Context::from_waker(&reentrant))
        .is_pending());
    let mut rest: Vec<_> = (0..99).map(|_| Task::new(notify.notified())).collect();
    for t in &mut rest {
        t.pending();
    }
    // The first batch's wakes run with the lock released, while 68 notified-in-effect waiters are
    // still queued: the reentrant `notify_one` wakes them along instead of counting one of them,
    // and, finding no waiter after them, stores its permit.
    notify.notify_waiters();
    assert!(first
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
        .is_ready());
    for t in &mut rest {
        assert!(t.woken());
        t.ready();
    }
    Task::new(notify.notified()).ready();
}
