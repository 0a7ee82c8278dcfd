//! `rt-sched`: who runs what.
//!
//! - [`multi_thread`]: N workers with local queues, a LIFO slot, a global injector and work
//!   stealing, plus the idle/park protocol (`idle.rs`).
//! - [`current_thread`]: the same task type, run on the thread that calls `block_on`.
//! - [`blocking`]: the pool behind `spawn_blocking`.
//!
//! Architecture invariants: rt-sched knows nothing of IO or timers (the facade wires them); it
//! reaches the frame pool and tasks only through rt-core's API; crossbeam-deque is named only
//! in `queue.rs`.

pub mod blocking;
pub mod current_thread;
mod idle;
pub mod metrics;
pub mod multi_thread;
mod park;
mod queue;

use std::sync::Arc;

/// Wraps a scheduler thread's main loop: called once on each new thread with the loop to run.
/// The facade uses it to enter its runtime context (IO driver, spawn handle) around the loop.
pub type ThreadHook = Arc<dyn Fn(&mut dyn FnMut()) + Send + Sync>;

/// An IO and timer driver that an idle scheduler thread may block on instead of its parker, the
/// way tokio's workers poll the reactor (the facade implements it over rt-io; rt-sched does not
/// know what it drives).
pub trait IoDriver: Send + Sync + 'static {
    /// Blocks this thread in the driver until an event, [`IoDriver::unpark`] or `timeout`
    /// (`None`: no limit); the wakes it causes run on this thread. Returns `false` at once when
    /// another thread is driving.
    fn try_drive(&self, timeout: Option<std::time::Duration>) -> bool;

    /// Interrupts the thread inside `try_drive`; a wake-up sent while nobody drives makes the
    /// next `try_drive` return at once.
    fn unpark(&self);
}

/// A hook that just runs the loop.
pub fn no_hook() -> ThreadHook {
    Arc::new(|run: &mut dyn FnMut()| run())
}
