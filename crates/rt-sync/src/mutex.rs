//! An eventually fair async mutex: barging allowed, a direct hand-off once the oldest waiter has
//! waited longer than a bound.
//!
//! A strictly FIFO mutex hands the lock to a sleeping waiter on every contended unlock, so every
//! lock under contention pays a wake-up (15–20 µs on a loaded machine) during which nobody holds it.
//! This one lets a running task take a free lock ahead of the queue (*barging*) and only passes
//! the lock straight to the oldest waiter once that waiter has waited [`DEFAULT_FAIRNESS_BOUND`]
//! (0.5 ms; [`Mutex::with_fairness_bound`] sets another). Throughput is that of an unfair lock; no
//! waiter waits much longer than the bound plus the critical sections queued in front of it. This
//! is Go's starvation mode and `parking_lot`'s eventual fairness, decided per waiter.
//!
//! No poisoning (tokio semantics): a task that panics while holding the guard releases the lock as
//! the guard is dropped during unwinding; the data is left as the panicking code left it.
//!
//! # The protocol
//!
//! One atomic word (below) and an intrusive FIFO list of waiters (`waiters.rs`) behind a short
//! lock. Lock and unlock without waiters are one CAS each and do not touch the list's lock.
//!
//! 1. **Lock, fast path.** CAS `LOCKED` in if it is clear, whatever `WAITERS` says (barging).
//! 2. **Lock, slow path.** Under the list's lock, CAS again: take the lock if `LOCKED` is clear,
//!    else set `WAITERS` and queue the node (it lives in the pinned `Lock` future) at the back with
//!    its waker and the time it queued.
//! 3. **Unlock, fast path.** If `WAITERS` is clear, CAS `LOCKED` out.
//! 4. **Unlock, slow path**, under the list's lock, looking at the head waiter:
//!    - **hand-off** if it has waited at least the bound: unlink it, take its waker, then store
//!      `granted` (`Release`, the unlocker's last access to the node). `LOCKED` is never cleared,
//!      so nobody can barge in between; `WAITERS` is cleared if the list became empty.
//!    - **wake** otherwise: clear `LOCKED` and wake the head if it holds a waker (a head already
//!      woken and not yet polled holds none: one wake-up in flight at a time). The woken head
//!      competes with bargers; if it loses it stays at the head, keeping its queueing time, so the
//!      bound is measured from when it first queued.
//! 5. **A queued waiter polled again** reads `granted` (`Acquire`) without the lock; if unset it
//!    takes the list's lock, takes the lock if `LOCKED` is clear (and unlinks itself), or else puts
//!    its waker back and stays queued.
//! 6. **Cancel.** Dropping a granted `Lock` unlocks (rule 4 passes the lock on). Dropping a queued
//!    one unlinks it under the list's lock; if it had been woken (rule 4, "wake") and the lock is
//!    free, it wakes the new head, so the wake-up it consumed is not lost.
//! 7. **Budget.** A poll whose cooperative budget is spent takes no lock: it wakes its task and
//!    returns `Pending` (a yield), a queued waiter keeping its place. But a fresh `Lock` that
//!    finds the lock held queues as in rule 2, without waking its task, so a task out of budget
//!    still waits in its turn and is woken by an unlock (tokio checks the budget only after
//!    queueing). tokio also takes a *free* lock out of budget and holds it across the yield;
//!    rt leaves it free, so other tasks do not queue behind a holder that is not running.
//!
//! Invariants, each changed only under the list's lock:
//! - I1. `WAITERS` is set if and only if the list is non-empty.
//! - I2. A queued waiter either holds its waker, or a wake-up is on its way to it (or it is
//!   granted). So while the lock is free and the list non-empty, the head is awake or about to be:
//!   no lost wake-up. (Rules 2 and 5 register the waker under the same lock rule 4 takes it under,
//!   and the fast unlock path never runs while the list is non-empty, by I1.)
//!
//! Under `cfg(loom)` [`Mutex::new`] uses no time bound (wake, never hand-off by age), because a
//! model must not depend on the wall clock; the models set the bound explicitly (zero: always hand
//! off; none: never), which runs the same code.
//!
//! # State word
//!
//! ```text
//!  usize
//!  +---------------------------------------------------------+---------+--------+
//!  |                        unused (0)                       | WAITERS | LOCKED |
//!  +---------------------------------------------------------+---------+--------+
//!                                                              bit 1     bit 0
//! ```
//!
//! - `LOCKED`: set by a locker (rule 1, 2 or 5), cleared by an unlock (rule 3 or 4 "wake"); kept set
//!   across a hand-off (rule 4), which moves ownership without a free instant.
//! - `WAITERS`: set only under the list's lock by a queueing locker (rule 2); cleared only under it
//!   by whoever empties the list (a hand-off, a waiter that takes the lock, a cancel).
//!
//! This file owns that layout; nothing else masks these bits. [`RwLock`](crate::rwlock::RwLock)
//! and [`Semaphore`] stay strictly FIFO.
//!
//! # An eventually fair `Mutex`
//!
//! `rt::sync::Mutex` lets a running task take a free lock even while others wait (barging), and an
//! unlock hands the lock straight to the oldest waiter once that waiter has waited 0.5 ms
//! (`rt::sync::mutex::DEFAULT_FAIRNESS_BOUND`) — Go's starvation mode, `parking_lot`'s eventual
//! fairness. Under contention the lock no longer pays a wake-up per unlock, and no waiter waits
//! much longer than the bound plus the critical sections queued ahead of it. tokio's mutex is
//! strictly FIFO; `Mutex::with_fairness_bound` picks another bound (`Some(Duration::ZERO)`: strictly
//! FIFO, `None`: never hand off). `RwLock` and `Semaphore` stay strictly FIFO.
//!
//! ```rust
//! use rt::sync::Mutex;
//! use std::sync::Arc;
//! use std::time::Duration;
//!
//! # rt::Runtime::new()?.block_on(async {
//! let counter = Arc::new(Mutex::new(0u64));
//! let tasks: Vec<_> = (0..8)
//!     .map(|_| {
//!         let counter = counter.clone();
//!         rt::spawn(async move {
//!             for _ in 0..1_000 {
//!                 *counter.lock().await += 1;
//!             }
//!         })
//!     })
//!     .collect();
//! for t in tasks {
//!     t.await.unwrap();
//! }
//! assert_eq!(*counter.lock().await, 8_000);
//!
//! // A strictly FIFO lock, as tokio's: every contended unlock hands off to the oldest waiter.
//! let fifo = Mutex::with_fairness_bound(0, Some(Duration::ZERO));
//! *fifo.lock().await += 1;
//! # });
//! # Ok::<(), std::io::Error>(())
//! ```

