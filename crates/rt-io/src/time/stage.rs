//! Staging: far-off timers kept off the shared wheel until they come near.
//!
//! Most timers far from their deadline are dropped long before it: hyper arms a 30 s
//! header-read timeout each time a keep-alive connection waits for a request head and drops it
//! when the head arrives, a millisecond later. In the wheel each costs an insert and a remove
//! under the wheel's one lock, whose cache line then travels between the workers with every
//! request (about a tenth of a hyper server's CPU per request, measured with the timeout on and
//! off, `docs/BENCHMARKS.md`).
//!
//! So a timer at least [`STAGE_MIN`] ahead, first polled on a worker thread of this reactor,
//! goes to that worker's stage instead: a short list under a lock of its own, which only that
//! worker touches as a rule (its cache line stays on its core), whatever the reactor's layout
//! (one poll shared by the workers, or one each). Dropped from there, it leaves the list and
//! never reaches the wheel. One that stays is moved into the wheel ("flushed")
//! [`FLUSH_AHEAD`] before its deadline by a turn of the stage's shard: worker `j`'s stage
//! belongs to shard `j % shards`, the shard worker `j` drives.
//!
//! Each stage publishes its earliest deadline in a hint (an atomic beside the lock), so a turn
//! reads the stages of its shard without taking their locks, and takes one only when that
//! stage has something to flush.
//!
//! Rules (lock order: a stage, then the wheel; never the other way round):
//!
//! 1. Every turn of a shard, by whichever thread takes it (a worker driving its own shard, a
//!    sibling watching a busy owner's shard, or any worker taking the shared poll, so a worker
//!    stuck in a task holds no timer back), first flushes the shard's stages: once a stage's
//!    hint is due within `FLUSH_AHEAD`, its entries due within `FLUSH_AHEAD + FLUSH_BATCH` go
//!    to the wheel (one scan for a batch), and the turn blocks no longer than until the next
//!    hint is due within `FLUSH_AHEAD`. A flush moves an entry under the stage's lock, and
//!    writes its wheel key into the entry under the wheel's lock.
//! 2. A staged sleep that deregisters takes its entry back out of the stage under the stage's
//!    lock; if it is not there, a flush has moved it (rule 1, completed under that same lock),
//!    and the sleep removes it from the wheel by the key in the entry, under the wheel's lock.
//! 3. Nothing is staged while the clock is paused or once the driver has shut down; both are
//!    checked under the stage's lock, and `pause` and `shutdown` set them first and then empty
//!    every stage (into the wheel, or firing each entry with "shut down"). So auto-advance
//!    sees every timer in the wheel, and shutdown fires every timer.
//! 4. The hint is at or before every deadline in its stage. It is written under the stage's
//!    lock: lowered when an entry is staged earlier than it, and set to the next deadline by a
//!    flush; an entry leaving never raises it (it may be early: one locked look that finds
//!    nothing to flush). A stage's hint lowered while its shard may be blocked in a turn that
//!    read the old one is followed by a wake of that shard, which ends the turn whenever it
//!    comes (the shard's eventfd stays readable until a turn takes it), so the next turn reads
//!    the new hint. The wake, not the atomic's ordering, is what orders the two: no turn
//!    blocks on a stale hint past the wake. When every worker drives a shard of its own, the stager is the shard's owner and
//!    its own next turn reads the hint, so no wake is sent.
//!
//! Under loom nothing is staged (the models check the wheel's protocol, `entry.rs`); a thread
//! that is no worker of this reactor (a `block_on` thread, the blocking pool, the `rt-io`
//! thread's runtimes) registers in the wheel directly.

use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use rt_core::sync::{Arc, AtomicBool, AtomicU64, Mutex, MutexGuard, Ordering};

use super::entry::Entry;

pub(crate) use crate::tuning::{FLUSH_AHEAD, FLUSH_BATCH, STAGE_MIN};

/// A hint with nothing staged.
const EMPTY: u64 = u64::MAX;

/// One stage per worker, and the two facts rule 3 checks.
pub(crate) struct Stages {
    /// The reactor's id (`Reactor::id`): a worker bound to that reactor
    /// (`Handle::bind_worker`) stages there.
    reactor: u64,
    /// The reactor's shards: stage `j` belongs to shard `j % shards`.
    shards: usize,
    /// Hints count nanoseconds from here (the timers' tick 0).
    start: Instant,
    stages: Box<[Slot]>,
    /// Set (then every stage emptied) when the driver shuts down.
    closed: AtomicBool,
    /// Wakes a shard's `poll` (rule 4).
    wake: std::sync::Arc<dyn Fn(usize) + Send + Sync>,
}

