//! `rt-sched`: who runs what.
//!
//! - [`multi_thread`]: N workers with local queues, a LIFO slot, a global injector and work
//!   stealing, plus the idle/park protocol (`idle.rs`).
//! - [`current_thread`]: the same task type, run on the thread that calls `block_on`.
//! - [`blocking`]: the pool behind `spawn_blocking`.
//! - [`local`]: `LocalSet`, tasks kept on one thread (`!Send` futures allowed).
//! - [`ThreadSpawner`]: how the workers and the blocking pool start their threads (name, stack
//!   size, the facade's context hook, the user's start/stop callbacks).
//!
//! Architecture invariants: rt-sched knows nothing of IO or timers (the facade wires them); it
//! reaches the frame pool and tasks only through rt-core's API; crossbeam-deque is named only
//! in `queue.rs`.
#![warn(missing_docs)]

pub mod blocking;
pub mod current_thread;
#[doc(hidden)]
pub mod idle;
pub mod lifo;
pub mod local;
pub mod metrics;
pub mod multi_thread;
mod park;
mod queue;
mod run_queue;
pub mod stall;
mod thread_spawner;
pub mod trace;
pub mod tuning;

pub use park::ParkHooks;
pub use thread_spawner::{ThreadCallback, ThreadNameFn, ThreadSpawner};

// A std `Arc` for the trait objects handed across this crate's API: loom's `Arc` cannot be
// coerced to `dyn` (`rt_core::sync::StdArc`, exception 7 of the shim's list).
use rt_core::sync::StdArc as Arc;

/// Wraps a scheduler thread's main loop: called once on each new thread with the loop to run.
/// The facade uses it to enter its runtime context (IO driver, spawn handle) around the loop.
pub type ThreadHook = Arc<dyn Fn(&mut dyn FnMut()) + Send + Sync>;

pub use tuning::{DEFAULT_EVENT_INTERVAL, DEFAULT_GLOBAL_QUEUE_INTERVAL, DEFAULT_OS_YIELD_AFTER};

