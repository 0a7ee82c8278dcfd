//! Heuristic constants of the schedulers that a user may tune, with their reasons. Each one is
//! the default of a `Config` field (and of an `rt::Builder` method).

use std::time::Duration;

/// Default of the background time slice (`multi_thread::Config::background_slice`,
/// `rt::Builder::background_time_slice`): once a background task's poll has run this long while
/// latency-sensitive work waits (queued, or ready IO), its next budget check ends the poll.
///
/// What it trades: a latency-sensitive request that arrives while every worker runs background
/// work waits up to one slice (plus the background work between two of its budget checks);
/// each slice boundary costs a look at the queues and one `poll(2)` of the worker's reactor
/// shard (about a microsecond), and each yield a reschedule. 200 µs keeps that overhead under
/// 1% of a worker while bounding the extra wait well below a millisecond; the request p99 of
/// `benches/priority.rs` at 100, 200 and 500 µs is in `docs/BENCHMARKS.md`.
pub const DEFAULT_BACKGROUND_SLICE: Duration = Duration::from_micros(200);

/// Default of `multi_thread::Config::background_interval` (`rt::Builder::background_interval`):
/// every this many ticks, a worker with background work queued runs one background task before
/// its latency-sensitive work, so background work keeps a share of a worker that
/// latency-sensitive tasks keep busy. The same interval as the injector's fairness check
/// (`DEFAULT_GLOBAL_QUEUE_INTERVAL`): that background poll lasts at most one slice while latency
/// work waits, so with the default slice background work keeps roughly a quarter to a half of
/// such a worker (61 latency polls of a few microseconds each against one slice).
pub const DEFAULT_BACKGROUND_INTERVAL: u32 = 61;
