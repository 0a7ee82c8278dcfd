//! A fair async reader-writer lock, built on the [`Semaphore`] as tokio's is.
//!
//! The semaphore holds [`MAX_READS`] permits: a reader takes one, a writer takes all of them. The
//! semaphore's strict FIFO does the rest: a writer queued at the head collects permits as readers
//! leave and blocks every reader queued behind it, so writers do not starve, and readers queued
//! behind a writer get in together once it leaves.

pub use crate::mutex::TryLockError;
use crate::semaphore::Semaphore;
use rt_core::sync::UnsafeCell;
use std::fmt;
use std::ops::{Deref, DerefMut};
// A user-owned `Arc` receiver must be std's: see `rt_core::sync::StdArc`.
use rt_core::sync::StdArc as Arc;

/// The most readers that may hold the lock at once (the writer takes all of them).
pub const MAX_READS: u32 = u32::MAX >> 3;

/// An async reader-writer lock, FIFO between readers and writers.
///
/// ```
/// # use rt_core::test_support::block_on;
/// use rt_sync::rwlock::RwLock;
///
/// let lock = RwLock::new(5);
/// block_on(async {
///     let (a, b) = (lock.read().await, lock.read().await);
///     assert_eq!(*a + *b, 10);
///     assert!(lock.try_write().is_err());
///     drop((a, b));
///     *lock.write().await += 1;
///     assert_eq!(*lock.read().await, 6);
/// });
/// ```
pub struct RwLock<T> {
    s: Semaphore,
    c: UnsafeCell<T>,
}

// SAFETY: the lock owns a `T`.
unsafe impl<T: Send> Send for RwLock<T> {}
// SAFETY: readers share `&T` across threads (`T: Sync`); a writer gets `&mut T` on any thread
// (`T: Send`); the semaphore keeps them apart.
unsafe impl<T: Send + Sync> Sync for RwLock<T> {}

impl<T> RwLock<T> {
    /// Creates an unlocked lock holding `value`.
    pub fn new(value: T) -> RwLock<T> {
        RwLock {
            s: Semaphore::new(MAX_READS as usize),
            c: UnsafeCell::new(value),
        }
    }

    /// [`RwLock::new`] in a `const` context, e.g. for a `static`:
    /// `static CONFIG: RwLock<Option<String>> = RwLock::const_new(None);`. Not under loom.
    #[cfg(not(loom))]
    pub const fn const_new(value: T) -> RwLock<T> {
        RwLock {
            s: Semaphore::const_new(MAX_READS as usize),
            c: UnsafeCell::new(value),
        }
    }

