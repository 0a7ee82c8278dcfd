//! Runtime metrics: per-worker counters that are always on, and two opt-in per-worker histograms.
//!
//! These are statistics, not part of any protocol, so they are `rt_core::sync::unmodelled`
//! atomics (std's even under loom, the shim's exception 2: loom need not explore them, and a
//! model never asserts on them). Counters written only by their own worker use a relaxed load +
//! store instead of a read-modify-write: a plain `add` to a cache line the worker owns. Each
//! counter only grows, so every field of a later [`Metrics`] snapshot is at least the same
//! field of an earlier one (depths and thread counts are gauges, not counters).
//!
//! Every hot-path write sits behind `rt_core::OBSERVE`, so the `rt_unobserved` build of the
//! cost benchmark folds it away.
//!
//! What costs what:
//! - a poll: none here: the worker's poll stamp (`crate::stall::PollStamp`), written at each
//!   poll for stall detection anyway, counts the polls, and the snapshot reads `polls` from
//!   it (the scheduler fills it in); a LIFO-slot pop, a steal, a spawn from a worker, a
//!   take from the injector: one load + store each;
//! - busy time: one clock read when a worker parks and one when it wakes (never per poll);
//! - the histograms ([`Counters::new`] with `histograms`, off by default): two clock reads per
//!   poll, and at each schedule (spawn or wake) one store into a side table of wake stamps
//!   indexed by a hash of the task id (not in the task cell, which stays as small as without
//!   it; see `Histograms`), plus a clock read for a wake from outside a poll (a wake inside
//!   one takes the poll's start as its time; see `Counters::scheduled`).

use std::ops::{Deref, Range};
use std::time::{Duration, Instant};

use rt_core::sync::unmodelled::{AtomicU64, Ordering::Relaxed};

use crossbeam_utils::CachePadded;

/// Buckets in each histogram.
pub const HISTOGRAM_BUCKETS: usize = 24;
/// The upper end of bucket 0, in nanoseconds (1.024 µs = 2^10 ns); bucket `b` for `b` in
/// `1..23` holds `[2^(9+b), 2^(10+b))` ns, and the last bucket everything from 2^32 ns
/// (about 4.29 s) up.
pub const HISTOGRAM_FIRST_BUCKET_NS: u64 = 1 << 10;

/// The bucket a duration of `ns` nanoseconds falls in.
#[inline]
fn bucket_of(ns: u64) -> usize {
    let units = ns >> 10; // 1.024 µs units
    let b = (u64::BITS - units.leading_zeros()) as usize;
    b.min(HISTOGRAM_BUCKETS - 1)
}

/// The range of durations bucket `b` counts (the last one ends at `Duration::MAX`).
///
/// # Panics
/// When `b >= HISTOGRAM_BUCKETS`.
pub fn histogram_bucket_range(b: usize) -> Range<Duration> {
    assert!(b < HISTOGRAM_BUCKETS, "histogram bucket {b} out of range");
    let start = if b == 0 {
        0
    } else {
        HISTOGRAM_FIRST_BUCKET_NS << (b - 1)
    };
    let end = if b == HISTOGRAM_BUCKETS - 1 {
        Duration::MAX
    } else {
        Duration::from_nanos(HISTOGRAM_FIRST_BUCKET_NS << b)
    };
    Duration::from_nanos(start)..end
}

#[inline]
fn bump(c: &AtomicU64) {
    add(c, 1);
}

#[inline]
fn add(c: &AtomicU64, n: u64) {
    c.store(c.load(Relaxed).wrapping_add(n), Relaxed);
}

/// One worker's counters.
#[derive(Debug, Default)]
pub(crate) struct WorkerCounters {
    local_schedules: AtomicU64,
    remote_schedules: AtomicU64,
    steals: AtomicU64,
    steal_operations: AtomicU64,
    parks: AtomicU64,
    /// Written by whichever thread unparks this worker: a real RMW.
    unparks: AtomicU64,
    /// Parks plus wake-ups from them (tokio's `worker_park_unpark_count`): odd while parked.
    park_unparks: AtomicU64,
    lifo_hits: AtomicU64,
    spawns: AtomicU64,
    os_yields: AtomicU64,
    /// Nanoseconds busy, summed over finished busy periods (updated at each park).
    busy_ns: AtomicU64,
    /// When the current busy period began, in nanoseconds since [`Counters::epoch`].
    busy_since_ns: AtomicU64,
}

impl WorkerCounters {
    #[inline]
    pub(crate) fn local_schedule(&self) {
        if rt_core::OBSERVE {
            bump(&self.local_schedules);
        }
    }
    #[inline]
    pub(crate) fn remote_schedule(&self) {
        if rt_core::OBSERVE {
            bump(&self.remote_schedules);
        }
    }
    /// A steal operation that took `tasks` tasks (the one it runs included).
    #[inline]
    pub(crate) fn steal(&self, tasks: usize) {
        if rt_core::OBSERVE {
            bump(&self.steal_operations);
            add(&self.steals, tasks as u64);
        }
    }
    #[inline]
    pub(crate) fn unpark(&self) {
        if rt_core::OBSERVE {
            self.unparks.fetch_add(1, Relaxed);
        }
    }
    /// A task taken from the LIFO slot to run.
    #[inline]
    pub(crate) fn lifo_hit(&self) {
        if rt_core::OBSERVE {
            bump(&self.lifo_hits);
        }
    }
    /// A task spawned by a task running on this worker.
    #[inline]
    pub(crate) fn spawn(&self) {
        if rt_core::OBSERVE {
            bump(&self.spawns);
        }
    }

