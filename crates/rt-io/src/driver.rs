//! [`Driver`]: owns the `rt-io` thread, started with the runtime and joined at its shutdown.
//!
//! Two tokens are reserved at the top of the token space; every other token is a registration's
//! (`slab.rs`):
//!
//! - [`WAKER_TOKEN`] (`usize::MAX`): the `mio::Waker` that interrupts `poll` for shutdown, the test
//!   hook and the timers' `unpark`.
//! - [`TIMER_TOKEN`] (`usize::MAX - 1`): the timers' own timerfd, if they register one.

use std::io;

use rt_core::sync::thread::{Builder, JoinHandle};

use crate::handle::{Handle, Inner};
use crate::reactor;

pub(crate) use crate::time::driver::TimeDriver;

/// Token of the `mio::Waker`.
pub(crate) const WAKER_TOKEN: mio::Token = mio::Token(usize::MAX);
/// Token reserved for the timers.
pub(crate) const TIMER_TOKEN: mio::Token = mio::Token(usize::MAX - 1);

/// Owns the reactor: the thread `rt-io`, or, when the runtime's workers drive IO, the `Poll` they
/// share. Dropping it shuts the reactor down.
#[derive(Debug)]
pub struct Driver {
    handle: Handle,
    thread: Option<JoinHandle<()>>,
    stopped: bool,
}

impl Driver {
    /// Creates the `mio::Poll` and the timers, and spawns the thread `rt-io` that drives them.
    pub fn start() -> io::Result<Driver> {
        Driver::build(true)
    }

    /// Creates the `mio::Poll` and the timers without a thread of their own: the runtime's idle
    /// threads drive them through [`Handle::try_drive`] (one at a time), as tokio's workers do.
    pub fn start_on_workers() -> io::Result<Driver> {
        Driver::build(false)
    }

    fn build(own_thread: bool) -> io::Result<Driver> {
        let poll = mio::Poll::new()?;
        let registry = poll.registry().try_clone()?;
        let waker = std::sync::Arc::new(mio::Waker::new(&registry, WAKER_TOKEN)?);
        let unpark: std::sync::Arc<dyn Fn() + Send + Sync> = {
            let waker = waker.clone();
            std::sync::Arc::new(move || {
                // Fails only if the poll is gone, and then nobody waits for it.
                let _ = waker.wake();
            })
        };
        let time = TimeDriver::new(&registry, TIMER_TOKEN, unpark)?;
        let handle = Handle::new(Inner::new(registry, waker, time));
        let core = reactor::Core::new(poll);
        let thread = if own_thread {
            let handle = handle.clone();
            Some(
                Builder::new()
                    .name("rt-io".into())
                    .spawn(move || reactor::run(core, handle))?,
            )
        } else {
            *handle.inner.core.lock().unwrap_or_else(|e| e.into_inner()) = Some(core);
            None
        };
        Ok(Driver {
            handle,
            thread,
            stopped: false,
        })
    }

    /// A handle to this driver's reactor.
    pub fn handle(&self) -> Handle {
        self.handle.clone()
    }

    /// Stops the reactor and joins its thread. Every pending and later IO operation then fails with
    /// "rt-io reactor has shut down". Idempotent.
    pub fn shutdown(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        self.handle.mark_stopped(false);
        // An error means the poll is gone, so the thread is exiting anyway.
        let _ = self.handle.inner.waker.wake();
        if let Some(thread) = self.thread.take() {
            // A panic of the thread was already turned into "reactor thread is gone" by its
            // exit guard.
            let _ = thread.join();
        }
        // The exit guard ran on the thread; repeat its work in case the thread never started
        // it (and do it for the first time when the workers drove the reactor).
        reactor::stop(&self.handle, false);
        // Waits for a thread still inside `try_drive` (it returns at once: we woke it).
        drop(
            self.handle
                .inner
                .core
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(),
        );
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.shutdown();
    }
}
