//! Who is idle: the searching/unparked counters and the list of sleeping workers.
//!
//! This file owns the layout of the idle state word; nobody else masks its bits.
//!
//! ```text
//!  63         62                       16 15                 0
//! +----------+---------------------------+-------------------+
//! | ASLEEP   |       num_unparked        |   num_searching   |
//! +----------+---------------------------+-------------------+
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
//! - `ASLEEP` (bit 63): the stall monitor sleeps without a timeout ("The monitor's doze").
//!   - set by the monitor, in [`Idle::try_doze`], with a compare-exchange that succeeds only
//!     while `num_unparked` is 0;
//!   - cleared by the first worker out of its park, in [`Idle::rouse_monitor`], which then
//!     wakes the monitor.
//!
//! So `num_unparked` always equals the number of workers minus the sleepers list's length
//! when the lock is free, and `num_searching` ≤ `num_unparked`.
//!
//! The monitor's doze: a runtime whose workers are all parked runs no poll, so stall
//! detection has nothing to watch, and its monitor thread sleeps until a worker unparks
//! instead of sampling every few milliseconds (a runtime with nothing to do makes no
//! wake-ups).
//!
//! D1. The monitor sets `ASLEEP` only in a compare-exchange from a word whose `num_unparked` is
//!     0, then waits (under its detector's lock) while `ASLEEP` stays set.
//! D2. Every worker that leaves its park reads the word after its own unpark (the `SeqCst`
//!     read-modify-write that took it off the sleepers list, by a notifier or by itself, under
//!     the sleepers lock it has taken since); if `ASLEEP` is set it clears it (`fetch_and`) and,
//!     if its clear was the one that did, wakes the monitor under the detector's lock.
//!
//! The word has one modification order: a compare-exchange that set `ASLEEP` came before the
//! unpark's increment (after it, `num_unparked` would not have been 0), so the increment's
//! value, and every later read of the word, holds `ASLEEP` until some worker clears it — and
//! that worker wakes the monitor. So the monitor never sleeps past a worker's unpark. A worker
//! pays one load per park (a plain load on x86). Modelled in `loom-tests/tests/monitor_doze.rs`.
//!
//! `max_awake` (fixed at build, at most the number of workers): a notifier wakes a sleeper only
//! while fewer than `max_awake` workers are unparked. The scheduler sets it to the machine's
//! parallelism (`multi_thread::Config::max_awake`): with more workers than CPUs, a further
//! awake worker adds no CPU, only threads that take turns on the cores and get descheduled
//! holding stolen tasks (`cargo bench --bench scaling -- oversubscription`). With `max_awake` equal
//! to the number of workers (the case whenever workers ≤ CPUs) the cap never applies.
//!
//! The sleepers list (`Mutex<Vec<usize>>`) holds the indices of parked workers; a worker is
//! parked exactly while its index is on it ([`Idle::is_parked`]).
//!
//! The protocol (tokio's, which is proven in its loom suite and re-checked in ours,
//! `loom-tests/tests/idle.rs`):
//!
//! 1. A scheduler that queued a task calls [`Idle::notify_should_wakeup`]: it wakes a sleeper
//!    only when nobody is searching and fewer than `max_awake` workers are unparked (some
//!    worker sleeps). Searching workers will find the task; awake ones at the cap will, when
//!    they run out of their own work (rule 5).
//! 2. At most half the workers search at once ([`Idle::transition_worker_to_searching`]).
//! 3. A searcher that finds work leaves the searching state; if it was the last searcher it
//!    wakes another worker, so that while there is work someone keeps looking.
//! 4. A worker that parks while it was the last searcher re-checks every queue after
//!    decrementing the counters (both sides use SeqCst): either the queuing thread saw the
//!    searcher and skipped the wake, and then the searcher's re-check sees the task; or the
//!    queuing thread sees no searcher and wakes someone. No wake-up is lost.
//! 5. (Only when `max_awake` < workers.) A worker whose park takes `num_unparked` from
//!    `max_awake` down to `max_awake - 1` re-checks every queue too, by the same argument: a
//!    notifier that skipped its wake read `num_unparked` ≥ `max_awake`; the first park after
//!    that read to go below the cap comes after it in the SeqCst order, so its re-check sees
//!    the task. Until then at least `max_awake` workers are awake, and each looks in the other
//!    queues (or parks) once its own run out.
//!
//! Every transition returns a `#[must_use]` type that names its outcome.

use std::fmt;

use rt_core::sync::{fence, AtomicUsize, Mutex, Ordering::SeqCst};

const SEARCH_MASK: usize = (1 << 16) - 1;
const UNPARK_SHIFT: usize = 16;
const UNPARK_ONE: usize = 1 << UNPARK_SHIFT;
/// The stall monitor sleeps (the monitor's doze, rules D1 and D2).
const ASLEEP: usize = 1 << (usize::BITS - 1);

/// The decoded idle word.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Counts(usize);

