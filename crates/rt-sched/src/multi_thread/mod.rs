//! The multi-thread scheduler: N workers, each with a local FIFO queue and a LIFO slot, one
//! global injector, work stealing in batches, and the idle protocol of `idle.rs`.
//!
//! Where a task goes when it is scheduled:
//!
//! - from one of this scheduler's workers (a spawn or a wake by the running task): into that
//!   worker's LIFO slot, so a message's receiver runs next, while the hot data is in cache; the
//!   task it displaces moves to the back of the local queue. A task that woke *itself* (yield)
//!   goes to the back of the local queue instead.
//! - from anywhere else: into the injector, then one sleeping worker is unparked, unless a worker
//!   is already searching (it will find the task) or the wake is part of a batch
//!   (`rt_core::batch`), which unparks once at its end.
//!
//! Where a worker looks for work (`worker.rs`): every `global_queue_interval`th tick the
//! injector first (fairness; by default the interval tunes itself to about 200 µs of polling,
//! as tokio's, `GLOBAL_QUEUE_TARGET` in `tuning.rs`); else the LIFO slot (at most 3 in a row,
//! so ping-pong pairs cannot starve the queue), the local queue, the injector; then it steals
//! half of another worker's queue; then it parks.
//!
//! # Priorities
//!
//! A task's priority (`rt_core::task::Priority`, fixed at spawn) picks its queues: a
//! background task goes to its worker's second local queue (`bg_local`; never the LIFO slot)
//! or to the second injector, everything else as above. A worker runs latency-sensitive
//! (normal) work first — LIFO slot, local queue, injector — and before it runs background work
//! it turns its IO shard without blocking and steals normal work from the other workers; its
//! search steals normal work from every worker and the injector before background work. Every
//! `background_interval`th tick (61 by default, `crate::tuning`) a worker with background work
//! queued runs one background task first, so background work is never starved.
//!
//! A background task's poll runs in time slices (`rt_core::coop`'s "Time slices"): at every
//! budget check once the poll has run longer than `background_slice` (100 µs by default), the
//! worker's `latency_waiting` looks at its LIFO slot, the local queues and the injector, and,
//! at most every `BACKGROUND_IO_CHECK_INTERVAL` (50 µs), asks its IO shard, without taking a
//! turn, whether events are ready (`IoDriver::has_ready`); if any normal work waits, the check
//! returns `Pending` and the poll ends. Ready IO thus waits for a background poll at most one
//! slice (plus the work between two budget checks), and is then turned in before the next
//! background poll. Nothing ticks while no background poll runs: the clock is read only at a
//! background poll's budget checks.
//!
//! Background work also gives way at the OS level: with yielding on (`os_yield_after`, "Yielding
//! the CPU" below), a worker yields its CPU (`sched_yield`) at each of those IO looks, so a
//! thread sharing its CPU — a client, another process, the runtime's blocking threads — runs
//! within one IO-check interval instead of at the next OS tick, and under EEVDF the yield
//! leaves the worker preemptible by every wake-up until its next break, which is what
//! background work should be. It returns at once when nothing else wants the CPU (one system
//! call per 50 µs of background work). `benches/priority.rs` with `PRIO_OS_YIELD_US=50`
//! (every yield of the worker that often) measured request p99 under saturating background
//! work about halved against the 2 ms interval yield alone (`docs/BENCHMARKS.md`).
//!
//! CPU work that never reaches a budget check cannot be sliced: it holds its worker like any
//! stalled poll. With stall detection on, the monitor reports it (naming its priority) and the
//! take-over serves the worker's LIFO slot, its normal queue, the injector and its IO shard
//! ("Stalls" below, rules S2 and S3) — never background work, which waits for the worker (or
//! for another worker's steal, rule S4): a substitute stuck in a second background loop would leave
//! nobody to serve the normal work. So the worker's latency-sensitive tasks move on after the
//! stall threshold, served by the substitute thread, which shares the CPUs with the stalled
//! one (`benches/priority.rs` measures it).
//!
//! Priority inversion: a normal task that waits on a lock, a channel or a join held up by a
//! background task waits for the background task's next poll, which is queued behind normal
//! work and sliced; rt does not lend priorities. The background task still runs (its share,
//! and every worker that runs out of normal work), so the wait is bounded but may be long on a
//! runtime busy with normal work: hold no lock that latency-sensitive tasks need across the
//! awaits of background work. The task dump and the trace show each task's priority.
//!
//! # Yielding the CPU
//!
//! A worker that always finds another task never blocks, so the OS takes its CPU away only at
//! a scheduler tick (4 ms at `HZ=250`; Linux's EEVDF also shields a running thread's slice from
//! wake-up preemption). Every other thread that is runnable on that CPU waits that long: the
//! client of a loopback service, a sidecar, the process's own threads — and the connections
//! they serve wait with them. So a worker that has run tasks for `Config::os_yield_after` (2 ms
//! by default) without a break (a park, or a previous yield) calls `sched_yield` once, at its
//! next `event_interval` tick: one clock read per `event_interval` polls, and one system call
//! per 2 ms of uninterrupted work, which returns at once when nothing else wants the
//! CPU. Fairness between threads is still the OS's (a yield gives up the rest of a slice, not
//! CPU share). On this machine it took the p99 latency of hyper at 50 connections from 1.2–1.3×
//! tokio's to about 0.85× (`docs/BENCHMARKS.md`); tokio does not yield.
//!
//! A worker that runs out of work parks at once. A pause before the park pays only when work
//! arrives during it; where the next work comes from threads the pause does not help (a
//! database's own threads, a client on another core), it is a timer wake-up for nothing. A
//! substitute (`block_in_place`) out of work while another worker runs yields once before it
//! parks (`yield_before_park`): its lender may want the context back any moment, and a yield
//! notices that sooner than a park and unpark.
//!
//! # `block_in_place`: lending a worker to a substitute thread
//!
//! A task that must block its thread calls [`block_in_place`]. Everything only this worker
//! serves — its LIFO slot, its local queue (others steal from it only when idle), its IO shard
//! — would wait for the call; so the worker lends its whole context (queues, LIFO slot, parker,
//! shard, idle state, counters: one `WorkerContext`) to a substitute thread that runs the
//! same worker loop with the same index, and takes it back when the closure returns. Tokio
//! moves its worker's core to a new thread for the same reason. The rules:
//!
//! 1. One thread at a time uses a context. The lender stops using it before it arms its lend
//!    record, and uses it again only after winning the disarm (no substitute claimed the lend)
//!    or after its substitute released it (`lend.rs`: one CAS decides between claim and
//!    disarm; the release is ordered by a mutex); it neither returns nor unwinds past that
//!    point, so the context (on the lender's stack) outlives the substitute's use.
//! 2. While lent, the lender is no worker: its `CURRENT_WORKER` is null, so spawns and wakes
//!    from the closure go to the injector, a nested `block_in_place` just runs its closure,
//!    and blocking is allowed on it (`rt_core::driving` is off).
//! 3. To take the context back, the lender sets its substitute's reclaim flag, then wakes the
//!    substitute like a notify does (`Shared::unpark_worker`); the substitute checks the flag
//!    at the top of every loop turn and of every park turn, and in the driver's "notified"
//!    check after publishing `on_driver` (SeqCst both sides), so the wake is never lost. A
//!    parked substitute takes itself off the sleepers list (not searching) before it stops,
//!    so the idle counters stay as the loop left them.
//!    Each lend has its own flag (on the lender's stack; the context's `reclaim` cell points at
//!    the flag of the substitute running it), so in a chain (a substitute lending on) a
//!    request reaches only the substitute it is meant for: the deeper one keeps serving until
//!    its own lender takes the context back. A worker on its own thread has a null pointer
//!    there and reads no extra atomic.
//! 4. The substitute stops only between two tasks, so the lender waits at most for the task
//!    the substitute is polling. A substitute's task may itself call `block_in_place`: it
//!    lends the context on to another substitute, by the same rules.
//! 5. A substitute is a thread of the scheduler's lend pool (a `blocking::BlockingPool` of its
//!    own, started by the workers' `ThreadSpawner`: same name, runtime context and
//!    `on_thread_start`/`on_thread_stop` hooks; idle threads kept 10 s), not a thread started
//!    per call: the lend queues a job that claims the lend when a pool thread gets to it, and
//!    a closure that returns first takes the context back with one CAS, so a short
//!    `block_in_place` costs no thread wake-up (tokio's is lazy the same way). A worker's
//!    record is reused, and while its job is still queued the next lend re-arms it instead of
//!    queuing another. If the OS refuses a thread, the closure runs with the context lent to
//!    nobody until a pool thread is free (warned through `tracing`).
//!
//! # Stalls: taking over a worker whose poll blocks (`takeover.rs`)
//!
//! `block_in_place` is a task saying in advance that it will block; a stall is a task that
//! blocks without saying so (a blocking call, a long computation). With a stall threshold
//! (`Config::stall`), the monitor thread finds such a poll from the workers' poll stamps
//! (`crate::stall`) and reports it; its worker's substitute then serves what only that worker
//! would. The stalled thread is never stopped or waited for: it stays the owner of its
//! context, and the take-over reaches only the parts built to be shared. The rules:
//!
//! S1. A worker's LIFO slot lives in `Shared::lifos` and is an `AtomicPtr` that its owner
//!     reads and writes plainly behind a barrier handshake a thief pays for (`crate::lifo`:
//!     a `membarrier(2)` per steal, nothing extra per spawn); its local queue is a work-stealing deque whose stealer
//!     any thread may use; its IO shard is driven by whichever thread holds it
//!     (`IoDriver::try_drive` is exclusive). These three are all the take-over touches; the
//!     rest of the context (counters, idle state, parker, countdowns) stays the stalled
//!     thread's alone.
//! S2. A substitute takes one task at a time — a steal of the LIFO slot, else one steal from
//!     the queue, else one task from the injector — and runs it like any thief (its wakes
//!     and spawns go to the injector: it is no worker, `CURRENT_WORKER` is null). A task is
//!     owned by whoever's access or steal returned it, so the stalled poll may keep spawning
//!     into its own slot and queue meanwhile, and pop them again once it returns, without a
//!     hand-over (loom models `lifo_take` and `stall_takeover`).
//! S3. With nothing to run, the substitute drives the stalled worker's shard (its sockets'
//!     events and its timers) for at most 1 ms at a time, giving it up early when the slot or
//!     the queue gets a task, then looks again: a spawn into the LIFO slot wakes nobody.
//! S4. Background work queued on the stalled worker is not the substitute's: another worker
//!     steals it. With nothing else to run, the substitute wakes a parked worker for it if
//!     nobody is searching, past the awake cap (`idle.rs`, `max_awake`: the stalled worker
//!     counts as awake, so with as many CPUs as awake workers no notify would wake one), at
//!     most once per look (every 1 ms while the work stays queued).
//! S5. It stops when the worker's stamp moves (the stalled poll returned) or at shutdown,
//!     and parks on its condvar until the next stall of that worker; one substitute per
//!     worker, started at that worker's first stall. The monitor marks the take-over over
//!     when it sees the stamp move, and reports the stall's end.
//! S6. `LocalSet` tasks are not taken over: they never leave their thread.

