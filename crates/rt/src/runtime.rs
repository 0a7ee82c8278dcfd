//! `Runtime`: owns the scheduler, the blocking pool and the IO driver. The runtime types are
//! here at tokio's paths too (`rt::runtime::{Builder, Runtime, Handle, RuntimeFlavor, Id,
//! EnterGuard}`, `rt::runtime::UnhandledPanic`, `rt::runtime::is_rt_shutdown_err`).
//!
//! # Shutting down on a task panic
//!
//! ```rust
//! let rt = rt::Builder::new_multi_thread()
//!     .worker_threads(2)
//!     .unhandled_panic(rt::UnhandledPanic::ShutdownRuntime)
//!     .build()?;
//! drop(rt.spawn(async { panic!("boom") })); // handle dropped: still "unhandled"
//! let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
//!     rt.block_on(std::future::pending::<()>())
//! }))
//! .unwrap_err();
//! assert_eq!(err.downcast_ref::<&str>(), Some(&"boom"));
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! Also `#[rt::main(unhandled_panic = "shutdown_runtime")]` and `#[rt::test(..)]` (values
//! `"ignore"`, the default, and `"shutdown_runtime"`); the type is at `rt::runtime::UnhandledPanic`
//! too. The first panicking poll of a spawned task shuts the runtime down (every other task is
//! cancelled, new spawns are refused) and the `block_on` calls watching at that moment panic:
//! the first with the task's own payload (tokio panics with a fixed message instead), any other
//! with a stand-in message. The panicking task's `JoinError` carries a stand-in payload
//! (`rt_sched::PANIC_TAKEN`). Panics in `spawn_blocking` closures and in a future's `Drop` at
//! cancellation do not count, as in tokio.
//!
//! # Thread hooks, names and scheduler intervals
//!
//! tokio's `Builder` options for the runtime's threads, with tokio's names and signatures. They
//! apply to the worker threads *and* the blocking pool's threads; the hooks run on the thread,
//! inside the runtime's context, and dropping the runtime waits for every `on_thread_stop`.
//!
//! ```rust
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use std::sync::Arc;
//!
//! let started = Arc::new(AtomicUsize::new(0));
//! let stopped = Arc::new(AtomicUsize::new(0));
//! let rt = rt::Builder::new_multi_thread()
//!     .worker_threads(2)
//!     .thread_name_fn(|| {
//!         static ID: AtomicUsize = AtomicUsize::new(0);
//!         format!("svc-{}", ID.fetch_add(1, Ordering::Relaxed))
//!     })
//!     .on_thread_start({
//!         let started = started.clone();
//!         move || drop(started.fetch_add(1, Ordering::SeqCst))
//!     })
//!     .on_thread_stop({
//!         let stopped = stopped.clone();
//!         move || drop(stopped.fetch_add(1, Ordering::SeqCst))
//!     })
//!     .global_queue_interval(31) // every 31st tick a worker takes remote work first (default: tuned)
//!     .event_interval(61) // every 61st tick a busy worker polls IO and timers (default 61)
//!     .build()?;
//! let name = rt.block_on(async {
//!     rt::spawn_blocking(|| std::thread::current().name().map(str::to_owned)).await
//! });
//! assert!(name.unwrap().unwrap().starts_with("svc-"));
//! drop(rt);
//! assert_eq!(started.load(Ordering::SeqCst), 3); // two workers and one blocking thread
//! assert_eq!(stopped.load(Ordering::SeqCst), 3);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! `global_queue_interval(0)` and `event_interval(0)` panic, as in tokio. On the current-thread
//! flavour `event_interval` is how many tasks run between two polls of the `block_on` future and
//! how many such rounds pass between two IO polls; `global_queue_interval` has no effect there
//! (it has one queue), and the hooks run on its blocking threads only.
//!
//! # Seeing inside
//!
//! A runtime that misbehaves in production should say why. `rt` builds in what tokio leaves to
//! unstable flags and an external console: task names and spawn locations, a Chrome/Perfetto
//! trace of every poll, task dumps, stall detection that names the blocking task and serves the
//! work it holds, and metrics. A walkthrough, five minutes, no code to write:
//!
//! 1. **Trace a run.** `RT_TRACE=trace.json cargo run --release --example demo 10 1` runs the demo
//!    (a million spawns, then an echo load of 10 connections for one second) and writes
//!    `trace.json` when the runtime shuts down. Open it at [ui.perfetto.dev](https://ui.perfetto.dev) ("Open trace file"). Each worker
//!    is a track named `rt-worker N`; each slice is one poll, named after its task, and its
//!    arguments (click it) give the task id, spawn location, poll number and `Ready`/`Pending`.
//!    Arrows run from a spawn to the first poll and from a wake to the poll it caused: an arrow
//!    between two tracks is a steal or a cross-worker wake. `park`/`unpark`/`steal` instants and
//!    the injector-depth and live-task counters are on the same timeline. If the workers produced
//!    events faster than the writer could save them, `metadata.rt.dropped_events` says how many
//!    were dropped (never waited for).
//! 2. **Read a dump.** `cargo run --example dump` starts a small service (a ticker, three
//!    connections waiting on channels, a task whose waker is lost, a task stuck in a blocking
//!    call, an unnamed timer loop), sends itself `SIGQUIT` and prints `Handle::dump()`: one line
//!    per live task with its state (idle, scheduled, running on worker N), "no waker" for the task
//!    nothing can ever wake, poll count and time since the last poll and wake for named tasks, and
//!    the spawn location. The stuck task shows as running with a last poll that keeps growing.
//!    With `-- --wait` it keeps running and prints a dump on every Ctrl-\.
//! 3. **Provoke a stall.** The same example's stuck task calls `std::thread::sleep` inside a poll.
//!    After 100 ms (`Builder::stall_threshold`) the monitor thread prints, through
//!    `Builder::on_stall`, `stall: task 6 "busy" spawned at examples/dump.rs:… has blocked worker
//!    1 for 1xx ms`; the stall also counts in `Runtime::metrics().stall_count()`, goes to `tracing` as a
//!    warning and, with a trace file, appears as a `stall` instant. Meanwhile a substitute thread
//!    serves the stalled worker's queued tasks, its sockets and its timers: the ticker keeps
//!    ticking (its poll count in the dump grows).
//!
//!
//! # Task names and spawn locations
//!
//! Every spawn function (`rt::spawn`, `Runtime::spawn`, `Handle::spawn`, `spawn_blocking`,
//! `spawn_local`, `JoinSet`/`TaskGroup` spawns and `rt::task::Builder`) is `#[track_caller]`: the
//! task records where it was spawned, with no allocation. `rt::task::Builder` (tokio's shape) also
//! names a task; the name is copied into a side record at spawn. Both cost one word per task
//! (the cell of a trivial task grew from 88 to 96 bytes); an unnamed spawn allocates nothing for
//! it, a named one allocates the record and the name's copy.
//! `JoinHandle::name` and `JoinHandle::spawn_location` (rt extensions; also on `AbortHandle`) read
//! them back.
//!
//! ```rust
//! let rt = rt::Builder::new_current_thread().build()?;
//! rt.block_on(async {
//!     let h = rt::task::Builder::new()
//!         .name("flush-log")
//!         .spawn(async { 1 + 1 })?;
//!     assert_eq!(h.name(), Some("flush-log"));
//!     assert!(h.spawn_location().file().ends_with(".rs"));
//!     assert_eq!(h.await.unwrap(), 2);
//!     Ok::<(), std::io::Error>(())
//! })?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Tracing spans
//!
//! With a `tracing` subscriber that enables them, every task gets one `rt.task` span (target
//! `rt::task`, no parent; fields `task.id`, `task.name`, `loc.file`, `loc.line`), created at spawn
//! and entered around each poll, and `trace`-level events `wake`, `abort` and `complete` (plus the
//! existing `spawn` and `poll`) carry `task.id`. The span is kept in the task's side record (the
//! one a name uses), so with no subscriber interested a spawn costs tracing's cached callsite
//! check and a poll a test of one bit of the header's meta word. A subscriber set after a task was
//! spawned sees its events but no span for it.
//!
//! # Task dumps
//!
//! `Handle::dump()` (and `Runtime::dump()`) lists every live task of a runtime: id, name, spawn
//! location and state — idle, scheduled, or running on worker N — as an `rt::Dump`. It walks the
//! runtime's task table without stopping it: it never waits for a task, so it returns while a task
//! is stuck in a poll, and it may be called from any thread, a task of the same runtime included
//! (a signal-handling task, say). `Dump` prints as a table, longest-idle first, and iterates over
//! `rt::TaskDump`s (`id`, `name`, `location`, `state`, `lost_waker`, `polls`, `since_last_poll`,
//! `since_last_wake`).
//!
//! ```text
//! 7 live tasks (longest idle first)
//! ID       STATE                            PRIORITY     POLLS  LAST POLL  LAST WAKE  NAME              SPAWNED AT
//! 2        idle                             normal           1      103ms          -  conn-0            examples/dump.rs:37:14
//! 5        idle, no waker                   normal           1      103ms          -  lost              examples/dump.rs:43:10
//! 6        running on worker 1              normal           1      103ms          -  busy              examples/dump.rs:45:43
//! 1        idle                             normal          11        3ms        3ms  ticker            examples/dump.rs:25:45
//! 7        idle                             normal           -          -          -  -                 examples/dump.rs:49:5
//! ```
//!
//! Reading one: a task **running** with a large LAST POLL (time since its poll began) is blocking
//! its worker; **idle, no waker** means the task waits and no waker of it exists, so nothing can
//! ever wake it (a "lost waker": it stays until aborted or shut down; a task with an
//! `AbortHandle` is never marked, since that handle's reference looks like a waker's). Poll count
//! and the last poll and wake times are kept only for named tasks (and for every task while a
//! `tracing` subscriber records `rt.task` spans), because they cost a clock read per poll; other
//! tasks show `-`. Not listed: finished tasks (even before their `JoinHandle` is joined),
//! `spawn_blocking` closures, the tasks of a `LocalSet` never driven (or spawned onto) inside the
//! runtime, and the future given to `block_on`. `LocalSet` tasks are listed with the runtime whose
//! `block_on` (or task) drives their set: idle or scheduled between the set's polls, running only
//! while the set polls them (on worker 0 on a current-thread runtime; with no worker on a
//! multi-thread one, whose `block_on` thread is none of its workers).
//! `cargo run --example dump` prints a dump on `SIGQUIT` (Ctrl-\).
//!
//! ```rust
//! let rt = rt::Builder::new_current_thread().build()?;
//! let h = rt::task::Builder::new()
//!     .name("forever")
//!     .spawn_on(std::future::pending::<()>(), rt.handle())?;
//! rt.block_on(rt::task::yield_now()); // runs the task once: it waits now
//! let dump = rt.dump();
//! let t = dump.iter().find(|t| t.id() == h.id()).unwrap();
//! assert_eq!(t.name(), Some("forever"));
//! assert_eq!(t.state(), rt::TaskState::Idle);
//! assert!(t.lost_waker()); // `pending()` keeps no waker
//! println!("{dump}");
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Tracing to Perfetto
//!
//! A runtime writes a Chrome trace of everything it runs when given a file, with
//! `rt::Builder::trace_file(path)` or, with no code change, the environment variable `RT_TRACE`:
//!
//! ```text
//! RT_TRACE=trace.json cargo run --release --example demo 10 1
//! ```
//!
//! Open `trace.json` at [ui.perfetto.dev](https://ui.perfetto.dev) (or `chrome://tracing`). Each
//! worker has a track (`rt-worker 0`, `rt-worker 1`, …; blocking-pool threads and other threads
//! that spawn or wake tasks get one each): one slice per poll, named after the task (or
//! `task <id>`), whose arguments give the task id, name, spawn location, poll number and
//! `Ready`/`Pending`; arrows from each spawn to the task's first poll and from each wake to the
//! poll it causes, so a task stolen by another worker or woken across workers shows as an arrow
//! between tracks; `park`, `unpark` and `steal` instants; `stall` instants when the stall
//! monitor reports one; and counter tracks for the injector's depth and the live tasks. The file
//! is complete once the runtime has shut down (dropped, `shutdown_timeout`, or the end of a
//! `#[rt::main]`). A second runtime of the process that reads `RT_TRACE` writes `trace.1.json`, and
//! so on. Workers record into fixed-size buffers a background thread drains: if one fills, events
//! are dropped, never waited for, and the file's `metadata` says how many (`rt.dropped_events`,
//! per track in `rt.dropped_by_track`). The run above (the demo's million-task spawn storm, then
//! 10 connections for 1 s) writes a valid file of about 100 MB here, with most of the storm's
//! events dropped and counted: the writer keeps up with roughly half a million polls a second
//! (`benches/trace.rs`, `docs/BENCHMARKS.md`). A current-thread
//! runtime's tasks show on the track of the thread inside `block_on`. `LocalSet` tasks show on
//! the track of the thread that drives their set, with the same arguments, spawn and wake arrows;
//! a set driven inside another poll (a local task's, or a `spawn_blocking` closure's) draws its
//! polls nested inside that poll's slice.
//!
//! # Stall detection
//!
//! A task that blocks its worker without saying so (a blocking call, a long computation) is found
//! and named while it still blocks. A monitor thread (`rt-monitor`) watches each worker's poll
//! stamp; a poll that runs longer than `Builder::stall_threshold` (default 100 ms; `None` turns
//! detection off and starts no monitor) is reported with the task's id, name, spawn location,
//! worker and elapsed time — as a `tracing::warn!`, through `Builder::on_stall`, in
//! `Runtime::metrics().stall_count()` — and once more when it returns, with its total length. Meanwhile
//! another thread takes over what only the stalled worker would have run: the task in its LIFO
//! slot, its queue, its sockets' events and its timers (not `LocalSet` tasks, which never leave
//! their thread). While every worker is parked the monitor sleeps until one wakes, so an idle
//! runtime makes no wake-ups (`scripts/idle-wakeups.py` counts them).
//!
//! A current-thread runtime has the same detection and the same report, with `worker() == 0`:
//! one monitor thread watches the `block_on` thread of every current-thread runtime of the
//! process (it starts with the first `block_on` of the first one and sleeps while there is none,
//! so a runtime starts no thread of its own), so a task
//! — or a `LocalSet` task driven by that thread — that blocks it is named while it blocks, in
//! `tracing`, `on_stall`, `metrics().stall_count()` and the trace. Nothing is taken over there: every
//! task of a current-thread runtime runs on the one thread the stalled poll holds, and a task
//! cannot move to another thread in the middle of its poll. Not watched: the future given to
//! `block_on` itself (it is no task), and `LocalSet` tasks driven by a multi-thread runtime's
//! `block_on` thread (none of its workers).
//!
//! ```rust
//! use std::time::Duration;
//! let (tx, rx) = std::sync::mpsc::channel();
//! let rt = rt::Builder::new_multi_thread()
//!     .worker_threads(2)
//!     .stall_threshold(Some(Duration::from_millis(20)))
//!     .on_stall(move |info: &rt::StallInfo| {
//!         eprintln!(
//!             "task {} ({:?}) spawned at {} has blocked worker {} for {:?}{}",
//!             info.task_id(),
//!             info.name(),
//!             info.location(),
//!             info.worker(),
//!             info.elapsed(),
//!             if info.ended() { " (ended)" } else { "" },
//!         );
//!         let _ = tx.send(info.ended());
//!     })
//!     .build()?;
//! rt.block_on(async {
//!     rt::task::Builder::new()
//!         .name("oops")
//!         // Blocks its worker until the monitor has reported it.
//!         .spawn(async move { assert_eq!(rx.recv(), Ok(false)) })?
//!         .await
//!         .unwrap();
//!     Ok::<(), std::io::Error>(())
//! })?;
//! assert_eq!(rt.metrics().stall_count(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::future::Future;
use std::io;
use std::time::Duration;

use rt_core::task::JoinHandle;
use rt_sched::{blocking, current_thread, multi_thread};

use crate::context;
pub use crate::context::EnterGuard;
pub use crate::flavor::RuntimeFlavor;
pub use crate::handle::{Handle, TryCurrentError};
pub use crate::local_runtime::{LocalOptions, LocalRuntime};
pub use crate::metrics::RuntimeMetrics;
pub use crate::runtime_id::Id;
pub use crate::unhandled::UnhandledPanic;
pub use crate::worker_index::worker_index;
pub use crate::Builder;
pub use rt_io::is_rt_shutdown_err;

pub(crate) enum Kind {
    MultiThread(multi_thread::MultiThread),
    CurrentThread(current_thread::CurrentThread),
}

/// An async runtime: a scheduler with its threads, a blocking pool, and an IO reactor with its
/// timers. By default the workers share one poll (one `epoll`): an idle worker blocks in it and
/// a busy one polls it between tasks; [`Builder::reactor_shards`](crate::Builder::reactor_shards)
/// gives each worker a poll of its own, and
/// [`Builder::reactor_thread(true)`](crate::Builder::reactor_thread) runs the reactor on a
/// dedicated `rt-io` thread instead.
///
/// Dropping it shuts it down: every pending task's future is dropped exactly once and every
/// thread is joined. `Send + Sync`.
pub struct Runtime {
    kind: Kind,
    blocking: blocking::BlockingPool,
    io: rt_io::Driver,
    handle: Handle,
    shut_down: bool,
    /// The Chrome trace recorder (`Builder::trace_file`), finished at shutdown.
    trace: Option<std::sync::Arc<rt_sched::trace::Recorder>>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("handle", &self.handle)
            .finish()
    }
}

