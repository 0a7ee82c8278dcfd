//! `Handle::metrics`: a copy of the scheduler's counters (`crate::metrics`) with the gauges
//! read now (queue depths, live tasks) and each worker's reactor-shard counts from the IO
//! driver (rt-sched cannot name rt-io; `IoDriver::turns`/`events` bring them across); and the
//! same values one at a time (`LiveMetrics`).

use super::{Handle, Shared};
use crate::metrics::{HistogramKind, LiveMetrics, Metrics, RuntimeValue, WorkerValue};

impl Handle {
    /// A copy of the scheduler's metrics. The blocking-pool fields are left 0: the pool is
    /// not the scheduler's (the facade fills them).
    pub fn metrics(&self) -> Metrics {
        let shared = &self.shared;
        let mut m = shared.counters.snapshot();
        m.live_tasks = shared.owned.len();
        m.injector_depth = shared.injector.len();
        m.stalls = shared.stalls();
        for (i, w) in m.workers.iter_mut().enumerate() {
            w.polls = shared.stamps[i].polls();
            w.local_queue_depth = shared.stealers[i].len();
            if let Some(d) = shared.worker_shards(i) {
                w.reactor_turns = d.turns(i);
                w.reactor_events = d.events(i);
            }
        }
        m
    }
}

impl Shared {
    /// Polls reported as stalls (0 without stall detection).
    fn stalls(&self) -> u64 {
        self.takeover.as_ref().map_or(0, |t| t.stalls())
    }

    /// The IO driver, when it has a shard numbered `worker` (shard `i` is worker `i`'s; with
    /// fewer shards than workers, the others' reactor counts stay 0).
    fn worker_shards(&self, worker: usize) -> Option<&dyn crate::IoDriver> {
        self.io_driver.as_deref().filter(|d| worker < d.shards())
    }
}

impl LiveMetrics for Handle {
    fn num_workers(&self) -> usize {
        self.shared.stamps.len()
    }

    fn worker_value(&self, worker: usize, value: WorkerValue) -> u64 {
        let shared = &self.shared;
        if let Some(v) = shared.counters.read(worker, value) {
            return v;
        }
        match value {
            WorkerValue::Polls => shared.stamps[worker].polls(),
            WorkerValue::LocalQueueDepth => shared.stealers[worker].len() as u64,
            WorkerValue::ReactorTurns => {
                shared.worker_shards(worker).map_or(0, |d| d.turns(worker))
            }
            WorkerValue::ReactorEvents => {
                shared.worker_shards(worker).map_or(0, |d| d.events(worker))
            }
            other => unreachable!("{other:?} is one of the worker's counters"),
        }
    }

    fn runtime_value(&self, value: RuntimeValue) -> u64 {
        let shared = &self.shared;
        match value {
            RuntimeValue::AliveTasks => shared.owned.len() as u64,
            RuntimeValue::SpawnedTasks => shared.counters.spawned_total(),
            RuntimeValue::RemoteSchedules => shared.counters.injected_total(),
            RuntimeValue::GlobalQueueDepth => shared.injector.len() as u64,
            RuntimeValue::Stalls => shared.stalls(),
        }
    }

    fn histograms_enabled(&self) -> bool {
        self.shared.counters.histograms()
    }

    fn histogram_bucket(&self, worker: usize, kind: HistogramKind, bucket: usize) -> u64 {
        self.shared.counters.histogram_bucket(worker, kind, bucket)
    }
}
