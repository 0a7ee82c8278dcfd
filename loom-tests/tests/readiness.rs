#![cfg(loom)]
//! loom models of the readiness protocol of `rt_io::scheduled_io` (rules in its module docs):
//!
//! - readiness delivered while a task registers interest is never lost (rule 2), for both the
//!   single-waker slots and the list waiters;
//! - a task clearing readiness after `WouldBlock` never clears away a newer event (rule 3);
//! - an event for a released slot's old generation never wakes, nor readies, the new owner (rule 4).

use std::sync::atomic::AtomicUsize as StdAtomicUsize;
use std::sync::atomic::Ordering::Relaxed;
use std::task::{Context, Poll, Wake, Waker};

use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::Arc;
use loom::thread;

use rt_io::io::{Interest, Ready};
use rt_io::scheduled_io::{Direction, ScheduledIo};

/// A waker that records whether it was woken. (A std `Arc` for `Wake`; the flag itself is loom's.)
struct Flag(AtomicBool);

impl Flag {
    fn new() -> std::sync::Arc<Flag> {
        std::sync::Arc::new(Flag(AtomicBool::new(false)))
    }
    fn woken(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

impl Wake for Flag {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// The reactor's side of one event: deliver, then wake outside the lock.
fn deliver(io: &ScheduledIo, generation: u32, ready: Ready) -> bool {
    let mut wakers = Vec::new();
    let fresh = io.dispatch(generation, ready, &mut wakers);
    for w in wakers {
        w.wake();
    }
    fresh
}

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(3);
    b.check(f);
}

#[test]
fn readiness_racing_registration_is_not_lost() {
    static READY_FIRST: StdAtomicUsize = StdAtomicUsize::new(0);
    static WOKEN_LATER: StdAtomicUsize = StdAtomicUsize::new(0);
    model(|| {
        let io = Arc::new(ScheduledIo::new());
        let reactor = {
            let io = io.clone();
            thread::spawn(move || assert!(deliver(&io, 0, Ready::READABLE)))
        };
        let flag = Flag::new();
        let waker = Waker::from(flag.clone());
        let r = io.poll_ready(&mut Context::from_waker(&waker), Direction::Read);
        reactor.join().unwrap();
        match r {
            Poll::Ready(ev) => {
                assert!(ev.ready.is_readable());
                READY_FIRST.fetch_add(1, Relaxed);
            }
            Poll::Pending => {
                assert!(flag.woken(), "lost wakeup: pending and never woken");
                WOKEN_LATER.fetch_add(1, Relaxed);
            }
        }
    });
    assert!(READY_FIRST.load(Relaxed) > 0 && WOKEN_LATER.load(Relaxed) > 0);
}

#[test]
fn readiness_racing_a_list_waiter_is_not_lost() {
    static READY_FIRST: StdAtomicUsize = StdAtomicUsize::new(0);
    static WOKEN_LATER: StdAtomicUsize = StdAtomicUsize::new(0);
    model(|| {
        let io = Arc::new(ScheduledIo::new());
        let reactor = {
            let io = io.clone();
            thread::spawn(move || assert!(deliver(&io, 0, Ready::WRITABLE)))
        };
        let flag = Flag::new();
        let waker = Waker::from(flag.clone());
        let mut key = None;
        let r = io.poll_waiter(
            &mut Context::from_waker(&waker),
            Interest::WRITABLE,
            &mut key,
        );
        reactor.join().unwrap();
        match r {
            Poll::Ready(ev) => {
                assert!(ev.ready.is_writable());
                READY_FIRST.fetch_add(1, Relaxed);
            }
            Poll::Pending => {
                assert!(flag.woken(), "lost wakeup: pending and never woken");
                // The wake took the entry: polling again completes.
                let again = io.poll_waiter(
                    &mut Context::from_waker(&waker),
                    Interest::WRITABLE,
                    &mut key,
                );
                assert!(again.is_ready());
                WOKEN_LATER.fetch_add(1, Relaxed);
            }
        }
    });
    assert!(READY_FIRST.load(Relaxed) > 0 && WOKEN_LATER.load(Relaxed) > 0);
}

#[test]
fn clearing_after_would_block_keeps_a_newer_event() {
    static SAW_READY: StdAtomicUsize = StdAtomicUsize::new(0);
    static SAW_WAKE: StdAtomicUsize = StdAtomicUsize::new(0);
    model(|| {
        let io = Arc::new(ScheduledIo::new());
        assert!(deliver(&io, 0, Ready::READABLE));
        let reactor = {
            let io = io.clone();
            // New data arrives while the task is finding out that the old data is gone.
            thread::spawn(move || assert!(deliver(&io, 0, Ready::READABLE)))
        };
        let flag = Flag::new();
        let waker = Waker::from(flag.clone());
        let mut cx = Context::from_waker(&waker);
        let Poll::Ready(ev) = io.poll_ready(&mut cx, Direction::Read) else {
            panic!("readiness was delivered before the task ran");
        };
        // The task's read returned WouldBlock:
        io.clear_readiness(ev);
        let r = io.poll_ready(&mut cx, Direction::Read);
        reactor.join().unwrap();
        match r {
            Poll::Ready(_) => SAW_READY.fetch_add(1, Relaxed),
            Poll::Pending => {
                assert!(flag.woken(), "the newer event was cleared away");
                SAW_WAKE.fetch_add(1, Relaxed)
            }
        };
    });
    assert!(SAW_READY.load(Relaxed) > 0 && SAW_WAKE.load(Relaxed) > 0);
}

#[test]
fn stale_generation_never_wakes_the_new_owner() {
    static OLD_WOKEN: StdAtomicUsize = StdAtomicUsize::new(0);
    static OLD_NOT_WOKEN: StdAtomicUsize = StdAtomicUsize::new(0);
    model(|| {
        let io = Arc::new(ScheduledIo::new());
        let old = Flag::new();
        let old_waker = Waker::from(old.clone());
        assert!(io
            .poll_ready(&mut Context::from_waker(&old_waker), Direction::Read)
            .is_pending());

        // The reactor still holds an event for the old owner's token (generation 0).
        let reactor = {
            let io = io.clone();
            thread::spawn(move || {
                deliver(&io, 0, Ready::READABLE);
            })
        };
        // The old owner drops its socket; a new one takes the slot and waits.
        let mut dropped = Vec::new();
        let generation = io.reset(&mut dropped);
        drop(dropped);
        assert_eq!(generation, 1);
        let new = Flag::new();
        let new_waker = Waker::from(new.clone());
        let r = io.poll_ready(&mut Context::from_waker(&new_waker), Direction::Read);
        reactor.join().unwrap();

        assert!(
            r.is_pending(),
            "the new owner saw the old owner's readiness"
        );
        assert!(!new.woken(), "a stale event woke the new owner");
        assert!(io.ready_now(Interest::READABLE).is_none());
        if old.woken() {
            OLD_WOKEN.fetch_add(1, Relaxed);
        } else {
            OLD_NOT_WOKEN.fetch_add(1, Relaxed);
        }
    });
    // Both orders happen: the event reached the old owner before the release, or was dropped.
    assert!(OLD_WOKEN.load(Relaxed) > 0 && OLD_NOT_WOKEN.load(Relaxed) > 0);
}

#[test]
fn shutdown_wakes_every_waiter() {
    model(|| {
        let io = Arc::new(ScheduledIo::new());
        let stopper = {
            let io = io.clone();
            thread::spawn(move || {
                let mut wakers = Vec::new();
                io.shutdown(&mut wakers);
                for w in wakers {
                    w.wake();
                }
            })
        };
        let reader = Flag::new();
        let rw = Waker::from(reader.clone());
        let lister = Flag::new();
        let lw = Waker::from(lister.clone());
        let r1 = io.poll_ready(&mut Context::from_waker(&rw), Direction::Read);
        let mut key = None;
        let r2 = io.poll_waiter(&mut Context::from_waker(&lw), Interest::READABLE, &mut key);
        stopper.join().unwrap();
        match r1 {
            Poll::Ready(ev) => assert!(ev.shutdown),
            Poll::Pending => assert!(reader.woken()),
        }
        match r2 {
            Poll::Ready(ev) => assert!(ev.shutdown),
            Poll::Pending => assert!(lister.woken()),
        }
    });
}

/// Rule 6: readiness assumed by the owner of a new source, racing the reactor's first event
/// and the shutdown, loses neither the event's bits nor the shutdown, and never adds a bit
/// after the shutdown.
#[test]
fn assumed_readiness_racing_an_event_loses_nothing() {
    model(|| {
        let io = Arc::new(ScheduledIo::new());
        let reactor = {
            let io = io.clone();
            thread::spawn(move || assert!(deliver(&io, 0, Ready::WRITABLE)))
        };
        io.assume_ready(Ready::READABLE);
        reactor.join().unwrap();
        let ev = io
            .ready_now(Interest::READABLE | Interest::WRITABLE)
            .expect("ready");
        assert_eq!(ev.ready, Ready::READABLE | Ready::WRITABLE);
        assert!(!ev.shutdown);
    });
    model(|| {
        let io = Arc::new(ScheduledIo::new());
        let stopper = {
            let io = io.clone();
            thread::spawn(move || {
                let mut wakers = Vec::new();
                io.shutdown(&mut wakers);
            })
        };
        io.assume_ready(Ready::READABLE);
        stopper.join().unwrap();
        let ev = io.ready_now(Interest::WRITABLE).expect("shut down");
        assert!(ev.shutdown, "the shutdown bit survives");
    });
}
