//! `JoinHandle` and `AbortHandle`.

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::error::JoinError;
use super::id::Id;
use super::raw::RawTask;

/// An owned permission to await a task's output. Dropping it detaches the task, which keeps
/// running.
///
/// Resolves to `Ok(output)`, or `Err(JoinError)` when the task panicked or was cancelled (by
/// `abort()` or by runtime shutdown).
pub struct JoinHandle<T> {
    raw: RawTask,
    _p: PhantomData<T>,
}

// SAFETY: the handle moves the output `T` across threads, so it needs `T: Send`; it never gives
// shared access to `T`, so `Sync` needs no bound on `T` beyond `Send`.
unsafe impl<T: Send> Send for JoinHandle<T> {}
// SAFETY: `&JoinHandle` only exposes `abort`, `is_finished` and `id`, which touch the state word.
unsafe impl<T: Send> Sync for JoinHandle<T> {}

impl<T> Unpin for JoinHandle<T> {}

// As tokio's: a panic while a `JoinHandle` is in use (polled, aborted) leaves the task's state
// word and join slot as a cancelled poll would; nothing half-updated is observable.
impl<T> std::panic::UnwindSafe for JoinHandle<T> {}
impl<T> std::panic::RefUnwindSafe for JoinHandle<T> {}

impl<T> JoinHandle<T> {
    /// Takes over the task's join reference.
    pub(crate) fn new(raw: RawTask) -> JoinHandle<T> {
        JoinHandle {
            raw,
            _p: PhantomData,
        }
    }

    /// Asks the task to stop: at its next scheduling point its future is dropped and the handle
    /// resolves to a cancellation `JoinError` (unless it completed first).
    pub fn abort(&self) {
        self.raw.remote_abort();
    }

    /// Whether the task has completed (with output, panic or cancellation).
    pub fn is_finished(&self) -> bool {
        self.raw.header().state.load().is_complete()
    }

    /// A handle that can abort the task without awaiting it.
    pub fn abort_handle(&self) -> AbortHandle {
        self.raw.ref_inc();
        AbortHandle { raw: self.raw }
    }

    /// The task's id.
    pub fn id(&self) -> Id {
        self.raw.header().id
    }

    /// The address of the task's cell (for tests of the cell's side tables).
    #[cfg(test)]
    pub(crate) fn raw_header_addr(&self) -> usize {
        self.raw.header_ptr().as_ptr().addr()
    }

    /// The task's name, if it was spawned with one (`rt::task::Builder::name`). An rt
    /// extension: tokio has no such accessor.
    pub fn name(&self) -> Option<&str> {
        self.raw.header().name()
    }

    /// Where the task was spawned: the caller of `rt::spawn` (or of whichever spawn function,
    /// all of which are `#[track_caller]`). An rt extension.
    pub fn spawn_location(&self) -> &'static std::panic::Location<'static> {
        self.raw.header().spawn_location()
    }

    /// Gives up the output and keeps only the power to abort: the same as `abort_handle()`
    /// followed by dropping the `JoinHandle`, with one atomic operation instead of three (the
    /// handle's reference passes to the `AbortHandle`).
    pub fn into_abort_handle(self) -> AbortHandle {
        let raw = self.raw;
        std::mem::forget(self);
        raw.drop_join_handle(true);
        AbortHandle { raw }
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let coop = std::task::ready!(crate::coop::poll_proceed(cx));
        let mut ret = Poll::Pending;
        // SAFETY: `ret` has the type the vtable's `try_read_output` writes for output `T`.
        unsafe {
            self.raw.try_read_output(
                &mut ret as *mut Poll<Result<T, JoinError>> as *mut (),
                cx.waker(),
            )
        };
        if ret.is_ready() {
            coop.made_progress();
        }
        ret
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        self.raw.drop_join_handle(false);
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("id", &self.id())
            .field("state", &self.raw.header().state)
            .finish()
    }
}

/// Aborts a task without owning its output. Dropping it does nothing to the task.
pub struct AbortHandle {
    raw: RawTask,
}

impl AbortHandle {
    /// Asks the task to stop; see [`JoinHandle::abort`].
    pub fn abort(&self) {
        self.raw.remote_abort();
    }

    /// Whether the task has completed.
    pub fn is_finished(&self) -> bool {
        self.raw.header().state.load().is_complete()
    }

    /// The task's id.
    pub fn id(&self) -> Id {
        self.raw.header().id
    }

    /// The task's name, if it was spawned with one (`rt::task::Builder::name`). An rt
    /// extension: tokio has no such accessor.
    pub fn name(&self) -> Option<&str> {
        self.raw.header().name()
    }

    /// Where the task was spawned: the caller of `rt::spawn` (or of whichever spawn function,
    /// all of which are `#[track_caller]`). An rt extension.
    pub fn spawn_location(&self) -> &'static std::panic::Location<'static> {
        self.raw.header().spawn_location()
    }
}

impl Clone for AbortHandle {
    fn clone(&self) -> AbortHandle {
        self.raw.ref_inc();
        AbortHandle { raw: self.raw }
    }
}

impl Drop for AbortHandle {
    fn drop(&mut self) {
        self.raw.drop_reference();
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle")
            .field("id", &self.id())
            .finish()
    }
}