impl Counts {
    fn num_searching(self) -> usize {
        self.0 & SEARCH_MASK
    }

    fn num_unparked(self) -> usize {
        (self.0 & !ASLEEP) >> UNPARK_SHIFT
    }

    fn monitor_asleep(self) -> bool {
        self.0 & ASLEEP != 0
    }
}

impl fmt::Debug for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Counts")
            .field("num_searching", &self.num_searching())
            .field("num_unparked", &self.num_unparked())
            .field("monitor_asleep", &self.monitor_asleep())
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

/// What a worker leaving the searching state learns (rules 3, 4 and 5).
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeftSearching {
    /// It was the last searcher: wake another (rule 3) or re-check every queue (rule 4); or
    /// its park took the unparked count below `max_awake` (rule 5): re-check every queue.
    WasLastSearcher,
    /// Others still search (or it was not searching).
    OthersSearching,
}

/// What [`Idle::unpark_worker_by_id`] did.
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnparkById {
    /// The worker was on the sleepers list and is now off it (counted unparked, not searching).
    Unparked,
    /// It was not on the list: somebody else woke it already.
    NotParked,
}

/// The idle state of a multi-thread scheduler's workers (module docs).
pub struct Idle {
    /// The idle word (layout above).
    state: AtomicUsize,
    num_workers: usize,
    /// Rule 1 wakes a sleeper only while fewer workers than this are unparked (1 to
    /// `num_workers`; see the module docs).
    max_awake: usize,
    /// Indices of parked workers.
    sleepers: Mutex<Vec<usize>>,
}

impl fmt::Debug for Idle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Idle")
            .field("state", &Counts(self.state.load(SeqCst)))
            .field("num_workers", &self.num_workers)
            .field("max_awake", &self.max_awake)
            .finish_non_exhaustive()
    }
}

impl Idle {
    /// `max_awake` is clamped to 1..=`num_workers`.
    pub fn new(num_workers: usize, max_awake: usize) -> Idle {
        assert!(num_workers < SEARCH_MASK);
        Idle {
            state: AtomicUsize::new(num_workers << UNPARK_SHIFT),
            num_workers,
            max_awake: max_awake.clamp(1, num_workers.max(1)),
            sleepers: Mutex::new(Vec::with_capacity(num_workers)),
        }
    }

    fn counts(&self) -> Counts {
        Counts(self.state.load(SeqCst))
    }

    /// Workers not parked now (a SeqCst load; for auto-advance's "all idle" check).
    pub fn num_unparked(&self) -> usize {
        self.counts().num_unparked()
    }

    /// Rule 1: called after a task was queued.
    #[inline]
    #[must_use]
    pub(crate) fn notify_should_wakeup(&self) -> bool {
        self.should_wake_below(self.max_awake)
    }

    /// Nobody searches and fewer than `cap` (at most `num_workers`: below it, some worker
    /// sleeps) workers are unparked.
    #[inline]
    fn should_wake_below(&self, cap: usize) -> bool {
        fence(SeqCst);
        let c = self.counts();
        c.num_searching() == 0 && c.num_unparked() < cap
    }

    /// Picks a sleeper to wake (it comes back searching), or none if waking is not needed.
    pub(crate) fn worker_to_notify(&self) -> Notify {
        self.pick_sleeper(|| self.notify_should_wakeup())
    }

    /// As [`Idle::worker_to_notify`], past the `max_awake` cap: for work that only a sleeper can
    /// reach while an awake worker is stalled in a task (`multi_thread`'s take-over rule S4).
    /// An extra wake is always safe: the woken worker searches and parks again (rule 5 still
    /// holds: a park that takes the count from `max_awake` to `max_awake - 1` re-checks).
    pub(crate) fn worker_to_notify_past_cap(&self) -> Notify {
        self.pick_sleeper(|| self.should_wake_below(self.num_workers))
    }

