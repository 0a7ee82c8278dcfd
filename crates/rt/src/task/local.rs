//! Local tasks: [`LocalSet`] and [`spawn_local`], for futures that are not `Send`.
//!
//! The scheduler is `rt_sched::local`; this is the facade's shape of it (tokio's), plus
//! [`LocalSet::block_on`].

use std::future::Future;

use rt_core::task::JoinHandle;

pub use rt_sched::local::RunUntil;

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

/// Spawns a `!Send` future onto the [`LocalSet`] driven on this thread.
///
/// # Panics
/// Outside a `LocalSet` (its `run_until` or `block_on`), with a message that says so.
#[track_caller]
pub fn spawn_local<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    rt_sched::local::spawn_local(future)
}
