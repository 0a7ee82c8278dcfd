//! Runtime metrics: [`Runtime::metrics`](crate::Runtime::metrics) and
//! [`Handle::metrics`](crate::Handle::metrics) return a [`RuntimeMetrics`], a handle whose
//! accessors read the values at each call (as tokio's); [`RuntimeMetrics::snapshot`] copies
//! them all at once into a [`Metrics`].
//!
//! On by default and cheap (a relaxed load + store on the worker's own cache line per event, a
//! clock read only when a worker parks or wakes): per worker, polls, steals (operations and
//! tasks), parks, unparks, busy time, local queue depth, LIFO-slot hits, reactor turns and
//! events; runtime-wide, injector depth, live and spawned tasks, tasks scheduled from outside,
//! blocking threads (live / idle) and blocking queue depth. Every field's unit is in its docs;
//! counters only grow.
//!
//! Opt-in ([`Builder::poll_time_histogram`](crate::Builder::poll_time_histogram)): a poll-time
//! histogram and a schedule-latency histogram (spawn or wake to poll) per worker, with
//! [`HISTOGRAM_BUCKETS`] fixed log2 buckets: bucket 0 is below 1.024 µs, each next bucket is
//! twice as wide, the last one is 4.29 s and up ([`histogram_bucket_range`]). They read the
//! clock twice per poll.
//!
//! ```
//! let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
//! rt.block_on(rt.spawn(async {}))?;
//! let m = rt.metrics();
//! assert_eq!(m.num_workers(), 2);
//! assert!(m.spawned_tasks_count() >= 1);
//! let polls: u64 = (0..m.num_workers()).map(|w| m.worker_poll_count(w)).sum();
//! assert!(polls >= 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Metrics
//!
//! `Runtime::metrics()` and `Handle::metrics()` return `rt::runtime::RuntimeMetrics`, whose
//! accessors (tokio's names) read the live values at each call; `snapshot()` copies them all. Always on: per worker `worker_poll_count`, `worker_steal_count`
//! (tasks) and `worker_steal_operations`, `worker_park_count`, `worker_unpark_count`,
//! `worker_total_busy_duration`, `worker_local_queue_depth`, `worker_lifo_hit_count`,
//! `worker_local_schedule_count`, `worker_reactor_turn_count` and `worker_reactor_event_count`
//! (reactor shard `i` for worker `i`: with the default shared poll, worker 0's are the poll's
//! and the others' 0); runtime-wide `num_workers`, `num_alive_tasks`,
//! `spawned_tasks_count`, `remote_schedule_count`, `global_queue_depth`, `num_blocking_threads`,
//! `num_idle_blocking_threads`, `blocking_queue_depth` and `io_driver_ready_count`. A snapshot
//! also has each worker's `WorkerMetrics` (`m.snapshot().workers()[i].polls()`), each
//! documented with its unit; counters never go back.
//! Busy time is read from the clock only when a worker parks and wakes, and is added when the
//! worker parks. Local queues are unbounded, so `worker_overflow_count` is always 0. On the
//! current-thread runtime (one worker: the thread in `block_on`) only polls, parks and unparks,
//! busy time (inside `block_on` and not parked), live and spawned tasks, the run-queue depth (as
//! `global_queue_depth`), stalls and the blocking pool are counted.
//!
//! The poll-time and schedule-latency (spawn or wake to poll) histograms read the clock twice per
//! poll, so they are opt-in: `Builder::poll_time_histogram(true)` (or tokio's
//! `enable_metrics_poll_time_histogram()`). Each has 24 buckets per worker: bucket 0 is under
//! 1.024 µs, each next bucket twice as wide, the last one 4.29 s and up
//! (`poll_time_histogram_bucket_range`). Wake times are kept in a fixed lock-free side table, not
//! in the task: when thousands of tasks are queued at once, a poll whose stamp another task
//! overwrote is left out of the schedule-latency histogram (it samples; the poll-time one counts
//! every poll). A wake from inside a poll is stamped with that poll's start (no third clock
//! read), so its latency includes the waking poll up to the wake.
//!
//! ```rust
//! let rt = rt::Builder::new_multi_thread()
//!     .worker_threads(2)
//!     .poll_time_histogram(true)
//!     .build()?;
//! rt.block_on(async {
//!     for _ in 0..10 {
//!         rt::spawn(async { rt::task::yield_now().await }).await.unwrap();
//!     }
//! });
//! let m = rt.metrics();
//! let polls: u64 = (0..m.num_workers()).map(|w| m.worker_poll_count(w)).sum();
//! assert!(polls >= 20);
//! assert_eq!(m.spawned_tasks_count(), 10);
//! for b in 0..m.poll_time_histogram_num_buckets() {
//!     let n: u64 = (0..m.num_workers())
//!         .map(|w| m.schedule_latency_histogram_bucket_count(w, b))
//!         .sum();
//!     if n > 0 {
//!         println!("{:?}: {n} polls waited that long", m.poll_time_histogram_bucket_range(b));
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use rt_sched::metrics::{
    histogram_bucket_range, Histogram, Metrics, WorkerMetrics, HISTOGRAM_BUCKETS,
    HISTOGRAM_FIRST_BUCKET_NS,
};

