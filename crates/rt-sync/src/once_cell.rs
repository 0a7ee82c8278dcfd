//! A cell initialised once, by an async initialiser, with tokio's semantics.
//!
//! Initialisers are serialised by a [`Semaphore`] with one permit: the first caller of
//! `get_or_init` takes it and runs its initialiser while later callers queue FIFO for the permit.
//! The winner writes the value, publishes it (`value_set`, `Release`) and *closes* the semaphore:
//! every queued caller then fails its acquire and reads the value. If the initialiser is cancelled
//! (its future dropped) or fails, its permit is released and the next queued caller tries.

use crate::semaphore::{Semaphore, SemaphorePermit, TryAcquireError};
use rt_core::sync::{AtomicBool, Ordering, UnsafeCell};
use std::fmt;
use std::future::Future;
use std::mem::MaybeUninit;

/// A cell written at most once, possibly by an async computation.
///
/// ```
/// # use rt_core::test_support::block_on;
/// use rt_sync::once_cell::OnceCell;
///
/// let cell = OnceCell::new();
/// assert_eq!(*block_on(cell.get_or_init(|| async { 3 })), 3);
/// assert_eq!(*block_on(cell.get_or_init(|| async { 4 })), 3);
/// ```
pub struct OnceCell<T> {
    /// Set (`Release`) once `value` is written; never cleared except through `&mut self`.
    value_set: AtomicBool,
    value: UnsafeCell<MaybeUninit<T>>,
    /// One permit: the right to initialise. Closed once the value is set.
    semaphore: Semaphore,
}

// SAFETY: the cell owns a `T`.
unsafe impl<T: Send> Send for OnceCell<T> {}
// SAFETY: `&OnceCell` hands out `&T` on any thread (`T: Sync`) and lets any thread write the `T`
// it initialises with (`T: Send`); the semaphore admits one writer, before any reader.
unsafe impl<T: Send + Sync> Sync for OnceCell<T> {}

/// Error from [`OnceCell::set`]; returns the value that was not stored.
#[derive(Debug, PartialEq, Eq)]
pub enum SetError<T> {
    /// The cell already holds a value.
    AlreadyInitializedError(T),
    /// Another task is initialising the cell right now.
    InitializingError(T),
}

impl<T> fmt::Display for SetError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetError::AlreadyInitializedError(_) => f.write_str("cell already initialized"),
            SetError::InitializingError(_) => f.write_str("cell is being initialized"),
        }
    }
}

impl<T: fmt::Debug> std::error::Error for SetError<T> {}

impl<T> SetError<T> {
    /// Whether the cell already held a value.
    pub fn is_already_init_err(&self) -> bool {
        matches!(self, SetError::AlreadyInitializedError(_))
    }

    /// Whether another task was initialising the cell.
    pub fn is_initializing_err(&self) -> bool {
        matches!(self, SetError::InitializingError(_))
    }
}

impl<T> OnceCell<T> {
    /// An empty cell.
    pub fn new() -> OnceCell<T> {
        OnceCell {
            value_set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            semaphore: Semaphore::new(1),
        }
    }

    /// [`OnceCell::new`] in a `const` context, e.g. for a `static`:
    /// `static CLIENT: OnceCell<Client> = OnceCell::const_new();`. Not under loom.
    #[cfg(not(loom))]
    pub const fn const_new() -> OnceCell<T> {
        OnceCell {
            value_set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            semaphore: Semaphore::const_new(1),
        }
    }

    /// A cell that already holds `value`, in a `const` context. Not under loom.
    #[cfg(not(loom))]
    pub const fn const_new_with(value: T) -> OnceCell<T> {
        OnceCell {
            value_set: AtomicBool::new(true),
            value: UnsafeCell::new(MaybeUninit::new(value)),
            // What `publish` leaves: closed, its one permit forgotten.
            semaphore: Semaphore::const_closed(),
        }
    }

    /// A cell holding `value` if it is `Some`.
    pub fn new_with(value: Option<T>) -> OnceCell<T> {
        let cell = OnceCell::new();
        if let Some(v) = value {
            let permit = cell.semaphore.try_acquire().ok();
            cell.publish(v, permit.expect("a new cell's permit is free"));
        }
        cell
    }

    /// Whether the cell holds a value.
    pub fn initialized(&self) -> bool {
        self.value_set.load(Ordering::Acquire)
    }