mod lend;
mod running;
mod snapshot;
mod takeover;
mod trace_hooks;
mod worker;

use std::future::Future;
use std::io;
use std::time::{Duration, Instant};

// A std `Arc` on purpose: the shared state is handed to `rt_core::batch::defer`, which keeps it
// as an `Arc<dyn Unpark>`, a coercion loom's `Arc` cannot make (`rt_core::sync::StdArc`,
// exception 7). Its reference count is no protocol; everything inside is from the shim.
use rt_core::sync::StdArc as Arc;
use rt_core::sync::{thread, AtomicBool, Condvar, Mutex, OnceLock, Ordering};
use rt_core::task::{JoinHandle, Notified, OwnedTasks, Schedule, Task};

use crate::idle::{Idle, Notify};
use crate::lifo::LifoSlot;
use crate::metrics::Counters;
use crate::park::{Parker, Unparker};
use crate::queue::{Injector, Local, Stealer};
use crate::stall::PollStamp;
use crate::{IoDriver, ThreadSpawner};

/// How a multi-thread scheduler is built.
#[derive(Clone, Debug)]
pub struct Config {
    /// Number of worker threads (at least 1).
    pub workers: usize,
    /// How the worker threads are started: name, stack size, hooks.
    pub threads: ThreadSpawner,
    /// Allocate task cells from the frame pool (else from the global allocator).
    pub frame_pool: bool,
    /// An IO driver idle workers block on instead of parking (one at a time), if any.
    pub io_driver: Option<Arc<dyn IoDriver>>,
    /// Every this many ticks a worker takes from the injector before its own queue (at least
    /// 1); `None` (the default): each worker tunes it to its tasks' poll time, as tokio's
    /// scheduler does (`GLOBAL_QUEUE_TARGET` in `tuning.rs`), starting from
    /// [`crate::DEFAULT_GLOBAL_QUEUE_INTERVAL`].
    pub global_queue_interval: Option<u32>,
    /// Every this many ticks a busy worker turns its IO shard without blocking (at least 1;
    /// [`crate::DEFAULT_EVENT_INTERVAL`]).
    pub event_interval: u32,
    /// Stall detection and take-over (`None`: off, no monitor thread). See "Stalls" in the
    /// module docs.
    pub stall: Option<crate::stall::StallConfig>,
    /// Record per-worker poll-time and schedule-latency histograms (two clock reads per poll;
    /// see `crate::metrics`).
    pub histograms: bool,
    /// A queued task wakes a parked worker only while fewer than this many workers are awake
    /// (clamped to 1..=`workers`; `idle.rs`, rule 1). `rt`'s builder sets it to the number of
    /// CPUs when stall detection is on: beyond that, another awake worker adds no CPU, only a
    /// thread that takes turns on the cores and is descheduled holding the tasks it stole.
    /// A worker blocked in a task (outside `block_in_place`) still counts as awake, so with
    /// this many blocked at once queued work waits for them or for the stall take-over.
    pub max_awake: usize,
    /// A worker that has run tasks this long without a break (a park, or a previous yield)
    /// yields its CPU to the OS once (`sched_yield`), at its next `event_interval` tick
    /// (`None`: never). See "Yielding the CPU" in the module docs.
    pub os_yield_after: Option<std::time::Duration>,
    /// A background task's poll ends at its first budget check after this long if
    /// latency-sensitive work waits ("Priorities" in the module docs;
    /// [`crate::tuning::DEFAULT_BACKGROUND_SLICE`]). `Duration::ZERO` checks at every budget
    /// check.
    pub background_slice: Duration,
    /// Every this many ticks a worker with background work queued runs a background task
    /// before normal work (at least 1; [`crate::tuning::DEFAULT_BACKGROUND_INTERVAL`]).
    pub background_interval: u32,
    /// Called by a worker on its thread just before it parks and just after it wakes
    /// (tokio's `on_thread_park` / `on_thread_unpark`).
    pub park_hooks: crate::ParkHooks,
}

