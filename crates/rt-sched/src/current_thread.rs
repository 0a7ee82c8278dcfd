//! The current-thread scheduler (1:N): the same task type, run on whichever thread is inside
//! `block_on`. With no thread in `block_on`, spawned tasks wait in the queue.
//!
//! One run queue (`Mutex<VecDeque>`), shared by wakes from the driving thread and from others; a
//! wake from another thread unparks the driver. The driver polls the `block_on` future when it
//! was woken, and between those polls runs up to `event_interval` (61 by default) queued tasks,
//! so neither starves the other; every `event_interval`th round it also turns the IO driver.
//!
//! Priorities: background tasks (`rt_core::task::Priority`) wait in a second queue, run only
//! when the first is empty, or one every `background_interval` tasks so they never starve;
//! their polls run in time slices (`rt_core::coop`), ended at a budget check after
//! `background_slice` if the `block_on` future was woken, a normal task is queued, or the IO
//! driver has events ready (`IoDriver::has_ready`); such a poll is followed by a non-blocking
//! turn of the IO driver, so the events' tasks run before the next background poll. The multi-thread scheduler's "Priorities"
//! docs say the rest (inheritance, inversion), which holds here too.
//!
//! Stall detection (`with_stall`): the driving thread writes a poll stamp (`crate::stall`)
//! before each task's poll and clears it after each round of tasks, so the stamp names a task
//! only while one is polled (not while the `block_on` future is, which is no task). A
//! `LocalSet` driven by that thread stamps its polls there too (`stall::with_thread_stamp`). One
//! process-wide monitor thread (`rt-monitor`, `stall::watch`, started by the first `block_on`
//! of the first such runtime, asleep while it watches none) samples the stamps of every
//! current-thread runtime with the multi-thread monitor's step (`stall::Detector`) and reports,
//! as worker 0, a poll that blocks past the threshold: a runtime costs no thread of its own. There is no take-over: every task of this scheduler
//! runs on the thread inside `block_on`, which the stalled poll holds, and a task cannot be
//! moved to another thread while it is being polled.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Wake, Waker};

// std `Arc`s on purpose: `Shared` is handed to `rt_core::batch::defer` as an `Arc<dyn Unpark>`,
// `MainWaker` is a `std::task::Wake` receiver, and the IO driver is a trait object; loom's
// `Arc` can be none of these (`rt_core::sync::StdArc`, exception 7).
use rt_core::sync::StdArc as Arc;
use rt_core::sync::{unmodelled, AtomicBool, Mutex, OnceLock, Ordering};
use rt_core::task::{Id, JoinHandle, Notified, OwnedTasks, Schedule, Task};

use crate::park::{Parker, Unparker};
use crate::run_queue::RunQueue;
use crate::stall::{Detector, PollStamp, StallConfig, ThreadStampGuard};
use crate::IoDriver;

