//! One worker's run loop: find a task, run it, repeat; steal, spin, park when there is none.
//!
//! When the worker turns the IO driver (its own shard, see `IoDriver`):
//!
//! - `poll_driver_on_interval`: every `event_interval` ticks while busy, so IO and timers get
//!   in even while tasks keep it running;
//! - `poll_driver_when_out_of_work`: its queues are empty (before stealing, when it owns its
//!   shard, and before spinning);
//! - `park_in_driver`: it is parking; it blocks in the driver instead of on its parker;
//! - `turn_for_yield`: a task yielded and is next to run: events and timers get in first;
//! - `turn_driver_nonblocking`: the one non-blocking turn the first two are made of.

// `Cell`, not a shim type: the worker's own state, touched only by its thread (no protocol).
use std::cell::Cell;
use std::ptr;

use rt_core::task::Notified;

use rt_core::sync::{AtomicBool, Ordering};

use super::lend::{Armed, Job, LendRecord};
use super::{Arc, Handle, Shared};
use crate::idle::{LeftSearching, ToSearching, UnparkById};
use crate::park::Parker;
use crate::queue::Local;

mod block_in_place;
mod park;

pub(crate) use block_in_place::block_in_place;
pub(super) use block_in_place::substitute;

use crate::tuning::MAX_LIFO_POLLS;

/// The state of the worker running on this thread. Lives on the worker's stack; the
/// thread-local `CURRENT_WORKER` points at it while the run loop is active. Only its own thread
/// touches it, so plain `Cell`s suffice.
pub(crate) struct WorkerContext {
    handle: Handle,
    index: usize,
    local: Local<Notified<Handle>>,
    /// This worker's queue of background tasks ("Priorities" in `multi_thread`'s docs).
    bg_local: Local<Notified<Handle>>,
    /// Ticks left until a queued background task runs before normal work (counts down from
    /// `background_interval`).
    until_background: Cell<u32>,
    /// This worker's LIFO slot, `Shared::lifos[index]` (kept alive by `handle`; a take-over
    /// thread may take from it, `crate::lifo`).
    lifo: ptr::NonNull<crate::lifo::LifoSlot<Handle>>,
    lifo_polls: Cell<u32>,
    /// This worker's counters, `Shared::counters[index]` (kept alive by `handle`; cached here
    /// so the per-task counter bumps chase no pointers).
    counters: ptr::NonNull<crate::metrics::WorkerCounters>,
    /// This worker's poll stamp, `Shared::stamps[index]` (likewise).
    stamp: ptr::NonNull<crate::stall::PollStamp>,
    /// Ticks left until the next `poll_driver_on_interval` (counts down from `event_interval`;
    /// a countdown rather than `tick % interval`, which would divide on every tick).
    until_event: Cell<u32>,
    /// When this worker last took a break from running tasks: woke from a park, or yielded
    /// its CPU (`maybe_yield_cpu`, `yield_before_park`).
    last_break: Cell<std::time::Instant>,
    /// Whether this substitute has yielded its CPU since it last ran a task
    /// (`yield_before_park`: once per stretch out of work).
    yielded_idle: Cell<bool>,
    /// A task woke itself during its poll (a yield: `yield_now`, a spent budget) and its shard
    /// has not been turned since: the turn comes before that task runs again
    /// (`turn_for_yield`), so a yield lets pending IO and timers in, as tokio's deferred wakes do.
    yield_turn: Cell<bool>,
    /// Ticks left until the injector is checked first (counts down from `global_interval`).
    until_global: Cell<u32>,
    /// The global queue interval in force: the configured one, or the tuned one.
    global_interval: Cell<u32>,
    /// Whether this worker tunes `global_interval` (`tune_global_interval`).
    tune: bool,
    /// The start of the stretch of polling being measured for the tuning, and its ticks.
    tune_from: Cell<std::time::Instant>,
    tune_ticks: Cell<u32>,
    /// The average poll time, in nanoseconds (see `GLOBAL_QUEUE_TARGET` in `tuning.rs`).
    poll_ewma_ns: Cell<f64>,
    is_searching: Cell<bool>,
    rng: Cell<u32>,
    /// The IO driver shard this worker blocks in when idle, and polls between tasks.
    shard: usize,
    /// Whether `shard` is this worker's alone (one shard per worker).
    owns_shard: bool,
    /// Per shard: its turn count when this worker last looked (see `WATCH_INTERVAL`).
    seen_turns: Box<[Cell<u64>]>,
    /// Per shard: its turn count when this worker, woken to hear it, found it held by another
    /// thread (`u64::MAX`: not so). Not heard again until it takes another turn
    /// (`listen_to_busy`).
    deaf_at: Box<[Cell<u64>]>,
    /// In `drive` (parked, turning the driver): 1; 2 once a wake put a task on this worker's
    /// own queues and `Shared::settling` counts it; 0 otherwise.
    parked_turn: Cell<u8>,
    /// This worker's parker (it travels with the context when the context is lent).
    parker: Parker,
    /// On a substitute thread running this context (`super::block_in_place`): its lender's
    /// reclaim flag, which lives on the lender's stack until the lender has joined this
    /// substitute. Null on the worker's own thread, so its park path reads no extra atomic
    /// (nor do its loom models get extra interleavings). Each lender of a chain (a substitute
    /// may lend on) has its own flag, and restores its own after its join.
    reclaim: Cell<*const AtomicBool>,
    /// This worker's trace ring, with a trace file (`crate::trace`; it travels with the
    /// context, so one thread at a time pushes).
    trace: Option<crate::trace::WorkerTrace>,
}

