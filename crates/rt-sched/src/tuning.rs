//! The schedulers' heuristic constants, each with its value, its reason and the benchmark (or
//! the reference) that set it: the defaults a user may change (each the default of a `Config`
//! field and of an `rt::Builder` method), then the fixed ones the scheduler uses internally.
//!
//! Values that loom models need smaller (`if cfg!(loom)`, or `loom_duration`) are written
//! here too; each is in `rt_core::sync`'s list of exceptions.

use std::time::Duration;

/// Default of the background time slice (`multi_thread::Config::background_slice`,
/// `rt::Builder::background_time_slice`): once a background task's poll has run this long while
/// latency-sensitive work waits (queued, or ready IO), its next budget check ends the poll.
///
/// What it trades: a background poll runs at least this long before it gives way (every yield
/// costs a reschedule and the cache the batch work had warmed), and a latency-sensitive request
/// that arrives while a worker's background poll is younger than this waits for the rest of
/// the slice (plus the background work between two budget checks). Past the slice, the wait is
/// only the work between two budget checks, or `BACKGROUND_IO_CHECK_INTERVAL` for IO. The
/// request latency of `benches/priority.rs` at several slices is in `docs/BENCHMARKS.md`:
/// 100 µs halved the median added latency of 200 and 500 µs with no loss of background
/// throughput measurable on the 2-core machine (background polls there were ended by requests
/// a few thousand times a second, each yield about a microsecond).
pub const DEFAULT_BACKGROUND_SLICE: Duration = Duration::from_micros(100);

/// Default of `multi_thread::Config::background_interval` (`rt::Builder::background_interval`):
/// every this many ticks, a worker with background work queued runs one background task before
/// its latency-sensitive work, so background work keeps a share of a worker that
/// latency-sensitive tasks keep busy. The same interval as the injector's fairness check
/// (`DEFAULT_GLOBAL_QUEUE_INTERVAL`): that background poll lasts at most one slice while latency
/// work waits, so with the default slice background work keeps roughly a quarter to a half of
/// such a worker (61 latency polls of a few microseconds each against one slice).
pub const DEFAULT_BACKGROUND_INTERVAL: u32 = 61;

/// Past its slice, a background poll asks its worker's reactor shard whether events are ready
/// (one `poll(2)`, about a microsecond) at most this often, and yields the worker's CPU to the
/// OS just before (`sched_yield`, when `os_yield_after` is on); its queues are looked at every
/// budget check (a few loads). Bounds those system calls to 2-4% of a worker running background
/// work with fine-grained budget checks (1% with the 100 µs units of `benches/priority.rs`),
/// and the extra wait of a ready socket, or of a thread sharing the CPU, to this (plus the work
/// between two budget checks).
pub const BACKGROUND_IO_CHECK_INTERVAL: Duration = Duration::from_micros(50);

/// Self-tuning of the global queue interval (`multi_thread::Config::global_queue_interval`
/// `None`, the default), as tokio's multi-thread scheduler tunes it: a worker checks the
/// injector first about once per `GLOBAL_QUEUE_TARGET` of task polling, by an average of its
/// poll time (an exponentially weighted moving average with weight `POLL_TIME_EWMA_ALPHA` per
/// poll), between `GLOBAL_QUEUE_INTERVAL_MIN` and `GLOBAL_QUEUE_INTERVAL_MAX` ticks. tokio's
/// values (`TARGET_GLOBAL_QUEUE_INTERVAL`, `TASK_POLL_TIME_EWMA_ALPHA`, `MIN`/`MAX_QUEUE_INTERVAL`);
/// tokio's `rt_threaded::test_tuning` (through the face) needs the tuning: with tasks of tens of
/// microseconds a remote spawn waits at most a handful of them.
pub const GLOBAL_QUEUE_TARGET: Duration = Duration::from_micros(200);
/// See [`GLOBAL_QUEUE_TARGET`].
pub const POLL_TIME_EWMA_ALPHA: f64 = 0.1;
/// See [`GLOBAL_QUEUE_TARGET`].
pub const GLOBAL_QUEUE_INTERVAL_MIN: u32 = 2;
/// See [`GLOBAL_QUEUE_TARGET`].
pub const GLOBAL_QUEUE_INTERVAL_MAX: u32 = 127;

/// Default of `multi_thread::Config::global_queue_interval`: every this many ticks a worker
/// takes from the injector before its own queue, so remote spawns are not starved. tokio's
/// value (`DEFAULT_GLOBAL_QUEUE_INTERVAL`); `benches/spawn.rs` (remote spawns) shows a change.
pub const DEFAULT_GLOBAL_QUEUE_INTERVAL: u32 = 61;

