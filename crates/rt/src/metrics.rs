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
//! (the worker's reactor shard); runtime-wide `num_workers`, `num_alive_tasks`,
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

/// The runtime's metrics, read live (tokio's `RuntimeMetrics`): a cheap handle to the runtime,
/// returned by [`Handle::metrics`](crate::Handle::metrics) and
/// [`Runtime::metrics`](crate::Runtime::metrics), whose accessors read the counters and gauges
/// at each call, as tokio's do. Take it once and read it again after the work it measures.
///
/// [`snapshot`](RuntimeMetrics::snapshot) copies every value at once, into a [`Metrics`] whose
/// numbers stay fixed (several accessors read there agree with each other); each accessor here
/// takes the part of such a copy it needs. Cloning the handle clones the runtime's `Handle`:
/// it keeps the runtime's state alive, not its threads.
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
        use crate::handle::Scheduler;
        let inner = &self.handle.inner;
        let mut m = match &inner.scheduler {
            Scheduler::MultiThread(h) => h.metrics(),
            Scheduler::CurrentThread(h) => h.metrics(),
        };
        let (threads, idle, queued) = inner.blocking.load();
        m.set_blocking(threads, idle, queued);
        m
    }
}

/// Each accessor reads the value now: [`Metrics`]' accessor of the same name on a
/// [`snapshot`](RuntimeMetrics::snapshot) (which documents it).
macro_rules! live_accessors {
    ($($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {
        impl RuntimeMetrics {
            $(
                $(#[$doc])*
                pub fn $name(&self $(, $arg: $ty)*) -> $out {
                    self.snapshot().$name($($arg),*)
                }
            )*
        }
    };
}

live_accessors! {
    /// [`Metrics::total`] now.
    total() -> WorkerMetrics;
    /// [`Metrics::stall_count`] now.
    stall_count() -> u64;
    /// [`Metrics::num_workers`].
    num_workers() -> usize;
    /// [`Metrics::num_alive_tasks`] now.
    num_alive_tasks() -> usize;
    /// [`Metrics::spawned_tasks_count`] now.
    spawned_tasks_count() -> u64;
    /// [`Metrics::remote_schedule_count`] now.
    remote_schedule_count() -> u64;
    /// [`Metrics::global_queue_depth`] now.
    global_queue_depth() -> usize;
    /// [`Metrics::num_blocking_threads`] now.
    num_blocking_threads() -> usize;
    /// [`Metrics::num_idle_blocking_threads`] now.
    num_idle_blocking_threads() -> usize;
    /// [`Metrics::blocking_queue_depth`] now.
    blocking_queue_depth() -> usize;
    /// [`Metrics::io_driver_ready_count`] now.
    io_driver_ready_count() -> u64;
    /// [`Metrics::worker_poll_count`] now.
    worker_poll_count(worker: usize) -> u64;
    /// [`Metrics::worker_local_schedule_count`] now.
    worker_local_schedule_count(worker: usize) -> u64;
    /// [`Metrics::worker_steal_count`] now.
    worker_steal_count(worker: usize) -> u64;
    /// [`Metrics::worker_steal_operations`] now.
    worker_steal_operations(worker: usize) -> u64;
    /// [`Metrics::worker_park_count`] now.
    worker_park_count(worker: usize) -> u64;
    /// [`Metrics::worker_unpark_count`] now.
    worker_unpark_count(worker: usize) -> u64;
    /// [`Metrics::worker_park_unpark_count`] now.
    worker_park_unpark_count(worker: usize) -> u64;
    /// [`Metrics::worker_total_busy_duration`] now.
    worker_total_busy_duration(worker: usize) -> std::time::Duration;
    /// [`Metrics::worker_local_queue_depth`] now.
    worker_local_queue_depth(worker: usize) -> usize;
    /// [`Metrics::worker_lifo_hit_count`] now.
    worker_lifo_hit_count(worker: usize) -> u64;
    /// [`Metrics::worker_overflow_count`]: always 0.
    worker_overflow_count(worker: usize) -> u64;
    /// [`Metrics::worker_os_yield_count`] now.
    worker_os_yield_count(worker: usize) -> u64;
    /// [`Metrics::worker_reactor_turn_count`] now.
    worker_reactor_turn_count(worker: usize) -> u64;
    /// [`Metrics::worker_reactor_event_count`] now.
    worker_reactor_event_count(worker: usize) -> u64;
    /// [`Metrics::poll_time_histogram_enabled`].
    poll_time_histogram_enabled() -> bool;
    /// [`Metrics::poll_time_histogram_num_buckets`].
    poll_time_histogram_num_buckets() -> usize;
    /// [`Metrics::poll_time_histogram_bucket_range`].
    poll_time_histogram_bucket_range(bucket: usize) -> std::ops::Range<std::time::Duration>;
    /// [`Metrics::poll_time_histogram_bucket_count`] now.
    poll_time_histogram_bucket_count(worker: usize, bucket: usize) -> u64;
    /// [`Metrics::schedule_latency_histogram_bucket_count`] now.
    schedule_latency_histogram_bucket_count(worker: usize, bucket: usize) -> u64;
}
