//! [`Builder`]: spawning a task with a name and a priority (tokio's `tokio::task::Builder`).

use std::future::Future;
use std::io;
use std::panic::Location;

use rt_core::task::{JoinHandle, Priority, SpawnMeta};

use crate::Handle;

/// Configures a task before spawning it: its name, which shows in [`JoinHandle::name`], task
/// dumps and tracing (copied at spawn), and its [`Priority`] ("Priorities" in the
/// [module docs](super)).
///
/// Every spawn function records its caller's location (`#[track_caller]`), named or not.
///
/// ```
/// let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
/// rt.block_on(async {
///     let h = rt::task::Builder::new().name("fetcher").spawn(async { 7 })?;
///     assert_eq!(h.name(), Some("fetcher"));
///     assert_eq!(h.spawn_location().file(), file!());
///     assert_eq!(h.await.unwrap(), 7);
///     Ok::<(), std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct Builder<'a> {
    name: Option<&'a str>,
    priority: Option<Priority>,
}

impl<'a> Builder<'a> {
    /// A builder for an unnamed task.
    pub fn new() -> Builder<'a> {
        Builder::default()
    }

    /// Names the task.
    pub fn name(&self, name: &'a str) -> Builder<'a> {
        Builder {
            name: Some(name),
            ..*self
        }
    }

    /// Sets the task's priority (else it inherits the spawning task's; `Normal` from outside
    /// any task). See "Priorities" in the [module docs](super).
    ///
    /// ```
    /// use rt::task::Priority;
    /// let rt = rt::Builder::new_current_thread().build()?;
    /// rt.block_on(async {
    ///     let h = rt::task::Builder::new()
    ///         .priority(Priority::Background)
    ///         .spawn(async { rt::task::current_priority() })?;
    ///     assert_eq!(h.await.unwrap(), Priority::Background);
    ///     Ok::<(), std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn priority(&self, priority: Priority) -> Builder<'a> {
        Builder {
            priority: Some(priority),
            ..*self
        }
    }

    #[track_caller]
    fn meta(&self) -> SpawnMeta<'a> {
        let meta = SpawnMeta::new(self.name, Location::caller());
        match self.priority {
            Some(p) => meta.with_priority(p),
            None => meta,
        }
    }

    /// Spawns `future` onto the current runtime, like [`crate::spawn`].
    ///
    /// # Errors
    /// None at present (a spawn during shutdown resolves the handle to a cancellation
    /// error instead); the `io::Result` is tokio's signature.
    ///
    /// # Panics
    /// Outside a runtime, with a message that says how to get one.
    #[track_caller]
    pub fn spawn<Fut>(self, future: Fut) -> io::Result<JoinHandle<Fut::Output>>
    where
        Fut: Future + Send + 'static,
        Fut::Output: Send + 'static,
    {
        let meta = self.meta();
        match crate::context::try_current() {
            Some(h) => Ok(h.spawn_with(future, meta)),
            None => crate::context::no_runtime(
                "rt::task::Builder::spawn called outside of an rt runtime: call it from a task, \
                 inside Runtime::block_on or #[rt::main], or use Builder::spawn_on with a Handle \
                 (Runtime::handle()) from other threads",
            ),
        }
    }

    /// Spawns `future` onto the runtime of `handle`.
    ///
    /// # Errors
    /// None at present (see [`spawn`](Self::spawn)).
    #[track_caller]
    pub fn spawn_on<Fut>(self, future: Fut, handle: &Handle) -> io::Result<JoinHandle<Fut::Output>>
    where
        Fut: Future + Send + 'static,
        Fut::Output: Send + 'static,
    {
        Ok(handle.spawn_with(future, self.meta()))
    }

    /// Spawns a `!Send` future onto the [`LocalSet`](super::LocalSet) driven on this thread,
    /// like [`spawn_local`](super::spawn_local).
    ///
    /// # Errors
    /// None at present (see [`spawn`](Self::spawn)).
    ///
    /// # Panics
    /// Outside a `LocalSet`, with a message that says so.
    #[track_caller]
    pub fn spawn_local<Fut>(self, future: Fut) -> io::Result<JoinHandle<Fut::Output>>
    where
        Fut: Future + 'static,
        Fut::Output: 'static,
    {
        Ok(super::local::spawn_local_with(future, self.meta()))
    }

    /// Spawns a `!Send` future onto `local_set`.
    ///
    /// # Errors
    /// None at present (see [`spawn`](Self::spawn)).
    #[track_caller]
    pub fn spawn_local_on<Fut>(
        self,
        future: Fut,
        local_set: &super::LocalSet,
    ) -> io::Result<JoinHandle<Fut::Output>>
    where
        Fut: Future + 'static,
        Fut::Output: 'static,
    {
        Ok(local_set.spawn_local_with(future, self.meta()))
    }

    /// Runs `function` on the current runtime's blocking pool, like [`crate::spawn_blocking`].
    ///
    /// # Errors
    /// None at present (see [`spawn`](Self::spawn)).
    ///
    /// # Panics
    /// Outside a runtime.
    #[track_caller]
    pub fn spawn_blocking<Function, Output>(
        self,
        function: Function,
    ) -> io::Result<JoinHandle<Output>>
    where
        Function: FnOnce() -> Output + Send + 'static,
        Output: Send + 'static,
    {
        let meta = self.meta();
        match crate::context::try_current() {
            Some(h) => Ok(h.spawn_blocking_with(function, meta)),
            None => crate::context::no_runtime(
                "rt::task::Builder::spawn_blocking called outside of an rt runtime: call it \
                 from a task, inside Runtime::block_on or #[rt::main], or use \
                 Builder::spawn_blocking_on with a Handle (Runtime::handle())",
            ),
        }
    }

    /// Runs `function` on the blocking pool of `handle`'s runtime.
    ///
    /// # Errors
    /// None at present (see [`spawn`](Self::spawn)).
    #[track_caller]
    pub fn spawn_blocking_on<Function, Output>(
        self,
        function: Function,
        handle: &Handle,
    ) -> io::Result<JoinHandle<Output>>
    where
        Function: FnOnce() -> Output + Send + 'static,
        Output: Send + 'static,
    {
        Ok(handle.spawn_blocking_with(function, self.meta()))
    }
}