rt_core::sync::thread_local! {
    /// The worker running on this thread (null on any other thread).
    static CURRENT_WORKER: Cell<*const WorkerContext> = const { Cell::new(ptr::null()) };
}

/// Runs `f` with the current thread's worker context, if it is a worker.
pub(crate) fn with_current_worker<R>(f: impl FnOnce(Option<&WorkerContext>) -> R) -> R {
    let p = CURRENT_WORKER.try_with(|c| c.get()).unwrap_or(ptr::null());
    // SAFETY: `CURRENT_WORKER` is non-null only while `run` is on the stack of this very
    // thread, and it points at the `WorkerContext` that `run` owns.
    f(unsafe { p.as_ref() })
}

struct ResetCurrentWorker(*const WorkerContext);

impl Drop for ResetCurrentWorker {
    fn drop(&mut self) {
        let _ = CURRENT_WORKER.try_with(|c| c.set(self.0));
    }
}

pub(crate) fn run(handle: Handle, index: usize, locals: super::Locals, parker: Parker) {
    let (local, bg_local) = locals;
    rt_core::pool::set_thread_mode(rt_core::pool::ThreadMode::Recycling);
    let shard = handle.shared.shard_of(index);
    let owns_shard = handle.shared.owns_shard();
    let shards = handle.shared.io_driver.as_ref().map_or(0, |d| d.shards());
    if let Some(d) = &handle.shared.io_driver {
        d.bind_worker(index);
        if owns_shard {
            d.bind_thread(shard);
        }
    }
    let (event_interval, global_queue_interval, background_interval) = (
        handle.shared.event_interval,
        handle.shared.global_queue_interval,
        handle.shared.background_interval,
    );
    let global_interval = global_queue_interval.unwrap_or(crate::DEFAULT_GLOBAL_QUEUE_INTERVAL);
    let trace = handle.shared.worker_trace(index);
    let lifo = ptr::NonNull::from(&*handle.shared.lifos[index]);
    let counters = ptr::NonNull::from(&*handle.shared.counters[index]);
    let stamp = ptr::NonNull::from(&*handle.shared.stamps[index]);
    let cx = WorkerContext {
        handle,
        index,
        local,
        bg_local,
        until_background: Cell::new(background_interval),
        lifo,
        lifo_polls: Cell::new(0),
        counters,
        stamp,
        until_event: Cell::new(event_interval),
        last_break: Cell::new(std::time::Instant::now()),
        yielded_idle: Cell::new(false),
        yield_turn: Cell::new(false),
        until_global: Cell::new(global_interval),
        global_interval: Cell::new(global_interval),
        tune: global_queue_interval.is_none() && !cfg!(loom),
        tune_from: Cell::new(std::time::Instant::now()),
        tune_ticks: Cell::new(0),
        poll_ewma_ns: Cell::new(
            crate::tuning::GLOBAL_QUEUE_TARGET.as_nanos() as f64 / global_interval as f64,
        ),
        is_searching: Cell::new(false),
        rng: Cell::new(0x9E37_79B9 ^ (index as u32).wrapping_mul(0x85EB_CA6B) | 1),
        shard,
        owns_shard,
        seen_turns: (0..shards).map(|_| Cell::new(0)).collect(),
        deaf_at: (0..shards).map(|_| Cell::new(u64::MAX)).collect(),
        parked_turn: Cell::new(0),
        parker,
        reclaim: Cell::new(ptr::null()),
        trace,
    };
    let prev = CURRENT_WORKER.with(|c| c.replace(&cx));
    let _reset = ResetCurrentWorker(prev);
    cx.run_loop(|| false);
    // Shutdown: every worker cancels the runtime's tasks, each from its own part of the list,
    // so the futures drop in parallel (`MultiThread::shutdown_until`). Wakes from those drops
    // land in our queues: emptied after.
    let shared = &cx.handle.shared;
    shared
        .owned
        .close_and_shutdown_share(index, shared.unparkers.len());
    // Drop what is still queued here (references only: the close cancelled those tasks).
    drop(cx.lifo().take());
    while let Some(t) = cx.local.pop() {
        drop(t);
    }
    while let Some(t) = cx.bg_local.pop() {
        drop(t);
    }
}

