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
use std::sync::atomic::{AtomicBool as SeenFlag, Ordering::Relaxed as SeenOrder};
use std::sync::Arc as StdArc;
use std::task::{Context, Poll, Wake, Waker};

use loom::sync::{Condvar, Mutex};
use loom::thread;
use rt_sync::semaphore::Semaphore;

/// A waker over loom-visible state: a wake sets a flag under a loom mutex and signals a condvar.
struct Signal {
    woken: Mutex<bool>,
    cv: Condvar,
}

impl Wake for Signal {
    fn wake(self: StdArc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &StdArc<Self>) {
        *self.woken.lock().unwrap() = true;
        self.cv.notify_one();
    }
}

fn signal() -> (StdArc<Signal>, Waker) {
    let s = StdArc::new(Signal {
        woken: Mutex::new(false),
        cv: Condvar::new(),
    });
    (s.clone(), Waker::from(s))
}

/// Drives `f` to completion on this loom thread, blocking until woken (a lost wake-up deadlocks).
fn block_on<F: Future>(f: F) -> F::Output {
    let (signal, waker) = signal();
    let mut cx = Context::from_waker(&waker);
    let mut f = pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        let mut woken = signal.woken.lock().unwrap();
        while !*woken {
            woken = signal.cv.wait(woken).unwrap();
        }
        *woken = false;
    }
}

fn seen<const N: usize>() -> &'static [SeenFlag; N] {
    Box::leak(Box::new(std::array::from_fn(|_| SeenFlag::new(false))))
}

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
                Poll::Pending if *signal.woken.lock().unwrap() => 1,
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