/// One worker's stage and its hint, each on a cache line of its own: a turn on another worker
/// reads the hint, and the lock's line then stays with the stage's owner.
struct Slot {
    list: CachePadded<Mutex<Stage>>,
    /// Rule 4: `Stage::earliest` in nanoseconds from `Stages::start` ([`EMPTY`]: none), for
    /// turns to read without the lock.
    hint: CachePadded<AtomicU64>,
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
    /// Stages for `workers` workers over `shards` shards of reactor `reactor`, whose timers
    /// count from `start`; `wake` wakes a shard's `poll`.
    pub(crate) fn new(
        workers: usize,
        shards: usize,
        reactor: u64,
        start: Instant,
        wake: std::sync::Arc<dyn Fn(usize) + Send + Sync>,
    ) -> Stages {
        Stages {
            reactor,
            shards: shards.max(1),
            start,
            stages: (0..workers.max(1))
                .map(|_| Slot {
                    list: CachePadded::new(Mutex::new(Stage::default())),
                    hint: CachePadded::new(AtomicU64::new(EMPTY)),
                })
                .collect(),
            closed: AtomicBool::new(false),
            wake,
        }
    }

    /// The reactor these stages belong to.
    #[cfg(test)]
    pub(crate) fn reactor(&self) -> u64 {
        self.reactor
    }

    fn lock(&self, stage: usize) -> MutexGuard<'_, Stage> {
        // No user code runs under a stage's lock; a panic there leaves the list consistent.
        self.stages[stage]
            .list
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// `at` as a hint: nanoseconds from `start`, rounded down (so never later than `at`).
    fn hint_of(&self, at: Instant) -> u64 {
        let nanos = at.saturating_duration_since(self.start).as_nanos();
        u64::try_from(nanos).unwrap_or(EMPTY - 1)
    }