    /// The worker gave its CPU to the OS (`sched_yield`) after running tasks without a break.
    #[inline]
    pub(crate) fn os_yield(&self) {
        if rt_core::OBSERVE {
            bump(&self.os_yields);
        }
    }

    /// The worker parks now (`now` is the clock read the park makes anyway): counts the park,
    /// closes the busy period, and returns a guard that opens the next one when the worker
    /// wakes (one more clock read).
    pub(crate) fn park(&self, epoch: Instant, now: Instant) -> Busy<'_> {
        if rt_core::OBSERVE {
            bump(&self.parks);
            bump(&self.park_unparks);
            let now_ns = nanos_since(epoch, now);
            let since = self.busy_since_ns.load(Relaxed);
            add(&self.busy_ns, now_ns.saturating_sub(since));
        }
        Busy { c: self, epoch }
    }

    /// The worker stops running its loop (shutdown, or a substitute giving a context back):
    /// counts the busy period so far and goes on from `now`, so that a worker that never
    /// parked still reports the time it ran.
    pub(crate) fn checkpoint_busy(&self, epoch: Instant, now: Instant) {
        if rt_core::OBSERVE {
            let now_ns = nanos_since(epoch, now);
            let since = self.busy_since_ns.swap(now_ns, Relaxed);
            add(&self.busy_ns, now_ns.saturating_sub(since));
        }
    }

    /// One counter now (the same value [`snapshot`](Self::snapshot) would copy); `None` for
    /// the values the scheduler keeps elsewhere (polls, queue depth, reactor counts).
    fn read(&self, value: WorkerValue) -> Option<u64> {
        let c = match value {
            WorkerValue::LocalSchedules => return Some(self.local_schedules()),
            WorkerValue::Steals => &self.steals,
            WorkerValue::StealOperations => &self.steal_operations,
            WorkerValue::Parks => &self.parks,
            WorkerValue::Unparks => &self.unparks,
            WorkerValue::ParkUnparks => &self.park_unparks,
            WorkerValue::LifoHits => &self.lifo_hits,
            WorkerValue::OsYields => &self.os_yields,
            WorkerValue::BusyNanos => &self.busy_ns,
            WorkerValue::Polls
            | WorkerValue::LocalQueueDepth
            | WorkerValue::ReactorTurns
            | WorkerValue::ReactorEvents => return None,
        };
        Some(c.load(Relaxed))
    }

    /// Local schedules so far. A spawn on the worker is a local schedule too, counted once, as
    /// a spawn (one counter on the spawn path, not two).
    fn local_schedules(&self) -> u64 {
        self.local_schedules.load(Relaxed) + self.spawns.load(Relaxed)
    }

    fn snapshot(&self) -> WorkerMetrics {
        WorkerMetrics {
            // `polls` is the worker's poll stamp's (`crate::stall::PollStamp::polls`): the
            // scheduler fills it in.
            local_schedules: self.local_schedules(),
            remote_schedules: self.remote_schedules.load(Relaxed),
            steals: self.steals.load(Relaxed),
            steal_operations: self.steal_operations.load(Relaxed),
            parks: self.parks.load(Relaxed),
            unparks: self.unparks.load(Relaxed),
            park_unparks: self.park_unparks.load(Relaxed),
            lifo_hits: self.lifo_hits.load(Relaxed),
            spawns: self.spawns.load(Relaxed),
            os_yields: self.os_yields.load(Relaxed),
            busy: Duration::from_nanos(self.busy_ns.load(Relaxed)),
            ..WorkerMetrics::default()
        }
    }
}

fn nanos_since(epoch: Instant, now: Instant) -> u64 {
    u64::try_from(now.saturating_duration_since(epoch).as_nanos()).unwrap_or(u64::MAX)
}

/// Opens a worker's next busy period when it stops parking (see [`WorkerCounters::park`]).
pub(crate) struct Busy<'a> {
    c: &'a WorkerCounters,
    epoch: Instant,
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        if rt_core::OBSERVE {
            bump(&self.c.park_unparks);
            let now = nanos_since(self.epoch, Instant::now());
            self.c.busy_since_ns.store(now, Relaxed);
        }
    }
}

/// One worker's two histograms (counts per bucket), written by that worker only.
#[derive(Debug, Default)]
struct WorkerHistograms {
    poll_time: [AtomicU64; HISTOGRAM_BUCKETS],
    schedule_latency: [AtomicU64; HISTOGRAM_BUCKETS],
    /// While the worker polls a task: 1 + the poll's start (nanoseconds since the epoch); 0
    /// between polls. A wake from inside that poll takes it as its wake time (see
    /// `Counters::scheduled`).
    polling_since: AtomicU64,
}

fn read(h: &[AtomicU64; HISTOGRAM_BUCKETS]) -> Histogram {
    Histogram {
        counts: std::array::from_fn(|b| h[b].load(Relaxed)),
    }
}