impl Config {
    /// `workers` workers with the default intervals, the frame pool, no IO driver, no cap on
    /// awake workers (`max_awake` = `workers`), and threads named `rt-worker` without hooks.
    pub fn new(workers: usize) -> Config {
        Config {
            workers,
            threads: ThreadSpawner::new("rt-worker"),
            frame_pool: true,
            io_driver: None,
            global_queue_interval: None,
            event_interval: crate::DEFAULT_EVENT_INTERVAL,
            stall: None,
            histograms: false,
            max_awake: workers,
            os_yield_after: Some(crate::DEFAULT_OS_YIELD_AFTER),
            background_slice: crate::tuning::DEFAULT_BACKGROUND_SLICE,
            background_interval: crate::tuning::DEFAULT_BACKGROUND_INTERVAL,
            park_hooks: crate::ParkHooks::default(),
        }
    }
}

pub(crate) struct Shared {
    injector: Injector<Notified<Handle>>,
    stealers: Box<[Stealer<Notified<Handle>>]>,
    /// The injector of background tasks ("Priorities" in the module docs).
    bg_injector: Injector<Notified<Handle>>,
    /// Per worker: the stealer of its background queue.
    bg_stealers: Box<[Stealer<Notified<Handle>>]>,
    /// Set (never cleared) before the first background task is queued: until then a worker
    /// out of normal work skips the background queues, so a runtime that never spawns one
    /// pays nothing there. Written with `SeqCst` before that task's push (whose notify
    /// follows), read `SeqCst` by the searchers the notify wakes (`worker.rs`).
    any_background: AtomicBool,
    /// `Config::background_slice`.
    background_slice: Duration,
    /// `Config::background_interval`.
    background_interval: u32,
    unparkers: Box<[Unparker]>,
    idle: Idle,
    owned: OwnedTasks<Handle>,
    counters: Counters,
    shutdown: AtomicBool,
    frame_pool: bool,
    io_driver: Option<Arc<dyn IoDriver>>,
    /// Per worker: it is (about to be) blocked in `io_driver` rather than on its parker.
    on_driver: Box<[crossbeam_utils::CachePadded<AtomicBool>]>,
    /// Set once, before tasks run, to shut down on an unhandled panic (`Handle`'s setter).
    panic_hook: OnceLock<crate::PanicHook>,
    /// `Config::global_queue_interval` (`None`: tuned by each worker).
    global_queue_interval: Option<u32>,
    /// `Config::event_interval`.
    event_interval: u32,
    /// `Config::os_yield_after` (never under loom: a yield is no step of any protocol, and
    /// loom has no clock).
    os_yield_after: Option<std::time::Duration>,
    /// Per worker: its thread has finished its body (hooks included). Set by the worker thread
    /// as its last act, read by `MultiThread::shutdown` with a timeout, woken through
    /// `exit_signal`.
    exited: Mutex<Box<[bool]>>,
    exit_signal: Condvar,
    /// Parked workers whose driver turn woke tasks onto their own queues and that have not yet
    /// left the sleepers list for them (see `all_idle`).
    settling: rt_core::sync::AtomicUsize,
    /// Starts the stall take-over's substitute threads (the workers' own spawner).
    spawner: ThreadSpawner,
    /// Per worker: the record its own `block_in_place` lends reuse (`lend.rs`).
    lends: Box<[rt_core::sync::Arc<lend::LendRecord>]>,
    /// The threads that serve lent contexts, kept for reuse (`lend.rs`).
    lend_pool: crate::blocking::BlockingPool,
    /// The trace recorder, with a trace file (`crate::trace`, hooks in `trace_hooks.rs`).
    trace: Option<Arc<crate::trace::Recorder>>,
    /// Per worker: its LIFO slot (here, not on the worker's stack, so a take-over can reach it).
    lifos: Box<[crossbeam_utils::CachePadded<LifoSlot<Handle>>]>,
    /// Per worker: its poll stamp (stall detection, the task dump's "running on worker N").
    stamps: Box<[crossbeam_utils::CachePadded<PollStamp>]>,
    /// Stall detection, if on.
    takeover: Option<takeover::Takeover>,
    /// `Config::on_park` and `Config::on_unpark`.
    park_hooks: crate::ParkHooks,
}

