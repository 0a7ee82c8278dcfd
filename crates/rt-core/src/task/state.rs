//! The task state word. This file owns its bit layout; nobody else masks these bits.
//!
//! ```text
//!  63                                   6   5   4   3   2   1   0
//! +---------------------------------------+---+---+---+---+---+---+
//! |            reference count            | C | W | J | N | D | R |
//! +---------------------------------------+---+---+---+---+---+---+
//!   R  RUNNING        a thread holds the right to touch the future (poll or drop it)
//!   D  COMPLETE       the future is gone; the stage holds the output (or it was taken)
//!   N  NOTIFIED       a `Notified` reference exists, or the running poller owes a reschedule
//!   J  JOIN_INTEREST  the `JoinHandle` is alive and will read or drop the output
//!   W  JOIN_WAKER     the join waker slot is readable by the completing thread
//!   C  CANCELLED      abort or shutdown asked the task to stop; the next poll drops the future
//! ```
//!
//! Who sets and clears each bit, and when (rule numbers are `task/mod.rs`'s):
//! - `RUNNING`: set by the thread that holds the task's `Notified` (a worker about to poll,
//!   [`State::transition_to_running`]) or by the thread that shuts the task down while it is
//!   idle ([`State::transition_to_shutdown`]); never while `COMPLETE` or already `RUNNING`.
//!   Cleared only by its holder: after a `Pending` poll ([`State::transition_to_idle`]), or
//!   traded for `COMPLETE` ([`State::transition_to_complete`]). Rule 1.
//! - `COMPLETE`: set by the holder of `RUNNING`, once, after it stored the output or the error.
//!   Never cleared; from then on `RUNNING` is never set again.
//! - `NOTIFIED`: set at spawn (the first `Notified`), and by a wake or an abort from any thread
//!   ([`State::transition_to_notified_by_ref`], [`State::transition_to_notified_by_val`],
//!   [`State::transition_to_notified_and_cancel`]) unless the task is complete or already
//!   notified. Cleared only by `transition_to_running`, which consumes the `Notified`. Set while
//!   `RUNNING` it carries no reference: it tells the poller to reschedule (rule 2). It may stay
//!   set on a task that shutdown completed while it was queued; that `Notified` then only drops
//!   its reference.
//! - `JOIN_INTEREST`: set at spawn. Cleared once, by the `JoinHandle`'s drop
//!   ([`State::drop_join_interest`]); never set again.
//! - `JOIN_WAKER`: set by the `JoinHandle` after it wrote the waker slot
//!   ([`State::set_join_waker`]), only while not `COMPLETE`. Cleared by the `JoinHandle` to
//!   replace its waker ([`State::unset_join_waker`], only while not `COMPLETE`) or by its drop
//!   before completion, and by the completing thread after it woke the waker
//!   ([`State::unset_join_waker_after_complete`]). Rules 4 and 6.
//! - `CANCELLED`: set by an abort from any thread or by shutdown, unless `COMPLETE`. Never
//!   cleared; acted on by the next holder of `RUNNING` (rule 7).
//! - Reference count: one per `Task`, `Notified`, `JoinHandle` and `Waker` (rule-free
//!   bookkeeping: [`State::ref_inc`], [`State::ref_dec`]); whoever drops it to zero frees the cell.
//!
//! Every transition is a read-modify-write (CAS loop or `fetch_*`): a plain store racing a CAS on
//! the same word is a bug, and a plain load on the already-notified path would lose wake-ups on
//! weak memory. All transitions use `AcqRel`, so each one synchronises with the previous one.
//!
//! Every transition returns a `#[must_use]` type (an enum, a [`Snapshot`], a `Result` of
//! snapshots, or [`RefDec`]): a caller cannot ignore what it must do next.

use std::fmt;

use crate::sync::{AtomicUsize, Ordering::AcqRel, Ordering::Acquire};

const RUNNING: usize = 0b00_0001;
const COMPLETE: usize = 0b00_0010;
const NOTIFIED: usize = 0b00_0100;
const JOIN_INTEREST: usize = 0b00_1000;
const JOIN_WAKER: usize = 0b01_0000;
const CANCELLED: usize = 0b10_0000;
const FLAGS: usize = 0b11_1111;
const REF_SHIFT: u32 = 6;
const REF_ONE: usize = 1 << REF_SHIFT;

/// The state word of one task.
pub(crate) struct State(AtomicUsize);