impl Runtime {
    /// A multi-thread runtime with default settings (one worker per CPU).
    pub fn new() -> io::Result<Runtime> {
        crate::Builder::new_multi_thread().enable_all().build()
    }

    pub(crate) fn from_parts(
        kind: Kind,
        blocking: blocking::BlockingPool,
        io: rt_io::Driver,
        handle: Handle,
    ) -> Runtime {
        Runtime {
            kind,
            blocking,
            io,
            handle,
            shut_down: false,
            trace: None,
        }
    }

    pub(crate) fn with_trace(
        mut self,
        trace: Option<std::sync::Arc<rt_sched::trace::Recorder>>,
    ) -> Runtime {
        self.trace = trace;
        self
    }

    pub(crate) fn start(&mut self) -> io::Result<()> {
        match &mut self.kind {
            Kind::MultiThread(mt) => mt.start(),
            Kind::CurrentThread(_) => Ok(()),
        }
    }

    /// The runtime's handle.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Spawns a task; see [`Handle::spawn`].
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn(future)
    }

    /// Runs `f` on the blocking pool.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.handle.spawn_blocking(f)
    }

    /// Makes the runtime current on this thread until the guard drops.
    pub fn enter(&self) -> EnterGuard<'_> {
        self.handle.enter()
    }

    /// Runs `future` to completion on this thread, with the runtime current. On a
    /// current-thread runtime, spawned tasks run here too, between polls of `future`.
    ///
    /// # Panics
    /// When called from a thread that already drives tasks: a worker, or a thread inside
    /// another `block_on`. Blocking there would stall the tasks it runs; use `.await`, or
    /// `rt::spawn_blocking` for blocking code.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        context::assert_may_block_on("Runtime::block_on");
        let _g = context::enter(&self.handle, true);
        let future = rt_io::held::Held::new(self.handle.inner.io.clone(), future);
        if let Some(state) = &self.handle.inner.panic {
            return crate::unhandled::block_on_watched(state, future, |f| self.block_on_inner(f));
        }
        self.block_on_inner(future)
    }

    fn block_on_inner<F: Future>(&self, future: F) -> F::Output {
        match &self.kind {
            Kind::MultiThread(_) => current_thread::park_block_on(future),
            Kind::CurrentThread(ct) => ct.block_on(future),
        }
    }

    /// Every live task of this runtime ([`Handle::dump`]).
    pub fn dump(&self) -> crate::Dump {
        self.handle.dump()
    }

    /// The runtime's metrics, read live at each accessor call; see [`Handle::metrics`].
    pub fn metrics(&self) -> RuntimeMetrics {
        self.handle.metrics()
    }

    /// Shuts down, returning within `timeout`: every task is cancelled, and the call waits at
    /// most `timeout` in all for the worker threads and the blocking pool's threads (one
    /// deadline shared by both, as in tokio). What is still running then is left to finish on
    /// its own threads, detached:
    ///
    /// - On a multi-thread runtime the workers drop the pending futures, in parallel, as they
    ///   exit; this call drops none of them itself while a worker is still out. A future whose
    ///   destructor is slow, or a task stuck in a poll, is dropped later by its worker (after
    ///   the poll returns). Each future is still dropped exactly once, but those drops may
    ///   happen after this call returns, on the worker threads, with the runtime's reactor
    ///   already stopped (timers report a shutdown, sockets an error).
    /// - On a current-thread runtime the pending futures are dropped on this thread before
    ///   the wait (there is no other thread to leave them to), so their destructors are not
    ///   bounded by `timeout`; the blocking pool's wait is.
    /// - A `spawn_blocking` closure still running is left running; one still queued is
    ///   dropped unrun.
    ///
    /// ```
    /// use std::time::Duration;
    /// let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
    /// rt.spawn_blocking(|| std::thread::sleep(Duration::from_millis(200)));
    /// rt.shutdown_timeout(Duration::from_millis(10)); // returns without the closure
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn shutdown_timeout(mut self, timeout: Duration) {
        self.shutdown(Some(timeout));
    }

    /// Shuts down without waiting for threads busy in a poll, a destructor or a blocking
    /// closure (`shutdown_timeout(Duration::ZERO)`).
    pub fn shutdown_background(self) {
        self.shutdown_timeout(Duration::ZERO);
    }

    fn shutdown(&mut self, timeout: Option<Duration>) {
        if self.shut_down {
            return;
        }
        self.shut_down = true;
        // A timeout too long to be an instant (`Duration::MAX`) is no limit.
        let deadline = timeout.and_then(|t| std::time::Instant::now().checked_add(t));
        // Futures dropped here may touch sockets and timers, or try to spawn (refused): keep the
        // runtime current while they drop.
        let _g = context::enter(&self.handle, false);
        match &mut self.kind {
            Kind::MultiThread(mt) => mt.shutdown_until(deadline),
            Kind::CurrentThread(ct) => ct.shutdown(),
        }
        self.blocking.shutdown_until(deadline);
        drop(_g);
        // The trace file is complete from here (what threads left running record now is not
        // written).
        if let Some(t) = &self.trace {
            t.finish();
        }
        // Last: stops the reactor, every shard of it (and joins the `rt-io` thread if there is
        // one); a thread still inside a turn of a shard is woken and returns from it.
        self.io.shutdown();
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if context::is_driving() && !self.shut_down {
            // Joining the workers from a thread that drives tasks could wait on itself. Shut
            // down without waiting, then say what went wrong (unless already unwinding).
            self.shutdown(Some(Duration::ZERO));
            if !std::thread::panicking() {
                // Opens with tokio's sentences, which ported code matches on. A literal, so the
                // payload is a `&'static str` as tokio's is.
                panic!(
                    "Cannot drop a runtime in a context where blocking is not allowed. This \
                     happens when a runtime is dropped from within an asynchronous context. (An \
                     rt Runtime was dropped inside a task or block_on: drop it outside, or use \
                     Runtime::shutdown_background.)"
                );
            }
            return;
        }
        self.shutdown(None);
    }
}
