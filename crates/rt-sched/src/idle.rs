//! Who is idle: the searching/unparked counters and the list of sleeping workers.
//!
//! This file owns the layout of the idle state word; nobody else masks its bits.
//!
//! ```text
//!  63                          16 15                 0
//! +------------------------------+-------------------+
//! |        num_unparked          |   num_searching   |
//! +------------------------------+-------------------+
//! ```
//!
//! Each field, who changes it and when (every change is one `SeqCst` read-modify-write):
//!
//! - `num_searching` (bits 0–15): workers looking for work in other workers' queues.
//!   - +1 by a worker for itself, in [`Idle::transition_worker_to_searching`], when it runs out
//!     of local work and fewer than half the workers search (rule 2);
//!   - +1 by a *notifier* for the sleeper it wakes, in [`Idle::worker_to_notify`] (together
//!     with `num_unparked`): the woken worker comes back searching;
//!   - −1 by a worker for itself, in [`Idle::transition_worker_from_searching`] when it found a
//!     task (rule 3), or in [`Idle::transition_worker_to_parked`] when it parks while searching
//!     (rule 4).
//! - `num_unparked` (bits 16–63): workers not on the sleepers list. Starts at the number of
//!   workers.
//!   - −1 by a worker for itself, in [`Idle::transition_worker_to_parked`], under the sleepers
//!     lock, as it pushes itself on the list;
//!   - +1 by whoever takes a worker off the list, under the same lock: a notifier in
//!     [`Idle::worker_to_notify`], or shutdown / the worker itself (its driver turn woke
//!     tasks onto its own queue) in [`Idle::unpark_worker_by_id`].
//!
//! So `num_unparked` always equals the number of workers minus the sleepers list's length
//! when the lock is free, and `num_searching` ≤ `num_unparked`.
//!
//! The sleepers list (`Mutex<Vec<usize>>`) holds the indices of parked workers; a worker is
//! parked exactly while its index is on it ([`Idle::is_parked`]).
//!
//! The protocol (tokio's, which is proven in its loom suite and re-checked in ours,
//! `loom-tests/tests/idle.rs`):
//!
//! 1. A scheduler that queued a task calls [`Idle::notify_should_wakeup`]: it wakes a sleeper
//!    only when nobody is searching and some worker sleeps. Searching workers will find the task.
//! 2. At most half the workers search at once ([`Idle::transition_worker_to_searching`]).
//! 3. A searcher that finds work leaves the searching state; if it was the last searcher it
//!    wakes another worker, so that while there is work someone keeps looking.
//! 4. A worker that parks while it was the last searcher re-checks every queue after
//!    decrementing the counters (both sides use SeqCst): either the queuing thread saw the
//!    searcher and skipped the wake, and then the searcher's re-check sees the task; or the
//!    queuing thread sees no searcher and wakes someone. No wake-up is lost.
//!
//! Every transition returns a `#[must_use]` type that names its outcome.

use std::fmt;

use rt_core::sync::{fence, AtomicUsize, Mutex, Ordering::SeqCst};

const SEARCH_MASK: usize = (1 << 16) - 1;
const UNPARK_SHIFT: usize = 16;
const UNPARK_ONE: usize = 1 << UNPARK_SHIFT;

/// The decoded idle word.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Counts(usize);

impl Counts {
    fn num_searching(self) -> usize {
        self.0 & SEARCH_MASK
    }

    fn num_unparked(self) -> usize {
        self.0 >> UNPARK_SHIFT
    }
}

impl fmt::Debug for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Counts")
            .field("num_searching", &self.num_searching())
            .field("num_unparked", &self.num_unparked())
            .finish()
    }
}

/// Who to wake for a queued task ([`Idle::worker_to_notify`]).
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Notify {
    /// Unpark this worker: it is off the sleepers list and counted as searching.
    Worker(usize),
    /// Somebody is searching, or nobody sleeps: no unpark needed.
    NotNeeded,
}

/// What [`Idle::transition_worker_to_searching`] decided (rule 2).
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToSearching {
    /// The worker is now counted as searching.
    Searching,
    /// Half the workers already search: this one must not.
    TooManySearching,
}

/// What a worker leaving the searching state learns (rules 3 and 4).
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LeftSearching {
    /// It was the last searcher: wake another (rule 3) or re-check every queue (rule 4).
    WasLastSearcher,
    /// Others still search (or it was not searching).
    OthersSearching,
}