impl WorkerContext {
    /// On a substitute: its lender wants the context back (always false on a worker's own
    /// thread).
    fn reclaimed(&self) -> bool {
        // SAFETY: non-null only on a substitute, pointing at its lender's flag, which outlives
        // the substitute (rule 1 of `super::block_in_place`).
        unsafe { self.reclaim.get().as_ref() }.is_some_and(|f| f.load(Ordering::SeqCst))
    }

    pub(super) fn shared(&self) -> &Shared {
        &self.handle.shared
    }

    #[inline]
    fn stamp(&self) -> &crate::stall::PollStamp {
        // SAFETY: points into `Shared::stamps`, which `self.handle` keeps alive.
        unsafe { self.stamp.as_ref() }
    }

    #[inline]
    fn lifo(&self) -> &crate::lifo::LifoSlot<Handle> {
        // SAFETY: points into `Shared::lifos`, which `self.handle` keeps alive.
        unsafe { self.lifo.as_ref() }
    }

    pub(crate) fn belongs_to(&self, shared: &Arc<Shared>) -> bool {
        Arc::ptr_eq(&self.handle.shared, shared)
    }

    /// This worker's trace ring, if a trace file is on.
    pub(super) fn trace(&self) -> Option<&crate::trace::WorkerTrace> {
        self.trace.as_ref()
    }

    /// This worker's index among the scheduler's workers.
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    #[inline]
    fn counters(&self) -> &crate::metrics::WorkerCounters {
        // SAFETY: points into `Shared::counters`, which `self.handle` keeps alive.
        unsafe { self.counters.as_ref() }
    }

    /// A wake from a task running on this worker.
    pub(crate) fn schedule_local(&self, task: Notified<Handle>, is_yield: bool) {
        self.counters().local_schedule();
        self.push_local(task, is_yield);
    }

    /// A task spawned by a task running on this worker (counted as a spawn, which the metrics
    /// also count as a local schedule).
    pub(crate) fn schedule_spawned(&self, task: Notified<Handle>) {
        self.counters().spawn();
        self.push_local(task, false);
    }

