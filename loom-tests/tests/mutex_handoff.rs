#![cfg(loom)]
//! loom models of the eventually fair mutex's hand-off state (rt-sync's mutex.rs, rules 1–6).
//!
//! The wall clock is not modelled, so each model fixes the fairness bound at one of its two
//! extremes; both run the code that ships (`waited_out` answers from the bound alone):
//!
//! * `barging_unlock_loses_no_wake_up` (no bound: every contended unlock frees the lock and wakes
//!   the head): two tasks queue behind a held lock while it is released; a barger's `try_lock`
//!   races the woken head. Every task finishes (a lost wake-up deadlocks, which loom reports), all
//!   increments land and the lock ends free.
//! * `hand_off_after_the_bound_never_frees_the_lock` (zero bound: every contended unlock hands
//!   off): a waiter queued behind a held lock; one thread unlocks while another tries to barge.
//!   The barger never gets the lock, because the hand-off passes it without a free instant.
//! * `a_woken_head_cancelled_passes_the_wake_up_on` (no bound): the head is woken by an unlock and
//!   dropped before it relocks, racing the unlock; the waiter behind it still gets the lock.
//!
//! Not proved here: the age comparison itself (a plain `Instant` comparison, covered by
//! `crates/rt-sync/tests/mutex_fairness.rs`).

use std::future::Future;
use std::pin::pin;
use std::sync::Arc as StdArc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use loom::sync::{Condvar, Mutex};
use loom::thread;
use rt_sync::mutex::Mutex as AsyncMutex;

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

/// Drives a pinned future to completion on this loom thread, blocking until woken.
fn drive<F: Future>(mut f: std::pin::Pin<&mut F>, signal: &Signal, waker: &Waker) -> F::Output {
    let mut cx = Context::from_waker(waker);
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

fn block_on<F: Future>(f: F) -> F::Output {
    let (signal, waker) = signal();
    drive(pin!(f), &signal, &waker)
}

#[test]
fn barging_unlock_loses_no_wake_up() {
    loom::model(|| {
        let m = StdArc::new(AsyncMutex::with_fairness_bound(0usize, None));
        let guard = m.clone().try_lock_owned().unwrap();
        let m1 = m.clone();
        let waiter = thread::spawn(move || block_on(async { *m1.lock().await += 1 }));
        let m2 = m.clone();
        let barger = thread::spawn(move || {
            drop(guard);
            if let Ok(mut g) = m2.try_lock() {
                *g += 10;
            }
        });
        block_on(async { *m.lock().await += 100 });
        waiter.join().unwrap();
        barger.join().unwrap();
        let g = m.try_lock().expect("the lock ends free");
        assert!(*g == 101 || *g == 111);
    });
}

#[test]
fn hand_off_after_the_bound_never_frees_the_lock() {
    loom::model(|| {
        let m = StdArc::new(AsyncMutex::with_fairness_bound(
            0usize,
            Some(Duration::ZERO),
        ));
        let guard = m.clone().try_lock_owned().unwrap();
        let (signal, waker) = signal();
        let mut lock = pin!(m.lock());
        // Queue behind the held lock.
        assert!(lock
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending());
        let unlocker = thread::spawn(move || drop(guard));
        let m2 = m.clone();
        let barger =
            thread::spawn(move || assert!(m2.try_lock().is_err(), "barged past a hand-off"));
        let mut g = drive(lock, &signal, &waker);
        *g += 1;
        unlocker.join().unwrap();
        barger.join().unwrap();
        drop(g);
        assert_eq!(*m.try_lock().expect("the lock ends free"), 1);
    });
}

#[test]
fn a_woken_head_cancelled_passes_the_wake_up_on() {
    loom::model(|| {
        let m = StdArc::new(AsyncMutex::with_fairness_bound(0usize, None));
        let guard = m.clone().try_lock_owned().unwrap();
        let (_signal, waker) = signal();
        let mut head = Box::pin(m.lock());
        assert!(head
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending());
        let m1 = m.clone();
        let next = thread::spawn(move || block_on(async { *m1.lock().await += 1 }));
        let unlocker = thread::spawn(move || drop(guard));
        drop(head);
        next.join().unwrap();
        unlocker.join().unwrap();
        assert_eq!(*m.try_lock().expect("the lock ends free"), 1);
    });
}
