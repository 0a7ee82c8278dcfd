//! Stall detection's per-worker poll stamp and what a stall report carries.
//!
//! A worker writes its stamp at the start of every poll — the running task's id and a poll
//! sequence number packed in one word, plus a copy of the task's meta word (name and spawn
//! location, `rt_core::task::MetaWord`) — with relaxed stores to a cache line only it writes,
//! and no clock read. When it runs out of tasks it clears the id ("not in a poll"). The
//! monitor thread (`multi_thread/takeover.rs`) samples the stamps with its own clock and
//! times how long each has stood still: a stamp that names a task and has not moved for
//! longer than the threshold is a poll that is still running, i.e. a stall.
//!
//! The stamp is a hint, not a protocol (`rt_core::sync`'s exception 9): no task's fate depends
//! on it, only when a report is made and when a take-over thread stops helping.

use std::panic::Location;
use std::time::Duration;

use rt_core::sync::unmodelled::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use rt_core::task::{describe, Id, MetaWord};

/// Bits of the stamp word that hold the poll sequence number (the rest is the task id).
const SEQ_BITS: u32 = 16;
const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;

/// One worker's poll stamp (padded to its own cache line by its owner's array).
#[derive(Debug, Default)]
pub struct PollStamp {
    /// `task id << 16 | poll sequence (mod 2^16)`; task id 0 while the worker is not polling.
    word: AtomicU64,
    /// The running task's `MetaWord` (stale while not polling).
    meta: AtomicUsize,
}

/// A copy of a stamp, as the monitor compares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StampSample {
    word: u64,
    meta: usize,
}

impl StampSample {
    /// The task being polled, if the worker is in a poll.
    pub fn task_id(&self) -> Option<u64> {
        match self.word >> SEQ_BITS {
            0 => None,
            id => Some(id),
        }
    }

    /// The running task's name and spawn location (see `rt_core::task::describe`).
    pub fn describe(&self) -> Option<rt_core::task::MetaInfo> {
        describe(MetaWord::from_usize(self.meta))
    }
}

impl PollStamp {
    /// The worker starts polling task `id` (two relaxed stores on the worker's own line; the
    /// sequence number makes two polls of one task in a row differ).
    #[inline]
    pub fn enter(&self, id: Id, meta: MetaWord) {
        let seq = self.word.load(Relaxed).wrapping_add(1) & SEQ_MASK;
        self.word.store(id.as_u64() << SEQ_BITS | seq, Relaxed);
        self.meta.store(meta.into_usize(), Relaxed);
    }

    /// The worker is not polling (it ran out of tasks; `run_loop`, before it looks further or
    /// parks).
    #[inline]
    pub fn idle(&self) {
        let w = self.word.load(Relaxed);
        if w >> SEQ_BITS != 0 {
            self.word.store((w + 1) & SEQ_MASK, Relaxed);
        }
    }

    /// A copy, for the monitor and the dump (`running on worker N`).
    pub fn sample(&self) -> StampSample {
        StampSample {
            word: self.word.load(Relaxed),
            meta: self.meta.load(Relaxed),
        }
    }

    /// The task this worker is polling now, if any (for the task dump).
    pub fn running_task(&self) -> Option<u64> {
        self.sample().task_id()
    }
}

/// Called on the monitor thread with each stall report (`Builder::on_stall`).
pub type StallCallback = rt_core::sync::StdArc<dyn Fn(&StallInfo) + Send + Sync>;

/// Stall detection's settings (`multi_thread::Config::stall`).
#[derive(Clone)]
pub struct StallConfig {
    /// A poll that has run longer than this is reported (and its worker taken over).
    pub threshold: Duration,
    /// Called with every report, on the monitor thread.
    pub on_stall: Option<StallCallback>,
}

impl std::fmt::Debug for StallConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StallConfig")
            .field("threshold", &self.threshold)
            .field("on_stall", &self.on_stall.is_some())
            .finish()
    }
}

/// The default `stall_threshold`: 100 ms.
pub const DEFAULT_STALL_THRESHOLD: Duration = Duration::from_millis(100);

/// A poll that has run (or ran) longer than the stall threshold: what `Builder::on_stall`
/// receives. Each stall is reported once while it lasts (`ended() == false`, `elapsed()` at
/// least the threshold) and once when the poll has returned (`ended() == true`, `elapsed()`
/// its total length as the monitor measured it, within one sampling period).
#[derive(Clone, Debug)]
pub struct StallInfo {
    pub(crate) task_id: u64,
    pub(crate) name: Option<String>,
    pub(crate) location: &'static Location<'static>,
    pub(crate) worker: usize,
    pub(crate) elapsed: Duration,
    pub(crate) ended: bool,
}

impl StallInfo {
    /// The stalled task's id (`rt::task::Id::as_u64`).
    pub fn task_id(&self) -> u64 {
        self.task_id
    }

    /// The stalled task's name, if it was spawned with one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Where the stalled task was spawned.
    pub fn location(&self) -> &'static Location<'static> {
        self.location
    }

    /// The index of the worker whose poll stalled.
    pub fn worker(&self) -> usize {
        self.worker
    }

    /// How long the poll has run so far (or ran in all, once `ended()`).
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// Whether the poll has returned (the follow-up report).
    pub fn ended(&self) -> bool {
        self.ended
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn stamp_moves_on_every_poll_and_clears_on_idle() {
        let s = PollStamp::default();
        assert_eq!(s.sample().task_id(), None);
        let id = rt_core::task::next_id();
        s.enter(id, MetaWord::NONE);
        let a = s.sample();
        assert_eq!(a.task_id(), Some(id.as_u64()));
        s.enter(id, MetaWord::NONE);
        let b = s.sample();
        assert_ne!(a, b, "two polls of one task must differ");
        assert_eq!(b.task_id(), Some(id.as_u64()));
        s.idle();
        assert_eq!(s.sample().task_id(), None);
        assert_eq!(s.running_task(), None);
    }
}