    fn push_local(&self, task: Notified<Handle>, is_yield: bool) {
        self.shared().counters.scheduled(&task, self.index);
        if self.parked_turn.get() == 1 {
            // Rule P6 (rt-io's `time/clock.rs`): parked, and our driver turn woke this task:
            // hold auto-advance back until we leave the sleepers list for it.
            self.parked_turn.set(2);
            self.shared()
                .settling
                .fetch_add(1, rt_core::sync::Ordering::SeqCst);
        }
        if task.priority().is_background() {
            // Background work never takes the LIFO slot ("Priorities" in the module docs).
            self.shared().saw_background();
            self.bg_local.push(task);
        } else if is_yield {
            self.yield_turn.set(true);
            self.local.push(task);
        } else if let Some(prev) = self.lifo().replace(task) {
            self.local.push(prev);
        } else {
            return; // only the LIFO slot (stolen only by a take-over) holds new work: nobody to wake
        }
        // In our own parked turn we are still on the sleepers list, and a notify now would
        // likely pick us (the last to park) instead of a sibling: `park_in_driver` notifies once
        // the turn is over and we have left the list (tokio defers it the same way).
        if !self.is_searching.get() && self.parked_turn.get() == 0 {
            self.shared().notify_parked();
        }
    }

    /// The worker loop, until shutdown or until `stop` says so (a substitute's loop stops when
    /// its lender reclaims the context; a worker's own `|| false` compiles away).
    fn run_loop(&self, stop: impl Fn() -> bool) {
        // Whether a poll is traced or timed is fixed for the context's life: decided here once,
        // so the loop without either (the default) makes no check for them per poll.
        if (rt_core::OBSERVE && self.trace.is_some()) || self.shared().counters.histograms() {
            self.run_loop_as::<true>(stop);
        } else {
            self.run_loop_as::<false>(stop);
        }
    }

    /// [`run_loop`](Self::run_loop); `WRAPPED`: polls go through the trace and the histograms.
    fn run_loop_as<const WRAPPED: bool>(&self, stop: impl Fn() -> bool) {
        while !self.shared().is_shutdown() && !stop() {
            if self.yield_turn.get() {
                self.turn_for_yield();
            }
            if let Some(task) = self.next_task() {
                self.run_task::<WRAPPED>(task);
                continue;
            }
            // Out of tasks: with a shard of our own, its events are our next work (tasks whose
            // IO lives here); look there before taking work from another worker.
            if rt_core::OBSERVE {
                self.stamp().idle();
            }
            let polled = self.owns_shard && self.shard_has_sources();
            if polled {
                if let Some(task) = self.poll_driver_when_out_of_work() {
                    self.run_task::<WRAPPED>(task);
                    continue;
                }
            }
            if let Some(task) = self.search(polled) {
                self.run_task::<WRAPPED>(task);
                continue;
            }
            if self.yield_before_park() {
                continue; // look for work once more before parking
            }
            self.park(&self.parker);
            if let Some(t) = &self.shared().takeover {
                // Stall detection sleeps while every worker is parked: the first worker out
                // wakes it (`idle.rs`, "The monitor's doze").
                if self.shared().idle.rouse_monitor() {
                    t.rouse_monitor();
                }
            }
            // A park is a break from running tasks (`maybe_yield_cpu`), and from polling.
            let now = std::time::Instant::now();
            self.last_break.set(now);
            self.restart_tuning(now);
        }
        let shared = self.shared();
        self.counters()
            .checkpoint_busy(shared.counters.epoch(), std::time::Instant::now());
    }

