//! loom models live in `tests/`; this crate only gathers them, and holds what every model
//! shares (below). Run: `RUSTFLAGS="--cfg loom --cfg crossbeam_loom" cargo test -p loom-tests
//! --release`.
//!
//! The shared helpers: [`block_on`] (the one way a model drives a future on a loom thread),
//! [`signal`] (its waker, for a model that polls by hand), [`poll_once`] with a waker nobody
//! waits for, and [`seen`] (outcome flags that survive
//! across executions). The task models' own support (`tests/task_support/`) builds on them.

#[cfg(loom)]
mod support {
    use std::future::Future;
    use std::pin::{pin, Pin};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc as StdArc;
    use std::task::{Context, Poll, Wake, Waker};

    use loom::sync::{Condvar, Mutex};

    /// A waker over loom-visible state: a wake sets a flag under a loom mutex and signals a
    /// condvar, so loom sees the hand-off and reports a lost wake-up as a deadlock.
    ///
    /// Not `thread::park`/`unpark`: under loom an `unpark` also wakes a thread blocked in
    /// `join` or on a lock (and trips loom's own assertions), and loom 0.7.3 lets an RMW read
    /// a store superseded by one that happens-before it, so a `store(true)` / `swap(false)`
    /// flag shows a false lost wake-up.
    pub struct Signal {
        woken: Mutex<bool>,
        cv: Condvar,
    }

    impl std::fmt::Debug for Signal {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Signal").finish_non_exhaustive()
        }
    }

    impl Signal {
        /// Whether a wake arrived (and was not yet consumed by [`block_on`]).
        pub fn was_woken(&self) -> bool {
            *self.woken.lock().unwrap()
        }
    }

    /// A [`Signal`] and a waker that sets it, for a model that polls by hand.
    pub fn signal() -> (StdArc<Signal>, Waker) {
        let s = StdArc::new(Signal {
            woken: Mutex::new(false),
            cv: Condvar::new(),
        });
        (s.clone(), Waker::from(s))
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

    /// Drives `f` to completion on this loom thread, blocking between polls until woken (a
    /// lost wake-up deadlocks, which loom reports). Returns the output and the number of polls.
    pub fn block_on_counting<F: Future>(f: F) -> (F::Output, usize) {
        let (signal, waker) = signal();
        let mut cx = Context::from_waker(&waker);
        let mut f = pin!(f);
        let mut polls = 0;
        loop {
            polls += 1;
            if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return (v, polls);
            }
            let mut woken = signal.woken.lock().unwrap();
            while !*woken {
                woken = signal.cv.wait(woken).unwrap();
            }
            *woken = false;
        }
    }

    /// [`block_on_counting`] without the count.
    pub fn block_on<F: Future>(f: F) -> F::Output {
        block_on_counting(f).0
    }

    struct Noop;

    impl Wake for Noop {
        fn wake(self: StdArc<Self>) {}
    }

    /// Polls `fut` once with a waker whose wake-up nobody waits for.
    pub fn poll_once<F: Future + ?Sized>(fut: Pin<&mut F>) -> Poll<F::Output> {
        let waker = Waker::from(StdArc::new(Noop));
        fut.poll(&mut Context::from_waker(&waker))
    }

    /// `N` outcome flags that survive across executions (std atomics, invisible to loom).
    pub fn seen<const N: usize>() -> &'static [AtomicBool; N] {
        Box::leak(Box::new(std::array::from_fn(|_| AtomicBool::new(false))))
    }
}

#[cfg(loom)]
pub use support::*;