struct Shared {
    queue: RunQueue<Notified<Handle>>,
    /// Background tasks (module docs).
    bg_queue: RunQueue<Notified<Handle>>,
    owned: OwnedTasks<Handle>,
    unparker: Unparker,
    /// The driver's parker, taken by the thread inside `block_on`.
    parker: Mutex<Option<Parker>>,
    /// The threads in `block_on` that wait for the parker while another thread drives: woken
    /// when it is put back, so one of them takes over the driver (tokio's "always active
    /// parker"). At most one waker per waiting thread.
    parker_waiters: Mutex<Vec<Waker>>,
    frame_pool: bool,
    /// A statistic, in no protocol: `unmodelled` (the shim's exception 2).
    polls: unmodelled::AtomicU64,
    /// Tasks spawned so far: a statistic, like `polls`.
    spawned: unmodelled::AtomicU64,
    io_driver: Option<Arc<dyn IoDriver>>,
    /// The driving thread is (about to be) blocked in `io_driver` rather than on its parker.
    on_driver: AtomicBool,
    /// Set once, before tasks run, to shut down on an unhandled panic (`Handle`'s setter).
    panic_hook: OnceLock<crate::PanicHook>,
    /// The trace recorder, with a trace file (`crate::trace`; every event of this scheduler
    /// goes through its locked buffer, on the recording thread's track).
    trace: Option<Arc<crate::trace::Recorder>>,
    /// The driving thread's poll stamp (module docs; written only by the thread that holds the
    /// parker).
    stamp: Arc<crossbeam_utils::CachePadded<PollStamp>>,
    /// Stall detection, if on (`with_stall`).
    stall: Option<Arc<Detector>>,
    /// What the process-wide monitor watches, once the first `block_on` has handed it over
    /// (`Watch`). The only strong reference: the monitor holds a `Weak`.
    watched: OnceLock<Arc<Watch>>,
    /// The user's park hooks (`with_park_hooks`).
    park_hooks: crate::ParkHooks,
    /// Parks of the driving thread plus its wake-ups from them (tokio's
    /// `worker_park_unpark_count`): odd while it sleeps. A statistic, like `polls`.
    park_unparks: unmodelled::AtomicU64,
    /// Nanoseconds the driving thread spent in `block_on` outside its parks (tokio's
    /// `worker_total_busy_duration`): added when it parks and when `block_on` returns, so the
    /// clock is read only there. A statistic, like `polls`.
    busy_nanos: unmodelled::AtomicU64,
    /// A task woke itself during its poll (a yield: `yield_now`, a spent budget) and the
    /// driver has not turned since: `block_on` turns it, without blocking, before the yielder
    /// runs again (tokio's deferred yields), so a yield lets pending IO and timers in, and
    /// polls the `block_on` future first if it is woken. (The future's own yields are
    /// `drive`'s `main_yielded`.) Set and cleared by the driving thread.
    yielded: AtomicBool,
}

/// What the process-wide monitor watches of a scheduler: an allocation of its own, apart from
/// `Shared`, so that the monitor, which holds it for a moment at each sample and report, never
/// ends up with the last reference to the scheduler and drops it late on its own thread: the
/// driver's descriptors close and the trace file is finished when the runtime is dropped.
struct Watch {
    stamp: Arc<crossbeam_utils::CachePadded<PollStamp>>,
    stall: Arc<Detector>,
    trace: Option<std::sync::Weak<crate::trace::Recorder>>,
}

impl crate::stall::Watched for Watch {
    fn stamp(&self) -> crate::stall::StampSample {
        self.stamp.sample()
    }

    fn detector(&self) -> &Detector {
        &self.stall
    }

    fn trace(&self) -> Option<Arc<crate::trace::Recorder>> {
        self.trace
            .as_ref()
            .and_then(std::sync::Weak::upgrade)
            .filter(|_| rt_core::OBSERVE)
    }
}

impl Shared {
    /// The next task to run: normal work first, background work when there is none, or first
    /// when `share` (module docs).
    fn next_task(&self, share: bool) -> Option<Notified<Handle>> {
        if share {
            if let Some(t) = self.bg_queue.pop() {
                return Some(t);
            }
        }
        self.queue.pop().or_else(|| self.bg_queue.pop())
    }

    /// Polls `task` on this thread, through the trace if one is on.
    fn run(&self, task: Notified<Handle>) {
        match self.trace() {
            Some(r) => r.run_here(task, "current-thread"),
            None => task.run(),
        }
    }

    /// The recorder, if a trace file is on (and observation compiled in).
    #[inline]
    fn trace(&self) -> Option<&crate::trace::Recorder> {
        self.trace.as_deref().filter(|_| rt_core::OBSERVE)
    }

    /// Wakes the driving thread wherever it sleeps. Pairs with `block_on`'s idle path: it
    /// publishes `on_driver` before re-checking the queue and its own woken flag.
    fn unpark(&self) {
        self.unparker.unpark();
        if self.on_driver.load(Ordering::SeqCst) {
            if let Some(d) = &self.io_driver {
                d.unpark(0);
            }
        }
    }
}

/// A handle to a current-thread scheduler.
#[derive(Clone)]
pub struct Handle {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("current_thread::Handle")
            .field("live_tasks", &self.shared.owned.len())
            .finish()
    }
}

/// A current-thread scheduler.
#[derive(Debug)]
pub struct CurrentThread {
    handle: Handle,
    /// Tasks run between two polls of the `block_on` future, and rounds between two
    /// non-blocking turns of the IO driver.
    event_interval: u32,
    /// A background poll's time slice (module docs).
    background_slice: std::time::Duration,
    /// Every this many tasks a queued background task runs before normal ones.
    background_interval: u32,
}

