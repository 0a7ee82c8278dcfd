//! Calling other code's wakers from a driver (the reactor's dispatch, the timer wheel's
//! fires): a `Waker::wake` that panics costs at most the task that owns the waker.
//!
//! A waker is user code as far as a driver is concerned (a hand-written `RawWakerVTable`, an
//! executor of another runtime, a waker that was told to panic). Unwinding out of a driver
//! turn would leave the driver's state half-updated (a timer entry's `WAKING` bit set, a
//! reactor shard marked dead) and kill the service for every task. So the drivers call wakers
//! through [`wake_all`] and [`wake`]: a panic is caught, reported through `tracing` (the panic
//! hook has printed it already), its payload dropped (a payload whose own drop panics is
//! contained too), and the driver goes on with the next waker. The task that owned the
//! panicking waker is not woken by that call; nothing else is lost.
//!
//! The fast path costs nothing beyond the call: one `catch_unwind` frame spans a whole batch
//! and is re-entered only after a panic.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::task::Waker;

/// Wakes `waker`, containing a panic (module docs). Returns whether it panicked.
pub fn wake(waker: Waker) -> bool {
    contain(|| waker.wake())
}

/// Wakes every waker of `wakers` in order, containing each panic (module docs): a panicking
/// wake is reported and the rest are still woken. Returns how many panicked.
pub fn wake_all(wakers: impl IntoIterator<Item = Waker>) -> usize {
    let mut wakers = wakers.into_iter();
    let mut panics = 0;
    // One unwind frame for the batch; after a panic the loop resumes with the next waker.
    while contain(|| wakers.by_ref().for_each(Waker::wake)) {
        panics += 1;
    }
    panics
}

/// Runs `f`, containing a panic from it; returns whether it panicked.
pub fn contain(f: impl FnOnce()) -> bool {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(()) => false,
        Err(payload) => {
            tracing::error!(
                "a Waker::wake called by an rt driver panicked; the panic is contained \
                 (the waker's task was not woken) and the driver goes on"
            );
            // The payload's own destructor may panic: contain that too.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            true
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

    struct Counting(AtomicUsize, bool);

    impl Wake for Counting {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
            if self.1 {
                panic!("this waker panics");
            }
        }
    }

    #[test]
    fn every_waker_is_woken_past_a_panicking_one() {
        let ok = Arc::new(Counting(AtomicUsize::new(0), false));
        let bad = Arc::new(Counting(AtomicUsize::new(0), true));
        let wakers = vec![
            Waker::from(ok.clone()),
            Waker::from(bad.clone()),
            Waker::from(ok.clone()),
            Waker::from(bad.clone()),
            Waker::from(ok.clone()),
        ];
        assert_eq!(wake_all(wakers), 2);
        assert_eq!(ok.0.load(Ordering::SeqCst), 3);
        assert_eq!(bad.0.load(Ordering::SeqCst), 2);
        assert!(wake(Waker::from(bad.clone())));
        assert!(!wake(Waker::from(ok.clone())));
    }
}
