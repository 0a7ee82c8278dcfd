#![cfg(loom)]
//! loom model of rt-io's `held.rs` (rule P3 of `time/clock.rs`): a `block_on` future wrapped in
//! `Held` holds auto-advance from the moment it is woken until the poll that follows, and gives
//! every hold back once it is done, whatever the order of a wake from another thread, the
//! polls and the drop. The hold count is a plain counter here (`Hold`), read by the model.
//!
//! * `woken_and_not_yet_polled_holds`: a thread fires the future's flag (its wake takes a
//!   hold) while the model thread polls; once the firer is done and the last poll was
//!   `Pending`, exactly one hold is out (the clock must not jump before the next poll); the
//!   next poll completes and gives it back.
//! * `a_wake_racing_the_drop_leaves_no_hold`: the future is dropped after one `Pending` poll
//!   while the firer wakes it: no hold is left either way.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc as StdArc;
use std::task::{Context, Poll, Wake, Waker};

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Arc, Mutex};
use rt_io::held::{Held, Hold};

/// Counts holds.
struct Count(Arc<AtomicUsize>);

impl Hold for Count {
    fn inhibit(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
    fn allow(&self) {
        let before = self.0.fetch_sub(1, Ordering::SeqCst);
        assert!(before > 0, "a hold given back twice");
    }
}

/// Ready once fired; fired from another thread.
#[derive(Clone)]
struct Flag(Arc<Mutex<(bool, Option<Waker>)>>);

impl Flag {
    fn new() -> Flag {
        Flag(Arc::new(Mutex::new((false, None))))
    }

    fn fire(&self) {
        let waker = {
            let mut s = self.0.lock().unwrap();
            s.0 = true;
            s.1.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

impl Future for Flag {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = self.0.lock().unwrap();
        if s.0 {
            Poll::Ready(())
        } else {
            s.1 = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// The `block_on` loop's own waker: nothing to wake here (the model polls by hand).
struct Outer;

impl Wake for Outer {
    fn wake(self: StdArc<Self>) {}
}

#[test]
fn woken_and_not_yet_polled_holds() {
    loom::model(|| {
        let holds = Arc::new(AtomicUsize::new(0));
        let flag = Flag::new();
        let firer = {
            let flag = flag.clone();
            loom::thread::spawn(move || flag.fire())
        };
        let mut held = Box::pin(Held::new(Count(holds.clone()), flag));
        let waker = Waker::from(StdArc::new(Outer));
        let mut cx = Context::from_waker(&waker);
        let first = held.as_mut().poll(&mut cx);
        firer.join().unwrap();
        if first.is_pending() {
            // Fired after the poll registered its waker: the wake holds until the next poll.
            assert_eq!(
                holds.load(Ordering::SeqCst),
                1,
                "a woken future holds auto-advance"
            );
            assert!(held.as_mut().poll(&mut cx).is_ready());
        }
        assert_eq!(holds.load(Ordering::SeqCst), 0);
        drop(held);
        assert_eq!(holds.load(Ordering::SeqCst), 0);
    });
}

#[test]
fn a_wake_racing_the_drop_leaves_no_hold() {
    loom::model(|| {
        let holds = Arc::new(AtomicUsize::new(0));
        let flag = Flag::new();
        let mut held = Box::pin(Held::new(Count(holds.clone()), flag.clone()));
        let waker = Waker::from(StdArc::new(Outer));
        let mut cx = Context::from_waker(&waker);
        assert!(held.as_mut().poll(&mut cx).is_pending());
        let firer = loom::thread::spawn(move || flag.fire());
        drop(held);
        firer.join().unwrap();
        assert_eq!(
            holds.load(Ordering::SeqCst),
            0,
            "a hold outlived the future"
        );
    });
}