/// The waker of the `block_on` future of a scheduler, whose thread may sleep in the IO driver.
struct MainWaker {
    woken: AtomicBool,
    shared: Arc<Shared>,
}

impl Wake for MainWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        // A swap, not a store: the driver clears the flag with a swap, and loom (0.7.3) lets
        // an RMW read a store superseded by a plain store that happens-before it, which shows up
        // as a false lost wake-up in the models. As an RMW the wake is ordered after the clear.
        self.woken.swap(true, Ordering::SeqCst);
        self.shared.unpark();
    }
}

impl CurrentThread {
    /// A new scheduler; `frame_pool` chooses where task cells come from; `io_driver`, if any, is
    /// where the `block_on` thread sleeps when it has nothing to run.
    pub fn new(frame_pool: bool, io_driver: Option<Arc<dyn IoDriver>>) -> CurrentThread {
        let parker = Parker::new();
        let unparker = parker.unparker().clone();
        CurrentThread {
            handle: Handle {
                shared: Arc::new(Shared {
                    queue: RunQueue::with_capacity(64),
                    bg_queue: RunQueue::with_capacity(0),
                    owned: OwnedTasks::new(0),
                    unparker,
                    parker: Mutex::new(Some(parker)),
                    parker_waiters: Mutex::new(Vec::new()),
                    frame_pool,
                    polls: unmodelled::AtomicU64::new(0),
                    spawned: unmodelled::AtomicU64::new(0),
                    io_driver,
                    on_driver: AtomicBool::new(false),
                    panic_hook: OnceLock::new(),
                    trace: None,
                    stamp: Default::default(),
                    stall: None,
                    watched: OnceLock::new(),
                    park_hooks: Default::default(),
                    park_unparks: unmodelled::AtomicU64::new(0),
                    busy_nanos: unmodelled::AtomicU64::new(0),
                    yielded: AtomicBool::new(false),
                }),
            },
            event_interval: crate::DEFAULT_EVENT_INTERVAL,
            background_slice: crate::tuning::DEFAULT_BACKGROUND_SLICE,
            background_interval: crate::tuning::DEFAULT_BACKGROUND_INTERVAL,
        }
    }

    /// Sets the background time slice and share (module docs; defaults in `crate::tuning`).
    ///
    /// # Panics
    /// When `interval` is 0.
    pub fn with_background(mut self, slice: std::time::Duration, interval: u32) -> CurrentThread {
        assert!(interval > 0, "background_interval must be greater than 0");
        self.background_slice = slice;
        self.background_interval = interval;
        self
    }

    /// Sets how many tasks run between two polls of the `block_on` future, and how many such
    /// rounds pass between two non-blocking turns of the IO driver (default
    /// [`crate::DEFAULT_EVENT_INTERVAL`]).
    ///
    /// # Panics
    /// When `n` is 0.
    pub fn with_event_interval(mut self, n: u32) -> CurrentThread {
        assert!(n > 0, "event_interval must be greater than 0");
        self.event_interval = n;
        self
    }

    /// Calls `on_park` on the `block_on` thread just before it sleeps for lack of work, and
    /// `on_unpark` just after it wakes (tokio's `on_thread_park` / `on_thread_unpark`). A task
    /// `on_park` spawns is run instead of sleeping.
    ///
    /// # Panics
    /// When the scheduler's handle has been cloned already.
    pub fn with_park_hooks(mut self, hooks: crate::ParkHooks) -> CurrentThread {
        Arc::get_mut(&mut self.handle.shared)
            .expect("with_park_hooks before use")
            .park_hooks = hooks;
        self
    }