/// A decoded copy of the state word.
#[must_use]
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) struct Snapshot(usize);

#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TransitionToRunning {
    /// The caller now holds RUNNING and may poll.
    Success,
    /// The caller holds RUNNING but the task was cancelled: drop the future instead of polling.
    Cancelled,
    /// The task is already complete (cancelled by shutdown while queued): just drop the reference.
    Failed,
}

#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TransitionToIdle {
    /// Back to idle; the poll's reference must be dropped.
    Ok,
    /// Woken during the poll: the poll's reference becomes the new `Notified`; reschedule it.
    OkNotified,
    /// Cancelled during the poll: the caller still holds RUNNING; drop the future.
    Cancelled,
}

#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TransitionToNotified {
    /// Submit a `Notified` to the scheduler (a reference is already accounted for it).
    Submit,
    /// Nothing to do (already notified, running, or complete).
    DoNothing,
    /// Nothing to do and the caller's reference was the last: deallocate.
    Dealloc,
}

#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TransitionToShutdown {
    /// The caller now holds RUNNING: drop the future and complete the task.
    Cancel,
    /// Running elsewhere (that poll sees CANCELLED) or already complete: drop the reference.
    DoNothing,
}

/// After [`State::drop_join_interest`].
#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct JoinInterestDropped {
    /// The state right after the transition.
    pub(crate) after: Snapshot,
    /// The handle's reference went in the same step and was the last: deallocate.
    pub(crate) last_ref: bool,
}

/// After dropping references: whether they were the last.
#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum RefDec {
    /// No reference is left: the caller frees the cell.
    Last,
    /// Others remain.
    Remaining,
}

impl State {
    /// A new task: three references (owned list, first `Notified`, `JoinHandle`), or two for an
    /// unowned task; notified, with join interest.
    pub(crate) fn new(refs: usize) -> State {
        State(AtomicUsize::new(
            (refs * REF_ONE) | NOTIFIED | JOIN_INTEREST,
        ))
    }

    pub(crate) fn load(&self) -> Snapshot {
        Snapshot(self.0.load(Acquire))
    }

    fn fetch_update<T>(&self, mut f: impl FnMut(Snapshot) -> (Option<Snapshot>, T)) -> T {
        let mut curr = self.0.load(Acquire);
        loop {
            let (next, out) = f(Snapshot(curr));
            let Some(next) = next else { return out };
            match self.0.compare_exchange_weak(curr, next.0, AcqRel, Acquire) {
                Ok(_) => return out,
                Err(actual) => curr = actual,
            }
        }
    }

    /// Called with a `Notified` reference in hand, before polling.
    pub(crate) fn transition_to_running(&self) -> TransitionToRunning {
        self.fetch_update(|s| {
            debug_assert!(
                s.is_notified() || s.is_complete(),
                "poll without NOTIFIED: {s:?}"
            );
            if s.is_complete() || s.is_running() {
                // Completed by shutdown, or (never) polled elsewhere: drop our reference.
                return (None, TransitionToRunning::Failed);
            }
            let next = Snapshot((s.0 | RUNNING) & !NOTIFIED);
            let out = if s.is_cancelled() {
                TransitionToRunning::Cancelled
            } else {
                TransitionToRunning::Success
            };
            (Some(next), out)
        })
    }

    /// After a poll returned `Pending`.
    pub(crate) fn transition_to_idle(&self) -> TransitionToIdle {
        self.fetch_update(|s| {
            debug_assert!(s.is_running());
            if s.is_cancelled() {
                return (None, TransitionToIdle::Cancelled);
            }
            let next = Snapshot(s.0 & !RUNNING & !NOTIFIED);
            if s.is_notified() {
                // Keep NOTIFIED: the poll's reference becomes the `Notified` for the reschedule.
                (Some(Snapshot(s.0 & !RUNNING)), TransitionToIdle::OkNotified)
            } else {
                (Some(next), TransitionToIdle::Ok)
            }
        })
    }

    /// After the output (or the cancellation error) was stored: RUNNING -> COMPLETE.
    /// Returns the snapshot after the transition.
    pub(crate) fn transition_to_complete(&self) -> Snapshot {
        let prev = Snapshot(self.0.fetch_xor(RUNNING | COMPLETE, AcqRel));
        debug_assert!(prev.is_running() && !prev.is_complete());
        Snapshot(prev.0 ^ (RUNNING | COMPLETE))
    }

