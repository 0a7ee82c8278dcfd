//! The multi-thread scheduler's side of the trace export (`crate::trace`): what its hooks
//! record, kept here so `mod.rs` and `worker.rs` carry one line per hook. Every hook is behind
//! `Shared::trace` (an `Option`): with no trace file, one branch; none in an `rt_unobserved`
//! build (`rt_core::OBSERVE`).

use rt_core::task::{Id, SpawnMeta};

use super::worker::{with_current_worker, WorkerContext};
use super::{Arc, Shared};
use crate::trace::{Recorder, WorkerTrace};

impl Shared {
    /// Whether a trace file is on (never in an `rt_unobserved` build).
    #[inline]
    pub(super) fn tracing(&self) -> bool {
        rt_core::OBSERVE && self.trace.is_some()
    }

    /// The calling thread's recording end, if it is one of this scheduler's workers.
    fn with_trace<R>(&self, f: impl FnOnce(&Recorder, Option<&WorkerTrace>) -> R) -> Option<R> {
        let rec = self.trace.as_deref()?;
        Some(with_current_worker(|cx| {
            let w = cx
                .filter(|cx| std::ptr::eq(cx.shared(), self))
                .and_then(WorkerContext::trace);
            f(rec, w)
        }))
    }

    /// A task was spawned.
    #[inline]
    pub(super) fn trace_spawn(&self, id: Id, meta: &SpawnMeta<'_>) {
        if self.tracing() {
            self.record_spawn(id, meta);
        }
    }

    // The records, out of line (cold): the hot paths keep one check of `tracing` and no
    // registers saved for a call they do not make.
    #[cold]
    #[inline(never)]
    fn record_spawn(&self, id: Id, meta: &SpawnMeta<'_>) {
        self.with_trace(|r, w| r.spawn(w, id.as_u64(), meta));
    }

    #[cold]
    #[inline(never)]
    fn record_complete(&self, id: Id) {
        self.with_trace(|r, w| r.complete(w, id.as_u64()));
    }

    /// A wake scheduled a task (`is_yield`: the task woke itself).
    #[inline]
    pub(super) fn trace_wake(&self, id: Id, is_yield: bool) {
        if self.tracing() {
            self.with_trace(|r, w| r.wake(w, id.as_u64(), is_yield));
        }
    }

    /// A task completed or was cancelled (it leaves the owned list).
    #[inline]
    pub(super) fn trace_complete(&self, id: Id) {
        if self.tracing() {
            self.record_complete(id);
        }
    }

    /// Worker `index`'s recording end, taken once when its loop starts.
    pub(super) fn worker_trace(&self, index: usize) -> Option<WorkerTrace> {
        let name = std::thread::current()
            .name()
            .unwrap_or("rt-worker")
            .to_owned();
        self.trace.as_ref()?.worker(index, &name)
    }
}

impl super::Handle {
    /// A wake (`Schedule::schedule`, `yield_now`) with a trace file on: records it, then
    /// schedules the task. A call of its own, out of line, so that the untraced path (one
    /// check of `Shared::tracing`) keeps its tail calls and needs no stack frame: with the
    /// record inline, every wake paid for saving and restoring six registers.
    #[cold]
    #[inline(never)]
    pub(super) fn schedule_traced(
        &self,
        task: rt_core::task::Notified<super::Handle>,
        is_yield: bool,
    ) {
        self.shared.trace_wake(task.id(), is_yield);
        self.schedule_untraced(task, is_yield);
    }
}

/// Gives `shared`'s recorder the counters it samples (injector depth, live tasks); it holds the
/// scheduler weakly.
pub(super) fn attach(shared: &Arc<Shared>, rec: &Recorder) {
    let weak = Arc::downgrade(shared);
    rec.set_sampler(Box::new(move || match weak.upgrade() {
        Some(s) => (s.injector.len() as u64, s.owned.len() as u64),
        None => (0, 0),
    }));
}

/// Runs `f` with the calling thread's ring if it is a worker recording into `rec`.
pub(crate) fn with_worker_trace<R>(rec: &Recorder, f: impl FnOnce(Option<&WorkerTrace>) -> R) -> R {
    with_current_worker(|cx| {
        let w = cx
            .filter(|cx| {
                cx.shared()
                    .trace
                    .as_deref()
                    .is_some_and(|r| std::ptr::eq(r, rec))
            })
            .and_then(WorkerContext::trace);
        f(w)
    })
}
