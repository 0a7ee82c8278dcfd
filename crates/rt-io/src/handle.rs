//! [`Handle`]: a cheap reference to the running reactor, and the thread's current one.
//!
//! Every runtime thread runs with an [`EnterGuard`] held, so sockets created there find their
//! reactor through [`Handle::current`]. Guards nest: dropping one restores the handle that was
//! current before it.

use std::cell::RefCell;
use std::fmt;
use std::io;
use std::marker::PhantomData;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use rt_core::sync::{Arc, AtomicBool, AtomicU8, Mutex, Ordering};

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
    /// Registers and deregisters sources from any thread; the `Poll` itself lives on the thread.
    pub(crate) registry: mio::Registry,
    pub(crate) slab: Slab,
    /// `RUNNING`, `SHUT_DOWN` or `GONE`; only ever moves away from `RUNNING`.
    state: AtomicU8,
    /// Interrupts the reactor's `poll`. A std `Arc` because the timers take it as
    /// `Arc<dyn Fn()>`, a coercion loom's `Arc` cannot make; it is not part of any modelled protocol.
    pub(crate) waker: std::sync::Arc<mio::Waker>,
    pub(crate) time: TimeDriver,
    /// Test hook: the reactor thread panics at its next turn.
    pub(crate) kill: AtomicBool,
    /// The `Poll` when the runtime's threads drive it (`Driver::start_on_workers`); `None` when
    /// the `rt-io` thread owns it. Whoever holds the lock is the one thread in `poll`.
    pub(crate) core: Mutex<Option<Core>>,
}

rt_core::sync::thread_local! {
    static CURRENT: RefCell<Option<Handle>> = RefCell::new(None);
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

    /// Drives the reactor on this thread, if no other thread does: blocks in `poll` until an IO
    /// event, a timer, [`Handle::unpark_driver`] or `timeout`, then wakes what became ready (the
    /// wakes run here). Returns `false` at once when another thread is driving, or when the
    /// reactor has its own thread or has stopped.
    ///
    /// A panic inside the reactor is contained here: the reactor is then "gone" and every IO
    /// operation fails with an error that says so, but the calling thread carries on.
    pub fn try_drive(&self, timeout: Option<Duration>) -> bool {
        if !self.is_running() {
            return false;
        }
        let Ok(mut guard) = self.inner.core.try_lock() else {
            return false;
        };
        let Some(core) = guard.as_mut() else {
            return false;
        };
        let timeout = match (timeout, self.inner.time.next_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if catch_unwind(AssertUnwindSafe(|| reactor::turn(self, core, timeout))).is_err() {
            drop(guard);
            reactor::stop(self, true);
        }
        true
    }

    /// Interrupts the thread inside [`Handle::try_drive`]; a wake-up sent while nobody drives
    /// makes the next `try_drive` return at once.
    pub fn unpark_driver(&self) {
        let _ = self.inner.waker.wake();
    }

    /// Test hook: makes the reactor thread panic at its next turn, as a bug in it would.
    #[doc(hidden)]
    pub fn kill_reactor_for_test(&self) {
        self.inner.kill.store(true, Ordering::Release);
        let _ = self.inner.waker.wake();
    }

    /// Test hook: registrations currently alive on this reactor.
    #[doc(hidden)]
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

impl Inner {
    pub(crate) fn new(
        registry: mio::Registry,
        waker: std::sync::Arc<mio::Waker>,
        time: TimeDriver,
    ) -> Inner {
        Inner {
            registry,
            slab: Slab::new(),
            state: AtomicU8::new(RUNNING),
            waker,
            time,
            kill: AtomicBool::new(false),
            core: Mutex::new(None),
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
