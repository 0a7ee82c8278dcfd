#![cfg(loom)]
//! loom model of `rt_core::block`'s wake protocol: a waker sets the `woken` flag and unparks
//! the blocked thread only when the flag was clear; the thread clears the flag before each poll
//! and parks while it finds it clear.
//!
//! * `two_wakers_one_unpark`: two threads each complete half of the future's condition and
//!   wake it. The second wake may find the flag still set and skip its unpark; the blocked
//!   thread must still see both halves (it polls after clearing the flag, and the clear is
//!   ordered after the skipped wake's swap). A lost wake-up shows as a deadlock.

use std::future::poll_fn;
use std::task::{Poll, Waker};

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Arc, Mutex};

#[test]
fn two_wakers_one_unpark() {
    loom::model(|| {
        let done = Arc::new(AtomicUsize::new(0));
        let waker: Arc<Mutex<Option<Waker>>> = Arc::new(Mutex::new(None));
        let wakers: Vec<_> = (0..2)
            .map(|_| {
                let (done, waker) = (done.clone(), waker.clone());
                loom::thread::spawn(move || {
                    done.fetch_add(1, Ordering::SeqCst);
                    if let Some(w) = waker.lock().unwrap().as_ref() {
                        w.wake_by_ref();
                    }
                })
            })
            .collect();
        rt_core::block::block_on(poll_fn(|cx| {
            // Register before reading, so a completion after the read finds the waker.
            *waker.lock().unwrap() = Some(cx.waker().clone());
            if done.load(Ordering::SeqCst) == 2 {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }));
        for t in wakers {
            t.join().unwrap();
        }
    });
}