    /// The value, if set.
    pub fn get(&self) -> Option<&T> {
        if self.initialized() {
            // SAFETY: `initialized` observed the `Release` that followed the write.
            Some(unsafe { self.get_unchecked() })
        } else {
            None
        }
    }

    /// The value, if set, through `&mut self`.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        if self.value_set.load(Ordering::Relaxed) {
            // SAFETY: set means written; `&mut self` makes this the only access.
            Some(unsafe { self.value.get_mut().assume_init_mut() })
        } else {
            None
        }
    }

    /// Stores `value` unless the cell is set or being initialised.
    pub fn set(&self, value: T) -> Result<(), SetError<T>> {
        if self.initialized() {
            return Err(SetError::AlreadyInitializedError(value));
        }
        match self.semaphore.try_acquire() {
            Ok(permit) => {
                self.publish(value, permit);
                Ok(())
            }
            Err(TryAcquireError::NoPermits) => Err(SetError::InitializingError(value)),
            Err(TryAcquireError::Closed) => Err(SetError::AlreadyInitializedError(value)),
        }
    }

    /// The value, running `f` to produce it if the cell is empty. Concurrent callers wait FIFO
    /// for the one whose initialiser runs; if that caller is cancelled, the next one runs its own.
    pub async fn get_or_init<F, Fut>(&self, f: F) -> &T
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
    {
        match self
            .get_or_try_init(|| async { Ok::<T, std::convert::Infallible>(f().await) })
            .await
        {
            Ok(v) => v,
            Err(never) => match never {},
        }
    }

    /// Like [`OnceCell::get_or_init`] with a fallible initialiser: on `Err` the cell stays empty,
    /// the error is returned and the next waiting caller tries.
    pub async fn get_or_try_init<E, F, Fut>(&self, f: F) -> Result<&T, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        if let Some(v) = self.get() {
            return Ok(v);
        }
        match self.semaphore.acquire().await {
            Ok(permit) => {
                debug_assert!(!self.initialized(), "the permit outlived initialisation");
                let value = f().await?;
                Ok(self.publish(value, permit))
            }
            Err(_closed) => {
                debug_assert!(self.initialized());
                // SAFETY: the semaphore is closed only after `value_set` is stored, and our failed
                // acquire read `CLOSED` with `Acquire` (or under the lock `close` took after it).
                Ok(unsafe { self.get_unchecked() })
            }
        }
    }

    /// Takes the value out, leaving the cell empty.
    pub fn take(&mut self) -> Option<T> {
        std::mem::take(self).into_inner()
    }

    /// Consumes the cell, returning the value if set.
    pub fn into_inner(mut self) -> Option<T> {
        if self.value_set.swap(false, Ordering::Relaxed) {
            // SAFETY: set means written; clearing the flag stops `Drop` from dropping it again.
            Some(unsafe { self.value.get_mut().assume_init_read() })
        } else {
            None
        }
    }

    /// Writes the value and publishes it; the permit is the proof that no one else writes.
    fn publish(&self, value: T, permit: SemaphorePermit<'_>) -> &T {
        // SAFETY: holding the only permit means no other writer, and no reader before `value_set`.
        self.value.with_mut(|p| unsafe { (*p).write(value) });
        self.value_set.store(true, Ordering::Release);
        self.semaphore.close();
        permit.forget();
        // SAFETY: just written and published.
        unsafe { self.get_unchecked() }
    }

    /// # Safety
    ///
    /// The value is set, and the caller observed that with `Acquire` ordering.
    unsafe fn get_unchecked(&self) -> &T {
        // SAFETY: per the contract the value is written and no longer written to.
        self.value.with(|p| unsafe { (*p).assume_init_ref() })
    }
}

impl<T> Default for OnceCell<T> {
    fn default() -> OnceCell<T> {
        OnceCell::new()
    }
}

impl<T> Drop for OnceCell<T> {
    fn drop(&mut self) {
        if self.value_set.load(Ordering::Relaxed) {
            // SAFETY: set means written, and `&mut self` means no reader remains.
            unsafe { self.value.get_mut().assume_init_drop() };
        }
    }
}

impl<T> From<T> for OnceCell<T> {
    fn from(value: T) -> OnceCell<T> {
        OnceCell::new_with(Some(value))
    }
}

impl<T: fmt::Debug> fmt::Debug for OnceCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OnceCell")
            .field("value", &self.get())
            .finish()
    }
}
