//! The typed operations on a task cell: poll, complete, cancel, join, dealloc.
//!
//! Every function here follows the rules in `task/mod.rs`; comments cite them by number.

use std::future::Future;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

use super::core::{Header, TaskCell};
use super::error::JoinError;
use super::id::IdGuard;
use super::raw::RawTask;
use super::state::{
    JoinInterestDropped, RefDec, Snapshot, TransitionToIdle, TransitionToNotified,
    TransitionToRunning, TransitionToShutdown,
};
use super::{Notified, Schedule, Task};

pub(crate) struct Harness<F: Future, S: 'static> {
    cell: NonNull<TaskCell<F, S>>,
}

impl<F: Future, S: Schedule> Harness<F, S> {
    /// # Safety
    /// `ptr` points at a live `TaskCell<F, S>`.
    pub(crate) unsafe fn from_raw(ptr: NonNull<Header>) -> Harness<F, S> {
        Harness { cell: ptr.cast() }
    }

    fn cell(&self) -> &TaskCell<F, S> {
        // SAFETY: the harness is only built over a live cell.
        unsafe { self.cell.as_ref() }
    }

    fn header(&self) -> &Header {
        &self.cell().header
    }

    fn raw(&self) -> RawTask {
        // SAFETY: the cell is live.
        unsafe { RawTask::from_raw(self.cell.cast()) }
    }

    // ===== poll =====

    /// Polls the future once; consumes the caller's `Notified` reference.
    pub(crate) fn poll(self) {
        match self.header().state.transition_to_running() {
            TransitionToRunning::Success => {}
            TransitionToRunning::Cancelled => {
                self.cancel_future();
                return self.complete();
            }
            TransitionToRunning::Failed => return self.raw().drop_reference(),
        }
        let id = self.header().id;
        tracing::trace!(task.id = id.as_u64(), "poll");
        if crate::OBSERVE {
            if let Some(stats) = self.header().meta.stats() {
                stats.on_poll();
            }
        }
        let waker = ManuallyDrop::new(super::waker::waker_ref(self.raw()));
        let mut cx = Context::from_waker(&waker);
        // The task's span (if it has one) covers the poll.
        let span = self.header().meta.span().map(tracing::Span::enter);
        let res = {
            let _id = IdGuard::enter(id);
            // SAFETY: rule 1: we hold RUNNING, so the stage is ours.
            unsafe {
                self.cell().poll_future(|fut| {
                    crate::coop::budget_for(self.header().meta.priority(), || fut.poll(&mut cx))
                })
            }
        };
        // Left before anything below can drop the last reference (the span lives in the cell).
        drop(span);
        match res {
            Ok(Poll::Ready(out)) => {
                let dropped = self.drop_stage();
                self.store_output(match dropped {
                    Ok(()) => Ok(out),
                    Err(p) => {
                        drop(out);
                        Err(JoinError::panic(id, p))
                    }
                });
                self.complete();
            }
            Ok(Poll::Pending) => match self.header().state.transition_to_idle() {
                TransitionToIdle::Ok => self.raw().drop_reference(),
                TransitionToIdle::OkNotified => {
                    // SAFETY: the poll's reference becomes the `Notified` (rule 3).
                    let notified = unsafe { Notified::<S>::from_raw(self.raw()) };
                    self.cell().scheduler.yield_now(notified);
                }
                TransitionToIdle::Cancelled => {
                    self.cancel_future();
                    self.complete();
                }
            },
            Err(panic) => {
                // A panicking poll: its future was dropped during the unwind (`poll_future`).
                let panic = self.cell().scheduler.unhandled_panic(panic);
                self.store_output(Err(JoinError::panic(id, panic)));
                self.complete();
            }
        }
    }

    /// Submits the task (consumes a `Notified` reference).
    pub(crate) fn schedule(self) {
        // SAFETY: the caller hands over a `Notified` reference.
        let notified = unsafe { Notified::<S>::from_raw(self.raw()) };
        self.cell().scheduler.schedule(notified);
    }

