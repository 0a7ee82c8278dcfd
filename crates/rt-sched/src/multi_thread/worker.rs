//! One worker's run loop: find a task, run it, repeat; steal, spin, park when there is none.
//!
//! When the worker turns the IO driver (its own shard, see `IoDriver`):
//!
//! - `poll_driver_on_interval`: every `event_interval` ticks while busy, so IO and timers get
//!   in even while tasks keep it running;
//! - `poll_driver_when_out_of_work`: its queues are empty (before stealing, when it owns its
//!   shard, and before spinning);
//! - `park_in_driver`: it is parking; it blocks in the driver instead of on its parker;
//! - `turn_driver_nonblocking`: the one non-blocking turn the first two are made of.

// `Cell`, not a shim type: the worker's own state, touched only by its thread (no protocol).
use std::cell::Cell;
use std::ptr;
use std::time::Duration;

use rt_core::task::Notified;

use rt_core::sync::{AtomicBool, Ordering};

use super::lend::{Armed, Job, LendRecord};
use super::{Arc, Handle, Shared};
use crate::idle::{LeftSearching, ToSearching, UnparkById};
use crate::park::Parker;
use crate::queue::Local;

/// Consecutive LIFO-slot polls allowed before the local queue gets a turn.
const MAX_LIFO_POLLS: u32 = 3;
/// Steal rounds before parking (each round looks at every queue once). Under loom one round
/// and no spinning: sizes, listed in `rt_core::sync`'s exceptions. Spinning only delays the
/// park, the protocol is the same, and every spin is a yield that multiplies the interleavings
/// a model has to explore.
const SPIN_ROUNDS: u32 = if cfg!(loom) { 1 } else { 4 };
/// Spin-loop hints between two steal rounds: `SPINS << round`.
const SPINS: u32 = if cfg!(loom) { 0 } else { 16 };
/// A worker parked this long without work gives its idle frame-pool memory back.
const TRIM_AFTER: Duration = loom_duration(Duration::from_millis(100));
/// While another worker is busy, an idle worker wakes this often to check that the busy one's
/// IO shard is being polled, and polls it itself if not (a task that hogs its worker must not
/// hold up the IO of every connection on that worker).
const WATCH_INTERVAL: Duration = loom_duration(Duration::from_millis(1));

/// A timeout, or under loom `Duration::MAX` (a size, listed in `rt_core::sync`'s exceptions):
/// loom has no clock (its timed waits never time out), so a branch on elapsed wall-clock time
/// would make a model's executions differ on replay. With `MAX` the same code runs and never
/// takes the timed-out branch; a timed park becomes a park.
const fn loom_duration(d: Duration) -> Duration {
    if cfg!(loom) {
        Duration::MAX
    } else {
        d
    }
}
/// Attempts to take this worker's own shard while another worker polls it briefly.
const OWN_SHARD_TRIES: u32 = 16;

