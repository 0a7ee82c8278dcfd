//! rt-io's heuristic constants, each with its value, its reason and the benchmark (or the
//! reference) that set it. None changes under loom (the timer stage is bypassed there instead,
//! `time/stage.rs`).

use std::time::Duration;

/// A source moves to the shard of the worker its task runs on after this many consecutive
/// waits there: a task stolen once goes back home on its next wake (its events arrive at its
/// shard's owner), one that keeps running elsewhere takes its IO along.
///
/// 16, not fewer: an idle worker serves a busy sibling's shard (`watch_others` in rt-sched),
/// so under steady network load a connection's task often runs a few turns in a row on the
/// sibling without having been stolen for good. At 4 those runs moved sources back and forth
/// (two `epoll_ctl` each): hyper at 50 connections (`benches/http.rs`) made 0.03–0.10
/// `epoll_ctl` per request at 4, 0.004–0.011 at 16 (`docs/BENCHMARKS.md`).
pub const MOVE_AFTER: u32 = 16;

/// Events taken from the OS per `poll` of a reactor shard by default (`ReactorConfig`,
/// `Builder::max_io_events_per_tick`): tokio's value (`EVENTS_CAPACITY` of its driver). More
/// events than this stay in the kernel's ready list for the next turn.
pub(crate) const EVENTS_CAPACITY: usize = 1024;

/// A shard's owner refreshes its CPU (for `SO_INCOMING_CPU`) once per this many turns:
/// `sched_getcpu` is cheap, but threads rarely move. Not measured; `benches/net.rs` would show
/// a stale CPU as cross-CPU wakes.
pub(crate) const CPU_REFRESH_TURNS: u64 = 64;

/// The most the timerfd is set ahead of a deadline, and so the most the timer driver's
/// `process` spins per wake (latency compensation, `time/driver.rs`): enough for the wake-up
/// latency of a loaded machine, little enough that a spin costs no noticeable CPU. Set by
/// `benches/time.rs` (how late sleeps end, `timers_10k` and `timers_10k_remote` in
/// `docs/BENCHMARKS.md`, "MAX_LEAD").
pub(crate) const MAX_LEAD: Duration = Duration::from_micros(150);

/// The soonest a busy thread's turn sets the timerfd to expire after it fired timers (the
/// timer driver's `process`): a timerfd armed in the past expires inside `timerfd_settime` and
/// wakes the threads blocked on shard 0 (a cross-CPU wake-up, tens of µs on a VM) for timers the
/// busy thread fires in its own next turn (every `event_interval` ticks). With dense deadlines
/// (10,000 sleeps of 1 ms spawned in a burst, `timers_10k_remote`) re-arming at once cost
/// about a third of the run's CPU in `timerfd_settime`. A timer due meanwhile fires at most
/// this much late when the busy thread does not turn sooner.
pub(crate) const BUSY_REARM: Duration = Duration::from_micros(50);

/// Due timer entries handed out of the wheel per lock hold in the timer driver's `process`:
/// bounds the lock hold while a burst of timers fires. Not measured; `benches/time.rs` shows a
/// change.
pub(crate) const TIMER_BATCH: usize = 64;

/// How far ahead a deadline must be for its timer to be staged (`time/stage.rs`): hyper's
/// header-read and keep-alive timeouts (seconds) are staged and mostly dropped there, short
/// sleeps go to the wheel at once. The stage was measured with `benches/http.rs` (the timer
/// path per request, `docs/BENCHMARKS.md`); this threshold itself was not varied.
pub(crate) const STAGE_MIN: Duration = Duration::from_secs(1);

/// How long before its deadline a staged timer is moved into the wheel, at the latest: far
/// more than a shard's owner can be away from its shard, so a flush is never late.
pub(crate) const FLUSH_AHEAD: Duration = Duration::from_millis(500);

/// A flush that scans the stage also moves what falls due up to this much later, so that a
/// stage of many timers with spread deadlines is scanned at most about four times a second,
/// not at every turn.
pub(crate) const FLUSH_BATCH: Duration = Duration::from_millis(250);

/// How many freed timer entries a thread keeps for its next registrations: hyper's
/// per-request sleeps reuse them instead of allocating (`benches/http.rs`). More than the
/// timers one task holds at once in the services measured.
pub(crate) const ENTRY_CACHE: usize = 32;

/// How late an `Interval` tick may be before it counts as missed (tokio's tolerance, so its
/// `MissedTickBehavior` tests behave the same).
pub(crate) const MISSED_AFTER: Duration = Duration::from_millis(5);

/// The backlog `TcpListener::bind` listens with: tokio's value (mio 1.2's `bind`, like
/// `std`'s, gives 128, which a burst of connections overflows).
pub(crate) const BACKLOG: u32 = 1024;

/// The most bytes a vectored socket write gathers into one buffer for `send_vectored`
/// (`net/raw_socket.rs`).
///
/// Below this the copy costs less than what `send` saves over `writev`: the kernel's vector
/// path (`vfs_writev`, `import_iovec`, `rw_verify_area`, `sock_write_iter`, `fdget_pos`) costs
/// about 200 ns per call more than `send`'s (paired profiles of `benches/http.rs`,
/// `docs/BENCHMARKS.md`), and copying 4 KiB that the caller has just written, still in cache,
/// costs less.
pub(crate) const SEND_GATHER_MAX: usize = 4096;

/// How many times the timer wheel's lock is tried, with a doubling spin between tries (64
/// `spin_loop`s at most), before the thread blocks on it (`time/driver.rs`, `lock_spinning`):
/// about 450 spins in all, a few µs, less than the two context switches a blocked waiter
/// costs. Set by `timers_10k_remote` (`benches/peers.rs`), where the workers' first polls insert
/// while another worker's turn fires timers. None under loom: the spins only delay the lock.
pub(crate) const LOCK_SPINS: u32 = if cfg!(loom) { 0 } else { 12 };
