//! `Runtime`: owns the scheduler, the blocking pool and the IO driver. The runtime types are
//! here at tokio's paths too (`rt::runtime::{Builder, Runtime, Handle, RuntimeFlavor, Id,
//! EnterGuard}`, `rt::runtime::UnhandledPanic`, `rt::runtime::is_rt_shutdown_err`).

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
/// timers. By default the reactor is split into one shard (one `epoll`) per worker, which that
/// worker polls between tasks and blocks in when idle; with
/// [`Builder::reactor_thread(true)`](crate::Builder::reactor_thread) it runs on a dedicated
/// `rt-io` thread instead.
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
        crate::Builder::new_multi_thread().build()
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
    pub fn enter(&self) -> EnterGuard {
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
        context::assert_may_block("Runtime::block_on");
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

    /// A snapshot of the runtime's metrics; see [`Handle::metrics`].
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
                panic!(
                    "an rt Runtime was dropped inside an async context (a task or block_on), \
                     where blocking is not allowed: drop it outside, or use \
                     Runtime::shutdown_background"
                );
            }
            return;
        }
        self.shutdown(None);
    }
}