    /// `wake_by_ref`: takes a new reference when it submits.
    pub(crate) fn transition_to_notified_by_ref(&self) -> TransitionToNotified {
        self.fetch_update(|s| {
            if s.is_complete() || s.is_notified() {
                (None, TransitionToNotified::DoNothing)
            } else if s.is_running() {
                (
                    Some(Snapshot(s.0 | NOTIFIED)),
                    TransitionToNotified::DoNothing,
                )
            } else {
                (
                    Some(Snapshot((s.0 | NOTIFIED) + REF_ONE)),
                    TransitionToNotified::Submit,
                )
            }
        })
    }

    /// `wake` (by value): the waker's own reference becomes the `Notified`, or is dropped.
    pub(crate) fn transition_to_notified_by_val(&self) -> TransitionToNotified {
        self.fetch_update(|s| {
            if s.is_running() {
                debug_assert!(s.ref_count() >= 2, "a running task holds a reference");
                (
                    Some(Snapshot((s.0 | NOTIFIED) - REF_ONE)),
                    TransitionToNotified::DoNothing,
                )
            } else if s.is_complete() || s.is_notified() {
                let next = Snapshot(s.0 - REF_ONE);
                let out = if next.ref_count() == 0 {
                    TransitionToNotified::Dealloc
                } else {
                    TransitionToNotified::DoNothing
                };
                (Some(next), out)
            } else {
                (Some(Snapshot(s.0 | NOTIFIED)), TransitionToNotified::Submit)
            }
        })
    }

    /// `abort()`: mark cancelled; submit the task when it is idle so a worker drops the future.
    pub(crate) fn transition_to_notified_and_cancel(&self) -> TransitionToNotified {
        self.fetch_update(|s| {
            if s.is_complete() || s.is_cancelled() {
                (None, TransitionToNotified::DoNothing)
            } else if s.is_running() || s.is_notified() {
                // The poller (or the queued poll) sees CANCELLED and drops the future.
                (
                    Some(Snapshot(s.0 | CANCELLED | NOTIFIED)),
                    TransitionToNotified::DoNothing,
                )
            } else {
                (
                    Some(Snapshot((s.0 | CANCELLED | NOTIFIED) + REF_ONE)),
                    TransitionToNotified::Submit,
                )
            }
        })
    }

    /// Shutdown: mark cancelled, and take RUNNING when the task is idle.
    pub(crate) fn transition_to_shutdown(&self) -> TransitionToShutdown {
        self.fetch_update(|s| {
            if s.is_complete() {
                (None, TransitionToShutdown::DoNothing)
            } else if s.is_running() {
                (
                    Some(Snapshot(s.0 | CANCELLED)),
                    TransitionToShutdown::DoNothing,
                )
            } else {
                (
                    Some(Snapshot(s.0 | CANCELLED | RUNNING)),
                    TransitionToShutdown::Cancel,
                )
            }
        })
    }

    /// The `JoinHandle` stores a waker: sets JOIN_WAKER unless the task completed meanwhile.
    /// `Err` carries the snapshot showing COMPLETE.
    pub(crate) fn set_join_waker(&self) -> Result<Snapshot, Snapshot> {
        self.fetch_update(|s| {
            if s.is_complete() {
                return (None, Err(s));
            }
            debug_assert!(s.is_join_interested() && !s.is_join_waker_set());
            let next = Snapshot(s.0 | JOIN_WAKER);
            (Some(next), Ok(next))
        })
    }

    /// The `JoinHandle` wants to replace its waker: clears JOIN_WAKER unless the task completed.
    pub(crate) fn unset_join_waker(&self) -> Result<Snapshot, Snapshot> {
        self.fetch_update(|s| {
            // Checked first: once COMPLETE, the completing thread may already have cleared
            // JOIN_WAKER (rule 6), after the handle's last load saw it set.
            if s.is_complete() {
                return (None, Err(s));
            }
            debug_assert!(s.is_join_interested() && s.is_join_waker_set());
            let next = Snapshot(s.0 & !JOIN_WAKER);
            (Some(next), Ok(next))
        })
    }

    /// The completing thread has woken the join waker and hands the slot back.
    pub(crate) fn unset_join_waker_after_complete(&self) -> Snapshot {
        let prev = Snapshot(self.0.fetch_and(!JOIN_WAKER, AcqRel));
        debug_assert!(prev.is_complete() && prev.is_join_waker_set());
        Snapshot(prev.0 & !JOIN_WAKER)
    }

