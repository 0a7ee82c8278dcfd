//! Task-local storage: `rt::task_local!`, [`LocalKey`] and its scope future.
//!
//! The value lives inside the [`TaskLocalFuture`] returned by [`LocalKey::scope`], so it moves
//! with the task wherever the scheduler runs it (another worker, after a steal). Around each
//! poll of the inner future the value is swapped into a thread-local slot, and swapped back
//! out when the poll returns or unwinds; `with`/`try_with` read that slot. This is tokio's
//! design.

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Declares task-local keys: `static NAME: T;` items (any visibility, attributes and doc
/// comments allowed), each a [`LocalKey<T>`](crate::task::LocalKey).
///
/// ```
/// rt::task_local! {
///     static REQUEST_ID: u64;
///     pub static USER: String;
/// }
/// let rt = rt::Builder::new_current_thread().build()?;
/// rt.block_on(REQUEST_ID.scope(7, async {
///     assert_eq!(REQUEST_ID.get(), 7);
/// }));
/// assert!(USER.try_with(|u| u.len()).is_err());
/// # Ok::<(), std::io::Error>(())
/// ```
#[macro_export]
macro_rules! task_local {
    () => {};
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty; $($rest:tt)*) => {
        $crate::__task_local_inner!($(#[$attr])* $vis $name, $t);
        $crate::task_local!($($rest)*);
    };
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty) => {
        $crate::__task_local_inner!($(#[$attr])* $vis $name, $t);
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __task_local_inner {
    ($(#[$attr:meta])* $vis:vis $name:ident, $t:ty) => {
        $(#[$attr])*
        $vis static $name: $crate::task::LocalKey<$t> = {
            ::std::thread_local! {
                static __KEY: ::std::cell::RefCell<::std::option::Option<$t>> =
                    const { ::std::cell::RefCell::new(::std::option::Option::None) };
            }
            $crate::task::LocalKey { inner: __KEY }
        };
    };
}

/// A task-local key, declared with [`task_local!`](crate::task_local). Its value is set for
/// the duration of a [`scope`](LocalKey::scope) (a future) or a
/// [`sync_scope`](LocalKey::sync_scope) (a closure), and read with [`with`](LocalKey::with),
/// [`try_with`](LocalKey::try_with) or [`get`](LocalKey::get).
pub struct LocalKey<T: 'static> {
    #[doc(hidden)]
    pub inner: std::thread::LocalKey<RefCell<Option<T>>>,
}

/// The error of [`LocalKey::try_with`]: the value is not set here (outside any scope of this
/// key, or the thread is being torn down).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessError {
    _private: (),
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("task-local value not set")
    }
}

impl std::error::Error for AccessError {}

/// Swaps `slot` with the key's thread-local cell on creation and back on drop (also when the
/// scoped code unwinds).
struct Swap<'a, T: 'static> {
    key: &'static LocalKey<T>,
    slot: &'a mut Option<T>,
}

impl<'a, T: 'static> Swap<'a, T> {
    #[track_caller]
    fn enter(key: &'static LocalKey<T>, slot: &'a mut Option<T>) -> Swap<'a, T> {
        let res = key.inner.try_with(|cell| match cell.try_borrow_mut() {
            Ok(mut v) => {
                std::mem::swap(slot, &mut *v);
                true
            }
            Err(_) => false,
        });
        match res {
            Ok(true) => Swap { key, slot },
            Ok(false) => panic!(
                "cannot enter a task-local scope while the task-local value is borrowed \
                 (inside a `with` closure of the same key)"
            ),
            Err(_) => panic!(
                "cannot enter a task-local scope: the thread-local storage is being destroyed"
            ),
        }
    }
}

impl<T: 'static> Drop for Swap<'_, T> {
    fn drop(&mut self) {
        // Entering succeeded, so the cell is reachable; the scoped code cannot still hold a
        // borrow of it (every `with` borrow ends before its closure returns).
        let slot = &mut *self.slot;
        let _ = self.key.inner.try_with(|cell| {
            if let Ok(mut v) = cell.try_borrow_mut() {
                std::mem::swap(slot, &mut *v);
            }
        });
    }
}

impl<T: 'static> LocalKey<T> {
    /// Runs `future` with this key set to `value`, in every poll, on whichever thread polls
    /// it. The value is dropped with the returned future.
    ///
    /// ```
    /// rt::task_local! { static DEPTH: u32; }
    /// let rt = rt::Builder::new_current_thread().build()?;
    /// let v = rt.block_on(DEPTH.scope(1, async {
    ///     rt::task::yield_now().await;
    ///     DEPTH.scope(2, async { DEPTH.get() }).await + DEPTH.get()
    /// }));
    /// assert_eq!(v, 3);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn scope<F: Future>(&'static self, value: T, future: F) -> TaskLocalFuture<T, F> {
        TaskLocalFuture {
            key: self,
            slot: Some(value),
            future: Some(future),
            _pinned: PhantomPinned,
        }
    }

    /// Runs `f` with this key set to `value`, then restores what was set before.
    ///
    /// # Panics
    /// Inside a `with` closure of the same key.
    #[track_caller]
    pub fn sync_scope<F, R>(&'static self, value: T, f: F) -> R
    where
        F: FnOnce() -> R,
    {
        let mut slot = Some(value);
        let _swap = Swap::enter(self, &mut slot);
        f()
    }

    /// Calls `f` with a reference to the value.
    ///
    /// # Panics
    /// Outside any scope of this key.
    #[track_caller]
    pub fn with<F, R>(&'static self, f: F) -> R
    where
        F: FnOnce(&T) -> R,
    {
        match self.try_with(f) {
            Ok(r) => r,
            Err(_) => panic!(
                "cannot access a task-local value without setting it first: run the code \
                 inside `KEY.scope(value, future)` or `KEY.sync_scope(value, f)`"
            ),
        }
    }

    /// Calls `f` with a reference to the value, or returns [`AccessError`] outside any scope
    /// of this key.
    pub fn try_with<F, R>(&'static self, f: F) -> Result<R, AccessError>
    where
        F: FnOnce(&T) -> R,
    {
        let err = AccessError { _private: () };
        self.inner
            .try_with(|cell| {
                let v = cell.try_borrow().map_err(|_| err)?;
                v.as_ref().map(f).ok_or(err)
            })
            .unwrap_or(Err(err))
    }
}

impl<T: Clone + 'static> LocalKey<T> {
    /// A clone of the value.
    ///
    /// # Panics
    /// Outside any scope of this key.
    #[track_caller]
    pub fn get(&'static self) -> T {
        self.with(T::clone)
    }

    /// A clone of the value, or [`AccessError`] outside any scope of this key (tokio's
    /// `try_get`).
    ///
    /// ```
    /// rt::task_local! { static USER: String; }
    /// assert!(USER.try_get().is_err());
    /// USER.sync_scope("ada".to_string(), || assert_eq!(USER.try_get().unwrap(), "ada"));
    /// ```
    pub fn try_get(&'static self) -> Result<T, AccessError> {
        self.try_with(T::clone)
    }
}

impl<T: 'static> fmt::Debug for LocalKey<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("LocalKey { .. }")
    }
}

