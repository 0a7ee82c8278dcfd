//! [`Handle`]: a cheap reference to a reactor, and the thread's current one; [`Reactor`]: what
//! a reactor's shards, registrations and timers share; each worker thread's own shard.
//!
//! Every runtime thread runs with an [`EnterGuard`] held, so sockets created there find their
//! reactor through [`Handle::current`]. Guards nest: dropping one restores the handle that was
//! current before it.
//!
//! A worker thread of a sharded reactor also has a *home*: the reactor it was bound for (by its
//! id) and its shard there ([`WorkerDriver::bind_thread`](crate::WorkerDriver::bind_thread)).
//! Only that reactor treats the thread as the owner of that shard: a worker of one runtime that
//! enters another registers its sources there like any other thread, on the shards in turn.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::io;
use std::marker::PhantomData;

use rt_core::sync::unmodelled;
#[cfg(feature = "test-hooks")]
use rt_core::sync::AtomicBool;
use rt_core::sync::{Arc, AtomicU64, AtomicU8, AtomicUsize, Mutex, Ordering};

use crate::driver::TimeDriver;
use crate::reactor::Core;
use crate::slab::RegistrationSlab;
use crate::time::driver::TimeHandle;

/// The reactor runs.
const RUNNING: u8 = 0;
/// `Driver::shutdown` stopped it.
const SHUT_DOWN: u8 = 1;
/// Its thread panicked.
const GONE: u8 = 2;

/// A reference to a running reactor (rt-io's driver). Clones share it.
#[derive(Clone)]
pub struct Handle {
    pub(crate) inner: Arc<Reactor>,
}

/// One reactor: what its shards' turns (on the `rt-io` thread or on the workers), every
/// registration and every timer share.
pub(crate) struct Reactor {
    /// Process-unique (never reused), so a thread's home names the reactor it belongs to.
    id: u64,
    /// One `mio::Poll` each (see [`Shard`]); timers live on shard 0.
    pub(crate) shards: Box<[Shard]>,
    pub(crate) slab: RegistrationSlab,
    /// `RUNNING`, `SHUT_DOWN` or `GONE`; only ever moves away from `RUNNING`.
    state: AtomicU8,
    pub(crate) time: TimeDriver,
    /// `ReactorConfig::enable_io`: sources may register.
    enable_io: bool,
    /// `ReactorConfig::enable_time`: timers may be created.
    enable_time: bool,
    /// Test hook: the thread of the next turn panics, as a bug in the reactor would.
    #[cfg(feature = "test-hooks")]
    pub(crate) kill: AtomicBool,
    /// Spreads registrations made off the runtime's workers over the shards.
    next_shard: AtomicUsize,
    /// Where host-name lookups run (the runtime's blocking pool), set once at runtime build
    /// (`Driver::set_blocking_spawner`); see `net/addr.rs`.
    blocking: Mutex<Option<crate::driver::BlockingSpawner>>,
    /// Test seam: replaces `getaddrinfo` for this reactor's lookups.
    #[cfg(feature = "test-hooks")]
    resolver: Mutex<Option<crate::net::TestResolver>>,
    /// The runtime's workers drive the shards (`Driver::start_on_workers`): paused time is
    /// possible (rule P8 in `time/clock.rs`).
    pub(crate) on_workers: bool,
    /// A thread is deciding whether to auto-advance the paused clock and takes every shard
    /// for it: blocking turns give way (`WorkerDriver::try_drive_idle`).
    pub(crate) advancing: rt_core::sync::AtomicBool,
    /// One auto-advance decision at a time.
    pub(crate) advance_lock: Mutex<()>,
}

/// Reactor ids; an id source outside every protocol (`rt_core::sync::unmodelled`).
static NEXT_REACTOR_ID: unmodelled::AtomicU64 = unmodelled::AtomicU64::new(1);

/// A new reactor's id (never 0), for [`Reactor::new`] and its timers' stages.
pub(crate) fn next_reactor_id() -> u64 {
    NEXT_REACTOR_ID.fetch_add(1, unmodelled::Ordering::Relaxed)
}

/// Makes `shard` of reactor `reactor` this thread's own (see [`Handle::bind_thread`]).
pub(crate) fn bind_home(reactor: u64, shard: usize) {
    let _ = HOME.try_with(|h| {
        h.set(Home {
            shard,
            ..h.get().in_reactor(reactor)
        })
    });
}

