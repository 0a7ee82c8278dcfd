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
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
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
    /// Permits a writer takes: the most readers at once.
    max_reads: u32,
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
        RwLock::with_max_readers(value, MAX_READS)
    }

    /// Creates an unlocked lock that lets at most `max_reads` readers in at once.
    ///
    /// # Panics
    ///
    /// If `max_reads` is 0 or above [`MAX_READS`].
    #[track_caller]
    pub fn with_max_readers(value: T, max_reads: u32) -> RwLock<T> {
        assert!(max_reads > 0, "a RwLock may not be created with 0 readers");
        assert!(
            max_reads <= MAX_READS,
            "a RwLock may not be created with more than {MAX_READS} readers"
        );
        RwLock {
            s: Semaphore::new(max_reads as usize),
            max_reads,
            c: UnsafeCell::new(value),
        }
    }

    /// [`RwLock::new`] in a `const` context, e.g. for a `static`:
    /// `static CONFIG: RwLock<Option<String>> = RwLock::const_new(None);`. Not under loom.
    #[cfg(not(loom))]
    pub const fn const_new(value: T) -> RwLock<T> {
        RwLock {
            s: Semaphore::const_new(MAX_READS as usize),
            max_reads: MAX_READS,
            c: UnsafeCell::new(value),
        }
    }

    /// [`RwLock::with_max_readers`] in a `const` context, e.g. for a `static`. As tokio's
    /// `const_with_max_readers`.
    ///
    /// # Panics
    ///
    /// If `max_reads` is 0 or above [`MAX_READS`] (at compile time in a `const` or `static`).
    ///
    /// ```
    /// static LOCK: rt_sync::RwLock<u32> = rt_sync::RwLock::const_with_max_readers(5, 2);
    /// let a = LOCK.try_read().unwrap();
    /// let b = LOCK.try_read().unwrap();
    /// assert!(LOCK.try_read().is_err()); // two readers at most
    /// assert_eq!(*a + *b, 10);
    /// ```
    #[cfg(not(loom))]
    #[track_caller]
    pub const fn const_with_max_readers(value: T, max_reads: u32) -> RwLock<T> {
        assert!(max_reads > 0, "a RwLock may not be created with 0 readers");
        assert!(
            max_reads <= MAX_READS,
            "a RwLock may not be created with more than MAX_READS readers"
        );
        RwLock {
            s: Semaphore::const_new(max_reads as usize),
            max_reads,
            c: UnsafeCell::new(value),
        }
    }

    /// Waits for shared access, behind any writer queued earlier.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; the waiter leaves the queue (it loses its place in the fair order).
    pub async fn read(&self) -> RwLockReadGuard<'_, T> {
        self.acquire(1).await;
        RwLockReadGuard::new(&self.s, self.data())
    }

    /// Waits for exclusive access, FIFO with other readers and writers.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; the waiter leaves the queue (it loses its place in the fair order).
    pub async fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.acquire(self.max_reads).await;
        RwLockWriteGuard::new(&self.s, self.data(), self.max_reads)
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
        Ok(RwLockReadGuard::new(&self.s, self.data()))
    }

    /// Takes exclusive access if the lock is free and no one waits.
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        self.try_acquire(self.max_reads)?;
        Ok(RwLockWriteGuard::new(&self.s, self.data(), self.max_reads))
    }

    /// [`RwLock::try_read`] for a lock behind an `Arc`: the guard owns a clone.
    pub fn try_read_owned(self: Arc<Self>) -> Result<OwnedRwLockReadGuard<T>, TryLockError> {
        self.try_acquire(1)?;
        Ok(OwnedRwLockReadGuard::new(self))
    }

    /// [`RwLock::try_write`] for a lock behind an `Arc`: the guard owns a clone.
    pub fn try_write_owned(self: Arc<Self>) -> Result<OwnedRwLockWriteGuard<T>, TryLockError> {
        self.try_acquire(self.max_reads)?;
        Ok(OwnedRwLockWriteGuard::new(self))
    }

    /// [`RwLock::read`] for a lock behind an `Arc`: the guard owns a clone.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; the waiter leaves the queue.
    pub async fn read_owned(self: Arc<Self>) -> OwnedRwLockReadGuard<T> {
        self.acquire(1).await;
        OwnedRwLockReadGuard::new(self)
    }

    /// [`RwLock::write`] for a lock behind an `Arc`: the guard owns a clone.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; the waiter leaves the queue.
    pub async fn write_owned(self: Arc<Self>) -> OwnedRwLockWriteGuard<T> {
        self.acquire(self.max_reads).await;
        OwnedRwLockWriteGuard::new(self)
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

/// Shared access to an [`RwLock`] (or to part of its data, after [`RwLockReadGuard::map`]);
/// released on drop.
#[must_use = "dropping the guard releases the lock at once"]
pub struct RwLockReadGuard<'a, T: ?Sized> {
    s: &'a Semaphore,
    /// Valid for reads while the guard holds its one permit.
    data: *const T,
    _marker: PhantomData<&'a T>,
}

