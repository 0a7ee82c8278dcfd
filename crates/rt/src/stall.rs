//! Stall detection's builder options (`Builder::stall_threshold`, `Builder::on_stall`); the
//! mechanism lives in rt-sched (`stall.rs`, `multi_thread/takeover.rs`, `current_thread.rs`).

use std::sync::Arc;
use std::time::Duration;

use crate::Builder;

pub use rt_sched::stall::StallInfo;

impl Builder {
    /// Reports a poll that runs longer than `threshold` while it still runs, and on a
    /// multi-thread runtime has another thread serve the rest of its worker meanwhile (its
    /// LIFO slot, queue, sockets and timers); `None` turns stall detection off (no monitor
    /// thread). Default: `Some(100 ms)`. A report goes to `tracing::warn!`, to
    /// [`Builder::on_stall`], to `Runtime::metrics().stall_count()`, and to the trace; each stall is
    /// reported once while it lasts and once more when it ends ([`StallInfo::ended`]).
    ///
    /// A current-thread runtime reports the polls of its tasks, and of `LocalSet` tasks driven
    /// by its `block_on` thread, as worker 0, from one monitor thread that watches every
    /// current-thread runtime of the process (started by the first `block_on` of the first
    /// one, for good); nothing is taken over there, since every task of the runtime runs on the
    /// one thread the stalled poll holds. Not watched: the future given to `block_on` (it is
    /// no task), and `LocalSet`s driven by a multi-thread runtime's `block_on` thread (which
    /// is none of its workers).
    ///
    /// With detection off, a runtime with more workers than CPUs wakes a parked worker for
    /// queued work whenever nobody is looking for it, however many workers are awake (see
    /// [`Builder::worker_threads`]).
    pub fn stall_threshold(&mut self, threshold: Option<Duration>) -> &mut Builder {
        self.stall_threshold = threshold;
        self
    }

    /// Calls `f` with every stall report, on the monitor thread (see
    /// [`Builder::stall_threshold`]).
    pub fn on_stall<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn(&StallInfo) + Send + Sync + 'static,
    {
        self.on_stall = Some(Arc::new(f));
        self
    }

    pub(crate) fn stall_config(&self) -> Option<rt_sched::stall::StallConfig> {
        self.stall_threshold
            .map(|threshold| rt_sched::stall::StallConfig {
                threshold,
                on_stall: self.on_stall.clone(),
            })
    }
}