/// Makes this thread worker `worker` of reactor `reactor`, for its timers' stage (see
/// [`Handle::bind_worker`]).
pub(crate) fn bind_worker(reactor: u64, worker: usize) {
    let _ = HOME.try_with(|h| {
        h.set(Home {
            worker,
            ..h.get().in_reactor(reactor)
        })
    });
}

/// The worker this thread is in reactor `reactor`, if it is one there
/// ([`bind_worker`]).
pub(crate) fn worker_in(reactor: u64) -> Option<usize> {
    let home = HOME.try_with(Cell::get).ok()?;
    (home.reactor == reactor && home.worker != usize::MAX).then_some(home.worker)
}

/// This thread's own shard in reactor `reactor`, if it has one there (whatever the number of
/// shards; [`Handle::home_shard`] is the rule for placing sources).
pub(crate) fn home_in(reactor: u64) -> Option<usize> {
    let home = HOME.try_with(Cell::get).ok()?;
    (home.reactor == reactor).then_some(home.shard)
}

/// One `mio::Poll` (an epoll instance) and what reaches it. With a dedicated `rt-io` thread
/// there is one shard; when the workers drive IO there is one per worker, and a source is
/// registered on the shard of the worker that created it (an accepted stream: of the worker on
/// the CPU its packets arrive on), so its events wake its tasks on that worker — what a
/// connection's task touches stays in one core's cache — and the workers never contend for one
/// `poll`. A source moves with a task that keeps running elsewhere (`registration.rs`).
pub(crate) struct Shard {
    /// Registers and deregisters sources from any thread; the `Poll` is in `core`, or on the
    /// `rt-io` thread.
    pub(crate) registry: mio::Registry,
    /// Interrupts the shard's `poll`. A std `Arc` because the timers take it as
    /// `Arc<dyn Fn()>`, a coercion loom's `Arc` cannot make; it is not part of any modelled protocol.
    pub(crate) waker: std::sync::Arc<mio::Waker>,
    /// The `Poll` when the runtime's threads drive it (`Driver::start_on_workers`); `None` when
    /// the `rt-io` thread owns it. Whoever holds the lock is the one thread in this `poll`.
    pub(crate) core: Mutex<Option<Core>>,
    /// Turns taken on this shard: a worker that sees it stand still while the shard's owner is
    /// busy polls the shard for it (`WorkerDriver::turns`).
    pub(crate) turns: AtomicU64,
    /// Sources registered on this shard now (see `WorkerDriver::has_sources`).
    pub(crate) sources: AtomicUsize,
    /// The CPU its owner thread last ran on (`usize::MAX`: not known), refreshed at the
    /// owner's turns; see [`Handle::shard_near_cpu`].
    pub(crate) cpu: AtomicUsize,
    /// IO readiness events its turns delivered (`WorkerDriver::events`): a statistic in no
    /// protocol (`unmodelled`, the shim's exception 2).
    pub(crate) events: unmodelled::AtomicU64,
    /// Its listen epoll, when the workers drive a reactor of several shards: a blocking turn
    /// waits there, so an event on another shard it was asked to hear ends it (`listen.rs`).
    pub(crate) listen: Option<crate::listen::Listen>,
}

/// A worker thread's own shard, and the reactor it belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Home {
    /// [`Reactor::id`]; 0 (no reactor has it) when the thread has no home.
    reactor: u64,
    /// The shard the thread drives as its own (`usize::MAX`: none).
    shard: usize,
    /// The worker the thread is, for its timers' stage (`usize::MAX`: none).
    worker: usize,
}

impl Home {
    /// This home, or an empty one if it is in another reactor.
    fn in_reactor(self, reactor: u64) -> Home {
        if self.reactor == reactor {
            self
        } else {
            Home {
                reactor,
                shard: usize::MAX,
                worker: usize::MAX,
            }
        }
    }
}

/// What [`Handle::enter`] makes current on a thread.
struct Current {
    handle: Handle,
    /// The timers' handle that sleeps made on this thread clone: its count is this thread's.
    /// `None` when the reactor was built without timers (`ReactorConfig::enable_time`).
    time: Option<TimeHandle>,
}

