//! [`LocalRuntime`]: a current-thread runtime whose `block_on` thread also runs `!Send` tasks,
//! as tokio's `runtime::LocalRuntime`.
//!
//! It is a current-thread [`Runtime`] and a [`LocalSet`] together: `block_on` drives the set
//! around the future (so [`spawn_local`](crate::task::spawn_local) works anywhere on this
//! thread while it runs, from `Send` tasks too), and the set is entered for as long as
//! `block_on` or [`LocalRuntime::enter`] lasts, so local spawns from outside a poll are queued
//! for the next `block_on`.

use std::future::Future;
use std::io;
use std::marker::PhantomData;
use std::time::Duration;

use rt_core::task::JoinHandle;

use crate::runtime::{EnterGuard, Handle, Runtime, RuntimeMetrics};
use crate::task::LocalSet;

/// Options for [`Builder::build_local`](crate::Builder::build_local). None yet, as in tokio;
/// the type exists so options can come without changing the signature.
#[derive(Debug, Default, Clone)]
#[non_exhaustive]
pub struct LocalOptions {
    /// `!Send`, as tokio's.
    _not_send: PhantomData<*mut u8>,
}

/// A current-thread runtime that runs `!Send` tasks on the thread that calls
/// [`block_on`](LocalRuntime::block_on): build it with
/// [`Builder::build_local`](crate::Builder::build_local) or [`LocalRuntime::new`]. `!Send`.
///
/// ```
/// use std::rc::Rc;
/// let rt = rt::runtime::LocalRuntime::new()?;
/// let n = rt.block_on(async {
///     // No LocalSet needed: the runtime itself takes local tasks.
///     rt::task::spawn_local(async { Rc::new(5) }).await.unwrap()
/// });
/// assert_eq!(*n, 5);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct LocalRuntime {
    /// `None` only while it is being taken apart (`Drop`, `shutdown_*`).
    local: Option<LocalSet>,
    rt: Option<Runtime>,
}

impl std::fmt::Debug for LocalRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalRuntime")
            .field("handle", self.handle())
            .finish_non_exhaustive()
    }
}

impl LocalRuntime {
    /// A local runtime with default settings.
    pub fn new() -> io::Result<LocalRuntime> {
        crate::Builder::new_current_thread()
            .enable_all()
            .build_local(LocalOptions::default())
    }

    pub(crate) fn from_runtime(rt: Runtime) -> LocalRuntime {
        LocalRuntime {
            local: Some(LocalSet::new()),
            rt: Some(rt),
        }
    }

    fn rt(&self) -> &Runtime {
        self.rt
            .as_ref()
            .expect("the runtime lives until the LocalRuntime is taken apart")
    }

    fn local(&self) -> &LocalSet {
        self.local
            .as_ref()
            .expect("the set lives until the LocalRuntime is taken apart")
    }

    /// The runtime's handle: `Send` tasks can be spawned through it from any thread.
    pub fn handle(&self) -> &Handle {
        self.rt().handle()
    }

    /// Spawns a `!Send` future; it runs on this thread inside `block_on`.
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.local().spawn_local(future)
    }

    /// Spawns a `Send` future (it too runs on this thread inside `block_on`).
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.rt().spawn(future)
    }

    /// Runs a blocking closure on the runtime's blocking pool.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.rt().spawn_blocking(f)
    }

    /// Runs `future` to completion on this thread, with the runtime's tasks, local and not,
    /// running alongside it.
    ///
    /// # Panics
    /// Where [`Runtime::block_on`] does.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        let local = self.local();
        let _entered = local.enter();
        self.rt().block_on(local.run_until(future))
    }

    /// Makes the runtime current on this thread, and its local task set the one
    /// [`spawn_local`](crate::task::spawn_local) spawns onto, until the guard is dropped.
    pub fn enter(&self) -> EnterGuard<'_> {
        self.rt().enter().with_local(self.local().enter())
    }

    /// The runtime's metrics, read live at each accessor call; see [`Handle::metrics`].
    pub fn metrics(&self) -> RuntimeMetrics {
        self.rt().metrics()
    }

    /// Drops the local tasks, then shuts the runtime down, waiting at most `timeout` for its
    /// blocking pool (as [`Runtime::shutdown_timeout`]).
    pub fn shutdown_timeout(mut self, timeout: Duration) {
        self.drop_local();
        if let Some(rt) = self.rt.take() {
            rt.shutdown_timeout(timeout);
        }
    }

    /// Drops the local tasks, then shuts the runtime down without waiting for its blocking
    /// pool (as [`Runtime::shutdown_background`]).
    pub fn shutdown_background(mut self) {
        self.drop_local();
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }

    /// Drops the local set (its unfinished tasks' futures) with the runtime current, so
    /// those futures can still reach it while they drop.
    fn drop_local(&mut self) {
        if let (Some(local), Some(rt)) = (self.local.take(), &self.rt) {
            let _entered = rt.enter();
            drop(local);
        }
    }
}

impl Drop for LocalRuntime {
    fn drop(&mut self) {
        self.drop_local();
    }
}
