//! Stall detection's per-worker poll stamp and what a stall report carries.
//!
//! A worker writes its stamp at the start of every poll — a poll sequence number (on a
//! multi-thread worker, its poll count: the `polls` metric reads it) and the running task's
//! id; the current-thread scheduler and `LocalSet` also store a copy of the task's meta word
//! (name and spawn location, `rt_core::task::MetaWord`), while the multi-thread monitor looks
//! the task up by id when it reports — with relaxed stores to a cache line only it writes,
//! and no clock read. When it runs out of tasks it clears the id ("not in a poll"). The
//! monitor thread (`multi_thread/takeover.rs`) samples the stamps with its own clock and
//! times how long each has stood still: a stamp that names a task and has not moved for
//! longer than the threshold is a poll that is still running, i.e. a stall.
//!
//! The stamp is a hint, not a protocol (`rt_core::sync`'s exception 9): no task's fate depends
//! on it, only when a report is made and when a take-over thread stops helping.
//!
//! The sampling loop and the report are [`Detector`]'s, shared by both schedulers: the
//! multi-thread monitor (`multi_thread/takeover.rs`, one thread per runtime) watches one stamp
//! per worker and starts a take-over with each report; for the current-thread scheduler
//! (`current_thread.rs`) one process-wide monitor thread ([`watch`]) watches the one stamp of
//! the thread inside each runtime's `block_on` and only reports (a task cannot leave that
//! thread, so there is nothing another thread could take over). A `LocalSet` driven by that
//! thread writes the same stamp around each of its polls ([`with_thread_stamp`]).

use std::cell::Cell;
use std::panic::Location;
use std::time::{Duration, Instant};

use rt_core::sync::unmodelled::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use rt_core::sync::{Condvar, Mutex, MutexGuard};
use rt_core::task::{describe, Id, MetaWord};

/// One worker's poll stamp (padded to its own cache line by its owner's array).
///
/// Three words, written by one thread at a time and sampled by others without a lock; a sample
/// taken while the writer is between its stores may mix two polls (a "torn" sample). That is
/// harmless: a torn sample differs from the stamp's next, settled state, and a stall is only
/// reported after a stamp has stood still for the threshold, i.e. no store was under way.
#[derive(Debug, Default)]
pub struct PollStamp {
    /// Moves on at every poll start ([`enter`](Self::enter), [`enter_counted`](Self::enter_counted))
    /// and [`restore`](Self::restore), by one, and never back: two polls of one task in a row
    /// differ. On a multi-thread worker's stamp only `enter_counted` moves it, so it is the
    /// worker's poll count (`WorkerMetrics::polls`, [`polls`](Self::polls)): one counter
    /// serves the metric and stall detection.
    seq: AtomicU64,
    /// The id of the task being polled; 0 while not polling.
    task: AtomicU64,
    /// The running task's `MetaWord`, where the writer stores it (`enter`; stale while not
    /// polling). `MetaWord::NONE` on the multi-thread workers' stamps, whose monitor looks the
    /// task up by id when it reports (`enter_counted`).
    meta: AtomicUsize,
}

/// A copy of a stamp, as the monitor compares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StampSample {
    seq: u64,
    task: u64,
    meta: usize,
}

impl StampSample {
    /// The task being polled, if the worker is in a poll.
    pub fn task_id(&self) -> Option<u64> {
        match self.task {
            0 => None,
            id => Some(id),
        }
    }

    /// The running task's name and spawn location (see `rt_core::task::describe`), if the
    /// stamp's writer stored its meta word.
    pub fn describe(&self) -> Option<rt_core::task::MetaInfo> {
        describe(MetaWord::from_usize(self.meta))
    }
}

impl PollStamp {
    /// The thread starts polling task `id` (relaxed stores on the writer's own line; the
    /// sequence number makes two polls of one task in a row differ), keeping its meta word
    /// for the report.
    #[inline]
    pub fn enter(&self, id: Id, meta: MetaWord) {
        self.enter_counted(id);
        self.meta.store(meta.into_usize(), Relaxed);
    }