    /// Records a Chrome trace into `recorder` (`crate::trace`): polls on the track of the
    /// thread inside `block_on`. Call before any other use.
    ///
    /// # Panics
    /// When the scheduler's handle has been cloned already.
    pub fn with_trace(mut self, recorder: Arc<crate::trace::Recorder>) -> CurrentThread {
        Arc::get_mut(&mut self.handle.shared)
            .expect("with_trace before use")
            .trace = Some(recorder.clone());
        let weak = Arc::downgrade(&self.handle.shared);
        recorder.set_sampler(Box::new(move || match weak.upgrade() {
            Some(s) => (
                (s.queue.len() + s.bg_queue.len()) as u64,
                s.owned.len() as u64,
            ),
            None => (0, 0),
        }));
        self
    }

    /// Turns on stall detection (module docs) with `config`; `None` leaves it off. Call
    /// before any other use.
    ///
    /// # Panics
    /// When the scheduler's handle has been cloned already.
    pub fn with_stall(mut self, config: Option<StallConfig>) -> CurrentThread {
        Arc::get_mut(&mut self.handle.shared)
            .expect("with_stall before use")
            .stall = config.map(|c| Arc::new(Detector::new(c)));
        self
    }

    /// The scheduler's handle.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Has the process-wide monitor (`stall::watch`) watch this scheduler's stamp, if stall
    /// detection is on and it does not yet. A monitor thread that cannot be started is
    /// reported and stall detection stays off.
    fn start_monitor(&self) {
        let shared = &self.handle.shared;
        let Some(stall) = &shared.stall else {
            return;
        };
        if shared.watched.get().is_some() {
            return;
        }
        let watch = Arc::new(Watch {
            stamp: shared.stamp.clone(),
            stall: stall.clone(),
            trace: shared.trace.as_ref().map(Arc::downgrade),
        });
        let weak: std::sync::Weak<Watch> = Arc::downgrade(&watch);
        if shared.watched.set(watch).is_err() {
            return; // another `block_on` thread handed it over first
        }
        if let Err(e) = crate::stall::watch(weak as std::sync::Weak<dyn crate::stall::Watched>) {
            tracing::warn!(error = %e, "rt: could not start the stall monitor thread");
        }
    }

