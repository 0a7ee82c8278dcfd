//! [`Handle`]: a cheap reference to the running reactor, and the thread's current one.
//!
//! Every runtime thread runs with an [`EnterGuard`] held, so sockets created there find their
//! reactor through [`Handle::current`]. Guards nest: dropping one restores the handle that was
//! current before it.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::io;
use std::marker::PhantomData;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use rt_core::sync::{Arc, AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Mutex, Ordering};

use crate::driver::TimeDriver;
use crate::reactor::{self, Core};
use crate::slab::Slab;

/// The reactor runs.
const RUNNING: u8 = 0;
/// `Driver::shutdown` stopped it.
const SHUT_DOWN: u8 = 1;
/// Its thread panicked.
const GONE: u8 = 2;

/// A reference to a running reactor (rt-io's driver). Clones share it.
#[derive(Clone)]
pub struct Handle {
    pub(crate) inner: Arc<Inner>,
}

/// What the reactor thread and every registration share.
pub(crate) struct Inner {
    /// One `mio::Poll` each (see [`Shard`]); timers live on shard 0.
    pub(crate) shards: Box<[Shard]>,
    pub(crate) slab: Slab,
    /// `RUNNING`, `SHUT_DOWN` or `GONE`; only ever moves away from `RUNNING`.
    state: AtomicU8,
    pub(crate) time: TimeDriver,
    /// Test hook: the reactor thread panics at its next turn.
    pub(crate) kill: AtomicBool,
    /// Spreads registrations made off the runtime's workers over the shards.
    next_shard: AtomicUsize,
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
    /// busy polls the shard for it (`Handle::turns`).
    pub(crate) turns: AtomicU64,
    /// Sources registered on this shard now (see `Handle::has_sources`).
    pub(crate) sources: AtomicUsize,
    /// The CPU its owner thread last ran on (`usize::MAX`: not known), refreshed at the
    /// owner's turns; see [`Handle::shard_near_cpu`].
    pub(crate) cpu: AtomicUsize,
}

rt_core::sync::thread_local! {
    static CURRENT: RefCell<Option<Handle>> = RefCell::new(None);
    /// The shard this thread drives as its own (`Handle::bind_thread`); `usize::MAX` if none.
    static HOME: Cell<usize> = const { Cell::new(usize::MAX) };
}

impl Handle {
    pub(crate) fn new(inner: Inner) -> Handle {
        Handle {
            inner: Arc::new(inner),
        }
    }