    /// The worker starts polling task `id`: the poll count moves on (an add to a word only
    /// this thread writes) and the id is stored; no meta word (the multi-thread monitor finds
    /// the task's name and location by id when it reports, which is rare).
    #[inline]
    pub fn enter_counted(&self, id: Id) {
        self.seq
            .store(self.seq.load(Relaxed).wrapping_add(1), Relaxed);
        self.task.store(id.as_u64(), Relaxed);
    }

    /// The thread is not polling (it ran out of tasks; `run_loop`, before it looks further or
    /// parks).
    #[inline]
    pub fn idle(&self) {
        if self.task.load(Relaxed) != 0 {
            self.task.store(0, Relaxed);
        }
    }

    /// The polls counted by [`enter_counted`](Self::enter_counted) and
    /// [`enter`](Self::enter) (and the restores).
    pub fn polls(&self) -> u64 {
        self.seq.load(Relaxed)
    }

    /// A copy, for the monitor and the dump (`running on worker N`).
    pub fn sample(&self) -> StampSample {
        StampSample {
            task: self.task.load(Relaxed),
            seq: self.seq.load(Relaxed),
            meta: self.meta.load(Relaxed),
        }
    }

    /// The task this worker is polling now, if any (for the task dump).
    pub fn running_task(&self) -> Option<u64> {
        self.sample().task_id()
    }

    /// Puts back a stamp taken with [`sample`](Self::sample) before a nested run of polls (a
    /// `LocalSet` driven inside a poll): the enclosing poll again, as a new sample (its
    /// sequence number moves on, so a stall reported during the nested polls ends), or "not
    /// in a poll" if it was.
    #[inline]
    pub fn restore(&self, s: StampSample) {
        self.seq
            .store(self.seq.load(Relaxed).wrapping_add(1), Relaxed);
        self.task.store(s.task, Relaxed);
        self.meta.store(s.meta, Relaxed);
    }
}

rt_core::sync::thread_local! {
    /// The poll stamp of the scheduler this thread drives outside any worker loop (the
    /// current-thread scheduler's, while this thread is inside its `block_on`), or null.
    static THREAD_STAMP: Cell<*const PollStamp> = const { Cell::new(std::ptr::null()) };
}

/// Makes `stamp` this thread's until dropped ([`with_thread_stamp`]); restores the previous.
pub(crate) struct ThreadStampGuard(*const PollStamp);

impl ThreadStampGuard {
    /// # Safety
    /// `stamp` outlives the guard, the guard is dropped on this thread, and only this thread
    /// writes `stamp` while the guard lives (a stamp has one writer).
    pub(crate) unsafe fn enter(stamp: &PollStamp) -> ThreadStampGuard {
        let prev = THREAD_STAMP
            .try_with(|c| c.replace(stamp))
            .unwrap_or(std::ptr::null());
        ThreadStampGuard(prev)
    }
}

impl Drop for ThreadStampGuard {
    fn drop(&mut self) {
        let _ = THREAD_STAMP.try_with(|c| c.set(self.0));
    }
}

