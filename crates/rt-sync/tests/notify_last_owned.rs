//! Notify: `notify_last` wakes the newest waiter (LIFO), stores a permit when none waits, and a
//! dropped waiter it picked passes it on to the newest remaining one; `notified_owned` is a
//! `'static` future with `notified`'s semantics (permit, `notify_waiters` before the first poll,
//! `enable`, hand-on when dropped).

mod lock_util;

use lock_util::{block_on, Task};
use rt_sync::notify::{Notify, OwnedNotified};
use std::pin::pin;
use std::sync::Arc;

#[test]
fn notify_last_wakes_waiters_newest_first() {
    let notify = Notify::new();
    let mut tasks: Vec<_> = (0..3).map(|_| Task::new(notify.notified())).collect();
    for t in &mut tasks {
        t.pending();
    }
    for turn in 0..3 {
        notify.notify_last();
        let picked = 2 - turn;
        for (i, t) in tasks.iter_mut().enumerate().take(picked + 1) {
            assert_eq!(t.woken(), i == picked, "turn {turn}, task {i}");
            assert_eq!(t.poll().is_ready(), i == picked);
        }
    }
    // Every notification went to a waiter: none was stored.
    Task::new(notify.notified()).pending();
}

#[test]
fn notify_last_without_waiters_stores_one_permit() {
    let notify = Notify::new();
    notify.notify_last();
    notify.notify_last();
    block_on(notify.notified());
    Task::new(notify.notified()).pending();
}

#[test]
fn notify_last_and_notify_one_take_opposite_ends() {
    let notify = Notify::new();
    let mut a = Task::new(notify.notified());
    let mut b = Task::new(notify.notified());
    let mut c = Task::new(notify.notified());
    a.pending();
    b.pending();
    c.pending();
    notify.notify_one();
    assert!(a.woken() && !b.woken() && !c.woken());
    notify.notify_last();
    assert!(c.woken() && !b.woken());
    a.ready();
    c.ready();
    b.pending();
}

#[test]
fn a_dropped_waiter_picked_by_notify_last_passes_it_to_the_newest() {
    let notify = Notify::new();
    let mut a = Task::new(notify.notified());
    let mut b = Task::new(notify.notified());
    let c = {
        let mut c = Task::new(notify.notified());
        a.pending();
        b.pending();
        c.pending();
        notify.notify_last();
        assert!(c.woken());
        c
    };
    // `c` never saw its notification: dropping it hands it to `b`, the newest left, not `a`.
    drop(c);
    assert!(b.woken() && !a.woken());
    b.ready();
    a.pending();
}

#[test]
fn notify_last_after_a_notify_waiters_reaches_a_new_waiter_not_a_stale_one() {
    let notify = Notify::new();
    let mut old = Task::new(notify.notified());
    old.pending();
    notify.notify_waiters();
    let mut new = Task::new(notify.notified());
    new.pending();
    notify.notify_last();
    assert!(new.woken());
    new.ready();
    old.ready();
    // The notify_last went to `new`, so nothing is stored.
    Task::new(notify.notified()).pending();
}

fn assert_static_send<T: Send + Sync + 'static>(_: &T) {}

#[test]
fn owned_notified_is_static_and_sees_a_stored_permit() {
    let notify = Arc::new(Notify::new());
    let owned: OwnedNotified = notify.clone().notified_owned();
    assert_static_send(&owned);
    notify.notify_one();
    block_on(owned);
    Task::new(notify.clone().notified_owned()).pending();
}

#[test]
fn owned_notified_sees_notify_waiters_before_its_first_poll() {
    let notify = Arc::new(Notify::new());
    let early = notify.clone().notified_owned();
    notify.notify_waiters();
    let late = notify.clone().notified_owned();
    Task::new(early).ready();
    Task::new(late).pending();
}

#[test]
fn owned_notified_enable_registers_without_polling() {
    let notify = Arc::new(Notify::new());
    let mut fut = pin!(notify.clone().notified_owned());
    assert!(!fut.as_mut().enable());
    // Registered: this notify_one goes to it rather than becoming a permit.
    notify.notify_one();
    assert!(fut.as_mut().enable());
    Task::new(notify.notified()).pending();
}

#[test]
fn owned_notified_outlives_the_callers_arc_and_passes_on_when_dropped() {
    let notify = Arc::new(Notify::new());
    let mut a = Task::new(notify.clone().notified_owned());
    let mut b = Task::new(notify.clone().notified_owned());
    a.pending();
    b.pending();
    let handle = Arc::downgrade(&notify);
    let notifier = notify.clone();
    drop(notify);
    // The futures keep the Notify alive.
    assert!(handle.upgrade().is_some());
    notifier.notify_one();
    assert!(a.woken());
    drop(a);
    assert!(b.woken());
    b.ready();
    drop(b);
    drop(notifier);
    assert!(handle.upgrade().is_none());
}

#[test]
fn owned_notified_across_threads() {
    let notify = Arc::new(Notify::new());
    let waiter = notify.clone().notified_owned();
    let t = std::thread::spawn(move || block_on(waiter));
    notify.notify_one();
    t.join().unwrap();
}
