//! `Builder`: configures and starts a `Runtime`.

use std::io;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use rt_sched::{
    blocking, current_thread, multi_thread, ThreadCallback, ThreadHook, ThreadNameFn, ThreadSpawner,
};

use crate::handle::{Handle, RuntimeInner, Scheduler};
use crate::runtime::{Kind, Runtime};
use crate::stall::StallInfo;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    MultiThread,
    CurrentThread,
}

/// Builds a [`Runtime`]; tokio's shape: `Builder::new_multi_thread().worker_threads(2).build()?`.
///
/// IO and timers are always on: `enable_all`, `enable_io` and `enable_time` exist so code
/// written for tokio compiles, and do nothing. Under the `tokio` face (rt's `tokio-face`
/// feature) they do what tokio documents: a runtime built without `enable_io` panics where a
/// socket, an `AsyncFd` or a signal is created, one without `enable_time` where a timer is.
#[derive(Clone)]
pub struct Builder {
    flavor: Flavor,
    /// `Builder::name`: what `Handle::name` returns.
    name: Option<String>,
    worker_threads: Option<usize>,
    /// Names each runtime thread (`thread_name` sets a constant one).
    thread_name: ThreadNameFn,
    thread_stack_size: Option<usize>,
    on_thread_start: Option<ThreadCallback>,
    on_thread_stop: Option<ThreadCallback>,
    /// `on_thread_park` / `on_thread_unpark`.
    park_hooks: rt_sched::ParkHooks,
    global_queue_interval: Option<u32>,
    event_interval: u32,
    os_yield_after: Option<Duration>,
    background_slice: Duration,
    background_interval: u32,
    max_blocking_threads: usize,
    keep_alive: Duration,
    frame_pool: bool,
    reactor_thread: bool,
    /// `reactor_shards` (`None`: one poll shared by the workers).
    reactor_shards: Option<usize>,
    /// `max_io_events_per_tick`, `max_io_events_per_busy_tick` (`None`: as the first).
    max_io_events_per_tick: usize,
    max_io_events_per_busy_tick: Option<usize>,
    unhandled_panic: crate::UnhandledPanic,
    start_paused: bool,
    /// `enable_io` / `enable_time` were called: read only under `tokio-face`.
    enable_io: bool,
    enable_time: bool,
    /// `Builder::trace_file` (else `RT_TRACE`, read at `build`).
    trace_file: Option<std::path::PathBuf>,
    /// Stall detection (`stall_threshold`, `on_stall`).
    stall_threshold: Option<Duration>,
    on_stall: Option<rt_sched::stall::StallCallback>,
    /// `poll_time_histogram`.
    poll_time_histogram: bool,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder")
            .field("flavor", &self.flavor)
            .field("name", &self.name)
            .field("worker_threads", &self.worker_threads)
            .field("thread_stack_size", &self.thread_stack_size)
            .field("on_thread_start", &self.on_thread_start.is_some())
            .field("on_thread_stop", &self.on_thread_stop.is_some())
            .field("park_hooks", &self.park_hooks)
            .field("global_queue_interval", &self.global_queue_interval)
            .field("event_interval", &self.event_interval)
            .field("os_yield_after", &self.os_yield_after)
            .field("background_slice", &self.background_slice)
            .field("background_interval", &self.background_interval)
            .field("max_blocking_threads", &self.max_blocking_threads)
            .field("keep_alive", &self.keep_alive)
            .field("frame_pool", &self.frame_pool)
            .field("reactor_thread", &self.reactor_thread)
            .field("reactor_shards", &self.reactor_shards)
            .field("max_io_events_per_tick", &self.max_io_events_per_tick)
            .field(
                "max_io_events_per_busy_tick",
                &self.max_io_events_per_busy_tick,
            )
            .field("unhandled_panic", &self.unhandled_panic)
            .field("start_paused", &self.start_paused)
            .field("enable_io", &self.enable_io)
            .field("enable_time", &self.enable_time)
            .field("trace_file", &self.trace_file)
            .field("stall_threshold", &self.stall_threshold)
            .field("poll_time_histogram", &self.poll_time_histogram)
            .finish_non_exhaustive()
    }
}

/// The scheduler's way to the reactor's shards when the workers drive IO (the default; see
/// [`Builder::reactor_thread`]): `rt_sched::IoDriver`, implemented with rt-io's
/// scheduler-facing [`rt_io::WorkerDriver`].
struct WorkerDrivenIo(rt_io::WorkerDriver, blocking::Spawner);

impl rt_sched::IoDriver for WorkerDrivenIo {
    fn shards(&self) -> usize {
        self.0.shards()
    }

    fn bind_thread(&self, shard: usize) {
        self.0.bind_thread(shard);
    }

    fn bind_worker(&self, index: usize) {
        self.0.bind_worker(index);
    }

    fn try_drive(
        &self,
        shard: usize,
        timeout: Option<Duration>,
        unless: &dyn Fn() -> bool,
    ) -> bool {
        self.0.try_drive(shard, timeout, unless)
    }