    /// Waits for shared access, behind any writer queued earlier.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; the waiter leaves the queue (it loses its place in the fair order).
    pub async fn read(&self) -> RwLockReadGuard<'_, T> {
        self.acquire(1).await;
        RwLockReadGuard { lock: self }
    }

    /// Waits for exclusive access, FIFO with other readers and writers.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; the waiter leaves the queue (it loses its place in the fair order).
    pub async fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.acquire(MAX_READS).await;
        RwLockWriteGuard { lock: self }
    }

    /// [`RwLock::read`] for synchronous code: parks this thread until shared access is
    /// granted (tokio's `blocking_read`).
    ///
    /// # Panics
    /// On a runtime worker thread or inside `block_on` (it would block the thread that drives
    /// tasks): `.await` `read()` there instead, or call this from `spawn_blocking`.
    #[track_caller]
    pub fn blocking_read(&self) -> RwLockReadGuard<'_, T> {
        crate::block_on::block_on("RwLock::blocking_read", self.read())
    }

    /// [`RwLock::write`] for synchronous code: parks this thread until exclusive access is
    /// granted (tokio's `blocking_write`).
    ///
    /// # Panics
    /// On a runtime worker thread or inside `block_on` (it would block the thread that drives
    /// tasks): `.await` `write()` there instead, or call this from `spawn_blocking`.
    #[track_caller]
    pub fn blocking_write(&self) -> RwLockWriteGuard<'_, T> {
        crate::block_on::block_on("RwLock::blocking_write", self.write())
    }

    /// Takes shared access if no writer holds or awaits the lock.
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        self.try_acquire(1)?;
        Ok(RwLockReadGuard { lock: self })
    }

    /// Takes exclusive access if the lock is free and no one waits.
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        self.try_acquire(MAX_READS)?;
        Ok(RwLockWriteGuard { lock: self })
    }

    /// [`RwLock::read`] for a lock behind an `Arc`: the guard owns a clone.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; the waiter leaves the queue.
    pub async fn read_owned(self: Arc<Self>) -> OwnedRwLockReadGuard<T> {
        self.acquire(1).await;
        OwnedRwLockReadGuard { lock: self }
    }

    /// [`RwLock::write`] for a lock behind an `Arc`: the guard owns a clone.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; the waiter leaves the queue.
    pub async fn write_owned(self: Arc<Self>) -> OwnedRwLockWriteGuard<T> {
        self.acquire(MAX_READS).await;
        OwnedRwLockWriteGuard { lock: self }
    }

    /// The data, through `&mut self`: no locking needed.
    pub fn get_mut(&mut self) -> &mut T {
        self.c.get_mut()
    }

    /// Consumes the lock, returning the data.
    pub fn into_inner(self) -> T {
        self.c.into_inner()
    }

    async fn acquire(&self, n: u32) {
        if self.s.acquire_raw(n as usize).await.is_err() {
            unreachable!("an rwlock's semaphore is never closed");
        }
    }

    fn try_acquire(&self, n: u32) -> Result<(), TryLockError> {
        self.s
            .try_acquire_raw(n as usize)
            .map_err(|_| TryLockError(()))
    }

    fn data(&self) -> *mut T {
        self.c.with_mut(|p| p)
    }
}

impl<T: Default> Default for RwLock<T> {
    fn default() -> RwLock<T> {
        RwLock::new(T::default())
    }
}

impl<T: fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RwLock");
        match self.try_read() {
            Ok(guard) => d.field("data", &&*guard),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

macro_rules! guard {
    ($(#[$doc:meta])* $name:ident [$($gen:tt)*], $lock:ty, $permits:expr) => {
        $(#[$doc])*
        #[must_use = "dropping the guard releases the lock at once"]
        pub struct $name<$($gen)*> {
            lock: $lock,
        }

        impl<$($gen)*> Deref for $name<$($gen)*> {
            type Target = T;
            fn deref(&self) -> &T {
                // SAFETY: the guard holds read or write permits: no `&mut T` exists elsewhere.
                unsafe { &*self.lock.data() }
            }
        }

        impl<$($gen)*> Drop for $name<$($gen)*> {
            fn drop(&mut self) {
                self.lock.s.release($permits as usize);
            }
        }

        impl<$($gen)*> fmt::Debug for $name<$($gen)*>
        where
            T: fmt::Debug,
        {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&**self, f)
            }
        }
    };
}

guard!(
    /// Shared access to an [`RwLock`]; released on drop.
    RwLockReadGuard['a, T], &'a RwLock<T>, 1
);
guard!(
    /// Exclusive access to an [`RwLock`]; released on drop.
    RwLockWriteGuard['a, T], &'a RwLock<T>, MAX_READS
);
guard!(
    /// Shared access to an [`RwLock`] behind an `Arc`; released on drop.
    OwnedRwLockReadGuard[T], Arc<RwLock<T>>, 1
);
guard!(
    /// Exclusive access to an [`RwLock`] behind an `Arc`; released on drop.
    OwnedRwLockWriteGuard[T], Arc<RwLock<T>>, MAX_READS
);

impl<T> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds every permit, so this is the only access.
        unsafe { &mut *self.lock.data() }
    }
}

impl<T> DerefMut for OwnedRwLockWriteGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds every permit, so this is the only access.
        unsafe { &mut *self.lock.data() }
    }
}
