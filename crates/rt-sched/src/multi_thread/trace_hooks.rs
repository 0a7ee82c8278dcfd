//! The multi-thread scheduler's side of the trace export (`crate::trace`): what its hooks
//! record, kept here so `mod.rs` and `worker.rs` carry one line per hook. Every hook is behind
//! `Shared::trace` (an `Option`): with no trace file, one branch; none in an `rt_unobserved`
//! build (`rt_core::OBSERVE`).

use rt_core::task::{Id, SpawnMeta};

use super::worker::{with_current_worker, WorkerContext};
use super::{Arc, Shared};
use crate::trace::{Recorder, WorkerTrace};

impl Shared {
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
        if rt_core::OBSERVE && self.trace.is_some() {
            self.with_trace(|r, w| r.spawn(w, id.as_u64(), meta));
        }
    }

    /// A wake scheduled a task (`is_yield`: the task woke itself).
    #[inline]
    pub(super) fn trace_wake(&self, id: Id, is_yield: bool) {
        if rt_core::OBSERVE && self.trace.is_some() {
            self.with_trace(|r, w| r.wake(w, id.as_u64(), is_yield));
        }
    }

    /// A task completed or was cancelled (it leaves the owned list).
    #[inline]
    pub(super) fn trace_complete(&self, id: Id) {
        if rt_core::OBSERVE && self.trace.is_some() {
            self.with_trace(|r, w| r.complete(w, id.as_u64()));
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