    /// A task yielded since the last turn of the shard: turn it (without blocking) once the
    /// yielder is next to run, i.e. nothing but it is queued here, so the events and timers due
    /// meanwhile wake their tasks before it polls again. With more work queued the turn waits
    /// for that work (the yielder is behind it), or comes with `poll_driver_on_interval`.
    #[cold]
    fn turn_for_yield(&self) {
        if self.lifo_is_empty() && self.shared().stealers[self.index].len() <= 1 {
            self.yield_turn.set(false);
            self.turn_driver_nonblocking();
        }
    }

    #[inline]
    fn run_task<const WRAPPED: bool>(&self, task: Notified<Handle>) {
        if self.shared().is_shutdown() {
            // Shut down since the loop last looked: the workers are cancelling every task, and
            // a task their cancellations woke (a waiter on a cancelled task) must not run to
            // completion meanwhile. Dropping the reference leaves the task to the close.
            drop(task);
            return;
        }
        self.yielded_idle.set(false);
        if self.is_searching.replace(false)
            && self.shared().idle.transition_worker_from_searching()
                == LeftSearching::WasLastSearcher
        {
            // Idle rule 3: we were the last searcher; keep someone looking.
            self.shared().notify_parked();
        }
        if rt_core::OBSERVE {
            // Also counts the poll: the stamp's sequence is this worker's `polls` metric.
            self.stamp().enter_counted(task.id());
        }
        if task.priority().is_background() {
            return self.run_background::<WRAPPED>(task);
        }
        self.poll::<WRAPPED>(task);
    }

    /// Polls `task`, through the trace and the histograms if `WRAPPED`.
    #[inline]
    fn poll<const WRAPPED: bool>(&self, task: Notified<Handle>) {
        if !WRAPPED {
            return task.run();
        }
        let trace = self.trace.as_ref().filter(|_| rt_core::OBSERVE);
        self.shared()
            .counters
            .run(self.index, task, |task| match trace {
                Some(t) => t.run(task),
                None => task.run(),
            });
    }

    /// Polls background `task` in time slices ("Priorities" in the module docs).
    #[cold]
    #[inline(never)]
    fn run_background<const WRAPPED: bool>(&self, task: Notified<Handle>) {
        let waiting = |io: bool| self.latency_waiting(io);
        let slice = rt_core::coop::Slice::new(
            self.shared().background_slice,
            crate::tuning::BACKGROUND_IO_CHECK_INTERVAL,
            &waiting,
        );
        rt_core::coop::with_slice(&slice, || self.poll::<WRAPPED>(task));
    }

    /// Past a background poll's slice: whether latency-sensitive work waits for this worker —
    /// queued here, in the injector or on another worker's queue, or (`io`) as events ready on
    /// its IO shard (looked at without a turn: this runs inside the background task's poll).
    /// With `io`, and yielding on (`os_yield_after`), it first yields the thread's CPU to the
    /// OS ("Priorities" in the module docs).
    fn latency_waiting(&self, io: bool) -> bool {
        let shared = self.shared();
        if !self.lifo_is_empty()
            || !self.local.is_empty()
            || !shared.injector.is_empty()
            || shared.stealers.iter().any(|s| !s.is_empty())
        {
            return true;
        }
        if !io {
            return false;
        }
        if shared.os_yield_after.is_some() {
            std::thread::yield_now();
            self.counters().os_yield();
            self.last_break.set(std::time::Instant::now());
        }
        shared
            .io_driver
            .as_ref()
            .is_some_and(|d| d.has_ready(self.shard))
    }

    /// A background task from this worker's queue, else a batch from the background injector.
    fn next_background(&self) -> Option<Notified<Handle>> {
        if let Some(t) = self.bg_local.pop() {
            return Some(t);
        }
        let injector = &self.shared().bg_injector;
        if injector.is_empty() {
            return None;
        }
        let t = injector.steal_batch_and_pop(&self.bg_local)?;
        self.counters().remote_schedule();
        Some(t)
    }