    /// Drops whatever the stage holds, containing a panic from its `Drop`.
    /// Caller holds the stage (rule 1 or rule 5).
    fn drop_stage(&self) -> std::thread::Result<()> {
        // SAFETY: the caller owns the stage.
        catch_unwind(AssertUnwindSafe(|| unsafe { self.cell().drop_stage() }))
    }

    /// Caller holds RUNNING; the stage is consumed.
    fn store_output(&self, out: Result<F::Output, JoinError>) {
        // SAFETY: rule 1, and the stage holds nothing.
        unsafe { self.cell().store_output(out) }
    }

    /// Drops the future for abort or shutdown and stores the error. Caller holds RUNNING.
    fn cancel_future(&self) {
        let id = self.header().id;
        let err = match self.drop_stage() {
            Ok(()) => JoinError::cancelled(id),
            Err(p) => JoinError::panic(id, p),
        };
        tracing::trace!(task.id = id.as_u64(), "cancelled");
        self.store_output(Err(err));
    }

    /// RUNNING -> COMPLETE; notify the `JoinHandle`; leave the owned list; drop the poll's
    /// reference (and the list's).
    fn complete(self) {
        tracing::trace!(task.id = self.header().id.as_u64(), "complete");
        let snapshot = self.header().state.transition_to_complete();
        if !snapshot.is_join_interested() {
            // Rule 5: nobody will read the output, so the completing thread drops it.
            let _ = self.drop_stage();
        } else if snapshot.is_join_waker_set() {
            // Rule 4: JOIN_WAKER is set, so the slot is ours to read.
            self.trailer_waker(|w| {
                if let Some(w) = w {
                    w.wake_by_ref();
                }
            });
            let after = self.header().state.unset_join_waker_after_complete();
            if !after.is_join_interested() {
                // The JoinHandle went away meanwhile and left the waker to us (rule 6).
                self.take_trailer_waker();
            }
        }
        // SAFETY: a view of the task that does not own the list's reference.
        let me = ManuallyDrop::new(unsafe { Task::<S>::from_raw(self.raw()) });
        let released = self.cell().scheduler.release(&me);
        let refs = match released {
            Some(task) => {
                std::mem::forget(task);
                2
            }
            None => 1,
        };
        if self.header().state.ref_dec_by(refs) == RefDec::Last {
            self.dealloc();
        }
    }

    fn trailer_waker<R>(&self, f: impl FnOnce(&Option<Waker>) -> R) -> R {
        // SAFETY: callers hold read access to the slot per rules 4 and 6.
        self.cell().trailer.waker.with(|w| f(unsafe { &*w }))
    }

    fn take_trailer_waker(&self) -> Option<Waker> {
        let slot = &self.cell().trailer.waker;
        // SAFETY: callers hold exclusive access to the slot per rules 4 and 6.
        slot.with_mut(|w| unsafe { (*w).take() })
    }

    fn set_trailer_waker(&self, waker: Option<Waker>) {
        let slot = &self.cell().trailer.waker;
        // SAFETY: the JoinHandle holds exclusive access (JOIN_WAKER clear, rule 4).
        slot.with_mut(|w| unsafe { *w = waker });
    }

    // ===== shutdown =====

    /// Cancels the task at shutdown; consumes one reference.
    pub(crate) fn shutdown(self) {
        if self.header().state.transition_to_shutdown() == TransitionToShutdown::DoNothing {
            // Running elsewhere (it sees CANCELLED after its poll) or already complete.
            return self.raw().drop_reference();
        }
        self.cancel_future();
        self.complete();
    }

    // ===== join =====

    pub(crate) fn try_read_output(self, dst: &mut Poll<Result<F::Output, JoinError>>, w: &Waker) {
        if self.can_read_output(w) {
            *dst = Poll::Ready(self.take_output());
        }
    }

    /// Rule 4: store or refresh the join waker, unless the task is complete.
    fn can_read_output(&self, waker: &Waker) -> bool {
        let state = &self.header().state;
        let snapshot = state.load();
        if snapshot.is_complete() {
            return true;
        }
        let res = if !snapshot.is_join_waker_set() {
            self.set_join_waker(waker.clone())
        } else {
            if self.trailer_waker(|w| w.as_ref().is_some_and(|w| w.will_wake(waker))) {
                return false;
            }
            match state.unset_join_waker() {
                Ok(_) => self.set_join_waker(waker.clone()),
                Err(s) => Err(s),
            }
        };
        match res {
            Ok(_) => false,
            Err(s) => {
                debug_assert!(s.is_complete());
                true
            }
        }
    }

