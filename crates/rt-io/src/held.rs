//! What holds auto-advance of a paused clock back from outside the scheduler (rule P3 in
//! `time/clock.rs`): a `block_on` thread that is awake. [`Held`] wraps every `block_on` future
//! of the facade: its thread holds auto-advance ([`Handle::inhibit_auto_advance`]) while it
//! polls the future and from the moment the future is woken until that poll, so the clock
//! cannot jump while the thread is about to run. The workers' side is rt-sched's `all_idle`
//! (P2, P5, P6); the decision is [`WorkerDriver::try_drive_idle`](crate::WorkerDriver) (P4).
//! On `rt_core::sync`'s shim: `loom-tests/tests/held.rs` models the waker's word against the
//! hold count (through [`Hold`], which the model implements with a counter).
//!
//! The waker's word:
//! - `IDLE`: not woken since the last poll began; no hold of the waker's.
//! - `WOKEN`: woken; the waker took a hold, which the next poll takes over.
//! - `DONE`: the future finished or was dropped; later wakes take no hold.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Wake, Waker};

// A std `Arc` for the waker: `Waker::from` takes one (`rt_core::sync::StdArc`, exception 7 of
// the shim's list); its reference count is no protocol.
use rt_core::sync::StdArc as Arc;
use rt_core::sync::{AtomicU8, Mutex, Ordering};

use crate::Handle;

/// What a [`Held`] takes and gives back: one hold of auto-advance. The runtime's is the
/// reactor [`Handle`]'s; a loom model counts them.
pub trait Hold: Send + Sync + 'static {
    /// One more hold (`Handle::inhibit_auto_advance`).
    fn inhibit(&self);
    /// One hold fewer (`Handle::allow_auto_advance`).
    fn allow(&self);
}

impl Hold for Handle {
    fn inhibit(&self) {
        self.inhibit_auto_advance();
    }
    fn allow(&self) {
        self.allow_auto_advance();
    }
}

const IDLE: u8 = 0;
const WOKEN: u8 = 1;
const DONE: u8 = 2;

/// A `block_on` future that holds auto-advance while its thread is awake. See the module docs.
pub struct Held<F, H: Hold = Handle> {
    future: F,
    state: Arc<HoldWaker<H>>,
    waker: Option<Waker>,
}

impl<F, H: Hold> std::fmt::Debug for Held<F, H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Held").finish_non_exhaustive()
    }
}

struct HoldWaker<H> {
    word: AtomicU8,
    io: H,
    /// The waker of the `block_on` loop, forwarded to.
    outer: Mutex<Option<Waker>>,
}

impl<H: Hold> Wake for HoldWaker<H> {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // Hold first, so the next poll never takes over a hold that is not there yet.
        self.io.inhibit();
        if self
            .word
            .compare_exchange(IDLE, WOKEN, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            self.io.allow();
        }
        let outer = self.outer.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(w) = outer {
            w.wake();
        }
    }
}

impl<F: Future, H: Hold> Held<F, H> {
    /// Wraps `future`, holding auto-advance through `io` (see the module docs).
    pub fn new(io: H, future: F) -> Held<F, H> {
        Held {
            future,
            state: Arc::new(HoldWaker {
                word: AtomicU8::new(IDLE),
                io,
                outer: Mutex::new(None),
            }),
            waker: None,
        }
    }
}

/// Releases the poll's hold, also when the poll unwinds.
struct PollHold<'a, H: Hold>(&'a H);

impl<H: Hold> Drop for PollHold<'_, H> {
    fn drop(&mut self) {
        self.0.allow();
    }
}

impl<F: Future, H: Hold> Future for Held<F, H> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `future` is pinned structurally: it is never moved out of a pinned `Held`,
        // `Held`'s `Drop` does not move it, and the other fields are never pinned.
        let this = unsafe { self.get_unchecked_mut() };
        let state = &this.state;
        if state.word.swap(IDLE, Ordering::SeqCst) != WOKEN {
            state.io.inhibit();
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

impl<F, H: Hold> Drop for Held<F, H> {
    fn drop(&mut self) {
        if self.state.word.swap(DONE, Ordering::SeqCst) == WOKEN {
            self.state.io.allow();
        }
    }
}
