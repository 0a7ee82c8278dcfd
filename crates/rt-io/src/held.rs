//! What holds auto-advance of a paused clock back from outside the scheduler (rule P3 in rt-io's
//! `time/clock.rs`): a `block_on` thread that is awake. [`Held`] wraps every `block_on` future:
//! its thread holds auto-advance (rt-io's `Handle::inhibit_auto_advance`) while it polls the
//! future and from the moment the future is woken until that poll, so the clock cannot jump
//! while the thread is about to run. The workers' side is rt-sched's `all_idle` (P2, P5, P6);
//! the decision is rt-io's `WorkerDriver::try_drive_idle` (P4).
//!
//! The waker's word:
//! - `IDLE`: not woken since the last poll began; no hold of the waker's.
//! - `WOKEN`: woken; the waker took a hold, which the next poll takes over.
//! - `DONE`: the future finished or was dropped; later wakes take no hold.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

const IDLE: u8 = 0;
const WOKEN: u8 = 1;
const DONE: u8 = 2;

/// A `block_on` future that holds auto-advance while its thread is awake. See the module docs.
pub(crate) struct Held<F> {
    future: F,
    state: Arc<HoldWaker>,
    waker: Option<Waker>,
}

struct HoldWaker {
    word: AtomicU8,
    io: rt_io::Handle,
    /// The waker of the `block_on` loop, forwarded to.
    outer: Mutex<Option<Waker>>,
}

impl Wake for HoldWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // Hold first, so the next poll never takes over a hold that is not there yet.
        self.io.inhibit_auto_advance();
        if self
            .word
            .compare_exchange(IDLE, WOKEN, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            self.io.allow_auto_advance();
        }
        let outer = self.outer.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(w) = outer {
            w.wake();
        }
    }
}

impl<F: Future> Held<F> {
    pub(crate) fn new(io: &rt_io::Handle, future: F) -> Held<F> {
        Held {
            future,
            state: Arc::new(HoldWaker {
                word: AtomicU8::new(IDLE),
                io: io.clone(),
                outer: Mutex::new(None),
            }),
            waker: None,
        }
    }
}

/// Releases the poll's hold, also when the poll unwinds.
struct PollHold<'a>(&'a rt_io::Handle);

impl Drop for PollHold<'_> {
    fn drop(&mut self) {
        self.0.allow_auto_advance();
    }
}

impl<F: Future> Future for Held<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `future` is pinned structurally: it is never moved out of a pinned `Held`,
        // `Held`'s `Drop` does not move it, and the other fields are never pinned.
        let this = unsafe { self.get_unchecked_mut() };
        let state = &this.state;
        if state.word.swap(IDLE, Ordering::SeqCst) != WOKEN {
            state.io.inhibit_auto_advance();
        }
        let _hold = PollHold(&state.io);
        {
            let mut outer = state.outer.lock().unwrap_or_else(|e| e.into_inner());
            if !outer.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                *outer = Some(cx.waker().clone());
            }
        }
        let waker = this
            .waker
            .get_or_insert_with(|| Waker::from(this.state.clone()));
        // SAFETY: see above; `future` stays where it is.
        let future = unsafe { Pin::new_unchecked(&mut this.future) };
        future.poll(&mut Context::from_waker(waker))
    }
}

impl<F> Drop for Held<F> {
    fn drop(&mut self) {
        if self.state.word.swap(DONE, Ordering::SeqCst) == WOKEN {
            self.state.io.allow_auto_advance();
        }
    }
}