/// Runs `f` with the poll stamp this thread writes for the scheduler it drives, if any (see
/// [`ThreadStampGuard`]): a `LocalSet` stamps its polls there, so the monitor that watches the
/// thread names the local task that blocks it.
pub(crate) fn with_thread_stamp<R>(f: impl FnOnce(Option<&PollStamp>) -> R) -> R {
    let p = THREAD_STAMP
        .try_with(|c| c.get())
        .unwrap_or(std::ptr::null());
    // SAFETY: non-null only while a `ThreadStampGuard` of this very thread lives, whose
    // contract keeps the stamp alive and this thread its only writer.
    f(unsafe { p.as_ref() })
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

pub use crate::tuning::DEFAULT_STALL_THRESHOLD;

/// The sampling loop and the report of stall detection, shared by both schedulers (module
/// docs): the settings, the stop flag the monitor thread sleeps on, and the stall count.
pub(crate) struct Detector {
    config: StallConfig,
    /// Set at shutdown; the monitor sleeps on `wake` between samples.
    stop: Mutex<bool>,
    wake: Condvar,
    /// Stalls reported so far (`Metrics::stalls`).
    stalls: AtomicU64,
}

/// How the multi-thread monitor sleeps while every worker is parked, so that a runtime with
/// nothing to do makes no wake-ups (the protocol is the idle word's, `idle.rs`, "The monitor's
/// doze"): while every worker is parked no poll can stall.
pub(crate) trait Doze {
    /// Marks the monitor asleep if every worker is parked (one atomic step); false if not.
    fn try_doze(&self) -> bool;
    /// Whether the monitor is still marked asleep (no worker has unparked since).
    fn dozing(&self) -> bool;
}

/// What the monitor knows of one stamp.
struct Seen {
    last: StampSample,
    /// When the monitor first saw `last`.
    since: Instant,
    /// The report of the stall under way, if `last` is one.
    reported: Option<StallInfo>,
}

impl Seen {
    fn new(last: StampSample, since: Instant) -> Seen {
        Seen {
            last,
            since,
            reported: None,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Detector {
    pub(crate) fn new(config: StallConfig) -> Detector {
        Detector {
            config,
            stop: Mutex::new(false),
            wake: Condvar::new(),
            stalls: AtomicU64::new(0),
        }
    }

    /// Wakes the monitor from its doze: a worker that took the asleep mark off ([`Doze`]).
    /// Under the lock, so the notify cannot fall between the monitor's check of the mark and
    /// its wait.
    pub(crate) fn rouse(&self) {
        let _g = lock(&self.stop);
        self.wake.notify_all();
    }

    /// Stalls reported so far.
    pub(crate) fn stalls(&self) -> u64 {
        self.stalls.load(Relaxed)
    }

    /// Whether [`stop`](Self::stop) was called.
    pub(crate) fn is_stopped(&self) -> bool {
        *lock(&self.stop)
    }

    /// Makes [`run`](Self::run) return at once (idempotent).
    pub(crate) fn stop(&self) {
        *lock(&self.stop) = true;
        self.wake.notify_all();
    }

    /// How often a monitor samples this detector's stamps: a quarter of the threshold, at
    /// least 1 ms and at most 10 ms.
    fn period(&self) -> Duration {
        (self.config.threshold / 4).clamp(Duration::from_millis(1), Duration::from_millis(10))
    }

    /// The monitor thread's body, until [`stop`](Self::stop): samples the `n` stamps `sample`
    /// reads every [`period`](Self::period) and times how long each has stood still. A stamp
    /// that names a task and has not moved for longer than the threshold is reported
    /// (`tracing::warn!`, `on_stall`, the count, a `stall` instant in `trace`), then handed to
    /// `started`; when it moves, `ended` is called and the end reported. `describe` gives the
    /// name and location of a stalled sample's task (`None`: it is gone, so its poll returned).
    ///
    /// Once a sample finds every stamp where the previous one was and no stall under way, the
    /// monitor asks `doze` to mark it asleep (which succeeds only while every worker is
    /// parked) and then sleeps without a timeout until a worker unparks and wakes it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &self,
        n: usize,
        sample: impl Fn(usize) -> StampSample,
        describe: impl Fn(&StampSample) -> Option<rt_core::task::MetaInfo>,
        trace: Option<&crate::trace::Recorder>,
        doze: &dyn Doze,
        mut started: impl FnMut(usize, StampSample),
        mut ended: impl FnMut(usize, StampSample),
    ) {
        let period = self.period();
        let now = Instant::now();
        let mut seen: Vec<Seen> = (0..n).map(|i| Seen::new(sample(i), now)).collect();
        let mut stopped = lock(&self.stop);
        loop {
            if *stopped {
                break;
            }
            stopped = self
                .wake
                .wait_timeout(stopped, period)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            if *stopped {
                break;
            }
            drop(stopped);
            let now = Instant::now();
            let mut quiet = true;
            for (i, w) in seen.iter_mut().enumerate() {
                let s = sample(i);
                quiet &= s == w.last && s.task_id().is_none() && w.reported.is_none();
                if let Some((info, stamp)) = self.step(w, s, now, i, &describe) {
                    if info.ended {
                        ended(i, stamp);
                        self.report(trace, &info);
                    } else {
                        self.report(trace, &info);
                        started(i, stamp);
                    }
                }
            }
            stopped = lock(&self.stop);
            if quiet && doze.try_doze() {
                while doze.dozing() && !*stopped {
                    stopped = self.wake.wait(stopped).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
    }

    /// One sample `s` of stamp `worker`, taken at `now`: the report to make, if any, with the
    /// stamp of the stall it is about (a new stall is counted here).
    fn step(
        &self,
        w: &mut Seen,
        s: StampSample,
        now: Instant,
        worker: usize,
        describe: &dyn Fn(&StampSample) -> Option<rt_core::task::MetaInfo>,
    ) -> Option<(StallInfo, StampSample)> {
        if s != w.last {
            let (prev, since) = (w.last, w.since);
            w.last = s;
            w.since = now;
            w.reported.take().map(|mut info| {
                info.ended = true;
                info.elapsed = now - since;
                (info, prev)
            })
        } else if w.reported.is_none() && now - w.since > self.config.threshold {
            let task_id = s.task_id()?;
            // `None`: the task (or a named task's record) is gone, so its poll has returned
            // meanwhile.
            let meta = describe(&s)?;
            let info = StallInfo {
                task_id,
                name: meta.name,
                location: meta.location,
                priority: meta.priority,
                worker,
                elapsed: now - w.since,
                ended: false,
            };
            self.stalls.fetch_add(1, Relaxed);
            w.reported = Some(info.clone());
            Some((info, s))
        } else {
            None
        }
    }

    fn report(&self, trace: Option<&crate::trace::Recorder>, info: &StallInfo) {
        self.record(trace, info);
        self.call_on_stall(info);
    }

    /// The first half of `report`: the trace event and the `tracing` warning.
    fn record(&self, trace: Option<&crate::trace::Recorder>, info: &StallInfo) {
        if let Some(trace) = trace {
            trace.record_stall(info.worker, info.task_id, info.elapsed, info.ended);
        }
        let loc = info.location;
        if info.ended {
            tracing::warn!(
                task.id = info.task_id,
                task.name = info.name.as_deref(),
                task.priority = info.priority.as_str(),
                loc.file = loc.file(),
                loc.line = loc.line(),
                worker = info.worker,
                elapsed_ms = info.elapsed.as_secs_f64() * 1e3,
                "rt: a stalled poll returned"
            );
        } else {
            tracing::warn!(
                task.id = info.task_id,
                task.name = info.name.as_deref(),
                task.priority = info.priority.as_str(),
                loc.file = loc.file(),
                loc.line = loc.line(),
                worker = info.worker,
                elapsed_ms = info.elapsed.as_secs_f64() * 1e3,
                "rt: a poll is blocking its worker"
            );
        }
    }

    /// The second half of `report`: the user's callback.
    fn call_on_stall(&self, info: &StallInfo) {
        if let Some(f) = &self.config.on_stall {
            f(info);
        }
    }
}

/// A scheduler with one poll stamp that the process-wide monitor watches ([`watch`]): the
/// current-thread scheduler.
pub(crate) trait Watched: Send + Sync {
    /// A sample of its stamp.
    fn stamp(&self) -> StampSample;
    /// Its stall detection (settings, stop flag, count).
    fn detector(&self) -> &Detector;
    /// Its trace recorder, if any and still there.
    fn trace(&self) -> Option<std::sync::Arc<crate::trace::Recorder>>;
}

/// The process-wide monitor of the current-thread schedulers (exception 11 of
/// `rt_core::sync`: std's lock, condvar and thread, in a `static`).
mod shared_monitor {
    use std::sync::{Condvar, Mutex, MutexGuard, Weak};
    use std::time::{Duration, Instant};

    use super::{Seen, Watched};

    struct State {
        /// The schedulers watched, with what the monitor knows of their stamps.
        watched: Vec<(Weak<dyn Watched>, Seen)>,
        started: bool,
        /// How long the monitor waits now (`None`: for a scheduler to be added): a new one
        /// wakes it only if it must sample sooner.
        waiting: Option<Duration>,
    }

    static STATE: Mutex<State> = Mutex::new(State {
        watched: Vec::new(),
        started: false,
        waiting: None,
    });
    /// Signalled when a scheduler is added.
    static ADDED: Condvar = Condvar::new();

    fn lock() -> MutexGuard<'static, State> {
        STATE.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `w`'s scheduler is still there and watched.
    fn live(w: &Weak<dyn Watched>) -> bool {
        w.upgrade().is_some_and(|x| !x.detector().is_stopped())
    }

    pub(crate) fn watch(w: Weak<dyn Watched>) -> std::io::Result<()> {
        let Some(x) = w.upgrade() else {
            return Ok(());
        };
        let period = x.detector().period();
        let mut st = lock();
        st.watched.push((w, Seen::new(x.stamp(), Instant::now())));
        let wake = st.waiting.is_none_or(|p| period < p);
        if !st.started {
            if let Err(e) = std::thread::Builder::new()
                .name("rt-monitor".into())
                .spawn(run)
            {
                st.watched.pop();
                return Err(e);
            }
            st.started = true;
        }
        drop(st);
        if wake {
            ADDED.notify_all();
        }
        Ok(())
    }

    /// The monitor thread, for the life of the process: asleep while nothing is watched, else
    /// sampling every watched stamp at the shortest of their periods. Reports are made with
    /// the lock released (an `on_stall` callback may take its time).
    fn run() {
        let mut st = lock();
        loop {
            st.watched.retain(|(w, _)| live(w));
            let period = st
                .watched
                .iter()
                .filter_map(|(w, _)| w.upgrade().map(|x| x.detector().period()))
                .min();
            st.waiting = period;
            let Some(period) = period else {
                st = ADDED.wait(st).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            st = ADDED
                .wait_timeout(st, period)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            st.waiting = Some(Duration::ZERO); // awake: a new scheduler waits for the next turn
            let now = Instant::now();
            let mut reports = Vec::new();
            for (w, seen) in st.watched.iter_mut() {
                let Some(x) = w.upgrade().filter(|x| !x.detector().is_stopped()) else {
                    continue;
                };
                if let Some((info, _)) =
                    x.detector()
                        .step(seen, x.stamp(), now, 0, &super::StampSample::describe)
                {
                    reports.push((x, info));
                }
            }
            drop(st);
            for (x, info) in reports {
                // The recorder is let go before the callback, which may take its time: the
                // trace file is finished when the runtime drops, not when a report ends.
                x.detector().record(x.trace().as_deref(), &info);
                x.detector().call_on_stall(&info);
            }
            st = lock();
        }
    }
}

/// Has the process-wide monitor thread (`rt-monitor`, started with the first scheduler it
/// watches, then asleep whenever it watches none) sample `w`'s stamp as its worker 0 and
/// report its stalls, until its detector is stopped or it is dropped. One thread for every
/// current-thread runtime of the process: a runtime costs no thread start nor join.
pub(crate) fn watch(w: std::sync::Weak<dyn Watched>) -> std::io::Result<()> {
    shared_monitor::watch(w)
}

/// A poll that has run (or ran) longer than the stall threshold: what `Builder::on_stall`
/// receives. Each stall is reported once while it lasts (`ended() == false`, `elapsed()` at
/// least the threshold) and once when the poll has returned (`ended() == true`, `elapsed()`
/// its total length as the monitor measured it, within one sampling period).
#[derive(Clone, Debug)]
pub struct StallInfo {
    pub(crate) task_id: u64,
    pub(crate) name: Option<String>,
    pub(crate) location: &'static Location<'static>,
    pub(crate) priority: rt_core::task::Priority,
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

    /// The stalled task's priority (a background task that never reaches a budget check
    /// cannot be sliced: its worker's take-over serves normal work first).
    pub fn priority(&self) -> rt_core::task::Priority {
        self.priority
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

    #[test]
    fn counted_stamp_is_the_poll_count_and_keeps_no_meta() {
        let s = PollStamp::default();
        let id = rt_core::task::next_id();
        for n in 1..=3 {
            s.enter_counted(id);
            assert_eq!(s.polls(), n);
            assert_eq!(s.running_task(), Some(id.as_u64()));
        }
        let a = s.sample();
        assert!(
            a.describe().is_none(),
            "the monitor looks the task up by id"
        );
        s.idle();
        assert_eq!(s.polls(), 3, "idle counts no poll");
        assert_ne!(s.sample(), a);
        s.enter_counted(id);
        assert_ne!(s.sample(), a, "the next poll of the same task differs");
    }
}
