//! [`Interval`], [`interval`], [`interval_at`] and [`MissedTickBehavior`]: ticks at a fixed period,
//! with tokio's semantics.

use std::fmt;
use std::future::poll_fn;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use super::driver::TimeHandle;
use super::sleep::{far_future, safe_delay, Sleep};
use super::Instant;

use crate::tuning::MISSED_AFTER;

/// An interval whose first tick completes at once, and then every `period`.
///
/// A `period` beyond about 30 years (`Duration::MAX`, say) is taken as 30 years, as tokio
/// does: the ticks after the first never come, and [`Interval::period`] returns the 30 years.
///
/// # Panics
///
/// If `period` is zero, or outside an rt runtime.
#[track_caller]
pub fn interval(period: Duration) -> Interval {
    let handle = TimeHandle::current();
    let now = Instant::from_std(handle.now());
    interval_in(handle, now, period)
}

/// An interval whose first tick completes at `start`, and then every `period` (at most about
/// 30 years, as for [`interval`]).
///
/// # Panics
///
/// If `period` is zero, or outside an rt runtime.
#[track_caller]
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    interval_in(TimeHandle::current(), start, period)
}

#[track_caller]
fn interval_in(handle: TimeHandle, start: Instant, period: Duration) -> Interval {
    assert!(period > Duration::ZERO, "`period` must be non-zero.");
    Interval {
        delay: Sleep::new_in(handle, start),
        period: safe_delay(period),
        missed_tick_behavior: MissedTickBehavior::default(),
    }
}

/// What an [`Interval`] does when ticks were missed: when [`Interval::tick`] is called more than
/// 5 ms after a tick's scheduled instant (the task was busy, or blocked).
///
/// In the diagrams the period is 100 ms, the task is stalled from before tick 200 until 350, and
/// each `|` is the scheduled instant a tick returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissedTickBehavior {
    /// Catch up: the missed ticks complete at once, one after the other, until the schedule is
    /// met again; the schedule keeps its phase. (The default.)
    ///
    /// ```text
    /// scheduled: 100 200 300 400 500
    /// returned:  100 200 300 400 500   (200 and 300 complete at 350, back to back)
    /// ```
    #[default]
    Burst,
    /// Restart the schedule from the late tick: the next tick is `period` after the moment the
    /// late one was taken.
    ///
    /// ```text
    /// returned:  100 200 450 550 650   (200 completes at 350; the next is due at 450)
    /// ```
    Delay,
    /// Drop the missed ticks: the next tick is the next instant of the original schedule.
    ///
    /// ```text
    /// returned:  100 200 400 500 600   (200 completes at 350; 300 is skipped)
    /// ```
    Skip,
}

impl MissedTickBehavior {
    /// The next deadline after a tick scheduled at `timeout` was taken, late, at `now`.
    fn next_timeout(self, timeout: Instant, now: Instant, period: Duration) -> Instant {
        match self {
            MissedTickBehavior::Burst => timeout + period,
            MissedTickBehavior::Delay => now + period,
            MissedTickBehavior::Skip => {
                let late = (now - timeout).as_nanos() % period.as_nanos();
                let late = u64::try_from(late).expect("below `period`, a Duration");
                now + period - Duration::from_nanos(late)
            }
        }
    }
}

/// Ticks at a fixed period; see [`interval`] and [`MissedTickBehavior`].
pub struct Interval {
    /// Completes at the next tick's scheduled instant.
    delay: Sleep,
    period: Duration,
    missed_tick_behavior: MissedTickBehavior,
}

// `Unpin` although its `Sleep` is not, as tokio's `Interval` (which boxes its sleep): the sleep
// is polled and reset only through `Sleep::poll_unpinned`/`reset_unpinned`, which rely on no
// pinning, so moving an `Interval` between polls is fine.
impl Unpin for Interval {}

impl Interval {
    /// Completes at the next tick, returning the instant the tick was scheduled for.
    ///
    /// Cancel safe: dropping the future before it completes loses no tick.
    ///
    /// # Cancel safety
    /// Cancel safe: a tick is consumed only when the future returns it.
    pub async fn tick(&mut self) -> Instant {
        poll_fn(|cx| self.poll_tick(cx)).await
    }

    /// Polls for the next tick; the `Poll` form of [`tick`](Interval::tick). When it returns
    /// `Pending`, the waker of `cx` is woken at the tick.
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        ready!(self.delay.poll_unpinned(cx));
        let timeout = self.delay.deadline();
        let now = self.now();
        let next = if now.saturating_duration_since(timeout) > MISSED_AFTER {
            self.missed_tick_behavior
                .next_timeout(timeout, now, self.period)
        } else {
            timeout
                .checked_add(self.period)
                .unwrap_or_else(|| far_future(self.delay.time_handle()))
        };
        self.delay.reset_lazy(next);
        Poll::Ready(timeout)
    }

    /// Restarts the schedule: the next tick is one period from now.
    pub fn reset(&mut self) {
        self.reset_at(self.now() + self.period);
    }

    /// Restarts the schedule: the next tick completes at once.
    pub fn reset_immediately(&mut self) {
        self.reset_at(self.now());
    }

    /// Restarts the schedule: the next tick is `after` from now, then every period. An `after`
    /// beyond about 30 years (`Duration::MAX`) is taken as 30 years: that tick never comes.
    pub fn reset_after(&mut self, after: Duration) {
        self.reset_at(self.now() + safe_delay(after));
    }

    /// Now, on the clock of this interval's runtime.
    fn now(&self) -> Instant {
        Instant::from_std(self.delay.time_handle().now())
    }

    /// Restarts the schedule: the next tick is at `deadline`, then every period.
    pub fn reset_at(&mut self, deadline: Instant) {
        self.delay.reset_unpinned(deadline);
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// What happens when ticks are missed.
    pub fn missed_tick_behavior(&self) -> MissedTickBehavior {
        self.missed_tick_behavior
    }

    /// Sets what happens when ticks are missed.
    pub fn set_missed_tick_behavior(&mut self, behavior: MissedTickBehavior) {
        self.missed_tick_behavior = behavior;
    }
}

impl fmt::Debug for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interval")
            .field("next", &self.delay.deadline())
            .field("period", &self.period)
            .field("missed_tick_behavior", &self.missed_tick_behavior)
            .finish()
    }
}
