//! [`Instant`]: rt's own instant, tokio's shape, whose [`Instant::now`] follows the runtime's
//! clock — std's clock, or the paused one of [`pause`](super::pause) and
//! [`advance`](super::advance).

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};
use std::time::Duration;

/// A measurement of a monotonic clock, for rt's timers: [`sleep_until`](super::sleep_until),
/// [`timeout_at`](super::timeout_at), [`interval_at`](super::interval_at) and
/// [`Sleep::deadline`](super::Sleep::deadline) take and return it.
///
/// It is a `std::time::Instant` underneath ([`from_std`](Instant::from_std),
/// [`into_std`](Instant::into_std)); the difference is [`Instant::now`]: inside a runtime whose
/// clock is paused ([`pause`](super::pause), `Builder::start_paused`) it reads the paused clock,
/// which moves only by [`advance`](super::advance) and auto-advance. Outside a runtime, or when
/// no clock in the process was ever paused, it is `std::time::Instant::now()` (one relaxed load
/// more).
///
/// Same shape as tokio's `tokio::time::Instant`: `duration_since` and `-` saturate at zero.
///
/// ```
/// use std::time::Duration;
/// let t = rt::time::Instant::now();
/// let later = t + Duration::from_secs(1);
/// assert_eq!(later - t, Duration::from_secs(1));
/// assert_eq!(t - later, Duration::ZERO);
/// assert_eq!(rt::time::Instant::from_std(t.into_std()), t);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    std: std::time::Instant,
}

impl Instant {
    /// Now, on the current runtime's clock (see the type's docs).
    pub fn now() -> Instant {
        Instant::from_std(super::clock::now())
    }

    /// The same instant as `std`'s.
    pub fn from_std(std: std::time::Instant) -> Instant {
        Instant { std }
    }

    /// The same instant as a `std::time::Instant`.
    pub fn into_std(self) -> std::time::Instant {
        self.std
    }

    /// Time from `earlier` to `self`; zero if `earlier` is later.
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Time from `earlier` to `self`, or `None` if `earlier` is later.
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.std.checked_duration_since(earlier.std)
    }

    /// Time from `earlier` to `self`; zero if `earlier` is later.
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Time since `self`, on the current runtime's clock ([`Instant::now`]).
    pub fn elapsed(&self) -> Duration {
        Instant::now().saturating_duration_since(*self)
    }

    /// `self + duration`, or `None` on overflow.
    pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_add(duration).map(Instant::from_std)
    }

    /// `self - duration`, or `None` on underflow.
    pub fn checked_sub(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_sub(duration).map(Instant::from_std)
    }
}

impl From<std::time::Instant> for Instant {
    fn from(std: std::time::Instant) -> Instant {
        Instant::from_std(std)
    }
}

impl From<Instant> for std::time::Instant {
    fn from(i: Instant) -> std::time::Instant {
        i.into_std()
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;

    /// # Panics
    /// On overflow (as std's); see [`Instant::checked_add`].
    fn add(self, rhs: Duration) -> Instant {
        Instant::from_std(self.std + rhs)
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, rhs: Duration) {
        *self = *self + rhs;
    }
}

impl Sub<Duration> for Instant {
    type Output = Instant;

    /// # Panics
    /// On underflow (as std's); see [`Instant::checked_sub`].
    fn sub(self, rhs: Duration) -> Instant {
        Instant::from_std(self.std - rhs)
    }
}

impl SubAssign<Duration> for Instant {
    fn sub_assign(&mut self, rhs: Duration) {
        *self = *self - rhs;
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;

    /// Saturates at zero, as tokio's (see [`Instant::duration_since`]).
    fn sub(self, rhs: Instant) -> Duration {
        self.duration_since(rhs)
    }
}

impl fmt::Debug for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.std.fmt(f)
    }
}
