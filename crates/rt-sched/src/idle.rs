//! Who is idle: the searching/unparked counters and the list of sleeping workers.
//!
//! This file owns the layout of the idle state word:
//!
//! ```text
//!  63                          16 15                 0
//! +------------------------------+-------------------+
//! |        num_unparked          |   num_searching   |
//! +------------------------------+-------------------+
//! ```
//!
//! The protocol (tokio's, which is proven in its loom suite and re-checked in ours):
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

use rt_core::sync::{fence, AtomicUsize, Mutex, Ordering::SeqCst};

const SEARCH_MASK: usize = (1 << 16) - 1;
const UNPARK_SHIFT: usize = 16;
const UNPARK_ONE: usize = 1 << UNPARK_SHIFT;

#[derive(Debug)]
pub(crate) struct Idle {
    state: AtomicUsize,
    num_workers: usize,
    /// Indices of parked workers.
    sleepers: Mutex<Vec<usize>>,
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

    fn num_searching(s: usize) -> usize {
        s & SEARCH_MASK
    }

    fn num_unparked(s: usize) -> usize {
        s >> UNPARK_SHIFT
    }

    /// Rule 1: called after a task was queued.
    #[inline]
    pub(crate) fn notify_should_wakeup(&self) -> bool {
        fence(SeqCst);
        let s = self.state.load(SeqCst);
        Self::num_searching(s) == 0 && Self::num_unparked(s) < self.num_workers
    }

    /// Picks a sleeper to wake (it comes back searching), or `None` if waking is not needed.
    pub(crate) fn worker_to_notify(&self) -> Option<usize> {
        if !self.notify_should_wakeup() {
            return None;
        }
        let mut sleepers = self.sleepers.lock().unwrap();
        if !self.notify_should_wakeup() {
            return None;
        }
        let idx = sleepers.pop()?;
        // One more unparked worker, and it is searching.
        self.state.fetch_add(UNPARK_ONE | 1, SeqCst);
        Some(idx)
    }

    /// Rule 2. Returns whether the worker may search.
    pub(crate) fn transition_worker_to_searching(&self) -> bool {
        let s = self.state.load(SeqCst);
        if 2 * Self::num_searching(s) >= self.num_workers {
            return false;
        }
        self.state.fetch_add(1, SeqCst);
        true
    }

    /// Rule 3. Returns whether this was the last searcher.
    pub(crate) fn transition_worker_from_searching(&self) -> bool {
        let prev = self.state.fetch_sub(1, SeqCst);
        debug_assert!(Self::num_searching(prev) > 0);
        Self::num_searching(prev) == 1
    }

    /// Rule 4. Returns whether this was the last searcher (the caller must re-check the queues).
    pub(crate) fn transition_worker_to_parked(&self, index: usize, is_searching: bool) -> bool {
        let mut sleepers = self.sleepers.lock().unwrap();
        let dec = UNPARK_ONE + usize::from(is_searching);
        let prev = self.state.fetch_sub(dec, SeqCst);
        sleepers.push(index);
        is_searching && Self::num_searching(prev) == 1
    }

    /// Whether `index` is still in the sleepers list (a wake-up without a notify is spurious).
    pub(crate) fn is_parked(&self, index: usize) -> bool {
        self.sleepers.lock().unwrap().contains(&index)
    }

    /// Shutdown: take `index` out of the sleepers so it runs to its exit.
    pub(crate) fn unpark_worker_by_id(&self, index: usize) -> bool {
        let mut sleepers = self.sleepers.lock().unwrap();
        if let Some(pos) = sleepers.iter().position(|&i| i == index) {
            sleepers.swap_remove(pos);
            self.state.fetch_add(UNPARK_ONE, SeqCst);
            true
        } else {
            false
        }
    }

    /// For tests and metrics: (searching, unparked).
    pub(crate) fn counts(&self) -> (usize, usize) {
        let s = self.state.load(SeqCst);
        (Self::num_searching(s), Self::num_unparked(s))
    }
}
