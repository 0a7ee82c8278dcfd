//! `Handle::metrics`: a copy of the scheduler's counters (`crate::metrics`) with the gauges
//! read now (queue depths, live tasks) and each worker's reactor-shard counts from the IO
//! driver (rt-sched cannot name rt-io; `IoDriver::turns`/`events` bring them across).

use super::Handle;
use crate::metrics::Metrics;

impl Handle {
    /// A copy of the scheduler's metrics. The blocking-pool fields are left 0: the pool is
    /// not the scheduler's (the facade fills them).
    pub fn metrics(&self) -> Metrics {
        let shared = &self.shared;
        let mut m = shared.counters.snapshot();
        m.live_tasks = shared.owned.len();
        m.injector_depth = shared.injector.len();
        m.stalls = shared.takeover.as_ref().map_or(0, |t| t.stalls());
        // Per-worker reactor counts only when each worker has a shard of its own (else the
        // shards are not the workers').
        let io = shared.io_driver.as_ref().filter(|_| shared.owns_shard());
        for (i, w) in m.workers.iter_mut().enumerate() {
            w.polls = shared.stamps[i].polls();
            w.local_queue_depth = shared.stealers[i].len();
            if let Some(d) = io {
                w.reactor_turns = d.turns(i);
                w.reactor_events = d.events(i);
            }
        }
        m
    }
}