    fn set_join_waker(&self, waker: Waker) -> Result<Snapshot, Snapshot> {
        self.set_trailer_waker(Some(waker));
        let res = self.header().state.set_join_waker();
        if res.is_err() {
            // Completed before we published the waker: it is still ours; drop it.
            self.set_trailer_waker(None);
        }
        res
    }

    /// Rule 5: COMPLETE and JOIN_INTEREST, so the output is the JoinHandle's.
    fn take_output(&self) -> Result<F::Output, JoinError> {
        // SAFETY: rule 5.
        unsafe { self.cell().take_output() }
    }

    /// Drops the join interest; with `keep_ref` the handle's reference survives (it became an
    /// `AbortHandle`'s), else it is dropped too.
    pub(crate) fn drop_join_handle(self, keep_ref: bool) {
        let JoinInterestDropped {
            after: snapshot,
            last_ref: was_last,
        } = self.header().state.drop_join_interest(keep_ref);
        if snapshot.is_complete() {
            // Rule 5: the output is ours; a panic in its `Drop` must not reach the dropper.
            let _ = self.drop_stage();
        }
        if !snapshot.is_join_waker_set() {
            // Rule 6: the slot is ours again.
            drop(self.take_trailer_waker());
        }
        if keep_ref {
            return;
        }
        if was_last {
            self.dealloc();
        } else {
            self.raw().drop_reference();
        }
    }

    // ===== dealloc =====

    pub(crate) fn dealloc(self) {
        // The vtable's layout, known at compile time here, so the pool's class folds.
        let layout = std::alloc::Layout::new::<TaskCell<F, S>>();
        debug_assert_eq!(layout, self.header().vtable.layout);
        let pooled = self.header().pooled;
        // The stage is normally `Consumed` here; drop it (and the scheduler handle) anyway,
        // containing any panic so deallocation always completes.
        let ptr = self.cell.as_ptr();
        // SAFETY: the last reference is gone: nobody else can touch the cell.
        let _ = catch_unwind(AssertUnwindSafe(|| unsafe { std::ptr::drop_in_place(ptr) }));
        if pooled {
            // SAFETY: the cell came from `pool::alloc(layout)` and is not used again.
            unsafe { crate::pool::dealloc(self.cell.cast(), layout) };
        } else {
            // SAFETY: the cell came from `std::alloc::alloc(layout)`.
            unsafe { std::alloc::dealloc(ptr.cast(), layout) };
        }
    }
}

/// A named task's wake, for its dump statistics: out of line, so that an unnamed task's wake
/// pays one bit test and no spills for the clock read.
#[cold]
#[inline(never)]
fn record_wake(stats: &super::dump::Stats) {
    stats.on_wake();
}

/// `wake` / `wake_by_ref` land here.
pub(crate) fn wake_by_val(raw: RawTask) {
    tracing::trace!(task.id = raw.header().id.as_u64(), "wake");
    if crate::OBSERVE {
        if let Some(stats) = raw.header().meta.stats() {
            record_wake(stats);
        }
    }
    match raw.header().state.transition_to_notified_by_val() {
        TransitionToNotified::Submit => raw.schedule(),
        TransitionToNotified::DoNothing => {}
        TransitionToNotified::Dealloc => raw.dealloc(),
    }
}

pub(crate) fn wake_by_ref(raw: RawTask) {
    tracing::trace!(task.id = raw.header().id.as_u64(), "wake");
    if crate::OBSERVE {
        if let Some(stats) = raw.header().meta.stats() {
            record_wake(stats);
        }
    }
    match raw.header().state.transition_to_notified_by_ref() {
        TransitionToNotified::Submit => raw.schedule(),
        TransitionToNotified::DoNothing => {}
        TransitionToNotified::Dealloc => unreachable!("wake_by_ref never drops a reference"),
    }
}
