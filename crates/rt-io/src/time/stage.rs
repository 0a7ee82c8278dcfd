//! Staging: far-off timers kept off the shared wheel until they come near.
//!
//! Most timers far from their deadline are dropped long before it: hyper arms a 30 s
//! header-read timeout each time a keep-alive connection waits for a request head and drops it
//! when the head arrives, a millisecond later. In the wheel each costs an insert and a remove
//! under the wheel's one lock, whose cache line then travels between the workers with every
//! request (about a tenth of a hyper server's CPU per request, measured with the timeout on and
//! off, `docs/BENCHMARKS.md`).
//!
//! So a timer at least [`STAGE_MIN`] ahead, first polled on a worker thread whose reactor shard
//! is its own, goes to that shard's stage instead: a short list under a lock of its own, which
//! only that worker touches as a rule (its cache line stays on its core). Dropped from there, it
//! leaves the list and never reaches the wheel. One that stays is moved into the wheel
//! ("flushed") [`FLUSH_AHEAD`] before its deadline by a turn of that shard.
//!
//! Rules (lock order: a stage, then the wheel; never the other way round):
//!
//! 1. Every turn of a shard, by whichever thread takes it (its owner, or a sibling watching a
//!    busy owner's shard, so a worker stuck in a task holds no timer back), first flushes the
//!    shard's stage: once an entry is due within `FLUSH_AHEAD`, the entries due within
//!    `FLUSH_AHEAD + FLUSH_BATCH` go to the wheel (one scan for a batch), and the turn blocks
//!    no longer than until the next one is due within `FLUSH_AHEAD`. A flush moves an entry
//!    under the stage's lock, and writes its wheel key into the entry under the wheel's lock.
//! 2. A staged sleep that deregisters takes its entry back out of the stage under the stage's
//!    lock; if it is not there, a flush has moved it (rule 1, completed under that same lock),
//!    and the sleep removes it from the wheel by the key in the entry, under the wheel's lock.
//! 3. Nothing is staged while the clock is paused or once the driver has shut down; both are
//!    checked under the stage's lock, and `pause` and `shutdown` set them first and then empty
//!    every stage (into the wheel, or firing each entry with "shut down"). So auto-advance
//!    sees every timer in the wheel, and shutdown fires every timer.
//!
//! Under loom nothing is staged (the models check the wheel's protocol, `entry.rs`); a thread
//! that is no worker of this reactor (a `block_on` thread, the blocking pool, the `rt-io`
//! thread's runtimes) registers in the wheel directly.

use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use rt_core::sync::{Arc, AtomicBool, Mutex, MutexGuard, Ordering};

use super::entry::Entry;

pub(crate) use crate::tuning::{FLUSH_AHEAD, FLUSH_BATCH, STAGE_MIN};

/// One stage per reactor shard, and the two facts rule 3 checks.
pub(crate) struct Stages {
    /// The reactor's id (`Reactor::id`): a thread whose home shard is in that reactor
    /// (`Handle::bind_thread`) stages there.
    reactor: u64,
    /// Padded: the workers' stages must not share a cache line.
    stages: Box<[CachePadded<Mutex<Stage>>]>,
    /// Set (then every stage emptied) when the driver shuts down.
    closed: AtomicBool,
}

#[derive(Default)]
struct Stage {
    /// Staged entries and their deadlines, in no order.
    entries: Vec<(Instant, Arc<Entry>)>,
    /// At or before every deadline in `entries` (`None`: empty). Not raised when an entry
    /// leaves, so it may be early, which costs one scan that finds nothing to flush.
    earliest: Option<Instant>,
}

impl Stage {
    /// Takes out the entry at `i`; the last one moves into its slot (and learns so).
    fn remove(&mut self, i: usize) -> (Instant, Arc<Entry>) {
        let out = self.entries.swap_remove(i);
        if let Some((_, moved)) = self.entries.get(i) {
            moved.set_slot(i);
        }
        out
    }
}

impl Stages {
    pub(crate) fn new(shards: usize, reactor: u64) -> Stages {
        Stages {
            reactor,
            stages: (0..shards)
                .map(|_| CachePadded::new(Mutex::new(Stage::default())))
                .collect(),
            closed: AtomicBool::new(false),
        }
    }

