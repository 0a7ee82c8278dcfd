//! A fair async mutex: a [`Semaphore`] with one permit around an `UnsafeCell`.
//!
//! Fairness comes from the semaphore: waiters queue FIFO and an unlock hands the permit straight to
//! the first waiter (the unlocking task cannot barge back in ahead of it), so no waiter starves.
//! Uncontended lock and unlock are one CAS each.
//!
//! No poisoning (tokio semantics): a task that panics while holding the guard releases the lock as
//! the guard is dropped during unwinding; the data is left as the panicking code left it.

use crate::semaphore::Semaphore;
use rt_core::sync::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
// A user-owned `Arc` receiver must be std's: see `rt_core::sync::StdArc`.
use rt_core::sync::StdArc as Arc;

/// An async mutex whose guard may be held across `.await`.
///
/// ```
/// # use rt_core::test_support::block_on;
/// use rt_sync::mutex::Mutex;
///
/// let m = Mutex::new(1);
/// block_on(async {
///     *m.lock().await += 1;
///     assert_eq!(*m.lock().await, 2);
/// });
/// ```
pub struct Mutex<T> {
    s: Semaphore,
    c: UnsafeCell<T>,
}

// SAFETY: the mutex owns a `T`; moving it moves the `T`.
unsafe impl<T: Send> Send for Mutex<T> {}
// SAFETY: the semaphore's single permit serialises all access to the cell, so sharing the mutex
// only ever hands the `T` to one thread at a time (hence `T: Send`, not `T: Sync`).
unsafe impl<T: Send> Sync for Mutex<T> {}

/// Error from [`Mutex::try_lock`] (and `RwLock::try_read`/`try_write`): the lock is not free for
/// that access, or others wait for it first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TryLockError(pub(crate) ());

impl fmt::Display for TryLockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("operation would block")
    }
}

impl std::error::Error for TryLockError {}

impl<T> Mutex<T> {
    /// Creates an unlocked mutex holding `value`.
    pub fn new(value: T) -> Mutex<T> {
        Mutex {
            s: Semaphore::new(1),
            c: UnsafeCell::new(value),
        }
    }

    /// Waits for the lock, FIFO with other waiters. Cancel-safe: dropping the future gives up its
    /// place, and a lock already handed to it passes to the next waiter.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; the waiter leaves the queue (it loses its place in the fair order).
    pub async fn lock(&self) -> MutexGuard<'_, T> {
        if self.s.acquire_raw(1).await.is_err() {
            unreachable!("a mutex's semaphore is never closed");
        }
        MutexGuard { lock: self }
    }

    /// Takes the lock if it is free and no one waits for it.
    pub fn try_lock(&self) -> Result<MutexGuard<'_, T>, TryLockError> {
        match self.s.try_acquire_raw(1) {
            Ok(()) => Ok(MutexGuard { lock: self }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// [`Mutex::lock`] for a mutex behind an `Arc`: the guard owns a clone and is `'static`.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; the waiter leaves the queue.
    pub async fn lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        if self.s.acquire_raw(1).await.is_err() {
            unreachable!("a mutex's semaphore is never closed");
        }
        OwnedMutexGuard { lock: self }
    }

    /// [`Mutex::try_lock`] for a mutex behind an `Arc`.
    pub fn try_lock_owned(self: Arc<Self>) -> Result<OwnedMutexGuard<T>, TryLockError> {
        match self.s.try_acquire_raw(1) {
            Ok(()) => Ok(OwnedMutexGuard { lock: self }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// The data, through `&mut self`: no locking needed.
    pub fn get_mut(&mut self) -> &mut T {
        self.c.get_mut()
    }

    /// Consumes the mutex, returning the data.
    pub fn into_inner(self) -> T {
        self.c.into_inner()
    }

    /// The data; the caller holds the lock.
    fn data(&self) -> *mut T {
        self.c.with_mut(|p| p)
    }
}

impl<T: Default> Default for Mutex<T> {
    fn default() -> Mutex<T> {
        Mutex::new(T::default())
    }
}

impl<T> From<T> for Mutex<T> {
    fn from(value: T) -> Mutex<T> {
        Mutex::new(value)
    }
}

impl<T: fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Mutex");
        match self.try_lock() {
            Ok(guard) => d.field("data", &&*guard),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

/// Holds a [`Mutex`] locked; unlocks on drop (also when dropped by a panic's unwinding).
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct MutexGuard<'a, T> {
    lock: &'a Mutex<T>,
}

// SAFETY: `&MutexGuard` only gives `&T`, so sharing it needs `T: Sync` (the automatic impl,
// through `&Mutex<T>: Sync`, would ask only `T: Send`); `T: Send` as for the mutex itself.
unsafe impl<T: Send + Sync> Sync for MutexGuard<'_, T> {}

impl<'a, T> MutexGuard<'a, T> {
    /// The mutex this guard holds (used by `Condvar` to lock it again).
    pub fn mutex(this: &Self) -> &'a Mutex<T> {
        this.lock
    }

    /// Narrows the guard to a part of the data; the lock stays held by the result.
    pub fn map<U>(this: Self, f: impl FnOnce(&mut T) -> &mut U) -> MappedMutexGuard<'a, U> {
        let this = ManuallyDrop::new(this);
        // SAFETY: the guard holds the lock, which it now hands to the mapped guard.
        let data: *mut U = f(unsafe { &mut *this.lock.data() });
        MappedMutexGuard {
            s: &this.lock.s,
            data,
            _marker: PhantomData,
        }
    }
}

impl<T> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock, so no `&mut T` exists elsewhere.
        unsafe { &*self.lock.data() }
    }
}

