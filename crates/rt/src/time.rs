//! Timers with tokio's API: [`sleep`], [`timeout`], [`interval`], and paused time.
//!
//! Timers sit on a hierarchical timing wheel with 4.096 µs ticks that the reactor's turns drive,
//! woken by a `timerfd` armed ahead by the measured wake-up latency, so a sleep ends
//! microseconds after its deadline (tokio's end about a millisecond late). A timer never
//! completes before its deadline, and a dropped timer never fires.
//!
//! [`Duration`] is std's; [`Instant`] is rt's own (tokio's shape), a `std::time::Instant`
//! underneath ([`Instant::from_std`], [`Instant::into_std`]) whose `now()` follows paused time.
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

pub use rt_io::time::{
    advance, interval, interval_at, pause, resume, sleep, sleep_until, timeout, timeout_at,
    Advance, Duration, Instant, Interval, MissedTickBehavior, Sleep, Timeout,
};

/// Timer errors: [`Elapsed`](error::Elapsed) from [`timeout`], and tokio's
/// [`Error`](error::Error).
pub mod error {
    pub use rt_io::time::error::{Elapsed, Error};
}
