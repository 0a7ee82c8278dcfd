//! `UnhandledPanic`: what a runtime does when a spawned task panics.
//!
//! With [`UnhandledPanic::ShutdownRuntime`] the scheduler hands the panic payload of the first
//! panicking poll to [`PanicState`] (rt-core calls `Schedule::unhandled_panic` where the
//! harness catches the panic; rt-sched's schedulers forward it to their hook and shut
//! themselves down). Every `block_on` of the runtime watches the state and, once a payload is
//! there, stops polling its future and resumes the panic with that payload. The payload is
//! delivered once; a later `block_on` runs normally on the shut-down runtime.

use std::any::Any;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// What a runtime does when a spawned task panics; set with
/// [`Builder::unhandled_panic`](crate::Builder::unhandled_panic) or
/// `#[rt::main(unhandled_panic = "shutdown_runtime")]`. Tokio's type, at tokio's path too
/// (`rt::runtime::UnhandledPanic`).
///
/// ```
/// use rt::UnhandledPanic;
/// let rt = rt::Builder::new_current_thread()
///     .unhandled_panic(UnhandledPanic::ShutdownRuntime)
///     .build()?;
/// rt.spawn(async { panic!("boom") });
/// let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
///     rt.block_on(std::future::pending::<()>())
/// }))
/// .unwrap_err();
/// assert_eq!(err.downcast_ref::<&str>(), Some(&"boom"));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum UnhandledPanic {
    /// The default: the panic is caught and reported through the task's `JoinHandle` (as a
    /// `JoinError` that `is_panic`); the runtime keeps running.
    #[default]
    Ignore,
    /// The first panic in a spawned task shuts the runtime down (every task is cancelled) and
    /// makes `block_on` panic with the task's payload. The task's `JoinError` then carries a
    /// stand-in message instead of the payload.
    ShutdownRuntime,
}

/// The payload of the first unhandled panic, and the `block_on` calls waiting for it.
#[derive(Default)]
pub(crate) struct PanicState {
    inner: Mutex<StateInner>,
}

#[derive(Default)]
struct StateInner {
    payload: Option<Box<dyn Any + Send>>,
    /// Set once a panic arrived (the payload may already be taken by a `block_on`).
    fired: bool,
    next_key: u64,
    waiters: HashMap<u64, Waker>,
}

impl PanicState {
    /// Records the first payload and wakes every watching `block_on`.
    pub(crate) fn record(&self, payload: Box<dyn Any + Send>) {
        let waiters = {
            let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            if g.fired {
                return;
            }
            g.fired = true;
            g.payload = Some(payload);
            std::mem::take(&mut g.waiters)
        };
        for (_, w) in waiters {
            w.wake();
        }
    }

    /// `future`, unless a task panics first: then `Err` with the payload.
    pub(crate) fn watch<F: Future>(self: &Arc<Self>, future: F) -> Watch<F> {
        Watch {
            state: self.clone(),
            key: None,
            future,
        }
    }
}

/// The future of [`PanicState::watch`].
pub(crate) struct Watch<F> {
    state: Arc<PanicState>,
    key: Option<u64>,
    future: F,
}

/// Why a `Watch` ended early: a task panicked with this payload (or with a stand-in, when
/// another `block_on` watching at the time took the payload). A `Watch` first polled after the
/// payload was delivered just runs its future, on the shut-down runtime.
pub(crate) type Panicked = Box<dyn Any + Send>;

impl<F: Future> Future for Watch<F> {
    type Output = Result<F::Output, Panicked>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: `future` is structurally pinned (never moved out; `Watch` has no `Unpin`
        // impl beyond the auto one, which requires `F: Unpin`); the other fields are not.
        let this = unsafe { self.get_unchecked_mut() };
        {
            let mut g = this.state.inner.lock().unwrap_or_else(|e| e.into_inner());
            if g.fired {
                if let Some(p) = g.payload.take() {
                    return Poll::Ready(Err(p));
                }
                if this.key.is_some() {
                    // Watching when the panic came, but another `block_on` took the payload.
                    return Poll::Ready(Err(Box::new(
                        "the runtime was shut down by an unhandled panic in a task",
                    )));
                }
                // Started after the payload was delivered: the runtime is simply shut down.
                drop(g);
                // SAFETY: see above.
                let fut = unsafe { Pin::new_unchecked(&mut this.future) };
                return fut.poll(cx).map(Ok);
            }
            let key = *this.key.get_or_insert_with(|| {
                g.next_key += 1;
                g.next_key
            });
            g.waiters.insert(key, cx.waker().clone());
        }
        // SAFETY: see above.
        let fut = unsafe { Pin::new_unchecked(&mut this.future) };
        fut.poll(cx).map(Ok)
    }
}

impl<F> Drop for Watch<F> {
    fn drop(&mut self) {
        if let Some(key) = self.key {
            let mut g = self.state.inner.lock().unwrap_or_else(|e| e.into_inner());
            g.waiters.remove(&key);
        }
    }
}

/// Runs `block` (a `block_on` over `Watch`) and turns an unhandled task panic into a panic
/// of the caller with the task's payload.
pub(crate) fn block_on_watched<F: Future>(
    state: &Arc<PanicState>,
    future: F,
    block: impl FnOnce(Watch<F>) -> Result<F::Output, Panicked>,
) -> F::Output {
    match block(state.watch(future)) {
        Ok(v) => v,
        Err(payload) => std::panic::resume_unwind(payload),
    }
}