#[cfg(doc)]
use crate::semaphore::Semaphore;
use crate::waiters::{set_waker, List, Node};
use rt_core::coop;
use rt_core::sync::{AtomicBool, AtomicUsize, Mutex as ListLock, MutexGuard as ListGuard};
use rt_core::sync::{Ordering, UnsafeCell};
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::pin::Pin;
use std::ptr::NonNull;
// A user-owned `Arc` receiver must be std's: see `rt_core::sync::StdArc`.
use rt_core::sync::StdArc as Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// The lock is held.
const LOCKED: usize = 0b01;
/// The waiter list is non-empty (invariant I1).
const WAITERS: usize = 0b10;

pub use crate::tuning::DEFAULT_FAIRNESS_BOUND;

/// "No bound": never hand off by age.
const NO_BOUND: u64 = u64::MAX;

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
///
/// # Fairness
///
/// Eventually fair: a task that finds the lock free takes it even while others wait (barging),
/// and an unlock hands the lock directly to the oldest waiter once it has waited
/// [`DEFAULT_FAIRNESS_BOUND`] (0.5 ms). So no waiter starves, and under contention the lock does not
/// pay a wake-up per unlock as a strictly FIFO lock does. See [`Mutex::with_fairness_bound`].
pub struct Mutex<T> {
    raw: RawMutex,
    c: UnsafeCell<T>,
}

/// The lock itself, without the data: the state word, the waiters and the fairness bound.
struct RawMutex {
    state: AtomicUsize,
    waiters: ListLock<List<Waiter>>,
    /// Nanoseconds the head waiter waits before an unlock hands off to it; [`NO_BOUND`]: never.
    bound_ns: u64,
}

/// The per-waiter data in a queued `Lock`'s node.
struct Waiter {
    /// Set by a hand-off (rule 4) as the unlocker's last access to the node (`Release`); the owner
    /// may read it without the list's lock (`Acquire`) and then owns the lock.
    granted: AtomicBool,
    /// Guarded by the list's lock. `None` while a wake-up is on its way (rule 4, I2).
    waker: UnsafeCell<Option<Waker>>,
    /// When the waiter queued. Guarded by the list's lock.
    since: UnsafeCell<Option<Instant>>,
}