// SAFETY: the guard only gives `&T`: sending or sharing it shares `T` (`T: Sync`); the permit it
// releases on drop may be released from any thread.
unsafe impl<T: ?Sized + Sync> Send for RwLockReadGuard<'_, T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Sync> Sync for RwLockReadGuard<'_, T> {}

impl<'a, T: ?Sized> RwLockReadGuard<'a, T> {
    fn new(s: &'a Semaphore, data: *const T) -> Self {
        RwLockReadGuard {
            s,
            data,
            _marker: PhantomData,
        }
    }

    map_fns!(ref
        /// Narrows the guard to a part of the data (tokio's `RwLockReadGuard::map`); the lock
        /// stays held for reading until the new guard drops.
        fn map,
        /// [`RwLockReadGuard::map`] that may fail: `Err` gives the guard back unchanged.
        fn try_map,
        <U> T => RwLockReadGuard<'a, U>,
        |this, data| RwLockReadGuard::new(ManuallyDrop::new(this).s, data)
    );
}

/// Exclusive access to an [`RwLock`]; released on drop. [`RwLockWriteGuard::downgrade`] turns it
/// into a read guard without letting a writer in between.
#[must_use = "dropping the guard releases the lock at once"]
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    s: &'a Semaphore,
    /// Valid for reads and writes while the guard holds `permits`.
    data: *mut T,
    /// Every permit of the lock (its `max_reads`).
    permits: u32,
    _marker: PhantomData<&'a mut T>,
}

/// Exclusive access to part of an [`RwLock`]'s data ([`RwLockWriteGuard::map`]); released on
/// drop. Unlike a write guard it cannot be downgraded (the rest of the data is out of reach).
#[must_use = "dropping the guard releases the lock at once"]
pub struct RwLockMappedWriteGuard<'a, T: ?Sized> {
    s: &'a Semaphore,
    /// Valid for reads and writes while the guard holds `permits`.
    data: *mut T,
    permits: u32,
    _marker: PhantomData<&'a mut T>,
}

// SAFETY: the guard gives `&mut T` on whichever thread holds it (`T: Send`) and `&T` to those it
// is shared with (`T: Sync`).
unsafe impl<T: ?Sized + Send + Sync> Send for RwLockWriteGuard<'_, T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLockWriteGuard<'_, T> {}
// SAFETY: as for `RwLockWriteGuard`.
unsafe impl<T: ?Sized + Send + Sync> Send for RwLockMappedWriteGuard<'_, T> {}
// SAFETY: as for `RwLockWriteGuard`.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLockMappedWriteGuard<'_, T> {}

impl<'a, T: ?Sized> RwLockWriteGuard<'a, T> {
    fn new(s: &'a Semaphore, data: *mut T, permits: u32) -> Self {
        RwLockWriteGuard {
            s,
            data,
            permits,
            _marker: PhantomData,
        }
    }

    map_fns!(mut
        /// Narrows the guard to a part of the data, still held for writing.
        fn map,
        /// [`RwLockWriteGuard::map`] that may fail: `Err` gives the guard back unchanged.
        fn try_map,
        <U> T => RwLockMappedWriteGuard<'a, U>,
        |this, data| {
            let this = ManuallyDrop::new(this);
            RwLockMappedWriteGuard::new(this.s, data, this.permits)
        }
    );