/// A handle to a multi-thread scheduler: spawns tasks, and is the `Schedule` of its tasks.
#[derive(Clone)]
pub struct Handle {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("multi_thread::Handle")
            .field("workers", &self.shared.stealers.len())
            .field("live_tasks", &self.shared.owned.len())
            .finish()
    }
}

/// A worker's two local queues: normal, then background tasks.
type Locals = (Local<Notified<Handle>>, Local<Notified<Handle>>);

type Pending = (Vec<Locals>, Vec<Parker>, ThreadSpawner);

/// A running multi-thread scheduler: owns its worker threads.
pub struct MultiThread {
    handle: Handle,
    threads: Vec<thread::JoinHandle<()>>,
    /// The stall monitor, if stall detection is on.
    monitor: Option<thread::JoinHandle<()>>,
    /// What `start` needs, until it runs.
    /// (A `Mutex` only so `MultiThread` is `Sync`: crossbeam's `Worker` is not.)
    pending: Mutex<Option<Pending>>,
    /// `shutdown_until` has run: a later call (the drop after `shutdown_timeout`) does nothing.
    shut_down: bool,
}

impl MultiThread {
    /// Builds the scheduler; no thread runs until [`MultiThread::start`].
    ///
    /// # Panics
    /// When an interval is 0.
    pub fn new(config: Config) -> MultiThread {
        assert!(
            config.global_queue_interval != Some(0),
            "global_queue_interval must be greater than 0"
        );
        assert!(
            config.event_interval > 0,
            "event_interval must be greater than 0"
        );
        assert!(
            config.background_interval > 0,
            "background_interval must be greater than 0"
        );
        let n = config.workers.max(1);
        let locals: Vec<Locals> = (0..n).map(|_| (Local::new(), Local::new())).collect();
        let parkers: Vec<Parker> = (0..n).map(|_| Parker::new()).collect();
        let shared = Arc::new(Shared {
            injector: Injector::new(),
            stealers: locals.iter().map(|l| l.0.stealer()).collect(),
            bg_injector: Injector::new(),
            bg_stealers: locals.iter().map(|l| l.1.stealer()).collect(),
            any_background: AtomicBool::new(false),
            background_slice: config.background_slice,
            background_interval: config.background_interval,
            unparkers: parkers.iter().map(|p| p.unparker().clone()).collect(),
            idle: Idle::new(n, config.max_awake),
            owned: OwnedTasks::new(n),
            counters: Counters::new(n, config.histograms),
            shutdown: AtomicBool::new(false),
            frame_pool: config.frame_pool,
            io_driver: config.io_driver.clone(),
            on_driver: (0..n)
                .map(|_| crossbeam_utils::CachePadded::new(AtomicBool::new(false)))
                .collect(),
            panic_hook: OnceLock::new(),
            global_queue_interval: config.global_queue_interval,
            event_interval: config.event_interval,
            os_yield_after: config.os_yield_after.filter(|_| !cfg!(loom)),
            exited: Mutex::new(vec![false; n].into_boxed_slice()),
            exit_signal: Condvar::new(),
            settling: rt_core::sync::AtomicUsize::new(0),
            spawner: config.threads.clone(),
            lends: (0..n)
                .map(|_| rt_core::sync::Arc::new(lend::LendRecord::new()))
                .collect(),
            lend_pool: crate::blocking::BlockingPool::new(crate::blocking::Config {
                // As many as there are lends at once: each serves one lent context.
                max_threads: usize::MAX,
                keep_alive: crate::tuning::DEFAULT_KEEP_ALIVE,
                threads: config.threads.clone(),
            }),
            trace: None,
            lifos: (0..n).map(|_| Default::default()).collect(),
            stamps: (0..n).map(|_| Default::default()).collect(),
            takeover: config.stall.map(|c| takeover::Takeover::new(c, n)),
            park_hooks: config.park_hooks.clone(),
        });
        MultiThread {
            handle: Handle { shared },
            threads: Vec::with_capacity(n),
            monitor: None,
            pending: Mutex::new(Some((locals, parkers, config.threads))),
            shut_down: false,
        }
    }