use rt_sched::metrics::{HistogramKind, LiveMetrics, RuntimeValue, WorkerValue};

/// The runtime's metrics, read live (tokio's `RuntimeMetrics`): a cheap handle to the runtime,
/// returned by [`Handle::metrics`](crate::Handle::metrics) and
/// [`Runtime::metrics`](crate::Runtime::metrics), whose accessors read the counters and gauges
/// at each call, as tokio's do. Take it once and read it again after the work it measures.
///
/// Each accessor reads only the counter or gauge it names (a per-worker one reads that
/// worker's; the blocking pool's take its lock). [`snapshot`](RuntimeMetrics::snapshot) copies
/// every value at once, into a [`Metrics`] whose numbers stay fixed (several accessors read
/// there agree with each other). Cloning the handle clones the runtime's `Handle`: it keeps the
/// runtime's state alive, not its threads.
#[derive(Clone)]
pub struct RuntimeMetrics {
    handle: crate::Handle,
}

impl std::fmt::Debug for RuntimeMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.snapshot(), f)
    }
}

impl RuntimeMetrics {
    pub(crate) fn new(handle: &crate::Handle) -> RuntimeMetrics {
        RuntimeMetrics {
            handle: handle.clone(),
        }
    }

    /// Every value now, at once: the scheduler's metrics joined with the blocking pool's.
    pub fn snapshot(&self) -> Metrics {
        let mut m = self.scheduler_snapshot();
        let (threads, idle, queued) = self.handle.inner.blocking.load();
        m.set_blocking(threads, idle, queued);
        m
    }

    /// The scheduler's part of [`snapshot`](RuntimeMetrics::snapshot).
    fn scheduler_snapshot(&self) -> Metrics {
        use crate::handle::Scheduler;
        match &self.handle.inner.scheduler {
            Scheduler::MultiThread(h) => h.metrics(),
            Scheduler::CurrentThread(h) => h.metrics(),
        }
    }

    /// The scheduler, to read one value from.
    fn live(&self) -> &dyn LiveMetrics {
        use crate::handle::Scheduler;
        match &self.handle.inner.scheduler {
            Scheduler::MultiThread(h) => h,
            Scheduler::CurrentThread(h) => h,
        }
    }

    /// `worker`, checked against the number of workers.
    #[track_caller]
    fn worker(&self, worker: usize) -> usize {
        let n = self.num_workers();
        assert!(
            worker < n,
            "worker index {worker} out of range: the runtime has {n} workers"
        );
        worker
    }

    /// Worker `worker`'s `value` now.
    #[track_caller]
    fn worker_value(&self, worker: usize, value: WorkerValue) -> u64 {
        let worker = self.worker(worker);
        self.live().worker_value(worker, value)
    }

    /// Worker `worker`'s histogram `kind`, bucket `bucket`, now.
    #[track_caller]
    fn bucket(&self, worker: usize, kind: HistogramKind, bucket: usize) -> u64 {
        let worker = self.worker(worker);
        assert!(
            bucket < HISTOGRAM_BUCKETS,
            "histogram bucket {bucket} out of range: there are {HISTOGRAM_BUCKETS}"
        );
        self.live().histogram_bucket(worker, kind, bucket)
    }

    /// The counters summed over all workers now (gauges and histograms summed too): reads
    /// every worker's, as [`Metrics::total`] on a [`snapshot`](RuntimeMetrics::snapshot).
    pub fn total(&self) -> WorkerMetrics {
        self.scheduler_snapshot().total()
    }

    /// [`Metrics::stall_count`] now.
    pub fn stall_count(&self) -> u64 {
        self.live().runtime_value(RuntimeValue::Stalls)
    }

    /// [`Metrics::num_workers`].
    pub fn num_workers(&self) -> usize {
        self.live().num_workers()
    }

    /// [`Metrics::num_alive_tasks`] now.
    pub fn num_alive_tasks(&self) -> usize {
        self.live().runtime_value(RuntimeValue::AliveTasks) as usize
    }

    /// [`Metrics::spawned_tasks_count`] now.
    pub fn spawned_tasks_count(&self) -> u64 {
        self.live().runtime_value(RuntimeValue::SpawnedTasks)
    }

    /// [`Metrics::remote_schedule_count`] now.
    pub fn remote_schedule_count(&self) -> u64 {
        self.live().runtime_value(RuntimeValue::RemoteSchedules)
    }