    /// Runs `future` to completion on this thread, running spawned tasks meanwhile.
    ///
    /// Several threads may call it at once: one drives the scheduler (holds the parker); the
    /// others wait for their own futures, and when the driving thread returns one of them takes
    /// the driver over, so tasks, IO and timers keep running while any thread is inside (as in
    /// tokio).
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        let shared = &self.handle.shared;
        let mut future = pin!(future);
        loop {
            // Taken in its own statement: the lock is released before `drive`.
            let parker = shared.parker.lock().unwrap().take();
            if let Some(parker) = parker {
                return self.drive(future, parker);
            }
            // Another thread drives the scheduler: wait for our own future, or for the parker
            // to come back.
            let out = rt_core::block::poll_until_ready(|cx| {
                if let Poll::Ready(out) = rt_core::coop::budget(|| future.as_mut().poll(cx)) {
                    return Poll::Ready(Some(out));
                }
                {
                    let mut waiters = shared.parker_waiters.lock().unwrap();
                    if !waiters.iter().any(|w| w.will_wake(cx.waker())) {
                        waiters.push(cx.waker().clone());
                    }
                }
                // Checked after the waker is listed: a parker put back before that is seen
                // here, one put back after it wakes this thread.
                if shared.parker.lock().unwrap().is_some() {
                    return Poll::Ready(None);
                }
                Poll::Pending
            });
            if let Some(out) = out {
                return out;
            }
        }
    }

    /// `block_on` on the thread that took the parker: runs `future` and the scheduler's tasks,
    /// sleeping in the driver when there is nothing to do, until `future` completes; then puts
    /// the parker back and wakes the threads waiting for it.
    fn drive<F: Future>(&self, mut future: std::pin::Pin<&mut F>, parker: Parker) -> F::Output {
        let shared = &self.handle.shared;
        struct PutBack<'a>(&'a Shared, Option<Parker>);
        impl Drop for PutBack<'_> {
            fn drop(&mut self) {
                *self.0.parker.lock().unwrap() = self.1.take();
                let waiters = std::mem::take(&mut *self.0.parker_waiters.lock().unwrap());
                for w in waiters {
                    w.wake();
                }
            }
        }
        let guard = PutBack(shared, Some(parker));
        let busy = BusyClock::start(&shared.busy_nanos);
        let _drives = DrivesHere::enter();
        self.start_monitor();
        // Dropped before `guard`: the stamp is this thread's to write until the parker goes
        // back.
        // SAFETY: `shared` (and its stamp) outlives this frame; the guard drops here, on this
        // thread; only the thread holding the parker writes the stamp, and this one holds it
        // until after the guard drops.
        let _stamp = rt_core::OBSERVE.then(|| unsafe { ThreadStampGuard::enter(&shared.stamp) });
        let _mode = rt_core::pool::enter_thread_mode(rt_core::pool::ThreadMode::Recycling);
        let main = Arc::new(MainWaker {
            woken: AtomicBool::new(true),
            shared: shared.clone(),
        });
        let waker = Waker::from(main.clone());
        let mut cx = Context::from_waker(&waker);
        let mut tick = 0u32;
        let mut until_background = self.background_interval;
        // At a background poll's slice boundary: normal work waits (module docs).
        let waiting = |io: bool| {
            main.woken.load(Ordering::Acquire)
                || shared.queue.has_work()
                || (io && shared.io_driver.as_ref().is_some_and(|d| d.has_ready(0)))
        };
        // The `block_on` future woke itself during its last poll (a yield, as a task's
        // `Shared::yielded`).
        let main_yielded = std::cell::Cell::new(false);
        // After a yield, once the yielder is next to run (nothing else is queued ahead of it):
        // a turn of the driver without blocking. Returns whether a task's yield was behind it.
        let turn_for_yield = || {
            let task_yielded = shared.yielded.load(Ordering::Relaxed);
            if (task_yielded || main_yielded.get()) && shared.queue.len() <= 1 {
                shared.yielded.store(false, Ordering::Relaxed);
                main_yielded.set(false);
                if let Some(d) = &shared.io_driver {
                    d.try_drive(0, Some(std::time::Duration::ZERO), &|| false);
                }
                return task_yielded;
            }
            false
        };
        loop {
            tick = tick.wrapping_add(1);
            if tick.is_multiple_of(self.event_interval) {
                // Let IO and timers in even while tasks keep this thread busy.
                shared.yielded.store(false, Ordering::Relaxed);
                main_yielded.set(false);
                if let Some(d) = &shared.io_driver {
                    d.try_drive(0, Some(std::time::Duration::ZERO), &|| false);
                }
            }
            turn_for_yield();
            if main.woken.swap(false, Ordering::AcqRel) {
                if let Poll::Ready(out) = rt_core::coop::budget(|| future.as_mut().poll(&mut cx)) {
                    return out;
                }
                if main.woken.load(Ordering::Acquire) {
                    // Woken during its own poll: a yield.
                    main_yielded.set(true);
                }
            }
            let mut ran = 0;
            while ran < self.event_interval {
                if turn_for_yield() && main.woken.load(Ordering::Acquire) {
                    // Only a task that yielded is left to run, and the `block_on` future is
                    // woken: the future runs first, as tokio polls it before the tasks whose
                    // yields it deferred. Else a task that yields in a loop would run up to
                    // `event_interval` times before the future runs again.
                    break;
                }
                until_background -= 1;
                let share = until_background == 0;
                if share {
                    until_background = self.background_interval;
                }
                let Some(task) = shared.next_task(share) else {
                    break;
                };
                if rt_core::OBSERVE {
                    shared.stamp.enter(task.id(), task.meta_word());
                }
                if task.priority().is_background() {
                    let slice = rt_core::coop::Slice::new(
                        self.background_slice,
                        crate::tuning::BACKGROUND_IO_CHECK_INTERVAL,
                        &waiting,
                    );
                    rt_core::coop::with_slice(&slice, || shared.run(task));
                    if slice.yielded() {
                        // Normal work waits, perhaps as events: let them in before the next
                        // background poll.
                        if let Some(d) = &shared.io_driver {
                            d.try_drive(0, Some(std::time::Duration::ZERO), &|| false);
                        }
                    }
                } else {
                    shared.run(task);
                }
                ran += 1;
            }
            if ran > 0 {
                // One add per batch, not per poll: `polls` is a statistic, read by metrics only.
                shared
                    .polls
                    .fetch_add(u64::from(ran), unmodelled::Ordering::Relaxed);
            }
            if rt_core::OBSERVE && ran > 0 {
                // Not in a task's poll any more (next: the `block_on` future, IO, or a park).
                shared.stamp.idle();
            }
            if ran == 0 && !main.woken.load(Ordering::Acquire) {
                self.idle(&main, guard.1.as_ref().expect("parker present"), &busy);
            }
        }
    }

    /// Nothing to run: sleep in the IO driver if there is one (so IO wakes land here without
    /// another thread), else on the parker.
    fn idle(&self, main: &MainWaker, parker: &Parker, busy: &BusyClock<'_>) {
        let shared = &self.handle.shared;
        // The user's hooks around the sleep; `on_unpark` runs last (declared first), after
        // the park/unpark count is even again.
        let _unpark_hook = shared.park_hooks.enter();
        let has_work = || {
            main.woken.load(Ordering::SeqCst)
                || shared.queue.has_work()
                || shared.bg_queue.has_work()
        };
        if has_work() {
            // `on_park` spawned a task or woke the `block_on` future: no sleep, but a turn of
            // the driver without blocking, so that timers and IO still get in when `on_park`
            // wakes the future every time (tokio's #8212).
            if shared.park_hooks.on_park.is_some() {
                if let Some(d) = &shared.io_driver {
                    d.try_drive(0, Some(std::time::Duration::ZERO), &|| false);
                }
            }
            return;
        }
        let _counted = ParkCount::enter(&shared.park_unparks, busy);
        if let Some(d) = &shared.io_driver {
            shared.on_driver.store(true, Ordering::SeqCst);
            let nothing = !has_work();
            // Checked again once this thread holds the driver (see `IoDriver::try_drive`). The
            // one thread is idle when it has no work: rule P2 of rt-io's `time/clock.rs`.
            let drove = nothing && d.try_drive_idle(0, None, &has_work, &|| !has_work());
            shared.on_driver.store(false, Ordering::SeqCst);
            if drove || !nothing {
                return;
            }
        }
        parker.park();
    }

    /// Cancels every task (each future dropped once, on this thread) and stops stall
    /// detection (the monitor forgets the scheduler at its next turn). Idempotent.
    pub fn shutdown(&self) {
        self.handle.close();
        if let Some(d) = &self.handle.shared.stall {
            d.stop();
        }
    }
}