/// Slots of the wake-stamp table (a power of two).
const STAMP_SLOTS_LOG2: u32 = 14;
/// Bits of a stamp that hold the time (nanoseconds since [`Counters::epoch`], modulo 2^40,
/// about 18 minutes: a longer wait would be measured modulo that); the 24 bits above hold the
/// low bits of the task id, to recognise the stamp's task.
const STAMP_TIME_BITS: u32 = 40;
const STAMP_TIME_MASK: u64 = (1 << STAMP_TIME_BITS) - 1;

/// The histograms of every worker, and a side table of when scheduled tasks were scheduled.
/// Exists only while histograms are enabled.
///
/// The side table is lock-free and fixed-size: a task's spawn or wake stores one word (its id's
/// low 24 bits and the time) into the slot its id hashes to; the poll that follows reads it
/// back and uses it if the id bits match. Every poll follows a schedule that wrote its stamp,
/// so a matching stamp is this wait's. Another task hashing to the same slot may overwrite it
/// meanwhile (likely only with thousands of tasks queued at once): that poll is then left out
/// of the schedule-latency histogram, which samples rather than blocks. The queue that carries
/// the task orders the stamp's store before the poll's load. `unmodelled` atomics (the shim's
/// exception 2): statistics, in no protocol.
struct Histograms {
    workers: Box<[CachePadded<WorkerHistograms>]>,
    stamps: Box<[AtomicU64]>,
}

impl Histograms {
    fn slot(&self, id: u64) -> &AtomicU64 {
        // Fibonacci hashing spreads consecutive ids (spawned together, likely on different
        // workers) over different cache lines.
        let i = id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (u64::BITS - STAMP_SLOTS_LOG2);
        &self.stamps[i as usize]
    }
}

fn stamp(id: u64, now_ns: u64) -> u64 {
    (id << STAMP_TIME_BITS) | (now_ns & STAMP_TIME_MASK)
}

/// All counters of a multi-thread scheduler: one [`WorkerCounters`] per worker (indexing a
/// `Counters` gives them), the runtime-wide ones, and the histograms when enabled.
pub(crate) struct Counters {
    workers: Box<[CachePadded<WorkerCounters>]>,
    /// Tasks spawned from threads that are not this scheduler's workers (a shared RMW; spawns
    /// from workers are counted per worker).
    remote_spawns: CachePadded<AtomicU64>,
    /// Tasks pushed into the injector (spawns and wakes from outside the workers).
    injected: CachePadded<AtomicU64>,
    /// Time zero of the busy-period stamps.
    epoch: Instant,
    histograms: Option<Box<Histograms>>,
}

impl Deref for Counters {
    type Target = [CachePadded<WorkerCounters>];
    fn deref(&self) -> &Self::Target {
        &self.workers
    }
}

impl Counters {
    /// Counters for `n` workers; with `histograms`, the poll-time and schedule-latency
    /// histograms too.
    pub(crate) fn new(n: usize, histograms: bool) -> Counters {
        let histograms = histograms.then(|| {
            Box::new(Histograms {
                workers: (0..n)
                    .map(|_| CachePadded::new(WorkerHistograms::default()))
                    .collect(),
                stamps: (0..1usize << STAMP_SLOTS_LOG2)
                    .map(|_| AtomicU64::new(0))
                    .collect(),
            })
        });
        Counters {
            workers: (0..n)
                .map(|_| CachePadded::new(WorkerCounters::default()))
                .collect(),
            remote_spawns: CachePadded::new(AtomicU64::new(0)),
            injected: CachePadded::new(AtomicU64::new(0)),
            epoch: Instant::now(),
            histograms,
        }
    }

    /// Whether the histograms are on (then every poll goes through [`run`](Self::run)).
    pub(crate) fn histograms(&self) -> bool {
        self.histograms.is_some()
    }

    /// Time zero of the busy-period stamps (for [`WorkerCounters::park`]).
    pub(crate) fn epoch(&self) -> Instant {
        self.epoch
    }

    /// A task spawned by a task on worker `worker`, or (`worker` out of range, e.g.
    /// `usize::MAX`) from a thread that is not one of the workers.
    #[inline]
    pub(crate) fn spawned(&self, worker: usize) {
        if rt_core::OBSERVE {
            match self.workers.get(worker) {
                Some(w) => w.spawn(),
                None => {
                    self.remote_spawns.fetch_add(1, Relaxed);
                }
            }
        }
    }

    /// A task pushed into the injector.
    #[inline]
    pub(crate) fn injected(&self) {
        if rt_core::OBSERVE {
            self.injected.fetch_add(1, Relaxed);
        }
    }

    /// `task` was spawned or woken (to be polled later), on worker `worker` (`usize::MAX`:
    /// not on a worker): with histograms on, remember when. (Off, this reads nothing from the
    /// task.)
    ///
    /// A wake from inside a poll on a worker takes that poll's start as its time, so the
    /// histograms read the clock twice per poll, not three times; the latency then includes the
    /// part of the waking poll before the wake (a yield's whole poll). Other wakes (the
    /// reactor's, other threads') read the clock.
    #[inline]
    pub(crate) fn scheduled<S: rt_core::task::Schedule>(
        &self,
        task: &rt_core::task::Notified<S>,
        worker: usize,
    ) {
        if let Some(h) = &self.histograms {
            let id = task.id().as_u64();
            let since = h
                .workers
                .get(worker)
                .map_or(0, |w| w.polling_since.load(Relaxed));
            let now = match since {
                0 => nanos_since(self.epoch, Instant::now()),
                s => s - 1,
            };
            h.slot(id).store(stamp(id, now), Relaxed);
        }
    }