impl fmt::Debug for Current {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Current")
            .field("handle", &self.handle)
            .finish_non_exhaustive()
    }
}

/// This thread's handle to its current runtime's timers (one reference count per thread):
/// `None` outside a runtime, `Some(None)` in one built without timers.
pub(crate) fn current_time() -> Option<Option<TimeHandle>> {
    CURRENT_REACTOR
        .try_with(|c| c.borrow().as_ref().map(|c| c.time.clone()))
        .ok()
        .flatten()
}

rt_core::sync::thread_local! {
    /// The reactor sources created on this thread register with, and this thread's handle to
    /// its timers (`TimeHandle::for_thread`).
    static CURRENT_REACTOR: RefCell<Option<Current>> = RefCell::new(None);
    /// The shard this thread drives as its own and the worker it is, in which reactor
    /// (`WorkerDriver::bind_thread`, `WorkerDriver::bind_worker`).
    static HOME: Cell<Home> = const {
        Cell::new(Home {
            reactor: 0,
            shard: usize::MAX,
            worker: usize::MAX,
        })
    };
}

impl Handle {
    pub(crate) fn new(inner: Reactor) -> Handle {
        Handle {
            inner: Arc::new(inner),
        }
    }

    /// Makes this handle the thread's current one until the guard drops. After the thread's
    /// thread-locals are gone (a runtime dropped by another thread-local's destructor at thread
    /// exit) nothing is made current, and the guard restores nothing.
    pub fn enter(&self) -> EnterGuard {
        let current = Current {
            handle: self.clone(),
            time: self
                .inner
                .enable_time
                .then(|| self.time().handle().for_thread()),
        };
        let prev = CURRENT_REACTOR
            .try_with(|c| c.replace(Some(current)))
            .ok()
            .flatten();
        EnterGuard {
            prev,
            _not_send: PhantomData,
        }
    }

    /// The thread's current handle.
    ///
    /// # Panics
    ///
    /// When no rt runtime is entered on this thread.
    #[track_caller]
    pub fn current() -> Handle {
        match Handle::try_current() {
            Some(h) => h,
            None => panic!("{}", rt_core::messages::NO_RUNTIME),
        }
    }

    /// [`Handle::current`] for a new source: also panics when the reactor was built without
    /// IO ([`ReactorConfig::enable_io`](crate::ReactorConfig::enable_io)). One branch per
    /// registration, none per operation.
    #[doc(hidden)]
    #[track_caller]
    pub fn current_for_io() -> Handle {
        let handle = Handle::current();
        if !handle.inner.enable_io {
            panic!("{}", rt_core::messages::IO_DISABLED);
        }
        handle
    }

    /// The thread's current handle, or `None` outside a runtime.
    pub fn try_current() -> Option<Handle> {
        Handle::with_current(Handle::clone)
    }

    /// `f` of the thread's current handle, borrowed (no reference count is touched), or `None`
    /// outside a runtime. For callers that keep only a part of the handle (a sleep keeps the
    /// timers' handle): the whole handle's count is shared by every worker, and bumping it per
    /// sleep would move its cache line between them.
    pub(crate) fn with_current<R>(f: impl FnOnce(&Handle) -> R) -> Option<R> {
        CURRENT_REACTOR
            .try_with(|c| c.borrow().as_ref().map(|c| f(&c.handle)))
            .ok()
            .flatten()
    }

    /// The timers that share this reactor's thread.
    pub(crate) fn time(&self) -> &TimeDriver {
        &self.inner.time
    }

    /// Whether the runtime's workers drive this reactor's shards (no `rt-io` thread).
    pub(crate) fn workers_drive(&self) -> bool {
        self.inner.on_workers
    }

    /// Holds auto-advance of the paused clock back until [`Handle::allow_auto_advance`]: the
    /// facade holds it while a `block_on` thread is awake (tokio's name; rule P3 in
    /// `time/clock.rs`). Cheap when the clock
    /// was never paused: one atomic add.
    #[doc(hidden)]
    pub fn inhibit_auto_advance(&self) {
        self.inner.time.handle().clock().hold();
    }