impl Drop for CurrentThread {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Counts a park of the driving thread now and its wake-up when dropped
/// (`Shared::park_unparks`); the busy time stops for its length.
struct ParkCount<'a>(&'a unmodelled::AtomicU64, &'a BusyClock<'a>);

impl<'a> ParkCount<'a> {
    fn enter(c: &'a unmodelled::AtomicU64, busy: &'a BusyClock<'a>) -> ParkCount<'a> {
        c.fetch_add(1, unmodelled::Ordering::Relaxed);
        busy.stop();
        ParkCount(c, busy)
    }
}

impl Drop for ParkCount<'_> {
    fn drop(&mut self) {
        self.1.restart();
        self.0.fetch_add(1, unmodelled::Ordering::Relaxed);
    }
}

/// The driving thread's busy time (`Shared::busy_nanos`): runs from `block_on`'s start to its
/// end, stopped across parks. Reads the clock only at those points (not at all when
/// `rt_core::OBSERVE` is off).
struct BusyClock<'a> {
    total: &'a unmodelled::AtomicU64,
    since: std::cell::Cell<Option<std::time::Instant>>,
}

impl<'a> BusyClock<'a> {
    fn start(total: &'a unmodelled::AtomicU64) -> BusyClock<'a> {
        let clock = BusyClock {
            total,
            since: std::cell::Cell::new(None),
        };
        clock.restart();
        clock
    }

    fn restart(&self) {
        if rt_core::OBSERVE {
            self.since.set(Some(std::time::Instant::now()));
        }
    }

    fn stop(&self) {
        if let Some(since) = self.since.take() {
            let nanos = u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX);
            self.total.fetch_add(nanos, unmodelled::Ordering::Relaxed);
        }
    }
}