    /// Takes a sleeper off the list if `should` holds before and after taking the list's lock.
    fn pick_sleeper(&self, should: impl Fn() -> bool) -> Notify {
        if !should() {
            return Notify::NotNeeded;
        }
        let mut sleepers = self.sleepers.lock().unwrap();
        if !should() {
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

    /// Rules 4 and 5: worker `index` goes on the sleepers list. `WasLastSearcher`: the caller
    /// must re-check the queues.
    pub fn transition_worker_to_parked(&self, index: usize, is_searching: bool) -> LeftSearching {
        let mut sleepers = self.sleepers.lock().unwrap();
        let dec = UNPARK_ONE + usize::from(is_searching);
        let prev = Counts(self.state.fetch_sub(dec, SeqCst));
        sleepers.push(index);
        let last_searcher = is_searching && prev.num_searching() == 1;
        let left_cap = self.max_awake < self.num_workers && prev.num_unparked() == self.max_awake;
        if last_searcher || left_cap {
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

    /// Rule D1 (the monitor): marks the monitor asleep if every worker is parked; false if one
    /// is not.
    pub fn try_doze(&self) -> bool {
        let mut cur = self.state.load(SeqCst);
        loop {
            if Counts(cur).num_unparked() != 0 {
                return false;
            }
            match self
                .state
                .compare_exchange(cur, cur | ASLEEP, SeqCst, SeqCst)
            {
                Ok(_) => return true,
                Err(now) => cur = now,
            }
        }
    }

    /// Whether the monitor is still marked asleep (rule D1's wait condition).
    pub fn monitor_dozing(&self) -> bool {
        self.counts().monitor_asleep()
    }

    /// Rule D2 (a worker out of its park): whether this call took the monitor's asleep mark
    /// off, so the caller must wake the monitor.
    #[inline]
    pub fn rouse_monitor(&self) -> bool {
        self.counts().monitor_asleep()
            && Counts(self.state.fetch_and(!ASLEEP, SeqCst)).monitor_asleep()
    }

    /// Takes `index` off the sleepers list (shutdown, or the worker itself when its driver
    /// turn woke tasks onto its own queue).
    pub fn unpark_worker_by_id(&self, index: usize) -> UnparkById {
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

impl crate::stall::Doze for Idle {
    fn try_doze(&self) -> bool {
        Idle::try_doze(self)
    }

    fn dozing(&self) -> bool {
        self.monitor_dozing()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// Parks worker `i` (not searching) and returns whether it must re-check the queues.
    fn park(idle: &Idle, i: usize) -> bool {
        idle.transition_worker_to_parked(i, false) == LeftSearching::WasLastSearcher
    }

    #[test]
    fn without_a_cap_a_sleeper_is_woken_while_any_sleeps() {
        let idle = Idle::new(4, 4);
        assert!(!idle.notify_should_wakeup(), "nobody sleeps");
        assert!(!park(&idle, 3), "no cap, not searching: no re-check");
        assert!(idle.notify_should_wakeup());
        assert_eq!(idle.worker_to_notify(), Notify::Worker(3));
    }

    #[test]
    fn at_the_awake_cap_no_sleeper_is_woken() {
        // 4 workers, at most 2 awake.
        let idle = Idle::new(4, 2);
        assert!(!park(&idle, 3), "4 -> 3 unparked: still above the cap");
        assert!(!idle.notify_should_wakeup(), "3 awake, cap 2");
        assert_eq!(idle.worker_to_notify(), Notify::NotNeeded);
        assert!(!park(&idle, 2), "3 -> 2 unparked: at the cap, not below");
        assert!(!idle.notify_should_wakeup(), "2 awake, cap 2");
        // Rule 5: the park that leaves the cap re-checks (a notify may have been skipped).
        assert!(park(&idle, 1), "2 -> 1 unparked: below the cap");
        assert!(idle.notify_should_wakeup());
        assert_eq!(idle.worker_to_notify(), Notify::Worker(1));
        assert!(!idle.notify_should_wakeup(), "the woken worker searches");
        assert_eq!(idle.num_unparked(), 2);
    }

    #[test]
    fn a_searcher_still_counts_toward_rule_4_under_the_cap() {
        let idle = Idle::new(4, 2);
        assert_eq!(
            idle.transition_worker_to_searching(),
            ToSearching::Searching
        );
        assert!(!park(&idle, 3));
        // Worker 0, the only searcher, parks while 3 are unparked: rule 4 re-check.
        assert_eq!(
            idle.transition_worker_to_parked(0, true),
            LeftSearching::WasLastSearcher
        );
        assert_eq!(idle.num_unparked(), 2);
        assert!(!idle.notify_should_wakeup(), "2 awake, cap 2");
    }

    #[test]
    fn the_cap_is_clamped_to_the_workers() {
        let idle = Idle::new(2, 16);
        assert!(
            !park(&idle, 1),
            "no cap below the number of workers: no re-check"
        );
        assert!(idle.notify_should_wakeup());
        // Cap 0 means 1: one awake worker is enough.
        let idle = Idle::new(2, 0);
        assert!(!park(&idle, 1), "2 -> 1 unparked: at the cap");
        assert!(!idle.notify_should_wakeup());
        assert!(park(&idle, 0), "1 -> 0 unparked: leaves the cap, re-checks");
        assert!(idle.notify_should_wakeup());
    }

    #[test]
    fn a_wake_past_the_cap_takes_a_sleeper_at_the_cap_but_not_beside_a_searcher() {
        let idle = Idle::new(2, 1);
        assert!(!park(&idle, 1), "2 -> 1 unparked: at the cap, no re-check");
        // Worker 0 is awake (stalled in a task, say): at the cap, a notify wakes nobody.
        assert_eq!(idle.worker_to_notify(), Notify::NotNeeded);
        assert_eq!(idle.worker_to_notify_past_cap(), Notify::Worker(1));
        assert_eq!(idle.num_unparked(), 2);
        // Worker 1 came back searching; no one is left to wake anyway.
        assert_eq!(idle.worker_to_notify_past_cap(), Notify::NotNeeded);
    }
}
