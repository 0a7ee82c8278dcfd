//! Blocking a thread on a future, parking it between polls: the one implementation behind
//! rt-sync's `blocking_*` methods, the coroutines' synchronous `resume` (the facade's
//! `coro/block.rs`) and the schedulers' `block_on` on a thread that drives no scheduler
//! (rt-sched's `current_thread::park_block_on`).
//!
//! The waker sets a `woken` flag and unparks the thread; the loop polls only after a wake
//! (a spurious unpark, from anyone, only costs a look at the flag). Each thread keeps one
//! parker and waker for this (made at its first block, so later blocks allocate nothing); a
//! block inside a poll of another one on the same thread takes a fresh pair, so that it never
//! consumes the outer one's wakes.

use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Wake, Waker};

use crossbeam_utils::sync::{Parker, Unparker};

use crate::sync::{AtomicBool, Ordering, StdArc};

/// Wakes the thread parked in [`poll_until_ready`].
struct ThreadWaker {
    woken: AtomicBool,
    unparker: Unparker,
}

impl Wake for ThreadWaker {
    fn wake(self: StdArc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &StdArc<Self>) {
        // A swap, not a store: the loop clears the flag with a swap, and loom (0.7.3) lets an
        // RMW read a store superseded by a plain store that happens-before it, which shows up
        // as a false lost wake-up in the models. As an RMW the wake is ordered after the clear.
        // Already woken: the thread polls before it parks again, so it needs no unpark (a
        // futex wake when it is parked).
        if !self.woken.swap(true, Ordering::SeqCst) {
            self.unparker.unpark();
        }
    }
}

/// A thread's parker and the waker that unparks it.
struct Blocker {
    parker: Parker,
    state: StdArc<ThreadWaker>,
    waker: Waker,
}

impl Blocker {
    fn new() -> Blocker {
        let parker = Parker::new();
        let state = StdArc::new(ThreadWaker {
            woken: AtomicBool::new(false),
            unparker: parker.unparker().clone(),
        });
        let waker = Waker::from(state.clone());
        Blocker {
            parker,
            state,
            waker,
        }
    }

    fn run<T>(&self, poll: &mut dyn FnMut(&mut Context<'_>) -> Poll<T>) -> T {
        let mut cx = Context::from_waker(&self.waker);
        // The first poll comes at once; a wake left over from this blocker's previous use
        // only costs one more poll.
        loop {
            if let Poll::Ready(out) = poll(&mut cx) {
                return out;
            }
            while !self.state.woken.swap(false, Ordering::AcqRel) {
                self.parker.park();
            }
        }
    }
}

crate::sync::thread_local! {
    /// This thread's blocker, and whether a block on this thread is using it now.
    static BLOCKER: (Blocker, Cell<bool>) = (Blocker::new(), Cell::new(false));
}

/// Calls `poll` with a waker that unparks this thread until it returns `Ready`, parking the
/// thread between a `Pending` and the next wake.
pub fn poll_until_ready<T>(mut poll: impl FnMut(&mut Context<'_>) -> Poll<T>) -> T {
    let mut poll = Some(&mut poll as &mut dyn FnMut(&mut Context<'_>) -> Poll<T>);
    let cached = BLOCKER.try_with(|(blocker, in_use)| {
        if in_use.replace(true) {
            return None;
        }
        /// Frees the thread's blocker, also when `poll` unwinds.
        struct Release<'a>(&'a Cell<bool>);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                self.0.set(false);
            }
        }
        let _release = Release(in_use);
        Some(blocker.run(poll.take().expect("taken once")))
    });
    match cached {
        Ok(Some(out)) => out,
        // Nested in another block on this thread, or its locals are being destroyed: a
        // blocker of its own.
        _ => Blocker::new().run(
            poll.take()
                .expect("not taken: the cached blocker was not used"),
        ),
    }
}

/// Runs `future` to completion on this thread, parking it between polls.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    poll_until_ready(|cx| future.as_mut().poll(cx))
}