    /// The same guard as a mapped one (a type some code wants).
    pub fn into_mapped(this: Self) -> RwLockMappedWriteGuard<'a, T> {
        RwLockWriteGuard::map(this, |t| t)
    }

    /// Keeps read access and gives up write access at once: readers queued behind the writer
    /// get in, and no other writer can take the lock in between.
    pub fn downgrade(self) -> RwLockReadGuard<'a, T> {
        let this = ManuallyDrop::new(self);
        // Keep one permit (the read guard's), release the rest.
        this.s.release(this.permits as usize - 1);
        RwLockReadGuard::new(this.s, this.data)
    }

    map_fns!(ref
        /// [`RwLockWriteGuard::downgrade`] to a part of the data.
        fn downgrade_map,
        /// [`RwLockWriteGuard::downgrade_map`] that may fail: `Err` gives the write guard back.
        fn try_downgrade_map,
        <U> T => RwLockReadGuard<'a, U>,
        |this, data| RwLockReadGuard::new(ManuallyDrop::new(this.downgrade()).s, data)
    );
}

impl<'a, T: ?Sized> RwLockMappedWriteGuard<'a, T> {
    fn new(s: &'a Semaphore, data: *mut T, permits: u32) -> Self {
        RwLockMappedWriteGuard {
            s,
            data,
            permits,
            _marker: PhantomData,
        }
    }

    map_fns!(mut
        /// Narrows the guard further.
        fn map,
        /// [`RwLockMappedWriteGuard::map`] that may fail: `Err` gives the guard back unchanged.
        fn try_map,
        <U> T => RwLockMappedWriteGuard<'a, U>,
        |this, data| {
            let this = ManuallyDrop::new(this);
            RwLockMappedWriteGuard::new(this.s, data, this.permits)
        }
    );
}

/// Shared access to an [`RwLock`] behind an `Arc` (to its data `T`, or to a part `U` of it after
/// [`OwnedRwLockReadGuard::map`]); released on drop.
#[must_use = "dropping the guard releases the lock at once"]
pub struct OwnedRwLockReadGuard<T, U: ?Sized = T> {
    lock: Arc<RwLock<T>>,
    /// Valid for reads while the guard holds its one permit.
    data: *const U,
    _marker: PhantomData<U>,
}

// SAFETY: the guard owns an `Arc<RwLock<T>>` (sendable when `T: Send + Sync`) and gives `&U`.
unsafe impl<T: Send + Sync, U: ?Sized + Sync> Send for OwnedRwLockReadGuard<T, U> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync, U: ?Sized + Sync> Sync for OwnedRwLockReadGuard<T, U> {}

impl<T> OwnedRwLockReadGuard<T> {
    fn new(lock: Arc<RwLock<T>>) -> Self {
        let data = lock.data();
        OwnedRwLockReadGuard {
            lock,
            data,
            _marker: PhantomData,
        }
    }
}

impl<T, U: ?Sized> OwnedRwLockReadGuard<T, U> {
    into_lock!(Arc<RwLock<T>>);

    map_fns!(ref
        /// Narrows the guard to a part of the data; the lock stays held for reading.
        fn map,
        /// [`OwnedRwLockReadGuard::map`] that may fail: `Err` gives the guard back unchanged.
        fn try_map,
        <V> U => OwnedRwLockReadGuard<T, V>,
        |this, data| OwnedRwLockReadGuard {
            lock: OwnedRwLockReadGuard::into_lock(this),
            data,
            _marker: PhantomData,
        }
    );

    /// The lock this guard holds.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

/// Exclusive access to an [`RwLock`] behind an `Arc`; released on drop.
#[must_use = "dropping the guard releases the lock at once"]
pub struct OwnedRwLockWriteGuard<T> {
    lock: Arc<RwLock<T>>,
    /// Valid for reads and writes while the guard holds every permit.
    data: *mut T,
}

/// Exclusive access to part `U` of the data of an [`RwLock`] behind an `Arc`
/// ([`OwnedRwLockWriteGuard::map`]); released on drop.
#[must_use = "dropping the guard releases the lock at once"]
pub struct OwnedRwLockMappedWriteGuard<T, U: ?Sized = T> {
    lock: Arc<RwLock<T>>,
    /// Valid for reads and writes while the guard holds every permit.
    data: *mut U,
    _marker: PhantomData<U>,
}

// SAFETY: the guard owns an `Arc<RwLock<T>>` and gives `&mut T` on whichever thread holds it.
unsafe impl<T: Send + Sync> Send for OwnedRwLockWriteGuard<T> {}
// SAFETY: as above; sharing it shares `&T`.
unsafe impl<T: Send + Sync> Sync for OwnedRwLockWriteGuard<T> {}
// SAFETY: as for `OwnedRwLockWriteGuard`, for the part `U`.
unsafe impl<T: Send + Sync, U: ?Sized + Send + Sync> Send for OwnedRwLockMappedWriteGuard<T, U> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync, U: ?Sized + Send + Sync> Sync for OwnedRwLockMappedWriteGuard<T, U> {}

impl<T> OwnedRwLockWriteGuard<T> {
    fn new(lock: Arc<RwLock<T>>) -> Self {
        let data = lock.data();
        OwnedRwLockWriteGuard { lock, data }
    }