    fn try_drive_idle(
        &self,
        shard: usize,
        timeout: Option<Duration>,
        unless: &dyn Fn() -> bool,
        idle: &dyn Fn() -> bool,
    ) -> bool {
        // Rule P5 (rt-io's `time/clock.rs`): the blocking pool is checked before and after the
        // scheduler: a closure's result moves from the pool into the scheduler, and a
        // spawn_blocking from the scheduler into the pool, so one of the two reads sees it.
        let pool = &self.1;
        let all_idle = || pool.is_quiet() && idle() && pool.is_quiet();
        self.0.try_drive_idle(shard, timeout, unless, &all_idle)
    }

    fn unpark(&self, shard: usize) {
        self.0.unpark(shard);
    }

    fn listen_to(&self, shard: usize, other: usize) {
        self.0.listen_to(shard, other);
    }

    fn is_running(&self) -> bool {
        self.0.is_running()
    }

    fn turns(&self, shard: usize) -> u64 {
        self.0.turns(shard)
    }

    fn events(&self, shard: usize) -> u64 {
        self.0.events(shard)
    }

    fn has_sources(&self, shard: usize) -> bool {
        self.0.has_sources(shard)
    }

    fn may_have_events(&self, shard: usize) -> bool {
        self.0.may_have_events(shard)
    }

    fn has_ready(&self, shard: usize) -> bool {
        self.0.has_ready(shard)
    }
}

impl Builder {
    /// A work-stealing runtime with one worker per CPU (see [`Builder::worker_threads`]).
    pub fn new_multi_thread() -> Builder {
        Builder::new(Flavor::MultiThread)
    }