    /// Undoes one [`Handle::inhibit_auto_advance`]; the last one, while paused, has an idle
    /// worker decide again (it unparks shard 0).
    #[doc(hidden)]
    pub fn allow_auto_advance(&self) {
        if self.inner.time.handle().clock().release() {
            let _ = self.inner.shards[0].waker.wake();
        }
    }

    /// While the clock is paused: has an idle worker decide on auto-advance again (unparks
    /// shard 0; rule P3 in `time/clock.rs`). Something that held it back outside the scheduler is gone (the blocking pool
    /// went quiet).
    #[doc(hidden)]
    pub fn poke_auto_advance(&self) {
        if self.inner.time.is_paused() {
            let _ = self.inner.shards[0].waker.wake();
        }
    }

    /// Pauses this reactor's clock (`Builder::start_paused`); see `rt::time::pause`.
    ///
    /// # Panics
    /// When already paused, or when the reactor runs on its own thread.
    #[doc(hidden)]
    #[track_caller]
    pub fn pause_clock(&self) {
        // Rule P8 (`time/clock.rs`).
        assert!(
            self.workers_drive(),
            "start_paused(true) needs the default reactor that the workers drive: it cannot be \
             combined with reactor_thread(true)"
        );
        self.inner.time.handle().pause();
    }

    /// Whether the reactor still delivers events.
    pub fn is_running(&self) -> bool {
        self.inner.state.load(Ordering::Acquire) == RUNNING
    }

    /// The error every IO operation returns once the reactor stopped.
    pub(crate) fn stopped_error(&self) -> io::Error {
        match self.inner.state.load(Ordering::Acquire) {
            GONE => crate::stopped::Stopped::Gone.into_io(),
            _ => crate::stopped::Stopped::ShutDown.into_io(),
        }
    }

    /// Marks the reactor stopped: `GONE` when `panicked`, else `SHUT_DOWN`. The first stop wins.
    pub(crate) fn mark_stopped(&self, panicked: bool) {
        let to = if panicked { GONE } else { SHUT_DOWN };
        let _ = self
            .inner
            .state
            .compare_exchange(RUNNING, to, Ordering::AcqRel, Ordering::Acquire);
    }

    /// Makes `shard` of this reactor this thread's own: the sources it creates from now on
    /// register there, and [`Handle::home_shard`] names it. Called through
    /// [`WorkerDriver::bind_thread`](crate::WorkerDriver::bind_thread).
    pub(crate) fn bind_thread(&self, shard: usize) {
        bind_home(self.inner.id, shard);
    }

    /// Makes this thread worker `worker` of this reactor: the far-off timers it registers wait
    /// in that worker's stage (`time/stage.rs`). Called through
    /// [`WorkerDriver::bind_worker`](crate::WorkerDriver::bind_worker).
    pub(crate) fn bind_worker(&self, worker: usize) {
        bind_worker(self.inner.id, worker);
    }

    /// This thread's own shard, if it is a worker of this reactor and the reactor has more
    /// than one shard. A worker of another reactor has none here.
    pub(crate) fn home_shard(&self) -> Option<usize> {
        let n = self.inner.shards.len();
        if n == 1 {
            return None;
        }
        home_in(self.inner.id).filter(|&s| s < n)
    }

    /// Whether `shard` of this reactor is this thread's own.
    pub(crate) fn is_home(&self, shard: usize) -> bool {
        home_in(self.inner.id) == Some(shard)
    }

    /// The shard a source created on this thread registers on: this thread's own if it has
    /// one (a worker), else the shards in turn.
    pub(crate) fn shard_for_new_source(&self) -> usize {
        match self.inner.shards.len() {
            1 => 0,
            n => self
                .home_shard()
                .unwrap_or_else(|| self.inner.next_shard.fetch_add(1, Ordering::Relaxed) % n),
        }
    }

    /// The shard whose owner last ran on `cpu`, if any. An accepted connection registers on
    /// the shard near the CPU that processed its incoming packets (`SO_INCOMING_CPU`): that
    /// CPU's caches hold the socket, and for a peer in this same process it is the CPU the
    /// peer's task runs on, so both ends of the connection end up on one worker.
    pub(crate) fn shard_near_cpu(&self, cpu: usize) -> Option<usize> {
        if self.inner.shards.len() == 1 {
            return None;
        }
        self.inner
            .shards
            .iter()
            .position(|s| s.cpu.load(Ordering::Relaxed) == cpu)
    }

