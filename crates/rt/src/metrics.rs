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