impl Drop for BusyClock<'_> {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `block_on` without a scheduler: park the thread until the future's waker fires
/// (`rt_core::block`), each poll with a fresh cooperative budget.
pub fn park_block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    rt_core::block::poll_until_ready(|cx| rt_core::coop::budget(|| future.as_mut().poll(cx)))
}

impl Handle {
    /// Spawns a task (it runs while some thread is inside `block_on`). During or after shutdown
    /// the future is dropped at once and the handle resolves to a cancellation error.
    #[track_caller]
    pub fn spawn<F>(&self, future: F, id: Id) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.spawn_with(future, id, rt_core::task::SpawnMeta::caller())
    }

    /// [`spawn`](Self::spawn) with an explicit name and spawn location.
    pub fn spawn_with<F>(
        &self,
        future: F,
        id: Id,
        meta: rt_core::task::SpawnMeta<'_>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (join, notified) =
            self.shared
                .owned
                .bind(future, self.clone(), id, meta, self.shared.frame_pool);
        tracing::trace!(task.id = id.as_u64(), "spawn");
        if let Some(r) = self.shared.trace() {
            r.spawn(None, id.as_u64(), &meta);
        }
        if let Some(n) = notified {
            if rt_core::OBSERVE {
                self.shared
                    .spawned
                    .fetch_add(1, unmodelled::Ordering::Relaxed);
            }
            self.push(n);
        }
        join
    }

    /// Makes an unhandled panic in a task shut the scheduler down, after giving its payload to
    /// `hook`. Set it before tasks run; a second call is ignored.
    pub fn set_unhandled_panic_hook(&self, hook: crate::PanicHook) {
        let _ = self.shared.panic_hook.set(hook);
    }

    /// Cancels every task (each future dropped once, on this thread) and wakes the driving
    /// thread. Idempotent.
    fn close(&self) {
        let shared = &self.shared;
        shared.owned.close_and_shutdown_all();
        shared.queue.close();
        shared.bg_queue.close();
        shared.unpark();
    }

    /// Every live task of this scheduler, as seen by one walk of its owned list
    /// (`OwnedTasks::for_each_live`): never blocks on a task, callable from any thread. A
    /// running task runs on the thread inside `block_on`: reported as worker 0.
    pub fn dump(&self) -> Vec<rt_core::task::TaskSnapshot> {
        let mut tasks = Vec::with_capacity(self.shared.owned.len());
        self.shared.owned.for_each_live(|h| {
            if let Some(mut t) = rt_core::task::TaskSnapshot::of(h, 1) {
                t.worker = t.running.then_some(0);
                tasks.push(t);
            }
        });
        tasks
    }

    /// The id of the task the thread inside `block_on` is polling now (`None`: not in a
    /// task's poll), read from its poll stamp: a hint, for the task dump.
    pub fn running_task(&self) -> Option<u64> {
        self.shared.stamp.running_task()
    }

    /// Task polls run so far.
    pub fn polls(&self) -> u64 {
        self.shared.polls.load(unmodelled::Ordering::Relaxed)
    }

    /// Tasks alive.
    pub fn live_tasks(&self) -> usize {
        self.shared.owned.len()
    }

    /// A copy of the scheduler's metrics: its one worker is the thread inside `block_on`, its
    /// run queue counts as the injector. Only polls, live and spawned tasks, the queue depth
    /// and stalls are kept; the blocking-pool fields are the facade's.
    pub fn metrics(&self) -> crate::metrics::Metrics {
        crate::metrics::Metrics {
            workers: vec![{
                let park_unparks = self.shared.park_unparks.load(unmodelled::Ordering::Relaxed);
                crate::metrics::WorkerMetrics {
                    polls: self.polls(),
                    // Each park adds one when it starts and one when it ends.
                    parks: park_unparks.div_ceil(2),
                    unparks: park_unparks / 2,
                    park_unparks,
                    busy: std::time::Duration::from_nanos(
                        self.shared.busy_nanos.load(unmodelled::Ordering::Relaxed),
                    ),
                    ..Default::default()
                }
            }],
            live_tasks: self.live_tasks(),
            spawned_tasks: self.shared.spawned.load(unmodelled::Ordering::Relaxed),
            injector_depth: self.shared.queue.len() + self.shared.bg_queue.len(),
            stalls: self.shared.stall.as_deref().map_or(0, Detector::stalls),
            ..Default::default()
        }
    }
}