// SAFETY: `waker` and `since` are only accessed under the list's lock; `granted` is atomic.
unsafe impl Sync for Waiter {}

// SAFETY: the mutex owns a `T`; moving it moves the `T`.
unsafe impl<T: Send> Send for Mutex<T> {}
// SAFETY: the lock word's `LOCKED` bit serialises all access to the cell, so sharing the mutex
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
        #[cfg(not(loom))]
        let bound = Some(DEFAULT_FAIRNESS_BOUND);
        // Models must not depend on the wall clock (module docs).
        #[cfg(loom)]
        let bound = None;
        Mutex::with_fairness_bound(value, bound)
    }

    /// [`Mutex::new`] in a `const` context, e.g. for a `static`:
    /// `static STATE: Mutex<Vec<u32>> = Mutex::const_new(Vec::new());`. Same fairness bound
    /// ([`DEFAULT_FAIRNESS_BOUND`]). Not under loom (its primitives have no `const`
    /// constructors), as in tokio.
    #[cfg(not(loom))]
    pub const fn const_new(value: T) -> Mutex<T> {
        Mutex {
            raw: RawMutex {
                state: AtomicUsize::new(0),
                waiters: ListLock::new(List::new()),
                bound_ns: DEFAULT_FAIRNESS_BOUND.as_nanos() as u64,
            },
            c: UnsafeCell::new(value),
        }
    }

    /// Creates an unlocked mutex whose unlock hands the lock to the oldest waiter once it has
    /// waited `bound` (`None`: never, an unfair lock; `Some(Duration::ZERO)`: always, a strictly
    /// FIFO lock with no barging). [`Mutex::new`] uses [`DEFAULT_FAIRNESS_BOUND`]. tokio has no
    /// such knob: its mutex is always strictly FIFO.
    ///
    /// ```
    /// # use rt_core::test_support::block_on;
    /// use rt_sync::mutex::Mutex;
    /// use std::time::Duration;
    ///
    /// let fifo = Mutex::with_fairness_bound(0, Some(Duration::ZERO));
    /// block_on(async { *fifo.lock().await += 1 });
    /// assert_eq!(fifo.into_inner(), 1);
    /// ```
    pub fn with_fairness_bound(value: T, bound: Option<Duration>) -> Mutex<T> {
        let bound_ns = bound.map_or(NO_BOUND, |b| {
            u64::try_from(b.as_nanos()).unwrap_or(NO_BOUND)
        });
        Mutex {
            raw: RawMutex {
                state: AtomicUsize::new(0),
                waiters: ListLock::new(List::new()),
                bound_ns,
            },
            c: UnsafeCell::new(value),
        }
    }

    /// Waits for the lock. Eventually fair (see [`Mutex`]): a free lock is taken at once, even
    /// ahead of waiters; a waiter that has waited the fairness bound is handed the lock directly.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; the waiter leaves the
    /// queue, and a lock already handed to it passes on.
    pub async fn lock(&self) -> MutexGuard<'_, T> {
        self.raw.lock().await;
        MutexGuard { lock: self }
    }

    /// Takes the lock if it is free (even while others wait: barging, as [`Mutex::lock`]'s fast
    /// path; with a zero fairness bound the lock is never free while others wait).
    pub fn try_lock(&self) -> Result<MutexGuard<'_, T>, TryLockError> {
        if self.raw.try_lock() {
            Ok(MutexGuard { lock: self })
        } else {
            Err(TryLockError(()))
        }
    }

    /// [`Mutex::lock`] for a mutex behind an `Arc`: the guard owns a clone and is `'static`.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; the waiter leaves the queue.
    pub async fn lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        self.raw.lock().await;
        OwnedMutexGuard { lock: self }
    }

    /// [`Mutex::lock`] for synchronous code: parks this thread until the lock is taken (tokio's
    /// `blocking_lock`).
    ///
    /// # Panics
    /// On a runtime worker thread or inside `block_on` (it would block the thread that drives
    /// tasks): `.await` `lock()` there instead, or call this from `spawn_blocking`.
    #[track_caller]
    pub fn blocking_lock(&self) -> MutexGuard<'_, T> {
        crate::block_on::block_on("Mutex::blocking_lock", self.lock())
    }

    /// [`Mutex::blocking_lock`] for a mutex behind an `Arc`: the guard owns a clone.
    ///
    /// # Panics
    /// On a runtime worker thread or inside `block_on` (it would block the thread that drives
    /// tasks): `.await` `lock_owned()` there instead, or call this from `spawn_blocking`.
    #[track_caller]
    pub fn blocking_lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        crate::block_on::block_on("Mutex::blocking_lock_owned", self.lock_owned())
    }

    /// [`Mutex::try_lock`] for a mutex behind an `Arc`.
    pub fn try_lock_owned(self: Arc<Self>) -> Result<OwnedMutexGuard<T>, TryLockError> {
        if self.raw.try_lock() {
            Ok(OwnedMutexGuard { lock: self })
        } else {
            Err(TryLockError(()))
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

    map_fns!(mut
        /// Narrows the guard to a part of the data; the lock stays held by the result.
        fn map,
        /// [`MutexGuard::map`] that may fail: `Err` gives the guard back unchanged.
        fn try_map,
        <U> T => MappedMutexGuard<'a, U>,
        |this, data| {
            let this = ManuallyDrop::new(this);
            MappedMutexGuard {
                raw: &this.lock.raw,
                data,
                _marker: PhantomData,
            }
        }
    );
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

    into_lock!(Arc<Mutex<T>>);

    map_fns!(mut
        /// Narrows the guard to a part of the data; the lock stays held by the result.
        fn map,
        /// [`OwnedMutexGuard::map`] that may fail: `Err` gives the guard back unchanged.
        fn try_map,
        <U> T => OwnedMappedMutexGuard<T, U>,
        |this, data| OwnedMappedMutexGuard {
            lock: OwnedMutexGuard::into_lock(this),
            data,
            _marker: PhantomData,
        }
    );
}

/// A [`MutexGuard`] narrowed by [`MutexGuard::map`] to a part of the data.
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct MappedMutexGuard<'a, T: ?Sized> {
    raw: &'a RawMutex,
    data: *mut T,
    _marker: PhantomData<&'a mut T>,
}

