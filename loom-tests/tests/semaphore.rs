#![cfg(loom)]
//! loom models of the semaphore's protocol (rt-sync's semaphore.rs): release vs acquire vs cancel,
//! with no permit ever lost.
//!
//! * `release_vs_acquire_vs_cancel`: one permit, held by a thread that releases it, while another
//!   thread polls an acquire once and drops it (after it may have been handed the permit). The
//!   permit ends up back in the semaphore. All of: ready at once, handed over then cancelled, and
//!   cancelled while queued occur.
//! * `cancelled_waiter_passes_the_permit_on`: the permit is released while one waiter cancels and
//!   another waits; the other always gets it (a lost permit would deadlock, which loom reports).
//! * `close_returns_a_partial_assignment`: `acquire_many(2)` on a one-permit semaphore races with
//!   `close`; it fails, and its partial permit is back in the semaphore.

use std::future::Future;
use std::pin::pin;

use std::sync::atomic::Ordering::Relaxed as SeenOrder;

use std::sync::Arc as StdArc;

use std::task::{Context, Poll, Waker};

use loom::thread;

use rt_sync::semaphore::Semaphore;

use loom_tests::{block_on, seen, signal};

#[test]
fn release_vs_acquire_vs_cancel() {
    let outcomes = seen::<3>();
    loom::model(move || {
        let sem = StdArc::new(Semaphore::new(1));
        let held = sem.clone().try_acquire_owned().unwrap();
        let releaser = thread::spawn(move || drop(held));
        let s = sem.clone();
        let acquirer = thread::spawn(move || {
            let (signal, waker) = signal();
            let mut acquire = pin!(s.acquire());
            match acquire.as_mut().poll(&mut Context::from_waker(&waker)) {
                Poll::Ready(permit) => {
                    drop(permit.unwrap());
                    0
                }
                // Woken: the permit was handed to us; dropping the future must pass it on.
                Poll::Pending if signal.was_woken() => 1,
                Poll::Pending => 2,
            }
        });
        releaser.join().unwrap();
        let outcome = acquirer.join().unwrap();
        assert_eq!(sem.available_permits(), 1, "a permit was lost");
        outcomes[outcome].store(true, SeenOrder);
    });
    assert!(
        outcomes.iter().all(|o| o.load(SeenOrder)),
        "ready at once, handed over then cancelled, and cancelled while queued all occur"
    );
}

#[test]
fn cancelled_waiter_passes_the_permit_on() {
    loom::model(|| {
        let sem = StdArc::new(Semaphore::new(1));
        let held = sem.clone().try_acquire_owned().unwrap();
        let s = sem.clone();
        let canceller = thread::spawn(move || {
            let mut acquire = pin!(s.acquire());
            let waker = Waker::noop();
            if let Poll::Ready(p) = acquire.as_mut().poll(&mut Context::from_waker(waker)) {
                drop(p.unwrap());
            }
        });
        let s = sem.clone();
        let waiter = thread::spawn(move || drop(block_on(s.acquire()).unwrap()));
        drop(held);
        canceller.join().unwrap();
        waiter.join().unwrap();
        assert_eq!(sem.available_permits(), 1);
    });
}

#[test]
fn close_returns_a_partial_assignment() {
    loom::model(|| {
        let sem = StdArc::new(Semaphore::new(1));
        let s = sem.clone();
        let waiter = thread::spawn(move || block_on(s.acquire_many(2)).map(drop));
        sem.close();
        assert!(waiter.join().unwrap().is_err());
        assert_eq!(sem.available_permits(), 1);
    });
}