impl crate::metrics::LiveMetrics for Handle {
    fn num_workers(&self) -> usize {
        1
    }

    fn worker_value(&self, worker: usize, value: crate::metrics::WorkerValue) -> u64 {
        use crate::metrics::WorkerValue as V;
        assert_eq!(worker, 0, "a current-thread runtime has one worker");
        let park_unparks = || self.shared.park_unparks.load(unmodelled::Ordering::Relaxed);
        // As in `metrics`: what this scheduler does not count is 0.
        match value {
            V::Polls => self.polls(),
            V::Parks => park_unparks().div_ceil(2),
            V::Unparks => park_unparks() / 2,
            V::ParkUnparks => park_unparks(),
            V::BusyNanos => self.shared.busy_nanos.load(unmodelled::Ordering::Relaxed),
            _ => 0,
        }
    }

    fn runtime_value(&self, value: crate::metrics::RuntimeValue) -> u64 {
        use crate::metrics::RuntimeValue as V;
        match value {
            V::AliveTasks => self.live_tasks() as u64,
            V::SpawnedTasks => self.shared.spawned.load(unmodelled::Ordering::Relaxed),
            V::GlobalQueueDepth => (self.shared.queue.len() + self.shared.bg_queue.len()) as u64,
            V::Stalls => self.shared.stall.as_deref().map_or(0, Detector::stalls),
            _ => 0,
        }
    }

    fn histograms_enabled(&self) -> bool {
        false
    }

    fn histogram_bucket(&self, worker: usize, _: crate::metrics::HistogramKind, _: usize) -> u64 {
        assert_eq!(worker, 0, "a current-thread runtime has one worker");
        0
    }
}

impl rt_core::batch::Unpark for Shared {
    fn unpark(&self) {
        Shared::unpark(self);
    }
}

impl Schedule for Handle {
    fn release(&self, task: &Task<Handle>) -> Option<Task<Handle>> {
        if let Some(r) = self.shared.trace() {
            r.complete(None, task.id().as_u64());
        }
        self.shared.owned.remove(task)
    }

    fn schedule(&self, task: Notified<Handle>) {
        if let Some(r) = self.shared.trace() {
            r.wake(None, task.id().as_u64(), false);
        }
        self.push(task);
    }

    fn yield_now(&self, task: Notified<Handle>) {
        self.shared.yielded.store(true, Ordering::Relaxed);
        self.schedule(task);
    }

    fn unhandled_panic(
        &self,
        payload: Box<dyn std::any::Any + Send>,
    ) -> Box<dyn std::any::Any + Send> {
        crate::route_unhandled_panic(self.shared.panic_hook.get(), payload, || self.close())
    }
}

impl Handle {
    /// Queues a task and wakes the driving thread (a spawn, or a wake through `schedule`).
    fn push(&self, task: Notified<Handle>) {
        let queue = if task.priority().is_background() {
            &self.shared.bg_queue
        } else {
            &self.shared.queue
        };
        if !queue.push(task) {
            return; // shut down: the owned list has cancelled (or will cancel) the task
        }
        if !rt_core::batch::defer(&self.shared) {
            self.shared.unpark();
        }
    }
}

rt_core::sync::thread_local! {
    /// Whether this thread drives a current-thread scheduler now (inside `block_on`, holding
    /// its parker).
    static DRIVES_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks this thread as driving a current-thread scheduler while it lives.
struct DrivesHere(bool);

impl DrivesHere {
    fn enter() -> DrivesHere {
        DrivesHere(DRIVES_HERE.with(|d| d.replace(true)))
    }
}

impl Drop for DrivesHere {
    fn drop(&mut self) {
        let _ = DRIVES_HERE.try_with(|d| d.set(self.0));
    }
}

/// Whether this thread drives a current-thread scheduler now: inside its `block_on`, as the
/// thread that holds the scheduler (tokio's `worker_index() == Some(0)`). A second thread in
/// `block_on` that only waits for its own future does not.
pub fn drives_here() -> bool {
    DRIVES_HERE.try_with(|d| d.get()).unwrap_or(false)
}