    /// [`Metrics::global_queue_depth`] now.
    pub fn global_queue_depth(&self) -> usize {
        self.live().runtime_value(RuntimeValue::GlobalQueueDepth) as usize
    }

    /// [`Metrics::num_blocking_threads`] now.
    pub fn num_blocking_threads(&self) -> usize {
        self.handle.inner.blocking.load().0
    }

    /// [`Metrics::num_idle_blocking_threads`] now.
    pub fn num_idle_blocking_threads(&self) -> usize {
        self.handle.inner.blocking.load().1
    }

    /// [`Metrics::blocking_queue_depth`] now.
    pub fn blocking_queue_depth(&self) -> usize {
        self.handle.inner.blocking.load().2
    }

    /// [`Metrics::io_driver_ready_count`] now: every worker's reactor events.
    pub fn io_driver_ready_count(&self) -> u64 {
        let live = self.live();
        (0..live.num_workers())
            .map(|w| live.worker_value(w, WorkerValue::ReactorEvents))
            .sum()
    }

    /// [`Metrics::worker_overflow_count`]: always 0 (local queues are unbounded).
    #[track_caller]
    pub fn worker_overflow_count(&self, worker: usize) -> u64 {
        self.worker(worker);
        0
    }

    /// [`Metrics::worker_total_busy_duration`] now.
    #[track_caller]
    pub fn worker_total_busy_duration(&self, worker: usize) -> std::time::Duration {
        std::time::Duration::from_nanos(self.worker_value(worker, WorkerValue::BusyNanos))
    }

    /// [`Metrics::worker_local_queue_depth`] now.
    #[track_caller]
    pub fn worker_local_queue_depth(&self, worker: usize) -> usize {
        self.worker_value(worker, WorkerValue::LocalQueueDepth) as usize
    }

    /// [`Metrics::poll_time_histogram_enabled`].
    pub fn poll_time_histogram_enabled(&self) -> bool {
        self.live().histograms_enabled()
    }

    /// [`Metrics::poll_time_histogram_num_buckets`].
    pub fn poll_time_histogram_num_buckets(&self) -> usize {
        HISTOGRAM_BUCKETS
    }

    /// [`Metrics::poll_time_histogram_bucket_range`].
    pub fn poll_time_histogram_bucket_range(
        &self,
        bucket: usize,
    ) -> std::ops::Range<std::time::Duration> {
        histogram_bucket_range(bucket)
    }

    /// [`Metrics::poll_time_histogram_bucket_count`] now.
    #[track_caller]
    pub fn poll_time_histogram_bucket_count(&self, worker: usize, bucket: usize) -> u64 {
        self.bucket(worker, HistogramKind::PollTime, bucket)
    }

    /// [`Metrics::schedule_latency_histogram_bucket_count`] now.
    #[track_caller]
    pub fn schedule_latency_histogram_bucket_count(&self, worker: usize, bucket: usize) -> u64 {
        self.bucket(worker, HistogramKind::ScheduleLatency, bucket)
    }
}

/// The per-worker counters: each accessor reads worker `worker`'s counter of its `WorkerValue`
/// now, and panics (at the caller) when `worker >= num_workers()`.
macro_rules! worker_counters {
    ($($(#[$doc:meta])* $name:ident => $value:ident;)*) => {
        impl RuntimeMetrics {
            $(
                $(#[$doc])*
                #[track_caller]
                pub fn $name(&self, worker: usize) -> u64 {
                    self.worker_value(worker, WorkerValue::$value)
                }
            )*
        }
    };
}

worker_counters! {
    /// [`Metrics::worker_poll_count`] now.
    worker_poll_count => Polls;
    /// [`Metrics::worker_local_schedule_count`] now.
    worker_local_schedule_count => LocalSchedules;
    /// [`Metrics::worker_steal_count`] now.
    worker_steal_count => Steals;
    /// [`Metrics::worker_steal_operations`] now.
    worker_steal_operations => StealOperations;
    /// [`Metrics::worker_park_count`] now.
    worker_park_count => Parks;
    /// [`Metrics::worker_unpark_count`] now.
    worker_unpark_count => Unparks;
    /// [`Metrics::worker_park_unpark_count`] now.
    worker_park_unpark_count => ParkUnparks;
    /// [`Metrics::worker_lifo_hit_count`] now.
    worker_lifo_hit_count => LifoHits;
    /// [`Metrics::worker_os_yield_count`] now.
    worker_os_yield_count => OsYields;
    /// [`Metrics::worker_reactor_turn_count`] now.
    worker_reactor_turn_count => ReactorTurns;
    /// [`Metrics::worker_reactor_event_count`] now.
    worker_reactor_event_count => ReactorEvents;
}
