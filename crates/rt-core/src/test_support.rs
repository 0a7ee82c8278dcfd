//! What the workspace's tests, doctests and loom models share: not API, hidden from the docs.
//!
//! [`block_on`] is the one hand-rolled executor of the tests that cannot use `rt`'s runtime
//! (rt-sync's doctests, the loom models, tests of primitives outside any runtime). It waits on the
//! shim's `Mutex` and `Condvar`, so under `cfg(loom)` the wait is loom-visible and a lost wake-up
//! is a deadlock loom reports, and otherwise it is a plain thread block. It is the one place rt-core blocks a thread, and only tests call it.

use crate::sync::{Condvar, Mutex, StdArc};
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Wake, Waker};

/// A wake-up flag and the condition variable the blocked thread waits on.
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

/// Drives `f` to completion on the calling thread, blocking between polls until its waker is
/// woken (never busy-polling: a future that is not woken blocks forever, and under loom fails
/// the model).
///
/// ```
/// assert_eq!(rt_core::test_support::block_on(async { 1 + 1 }), 2);
/// ```
pub fn block_on<F: Future>(f: F) -> F::Output {
    let signal = StdArc::new(Signal {
        woken: Mutex::new(false),
        cv: Condvar::new(),
    });
    let waker = Waker::from(signal.clone());
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