/// How long a worker that ran out of work while another one runs sleeps before it looks for
/// work once more and then parks (`yield_before_park`). Its sleep is timed to within
/// `PAUSE_SLACK` (the thread's timer slack, 50 µs by default, is set down for it).
const PRE_PARK_PAUSE: Duration = Duration::from_micros(25);
const PAUSE_SLACK: Duration = Duration::from_micros(1);

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
    /// Whether this worker has yielded its CPU since it last ran a task
    /// (`yield_before_park`: once per stretch out of work).
    yielded_idle: Cell<bool>,
    /// Ticks left until the injector is checked first (counts down from
    /// `global_queue_interval`).
    until_global: Cell<u32>,
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
    if owns_shard {
        if let Some(d) = &handle.shared.io_driver {
            d.bind_thread(shard);
        }
    }
    let (event_interval, global_queue_interval, background_interval) = (
        handle.shared.event_interval,
        handle.shared.global_queue_interval,
        handle.shared.background_interval,
    );
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
        until_global: Cell::new(global_queue_interval),
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
            // Parked, and our driver turn woke this task: hold auto-advance back until we
            // leave the sleepers list for it (`Shared::all_idle`).
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
            // A park is a break from running tasks (`maybe_yield_cpu`).
            self.last_break.set(std::time::Instant::now());
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
        if countdown(&self.until_global, self.shared().global_queue_interval) {
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
        if let Some(t) = self.shared().injector.steal_batch_and_pop(&self.local) {
            self.counters().remote_schedule();
            return Some(t);
        }
        if let Some(t) = self.lifo().take() {
            self.counters().lifo_hit();
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

    /// Steals from other workers and the injector, for a few rounds. `polled`: the caller has
    /// just polled this worker's shard and found nothing, so the first round does not poll it
    /// again (one steal attempt later, that `epoll_wait` would almost always find nothing).
    fn search(&self, polled: bool) -> Option<Notified<Handle>> {
        let shared = self.shared();
        if !self.is_searching.get() {
            if shared.idle.transition_worker_to_searching() == ToSearching::TooManySearching {
                return None;
            }
            self.is_searching.set(true);
        }
        let n = shared.stealers.len();
        for round in 0..SPIN_ROUNDS {
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
                if let Some((t, n)) = shared.bg_stealers[victim].steal_batch_and_pop(&self.bg_local)
                {
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
            if round == 0 && !polled {
                // Before spinning, look for IO and timers that are already due: under network
                // load the next work is usually sitting in the reactor, and spinning would only
                // delay it.
                if let Some(t) = self.poll_driver_when_out_of_work() {
                    return Some(t);
                }
            }
            if round + 1 == SPIN_ROUNDS {
                break; // no look follows: a spin here would only delay the park
            }
            // Spin briefly: an unpark costs far more than a few rounds of looking.
            for _ in 0..(SPINS << round) {
                rt_core::sync::spin_loop();
            }
        }
        None
    }

    fn park(&self, parker: &Parker) {
        let shared = self.shared();
        if !self.local.is_empty() || !self.bg_local.is_empty() {
            return;
        }
        let was_searching = self.is_searching.replace(false);
        if shared
            .idle
            .transition_worker_to_parked(self.index, was_searching)
            == LeftSearching::WasLastSearcher
        {
            // Idle rule 4.
            shared.notify_if_work_pending();
        }
        let _unpark = (self.trace.as_ref().filter(|_| rt_core::OBSERVE))
            .map(crate::trace::WorkerTrace::parked);
        let parked_at = std::time::Instant::now();
        // Ends the busy period now; the next one starts when this guard drops (we wake).
        let _busy = self.counters().park(shared.counters.epoch(), parked_at);
        let mut trimmed = false;
        loop {
            if shared.is_shutdown() {
                return;
            }
            if self.reclaimed() {
                // A substitute whose lender wants its context back (`super::block_in_place`):
                // leave the sleepers list ourselves, not searching, and stop.
                if shared.idle.unpark_worker_by_id(self.index) == UnparkById::NotParked {
                    // A notify took us off the list first and counted us as searching.
                    self.is_searching.set(true);
                }
                return;
            }
            if let Some(driver) = &shared.io_driver {
                let until_trim = (!trimmed).then(|| TRIM_AFTER.saturating_sub(parked_at.elapsed()));
                match self.park_in_driver(driver.as_ref(), until_trim) {
                    Drove::NotifiedMeanwhile => break,
                    Drove::OwnWork => return,
                    Drove::Idle => {
                        if !trimmed && parked_at.elapsed() >= TRIM_AFTER {
                            // Idle that long: give memory back.
                            rt_core::pool::trim();
                            trimmed = true;
                        }
                        continue;
                    }
                    Drove::Busy if self.owns_shard && driver.is_running() => {
                        // Our shard stayed busy (see `park_in_driver`): come back to it soon.
                        parker.park_timeout(WATCH_INTERVAL);
                        if !shared.idle.is_parked(self.index) {
                            break;
                        }
                        continue;
                    }
                    Drove::Busy => {}
                }
            }
            if trimmed {
                parker.park();
            } else {
                // (Under loom a timed park is a park: loom's condvar never times out, so the
                // models run this same code.)
                parker.park_timeout(TRIM_AFTER);
                if shared.idle.is_parked(self.index) && !shared.is_shutdown() {
                    // Still asleep after a long while: give idle pool memory back once.
                    rt_core::pool::trim();
                    trimmed = true;
                    continue;
                }
            }
            if !shared.idle.is_parked(self.index) {
                break;
            }
        }
        // Woken by `worker_to_notify`, which counted us as searching.
        self.is_searching.set(true);
    }

    /// Parks in the IO driver (this worker's shard) instead of on the parker, if no other
    /// thread drives it, for at most `until_trim` (`None`: no limit).
    fn park_in_driver(&self, driver: &dyn crate::IoDriver, until_trim: Option<Duration>) -> Drove {
        let _settling = Settling::enter(self);
        let shared = self.shared();
        // Publish before the re-check; `Shared::unpark_worker` reads it after taking us off the
        // sleepers list, so a notify is never lost between the check and the block.
        shared.on_driver[self.index].store(true, rt_core::sync::Ordering::SeqCst);
        if !shared.idle.is_parked(self.index) {
            shared.on_driver[self.index].store(false, rt_core::sync::Ordering::SeqCst);
            return Drove::NotifiedMeanwhile;
        }
        let mut timeout = until_trim;
        let watching = self.owns_shard && self.others_busy();
        if watching {
            timeout = Some(timeout.map_or(WATCH_INTERVAL, |t| t.min(WATCH_INTERVAL)));
            self.listen_to_busy(driver);
        }
        // Checked again once we hold the shard: a notify whose unpark another thread's turn
        // of this shard took before we got it would otherwise leave us blocked.
        let notified = || !shared.idle.is_parked(self.index) || self.reclaimed();
        // For auto-advance of a paused clock: nothing anywhere can make progress.
        let all_idle = || self.queues_empty() && shared.all_idle();
        let mut drove = driver.try_drive_idle(self.shard, timeout, &notified, &all_idle);
        let mut tries = 0;
        while !drove && self.owns_shard && tries < OWN_SHARD_TRIES && driver.is_running() {
            // Our own shard: another worker is polling it without blocking (`watch_others`)
            // and lets go at once. Nobody else blocks in it, so wait our turn.
            if !shared.idle.is_parked(self.index) {
                shared.on_driver[self.index].store(false, rt_core::sync::Ordering::SeqCst);
                return Drove::NotifiedMeanwhile;
            }
            rt_core::sync::thread::yield_now();
            drove = driver.try_drive(self.shard, timeout, &notified);
            tries += 1;
        }
        shared.on_driver[self.index].store(false, rt_core::sync::Ordering::SeqCst);
        if !drove {
            return Drove::Busy;
        }
        let mut no_work = self.queues_empty();
        if no_work && watching {
            self.watch_others(driver, true);
            no_work = self.queues_empty();
        }
        if no_work {
            return if shared.idle.is_parked(self.index) {
                Drove::Idle
            } else {
                Drove::NotifiedMeanwhile
            };
        }
        // The events woke tasks onto this worker: leave the sleepers ourselves, not searching.
        if shared.idle.unpark_worker_by_id(self.index) == UnparkById::Unparked {
            if !self.local.is_empty() || !self.bg_local.is_empty() {
                // More than the LIFO slot's one task: the notify `push_local` held back
                // during the turn, now that it cannot pick us.
                shared.notify_parked();
            }
            Drove::OwnWork
        } else {
            Drove::NotifiedMeanwhile
        }
    }

    fn shard_has_sources(&self) -> bool {
        self.shared()
            .io_driver
            .as_ref()
            .is_some_and(|d| d.has_sources(self.shard))
    }

    /// Whether some other worker is running (not parked), so its shard may go unpolled.
    fn others_busy(&self) -> bool {
        let shared = self.shared();
        (0..shared.stealers.len()).any(|i| i != self.index && !shared.idle.is_parked(i))
    }

    /// Before blocking in our own shard: let IO on a busy worker's shard end the wait
    /// (`IoDriver::listen_to`), so we serve it at once (`watch_others` from the park).
    fn listen_to_busy(&self, driver: &dyn crate::IoDriver) {
        let shared = self.shared();
        for k in 0..self.seen_turns.len() {
            if k != self.shard
                && !shared.idle.is_parked(k)
                && self.deaf_at[k].get() != driver.turns(k)
            {
                driver.listen_to(self.shard, k);
            }
        }
    }

    /// Polls, without blocking, the shards of other workers that are not parked, whose
    /// sockets' events would otherwise wait for their owner.
    ///
    /// From a busy worker (`from_park == false`, every `event_interval` ticks) only a shard that
    /// took no turn since this worker last looked: its owner is stuck in a long task or
    /// descheduled. From a park (woken in our own shard with nothing to do there) every busy
    /// worker's shard, without waiting for it to stand still: we are idle, so its events are
    /// better run here now than after its owner's current task (tokio's idle worker, in its one
    /// shared poll, takes every connection's events the same way); a shard found held by its
    /// owner (between being notified and running, or in a turn) is not listened to again until
    /// it turns (`deaf_at`), as hearing it would only wake us again at once.
    fn watch_others(&self, driver: &dyn crate::IoDriver, from_park: bool) {
        let shared = self.shared();
        for (k, seen) in self.seen_turns.iter().enumerate() {
            if k == self.shard {
                continue;
            }
            let turns = driver.turns(k);
            if !shared.idle.is_parked(k) && (from_park || turns == seen.get()) {
                let drove = driver.try_drive(k, Some(Duration::ZERO), &|| false);
                if from_park {
                    self.deaf_at[k].set(if drove { u64::MAX } else { driver.turns(k) });
                }
                seen.set(driver.turns(k));
            } else {
                seen.set(turns);
            }
        }
    }

    fn lifo_is_empty(&self) -> bool {
        self.lifo().is_empty()
    }

    /// The LIFO slot and both local queues are empty.
    fn queues_empty(&self) -> bool {
        self.lifo_is_empty() && self.local.is_empty() && self.bg_local.is_empty()
    }

    /// Out of work: polls the IO driver without blocking, if no other thread is driving it,
    /// and returns a task the events woke onto this worker.
    fn poll_driver_when_out_of_work(&self) -> Option<Notified<Handle>> {
        if !self.turn_driver_nonblocking() {
            return None;
        }
        if let Some(t) = self.lifo().take() {
            self.counters().lifo_hit();
            return Some(t);
        }
        self.local.pop().or_else(|| self.bg_local.pop())
    }

    /// Every `event_interval` ticks: let IO and timers in even while this worker is busy; and
    /// serve any other worker's shard that took no turn since we last looked while its owner
    /// is not parked (descheduled by the OS, or in a long poll), whose sockets' events would
    /// otherwise wait for that owner (`watch_others`; an idle worker does the same from its
    /// park, `park_in_driver`).
    fn poll_driver_on_interval(&self) {
        self.maybe_yield_cpu();
        self.turn_driver_nonblocking();
        if self.owns_shard {
            if let Some(driver) = self.shared().io_driver.as_deref() {
                self.watch_others(driver, false);
            }
        }
    }

    /// Yields this thread's CPU to the OS once if the worker has run tasks for
    /// `os_yield_after` without a break ("Yielding the CPU" in the module docs).
    fn maybe_yield_cpu(&self) {
        let Some(after) = self.shared().os_yield_after else {
            return;
        };
        let now = std::time::Instant::now();
        if now.saturating_duration_since(self.last_break.get()) >= after {
            std::thread::yield_now();
            self.counters().os_yield();
            self.last_break.set(std::time::Instant::now());
        }
    }

    /// Out of work, before parking: if another worker is running, gives this thread's CPU to
    /// the OS once (per stretch without tasks) by sleeping `PRE_PARK_PAUSE`, and returns true,
    /// for the caller to look for work again before it parks ("Yielding the CPU" in the module
    /// docs). Off when `os_yield_after` is `None`. A searcher leaves that state first (idle
    /// rule 3 as for a park): a sleeping worker is not looking, so work that arrives meanwhile
    /// may wake a parked one. Not under loom: like the spin between steal rounds, it only
    /// delays the park (the look after it is the one before it again), and the model would
    /// explore it for nothing.
    fn yield_before_park(&self) -> bool {
        if cfg!(loom)
            || self.yielded_idle.get()
            || self.shared().os_yield_after.is_none()
            || !self.others_busy()
        {
            return false;
        }
        self.yielded_idle.set(true);
        if !self.reclaim.get().is_null() {
            // A substitute: its lender may want the context back any moment, and a yield
            // notices that sooner than a woken sleep (`block_in_place` 26 against 30 µs).
            rt_core::sync::thread::yield_now();
        } else {
            if self.is_searching.replace(false)
                && self.shared().idle.transition_worker_from_searching()
                    == LeftSearching::WasLastSearcher
            {
                self.shared().notify_if_work_pending();
            }
            pause(&self.parker, PRE_PARK_PAUSE);
        }
        self.counters().os_yield();
        self.last_break.set(std::time::Instant::now());
        true
    }

    /// One non-blocking turn of the IO driver, if there is one and no other thread drives it.
    /// Returns whether this thread drove.
    fn turn_driver_nonblocking(&self) -> bool {
        self.shared()
            .io_driver
            .as_ref()
            .is_some_and(|driver| driver.try_drive(self.shard, Some(Duration::ZERO), &|| false))
    }
}

/// Sleeps for `d` (give or take `PAUSE_SLACK`) on the worker's parker: the thread leaves its
/// CPU to whatever else is runnable there, or to idleness, for that long. An unpark ends it
/// early: a reclaim of a lent context and a shutdown wake the worker wherever it sleeps, and
/// its loop checks both after the pause (an unpark meant for nothing else is harmless: a park
/// re-checks the sleepers list).
///
/// Not `sched_yield`: under Linux's EEVDF a yield pushes the yielder's virtual deadline a whole
/// slice later, after which every wake-up of another thread on that CPU preempts it (a hyper
/// server's two workers were switched out while runnable 31,400 times a second with the
/// yield, 7,400 with this sleep; `docs/BENCHMARKS.md`, tenth session). A sleep leaves the
/// deadline alone, and the work that gathers meanwhile is found in one look.
fn pause(parker: &Parker, d: Duration) {
    rt_core::sync::thread_local! {
        static SLACK_SET: Cell<bool> = const { Cell::new(false) };
    }
    if !SLACK_SET.with(|s| s.replace(true)) {
        // SAFETY: PR_SET_TIMERSLACK takes one integer argument (nanoseconds) and changes only
        // the calling thread's timer slack; no pointer is passed. A failure leaves the default
        // slack, which only lengthens the pause.
        unsafe {
            libc::prctl(
                libc::PR_SET_TIMERSLACK,
                PAUSE_SLACK.as_nanos() as libc::c_ulong,
            );
        }
    }
    parker.park_timeout(d);
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

/// Marks a worker as parked and turning its driver (`WorkerContext::parked_turn`) for the
/// length of `park_in_driver`; undoes `Shared::settling`'s count if a wake put work on its queues.
struct Settling<'a>(&'a WorkerContext);

impl<'a> Settling<'a> {
    fn enter(cx: &'a WorkerContext) -> Settling<'a> {
        cx.parked_turn.set(1);
        Settling(cx)
    }
}

impl Drop for Settling<'_> {
    fn drop(&mut self) {
        if self.0.parked_turn.replace(0) == 2 {
            // Work reached our queues, so we have left the sleepers list by now (for it, or
            // for a notify): the unparked count holds auto-advance back from here on.
            self.0
                .shared()
                .settling
                .fetch_sub(1, rt_core::sync::Ordering::SeqCst);
        }
    }
}

/// What parking in the IO driver came to.
enum Drove {
    /// Another thread drives: park on the parker instead.
    Busy,
    /// Nothing for us; still on the sleepers list: park again.
    Idle,
    /// A notify took us off the sleepers list (we count as searching).
    NotifiedMeanwhile,
    /// The driver woke tasks onto our own queue; we left the sleepers list ourselves.
    OwnWork,
}

/// `super::block_in_place`'s body: lends this thread's worker context to a substitute for the
/// length of `f` (the lend protocol is `lend.rs`'s). `Err(f)` when this thread runs no worker
/// loop.
pub(crate) fn block_in_place<F: FnOnce() -> R, R>(f: F) -> Result<R, F> {
    let p = CURRENT_WORKER.try_with(|c| c.get()).unwrap_or(ptr::null());
    if p.is_null() {
        return Err(f);
    }
    // SAFETY: non-null only while `run` (which owns the context) is on this thread's stack,
    // below this call.
    let cx = unsafe { &*p };
    // Points into the `Arc`, not into the context, which the substitute may use meanwhile.
    let shared: &Shared = &cx.handle.shared;
    let index = cx.index;
    // Ours, if this thread is itself a substitute; restored when the context is back.
    let saved = cx.reclaim.get();
    // A worker's own lends reuse its record; a substitute lending on (a chain) needs its own,
    // as its lender's record is claimed.
    let chained;
    let record = if saved.is_null() {
        &shared.lends[index]
    } else {
        chained = rt_core::sync::Arc::new(LendRecord::new());
        &chained
    };
    // Rule 2: from here until `Lent`'s drop, this thread does not touch `cx`.
    CURRENT_WORKER.with(|c| c.set(ptr::null()));
    if let Armed::QueueJob = record.arm() {
        let job = Job::new(record.clone(), p);
        if let Err(e) = shared.lend_pool.spawner().spawn_raw(move || job.run()) {
            tracing::warn!(error = %e, "block_in_place: could not start a substitute thread; the worker's queued tasks wait for the closure");
        }
    }
    let _lent = Lent {
        cx: p,
        index,
        shared,
        record,
        saved,
        driving: rt_core::driving::set_driving(false),
    };
    Ok(f())
}

/// The substitute's body, on a lend-pool thread: the lender's worker loop, until reclaimed
/// (`flag`) or shutdown.
pub(super) fn substitute(cx: &WorkerContext, flag: &AtomicBool) {
    rt_core::pool::set_thread_mode(rt_core::pool::ThreadMode::Recycling);
    if cx.owns_shard {
        if let Some(d) = &cx.handle.shared.io_driver {
            d.bind_thread(cx.shard);
        }
    }
    cx.reclaim.set(flag);
    let prev = CURRENT_WORKER.with(|c| c.replace(cx));
    let _reset = ResetCurrentWorker(prev);
    cx.run_loop(|| cx.reclaimed());
}

/// Takes a lent context back when `f` returns or unwinds.
struct Lent<'a> {
    cx: *const WorkerContext,
    index: usize,
    shared: &'a Shared,
    record: &'a LendRecord,
    /// The context's `reclaim` before the lend (this thread's own flag, if a substitute).
    saved: *const AtomicBool,
    driving: bool,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        rt_core::driving::set_driving(self.driving);
        if !self.record.disarm() {
            // Rule 3: set the flag, then wake the substitute wherever it sleeps; its park
            // re-checks the flag after publishing `on_driver` (both SeqCst), so the wake is not
            // lost. Then wait until it has stopped.
            self.record
                .reclaim(|| self.shared.unpark_worker(self.index));
        }
        // SAFETY: the context is this thread's again (the disarm won, or the substitute
        // released it), and outlives this call (it is on this thread's stack, below us).
        let cx = unsafe { &*self.cx };
        cx.reclaim.set(self.saved);
        let _ = CURRENT_WORKER.try_with(|c| c.set(self.cx));
    }
}