    /// Worker `worker` polls a task with `poll` (`Notified::run`, or the trace's wrapper of
    /// it): with histograms on, times it and the wait since its wake. The caller has counted
    /// the poll (its poll stamp counts it, `crate::stall::PollStamp::enter_counted`).
    #[inline]
    pub(crate) fn run<S: rt_core::task::Schedule>(
        &self,
        worker: usize,
        task: rt_core::task::Notified<S>,
        poll: impl FnOnce(rt_core::task::Notified<S>),
    ) {
        match &self.histograms {
            None => poll(task),
            Some(h) => Self::run_timed(h, self.epoch, worker, task, poll),
        }
    }

    #[cold]
    fn run_timed<S: rt_core::task::Schedule>(
        h: &Histograms,
        epoch: Instant,
        worker: usize,
        task: rt_core::task::Notified<S>,
        poll: impl FnOnce(rt_core::task::Notified<S>),
    ) {
        let id = task.id().as_u64();
        let woke = h.slot(id).load(Relaxed);
        let start = Instant::now();
        let start_ns = nanos_since(epoch, start);
        let w = &h.workers[worker];
        if woke >> STAMP_TIME_BITS == stamp(id, 0) >> STAMP_TIME_BITS {
            let ns = start_ns.wrapping_sub(woke) & STAMP_TIME_MASK;
            bump(&w.schedule_latency[bucket_of(ns)]);
        }
        w.polling_since.store(start_ns + 1, Relaxed);
        poll(task);
        w.polling_since.store(0, Relaxed);
        let ns = nanos_since(start, Instant::now());
        bump(&w.poll_time[bucket_of(ns)]);
    }

    /// Worker `worker`'s counter `value` now, `None` for the values kept elsewhere (see
    /// `WorkerCounters::read`).
    pub(crate) fn read(&self, worker: usize, value: WorkerValue) -> Option<u64> {
        self.workers[worker].read(value)
    }

    /// Tasks spawned so far, from the workers and from outside (as the snapshot sums them).
    pub(crate) fn spawned_total(&self) -> u64 {
        self.workers
            .iter()
            .map(|w| w.spawns.load(Relaxed))
            .sum::<u64>()
            + self.remote_spawns.load(Relaxed)
    }

    /// Tasks pushed into the injector so far.
    pub(crate) fn injected_total(&self) -> u64 {
        self.injected.load(Relaxed)
    }

    /// Bucket `bucket` of worker `worker`'s histogram `kind` now; 0 when histograms are off.
    pub(crate) fn histogram_bucket(
        &self,
        worker: usize,
        kind: HistogramKind,
        bucket: usize,
    ) -> u64 {
        self.histograms.as_ref().map_or(0, |h| {
            let w = &h.workers[worker];
            match kind {
                HistogramKind::PollTime => w.poll_time[bucket].load(Relaxed),
                HistogramKind::ScheduleLatency => w.schedule_latency[bucket].load(Relaxed),
            }
        })
    }

    /// A copy of every worker's counters (gauges and the IO fields are filled by the caller),
    /// with the runtime-wide counters.
    pub(crate) fn snapshot(&self) -> Metrics {
        let workers: Vec<WorkerMetrics> = self
            .workers
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut m = c.snapshot();
                if let Some(h) = &self.histograms {
                    m.poll_time_histogram = Some(read(&h.workers[i].poll_time));
                    m.schedule_latency_histogram = Some(read(&h.workers[i].schedule_latency));
                }
                m
            })
            .collect();
        let spawned =
            workers.iter().map(|w| w.spawns).sum::<u64>() + self.remote_spawns.load(Relaxed);
        Metrics {
            workers,
            spawned_tasks: spawned,
            remote_schedules: self.injected.load(Relaxed),
            ..Metrics::default()
        }
    }
}

impl std::fmt::Debug for Counters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counters")
            .field("workers", &self.workers.len())
            .field("histograms", &self.histograms.is_some())
            .finish_non_exhaustive()
    }
}

/// One per-worker value, read alone and live through [`LiveMetrics::worker_value`]: the field
/// of [`WorkerMetrics`] of the same name (`BusyNanos` is [`WorkerMetrics::busy`] in
/// nanoseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WorkerValue {
    /// [`WorkerMetrics::polls`].
    Polls,
    /// [`WorkerMetrics::local_schedules`].
    LocalSchedules,
    /// [`WorkerMetrics::steals`].
    Steals,
    /// [`WorkerMetrics::steal_operations`].
    StealOperations,
    /// [`WorkerMetrics::parks`].
    Parks,
    /// [`WorkerMetrics::unparks`].
    Unparks,
    /// [`WorkerMetrics::park_unparks`].
    ParkUnparks,
    /// [`WorkerMetrics::lifo_hits`].
    LifoHits,
    /// [`WorkerMetrics::os_yields`].
    OsYields,
    /// [`WorkerMetrics::busy`], in nanoseconds.
    BusyNanos,
    /// [`WorkerMetrics::local_queue_depth`].
    LocalQueueDepth,
    /// [`WorkerMetrics::reactor_turns`].
    ReactorTurns,
    /// [`WorkerMetrics::reactor_events`].
    ReactorEvents,
}

