//! Timers: [`sleep`], [`timeout`], [`interval`], with tokio's API, on a hierarchical timing wheel
//! that every reactor turn drives (whichever thread takes it: a worker driving its shard, or the
//! `rt-io` thread); the timerfd that wakes the reactor for them is on shard 0.
//!
//! Code map, in the order a request travels:
//! - `sleep.rs`: [`Sleep`], the future; it registers its timer on first poll and removes it on
//!   drop. `timeout.rs` and `interval.rs` are built on it.
//! - `entry.rs`: one timer's state word and waker, shared by the sleep (worker thread) and the
//!   driver (the thread of a reactor turn); the cancel-versus-fire protocol lives there, and loom
//!   checks it.
//! - `stage.rs`: far-off timers (a second or more ahead) that a worker registers wait in its
//!   shard's stage, off the shared wheel, until half a second before their deadline; most are
//!   dropped before that (hyper's header-read timeout) and never take the wheel's lock.
//! - `wheel.rs`: the timing wheel, 6 levels of 64 slots over a slab; O(1) insert and remove.
//! - `driver.rs`: the wheel under a lock, the clock (4.096 µs ticks), and how the reactor is woken
//!   at the next deadline: a `timerfd` (`timerfd.rs`) armed from whichever thread inserts the
//!   earliest timer, so that timers fire microseconds, not a millisecond, late.
//!
//! - `clock.rs`: the clock every timer reads, std's or paused ([`pause`], [`advance`],
//!   [`resume`], auto-advance); `instant.rs`: [`Instant`], whose `now()` follows it.
//!
//! [`Duration`] is std's, re-exported; [`Instant`] is rt's own (tokio's shape), a
//! `std::time::Instant` underneath ([`Instant::from_std`], [`Instant::into_std`]).
//!
//! Architecture invariants:
//! - A timer never completes before its deadline (`Instant::now() >= deadline` when it does,
//!   on the runtime's clock, paused or not).
//! - A dropped timer never fires: once `Sleep`'s drop returns, its waker is never called.
//! - A sleep whose runtime shut down panics when polled (tokio's behaviour); see `driver.rs`.

mod clock;
pub(crate) mod driver;
// Public under loom only, for `loom-tests/tests/timer.rs` (loom exception 5 in `rt_core::sync`).
#[cfg(loom)]
#[doc(hidden)]
pub mod entry;
#[cfg(not(loom))]
mod entry;
pub mod error;
mod instant;
mod interval;
mod sleep;
mod stage;
mod timeout;
mod timerfd;
mod wheel;

pub use clock::{advance, pause, resume, Advance};
pub use instant::Instant;
pub use interval::{interval, interval_at, Interval, MissedTickBehavior};
pub use sleep::{sleep, sleep_until, Sleep};
pub use std::time::Duration;
pub use timeout::{timeout, timeout_at, Timeout};

/// rt-io's timer as `rt_core::timer`'s hook (installed by every `Driver` start): the sleeps of
/// code below rt-io (rt-sync's `Condvar::wait_timeout`, `mpsc::Sender::send_timeout`).
pub(crate) struct HookTimer;

impl rt_core::timer::Timer for HookTimer {
    #[track_caller]
    fn sleep(&self, duration: Duration) -> rt_core::timer::Sleep {
        Box::pin(sleep(duration))
    }
}
