//! `Handle`: a cheap, clonable reference to a runtime, usable from any thread.

use std::future::Future;
use std::sync::Arc;

use rt_core::task::JoinHandle;
use rt_sched::{blocking, current_thread, multi_thread};

use crate::context::{self, EnterGuard};

pub(crate) enum Scheduler {
    MultiThread(multi_thread::Handle),
    CurrentThread(current_thread::Handle),
}

/// What a runtime's handles share: its scheduler, its blocking pool and its reactor.
pub(crate) struct RuntimeInner {
    pub(crate) scheduler: Scheduler,
    pub(crate) blocking: blocking::Spawner,
    pub(crate) io: rt_io::Handle,
    /// Set under `UnhandledPanic::ShutdownRuntime`: where a task's panic payload goes.
    pub(crate) panic: Option<Arc<crate::unhandled::PanicState>>,
    /// What `LocalSet`s driven in this runtime report to (its dump, its trace).
    pub(crate) locals: Arc<rt_sched::local::Observer>,
    /// `Builder::name`.
    pub(crate) name: Option<String>,
    /// This runtime's id, unique in the process.
    pub(crate) id: crate::runtime_id::Id,
    /// A `LocalRuntime`'s: the thread that built it, the one its local tasks run on.
    pub(crate) local_thread: Option<std::thread::ThreadId>,
}

/// A handle to a runtime: spawns onto it from any thread. `Send + Sync`, cheap to clone.
///
/// Same shape as tokio's `Handle`: `Handle::current()`, `spawn`, `spawn_blocking`, `enter`,
/// `block_on`.
#[derive(Clone)]
pub struct Handle {
    pub(crate) inner: Arc<RuntimeInner>,
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let flavor = match self.inner.scheduler {
            Scheduler::MultiThread(_) => "multi_thread",
            Scheduler::CurrentThread(_) => "current_thread",
        };
        f.debug_struct("Handle").field("flavor", &flavor).finish()
    }
}

impl Handle {
    /// The runtime this thread is in.
    ///
    /// # Panics
    /// Outside a runtime, with a message that says how to get one.
    #[track_caller]
    pub fn current() -> Handle {
        match context::try_current() {
            Some(h) => h,
            None => context::no_runtime(
                "rt::Handle::current() called outside of an rt runtime: call it from a task \
                 (rt::spawn), inside Runtime::block_on or #[rt::main], or pass a Handle \
                 (Runtime::handle) to this thread",
            ),
        }
    }

    /// The runtime this thread is in, or why there is none: tokio's signature, so
    /// `if let Ok(handle) = Handle::try_current()` ports unchanged.
    pub fn try_current() -> Result<Handle, TryCurrentError> {
        context::try_current_or_why()
    }