    /// Makes this handle the thread's current one until the guard drops.
    pub fn enter(&self) -> EnterGuard {
        let prev = CURRENT.with(|c| c.replace(Some(self.clone())));
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
            None => panic!(
                "there is no rt reactor running: call this from inside an rt runtime \
                 (rt::Runtime::block_on, rt::spawn, #[rt::main])"
            ),
        }
    }

    /// The thread's current handle, or `None` outside a runtime.
    pub fn try_current() -> Option<Handle> {
        CURRENT.try_with(|c| c.borrow().clone()).ok().flatten()
    }

    /// The timers that share this reactor's thread.
    pub(crate) fn time(&self) -> &TimeDriver {
        &self.inner.time
    }

    /// Whether the reactor still delivers events.
    pub fn is_running(&self) -> bool {
        self.inner.state.load(Ordering::Acquire) == RUNNING
    }

    /// The error every IO operation returns once the reactor stopped.
    pub(crate) fn stopped_error(&self) -> io::Error {
        match self.inner.state.load(Ordering::Acquire) {
            GONE => io::Error::other("rt-io reactor thread is gone"),
            _ => io::Error::other("rt-io reactor has shut down"),
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

    /// Drives `shard` on this thread, if no other thread does: blocks in its `poll` until an IO
    /// event, a timer, [`Handle::unpark_shard`] or `timeout`, then wakes what became ready (the
    /// wakes run here). Returns `false` at once when another thread is driving the shard, or
    /// when the reactor has its own thread or has stopped. Timers are processed on every shard's
    /// turn, and bound every shard's timeout, so they fire whichever thread is idle.
    ///
    /// A panic inside the reactor is contained here: the reactor is then "gone" and every IO
    /// operation fails with an error that says so, but the calling thread carries on.
    pub fn try_drive_shard(&self, index: usize, timeout: Option<Duration>) -> bool {
        self.try_drive_shard_unless(index, timeout, &|| false)
    }

    /// [`Handle::try_drive_shard`], except that the turn does not block if `unless` returns
    /// `true`. `unless` runs once this thread holds the shard, so a wake-up sent after it
    /// returned `false` stays in the shard's `poll` for this turn: no other thread can take
    /// it first with a turn of its own. (A scheduler passes "I was notified meanwhile".)
    pub fn try_drive_shard_unless(
        &self,
        index: usize,
        timeout: Option<Duration>,
        unless: &dyn Fn() -> bool,
    ) -> bool {
        if !self.is_running() {
            return false;
        }
        let shard = &self.inner.shards[index];
        let Ok(mut guard) = shard.core.try_lock() else {
            return false;
        };
        let Some(core) = guard.as_mut() else {
            return false;
        };
        let timeout = if unless() {
            Some(Duration::ZERO)
        } else {
            timeout
        };
        let timeout = match (timeout, self.inner.time.next_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let turns = shard.turns.fetch_add(1, Ordering::Relaxed);
        if turns.is_multiple_of(CPU_REFRESH_TURNS) && self.inner.shards.len() > 1 && is_home(index)
        {
            shard.cpu.store(current_cpu(), Ordering::Relaxed);
        }
        if catch_unwind(AssertUnwindSafe(|| reactor::turn(self, core, timeout))).is_err() {
            drop(guard);
            reactor::stop(self, true);
        }
        true
    }

    /// How many shards (`mio::Poll`s) this reactor has.
    pub fn shards(&self) -> usize {
        self.inner.shards.len()
    }

    /// Whether any source is registered on `shard`: a worker polls its shard before it looks
    /// for work elsewhere only when events may be waiting there (the poll is a syscall).
    pub fn has_sources(&self, shard: usize) -> bool {
        self.inner.shards[shard].sources.load(Ordering::Relaxed) != 0
    }

    /// Turns taken on `shard` so far (a counter that only grows).
    pub fn turns(&self, shard: usize) -> u64 {
        self.inner.shards[shard].turns.load(Ordering::Relaxed)
    }

    /// Makes `shard` this thread's own: the sources it creates from now on register there.
    /// Each worker binds its own shard when it starts.
    pub fn bind_thread(shard: usize) {
        let _ = HOME.try_with(|h| h.set(shard));
    }

    /// This thread's own shard, if it is a worker of a runtime with more than one shard.
    pub(crate) fn home_shard(&self) -> Option<usize> {
        let n = self.inner.shards.len();
        if n == 1 {
            return None;
        }
        HOME.try_with(Cell::get).ok().filter(|&h| h < n)
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

    /// Interrupts the thread inside [`Handle::try_drive_shard`] for `shard`; a wake-up sent
    /// while nobody drives it makes the next turn of that shard return at once.
    pub fn unpark_shard(&self, shard: usize) {
        let _ = self.inner.shards[shard].waker.wake();
    }

    /// Interrupts every shard's `poll` (shutdown, the test hook).
    pub(crate) fn unpark_all(&self) {
        for shard in self.inner.shards.iter() {
            let _ = shard.waker.wake();
        }
    }

    /// Test hook: makes the reactor thread panic at its next turn, as a bug in it would.
    #[doc(hidden)]
    pub fn kill_reactor_for_test(&self) {
        self.inner.kill.store(true, Ordering::Release);
        self.unpark_all();
    }

    /// Test hook: registrations currently alive on this reactor.
    #[doc(hidden)]
    pub fn registration_count(&self) -> usize {
        self.inner.slab.live()
    }
}

/// A shard's owner refreshes its CPU once per this many turns (`sched_getcpu` is cheap, but
/// threads rarely move).
const CPU_REFRESH_TURNS: u64 = 64;

fn is_home(shard: usize) -> bool {
    HOME.try_with(Cell::get).is_ok_and(|h| h == shard)
}

/// The CPU this thread runs on, or `usize::MAX` if the OS does not say.
fn current_cpu() -> usize {
    // SAFETY: `sched_getcpu` has no preconditions.
    let cpu = unsafe { libc::sched_getcpu() };
    usize::try_from(cpu).unwrap_or(usize::MAX)
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

impl Inner {
    pub(crate) fn new(shards: Box<[Shard]>, time: TimeDriver) -> Inner {
        Inner {
            shards,
            slab: Slab::new(),
            state: AtomicU8::new(RUNNING),
            time,
            kill: AtomicBool::new(false),
            next_shard: AtomicUsize::new(0),
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
        }
    }
}

/// Restores the previously current handle when dropped. Not `Send`: it belongs to its thread.
#[derive(Debug)]
#[must_use = "the handle is current only while the guard lives"]
pub struct EnterGuard {
    prev: Option<Handle>,
    _not_send: PhantomData<*const ()>,
}

impl Drop for EnterGuard {
    fn drop(&mut self) {
        let prev = self.prev.take();
        let _ = CURRENT.try_with(|c| *c.borrow_mut() = prev);
    }
}