impl<T> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock and `&mut self` makes this the only access.
        unsafe { &mut *self.lock.data() }
    }
}

impl<T> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.s.release(1);
    }
}

impl<T: fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// Holds a [`Mutex`] behind an `Arc` locked; `'static`, so it can move into a spawned task.
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct OwnedMutexGuard<T> {
    lock: Arc<Mutex<T>>,
}

// SAFETY: as for `MutexGuard`: `&OwnedMutexGuard` only gives `&T`.
unsafe impl<T: Send + Sync> Sync for OwnedMutexGuard<T> {}

impl<T> OwnedMutexGuard<T> {
    /// The mutex this guard holds.
    pub fn mutex(this: &Self) -> &Arc<Mutex<T>> {
        &this.lock
    }
}

impl<T> Deref for OwnedMutexGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock, so no `&mut T` exists elsewhere.
        unsafe { &*self.lock.data() }
    }
}

impl<T> DerefMut for OwnedMutexGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock and `&mut self` makes this the only access.
        unsafe { &mut *self.lock.data() }
    }
}

impl<T> Drop for OwnedMutexGuard<T> {
    fn drop(&mut self) {
        self.lock.s.release(1);
    }
}

impl<T: fmt::Debug> fmt::Debug for OwnedMutexGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// A [`MutexGuard`] narrowed by [`MutexGuard::map`] to a part of the data.
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct MappedMutexGuard<'a, T> {
    s: &'a Semaphore,
    data: *mut T,
    _marker: PhantomData<&'a mut T>,
}

// SAFETY: the guard is a `&mut T` plus the lock's permit, which any thread may release.
unsafe impl<T: Send> Send for MappedMutexGuard<'_, T> {}
// SAFETY: `&MappedMutexGuard` only gives `&T`.
unsafe impl<T: Send + Sync> Sync for MappedMutexGuard<'_, T> {}

impl<T> Deref for MappedMutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: `data` came from a locked guard whose lock this guard still holds.
        unsafe { &*self.data }
    }
}

impl<T> DerefMut for MappedMutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and `&mut self` makes this the only access.
        unsafe { &mut *self.data }
    }
}

impl<T> Drop for MappedMutexGuard<'_, T> {
    fn drop(&mut self) {
        self.s.release(1);
    }
}

impl<T: fmt::Debug> fmt::Debug for MappedMutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