    /// Stages `entry` (deadline `deadline`, now `now`) on this thread's own stage, if the rules
    /// allow: returns that stage, or `None` (register in the wheel instead).
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
        let j = crate::handle::worker_in(self.reactor).filter(|&j| j < self.stages.len())?;
        let mut stage = self.lock(j);
        // Rule 3, under the stage's lock.
        if paused() || self.closed.load(Ordering::Relaxed) {
            return None;
        }
        entry.set_slot(stage.entries.len());
        stage.entries.push((deadline, entry.clone()));
        let lowered = stage.earliest.is_none_or(|e| deadline < e);
        if lowered {
            stage.earliest = Some(deadline);
            // Rule 4.
            self.stages[j]
                .hint
                .store(self.hint_of(deadline), Ordering::SeqCst);
        }
        drop(stage);
        if lowered && self.shards != self.stages.len() {
            (self.wake)(j % self.shards);
        }
        Some(j)
    }

    /// Takes `entry` out of stage `j` (rule 2), in O(1): the entry knows its slot.
    /// `false`: a flush has moved it to the wheel, or shutdown has fired it.
    pub(crate) fn unstage(&self, j: usize, entry: &Arc<Entry>) -> bool {
        let mut stage = self.lock(j);
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

    /// Rule 1 for a turn of `shard`: for each of its stages whose hint is due within
    /// `FLUSH_AHEAD` of `now` (every stage if `all`), with that stage locked, hands `f` the
    /// entries due within `FLUSH_AHEAD + FLUSH_BATCH` (every entry if `all`), to insert into
    /// the wheel; `f` runs under the stage's lock, so a sleep deregistering meanwhile finds its
    /// entry either staged or with its key set.
    /// Returns how long until the next flush is due.
    pub(crate) fn flush(
        &self,
        shard: usize,
        now: Instant,
        all: bool,
        mut f: impl FnMut(Vec<(Instant, Arc<Entry>)>),
    ) -> Option<Duration> {
        let horizon = now + FLUSH_AHEAD;
        let reach = horizon + FLUSH_BATCH;
        let mut wait: Option<Duration> = None;
        let mut sooner = |d: Duration| wait = Some(wait.map_or(d, |w| w.min(d)));
        for j in (shard..self.stages.len()).step_by(self.shards) {
            let slot = &self.stages[j];
            // Rule 4: the hint is at or before the stage's deadlines, so one that is not due
            // spares the lock.
            let hint = slot.hint.load(Ordering::SeqCst);
            if hint == EMPTY && !all {
                continue;
            }
            let at = self.start + Duration::from_nanos(hint.min(EMPTY - 1));
            if !all && at > horizon {
                sooner(at - horizon);
                continue;
            }
            let mut stage = self.lock(j);
            let Some(earliest) = stage.earliest else {
                continue;
            };
            if !all && earliest > horizon {
                sooner(earliest - horizon);
                continue;
            }
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
            slot.hint
                .store(next.map_or(EMPTY, |n| self.hint_of(n)), Ordering::SeqCst);
            if !due.is_empty() {
                f(due);
            }
            drop(stage);
            if let Some(n) = next {
                sooner(n.saturating_duration_since(horizon));
            }
        }
        wait
    }

    /// How many shards the stages belong to.
    pub(crate) fn shards(&self) -> usize {
        self.shards
    }

    /// Rule 3 at shutdown: no entry is staged from now on. Returns every staged entry, for the
    /// driver to fire.
    pub(crate) fn close(&self) -> Vec<Arc<Entry>> {
        self.closed.store(true, Ordering::Relaxed);
        let mut all = Vec::new();
        for j in 0..self.stages.len() {
            let mut stage = self.lock(j);
            all.extend(stage.entries.drain(..).map(|(_, e)| e));
            stage.earliest = None;
            self.stages[j].hint.store(EMPTY, Ordering::SeqCst);
        }
        all
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    use rt_core::sync::Arc;

    use crate::time::entry::Entry;
    use crate::{Driver, ReactorConfig};

    /// Two workers sharing one poll: a far timer registered on worker 1 waits in its stage,
    /// and a turn of the shared shard (taken by any thread) moves it into the wheel once it is
    /// due within `FLUSH_AHEAD`.
    #[test]
    fn a_shared_poll_keeps_each_workers_stage_and_flushes_it() {
        let driver = Driver::start_for_workers(2, 1, ReactorConfig::default()).unwrap();
        let time = &driver.handle().inner.time;
        let timers = time.handle();
        let now = Instant::now();
        let entry = Arc::new(Entry::new(None));
        std::thread::scope(|s| {
            s.spawn(|| {
                assert_eq!(
                    timers.stage(now + Duration::from_secs(30), now, &entry),
                    None
                );
                driver.worker_driver().unwrap().bind_worker(1);
                // Due in 200 ms on the real clock, but staged: it looks 1.2 s away from the
                // `now` it is handed (a stale reading, as `recent_lower_bound` may give).
                let deadline = now + Duration::from_millis(200);
                let stale = now - Duration::from_secs(1);
                assert_eq!(timers.stage(deadline, stale, &entry), Some(1));
            })
            .join()
            .unwrap()
        });
        assert!(!time.has_timers(), "staged, not in the wheel");
        time.flush_stage(0);
        assert!(
            time.has_timers(),
            "the shared shard's turn flushed worker 1's stage"
        );
        timers.unstage(1, &entry);
        assert!(!time.has_timers());
    }

    /// Rule 4: with a shared poll, the worker that stages may not be the one blocked in the
    /// poll, and that turn's timeout was computed without the new timer. Staging it wakes the
    /// turn (the test's hang guard fails it otherwise).
    #[test]
    fn staging_wakes_a_turn_blocked_in_the_shared_poll() {
        let driver = Driver::start_for_workers(2, 1, ReactorConfig::default()).unwrap();
        let workers = driver.worker_driver().unwrap();
        let timers = driver.handle().inner.time.handle();
        let (tx, rx) = mpsc::channel();
        std::thread::scope(|s| {
            s.spawn(|| {
                workers.bind_worker(0);
                // The first turn may end at once (the waker's registration); block in a
                // second one, then report.
                assert!(workers.try_drive(0, Some(Duration::ZERO), &|| false));
                tx.send("blocking").unwrap();
                assert!(workers.try_drive(0, None, &|| false));
                tx.send("woken").unwrap();
            });
            assert_eq!(rx.recv().unwrap(), "blocking");
            workers.bind_worker(1);
            let now = Instant::now();
            let entry = Arc::new(Entry::new(None));
            // Staging may come before the turn blocks: the wake then ends it at once.
            assert_eq!(
                timers.stage(now + Duration::from_secs(30), now, &entry),
                Some(1)
            );
            let woken = rx.recv_timeout(Duration::from_secs(20));
            timers.unstage(1, &entry);
            if woken.is_err() {
                // Free the blocked turn before failing.
                driver.handle().unpark_all();
            }
            assert_eq!(woken, Ok("woken"), "the staging woke the blocked turn");
        });
    }
}