    /// Out of normal work in the LIFO slot, the local queue and the injector: if background
    /// work is queued for this worker, first the normal work that is due elsewhere (events on
    /// its IO shard, other workers' queues), then a background task. `None` when no background
    /// work is queued here or in the background injector (the run loop's search follows).
    fn normal_then_background(&self) -> Option<Notified<Handle>> {
        let shared = self.shared();
        if !shared.has_background() || (self.bg_local.is_empty() && shared.bg_injector.is_empty()) {
            return None;
        }
        if self.turn_driver_nonblocking() {
            if let Some(t) = self.lifo().take() {
                self.counters().lifo_hit();
                return Some(t);
            }
            if let Some(t) = self.local.pop() {
                return Some(t);
            }
        }
        let n = shared.stealers.len();
        for i in 1..n {
            let victim = (self.index + i) % n;
            if shared.stealers[victim].is_empty() {
                continue;
            }
            if let Some((t, k)) = shared.stealers[victim].steal_batch_and_pop(&self.local) {
                self.counters().steal(k);
                return Some(t);
            }
        }
        self.next_background()
    }

    fn next_task(&self) -> Option<Notified<Handle>> {
        if countdown(&self.until_event, self.shared().event_interval) {
            self.poll_driver_on_interval();
        }
        if countdown(&self.until_background, self.shared().background_interval) {
            // The background share (module docs): one background task before normal work.
            if let Some(t) = self.next_background() {
                return Some(t);
            }
        }
        if self.tune {
            self.tune_ticks.set(self.tune_ticks.get() + 1);
        }
        if countdown(&self.until_global, self.global_interval.get()) {
            if let Some(t) = self.shared().injector.pop() {
                self.counters().remote_schedule();
                return Some(t);
            }
        }
        if self.lifo_polls.get() < MAX_LIFO_POLLS {
            if let Some(t) = self.lifo().take() {
                self.lifo_polls.set(self.lifo_polls.get() + 1);
                self.counters().lifo_hit();
                return Some(t);
            }
        }
        self.lifo_polls.set(0);
        if let Some(t) = self.local.pop() {
            return Some(t);
        }
        // Past its cap the LIFO task counts as the local queue's last (tokio pushes it to the
        // back of its local queue): a chain of tasks spawning each other lets the injector in
        // every `global_interval` ticks, not every `MAX_LIFO_POLLS + 1`.
        if let Some(t) = self.lifo().take() {
            self.counters().lifo_hit();
            return Some(t);
        }
        if let Some(t) = self.shared().injector.steal_batch_and_pop(&self.local) {
            self.counters().remote_schedule();
            return Some(t);
        }
        self.normal_then_background()
    }

    fn next_rand(&self, n: usize) -> usize {
        // xorshift32: only used to spread steal victims.
        let mut x = self.rng.get();
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng.set(x);
        (x as usize) % n
    }