/// One runtime-wide value of [`Metrics`], read alone and live through
/// [`LiveMetrics::runtime_value`] (the blocking pool's are the facade's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuntimeValue {
    /// [`Metrics::num_alive_tasks`].
    AliveTasks,
    /// [`Metrics::spawned_tasks_count`].
    SpawnedTasks,
    /// [`Metrics::remote_schedule_count`].
    RemoteSchedules,
    /// [`Metrics::global_queue_depth`].
    GlobalQueueDepth,
    /// [`Metrics::stall_count`].
    Stalls,
}

/// Which of a worker's two histograms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistogramKind {
    /// [`WorkerMetrics::poll_time_histogram`].
    PollTime,
    /// [`WorkerMetrics::schedule_latency_histogram`].
    ScheduleLatency,
}

/// A scheduler's metrics read one value at a time, at the call: what the facade's
/// `RuntimeMetrics` accessors read (each the counter or gauge it names, as tokio's do), where
/// [`Metrics`] copies them all. Every value is the one a [`Metrics`] taken at that moment would
/// hold.
///
/// The methods taking a `worker` expect `worker < num_workers()` (they panic otherwise; the
/// facade checks first, to name the caller); `bucket < HISTOGRAM_BUCKETS` likewise.
pub trait LiveMetrics {
    /// Worker threads (1 for the current-thread scheduler).
    fn num_workers(&self) -> usize;
    /// Worker `worker`'s `value` now.
    fn worker_value(&self, worker: usize, value: WorkerValue) -> u64;
    /// The runtime-wide `value` now.
    fn runtime_value(&self, value: RuntimeValue) -> u64;
    /// Whether the histograms are recorded.
    fn histograms_enabled(&self) -> bool;
    /// Bucket `bucket` of worker `worker`'s histogram `kind` now (0 when they are off).
    fn histogram_bucket(&self, worker: usize, kind: HistogramKind, bucket: usize) -> u64;
}

/// Counts per bucket of one histogram; bucket `b` covers [`histogram_bucket_range`]`(b)`:
/// bucket 0 is below 1.024 µs, each next one twice as wide, the last (23) is 4.29 s and up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Histogram {
    /// Events per bucket.
    pub(crate) counts: [u64; HISTOGRAM_BUCKETS],
}

impl Histogram {
    /// Events per bucket.
    pub fn counts(&self) -> &[u64; HISTOGRAM_BUCKETS] {
        &self.counts
    }

    /// Events in bucket `bucket` (panics when `bucket >= HISTOGRAM_BUCKETS`).
    pub fn count(&self, bucket: usize) -> u64 {
        self.counts[bucket]
    }

    /// Events counted, all buckets together.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    fn add(&self, other: &Histogram) -> Histogram {
        Histogram {
            counts: std::array::from_fn(|b| self.counts[b] + other.counts[b]),
        }
    }
}

/// A copy of one worker's metrics. Counters (every `u64` and `busy`) only grow; `local_queue_depth`
/// is a gauge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WorkerMetrics {
    /// Task polls run by this worker (count).
    pub(crate) polls: u64,
    /// Tasks this worker scheduled onto its own queue or LIFO slot (wakes and spawns from its
    /// tasks; count).
    pub(crate) local_schedules: u64,
    /// Tasks this worker took from the global injector (spawns and wakes from outside; count).
    pub(crate) remote_schedules: u64,
    /// Tasks this worker stole from other workers' queues (count of tasks; a steal takes about
    /// half of the victim's queue).
    pub(crate) steals: u64,
    /// Steal operations that took at least one task from another worker (count).
    pub(crate) steal_operations: u64,
    /// Times this worker parked (went to sleep for lack of work; count).
    pub(crate) parks: u64,
    /// Times another thread woke this worker from its park (count; a worker whose own reactor
    /// turn found it work leaves its park without one).
    pub(crate) unparks: u64,
    /// Times this worker parked plus times it woke from a park (count; tokio's
    /// `worker_park_unpark_count`): odd while the worker is parked, even while it runs.
    pub(crate) park_unparks: u64,
    /// Tasks this worker ran from its LIFO slot (count; a subset of `polls`).
    pub(crate) lifo_hits: u64,
    /// Tasks spawned by tasks running on this worker (count).
    pub(crate) spawns: u64,
    /// Times this worker gave its CPU to the OS scheduler: with `sched_yield` after running
    /// tasks for `Builder::os_yield_after` without a break, or with a 25 µs sleep once before
    /// parking while another worker ran (count).
    pub(crate) os_yields: u64,
    /// Time this worker was busy (not parked), summed over its busy periods up to its latest
    /// park: a period is added when it ends, so a worker that has run since its last park has
    /// that run missing until it parks again. Measured by one clock read at each park and
    /// unpark, never per poll.
    pub(crate) busy: Duration,
    /// Tasks in this worker's local queue when the snapshot was taken (gauge; the LIFO slot,
    /// at most one task, is not counted).
    pub(crate) local_queue_depth: usize,
    /// Turns of IO reactor shard `i` for worker `i`, by any thread (count). The workers share
    /// one shard by default (`Builder::reactor_shards`): then worker 0's figure is the shared
    /// poll's and the others' are 0. 0 with `Builder::reactor_thread(true)`, whose reactor has
    /// one shard of its own.
    pub(crate) reactor_turns: u64,
    /// IO readiness events those turns delivered (count; wake-ups and timer ticks not included).
    pub(crate) reactor_events: u64,
    /// Poll durations of this worker's polls; `None` unless histograms are enabled.
    pub(crate) poll_time_histogram: Option<Histogram>,
    /// Time from a task's spawn or wake to the start of the poll that follows, for the polls of
    /// this worker; `None` unless histograms are enabled.
    pub(crate) schedule_latency_histogram: Option<Histogram>,
}