    /// Records a Chrome trace into `recorder` (`crate::trace`). Call before
    /// [`MultiThread::start`].
    ///
    /// # Panics
    /// When the scheduler's handle has been cloned already.
    pub fn with_trace(mut self, recorder: Arc<crate::trace::Recorder>) -> MultiThread {
        Arc::get_mut(&mut self.handle.shared)
            .expect("with_trace before start")
            .trace = Some(recorder.clone());
        trace_hooks::attach(&self.handle.shared, &recorder);
        self
    }

    /// Starts the worker threads. Tasks spawned before this wait in the injector.
    pub fn start(&mut self) -> io::Result<()> {
        let pending = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let Some((locals, parkers, threads)) = pending else {
            return Ok(());
        };
        for (index, (locals, parker)) in locals.into_iter().zip(parkers).enumerate() {
            let h = self.handle.clone();
            let shared = self.handle.shared.clone();
            let spawned = threads.spawn(
                move || worker::run(h, index, locals, parker),
                move || shared.mark_exited(index),
            );
            match spawned {
                Ok(t) => self.threads.push(t),
                Err(e) => {
                    self.shutdown(None);
                    return Err(e);
                }
            }
        }
        if self.handle.shared.takeover.is_some() {
            match takeover::start_monitor(&self.handle.shared) {
                Ok(t) => self.monitor = Some(t),
                Err(e) => {
                    self.shutdown(None);
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// The scheduler's handle.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Stops the workers and cancels every task; waits at most `timeout` (forever when
    /// `None`). See [`shutdown_until`](Self::shutdown_until).
    pub fn shutdown(&mut self, timeout: Option<Duration>) {
        // A timeout too long to be an instant (`Duration::MAX`) is no limit.
        self.shutdown_until(timeout.and_then(|t| Instant::now().checked_add(t)));
    }

    /// Stops the workers and cancels every task: each pending future is dropped exactly once.
    /// The workers drop them, in parallel, as they exit (each starts at its own part of the
    /// task list); a task stuck in a poll is dropped by the worker running it when that poll
    /// returns. Waits until every worker has exited, or until `deadline`: the call itself
    /// drops no future while a worker is still out, so a slow destructor or a stuck poll does
    /// not hold it past the deadline. Workers still out then are left detached and finish the
    /// drops on their own threads; nothing waits for them. Idempotent.
    pub fn shutdown_until(&mut self, deadline: Option<Instant>) {
        if std::mem::replace(&mut self.shut_down, true) {
            return;
        }
        let shared = &self.handle.shared;
        if !shared.shutdown.swap(true, Ordering::AcqRel) {
            for i in 0..shared.unparkers.len() {
                // Not parked: it is running and sees the flag after its poll.
                let _ = shared.idle.unpark_worker_by_id(i);
                shared.unpark_worker(i);
            }
        }
        let threads = std::mem::take(&mut self.threads);
        let substitutes = shared
            .takeover
            .as_ref()
            .map(|t| t.stop())
            .unwrap_or_default();
        if let Some(m) = self.monitor.take() {
            let _ = m.join();
        }
        if deadline.is_none() {
            // (With a deadline they are left detached, like workers: each exits after its poll.)
            for t in substitutes {
                let _ = t.join();
            }
        }
        let exited = match deadline {
            None => vec![true; threads.len()],
            Some(d) => shared.wait_exited(d),
        };
        let all_exited = exited.iter().all(|&e| e);
        for (t, exited) in threads.into_iter().zip(exited) {
            if exited {
                let _ = t.join();
            }
            // Else: leave the thread detached; it exits after its current poll and its drops.
        }
        // The lend pool's threads: those that served lends of the workers just joined are
        // idle (with a deadline, a worker still out leaves its substitute running, detached).
        shared.lend_pool.shutdown(deadline.map(|_| Duration::ZERO));
        if all_exited {
            // The workers took every task already; this finds the tasks of a scheduler whose
            // workers never started (and closes the list if no worker did).
            shared.owned.close_and_shutdown_all();
        }
        // Queued `Notified`s of tasks the list cancelled: drop them (only references: the
        // futures went with the close).
        while let Some(t) = shared.injector.pop() {
            drop(t);
        }
        while let Some(t) = shared.bg_injector.pop() {
            drop(t);
        }
    }
}

impl std::fmt::Debug for MultiThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MultiThread")
            .field("handle", &self.handle)
            .field("threads", &self.threads.len())
            .finish()
    }
}

impl Drop for MultiThread {
    fn drop(&mut self) {
        self.shutdown(None);
    }
}

impl Handle {
    /// Spawns a task. During or after shutdown the future is dropped at once and the handle
    /// resolves to a cancellation error.
    #[track_caller]
    pub fn spawn<F>(&self, future: F, id: rt_core::task::Id) -> JoinHandle<F::Output>
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
        id: rt_core::task::Id,
        meta: rt_core::task::SpawnMeta<'_>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        worker::with_current_worker(|cx| {
            let cx = cx.filter(|cx| cx.belongs_to(&self.shared));
            // A worker binds through its own slot cache; other threads share one.
            let hint = cx.map_or(usize::MAX, |cx| cx.index());
            // SAFETY: `hint` is the worker this thread runs now (only that thread sees its
            // context in `with_current_worker`), or out of range.
            let (join, notified) = unsafe {
                self.shared.owned.bind_in(
                    hint,
                    future,
                    self.clone(),
                    id,
                    meta,
                    self.shared.frame_pool,
                )
            };
            tracing::trace!(task.id = id.as_u64(), "spawn");
            self.shared.trace_spawn(id, &meta);
            if let Some(n) = notified {
                match cx {
                    Some(cx) => cx.schedule_spawned(n),
                    None => {
                        self.shared.counters.spawned(usize::MAX);
                        self.shared.schedule_remote(self, n)
                    }
                }
            }
            join
        })
    }

    /// Per worker, the id of the task it is polling now (`None`: not in a poll), read from the
    /// poll stamps (`crate::stall`): a hint, for the task dump's "running on worker N".
    pub fn running_tasks(&self) -> Vec<Option<u64>> {
        self.shared
            .stamps
            .iter()
            .map(|s| s.running_task())
            .collect()
    }

    /// One take-over step for worker `worker` (`takeover::step`), for the loom model
    /// `stall_takeover` (visible under loom only: `rt_core::sync`'s exception 5).
    #[cfg(loom)]
    #[doc(hidden)]
    pub fn takeover_step(&self, worker: usize) -> bool {
        takeover::step(&self.shared, worker)
    }

    /// Makes an unhandled panic in a task shut the scheduler down, after giving its payload to
    /// `hook`. Set it before tasks run; a second call is ignored.
    pub fn set_unhandled_panic_hook(&self, hook: crate::PanicHook) {
        let _ = self.shared.panic_hook.set(hook);
    }

    /// Shuts down from inside (any thread, a worker included): workers stop after their
    /// current poll and every task is cancelled. [`MultiThread::shutdown`] still joins them.
    fn close(&self) {
        let shared = &self.shared;
        if !shared.shutdown.swap(true, Ordering::AcqRel) {
            for i in 0..shared.unparkers.len() {
                // Not parked: it is running and sees the flag after its poll.
                let _ = shared.idle.unpark_worker_by_id(i);
                shared.unpark_worker(i);
            }
        }
        shared.owned.close_and_shutdown_all();
        while let Some(t) = shared.injector.pop() {
            drop(t);
        }
        while let Some(t) = shared.bg_injector.pop() {
            drop(t);
        }
    }

    fn schedule_task(&self, task: Notified<Handle>, is_yield: bool) {
        if self.shared.tracing() {
            // Out of line (`trace_hooks.rs`): the untraced path keeps no stack frame for it.
            return self.schedule_traced(task, is_yield);
        }
        self.schedule_untraced(task, is_yield);
    }

    #[inline]
    fn schedule_untraced(&self, task: Notified<Handle>, is_yield: bool) {
        worker::with_current_worker(|cx| match cx {
            Some(cx) if cx.belongs_to(&self.shared) => cx.schedule_local(task, is_yield),
            _ => self.shared.schedule_remote(self, task),
        })
    }
}