/// The future returned by [`LocalKey::scope`]: `future` with the key set in every poll (and
/// while `future` is dropped).
pub struct TaskLocalFuture<T: 'static, F> {
    key: &'static LocalKey<T>,
    slot: Option<T>,
    future: Option<F>,
    _pinned: PhantomPinned,
}

impl<T: 'static, F> TaskLocalFuture<T, F> {
    /// Takes the value this future sets the key to (tokio's `take_value`): `Some` the first
    /// time, `None` once taken. Taken before the future completes, the value is gone for the
    /// polls still to come: the key reads as unset in them.
    ///
    /// ```
    /// rt::task_local! { static N: u32; }
    /// let rt = rt::Builder::new_current_thread().build()?;
    /// let mut fut = std::pin::pin!(N.scope(5, async { N.get() }));
    /// assert_eq!(rt.block_on(fut.as_mut()), 5);
    /// assert_eq!(fut.as_mut().take_value(), Some(5));
    /// assert_eq!(fut.as_mut().take_value(), None);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn take_value(self: Pin<&mut Self>) -> Option<T> {
        // SAFETY: only `slot`, which is not structurally pinned, is touched; `future` stays
        // where it is.
        let this = unsafe { self.get_unchecked_mut() };
        this.slot.take()
    }
}

impl<T: 'static, F: Future> Future for TaskLocalFuture<T, F> {
    type Output = F::Output;

    #[track_caller]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `future` is structurally pinned: it is never moved out of `self` (only
        // dropped in place, in `Drop`), and `self` is `!Unpin`. `slot` and `key` are not
        // pinned; moving values in and out of them is fine.
        let this = unsafe { self.get_unchecked_mut() };
        let _swap = Swap::enter(this.key, &mut this.slot);
        let fut = match this.future.as_mut() {
            Some(f) => f,
            None => panic!("TaskLocalFuture polled after it was dropped"),
        };
        // SAFETY: see above: `fut` stays where it is until dropped in place.
        unsafe { Pin::new_unchecked(fut) }.poll(cx)
    }
}

impl<T: 'static, F> Drop for TaskLocalFuture<T, F> {
    fn drop(&mut self) {
        if self.future.is_none() {
            return;
        }
        // Drop the inner future with the value set, so its destructors can read it. If the
        // key cannot be entered (thread teardown), drop it without.
        let key = self.key;
        let entered = key
            .inner
            .try_with(|c| c.try_borrow_mut().is_ok())
            .unwrap_or(false);
        if entered {
            let _swap = Swap::enter(key, &mut self.slot);
            self.future = None;
        } else {
            self.future = None;
        }
    }
}

impl<T: 'static, F> fmt::Debug for TaskLocalFuture<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskLocalFuture").finish_non_exhaustive()
    }
}