impl WorkerMetrics {
    /// Task polls run by this worker (count).
    pub fn polls(&self) -> u64 {
        self.polls
    }

    /// Tasks this worker scheduled onto its own queue or LIFO slot (wakes and spawns from its
    /// tasks; count).
    pub fn local_schedules(&self) -> u64 {
        self.local_schedules
    }

    /// Tasks this worker took from the global injector (spawns and wakes from outside; count).
    pub fn remote_schedules(&self) -> u64 {
        self.remote_schedules
    }

    /// Tasks this worker stole from other workers' queues (count of tasks; a steal takes about
    /// half of the victim's queue).
    pub fn steals(&self) -> u64 {
        self.steals
    }

    /// Steal operations that took at least one task from another worker (count).
    pub fn steal_operations(&self) -> u64 {
        self.steal_operations
    }

    /// Times this worker parked (went to sleep for lack of work; count).
    pub fn parks(&self) -> u64 {
        self.parks
    }

    /// Times another thread woke this worker from its park (count; a worker whose own reactor
    /// turn found it work leaves its park without one).
    pub fn unparks(&self) -> u64 {
        self.unparks
    }

    /// Times this worker parked plus times it woke from a park (count; tokio's
    /// `worker_park_unpark_count`): odd while the worker is parked, even while it runs.
    pub fn park_unparks(&self) -> u64 {
        self.park_unparks
    }

    /// Tasks this worker ran from its LIFO slot (count; a subset of `polls`).
    pub fn lifo_hits(&self) -> u64 {
        self.lifo_hits
    }

    /// Tasks spawned by tasks running on this worker (count).
    pub fn spawns(&self) -> u64 {
        self.spawns
    }

    /// Times this worker gave its CPU to the OS scheduler: with `sched_yield` after running
    /// tasks for `Builder::os_yield_after` without a break, or with a 25 µs sleep once before
    /// parking while another worker ran (count).
    pub fn os_yields(&self) -> u64 {
        self.os_yields
    }

    /// Time this worker was busy (not parked), summed over its busy periods up to its latest
    /// park: a period is added when it ends, so a worker that has run since its last park has
    /// that run missing until it parks again. Measured by one clock read at each park and
    /// unpark, never per poll.
    pub fn busy(&self) -> Duration {
        self.busy
    }

    /// Tasks in this worker's local queue when the snapshot was taken (gauge; the LIFO slot,
    /// at most one task, is not counted).
    pub fn local_queue_depth(&self) -> usize {
        self.local_queue_depth
    }

    /// Turns of IO reactor shard `i` for worker `i`, by any thread (count). The workers share
    /// one shard by default (`Builder::reactor_shards`): then worker 0's figure is the shared
    /// poll's and the others' are 0. 0 with `Builder::reactor_thread(true)`, whose reactor has
    /// one shard of its own.
    pub fn reactor_turns(&self) -> u64 {
        self.reactor_turns
    }

    /// IO readiness events those turns delivered (count; wake-ups and timer ticks not included).
    pub fn reactor_events(&self) -> u64 {
        self.reactor_events
    }

    /// Poll durations of this worker's polls; `None` unless histograms are enabled.
    pub fn poll_time_histogram(&self) -> Option<Histogram> {
        self.poll_time_histogram
    }

    /// Time from a task's spawn or wake to the start of the poll that follows, for the polls of
    /// this worker; `None` unless histograms are enabled.
    pub fn schedule_latency_histogram(&self) -> Option<Histogram> {
        self.schedule_latency_histogram
    }
}