// SAFETY: the guard is a `&mut T` plus the held lock, which any thread may unlock.
unsafe impl<T: ?Sized + Send> Send for MappedMutexGuard<'_, T> {}
// SAFETY: `&MappedMutexGuard` only gives `&T`.
unsafe impl<T: ?Sized + Send + Sync> Sync for MappedMutexGuard<'_, T> {}

impl<'a, T: ?Sized> MappedMutexGuard<'a, T> {
    map_fns!(mut
        /// Narrows the guard further.
        fn map,
        /// [`MappedMutexGuard::map`] that may fail: `Err` gives the guard back unchanged.
        fn try_map,
        <U> T => MappedMutexGuard<'a, U>,
        |this, data| {
            let this = ManuallyDrop::new(this);
            MappedMutexGuard {
                raw: this.raw,
                data,
                _marker: PhantomData,
            }
        }
    );
}

/// An [`OwnedMutexGuard`] narrowed by [`OwnedMutexGuard::map`] to a part `U` of the data.
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct OwnedMappedMutexGuard<T, U: ?Sized = T> {
    lock: Arc<Mutex<T>>,
    data: *mut U,
    _marker: PhantomData<U>,
}

// SAFETY: the guard owns an `Arc<Mutex<T>>` (sendable when `T: Send`) and is a `&mut U` plus
// the held lock, which any thread may unlock.
unsafe impl<T: Send, U: ?Sized + Send> Send for OwnedMappedMutexGuard<T, U> {}
// SAFETY: `&OwnedMappedMutexGuard` only gives `&U`.
unsafe impl<T: Send + Sync, U: ?Sized + Send + Sync> Sync for OwnedMappedMutexGuard<T, U> {}

impl<T, U: ?Sized> OwnedMappedMutexGuard<T, U> {
    /// The mutex this guard holds.
    pub fn mutex(this: &Self) -> &Arc<Mutex<T>> {
        &this.lock
    }

    into_lock!(Arc<Mutex<T>>);

    map_fns!(mut
        /// Narrows the guard further.
        fn map,
        /// [`OwnedMappedMutexGuard::map`] that may fail: `Err` gives the guard back unchanged.
        fn try_map,
        <V> U => OwnedMappedMutexGuard<T, V>,
        |this, data| OwnedMappedMutexGuard {
            lock: OwnedMappedMutexGuard::into_lock(this),
            data,
            _marker: PhantomData,
        }
    );
}