    /// The reactor these stages belong to.
    #[cfg(test)]
    pub(crate) fn reactor(&self) -> u64 {
        self.reactor
    }

    fn lock(&self, shard: usize) -> MutexGuard<'_, Stage> {
        // No user code runs under a stage's lock; a panic there leaves the list consistent.
        self.stages[shard].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stages `entry` (deadline `deadline`, now `now`) on this thread's own shard, if the rules
    /// allow: returns that shard, or `None` (register in the wheel instead).
    pub(crate) fn stage(
        &self,
        deadline: Instant,
        now: Instant,
        paused: impl Fn() -> bool,
        entry: &Arc<Entry>,
    ) -> Option<usize> {
        if cfg!(loom) || deadline.saturating_duration_since(now) < STAGE_MIN {
            return None;
        }
        let shard = crate::handle::home_in(self.reactor).filter(|&s| s < self.stages.len())?;
        let mut stage = self.lock(shard);
        // Rule 3, under the stage's lock.
        if paused() || self.closed.load(Ordering::Relaxed) {
            return None;
        }
        entry.set_slot(stage.entries.len());
        stage.entries.push((deadline, entry.clone()));
        stage.earliest = Some(stage.earliest.map_or(deadline, |e| e.min(deadline)));
        Some(shard)
    }

    /// Takes `entry` out of `shard`'s stage (rule 2), in O(1): the entry knows its slot.
    /// `false`: a flush has moved it to the wheel, or shutdown has fired it.
    pub(crate) fn unstage(&self, shard: usize, entry: &Arc<Entry>) -> bool {
        let mut stage = self.lock(shard);
        let i = entry.slot();
        if !stage
            .entries
            .get(i)
            .is_some_and(|(_, e)| Arc::ptr_eq(e, entry))
        {
            return false;
        }
        let (_, ours) = stage.remove(i);
        drop(stage);
        drop(ours);
        true
    }

    /// Rule 1: with `shard`'s stage locked, hands `f` the entries due within `FLUSH_AHEAD +
    /// FLUSH_BATCH` of `now`, if any is due within `FLUSH_AHEAD` (every entry if `all`), to
    /// insert into the wheel; `f` runs under the stage's lock, so a sleep deregistering
    /// meanwhile finds its entry either staged or with its key set.
    /// Returns how long until the next flush is due.
    pub(crate) fn flush(
        &self,
        shard: usize,
        now: Instant,
        all: bool,
        f: impl FnOnce(Vec<(Instant, Arc<Entry>)>),
    ) -> Option<Duration> {
        let horizon = now + FLUSH_AHEAD;
        let mut stage = self.lock(shard);
        let earliest = stage.earliest?;
        if !all && earliest > horizon {
            return Some(earliest - horizon);
        }
        let reach = horizon + FLUSH_BATCH;
        let mut due = Vec::new();
        let mut next: Option<Instant> = None;
        let mut i = 0;
        while i < stage.entries.len() {
            let deadline = stage.entries[i].0;
            if all || deadline <= reach {
                due.push(stage.remove(i));
            } else {
                next = Some(next.map_or(deadline, |n| n.min(deadline)));
                i += 1;
            }
        }
        stage.earliest = next;
        if !due.is_empty() {
            f(due);
        }
        drop(stage);
        next.map(|n| n.saturating_duration_since(horizon))
    }

    /// How many stages (one per shard) there are.
    pub(crate) fn shards(&self) -> usize {
        self.stages.len()
    }

    /// Rule 3 at shutdown: no entry is staged from now on. Returns every staged entry, for the
    /// driver to fire.
    pub(crate) fn close(&self) -> Vec<Arc<Entry>> {
        self.closed.store(true, Ordering::Relaxed);
        let mut all = Vec::new();
        for shard in 0..self.stages.len() {
            let mut stage = self.lock(shard);
            all.extend(stage.entries.drain(..).map(|(_, e)| e));
            stage.earliest = None;
        }
        all
    }
}