    into_lock!(Arc<RwLock<T>>);

    map_fns!(mut
        /// Narrows the guard to a part of the data, still held for writing.
        fn map,
        /// [`OwnedRwLockWriteGuard::map`] that may fail: `Err` gives the guard back unchanged.
        fn try_map,
        <U> T => OwnedRwLockMappedWriteGuard<T, U>,
        |this, data| OwnedRwLockMappedWriteGuard {
            lock: OwnedRwLockWriteGuard::into_lock(this),
            data,
            _marker: PhantomData,
        }
    );

    /// The same guard as a mapped one.
    pub fn into_mapped(this: Self) -> OwnedRwLockMappedWriteGuard<T> {
        OwnedRwLockWriteGuard::map(this, |t| t)
    }

    /// Keeps read access and gives up write access at once; see [`RwLockWriteGuard::downgrade`].
    pub fn downgrade(self) -> OwnedRwLockReadGuard<T> {
        let lock = OwnedRwLockWriteGuard::into_lock(self);
        lock.s.release(lock.max_reads as usize - 1);
        OwnedRwLockReadGuard::new(lock)
    }

    map_fns!(ref
        /// [`OwnedRwLockWriteGuard::downgrade`] to a part of the data.
        fn downgrade_map,
        /// [`OwnedRwLockWriteGuard::downgrade_map`] that may fail: `Err` gives the write guard
        /// back.
        fn try_downgrade_map,
        <U> T => OwnedRwLockReadGuard<T, U>,
        |this, data| OwnedRwLockReadGuard {
            lock: OwnedRwLockReadGuard::into_lock(this.downgrade()),
            data,
            _marker: PhantomData,
        }
    );

    /// The lock this guard holds.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

impl<T, U: ?Sized> OwnedRwLockMappedWriteGuard<T, U> {
    into_lock!(Arc<RwLock<T>>);

    map_fns!(mut
        /// Narrows the guard further.
        fn map,
        /// [`OwnedRwLockMappedWriteGuard::map`] that may fail: `Err` gives the guard back
        /// unchanged.
        fn try_map,
        <V> U => OwnedRwLockMappedWriteGuard<T, V>,
        |this, data| OwnedRwLockMappedWriteGuard {
            lock: OwnedRwLockMappedWriteGuard::into_lock(this),
            data,
            _marker: PhantomData,
        }
    );

    /// The lock this guard holds.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

guard_impls!(['a, T: ?Sized] RwLockReadGuard<'a, T> => T, |g| g.data, release g.s.release(1));
guard_impls!(['a, T: ?Sized] RwLockWriteGuard<'a, T> => T, |g| g.data, release g.s.release(g.permits as usize));
guard_impls!(['a, T: ?Sized] RwLockMappedWriteGuard<'a, T> => T, |g| g.data, release g.s.release(g.permits as usize));
guard_impls!([T, U: ?Sized] OwnedRwLockReadGuard<T, U> => U, |g| g.data, release g.lock.s.release(1));
guard_impls!([T] OwnedRwLockWriteGuard<T> => T, |g| g.data, release g.lock.s.release(g.lock.max_reads as usize));
guard_impls!([T, U: ?Sized] OwnedRwLockMappedWriteGuard<T, U> => U, |g| g.data, release g.lock.s.release(g.lock.max_reads as usize));
guard_mut!(['a, T: ?Sized] RwLockWriteGuard<'a, T> => T, |g| g.data);
guard_mut!(['a, T: ?Sized] RwLockMappedWriteGuard<'a, T> => T, |g| g.data);
guard_mut!([T] OwnedRwLockWriteGuard<T> => T, |g| g.data);
guard_mut!([T, U: ?Sized] OwnedRwLockMappedWriteGuard<T, U> => U, |g| g.data);
