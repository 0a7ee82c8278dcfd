//! One lend of a worker's context to a substitute (`super::block_in_place`, rules 1-5 in the
//! module docs of `multi_thread`): the record that a lender and its substitute share, its state
//! word (this file owns its layout), and the job that a pool thread runs.
//!
//! A lend neither starts a thread nor, most of the time, waits for one. The lender arms its
//! record and queues a job on the scheduler's lend pool (a `blocking::BlockingPool` of its
//! own, threads kept 10 s); the job *claims* the lend when a pool thread gets to it. If the
//! closure returns first, the lender disarms the record with one CAS and goes on: the substitute
//! never touched the context. Only a claimed lend costs the reclaim (flag, wake, wait for the
//! substitute to stop). A worker's own record is reused lend after lend; while its job is still
//! queued (the pool thread not yet awake), the next lend re-arms it instead of queuing another,
//! so a task calling `block_in_place` in a loop costs two CASes per call, not a thread wake
//! per call. tokio's `block_in_place` is lazy the same way: its blocking-pool job finds the core
//! already taken back and returns.
//!
//! The state word, three bits:
//!
//! | bit       | set by                              | cleared by                                 |
//! |-----------|-------------------------------------|--------------------------------------------|
//! | `QUEUED`  | `arm`, when it queues a job         | the job, when it starts (or is dropped unrun) |
//! | `ARMED`   | `arm`                               | `disarm` (closure done, lend not claimed), or the claim |
//! | `CLAIMED` | the job's claim (`ARMED` → `CLAIMED`) | `Job::run` after the substitute stopped (under `done`) |
//!
//! `ARMED` and `CLAIMED` are never both set. The lender alone sets `ARMED` and reads `CLAIMED`
//! to choose its way back; the claim and the disarm race on one CAS each, so exactly one of them
//! wins: the substitute uses the context only after winning, and the lender only after winning
//! or after seeing `CLAIMED` cleared under `done` (which orders the substitute's last use before
//! the lender's next: rule 1). Modelled in `loom-tests/tests/block_in_place.rs`.

use rt_core::sync::{Arc, AtomicBool, AtomicUsize, Condvar, Mutex, Ordering};

use super::worker::WorkerContext;

/// A job for this record is queued on the lend pool and has not started.
const QUEUED: usize = 0b001;
/// A lend is on: the lender runs its closure and wants a substitute.
const ARMED: usize = 0b010;
/// A substitute runs the lent context.
const CLAIMED: usize = 0b100;

/// What a lender and its substitute share. A worker's own lends reuse one record
/// (`Shared::lends`); a lend from a substitute (a chain) makes its own.
pub(crate) struct LendRecord {
    state: AtomicUsize,
    /// The reclaim flag of the current lend (the substitute's `WorkerContext::reclaim` points
    /// here while it runs).
    flag: AtomicBool,
    /// Guards the clearing of `CLAIMED`, so the lender can wait for it.
    done: Mutex<()>,
    released: Condvar,
}

/// How `arm` left the record.
pub(super) enum Armed {
    /// A job of an earlier lend is still queued and will find this lend: nothing to queue.
    Queued,
    /// The caller must queue a job ([`Job::new`]) on the lend pool.
    QueueJob,
}

impl LendRecord {
    pub(crate) fn new() -> LendRecord {
        LendRecord {
            state: AtomicUsize::new(0),
            flag: AtomicBool::new(false),
            done: Mutex::new(()),
            released: Condvar::new(),
        }
    }

    /// The lender, before its closure: arms the record for a substitute.
    pub(super) fn arm(&self) -> Armed {
        // No substitute of an earlier lend runs (the lender waited for it), so nobody reads
        // the flag; the arming CAS (Release) publishes it to the claim (Acquire).
        self.flag.store(false, Ordering::Relaxed);
        let mut s = self.state.load(Ordering::Acquire);
        loop {
            debug_assert_eq!(s & (ARMED | CLAIMED), 0, "a record armed twice");
            let (next, armed) = if s & QUEUED != 0 {
                (s | ARMED, Armed::Queued)
            } else {
                (s | ARMED | QUEUED, Armed::QueueJob)
            };
            match self
                .state
                .compare_exchange(s, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return armed,
                Err(actual) => s = actual,
            }
        }
    }

