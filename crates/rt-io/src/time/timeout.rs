//! [`Timeout`], [`timeout`] and [`timeout_at`]: a future with a deadline.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use super::error::Elapsed;
use super::sleep::{sleep, sleep_until, Sleep};
use super::Instant;

/// Runs `future` for at most `duration`: resolves to `Ok(output)` if it completes first, to
/// `Err(Elapsed)` otherwise (and the future is dropped with the `Timeout`).
///
/// The future is polled before the deadline is checked, so a future that is ready at once
/// completes even with a zero duration. `Duration::MAX` never elapses in practice.
///
/// # Panics
///
/// Outside an rt runtime.
///
/// ```no_run
/// # async fn f() {
/// use std::time::Duration;
/// let r = rt_io::time::timeout(Duration::from_millis(5), std::future::pending::<()>()).await;
/// assert!(r.is_err());
/// # }
/// ```
#[track_caller]
pub fn timeout<F: IntoFuture>(duration: Duration, future: F) -> Timeout<F::IntoFuture> {
    Timeout {
        value: future.into_future(),
        delay: sleep(duration),
    }
}

/// Runs `future` until `deadline`; see [`timeout`].
///
/// # Panics
///
/// Outside an rt runtime.
#[track_caller]
pub fn timeout_at<F: IntoFuture>(deadline: Instant, future: F) -> Timeout<F::IntoFuture> {
    Timeout {
        value: future.into_future(),
        delay: sleep_until(deadline),
    }
}

/// Future returned by [`timeout`] and [`timeout_at`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Timeout<F> {
    /// Structurally pinned: see `poll`.
    value: F,
    delay: Sleep,
}

impl<F> Timeout<F> {
    /// The inner future.
    pub fn get_ref(&self) -> &F {
        &self.value
    }

    /// The inner future, mutably.
    pub fn get_mut(&mut self) -> &mut F {
        &mut self.value
    }

    /// Consumes the timeout, returning the inner future.
    pub fn into_inner(self) -> F {
        self.value
    }
}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: `value` is pinned structurally: it is never moved out of a pinned `Timeout`
        // (`into_inner` and `get_mut` take an unpinned `self`), `Timeout` has no `Drop` impl, and
        // it is never `Unpin` (its `Sleep` is not). `delay` relies on no pinning
        // (`Sleep::poll_unpinned`), so handing it out unpinned is fine.
        let (value, delay) = unsafe {
            let this = self.get_unchecked_mut();
            (Pin::new_unchecked(&mut this.value), &mut this.delay)
        };
        let had_budget = rt_core::coop::has_budget_remaining();
        if let Poll::Ready(out) = value.poll(cx) {
            return Poll::Ready(Ok(out));
        }
        // If the inner future spent the whole budget, still check the deadline (as tokio does):
        // otherwise a busy future would never time out.
        let mut poll_delay = || delay.poll_unpinned(cx);
        let delay_poll = if had_budget && !rt_core::coop::has_budget_remaining() {
            rt_core::coop::unconstrained(poll_delay)
        } else {
            poll_delay()
        };
        match delay_poll {
            Poll::Ready(()) => Poll::Ready(Err(Elapsed::new())),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<F: fmt::Debug> fmt::Debug for Timeout<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timeout")
            .field("value", &self.value)
            .field("delay", &self.delay)
            .finish()
    }
}
