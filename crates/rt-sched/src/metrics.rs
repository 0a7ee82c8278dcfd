//! Counters the benchmarks read: cheap enough to be always on.
//!
//! These are statistics, not part of any protocol, so they are `rt_core::sync::unmodelled`
//! atomics (std's even under loom, the shim's exception 2: loom need not explore them, and a
//! model never asserts on them). Counters written only by their own worker use a relaxed load +
//! store instead of a read-modify-write: a plain `add` to a cache line the worker owns.

use rt_core::sync::unmodelled::{AtomicU64, Ordering::Relaxed};

use crossbeam_utils::CachePadded;

/// One worker's counters.
#[derive(Debug, Default)]
pub(crate) struct WorkerCounters {
    polls: AtomicU64,
    local_schedules: AtomicU64,
    remote_schedules: AtomicU64,
    steals: AtomicU64,
    parks: AtomicU64,
    /// Written by whichever thread unparks this worker: a real RMW.
    unparks: AtomicU64,
}

#[inline]
fn bump(c: &AtomicU64) {
    c.store(c.load(Relaxed).wrapping_add(1), Relaxed);
}

impl WorkerCounters {
    #[inline]
    pub(crate) fn poll(&self) {
        bump(&self.polls);
    }
    #[inline]
    pub(crate) fn local_schedule(&self) {
        bump(&self.local_schedules);
    }
    #[inline]
    pub(crate) fn remote_schedule(&self) {
        bump(&self.remote_schedules);
    }
    #[inline]
    pub(crate) fn steal(&self) {
        bump(&self.steals);
    }
    #[inline]
    pub(crate) fn park(&self) {
        bump(&self.parks);
    }
    #[inline]
    pub(crate) fn unpark(&self) {
        self.unparks.fetch_add(1, Relaxed);
    }

    pub(crate) fn snapshot(&self) -> WorkerMetrics {
        WorkerMetrics {
            polls: self.polls.load(Relaxed),
            local_schedules: self.local_schedules.load(Relaxed),
            remote_schedules: self.remote_schedules.load(Relaxed),
            steals: self.steals.load(Relaxed),
            parks: self.parks.load(Relaxed),
            unparks: self.unparks.load(Relaxed),
        }
    }
}

/// A copy of one worker's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkerMetrics {
    /// Task polls run by this worker.
    pub polls: u64,
    /// Tasks this worker scheduled onto its own queue or LIFO slot (wakes and spawns from its tasks).
    pub local_schedules: u64,
    /// Tasks this worker took from the global injector (spawns and wakes from outside).
    pub remote_schedules: u64,
    /// Tasks this worker stole from other workers.
    pub steals: u64,
    /// Times this worker parked.
    pub parks: u64,
    /// Times another thread unparked this worker.
    pub unparks: u64,
}

/// A copy of all workers' counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Metrics {
    /// One entry per worker (empty for the current-thread scheduler).
    pub workers: Vec<WorkerMetrics>,
    /// Tasks alive (spawned and not yet complete).
    pub live_tasks: usize,
    /// Polls reported as stalls so far (stall detection, `Builder::stall_threshold`; 0 when it
    /// is off or for the current-thread scheduler). A count, monotonic.
    pub stalls: u64,
}

impl Metrics {
    /// The counters summed over all workers.
    pub fn total(&self) -> WorkerMetrics {
        self.workers
            .iter()
            .fold(WorkerMetrics::default(), |a, w| WorkerMetrics {
                polls: a.polls + w.polls,
                local_schedules: a.local_schedules + w.local_schedules,
                remote_schedules: a.remote_schedules + w.remote_schedules,
                steals: a.steals + w.steals,
                parks: a.parks + w.parks,
                unparks: a.unparks + w.unparks,
            })
    }
}

pub(crate) type Counters = Box<[CachePadded<WorkerCounters>]>;

pub(crate) fn counters(n: usize) -> Counters {
    (0..n)
        .map(|_| CachePadded::new(WorkerCounters::default()))
        .collect()
}