    /// Names the runtime: [`Handle::name`] returns it. As tokio's `Builder::name`; unlike
    /// [`thread_name`](Builder::thread_name) it does not name threads.
    ///
    /// Flavours: both.
    ///
    /// # Panics
    /// When `name` is empty or only whitespace.
    ///
    /// ```
    /// let rt = rt::Builder::new_current_thread().name("ingest").build()?;
    /// assert_eq!(rt.handle().name(), Some("ingest"));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn name(&mut self, name: impl Into<String>) -> &mut Builder {
        let name = name.into();
        assert!(!name.trim().is_empty(), "runtime name shouldn't be empty");
        self.name = Some(name);
        self
    }

    /// A runtime that runs every task on the thread inside [`Runtime::block_on`].
    pub fn new_current_thread() -> Builder {
        Builder::new(Flavor::CurrentThread)
    }

    fn new(flavor: Flavor) -> Builder {
        Builder {
            flavor,
            name: None,
            worker_threads: None,
            thread_name: Arc::new(|| "rt-worker".to_string()),
            thread_stack_size: None,
            on_thread_start: None,
            on_thread_stop: None,
            park_hooks: rt_sched::ParkHooks::default(),
            global_queue_interval: None,
            event_interval: rt_sched::DEFAULT_EVENT_INTERVAL,
            os_yield_after: Some(rt_sched::DEFAULT_OS_YIELD_AFTER),
            background_slice: rt_sched::tuning::DEFAULT_BACKGROUND_SLICE,
            background_interval: rt_sched::tuning::DEFAULT_BACKGROUND_INTERVAL,
            max_blocking_threads: 512,
            keep_alive: rt_sched::tuning::DEFAULT_KEEP_ALIVE,
            frame_pool: true,
            reactor_thread: false,
            reactor_shards: None,
            max_io_events_per_tick: rt_io::ReactorConfig::DEFAULT_EVENTS_PER_TICK,
            max_io_events_per_busy_tick: None,
            unhandled_panic: crate::UnhandledPanic::Ignore,
            start_paused: false,
            enable_io: false,
            enable_time: false,
            trace_file: None,
            stall_threshold: Some(rt_sched::stall::DEFAULT_STALL_THRESHOLD),
            on_stall: None,
            poll_time_histogram: false,
        }
    }

    /// Number of worker threads (multi-thread only). Default: the number of CPUs.
    ///
    /// Flavours: multi-thread only; the current-thread flavour ignores it (its one worker is
    /// the thread inside `block_on`).
    ///
    /// With more workers than CPUs and stall detection on (the default), a queued task wakes a
    /// parked worker only while fewer workers than CPUs are awake: more awake threads than
    /// cores only take turns on them. A worker blocked in a task counts as awake; the work it
    /// holds is served by the stall take-over ([`Builder::stall_threshold`]).
    ///
    /// # Panics
    /// When `n` is 0.
    #[track_caller]
    pub fn worker_threads(&mut self, n: usize) -> &mut Builder {
        assert!(n > 0, "worker_threads must be at least 1");
        self.worker_threads = Some(n);
        self
    }

    /// Name of the runtime's threads (workers and blocking pool). Default `rt-worker`.
    /// Replaces a [`Builder::thread_name_fn`].
    ///
    /// Flavours: both (on the current-thread flavour, the blocking pool's threads).
    pub fn thread_name(&mut self, name: impl Into<String>) -> &mut Builder {
        let name = name.into();
        self.thread_name = Arc::new(move || name.clone());
        self
    }

    /// Names each runtime thread (workers and blocking pool) with what `f` returns, called on
    /// the spawning thread as each is started. Replaces a [`Builder::thread_name`].
    ///
    /// Flavours: both (on the current-thread flavour, the blocking pool's threads).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let rt = rt::Builder::new_multi_thread()
    ///     .worker_threads(1)
    ///     .thread_name_fn(|| {
    ///         static ID: AtomicUsize = AtomicUsize::new(0);
    ///         format!("my-pool-{}", ID.fetch_add(1, Ordering::Relaxed))
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let name = rt.block_on(async {
    ///     rt::spawn_blocking(|| std::thread::current().name().map(str::to_owned)).await
    /// });
    /// assert!(name.unwrap().unwrap().starts_with("my-pool-"));
    /// ```
    pub fn thread_name_fn<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() -> String + Send + Sync + 'static,
    {
        self.thread_name = Arc::new(f);
        self
    }

    /// Runs `f` on each runtime thread (workers and blocking pool) as it starts, before it
    /// runs any task, inside the runtime's context (so `rt::spawn` works there), as tokio.
    ///
    /// Flavours: both (on the current-thread flavour, the blocking pool's threads).
    pub fn on_thread_start<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.on_thread_start = Some(Arc::new(f));
        self
    }

    /// Runs `f` on each runtime thread (workers and blocking pool) just before it exits,
    /// inside the runtime's context. Dropping the runtime (or `shutdown_timeout` on time)
    /// waits for these calls.
    ///
    /// Flavours: both (on the current-thread flavour, the blocking pool's threads).
    pub fn on_thread_stop<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.on_thread_stop = Some(Arc::new(f));
        self
    }

    /// Runs `f` on a worker thread just before it parks for lack of work (both flavours: on
    /// the current-thread flavour the worker is the thread inside `block_on`), inside the
    /// runtime's context, as tokio's. A task `f` spawns is run instead of parking.
    pub fn on_thread_park<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.park_hooks.on_park = Some(Arc::new(f));
        self
    }

    /// Runs `f` on a worker thread just after it wakes from a park (both flavours), inside
    /// the runtime's context, as tokio's; also when a task spawned by
    /// [`on_thread_park`](Builder::on_thread_park)'s callback kept it from parking.
    pub fn on_thread_unpark<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.park_hooks.on_unpark = Some(Arc::new(f));
        self
    }

    /// Every `val` ticks a worker takes a task from the global (injection) queue before its
    /// own, so tasks spawned from outside the workers are not starved. By default each worker
    /// tunes the interval itself, as tokio's scheduler does: about one look per 200 µs of task
    /// polling by an average of its poll times, between 2 and 127 ticks (61 until it has
    /// measured), so a remote spawn waits for a handful of slow tasks or about a hundred fast
    /// ones. Setting it fixes it.
    /// Multi-thread only: the current-thread flavour has one queue.
    ///
    /// Flavours: multi-thread only; the current-thread flavour ignores it.
    ///
    /// # Panics
    /// When `val` is 0.
    #[track_caller]
    pub fn global_queue_interval(&mut self, val: u32) -> &mut Builder {
        assert!(val > 0, "global_queue_interval must be greater than 0");
        self.global_queue_interval = Some(val);
        self
    }

    /// Every `val` ticks a busy worker (or the current-thread runtime's `block_on` thread)
    /// polls the IO reactor and timers without blocking, so events are seen while tasks keep
    /// it running. Default 61.
    ///
    /// Flavours: both.
    ///
    /// # Panics
    /// When `val` is 0.
    #[track_caller]
    pub fn event_interval(&mut self, val: u32) -> &mut Builder {
        assert!(val > 0, "event_interval must be greater than 0");
        self.event_interval = val;
        self
    }

    /// A worker that has run tasks for `after` without a break (without parking, or since its
    /// last yield) gives its CPU to the OS scheduler once (`sched_yield`), checked every
    /// `event_interval` ticks. Default 2 ms; `None`: never (tokio's behaviour).
    /// Multi-thread only.
    ///
    /// Flavours: multi-thread only; the current-thread flavour ignores it.
    ///
    /// Why: a worker that always finds another task never blocks, so Linux takes its CPU
    /// away only at a scheduler tick (4 ms at `HZ=250`), and every other thread runnable on
    /// that CPU waits that long — the client of a loopback service, a sidecar, the process's
    /// other threads. Yielding bounds that wait near `after`. With nothing else runnable the
    /// yield returns at once (one system call per `after` of uninterrupted work), and the OS
    /// still shares the CPU fairly: a yield gives up the rest of a slice, not CPU share. On a
    /// 2-core machine running hyper and its load generator, it took rt's p99 latency from
    /// 1.2–1.3× tokio's to about 0.85× at the default; 1 ms gave 0.6× but cost 5–10 % of the
    /// requests/s at 50 connections (`docs/BENCHMARKS.md`).
    ///
    /// With yielding on, a `block_in_place` substitute that runs out of work while another
    /// worker is running also yields once before it parks (its lender may want the context back
    /// any moment); a worker parks at once. [`RuntimeMetrics::worker_os_yield_count`] counts
    /// both kinds of yield.
    ///
    /// [`RuntimeMetrics::worker_os_yield_count`]: crate::runtime::RuntimeMetrics::worker_os_yield_count
    ///
    /// # Panics
    /// When `after` is `Some(Duration::ZERO)` (use `None` to turn yielding off).
    #[track_caller]
    pub fn os_yield_after(&mut self, after: Option<Duration>) -> &mut Builder {
        assert!(
            after != Some(Duration::ZERO),
            "os_yield_after must be greater than zero (None turns yielding off)"
        );
        self.os_yield_after = after;
        self
    }

    /// The time slice of background tasks ([`task::Priority::Background`]): once a
    /// background task's poll has run this long while latency-sensitive work waits (a queued
    /// task, IO events ready on its worker's reactor shard, a due timer), its next budget check
    /// ([`task::consume_budget`], [`task::yield_if_needed`], any rt future that spends the
    /// budget) returns `Pending` and the worker serves that work first. Default 100 µs
    /// (`rt_sched::tuning`, with its reason); `Duration::ZERO` asks at every budget check.
    /// The clock is read at background polls' budget checks only: an idle runtime, or one
    /// without background tasks, never reads it for this.
    ///
    /// Flavours: both.
    ///
    /// [`task::Priority::Background`]: crate::task::Priority::Background
    /// [`task::consume_budget`]: crate::task::consume_budget
    /// [`task::yield_if_needed`]: crate::task::yield_if_needed
    ///
    /// ```
    /// let rt = rt::Builder::new_multi_thread()
    ///     .worker_threads(2)
    ///     .background_time_slice(std::time::Duration::from_micros(500))
    ///     .build()?;
    /// let batch = rt.block_on(async {
    ///     rt::task::Builder::new()
    ///         .priority(rt::task::Priority::Background)
    ///         .spawn(async {
    ///             let mut sum = 0u64;
    ///             for i in 0..1000u64 {
    ///                 sum += i;
    ///                 rt::task::consume_budget().await;
    ///             }
    ///             sum
    ///         })
    /// })?;
    /// assert_eq!(rt.block_on(batch).unwrap(), 499_500);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn background_time_slice(&mut self, slice: Duration) -> &mut Builder {
        self.background_slice = slice;
        self
    }

    /// Every `val` ticks a worker (or the current-thread runtime's thread) with background
    /// tasks queued runs one of them before latency-sensitive work, so background work keeps
    /// a share of a runtime that latency-sensitive tasks keep busy. Default 61
    /// (`rt_sched::tuning`).
    ///
    /// Flavours: both.
    ///
    /// # Panics
    /// When `val` is 0.
    #[track_caller]
    pub fn background_interval(&mut self, val: u32) -> &mut Builder {
        assert!(val > 0, "background_interval must be greater than 0");
        self.background_interval = val;
        self
    }

    /// Stack size of the runtime's threads.
    ///
    /// Flavours: both (on the current-thread flavour, the blocking pool's threads).
    pub fn thread_stack_size(&mut self, bytes: usize) -> &mut Builder {
        self.thread_stack_size = Some(bytes);
        self
    }

    /// Most threads of the blocking pool. Default 512.
    ///
    /// Flavours: both.
    ///
    /// # Panics
    /// When `n` is 0.
    #[track_caller]
    pub fn max_blocking_threads(&mut self, n: usize) -> &mut Builder {
        assert!(n > 0, "max_blocking_threads must be at least 1");
        self.max_blocking_threads = n;
        self
    }

    /// How long an idle blocking thread lives. Default 10 s.
    ///
    /// Flavours: both.
    pub fn thread_keep_alive(&mut self, d: Duration) -> &mut Builder {
        self.keep_alive = d;
        self
    }

    /// Allocate task cells from the frame pool (default `true`); `false` uses the global
    /// allocator, to measure what the pool buys. A benchmark switch (`benches/spawn.rs`,
    /// `benches/memory.rs`), not part of the documented API.
    ///
    /// Flavours: both.
    #[doc(hidden)]
    pub fn frame_pool(&mut self, enabled: bool) -> &mut Builder {
        self.frame_pool = enabled;
        self
    }

    /// Where the IO reactor and timers are polled. `false` (the default): by the runtime's own
    /// workers, with no thread of its own. An idle worker blocks in the poll, takes the events
    /// of every connection in one `epoll_wait` and runs the tasks they wake, and a busy one
    /// polls it between tasks; a worker that finds the poll taken parks until there is work
    /// (tokio's shared driver; see [`Builder::reactor_shards`] for a poll per worker). `true`:
    /// one poll on a dedicated `rt-io` thread, which keeps IO latency independent of how busy
    /// the workers are at the cost of a thread hop per event (the TCP echo of `benches/net.rs`
    /// takes about a third longer; `docs/BENCHMARKS.md`).
    ///
    /// Flavours: both.
    pub fn reactor_thread(&mut self, dedicated: bool) -> &mut Builder {
        self.reactor_thread = dedicated;
        self
    }

    /// How many polls (reactor *shards*, epoll instances) the workers of a multi-thread runtime
    /// drive: 1 (the default) or up to one per worker; larger values count as one per worker.
    ///
    /// With one, the workers share it as tokio's do (see [`Builder::reactor_thread`]). With one
    /// per worker, each worker polls its own between tasks and blocks in it when idle, the
    /// sources it creates register there (an accepted connection on the shard of the worker on
    /// its packets' CPU), and a source whose task keeps running on another worker moves along:
    /// an event wakes its task on the worker that ran it, with no hop between threads.
    ///
    /// Which to choose: a shared poll costs less CPU per request for a server under load from
    /// other processes, since one thread's `epoll_wait` takes every connection's events and the
    /// other workers wake only when there is work to share; a poll per worker is faster when
    /// both ends of many connections run in the same runtime (the TCP echo of
    /// `benches/net.rs`). Both measured in `docs/BENCHMARKS.md` ("service cost", `tcp_echo`).
    ///
    /// Flavours: multi-thread (a current-thread runtime has one poll); ignored with
    /// [`Builder::reactor_thread`]`(true)`.
    ///
    /// # Panics
    /// When `shards` is 0.
    ///
    /// ```
    /// let rt = rt::Builder::new_multi_thread().worker_threads(2).reactor_shards(2).build()?;
    /// let echoed = rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await?;
    ///     let addr = listener.local_addr()?;
    ///     rt::spawn(async move {
    ///         let (mut s, _) = listener.accept().await?;
    ///         let (mut r, mut w) = s.split();
    ///         rt::io::copy(&mut r, &mut w).await
    ///     });
    ///     let mut c = rt::net::TcpStream::connect(addr).await?;
    ///     use rt::io::{AsyncReadExt, AsyncWriteExt};
    ///     c.write_all(b"ping").await?;
    ///     let mut buf = [0; 4];
    ///     c.read_exact(&mut buf).await?;
    ///     Ok::<_, std::io::Error>(buf)
    /// })?;
    /// assert_eq!(&echoed, b"ping");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn reactor_shards(&mut self, shards: usize) -> &mut Builder {
        assert!(
            shards > 0,
            "reactor_shards must be at least 1 (1 is one poll shared by the workers)"
        );
        self.reactor_shards = Some(shards);
        self
    }

    /// The most IO events one reactor turn takes from the OS (tokio's); the rest stay in the
    /// kernel for the next turn. Default 1024.
    ///
    /// # Panics
    /// When `capacity` is 0.
    #[track_caller]
    pub fn max_io_events_per_tick(&mut self, capacity: usize) -> &mut Builder {
        assert!(capacity > 0, "max_io_events_per_tick must be non-zero");
        self.max_io_events_per_tick = capacity;
        self
    }

    /// The most IO events a reactor turn takes when it does not wait: a worker that still has
    /// tasks to run polls its shard every [`Builder::event_interval`] tasks without waiting, and
    /// each event may wake a task onto its queue, so a smaller batch keeps a loaded worker's
    /// queue short and leaves the rest in the kernel (tokio's). A turn that waits (an idle
    /// worker) still takes up to [`Builder::max_io_events_per_tick`]. Default: the same as
    /// `max_io_events_per_tick`; a larger value than it has no effect.
    ///
    /// # Panics
    /// When `capacity` is 0.
    #[track_caller]
    pub fn max_io_events_per_busy_tick(&mut self, capacity: usize) -> &mut Builder {
        assert!(capacity > 0, "max_io_events_per_busy_tick must be non-zero");
        self.max_io_events_per_busy_tick = Some(capacity);
        self
    }

    /// What a panic in a spawned task does (default [`UnhandledPanic::Ignore`]: it goes to the
    /// task's `JoinHandle`). [`UnhandledPanic::ShutdownRuntime`]: the first one shuts the
    /// runtime down and makes `block_on` panic with the task's payload, as in tokio.
    ///
    /// Flavours: both.
    ///
    /// [`UnhandledPanic::Ignore`]: crate::UnhandledPanic::Ignore
    /// [`UnhandledPanic::ShutdownRuntime`]: crate::UnhandledPanic::ShutdownRuntime
    pub fn unhandled_panic(&mut self, behavior: crate::UnhandledPanic) -> &mut Builder {
        self.unhandled_panic = behavior;
        self
    }

    /// Starts the runtime with its clock paused (default `false`), as if the first thing it
    /// ran were [`rt::time::pause()`](crate::time::pause): time then moves only by
    /// [`rt::time::advance`](crate::time::advance) and auto-advance (when nothing in the
    /// runtime can make progress, the clock jumps to the next timer). For tests.
    ///
    /// Works on both flavours: tokio allows it on the current-thread runtime only, rt's
    /// auto-advance also knows when every worker of a multi-thread runtime is idle.
    ///
    /// # Panics
    /// `build` panics when this is combined with [`Builder::reactor_thread`]`(true)`.
    ///
    /// ```
    /// use std::time::Duration;
    /// let rt = rt::Builder::new_multi_thread().worker_threads(2).start_paused(true).build()?;
    /// rt.block_on(async {
    ///     let r = rt::time::timeout(Duration::from_secs(3600), std::future::pending::<()>()).await;
    ///     assert!(r.is_err()); // at once: nothing else could happen, so the clock jumped
    /// });
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn start_paused(&mut self, paused: bool) -> &mut Builder {
        self.start_paused = paused;
        self
    }

    /// [`Builder::enable_io`] and [`Builder::enable_time`]: does nothing in rt, where IO and
    /// timers are always enabled. For tokio compatibility.
    ///
    /// Flavours: both.
    pub fn enable_all(&mut self) -> &mut Builder {
        self.enable_io().enable_time()
    }

    /// Does nothing: IO is always enabled. For tokio compatibility: under the `tokio` face
    /// (rt's `tokio-face` feature), a runtime built without it panics, as tokio's does, where
    /// a socket, an `AsyncFd` or a signal is created.
    ///
    /// Flavours: both.
    pub fn enable_io(&mut self) -> &mut Builder {
        self.enable_io = true;
        self
    }

    /// Writes a Chrome trace of the runtime to `path`: one slice per poll on its worker's
    /// track (a current-thread runtime's: the `block_on` thread's), flows from each spawn and
    /// wake to the poll it causes, park, unpark and steal instants, injector depth and
    /// live-task counters. Open the file at ui.perfetto.dev or chrome://tracing. It is complete
    /// once the runtime has shut down. Without this, the environment variable `RT_TRACE=path`
    /// does the same (a second runtime of the process then writes `path` numbered:
    /// `trace.1.json`). See the README's "Tracing to Perfetto".
    ///
    /// Flavours: both.
    pub fn trace_file(&mut self, path: impl AsRef<std::path::Path>) -> &mut Builder {
        self.trace_file = Some(path.as_ref().to_path_buf());
        self
    }

    /// Does nothing: timers are always enabled. For tokio compatibility: under the `tokio`
    /// face (rt's `tokio-face` feature), a runtime built without it panics, as tokio's does,
    /// where a sleep, a timeout or an interval is created.
    ///
    /// Flavours: both.
    pub fn enable_time(&mut self) -> &mut Builder {
        self.enable_time = true;
        self
    }

    /// Reports a poll that runs longer than `threshold` while it still runs, and on a
    /// multi-thread runtime has another thread serve the rest of its worker meanwhile (its
    /// LIFO slot, queue, sockets and timers); `None` turns stall detection off (no monitor
    /// thread). Default: `Some(100 ms)`. A report goes to `tracing::warn!`, to
    /// [`Builder::on_stall`], to `Runtime::metrics().stall_count()`, and to the trace; each stall is
    /// reported once while it lasts and once more when it ends ([`StallInfo::ended`]).
    ///
    /// Flavours: both (the current-thread flavour reports, and takes nothing over: see below).
    ///
    /// A current-thread runtime reports the polls of its tasks, and of `LocalSet` tasks driven
    /// by its `block_on` thread, as worker 0, from one monitor thread that watches every
    /// current-thread runtime of the process (started by the first `block_on` of the first
    /// one, for good); nothing is taken over there, since every task of the runtime runs on the
    /// one thread the stalled poll holds. Not watched: the future given to `block_on` (it is
    /// no task), and `LocalSet`s driven by a multi-thread runtime's `block_on` thread (which
    /// is none of its workers).
    ///
    /// With detection off, a runtime with more workers than CPUs wakes a parked worker for
    /// queued work whenever nobody is looking for it, however many workers are awake (see
    /// [`Builder::worker_threads`]).
    pub fn stall_threshold(&mut self, threshold: Option<Duration>) -> &mut Builder {
        self.stall_threshold = threshold;
        self
    }

    /// Calls `f` with every stall report, on the monitor thread (see
    /// [`Builder::stall_threshold`]).
    ///
    /// Flavours: both.
    pub fn on_stall<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn(&StallInfo) + Send + Sync + 'static,
    {
        self.on_stall = Some(Arc::new(f));
        self
    }

    fn stall_config(&self) -> Option<rt_sched::stall::StallConfig> {
        self.stall_threshold
            .map(|threshold| rt_sched::stall::StallConfig {
                threshold,
                on_stall: self.on_stall.clone(),
            })
    }

    /// Records, per worker, a poll-time histogram and a schedule-latency histogram (time from
    /// a task's spawn or wake to the start of its next poll); default `false`. They cost two
    /// clock reads per poll and a side-table entry per wake, so they are opt-in. Read them
    /// through [`RuntimeMetrics::poll_time_histogram_bucket_count`][poll] and
    /// [`RuntimeMetrics::schedule_latency_histogram_bucket_count`][latency] (buckets: see the
    /// [`metrics`](crate::metrics) module).
    ///
    /// [poll]: crate::metrics::RuntimeMetrics::poll_time_histogram_bucket_count
    /// [latency]: crate::metrics::RuntimeMetrics::schedule_latency_histogram_bucket_count
    ///
    /// Flavours: multi-thread only; the current-thread flavour ignores it.
    ///
    /// ```
    /// let rt = rt::Builder::new_multi_thread()
    ///     .worker_threads(1)
    ///     .poll_time_histogram(true)
    ///     .build()?;
    /// rt.block_on(rt.spawn(async {}))?;
    /// let m = rt.metrics();
    /// assert!(m.poll_time_histogram_enabled());
    /// for b in 0..m.poll_time_histogram_num_buckets() {
    ///     let range = m.poll_time_histogram_bucket_range(b);
    ///     let polls = m.poll_time_histogram_bucket_count(0, b);
    ///     println!("{range:?}: {polls} polls");
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn poll_time_histogram(&mut self, enabled: bool) -> &mut Builder {
        self.poll_time_histogram = enabled;
        self
    }

    /// tokio's name for [`Builder::poll_time_histogram`]`(true)`.
    ///
    /// Flavours: multi-thread only; the current-thread flavour ignores it.
    pub fn enable_metrics_poll_time_histogram(&mut self) -> &mut Builder {
        self.poll_time_histogram(true)
    }

    /// Builds a [`LocalRuntime`](crate::runtime::LocalRuntime): a current-thread runtime
    /// whose `block_on` thread runs `!Send` tasks too (tokio's `build_local`).
    ///
    /// Flavours: current-thread only; refused (a panic) on a multi-thread builder.
    ///
    /// # Panics
    /// On a builder made by [`Builder::new_multi_thread`]: local tasks need the one thread of
    /// the current-thread flavour.
    #[track_caller]
    pub fn build_local(
        &mut self,
        _options: crate::runtime::LocalOptions,
    ) -> io::Result<crate::runtime::LocalRuntime> {
        assert!(
            self.flavor == Flavor::CurrentThread,
            "build_local needs a current-thread builder: use Builder::new_current_thread()"
        );
        let rt = self.build_on(Some(std::thread::current().id()))?;
        Ok(crate::runtime::LocalRuntime::from_runtime(rt))
    }

    /// Starts the runtime: its reactor (one poll the workers share, one per worker with
    /// [`Builder::reactor_shards`], or the `rt-io` thread with [`Builder::reactor_thread`]),
    /// and for multi-thread its workers.
    pub fn build(&mut self) -> io::Result<Runtime> {
        self.build_on(None)
    }

    /// [`Builder::build`]; `local_thread` is a `LocalRuntime`'s thread.
    fn build_on(&mut self, local_thread: Option<std::thread::ThreadId>) -> io::Result<Runtime> {
        let workers = match self.flavor {
            Flavor::MultiThread => self.worker_threads.unwrap_or_else(num_cpus::get).max(1),
            Flavor::CurrentThread => 1,
        };
        let reactor = rt_io::ReactorConfig {
            max_events_per_tick: self.max_io_events_per_tick,
            max_events_per_busy_tick: self
                .max_io_events_per_busy_tick
                .unwrap_or(self.max_io_events_per_tick),
            // rt's own: always on; the face's: as tokio's builder was told.
            enable_io: self.enable_io || !cfg!(feature = "tokio-face"),
            enable_time: self.enable_time || !cfg!(feature = "tokio-face"),
        };
        let io = if self.reactor_thread {
            rt_io::Driver::start_with(reactor)?
        } else {
            // One poll shared by the workers, or up to one per worker (`reactor_shards`; see
            // `rt_io::Driver::start_on_workers`).
            let shards = self.reactor_shards.unwrap_or(1).clamp(1, workers);
            rt_io::Driver::start_for_workers(workers, shards, reactor)?
        };
        // The hooks need the handle, which needs the schedulers: tie the knot through a cell
        // that is filled before any runtime thread starts. It holds a `Weak`: the blocking pool
        // keeps its hook for good, and a strong handle there would be a reference cycle.
        let cell: Arc<OnceLock<Weak<RuntimeInner>>> = Arc::new(OnceLock::new());
        let hook = |driving: bool| -> ThreadHook {
            let cell = cell.clone();
            Arc::new(move |run: &mut dyn FnMut()| {
                let inner = cell.get().and_then(Weak::upgrade);
                match inner {
                    // The thread holds the handle while it runs, and lets go when it exits.
                    Some(inner) => {
                        let h = Handle { inner };
                        let _g = crate::context::enter(&h, driving);
                        run();
                    }
                    // The runtime is already gone: run the loop, which finds it shut down.
                    None => run(),
                }
            })
        };
        // Workers and blocking threads start the same way, each with its own context hook.
        let threads = |hook: ThreadHook| {
            ThreadSpawner::new("rt-worker")
                .name_fn(self.thread_name.clone())
                .stack_size(self.thread_stack_size)
                .hook(hook)
                .on_start(self.on_thread_start.clone())
                .on_stop(self.on_thread_stop.clone())
        };
        let pool = blocking::BlockingPool::new(blocking::Config {
            max_threads: self.max_blocking_threads,
            keep_alive: self.keep_alive,
            threads: threads(hook(false)),
        });
        // Host-name lookups (`rt::net::lookup_host`, `connect("name:port")`) run on this pool,
        // never on a worker: rt-io has no pool of its own.
        let spawner = pool.spawner().clone();
        io.set_blocking_spawner(std::sync::Arc::new(move |job| {
            // Detached: the job reports to its caller itself.
            drop(spawner.spawn_blocking(job));
        }));
        if self.start_paused {
            io.handle().pause_clock();
        }
        // `None` with a dedicated `rt-io` thread: then the scheduler never touches the reactor.
        let io_driver: Option<Arc<dyn rt_sched::IoDriver>> = io.worker_driver().map(|d| {
            // Rule P3 (rt-io's `time/clock.rs`): a pool that goes quiet may be what held
            // auto-advance back: have an idle worker decide again. Through the `Weak` cell, not a clone of the reactor's handle: the
            // reactor keeps the pool's spawner (the lookup hook above), and a pool holding the
            // reactor would be a cycle that keeps both (and their fds) alive for good.
            let cell = cell.clone();
            pool.spawner().set_on_quiet(Arc::new(move || {
                if let Some(inner) = cell.get().and_then(Weak::upgrade) {
                    inner.io.poke_auto_advance();
                }
            }));
            Arc::new(WorkerDrivenIo(d, pool.spawner().clone())) as Arc<dyn rt_sched::IoDriver>
        });
        let panic = (self.unhandled_panic == crate::UnhandledPanic::ShutdownRuntime)
            .then(|| Arc::new(crate::unhandled::PanicState::default()));
        let panic_hook = panic
            .clone()
            .map(|state| -> rt_sched::PanicHook { Arc::new(move |payload| state.record(payload)) });
        let trace;
        let (kind, scheduler) = match self.flavor {
            Flavor::MultiThread => {
                trace = crate::trace_file::open(self.trace_file.as_deref(), workers)?;
                let mt = multi_thread::MultiThread::new(multi_thread::Config {
                    workers,
                    threads: threads(hook(true)),
                    frame_pool: self.frame_pool,
                    io_driver,
                    global_queue_interval: self.global_queue_interval,
                    event_interval: self.event_interval,
                    os_yield_after: self.os_yield_after,
                    background_slice: self.background_slice,
                    background_interval: self.background_interval,
                    park_hooks: self.park_hooks.clone(),
                    stall: self.stall_config(),
                    histograms: self.poll_time_histogram,
                    // More awake workers than CPUs only take turns on the cores (`benches/scaling.rs`,
                    // oversubscription); a worker blocked in a task still counts
                    // as awake, so the cap is on only where the stall take-over serves the
                    // queued work of such a worker.
                    max_awake: if self.stall_threshold.is_some() {
                        num_cpus::get().max(1)
                    } else {
                        workers
                    },
                });
                let mt = crate::trace_file::attach(mt, &pool, &trace);
                let h = mt.handle().clone();
                if let Some(hook) = panic_hook {
                    h.set_unhandled_panic_hook(hook);
                }
                (Kind::MultiThread(mt), Scheduler::MultiThread(h))
            }
            Flavor::CurrentThread => {
                let mut ct = current_thread::CurrentThread::new(self.frame_pool, io_driver)
                    .with_event_interval(self.event_interval)
                    .with_background(self.background_slice, self.background_interval)
                    .with_stall(self.stall_config())
                    .with_park_hooks(self.park_hooks.clone());
                trace = crate::trace_file::open(self.trace_file.as_deref(), 0)?;
                if let Some(t) = &trace {
                    pool.spawner().set_trace(t.clone());
                    ct = ct.with_trace(t.clone());
                }
                let h = ct.handle().clone();
                if let Some(hook) = panic_hook {
                    h.set_unhandled_panic_hook(hook);
                }
                (Kind::CurrentThread(ct), Scheduler::CurrentThread(h))
            }
        };
        let handle = Handle {
            inner: Arc::new(RuntimeInner {
                scheduler,
                blocking: pool.spawner().clone(),
                io: io.handle(),
                panic,
                locals: Arc::new(rt_sched::local::Observer::new(trace.clone())),
                name: self.name.clone(),
                id: crate::runtime_id::Id::next(),
                local_thread,
            }),
        };
        let _ = cell.set(Arc::downgrade(&handle.inner));
        let mut rt = Runtime::from_parts(kind, pool, io, handle).with_trace(trace);
        rt.start()?;
        Ok(rt)
    }
}
