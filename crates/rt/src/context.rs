//! The thread-local runtime context: which runtime `rt::spawn` talks to, and whether this
//! thread drives tasks (a worker, or a thread inside `block_on`), where blocking is a bug.

use std::cell::RefCell;

use crate::handle::Handle;

rt_core::sync::thread_local! {
    /// The runtime `rt::spawn` and `Handle::current` find on this thread.
    static CURRENT_RUNTIME: RefCell<Option<Handle>> = const { RefCell::new(None) };
    /// How many `EnterGuard`s are live on this thread: each knows its place, so one dropped
    /// out of order is caught (it would restore another guard's runtime).
    static ENTER_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}
// Whether this thread drives tasks (a worker, or inside `block_on`) is `rt_core::driving`'s
// flag, so rt-sync's blocking calls see it too.

/// Makes a runtime current on this thread until dropped (nestable). Returned by
/// [`Runtime::enter`](crate::Runtime::enter) and [`Handle::enter`]; `'a` is the borrow of the
/// runtime or handle it came from, as in tokio (the guard holds a handle of its own, so the
/// runtime stays alive either way).
///
/// `!Send` (it restores this thread's state when dropped) and `Sync`, as tokio's.
#[must_use = "the runtime is current only while the guard lives"]
pub struct EnterGuard<'a> {
    /// Restores the thread's runtime first when the guard drops (fields drop in order). The
    /// guard itself has no `Drop`, so, as with tokio's, the borrow `'a` ends at the guard's
    /// last use: `let _g = rt.enter(); rt.shutdown_timeout(..)` compiles.
    _restore: Restore,
    _io: rt_io::EnterGuard,
    _locals: rt_sched::local::ObserverGuard,
    /// A `LocalRuntime`'s local set, entered with the runtime (`LocalRuntime::enter`).
    local: Option<rt_sched::local::LocalEnterGuard>,
    /// Not `Send`: the guard restores this thread's state.
    _not_send: std::marker::PhantomData<*const ()>,
    _handle: std::marker::PhantomData<&'a Handle>,
}

/// What an [`EnterGuard`] puts back on this thread when it drops.
struct Restore {
    prev: Option<Handle>,
    /// This guard's place among the thread's live guards (1 for the outermost).
    depth: usize,
    prev_driving: bool,
}

// SAFETY: no method reads or writes a field through `&EnterGuard` (its `Debug` prints none), so
// sharing a reference with another thread gives that thread nothing to touch; only `Drop`, on
// the owning thread (the guard is `!Send`), uses the fields.
unsafe impl Sync for EnterGuard<'_> {}

impl std::fmt::Debug for EnterGuard<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnterGuard").finish_non_exhaustive()
    }
}

/// After the thread's thread-locals are gone (a runtime dropped by another thread-local's
/// destructor at thread exit) the runtime is not made current; the guard restores nothing.
pub(crate) fn enter(handle: &Handle, driving: bool) -> EnterGuard<'static> {
    let io = handle.inner.io.enter();
    let prev = CURRENT_RUNTIME
        .try_with(|c| c.replace(Some(handle.clone())))
        .ok()
        .flatten();
    let prev_driving = rt_core::driving::set_driving(driving || rt_core::driving::is_driving());
    let depth = ENTER_DEPTH.with(|d| {
        d.set(d.get() + 1);
        d.get()
    });
    EnterGuard {
        _restore: Restore {
            prev,
            depth,
            prev_driving,
        },
        _io: io,
        _locals: rt_sched::local::enter_observer(&handle.inner.locals),
        local: None,
        _not_send: std::marker::PhantomData,
        _handle: std::marker::PhantomData,
    }
}

impl<'a> EnterGuard<'a> {
    /// Also keeps `local` entered while the guard lives (a `LocalRuntime`'s set).
    pub(crate) fn with_local(mut self, local: rt_sched::local::LocalEnterGuard) -> EnterGuard<'a> {
        self.local = Some(local);
        self
    }
}

impl Drop for Restore {
    fn drop(&mut self) {
        let in_order = ENTER_DEPTH
            .try_with(|d| d.get() == self.depth)
            .unwrap_or(true);
        if !in_order {
            // Restoring now would make a guard still live lose its runtime; leave this thread
            // as it is, as tokio does.
            if std::thread::panicking() {
                return;
            }
            panic!(
                "`EnterGuard` values dropped out of order: the guards returned by \
                 `Runtime::enter` and `Handle::enter` must be dropped in the reverse order \
                 they were acquired (as in tokio)"
            );
        }
        let _ = ENTER_DEPTH.try_with(|d| d.set(self.depth - 1));
        let prev = self.prev.take();
        let _ = CURRENT_RUNTIME.try_with(|c| *c.borrow_mut() = prev);
        rt_core::driving::set_driving(self.prev_driving);
    }
}

/// Runs `f` with the current runtime's handle, borrowed: no reference-count traffic on the
/// handle (`rt::spawn` takes this path; a clone and its drop were two read-modify-writes per
/// spawn). `None` outside a runtime. As in tokio's `with_current`, the borrow is held while `f`
/// runs, so `f` must not enter a runtime on this thread (a spawn does not: the one future it may
/// drop, refused at shutdown, is `Send` and so holds no `EnterGuard`, and its drop runs under
/// `catch_unwind`).
#[inline]
pub(crate) fn with_current<R>(f: impl FnOnce(&Handle) -> R) -> Option<R> {
    CURRENT_RUNTIME
        .try_with(|c| c.borrow().as_ref().map(f))
        .ok()
        .flatten()
}

pub(crate) fn try_current() -> Option<Handle> {
    CURRENT_RUNTIME
        .try_with(|c| c.borrow().clone())
        .ok()
        .flatten()
}

/// [`try_current`], telling a thread outside any runtime from one whose thread-local is gone
/// (a thread-local destructor running after the runtime context was torn down).
pub(crate) fn try_current_or_why() -> Result<Handle, crate::handle::TryCurrentError> {
    use crate::handle::TryCurrentError;
    match CURRENT_RUNTIME.try_with(|c| c.borrow().clone()) {
        Ok(Some(handle)) => Ok(handle),
        Ok(None) => Err(TryCurrentError::missing_context()),
        Err(_) => Err(TryCurrentError::thread_local_destroyed()),
    }
}

pub(crate) fn is_driving() -> bool {
    rt_core::driving::is_driving()
}

/// Panics for a call that needs a runtime, made outside of one: with rt's `message`, which
/// says how to get one, or under the `tokio` face with tokio's words.
#[cold]
#[track_caller]
pub(crate) fn no_runtime(message: &str) -> ! {
    if cfg!(feature = "tokio-face") {
        panic!("{}", rt_core::messages::NO_RUNTIME)
    }
    panic!("{message}")
}

/// Panics unless blocking the thread is allowed here: for `block_on` (tokio's "Cannot start a
/// runtime from within a runtime").
#[track_caller]
pub(crate) fn assert_may_block_on(what: &str) {
    rt_core::driving::assert_may_block_on(what);
}
