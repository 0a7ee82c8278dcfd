//! The timer hook: how code below the IO driver (rt-sync's `Condvar::wait_timeout`,
//! `mpsc::Sender::send_timeout`) sleeps without depending on it.
//!
//! rt-io implements [`Timer`] over its timer wheel and [`install`]s it when it starts a driver;
//! [`sleep`] then returns that timer's sleep, on the clock of the runtime the caller is in (a
//! paused clock included). The hook is process-wide and set once: every rt runtime's timer is
//! reached the same way (rt-io's `sleep` finds the current runtime), so the first install
//! serves all of them.

use std::future::Future;
use std::pin::{pin, Pin};
use std::task::Poll;
use std::time::Duration;

/// A sleep handed out by the installed [`Timer`]. `Sync` too, so a future holding one (rt-sync's
/// `send_timeout`) is `Sync` when its other state is, as tokio's are.
pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send + Sync + 'static>>;

/// A timer that code below the IO driver can sleep on.
pub trait Timer: Send + Sync + 'static {
    /// A future that completes once `duration` has passed on the current runtime's clock.
    ///
    /// # Panics
    ///
    /// Outside a runtime that has this timer.
    fn sleep(&self, duration: Duration) -> Sleep;
}

/// The installed timer. A std `OnceLock` under loom too: it is written once, before any task
/// could read it, by whoever starts a driver, and no model installs one.
static TIMER: std::sync::OnceLock<&'static dyn Timer> = std::sync::OnceLock::new();

/// Makes `timer` the one [`sleep`] uses. The first call wins; later ones (each started driver
/// calls it) change nothing.
pub fn install(timer: &'static dyn Timer) {
    let _ = TIMER.set(timer);
}

/// A future that completes once `duration` has passed, on the installed [`Timer`].
///
/// # Panics
///
/// When no timer is installed (no rt runtime has been started in this process), or, from the
/// timer itself, outside an rt runtime.
#[track_caller]
pub fn sleep(duration: Duration) -> Sleep {
    match TIMER.get() {
        Some(timer) => timer.sleep(duration),
        None => {
            if cfg!(feature = "tokio-face") {
                panic!("{}", crate::messages::NO_RUNTIME)
            }
            panic!(
                "there is no timer: this must be called from the context of an rt runtime \
                 (none has been started in this process)"
            )
        }
    }
}

/// Runs `future` for at most `duration` on the installed [`Timer`]: `Some` of its output, or
/// `None` once the time ran out first. Polls `future` first, so an output that is ready with
/// the deadline is returned; and, as rt-io's `timeout`, checks the deadline even when `future`
/// spent the task's whole cooperative budget, so a busy future still times out.
///
/// # Panics
///
/// As [`sleep`], at its first poll.
pub async fn timeout<F: Future>(duration: Duration, future: F) -> Option<F::Output> {
    let mut future = pin!(future);
    let mut delay = sleep(duration);
    std::future::poll_fn(|cx| {
        let had_budget = crate::coop::has_budget_remaining();
        if let Poll::Ready(out) = future.as_mut().poll(cx) {
            return Poll::Ready(Some(out));
        }
        let mut poll_delay = || delay.as_mut().poll(cx);
        let delay_poll = if had_budget && !crate::coop::has_budget_remaining() {
            crate::coop::unconstrained(poll_delay)
        } else {
            poll_delay()
        };
        delay_poll.map(|()| None)
    })
    .await
}