guard_impls!(['a, T] MutexGuard<'a, T> => T, |g| g.lock.data(), release g.lock.raw.unlock());
guard_impls!([T] OwnedMutexGuard<T> => T, |g| g.lock.data(), release g.lock.raw.unlock());
guard_impls!(['a, T: ?Sized] MappedMutexGuard<'a, T> => T, |g| g.data, release g.raw.unlock());
guard_impls!([T, U: ?Sized] OwnedMappedMutexGuard<T, U> => U, |g| g.data, release g.lock.raw.unlock());
guard_mut!(['a, T] MutexGuard<'a, T> => T, |g| g.lock.data());
guard_mut!([T] OwnedMutexGuard<T> => T, |g| g.lock.data());
guard_mut!(['a, T: ?Sized] MappedMutexGuard<'a, T> => T, |g| g.data);
guard_mut!([T, U: ?Sized] OwnedMappedMutexGuard<T, U> => U, |g| g.data);

impl RawMutex {
    /// Rule 1: takes the lock if `LOCKED` is clear, waiters or not.
    fn try_lock(&self) -> bool {
        let mut curr = self.state.load(Ordering::Relaxed);
        while curr & LOCKED == 0 {
            match self.state.compare_exchange_weak(
                curr,
                curr | LOCKED,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(actual) => curr = actual,
            }
        }
        false
    }

    fn lock(&self) -> Lock<'_> {
        Lock {
            raw: self,
            node: Node::new(Waiter {
                granted: AtomicBool::new(false),
                waker: UnsafeCell::new(None),
                since: UnsafeCell::new(None),
            }),
            queued: false,
        }
    }

    /// Rules 3 and 4.
    fn unlock(&self) {
        if self
            .state
            .compare_exchange(LOCKED, 0, Ordering::Release, Ordering::Relaxed)
            .is_err()
        {
            self.unlock_slow();
        }
    }

    /// Rule 4: with `WAITERS` seen set, hands the lock to the head or frees it and wakes the head.
    #[cold]
    fn unlock_slow(&self) {
        let mut list = self.list();
        let Some(head) = list.front() else {
            // The list emptied (and `WAITERS` cleared, I1) since the fast path looked.
            self.state.fetch_and(!LOCKED, Ordering::Release);
            return;
        };
        // SAFETY: linked nodes are live (rule 2 of waiters.rs) and we hold the list's lock.
        let waiter = unsafe { head.as_ref() }.value();
        // SAFETY: the waker and `since` cells are guarded by the lock we hold.
        let waker = waiter.waker.with_mut(|w| unsafe { (*w).take() });
        if self.waited_out(waiter) {
            list.pop_front();
            if list.is_empty() {
                self.state.fetch_and(!WAITERS, Ordering::Relaxed);
            }
            // Last access to the node: from here its owner may free it. `LOCKED` stays set.
            waiter.granted.store(true, Ordering::Release);
        } else {
            self.state.fetch_and(!LOCKED, Ordering::Release);
        }
        drop(list);
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Whether `waiter` (queued, the list's lock held) has waited the fairness bound.
    fn waited_out(&self, waiter: &Waiter) -> bool {
        match self.bound_ns {
            0 => true,
            NO_BOUND => false,
            bound => {
                // SAFETY: `since` is guarded by the list's lock, which the caller holds.
                let since = waiter.since.with_mut(|s| unsafe { *s });
                since.is_some_and(|s| s.elapsed().as_nanos() >= u128::from(bound))
            }
        }
    }

    fn list(&self) -> ListGuard<'_, List<Waiter>> {
        // Nothing panics with the list's lock held: a poisoned lock is still sound to use.
        self.waiters.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl fmt::Debug for RawMutex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.state.load(Ordering::Relaxed);
        f.debug_struct("RawMutex")
            .field("locked", &(s & LOCKED != 0))
            .field("waiters", &(s & WAITERS != 0))
            .finish()
    }
}

impl fmt::Debug for Waiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Waiter")
            .field("granted", &self.granted.load(Ordering::Relaxed))
            .finish()
    }
}

/// Waits for a [`Mutex`]; see the module docs for the protocol.
///
/// States: *fresh* (`queued == false`, nothing owned), *queued* (the node is linked, or it was
/// unlinked by a hand-off that set `granted`), *done* (resolved; the caller holds the lock;
/// `queued` false).
struct Lock<'a> {
    raw: &'a RawMutex,
    node: Node<Waiter>,
    queued: bool,
}

impl Lock<'_> {
    /// Rules 1 and 2.
    fn poll_fresh(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.raw.try_lock() {
            return Poll::Ready(());
        }
        self.take_or_queue(cx, true)
    }

    /// Rule 2; with `take` false (rule 7) a free lock is not taken: the task is woken to run
    /// again (a yield) and `Pending` returned.
    fn take_or_queue(&mut self, cx: &mut Context<'_>, take: bool) -> Poll<()> {
        let mut list = self.raw.list();
        let mut curr = self.raw.state.load(Ordering::Relaxed);
        loop {
            let (new, took) = if curr & LOCKED == 0 {
                if !take {
                    drop(list);
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                (curr | LOCKED, true)
            } else {
                (curr | WAITERS, false)
            };
            match self.raw.state.compare_exchange_weak(
                curr,
                new,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) if took => return Poll::Ready(()),
                Ok(_) => break,
                Err(actual) => curr = actual,
            }
        }
        let waiter = self.node.value();
        // SAFETY: the waker and `since` cells are guarded by the list's lock, which we hold.
        waiter
            .waker
            .with_mut(|w| unsafe { *w = Some(cx.waker().clone()) });
        // SAFETY: as above.
        waiter
            .since
            .with_mut(|s| unsafe { *s = Some(Instant::now()) });
        // SAFETY: we are polled through `Pin`, so the node stays put until our `Drop`, which unlinks
        // it (rules 1 and 2 of waiters.rs); a fresh node is in no list; we hold the lock.
        unsafe { list.push_back(NonNull::from(&self.node)) };
        self.queued = true;
        Poll::Pending
    }

    /// Rule 7.
    #[cold]
    fn poll_out_of_budget(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.queued {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        self.take_or_queue(cx, false)
    }

    /// Rule 5.
    fn poll_queued(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let waiter = self.node.value();
        if waiter.granted.load(Ordering::Acquire) {
            self.queued = false;
            return Poll::Ready(());
        }
        let mut list = self.raw.list();
        // A hand-off sets `granted` under the list's lock, so this read sees every hand-off.
        if waiter.granted.load(Ordering::Acquire) {
            self.queued = false;
            return Poll::Ready(());
        }
        if self.raw.try_lock() {
            self.queued = false;
            self.unlink(&mut list);
            return Poll::Ready(());
        }
        waiter.waker.with_mut(|w| {
            // SAFETY: the waker cell is guarded by the list's lock, which we hold.
            set_waker(unsafe { &mut *w }, cx.waker());
        });
        Poll::Pending
    }

    /// Unlinks the (linked) node, keeping invariant I1.
    fn unlink(&self, list: &mut ListGuard<'_, List<Waiter>>) {
        // SAFETY: the node is live (it is ours) and only ever queued on this mutex's list.
        if unsafe { list.remove(NonNull::from(&self.node)) } && list.is_empty() {
            self.raw.state.fetch_and(!WAITERS, Ordering::Relaxed);
        }
    }
}

impl Future for Lock<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: nothing is moved out of `this`; the node stays where it was pinned.
        let this = unsafe { self.get_unchecked_mut() };
        let Some(coop) = coop::try_proceed() else {
            return this.poll_out_of_budget(cx);
        };
        let res = if this.queued {
            this.poll_queued(cx)
        } else {
            this.poll_fresh(cx)
        };
        if res.is_ready() {
            coop.made_progress();
        }
        res
    }
}

impl Drop for Lock<'_> {
    /// Rule 6.
    fn drop(&mut self) {
        if !self.queued {
            return;
        }
        let waiter = self.node.value();
        if waiter.granted.load(Ordering::Acquire) {
            // Handed the lock but never observed it: pass it on.
            self.raw.unlock();
            return;
        }
        let mut list = self.raw.list();
        if waiter.granted.load(Ordering::Acquire) {
            drop(list);
            self.raw.unlock();
            return;
        }
        // SAFETY: the waker cell is guarded by the list's lock, which we hold.
        let woken = waiter.waker.with_mut(|w| unsafe { (*w).take() }).is_none();
        self.unlink(&mut list);
        let mut next = None;
        if woken && self.raw.state.load(Ordering::Relaxed) & LOCKED == 0 {
            if let Some(head) = list.front() {
                // SAFETY: linked nodes are live and we hold the list's lock; the waker cell is
                // guarded by it.
                next = unsafe { head.as_ref() }
                    .value()
                    .waker
                    .with_mut(|w| unsafe { (*w).take() });
            }
        }
        drop(list);
        if let Some(w) = next {
            w.wake();
        }
    }
}

impl fmt::Debug for Lock<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lock")
            .field("queued", &self.queued)
            .finish()
    }
}