/// Runs `f`, which may block its thread, from a task on a multi-thread worker: the worker's
/// queues, LIFO slot and IO shard are served by a substitute thread meanwhile (see the module
/// docs), so the tasks it holds keep running. Returns `Err(f)`, without running it, when this
/// thread is not running a multi-thread worker loop (outside a task, on a current-thread
/// runtime, or already inside `block_in_place`); the caller decides what that means.
pub fn block_in_place<F: FnOnce() -> R, R>(f: F) -> Result<R, F> {
    worker::block_in_place(f)
}

pub(crate) use trace_hooks::with_worker_trace;

/// The index of the worker running on this thread (`0..workers`), or `None` on any other
/// thread (tokio's `runtime::worker_index` on the multi-thread flavour).
pub fn current_worker_index() -> Option<usize> {
    worker::with_current_worker(|w| w.map(|w| w.index()))
}

impl Shared {
    fn is_shutdown(&self) -> bool {
        self.shutdown.load(Ordering::Acquire)
    }

    /// Worker `index`'s thread, as its last act: its body and hooks are done.
    fn mark_exited(&self, index: usize) {
        self.exited.lock().unwrap_or_else(|e| e.into_inner())[index] = true;
        self.exit_signal.notify_all();
    }

    /// Waits until every worker thread has exited or `deadline` passed; returns which exited.
    fn wait_exited(&self, deadline: Instant) -> Vec<bool> {
        let mut exited = self.exited.lock().unwrap_or_else(|e| e.into_inner());
        while !exited.iter().all(|&e| e) {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            exited = self
                .exit_signal
                .wait_timeout(exited, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        exited.to_vec()
    }

    fn schedule_remote(&self, handle: &Handle, task: Notified<Handle>) {
        self.counters.scheduled(&task, usize::MAX);
        self.counters.injected();
        let injector = if task.priority().is_background() {
            self.saw_background();
            &self.bg_injector
        } else {
            &self.injector
        };
        injector.push(task);
        if self.is_shutdown() {
            // Shutdown may already have drained the injector: nobody will run this task (the
            // owned list cancels it), so drop the queued references now.
            while let Some(t) = injector.pop() {
                drop(t);
            }
            return;
        }
        // Inside a batch (a reactor turn) the unpark waits for the batch's end; `defer` says
        // whether one is open, so the common case costs one thread-local look-up.
        if rt_core::batch::defer(&handle.shared) {
            return;
        }
        self.notify_parked();
    }

    /// Wakes one sleeping worker if nobody is searching (idle rule 1).
    fn notify_parked(&self) {
        if let Notify::Worker(i) = self.idle.worker_to_notify() {
            self.counters[i].unpark();
            self.unpark_worker(i);
        }
    }

    /// Wakes a parked worker if nobody is searching, even with `max_awake` workers awake
    /// (take-over rule S4).
    fn notify_parked_past_cap(&self) {
        if let Notify::Worker(i) = self.idle.worker_to_notify_past_cap() {
            self.counters[i].unpark();
            self.unpark_worker(i);
        }
    }

    /// Wakes worker `i` wherever it sleeps: on its parker, or in the IO driver. Pairs with the
    /// check in `WorkerContext::park`: the worker publishes `on_driver` before it re-checks the
    /// sleepers list, and we read it after taking the worker off that list, so one of the two
    /// sides sees the other (both SeqCst, and the list is behind a lock).
    fn unpark_worker(&self, i: usize) {
        self.unparkers[i].unpark();
        if self.on_driver[i].load(Ordering::SeqCst) {
            if let Some(d) = &self.io_driver {
                d.unpark(self.shard_of(i));
            }
        }
    }

    /// The IO driver shard worker `i` blocks in when idle.
    fn shard_of(&self, i: usize) -> usize {
        self.io_driver.as_ref().map_or(0, |d| i % d.shards())
    }

    /// Whether each worker has a driver shard of its own (else they share shard 0, one at a
    /// time, as tokio's workers share their driver).
    fn owns_shard(&self) -> bool {
        self.io_driver
            .as_ref()
            .is_some_and(|d| d.shards() == self.stealers.len())
    }

    /// Whether nothing in the scheduler can make progress, for auto-advance of a paused clock
    /// (`IoDriver::try_drive_idle`; rules P2, P5 and P6 in rt-io's `time/clock.rs`), asked by a
    /// parked worker. The checks follow a task's path
    /// — queues, then the workers that take from them — so a task moving along it is seen at
    /// one place or the other: a task popped from a queue was popped by an unparked worker,
    /// which is still unparked or has parked again after running it (SeqCst throughout).
    /// A task a parked worker's own driver turn woke into its LIFO slot (invisible to others)
    /// is counted in `settling` during that turn; the driver asks only while it holds every
    /// shard, so no such turn is under way unseen.
    fn all_idle(&self) -> bool {
        self.injector.is_empty()
            && self.stealers.iter().all(|s| s.is_empty())
            && self.bg_injector.is_empty()
            && self.bg_stealers.iter().all(|s| s.is_empty())
            && self.settling.load(Ordering::SeqCst) == 0
            && self.idle.num_unparked() == 0
    }

    /// Idle rule 4: the last searcher re-checks every queue before it sleeps.
    fn notify_if_work_pending(&self) {
        if self.has_queued_work() {
            self.notify_parked();
        }
    }

    /// Marks that background tasks exist (`any_background`), before one is queued.
    #[inline]
    fn saw_background(&self) {
        if !self.any_background.load(Ordering::Relaxed) {
            self.any_background.store(true, Ordering::SeqCst);
        }
    }

    /// Whether a background task was ever queued (`any_background`).
    #[inline]
    fn has_background(&self) -> bool {
        self.any_background.load(Ordering::SeqCst)
    }

    /// Whether any queue holds a task (either priority).
    fn has_queued_work(&self) -> bool {
        !self.injector.is_empty()
            || self.stealers.iter().any(|s| !s.is_empty())
            || !self.bg_injector.is_empty()
            || self.bg_stealers.iter().any(|s| !s.is_empty())
    }
}

impl rt_core::batch::Unpark for Shared {
    fn unpark(&self) {
        self.notify_parked();
    }
}

impl Schedule for Handle {
    fn release(&self, task: &Task<Handle>) -> Option<Task<Handle>> {
        self.shared.trace_complete(task.id());
        let hint = worker::with_current_worker(|cx| match cx {
            Some(cx) if cx.belongs_to(&self.shared) => cx.index(),
            _ => usize::MAX,
        });
        // SAFETY: as in `spawn_with`: the worker this thread runs now, or out of range.
        unsafe { self.shared.owned.remove_in(hint, task) }
    }

    fn schedule(&self, task: Notified<Handle>) {
        self.schedule_task(task, false);
    }

    fn yield_now(&self, task: Notified<Handle>) {
        self.schedule_task(task, true);
    }

    fn unhandled_panic(
        &self,
        payload: Box<dyn std::any::Any + Send>,
    ) -> Box<dyn std::any::Any + Send> {
        crate::route_unhandled_panic(self.shared.panic_hook.get(), payload, || self.close())
    }
}