    /// Looks once at every other worker's queue and at the injector (then background work),
    /// and returns `None` for the caller to park: no spinning and no second round, as tokio's
    /// searching workers. A spin only pays when work arrives within it, and under the services
    /// measured it rarely did (sqlx: 7% of searches found work after a spin, hyper: under 1%);
    /// meanwhile it held a CPU that the threads about to produce that work needed (sqlx's
    /// SQLite threads, woken by the spinning worker itself). `polled`: the caller has just
    /// polled this worker's shard and found nothing, so the look does not poll it again (that
    /// `epoll_wait` would almost always find nothing).
    fn search(&self, polled: bool) -> Option<Notified<Handle>> {
        let shared = self.shared();
        if !self.is_searching.get() {
            if shared.idle.transition_worker_to_searching() == ToSearching::TooManySearching {
                return None;
            }
            self.is_searching.set(true);
        }
        let n = shared.stealers.len();
        let start = self.next_rand(n);
        for i in 0..n {
            let victim = (start + i) % n;
            if victim == self.index {
                continue;
            }
            if let Some((t, n)) = shared.stealers[victim].steal_batch_and_pop(&self.local) {
                self.counters().steal(n);
                if let Some(tr) = self.trace.as_ref().filter(|_| rt_core::OBSERVE) {
                    tr.steal(victim);
                }
                return Some(t);
            }
        }
        if let Some(t) = shared.injector.steal_batch_and_pop(&self.local) {
            self.counters().remote_schedule();
            return Some(t);
        }
        // No normal work anywhere: background work, the same way, if there ever was any.
        let bg = shared.has_background();
        for i in 0..n {
            let victim = (start + i) % n;
            if !bg || victim == self.index || shared.bg_stealers[victim].is_empty() {
                continue;
            }
            if let Some((t, n)) = shared.bg_stealers[victim].steal_batch_and_pop(&self.bg_local) {
                self.counters().steal(n);
                if let Some(tr) = self.trace.as_ref().filter(|_| rt_core::OBSERVE) {
                    tr.steal(victim);
                }
                return Some(t);
            }
        }
        if bg {
            if let Some(t) = self.next_background() {
                return Some(t);
            }
        }
        if shared.is_shutdown() {
            return None;
        }
        if !polled && self.owns_shard && self.shard_may_have_events() {
            // Before parking, look for IO and timers that are already due: under network load
            // the next work is usually sitting in the reactor. A shard with no sources and no
            // timers has nothing to look at (the poll would be a syscall for nothing). Only on
            // a shard of our own: a shared poll is either held by a sibling blocked in it, who
            // takes its events as they come, or free, and then our park turns it at once.
            if let Some(t) = self.poll_driver_when_out_of_work() {
                return Some(t);
            }
        }
        None
    }
}

impl WorkerContext {
    /// Ends a stretch of polling at `now` (every `event_interval` ticks while busy, and at a
    /// park): folds its mean poll time into the average and sets the global queue interval
    /// to about `GLOBAL_QUEUE_TARGET` of polling (tokio's tuning; `tuning.rs`). The next
    /// stretch starts at `now`; a park's restarts when the worker wakes (`restart_tuning`), so
    /// parked time is not counted as polling.
    pub(super) fn tune_global_interval(&self, now: std::time::Instant) {
        if !self.tune {
            return;
        }
        use crate::tuning::{
            GLOBAL_QUEUE_INTERVAL_MAX, GLOBAL_QUEUE_INTERVAL_MIN, GLOBAL_QUEUE_TARGET,
            POLL_TIME_EWMA_ALPHA,
        };
        let ticks = self.tune_ticks.replace(0);
        let from = self.tune_from.replace(now);
        if ticks == 0 {
            return;
        }
        let mean = now.saturating_duration_since(from).as_nanos() as f64 / f64::from(ticks);
        // One weight for the whole stretch, as if its polls were folded in one at a time.
        let alpha = 1.0 - (1.0 - POLL_TIME_EWMA_ALPHA).powi(ticks.min(1 << 16) as i32);
        let ewma = alpha * mean + (1.0 - alpha) * self.poll_ewma_ns.get();
        self.poll_ewma_ns.set(ewma);
        let interval = (GLOBAL_QUEUE_TARGET.as_nanos() as f64 / ewma.max(1.0)) as u64;
        let interval = interval.clamp(
            u64::from(GLOBAL_QUEUE_INTERVAL_MIN),
            u64::from(GLOBAL_QUEUE_INTERVAL_MAX),
        ) as u32;
        self.global_interval.set(interval);
        if self.until_global.get() > interval {
            self.until_global.set(interval);
        }
    }

    /// Starts the next stretch of polling for the tuning at `now` (a worker woken from a park).
    pub(super) fn restart_tuning(&self, now: std::time::Instant) {
        if self.tune {
            self.tune_from.set(now);
            self.tune_ticks.set(0);
        }
    }
}

/// One tick of a countdown that restarts at `interval`: true every `interval`th call.
#[inline]
fn countdown(left: &Cell<u32>, interval: u32) -> bool {
    let n = left.get() - 1;
    if n == 0 {
        left.set(interval);
        true
    } else {
        left.set(n);
        false
    }
}
