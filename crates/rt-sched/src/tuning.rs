//! Heuristic constants of the schedulers that a user may tune, with their reasons. Each one is
//! the default of a `Config` field (and of an `rt::Builder` method).

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
