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
//!
//! # Paused time
//!
//! Tests of timeouts, retries and intervals run on a paused clock: `Builder::start_paused(true)`,
//! `#[rt::test(start_paused = true)]` or `rt::time::pause()`. Time then moves only by
//! `rt::time::advance(d).await` (which fires every timer it passes, in deadline order) and by
//! auto-advance: when nothing in the runtime can make progress, the clock jumps to the next timer.
//! `rt::time::Instant::now()` reads the paused clock (`rt::time::Instant` is rt's own type, with
//! tokio's `from_std`/`into_std`).
//!
//! ```rust
//! use std::time::Duration;
//! use rt::time::{advance, sleep, timeout, Instant};
//!
//! let rt = rt::Builder::new_multi_thread().worker_threads(2).start_paused(true).build()?;
//! rt.block_on(async {
//!     let start = Instant::now();
//!     // A one-hour timeout: every worker is idle, so the clock jumps; no real hour passes.
//!     let r = timeout(Duration::from_secs(3600), std::future::pending::<()>()).await;
//!     assert!(r.is_err());
//!     assert!(start.elapsed() >= Duration::from_secs(3600));
//!
//!     let t = rt::spawn(sleep(Duration::from_secs(10)));
//!     advance(Duration::from_secs(10)).await; // fires the sleep
//!     t.await.unwrap();
//! });
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! Unlike tokio, paused time works on both flavours. Auto-advance waits until every worker is
//! parked with nothing queued and no wake-up on its way (a task that keeps yielding holds the
//! clock still), no `spawn_blocking` closure runs, and no `block_on` thread is awake. Pending IO
//! follows tokio's rule: before the clock jumps, every reactor shard is polled without waiting, so
//! IO that is ready runs first; IO that is not ready yet does not hold the clock back. Paused time
//! needs the default reactor that the workers drive (`reactor_thread(true)` runtimes panic on
//! `pause`). Timers keep 4.096 µs ticks: a timer less than a tick after the instant `advance`
//! stops at fires too, and its sleep moves the clock on to its deadline (never early).

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