    /// Interrupts every shard's `poll` (shutdown, the test hook).
    pub(crate) fn unpark_all(&self) {
        for shard in self.inner.shards.iter() {
            let _ = shard.waker.wake();
        }
    }

    /// Test hook (cargo feature `test-hooks`): makes the thread of the reactor's next turn
    /// panic, as a bug in the reactor would.
    #[cfg(feature = "test-hooks")]
    pub fn kill_reactor_for_test(&self) {
        self.inner.kill.store(true, Ordering::Release);
        self.unpark_all();
    }

    /// Test seam (cargo feature `test-hooks`): host-name lookups of this reactor call `resolver`
    /// (on the blocking pool, in place of `getaddrinfo`) until it is set to `None`.
    #[cfg(feature = "test-hooks")]
    pub fn set_resolver_for_test(&self, resolver: Option<crate::net::TestResolver>) {
        *self
            .inner
            .resolver
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = resolver;
    }

    #[cfg(feature = "test-hooks")]
    pub(crate) fn test_resolver(&self) -> Option<crate::net::TestResolver> {
        self.inner
            .resolver
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Where blocking work (host-name lookups) runs: the runtime's blocking pool, or `None`
    /// when no runtime installed one.
    pub(crate) fn blocking_spawner(&self) -> Option<crate::driver::BlockingSpawner> {
        self.inner
            .blocking
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub(crate) fn set_blocking_spawner(&self, spawner: crate::driver::BlockingSpawner) {
        *self
            .inner
            .blocking
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(spawner);
    }

    /// Test hook (cargo feature `test-hooks`): registrations currently alive on this reactor.
    #[cfg(feature = "test-hooks")]
    pub fn registration_count(&self) -> usize {
        self.inner.slab.live()
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.inner.state.load(Ordering::Acquire) {
            RUNNING => "running",
            SHUT_DOWN => "shut down",
            _ => "gone",
        };
        f.debug_struct("Handle")
            .field("state", &state)
            .field("registrations", &self.inner.slab.live())
            .finish()
    }
}

impl Reactor {
    /// `id` from [`next_reactor_id`], the one its timers' stages were given.
    pub(crate) fn new(
        id: u64,
        shards: Box<[Shard]>,
        time: TimeDriver,
        on_workers: bool,
        config: &crate::ReactorConfig,
    ) -> Reactor {
        Reactor {
            id,
            shards,
            slab: RegistrationSlab::new(),
            state: AtomicU8::new(RUNNING),
            time,
            enable_io: config.enable_io,
            enable_time: config.enable_time,
            #[cfg(feature = "test-hooks")]
            kill: AtomicBool::new(false),
            next_shard: AtomicUsize::new(0),
            blocking: Mutex::new(None),
            #[cfg(feature = "test-hooks")]
            resolver: Mutex::new(None),
            on_workers,
            advancing: rt_core::sync::AtomicBool::new(false),
            advance_lock: Mutex::new(()),
        }
    }
}

impl Shard {
    pub(crate) fn new(registry: mio::Registry, waker: std::sync::Arc<mio::Waker>) -> Shard {
        Shard {
            registry,
            waker,
            core: Mutex::new(None),
            turns: AtomicU64::new(0),
            sources: AtomicUsize::new(0),
            cpu: AtomicUsize::new(usize::MAX),
            events: unmodelled::AtomicU64::new(0),
            listen: None,
        }
    }

    /// Adds a turn's events to [`Shard::events`] (one relaxed add, skipped for an empty turn).
    pub(crate) fn count_events(&self, events: usize) {
        if rt_core::OBSERVE && events > 0 {
            self.events
                .fetch_add(events as u64, unmodelled::Ordering::Relaxed);
        }
    }
}

/// Restores the previously current handle when dropped. Not `Send`: it belongs to its thread.
#[derive(Debug)]
#[must_use = "the handle is current only while the guard lives"]
pub struct EnterGuard {
    prev: Option<Current>,
    _not_send: PhantomData<*const ()>,
}

impl Drop for EnterGuard {
    fn drop(&mut self) {
        let prev = self.prev.take();
        let _ = CURRENT_REACTOR.try_with(|c| *c.borrow_mut() = prev);
    }
}