    /// Spawns a task onto this runtime. Does not poll it: the caller continues at once. The
    /// caller's location is recorded as the task's spawn location.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.spawn_with(future, rt_core::task::SpawnMeta::caller())
    }

    /// [`spawn`](Self::spawn) with an explicit name and spawn location (`task::Builder`).
    pub(crate) fn spawn_with<F>(
        &self,
        future: F,
        meta: rt_core::task::SpawnMeta<'_>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let id = rt_core::task::next_id();
        match &self.inner.scheduler {
            Scheduler::MultiThread(h) => h.spawn_with(future, id, meta),
            Scheduler::CurrentThread(h) => h.spawn_with(future, id, meta),
        }
    }

    /// Runs `f` on the blocking pool.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.spawn_blocking_with(f, rt_core::task::SpawnMeta::caller())
    }

    /// [`spawn_blocking`](Self::spawn_blocking) with an explicit name and spawn location.
    pub(crate) fn spawn_blocking_with<F, R>(
        &self,
        f: F,
        meta: rt_core::task::SpawnMeta<'_>,
    ) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.inner.blocking.spawn_blocking_with(f, meta)
    }

    /// Makes this runtime current on this thread until the guard drops, so `rt::spawn`, sockets
    /// and timers work in plain code.
    pub fn enter(&self) -> EnterGuard<'_> {
        context::enter(self, false)
    }

    /// Runs `future` to completion on this thread (parking it between polls), with this runtime
    /// current. Spawned tasks run on the runtime's workers; for a current-thread runtime only
    /// while some thread is in [`Runtime::block_on`](crate::Runtime::block_on).
    ///
    /// # Panics
    /// When called from a thread that drives tasks (see `Runtime::block_on`).
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        context::assert_may_block_on("Handle::block_on");
        let _g = context::enter(self, true);
        let future = rt_io::held::Held::new(self.inner.io.clone(), future);
        match &self.inner.panic {
            Some(state) => {
                crate::unhandled::block_on_watched(state, future, current_thread::park_block_on)
            }
            None => current_thread::park_block_on(future),
        }
    }

    /// Which scheduler this runtime runs (tokio's `Handle::runtime_flavor`).
    pub fn runtime_flavor(&self) -> crate::runtime::RuntimeFlavor {
        match self.inner.scheduler {
            Scheduler::MultiThread(_) => crate::runtime::RuntimeFlavor::MultiThread,
            Scheduler::CurrentThread(_) => crate::runtime::RuntimeFlavor::CurrentThread,
        }
    }

    /// The name given with [`Builder::name`](crate::Builder::name), if any (tokio's
    /// `Handle::name`).
    pub fn name(&self) -> Option<&str> {
        self.inner.name.as_deref()
    }

    /// This runtime's id: unique among the runtimes of this process, the same through every
    /// handle of one runtime (tokio's `Handle::id`).
    ///
    /// ```
    /// let a = rt::Builder::new_current_thread().build()?;
    /// let b = rt::Builder::new_current_thread().build()?;
    /// assert_eq!(a.handle().id(), a.handle().clone().id());
    /// assert_ne!(a.handle().id(), b.handle().id());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn id(&self) -> crate::runtime::Id {
        self.inner.id
    }

    /// Every live task of this runtime: id, name, spawn location, state, and where kept poll
    /// count and last poll and wake times ([`Dump`](crate::Dump)). Synchronous and never
    /// blocks on a task, so it returns while a task is stuck in a poll; callable from any
    /// thread, a task of this runtime included.
    pub fn dump(&self) -> crate::Dump {
        crate::dump::capture(&self.inner)
    }

    /// The runtime's metrics, read live at each accessor call (tokio's `Handle::metrics`); see
    /// [`RuntimeMetrics`](crate::runtime::RuntimeMetrics) and the README's "Metrics".
    pub fn metrics(&self) -> crate::runtime::RuntimeMetrics {
        crate::runtime::RuntimeMetrics::new(self)
    }
}

// As tokio's: a panic caught around runtime calls leaves the runtime as usable as a task's
// panic does (the scheduler, the pools and the reactor keep no half-updated state a later call
// could see). The compiler cannot see that through the hooks (`dyn Fn`) and cells inside.
impl std::panic::UnwindSafe for Handle {}
impl std::panic::RefUnwindSafe for Handle {}
impl std::panic::UnwindSafe for crate::Runtime {}
impl std::panic::RefUnwindSafe for crate::Runtime {}

/// Why [`Handle::try_current`] found no runtime (tokio's `TryCurrentError`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TryCurrentError {
    thread_local_destroyed: bool,
}

impl TryCurrentError {
    pub(crate) fn missing_context() -> TryCurrentError {
        TryCurrentError {
            thread_local_destroyed: false,
        }
    }

    pub(crate) fn thread_local_destroyed() -> TryCurrentError {
        TryCurrentError {
            thread_local_destroyed: true,
        }
    }

    /// The thread is not inside a runtime (not a worker, not in `block_on`, no `EnterGuard`).
    pub fn is_missing_context(&self) -> bool {
        !self.thread_local_destroyed
    }

    /// The thread's runtime context was already destroyed (called from a thread-local's
    /// destructor while the thread exits).
    pub fn is_thread_local_destroyed(&self) -> bool {
        self.thread_local_destroyed
    }
}

impl std::fmt::Display for TryCurrentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.thread_local_destroyed {
            f.write_str(rt_core::messages::CONTEXT_DESTROYED)
        } else if cfg!(feature = "tokio-face") {
            f.write_str(rt_core::messages::NO_RUNTIME)
        } else {
            f.write_str(
                "no rt runtime on this thread: call it from a task, inside Runtime::block_on or \
                 #[rt::main], or enter one with Runtime::enter / Handle::enter",
            )
        }
    }
}

impl std::error::Error for TryCurrentError {}
