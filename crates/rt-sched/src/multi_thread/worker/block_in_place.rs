//! `block_in_place`: a worker lends its context to a substitute thread for the length of a
//! blocking closure (the lend protocol is `multi_thread/lend.rs`'s).

use super::*;

/// `super::block_in_place`'s body: lends this thread's worker context to a substitute for the
/// length of `f` (the lend protocol is `lend.rs`'s). `Err(f)` when this thread runs no worker
/// loop.
pub(crate) fn block_in_place<F: FnOnce() -> R, R>(f: F) -> Result<R, F> {
    let p = CURRENT_WORKER.try_with(|c| c.get()).unwrap_or(ptr::null());
    if p.is_null() {
        return Err(f);
    }
    // SAFETY: non-null only while `run` (which owns the context) is on this thread's stack,
    // below this call.
    let cx = unsafe { &*p };
    // Points into the `Arc`, not into the context, which the substitute may use meanwhile.
    let shared: &Shared = &cx.handle.shared;
    let index = cx.index;
    // Ours, if this thread is itself a substitute; restored when the context is back.
    let saved = cx.reclaim.get();
    // A worker's own lends reuse its record; a substitute lending on (a chain) needs its own,
    // as its lender's record is claimed.
    let chained;
    let record = if saved.is_null() {
        &shared.lends[index]
    } else {
        chained = rt_core::sync::Arc::new(LendRecord::new());
        &chained
    };
    // Rule 2: from here until `Lent`'s drop, this thread does not touch `cx`.
    CURRENT_WORKER.with(|c| c.set(ptr::null()));
    if let Armed::QueueJob = record.arm() {
        let job = Job::new(record.clone(), p);
        if let Err(e) = shared.lend_pool.spawner().spawn_raw(move || job.run()) {
            tracing::warn!(error = %e, "block_in_place: could not start a substitute thread; the worker's queued tasks wait for the closure");
        }
    }
    let _lent = Lent {
        cx: p,
        index,
        shared,
        record,
        saved,
        driving: rt_core::driving::set_driving(false),
    };
    Ok(f())
}

/// The substitute's body, on a lend-pool thread: the lender's worker loop, until reclaimed
/// (`flag`) or shutdown.
pub(in crate::multi_thread) fn substitute(cx: &WorkerContext, flag: &AtomicBool) {
    rt_core::pool::set_thread_mode(rt_core::pool::ThreadMode::Recycling);
    if let Some(d) = &cx.handle.shared.io_driver {
        d.bind_worker(cx.index);
        if cx.owns_shard {
            d.bind_thread(cx.shard);
        }
    }
    cx.reclaim.set(flag);
    let prev = CURRENT_WORKER.with(|c| c.replace(cx));
    let _reset = ResetCurrentWorker(prev);
    cx.run_loop(|| cx.reclaimed());
}

/// Takes a lent context back when `f` returns or unwinds.
struct Lent<'a> {
    cx: *const WorkerContext,
    index: usize,
    shared: &'a Shared,
    record: &'a LendRecord,
    /// The context's `reclaim` before the lend (this thread's own flag, if a substitute).
    saved: *const AtomicBool,
    driving: bool,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        rt_core::driving::set_driving(self.driving);
        if !self.record.disarm() {
            // Rule 3: set the flag, then wake the substitute wherever it sleeps; its park
            // re-checks the flag after publishing `on_driver` (both SeqCst), so the wake is not
            // lost. Then wait until it has stopped.
            self.record
                .reclaim(|| self.shared.unpark_worker(self.index));
        }
        // SAFETY: the context is this thread's again (the disarm won, or the substitute
        // released it), and outlives this call (it is on this thread's stack, below us).
        let cx = unsafe { &*self.cx };
        cx.reclaim.set(self.saved);
        let _ = CURRENT_WORKER.try_with(|c| c.set(self.cx));
    }
}