    /// The lender, after its closure: `true` if the lend was never claimed (now disarmed: the
    /// context is the lender's again at once); `false` if a substitute runs it (call
    /// [`reclaim`](Self::reclaim)).
    pub(super) fn disarm(&self) -> bool {
        let mut s = self.state.load(Ordering::Acquire);
        loop {
            if s & CLAIMED != 0 {
                return false;
            }
            debug_assert_ne!(s & ARMED, 0, "disarming a record that is not armed");
            match self
                .state
                .compare_exchange(s, s & !ARMED, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return true,
                Err(actual) => s = actual,
            }
        }
    }

    /// The lender, after a failed `disarm`: asks the substitute to stop (`wake` must wake it
    /// wherever it sleeps; rule 3) and waits until it has.
    pub(super) fn reclaim(&self, wake: impl FnOnce()) {
        self.flag.store(true, Ordering::SeqCst);
        wake();
        let mut g = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while self.state.load(Ordering::Acquire) & CLAIMED != 0 {
            g = self.released.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The reclaim flag of the current lend.
    pub(super) fn flag(&self) -> &AtomicBool {
        &self.flag
    }

    /// The job, as it starts: claims the lend if one is armed.
    fn claim(&self) -> bool {
        let mut s = self.state.load(Ordering::Acquire);
        loop {
            debug_assert_ne!(s & QUEUED, 0, "a job of a record that has none queued");
            let next = if s & ARMED != 0 { CLAIMED } else { s & !QUEUED };
            match self
                .state
                .compare_exchange(s, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return next == CLAIMED,
                Err(actual) => s = actual,
            }
        }
    }

    /// The substitute has stopped using the context: releases the lender.
    fn release(&self) {
        let g = self.done.lock().unwrap_or_else(|e| e.into_inner());
        self.state.fetch_and(!CLAIMED, Ordering::Release);
        drop(g);
        self.released.notify_all();
    }
}

/// The lend pool's unit of work: claim the record's lend, if any, and serve it.
pub(super) struct Job {
    /// `None` once run.
    record: Option<Arc<LendRecord>>,
    cx: *const WorkerContext,
}

// SAFETY: the context behind `cx` is used only after a successful claim, and by one thread at
// a time: the lender stops using it before it arms the record and uses it again only after
// winning the disarm or seeing the claim released (module docs; rule 1 of `block_in_place`).
unsafe impl Send for Job {}

impl Job {
    /// A job for the lend of `cx` that `record` is armed for (`Armed::QueueJob`).
    pub(super) fn new(record: Arc<LendRecord>, cx: *const WorkerContext) -> Job {
        Job {
            record: Some(record),
            cx,
        }
    }

    /// On a pool thread: serves the armed lend, if the lender has not taken it back yet.
    pub(super) fn run(mut self) {
        let record = self.record.take().expect("a job runs once");
        if !record.claim() {
            return;
        }
        // Releases the lender even if the loop unwinds (a bug in the loop itself: tasks catch
        // their own panics), as the join of a substitute thread used to.
        struct Release<'a>(&'a LendRecord);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                self.0.release();
            }
        }
        let _release = Release(&record);
        // SAFETY: the claim succeeded, so the lender does not touch the context until
        // `release` (above, on every way out of this scope), and keeps it alive until then: it
        // neither returns nor unwinds past its reclaim, which waits for the release.
        let cx = unsafe { &*self.cx };
        super::worker::substitute(cx, record.flag());
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        // Dropped unrun (the pool shut down, or had no thread): no job is queued any more, so
        // the next lend must queue its own; the lender's disarm still wins.
        if let Some(record) = self.record.take() {
            record.state.fetch_and(!QUEUED, Ordering::AcqRel);
        }
    }
}
