//! Local tasks: [`LocalSet`] and [`spawn_local`], for futures that are not `Send`.
//!
//! The scheduler is `rt_sched::local`; this is the facade's shape of it (tokio's), plus
//! [`LocalSet::block_on`].

use std::future::Future;

use rt_core::task::JoinHandle;

pub use rt_sched::local::{LocalEnterGuard, RunUntil};

/// A set of tasks that all run on the thread that drives the set, so their futures and
/// outputs need not be `Send` (an `Rc`, a `RefCell` of shared local state). The set is driven
/// by [`run_until`](LocalSet::run_until) (a future, awaited on any runtime) or
/// [`block_on`](LocalSet::block_on). A task never leaves that thread: wakes from other threads
/// are queued for it. Dropping the set drops its unfinished tasks, on its thread.
///
/// ```
/// use std::rc::Rc;
/// use std::cell::RefCell;
///
/// let rt = rt::Builder::new_current_thread().build()?;
/// let local = rt::task::LocalSet::new();
/// let log = Rc::new(RefCell::new(Vec::new()));
/// let l = log.clone();
/// local.block_on(&rt, async move {
///     let h = rt::task::spawn_local(async move {
///         l.borrow_mut().push("from a local task");
///         Rc::new(5) // a !Send output
///     });
///     assert_eq!(*h.await.unwrap(), 5);
/// });
/// assert_eq!(*log.borrow(), ["from a local task"]);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct LocalSet {
    inner: rt_sched::local::LocalSet,
}

impl LocalSet {
    /// An empty set.
    pub fn new() -> LocalSet {
        LocalSet::default()
    }

    /// Spawns a `!Send` future onto the set. It runs while the set is driven; its
    /// `JoinHandle` is `!Send` when the output is.
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.inner.spawn_local(future)
    }

    /// [`spawn_local`](Self::spawn_local) with an explicit name and location (`Builder`).
    pub(crate) fn spawn_local_with<F>(
        &self,
        future: F,
        meta: rt_core::task::SpawnMeta<'_>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.inner.spawn_local_with(future, meta)
    }

    /// Runs `future`, and the set's tasks alongside it on the same thread, until `future`
    /// completes. Inside, [`spawn_local`] spawns onto this set.
    pub fn run_until<F: Future>(&self, future: F) -> RunUntil<'_, F> {
        self.inner.run_until(future)
    }

    /// Makes this set the one [`spawn_local`] spawns onto on this thread until the guard is
    /// dropped (tokio's `LocalSet::enter`). The tasks run once the set is driven
    /// ([`run_until`](Self::run_until), or awaiting the set itself).
    ///
    /// ```
    /// let rt = rt::Builder::new_current_thread().build()?;
    /// let local = rt::task::LocalSet::new();
    /// let join = {
    ///     let _guard = local.enter();
    ///     rt::task::spawn_local(async { 7 })
    /// };
    /// assert_eq!(local.block_on(&rt, join)?, 7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn enter(&self) -> LocalEnterGuard {
        self.inner.enter()
    }

    /// `rt.block_on(self.run_until(future))`: runs the set on this thread, with `rt` current
    /// (so `rt::spawn`, sockets and timers work in its tasks).
    ///
    /// # Panics
    /// Where [`Runtime::block_on`](crate::Runtime::block_on) does.
    #[track_caller]
    pub fn block_on<F: Future>(&self, rt: &crate::Runtime, future: F) -> F::Output {
        rt.block_on(self.run_until(future))
    }
}

/// Awaiting the set itself runs its tasks until none is live (tokio's `impl Future for
/// LocalSet`): the way to wait for every task spawned onto it.
///
/// ```
/// use std::{cell::Cell, rc::Rc};
/// let rt = rt::Builder::new_current_thread().build()?;
/// let local = rt::task::LocalSet::new();
/// let done = Rc::new(Cell::new(0));
/// for _ in 0..3 {
///     let done = done.clone();
///     local.spawn_local(async move {
///         rt::task::yield_now().await;
///         done.set(done.get() + 1);
///     });
/// }
/// rt.block_on(local);
/// assert_eq!(done.get(), 3);
/// # Ok::<(), std::io::Error>(())
/// ```
impl Future for LocalSet {
    type Output = ();

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        self.inner.poll_all(cx)
    }
}

/// Spawns a `!Send` future onto the [`LocalSet`] driven on this thread.
///
/// # Panics
/// Outside a `LocalSet` (its `run_until` or `block_on`), with a message that says so; on a
/// thread that entered a [`LocalRuntime`](crate::runtime::LocalRuntime) built on another one,
/// with tokio's message for that.
#[track_caller]
pub fn spawn_local<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    spawn_local_with(future, rt_core::task::SpawnMeta::caller())
}

/// [`spawn_local`] with an explicit name and location (`task::Builder`).
#[track_caller]
pub(crate) fn spawn_local_with<F>(
    future: F,
    meta: rt_core::task::SpawnMeta<'_>,
) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    match rt_sched::local::try_spawn_local_with(future, meta) {
        Ok(join) => join,
        Err(_) => no_local_set(),
    }
}

/// The panic of a local spawn outside every `LocalSet`: a `LocalRuntime` entered on another
/// thread than the one that built it has tokio's message.
#[cold]
#[track_caller]
fn no_local_set() -> ! {
    let here = std::thread::current().id();
    let elsewhere = crate::context::with_current(|h| h.inner.local_thread)
        .flatten()
        .is_some_and(|owner| owner != here);
    if elsewhere {
        panic!(
            "Local tasks can only be spawned on a LocalRuntime from the thread the runtime was \
             created on"
        )
    }
    rt_sched::local::no_local_set()
}