/// A copy of a runtime's metrics, taken by `Runtime::metrics()` / `Handle::metrics()`.
///
/// Read through tokio's `RuntimeMetrics` accessors (`rt` names the same type
/// `RuntimeMetrics`), which read this copy; per worker also through [`Metrics::workers`]. The
/// fields are private and the type `#[non_exhaustive]`, so a new counter is no breaking change. Counters are monotonic: a later snapshot's
/// counter is never below an earlier one's. Gauges (depths, live tasks, thread counts) are
/// what they were at the snapshot.
///
/// Local queues are unbounded (crossbeam-deque grows), so a worker never overflows tasks into
/// the injector: [`Metrics::worker_overflow_count`] is always 0. Tasks reach the injector only
/// from threads that are not workers of this runtime ([`Metrics::remote_schedule_count`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Metrics {
    /// One entry per worker (one for the current-thread scheduler, whose `block_on` thread is
    /// its worker).
    pub(crate) workers: Vec<WorkerMetrics>,
    /// Tasks alive (spawned and not yet complete; gauge).
    pub(crate) live_tasks: usize,
    /// Polls reported as stalls so far (stall detection, `Builder::stall_threshold`; 0 when it
    /// is off). A count, monotonic.
    pub(crate) stalls: u64,
    /// Tasks spawned onto the scheduler since it started (count; blocking closures and
    /// `LocalSet` tasks not included).
    pub(crate) spawned_tasks: u64,
    /// Tasks pushed into the global injector: spawns and wakes from outside the workers
    /// (count; tokio's `remote_schedule_count`).
    pub(crate) remote_schedules: u64,
    /// Tasks waiting in the global injector (gauge).
    pub(crate) injector_depth: usize,
    /// Threads in the blocking pool (gauge).
    pub(crate) blocking_threads: usize,
    /// Blocking-pool threads waiting for work (gauge).
    pub(crate) idle_blocking_threads: usize,
    /// Blocking closures queued and not yet started (gauge).
    pub(crate) blocking_queue_depth: usize,
}

impl Metrics {
    /// The counters summed over all workers (gauges and histograms summed too).
    pub fn total(&self) -> WorkerMetrics {
        self.workers
            .iter()
            .fold(WorkerMetrics::default(), |a, w| WorkerMetrics {
                polls: a.polls + w.polls,
                local_schedules: a.local_schedules + w.local_schedules,
                remote_schedules: a.remote_schedules + w.remote_schedules,
                steals: a.steals + w.steals,
                steal_operations: a.steal_operations + w.steal_operations,
                parks: a.parks + w.parks,
                unparks: a.unparks + w.unparks,
                park_unparks: a.park_unparks + w.park_unparks,
                lifo_hits: a.lifo_hits + w.lifo_hits,
                spawns: a.spawns + w.spawns,
                os_yields: a.os_yields + w.os_yields,
                busy: a.busy + w.busy,
                local_queue_depth: a.local_queue_depth + w.local_queue_depth,
                reactor_turns: a.reactor_turns + w.reactor_turns,
                reactor_events: a.reactor_events + w.reactor_events,
                poll_time_histogram: sum_hist(a.poll_time_histogram, w.poll_time_histogram),
                schedule_latency_histogram: sum_hist(
                    a.schedule_latency_histogram,
                    w.schedule_latency_histogram,
                ),
            })
    }

    /// Polls reported as stalls so far (stall detection, `Builder::stall_threshold`; count; not
    /// a tokio metric).
    pub fn stall_count(&self) -> u64 {
        self.stalls
    }

    /// Each worker's metrics (one for the current-thread scheduler, whose `block_on` thread is
    /// its worker).
    pub fn workers(&self) -> &[WorkerMetrics] {
        &self.workers
    }

    /// Fills in the blocking pool's gauges (the facade's part of the snapshot).
    #[doc(hidden)]
    pub fn set_blocking(&mut self, threads: usize, idle: usize, queued: usize) {
        self.blocking_threads = threads;
        self.idle_blocking_threads = idle;
        self.blocking_queue_depth = queued;
    }

    /// Worker threads (1 for the current-thread scheduler).
    pub fn num_workers(&self) -> usize {
        self.workers.len()
    }
    /// Tasks alive now: spawned and not yet complete (gauge; tokio's name).
    pub fn num_alive_tasks(&self) -> usize {
        self.live_tasks
    }
    /// Tasks spawned onto the scheduler since it started (count; blocking closures and
    /// `LocalSet` tasks not included).
    pub fn spawned_tasks_count(&self) -> u64 {
        self.spawned_tasks
    }
    /// Tasks pushed into the global injector: spawns and wakes from outside the workers (count).
    pub fn remote_schedule_count(&self) -> u64 {
        self.remote_schedules
    }
    /// Tasks waiting in the global injector (gauge).
    pub fn global_queue_depth(&self) -> usize {
        self.injector_depth
    }
    /// Threads in the blocking pool (gauge).
    pub fn num_blocking_threads(&self) -> usize {
        self.blocking_threads
    }
    /// Blocking-pool threads waiting for work (gauge).
    pub fn num_idle_blocking_threads(&self) -> usize {
        self.idle_blocking_threads
    }
    /// Blocking closures queued and not yet started (gauge).
    pub fn blocking_queue_depth(&self) -> usize {
        self.blocking_queue_depth
    }
    /// IO readiness events delivered by every reactor shard driven by the workers.
    pub fn io_driver_ready_count(&self) -> u64 {
        self.workers.iter().map(|w| w.reactor_events).sum()
    }

    /// Panics with a clear message when `worker` is out of range.
    fn worker(&self, worker: usize) -> &WorkerMetrics {
        match self.workers.get(worker) {
            Some(w) => w,
            None => panic!(
                "worker index {worker} out of range: the runtime has {} workers",
                self.workers.len()
            ),
        }
    }