/// Default of the schedulers' `event_interval`: every this many ticks a busy worker (or the
/// current-thread driver) turns the IO driver without blocking, so IO and timers get in.
/// tokio's value (`DEFAULT_EVENT_INTERVAL`); `benches/net.rs` and `benches/http.rs` show a change.
pub const DEFAULT_EVENT_INTERVAL: u32 = 61;

/// Default of `multi_thread::Config::os_yield_after`: a worker that has run tasks this long
/// without a break (a park, or a previous yield) gives its CPU to the OS scheduler once, at its
/// next `event_interval` tick (see "Yielding the CPU" in `multi_thread`'s docs). Set by
/// `benches/http.rs` (requests/s and p99 at 2, 3 and 4 ms, `docs/BENCHMARKS.md`).
pub const DEFAULT_OS_YIELD_AFTER: Duration = Duration::from_millis(2);

/// The default `stall_threshold`: a poll running this long is reported as a stall (and, with
/// take-over on, its worker's queue is served by a substitute): far past any healthy poll
/// (microseconds), short enough to catch a blocking call. No benchmark depends on it (the
/// monitor only samples).
pub const DEFAULT_STALL_THRESHOLD: Duration = Duration::from_millis(100);

/// How long an idle thread of the blocking pool, or of a multi-thread scheduler's lend pool
/// (the threads that take over a worker's queue during `block_in_place`), waits for work before
/// it exits: tokio's default (`thread_keep_alive`). The one value of `rt::Builder`'s default
/// and of the lend pool's.
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(10);

/// Consecutive LIFO-slot polls a worker allows before its local queue gets a turn, so two tasks
/// that keep waking each other through the slot cannot starve the queue. tokio's value
/// (`MAX_LIFO_POLLS_PER_TICK`); `benches/spawn.rs` (ping-pong) shows a change.
pub(crate) const MAX_LIFO_POLLS: u32 = 3;

/// A worker parked this long without work gives its idle frame-pool memory back (`Duration::MAX`
/// under loom). Long enough that a worker between two bursts of a busy service keeps its
/// slabs, short enough that `crates/rt/tests/pool_rss.rs` sees RSS settle within its bound.
pub(crate) const TRIM_AFTER: Duration = loom_duration(Duration::from_millis(100));

/// While another worker is busy, an idle worker wakes this often to check that the busy one's
/// IO shard is being polled, and polls it itself if not (a task that hogs its worker must not
/// hold up the IO of every connection on that worker). `Duration::MAX` under loom. Bounds the
/// extra latency of such a connection; `benches/http.rs` p99 with and without watching is in
/// `docs/BENCHMARKS.md`.
pub(crate) const WATCH_INTERVAL: Duration = loom_duration(Duration::from_millis(1));

/// Attempts a parking worker makes to take its own IO shard while another worker polls it
/// briefly (`watch_others`, which lets go at once), yielding between two: enough for a
/// non-blocking turn to end. Not measured: with fewer the worker falls back to its parker and
/// the shard's events wait for the next watcher.
pub(crate) const OWN_SHARD_TRIES: u32 = 16;

/// How long a substitute (stall take-over) waits in the stalled worker's shard, or on its
/// condvar, before it looks at the LIFO slot and the queue again: tasks the stalled poll spawns
/// wake nobody. Bounds their extra wait against the substitute's idle wake-ups (1000/s while a
/// stall lasts); `crates/rt/tests/stall.rs` covers the take-over, no benchmark sets it.
pub(crate) const SUBSTITUTE_WAIT: Duration = Duration::from_millis(1);

/// Tasks a `LocalSet` runs per poll of its driving future before it yields (waking itself if
/// work is left), so other tasks on the same thread get in. tokio's `MAX_TASKS_PER_TICK` (61).
/// Not the cooperative budget (`rt_core::coop::BUDGET`, polls a task may make before it yields).
pub(crate) const LOCAL_TASKS_PER_TICK: usize = 61;

/// A timeout, or under loom `Duration::MAX` (a size, listed in `rt_core::sync`'s exceptions):
/// loom has no clock (its timed waits never time out), so a branch on elapsed wall-clock time
/// would make a model's executions differ on replay. With `MAX` the same code runs and never
/// takes the timed-out branch; a timed park becomes a park.
pub(crate) const fn loom_duration(d: Duration) -> Duration {
    if cfg!(loom) {
        Duration::MAX
    } else {
        d
    }
}