/// An IO and timer driver that an idle scheduler thread may block on instead of its parker, the
/// way tokio's workers poll the reactor (the facade implements it over rt-io; rt-sched does not
/// know what it drives).
///
/// The driver may be split into shards, each polled by one thread at a time. A multi-thread
/// scheduler with one shard per worker gives worker `i` shard `i` as its own: it blocks there
/// when idle, and the IO sources created on it register there, so their events wake their
/// tasks where they ran. Other threads only poll a shard without blocking. With fewer shards
/// than workers (one, shared, is the facade's default), worker `i` blocks in shard
/// `i % shards` when no other thread holds it, and parks on its parker otherwise.
pub trait IoDriver: Send + Sync + 'static {
    /// How many shards there are (at least one).
    fn shards(&self) -> usize {
        1
    }

    /// Called once on worker `shard`'s thread when a scheduler gives it that shard as its own.
    fn bind_thread(&self, shard: usize) {
        let _ = shard;
    }

    /// Called once on worker `index`'s thread when it starts, whatever the shards' layout (and
    /// on a thread that takes over a worker's place): the driver may keep per-worker state
    /// for it (rt-io keeps the worker's far-off timers off its shared wheel).
    fn bind_worker(&self, index: usize) {
        let _ = index;
    }

    /// Blocks this thread in `shard` until an event, [`IoDriver::unpark`] of that shard or
    /// `timeout` (`None`: no limit); the wakes it causes run on this thread. Returns `false` at
    /// once when another thread is driving that shard.
    ///
    /// `unless` is called once this thread holds the shard, before it blocks; if it returns
    /// `true` the turn does not block. An unpark sent after `unless` returned `false` then
    /// ends this turn: no other thread can consume it with a turn of its own in between (a
    /// check made before taking the shard would leave that window open).
    fn try_drive(
        &self,
        shard: usize,
        timeout: Option<std::time::Duration>,
        unless: &dyn Fn() -> bool,
    ) -> bool;

    /// [`IoDriver::try_drive`] for a thread that blocks because it has nothing to do. `idle`
    /// says whether the whole scheduler is idle: every thread parked, nothing queued, no wake-up
    /// on its way. A driver whose clock is paused may then, instead of blocking, move the clock
    /// to its next timer (auto-advance; rules P2 and P4 in rt-io's `time/clock.rs`), and
    /// returns `true` as after
    /// a turn. The default is `try_drive`.
    fn try_drive_idle(
        &self,
        shard: usize,
        timeout: Option<std::time::Duration>,
        unless: &dyn Fn() -> bool,
        idle: &dyn Fn() -> bool,
    ) -> bool {
        let _ = idle;
        self.try_drive(shard, timeout, unless)
    }

    /// Makes the next blocking `try_drive` of `shard` end when `other` has IO events, or at
    /// once if it has some now; one turn only (call it before the turn). A worker arms it for the
    /// shards of busy workers before it blocks in its own, then polls them itself. The default
    /// does nothing (the worker's watch timeout still bounds how long such events wait).
    fn listen_to(&self, shard: usize, other: usize) {
        let _ = (shard, other);
    }

    /// Whether `shard` has events ready now (IO readiness, a due timer), found without taking
    /// a turn or consuming them: the check a worker makes at a background task's slice
    /// boundary, from inside that task's poll, where it must not run wakes. The default says
    /// no (the worker's `event_interval` turns still let the events in).
    fn has_ready(&self, shard: usize) -> bool {
        let _ = shard;
        false
    }

    /// Interrupts the thread inside `try_drive` of `shard`; a wake-up sent while nobody drives
    /// it makes the next `try_drive` of it return at once.
    fn unpark(&self, shard: usize);

    /// Whether the driver still runs (`try_drive` returns `false` for good once it stopped).
    fn is_running(&self) -> bool {
        true
    }

    /// Whether IO sources are registered on `shard` (events may arrive there). A worker
    /// polls its own shard before it looks for work elsewhere only if so.
    fn has_sources(&self, shard: usize) -> bool {
        let _ = shard;
        true
    }

    /// Whether events may arrive on `shard` (sources, or timers on the timers' shard): an idle
    /// worker watches a busy worker's shard, and polls its own in its search, only if so. The
    /// default says yes.
    fn may_have_events(&self, shard: usize) -> bool {
        let _ = shard;
        true
    }

    /// Turns taken on `shard` so far: a counter that only grows. A worker that sees another's
    /// shard stand still while that worker is busy polls the shard for it.
    fn turns(&self, shard: usize) -> u64 {
        let _ = shard;
        0
    }

    /// IO readiness events delivered by turns of `shard` so far (a statistic that only grows,
    /// for the metrics).
    fn events(&self, shard: usize) -> u64 {
        let _ = shard;
        0
    }
}

impl std::fmt::Debug for dyn IoDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IoDriver")
            .field("shards", &self.shards())
            .finish_non_exhaustive()
    }
}

/// Where an unhandled task panic goes when a scheduler is set to shut down on one
/// (`set_unhandled_panic_hook`): called once per panicking poll, on the polling thread, with
/// the panic payload; the scheduler then shuts itself down.
pub type PanicHook = Arc<dyn Fn(Box<dyn std::any::Any + Send>) + Send + Sync>;

/// What a task's `JoinError` carries instead of the payload that went to a [`PanicHook`].
pub const PANIC_TAKEN: &str =
    "task panicked; the payload went to the runtime (UnhandledPanic::ShutdownRuntime)";

/// `Schedule::unhandled_panic` for a scheduler with an optional [`PanicHook`]: with a hook, the
/// payload goes to it, `close` shuts the scheduler down, and the task's `JoinError` gets
/// [`PANIC_TAKEN`]; without one the payload stays the task's.
fn route_unhandled_panic(
    hook: Option<&PanicHook>,
    payload: Box<dyn std::any::Any + Send>,
    close: impl FnOnce(),
) -> Box<dyn std::any::Any + Send> {
    match hook {
        Some(hook) => {
            hook(payload);
            close();
            Box::new(PANIC_TAKEN)
        }
        None => payload,
    }
}

/// A hook that just runs the loop.
pub fn no_hook() -> ThreadHook {
    Arc::new(|run: &mut dyn FnMut()| run())
}
