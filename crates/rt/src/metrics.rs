//! Runtime metrics: [`Runtime::metrics`](crate::Runtime::metrics) and
//! [`Handle::metrics`](crate::Handle::metrics) return a [`RuntimeMetrics`] snapshot.
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
//! `Runtime::metrics()` and `Handle::metrics()` return a snapshot, `rt::runtime::RuntimeMetrics`,
//! with tokio's accessor names. Always on: per worker `worker_poll_count`, `worker_steal_count`
//! (tasks) and `worker_steal_operations`, `worker_park_count`, `worker_unpark_count`,
//! `worker_total_busy_duration`, `worker_local_queue_depth`, `worker_lifo_hit_count`,
//! `worker_local_schedule_count`, `worker_reactor_turn_count` and `worker_reactor_event_count`
//! (the worker's reactor shard); runtime-wide `num_workers`, `num_alive_tasks`,
//! `spawned_tasks_count`, `remote_schedule_count`, `global_queue_depth`, `num_blocking_threads`,
//! `num_idle_blocking_threads`, `blocking_queue_depth` and `io_driver_ready_count`. The fields are
//! public too (`m.workers[i].polls`), each documented with its unit; counters never go back.
//! Busy time is read from the clock only when a worker parks and wakes, and is added when the
//! worker parks. Local queues are unbounded, so `worker_overflow_count` is always 0. On the
//! current-thread runtime (one worker: the thread in `block_on`) only polls, live and spawned
//! tasks, the run-queue depth (as `global_queue_depth`), stalls and the blocking pool are counted.
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

/// tokio's name for the snapshot [`Runtime::metrics`](crate::Runtime::metrics) returns
/// (also at `rt::runtime::RuntimeMetrics`).
pub type RuntimeMetrics = Metrics;

/// The scheduler's metrics joined with the blocking pool's.
pub(crate) fn snapshot(handle: &crate::Handle) -> RuntimeMetrics {
    use crate::handle::Scheduler;
    let inner = &handle.inner;
    let mut m = match &inner.scheduler {
        Scheduler::MultiThread(h) => h.metrics(),
        Scheduler::CurrentThread(h) => h.metrics(),
    };
    let (threads, idle, queued) = inner.blocking.load();
    m.set_blocking(threads, idle, queued);
    m
}
