#![cfg(loom)]
//! loom models of `Notify`'s generation counter (rt-sync's notify.rs): a `Notified` records
//! `generation` when it is created, and `notify_waiters` bumps it under the lock, so a call made
//! after the `Notified` was created reaches it even before it is polled, while it links its
//! node, or once it waits.
//!
//! * `notify_waiters_vs_first_poll`: a `Notified` is created, then polled to completion while
//!   another thread calls `notify_waiters`. It always completes (a lost wake-up would deadlock,
//!   which loom reports). Both "ready at the first poll" (the generation moved before it
//!   registered) and "woken while queued" (its node was drained) occur.
//! * `notify_waiters_vs_creation`: a `Notified` is created and polled once while another thread
//!   calls `notify_waiters`; a later `notify_one` finishes it either way. Both "created before
//!   the call, so ready" and "created after it, so still pending" occur, and the node is never
//!   left linked (the `Notify` ends with no waiter: a fresh `notify_one` stores a permit).

use std::pin::pin;
use std::sync::atomic::Ordering::Relaxed as SeenOrder;
use std::sync::Arc as StdArc;

use loom::thread;
use loom_tests::{block_on_counting, poll_once, seen};
use rt_sync::notify::Notify;

#[test]
fn notify_waiters_vs_first_poll() {
    let outcomes = seen::<2>();
    loom::model(move || {
        let notify = StdArc::new(Notify::new());
        // Created before the notifier exists: `notify_waiters` must reach it.
        let notified = notify.notified();
        let n = notify.clone();
        let notifier = thread::spawn(move || n.notify_waiters());
        let ((), polls) = block_on_counting(notified);
        notifier.join().unwrap();
        // 1 poll: the generation had moved when it registered; 2: it was queued, then woken.
        assert!(polls <= 2, "{polls} polls");
        outcomes[polls - 1].store(true, SeenOrder);
    });
    assert!(outcomes.iter().all(|o| o.load(SeenOrder)), "{outcomes:?}");
}

#[test]
fn notify_waiters_vs_creation() {
    let outcomes = seen::<2>();
    loom::model(move || {
        let notify = StdArc::new(Notify::new());
        let n = notify.clone();
        let notifier = thread::spawn(move || n.notify_waiters());
        let mut notified = pin!(notify.notified());
        let first = poll_once(notified.as_mut());
        notifier.join().unwrap();
        outcomes[usize::from(first.is_pending())].store(true, SeenOrder);
        if first.is_pending() {
            // Created after the call: it waits for the next notification.
            notify.notify_one();
            assert!(poll_once(notified.as_mut()).is_ready());
        }
        // No node of it is left behind: the next `notify_one` finds no waiter and is stored.
        notify.notify_one();
        assert!(poll_once(pin!(notify.notified())).is_ready());
    });
    assert!(outcomes.iter().all(|o| o.load(SeenOrder)), "{outcomes:?}");
}