/// What [`Idle::unpark_worker_by_id`] did.
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnparkById {
    /// The worker was on the sleepers list and is now off it (counted unparked, not searching).
    Unparked,
    /// It was not on the list: somebody else woke it already.
    NotParked,
}

pub(crate) struct Idle {
    /// The idle word (layout above).
    state: AtomicUsize,
    num_workers: usize,
    /// Indices of parked workers.
    sleepers: Mutex<Vec<usize>>,
}

impl fmt::Debug for Idle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Idle")
            .field("state", &Counts(self.state.load(SeqCst)))
            .field("num_workers", &self.num_workers)
            .finish_non_exhaustive()
    }
}

impl Idle {
    pub(crate) fn new(num_workers: usize) -> Idle {
        assert!(num_workers < SEARCH_MASK);
        Idle {
            state: AtomicUsize::new(num_workers << UNPARK_SHIFT),
            num_workers,
            sleepers: Mutex::new(Vec::with_capacity(num_workers)),
        }
    }

    fn counts(&self) -> Counts {
        Counts(self.state.load(SeqCst))
    }

    /// Workers not parked now (a SeqCst load; for auto-advance's "all idle" check).
    pub(crate) fn num_unparked(&self) -> usize {
        self.counts().num_unparked()
    }

    /// Rule 1: called after a task was queued.
    #[inline]
    #[must_use]
    pub(crate) fn notify_should_wakeup(&self) -> bool {
        fence(SeqCst);
        let c = self.counts();
        c.num_searching() == 0 && c.num_unparked() < self.num_workers
    }

    /// Picks a sleeper to wake (it comes back searching), or none if waking is not needed.
    pub(crate) fn worker_to_notify(&self) -> Notify {
        if !self.notify_should_wakeup() {
            return Notify::NotNeeded;
        }
        let mut sleepers = self.sleepers.lock().unwrap();
        if !self.notify_should_wakeup() {
            return Notify::NotNeeded;
        }
        let Some(idx) = sleepers.pop() else {
            return Notify::NotNeeded;
        };
        // One more unparked worker, and it is searching.
        self.state.fetch_add(UNPARK_ONE | 1, SeqCst);
        Notify::Worker(idx)
    }

    /// Rule 2.
    pub(crate) fn transition_worker_to_searching(&self) -> ToSearching {
        if 2 * self.counts().num_searching() >= self.num_workers {
            return ToSearching::TooManySearching;
        }
        self.state.fetch_add(1, SeqCst);
        ToSearching::Searching
    }

    /// Rule 3: a searcher found work.
    pub(crate) fn transition_worker_from_searching(&self) -> LeftSearching {
        let prev = Counts(self.state.fetch_sub(1, SeqCst));
        debug_assert!(prev.num_searching() > 0);
        if prev.num_searching() == 1 {
            LeftSearching::WasLastSearcher
        } else {
            LeftSearching::OthersSearching
        }
    }

    /// Rule 4: worker `index` goes on the sleepers list. `WasLastSearcher`: the caller must
    /// re-check the queues.
    pub(crate) fn transition_worker_to_parked(
        &self,
        index: usize,
        is_searching: bool,
    ) -> LeftSearching {
        let mut sleepers = self.sleepers.lock().unwrap();
        let dec = UNPARK_ONE + usize::from(is_searching);
        let prev = Counts(self.state.fetch_sub(dec, SeqCst));
        sleepers.push(index);
        if is_searching && prev.num_searching() == 1 {
            LeftSearching::WasLastSearcher
        } else {
            LeftSearching::OthersSearching
        }
    }

    /// Whether `index` is still in the sleepers list (a wake-up without a notify is spurious).
    #[must_use]
    pub(crate) fn is_parked(&self, index: usize) -> bool {
        self.sleepers.lock().unwrap().contains(&index)
    }

    /// Takes `index` off the sleepers list (shutdown, or the worker itself when its driver
    /// turn woke tasks onto its own queue).
    pub(crate) fn unpark_worker_by_id(&self, index: usize) -> UnparkById {
        let mut sleepers = self.sleepers.lock().unwrap();
        if let Some(pos) = sleepers.iter().position(|&i| i == index) {
            sleepers.swap_remove(pos);
            self.state.fetch_add(UNPARK_ONE, SeqCst);
            UnparkById::Unparked
        } else {
            UnparkById::NotParked
        }
    }
}