    /// [`WorkerMetrics::polls()`] of worker `worker`. The `worker_*` accessors panic when
    /// `worker >= num_workers()`.
    pub fn worker_poll_count(&self, worker: usize) -> u64 {
        self.worker(worker).polls
    }
    /// [`WorkerMetrics::local_schedules()`].
    pub fn worker_local_schedule_count(&self, worker: usize) -> u64 {
        self.worker(worker).local_schedules
    }
    /// [`WorkerMetrics::steals()`] (tasks).
    pub fn worker_steal_count(&self, worker: usize) -> u64 {
        self.worker(worker).steals
    }
    /// [`WorkerMetrics::steal_operations()`].
    pub fn worker_steal_operations(&self, worker: usize) -> u64 {
        self.worker(worker).steal_operations
    }
    /// [`WorkerMetrics::parks()`].
    pub fn worker_park_count(&self, worker: usize) -> u64 {
        self.worker(worker).parks
    }
    /// [`WorkerMetrics::unparks()`].
    pub fn worker_unpark_count(&self, worker: usize) -> u64 {
        self.worker(worker).unparks
    }
    /// [`WorkerMetrics::park_unparks()`]: parks plus wake-ups, odd while the worker is parked.
    pub fn worker_park_unpark_count(&self, worker: usize) -> u64 {
        self.worker(worker).park_unparks
    }
    /// [`WorkerMetrics::busy()`].
    pub fn worker_total_busy_duration(&self, worker: usize) -> Duration {
        self.worker(worker).busy
    }
    /// [`WorkerMetrics::local_queue_depth()`].
    pub fn worker_local_queue_depth(&self, worker: usize) -> usize {
        self.worker(worker).local_queue_depth
    }
    /// [`WorkerMetrics::lifo_hits()`].
    pub fn worker_lifo_hit_count(&self, worker: usize) -> u64 {
        self.worker(worker).lifo_hits
    }
    /// Tasks worker `worker` moved to the injector because its local queue was full: always 0,
    /// local queues are unbounded (see [`Metrics`]). Kept for code written against tokio.
    pub fn worker_overflow_count(&self, worker: usize) -> u64 {
        let _ = self.worker(worker);
        0
    }
    /// [`WorkerMetrics::os_yields()`].
    pub fn worker_os_yield_count(&self, worker: usize) -> u64 {
        self.worker(worker).os_yields
    }
    /// [`WorkerMetrics::reactor_turns()`].
    pub fn worker_reactor_turn_count(&self, worker: usize) -> u64 {
        self.worker(worker).reactor_turns
    }
    /// [`WorkerMetrics::reactor_events()`].
    pub fn worker_reactor_event_count(&self, worker: usize) -> u64 {
        self.worker(worker).reactor_events
    }

    /// Whether the runtime records the poll-time and schedule-latency histograms
    /// (`Builder::poll_time_histogram(true)`).
    pub fn poll_time_histogram_enabled(&self) -> bool {
        self.workers
            .first()
            .is_some_and(|w| w.poll_time_histogram.is_some())
    }
    /// Buckets per histogram ([`HISTOGRAM_BUCKETS`], 24).
    pub fn poll_time_histogram_num_buckets(&self) -> usize {
        HISTOGRAM_BUCKETS
    }
    /// The durations bucket `bucket` counts ([`histogram_bucket_range`]).
    pub fn poll_time_histogram_bucket_range(&self, bucket: usize) -> Range<Duration> {
        histogram_bucket_range(bucket)
    }
    /// Polls of worker `worker` whose duration fell in `bucket` (0 when histograms are off).
    pub fn poll_time_histogram_bucket_count(&self, worker: usize, bucket: usize) -> u64 {
        bucket_count(self.worker(worker).poll_time_histogram, bucket)
    }
    /// Polls of worker `worker` that started within `bucket`'s range after their task's spawn
    /// or wake (0 when histograms are off).
    pub fn schedule_latency_histogram_bucket_count(&self, worker: usize, bucket: usize) -> u64 {
        bucket_count(self.worker(worker).schedule_latency_histogram, bucket)
    }
}

fn bucket_count(h: Option<Histogram>, bucket: usize) -> u64 {
    assert!(
        bucket < HISTOGRAM_BUCKETS,
        "histogram bucket {bucket} out of range"
    );
    h.map_or(0, |h| h.counts[bucket])
}

fn sum_hist(a: Option<Histogram>, b: Option<Histogram>) -> Option<Histogram> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.add(&b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_log2_from_1024_ns() {
        assert_eq!(bucket_of(0), 0);
        assert_eq!(bucket_of(1023), 0);
        assert_eq!(bucket_of(1024), 1);
        assert_eq!(bucket_of(2047), 1);
        assert_eq!(bucket_of(2048), 2);
        assert_eq!(bucket_of(u64::MAX), HISTOGRAM_BUCKETS - 1);
        for b in 0..HISTOGRAM_BUCKETS {
            let r = histogram_bucket_range(b);
            assert_eq!(bucket_of(r.start.as_nanos() as u64), b);
            if b + 1 < HISTOGRAM_BUCKETS {
                assert_eq!(bucket_of(r.end.as_nanos() as u64 - 1), b);
                assert_eq!(histogram_bucket_range(b + 1).start, r.end);
            }
        }
        assert_eq!(
            histogram_bucket_range(HISTOGRAM_BUCKETS - 1).start,
            Duration::from_nanos(1 << 32)
        );
    }
}