    /// The `JoinHandle` is dropped: clears JOIN_INTEREST (and JOIN_WAKER when the task is not yet
    /// complete, taking the waker slot back). Returns the snapshot after the transition and
    /// whether the handle's reference was dropped in the same step (it was the last).
    ///
    /// The reference goes in the same read-modify-write only when it is the last one: then no
    /// other thread can free the cell while the caller still drops the output and waker. Else
    /// the caller drops it separately, after touching the cell.
    ///
    /// With `keep_ref` the handle's reference is not dropped: it passes to an `AbortHandle`
    /// (`JoinHandle::into_abort_handle`), and `last_ref` is always false.
    pub(crate) fn drop_join_interest(&self, keep_ref: bool) -> JoinInterestDropped {
        self.fetch_update(|s| {
            debug_assert!(s.is_join_interested());
            let mut next = s.0 & !JOIN_INTEREST;
            if !s.is_complete() {
                next &= !JOIN_WAKER;
            }
            let last = !keep_ref && s.ref_count() == 1;
            if last {
                next -= REF_ONE;
            }
            let out = JoinInterestDropped {
                after: Snapshot(next),
                last_ref: last,
            };
            (Some(Snapshot(next)), out)
        })
    }

    pub(crate) fn ref_inc(&self) {
        let prev = self.0.fetch_add(REF_ONE, AcqRel);
        // An overflow would be a use-after-free in the making: abort, as `Arc` does.
        if prev > usize::MAX / 2 {
            std::process::abort();
        }
    }

    /// Drops one reference.
    pub(crate) fn ref_dec(&self) -> RefDec {
        self.ref_dec_by(1)
    }

    /// Drops `n` references at once.
    pub(crate) fn ref_dec_by(&self, n: usize) -> RefDec {
        let prev = Snapshot(self.0.fetch_sub(n * REF_ONE, AcqRel));
        debug_assert!(prev.ref_count() >= n, "ref count underflow: {prev:?}");
        if prev.ref_count() == n {
            RefDec::Last
        } else {
            RefDec::Remaining
        }
    }
}

impl Snapshot {
    pub(crate) fn is_running(self) -> bool {
        self.0 & RUNNING != 0
    }
    pub(crate) fn is_complete(self) -> bool {
        self.0 & COMPLETE != 0
    }
    pub(crate) fn is_notified(self) -> bool {
        self.0 & NOTIFIED != 0
    }
    pub(crate) fn is_join_interested(self) -> bool {
        self.0 & JOIN_INTEREST != 0
    }
    pub(crate) fn is_join_waker_set(self) -> bool {
        self.0 & JOIN_WAKER != 0
    }
    pub(crate) fn is_cancelled(self) -> bool {
        self.0 & CANCELLED != 0
    }
    pub(crate) fn ref_count(self) -> usize {
        self.0 >> REF_SHIFT
    }

    /// For a task dump: the task waits (idle: not running, notified or complete) and no
    /// `Waker` of it is alive, so nothing but an abort or shutdown can ever run it again
    /// (tokio-console's "lost waker"). Read from the reference count, with no new bit and no
    /// extra atomic on the waker path: an idle task's references are its owned list's (`owned`:
    /// 1 for a listed task, which a dump holds while it reads), its `JoinHandle`'s (while
    /// `JOIN_INTEREST`), its `AbortHandle`s' and its wakers'. No `Notified` exists while
    /// NOTIFIED is clear, and a running poll's waker borrows the poll's reference. Counting
    /// only the first two means a task with an `AbortHandle` and no waker is not reported (a
    /// false negative, never a false positive).
    pub(crate) fn waits_without_waker(self, owned: usize) -> bool {
        let idle = self.0 & (RUNNING | NOTIFIED | COMPLETE) == 0;
        idle && self.ref_count() <= owned + usize::from(self.is_join_interested())
    }
}

impl fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Snapshot")
            .field("running", &self.is_running())
            .field("complete", &self.is_complete())
            .field("notified", &self.is_notified())
            .field("join_interest", &self.is_join_interested())
            .field("join_waker", &self.is_join_waker_set())
            .field("cancelled", &self.is_cancelled())
            .field("refs", &self.ref_count())
            .finish()
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.load().fmt(f)
    }
}

const _: () = assert!(FLAGS < REF_ONE);
