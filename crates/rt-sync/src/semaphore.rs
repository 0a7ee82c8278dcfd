//! A fair, async counting semaphore: the base `Mutex`, `RwLock` and `OnceCell` are built on.
//!
//! # The protocol
//!
//! The semaphore is one atomic word (layout below) and an intrusive FIFO list of waiters (see
//! `waiters.rs`) behind a mutex. Acquiring and releasing without contention are one CAS each and do
//! not touch the mutex.
//!
//! - **Acquire.** If no one waits and enough permits are available, take them with a CAS. Otherwise,
//!   under the lock, take whatever is available (a partial assignment), set `WAITERS` and queue the
//!   node (it lives in the pinned `Acquire` future) at the back, recording how many permits it still
//!   `needs`.
//! - **Release.** If `WAITERS` is clear, add the permits with a CAS. Otherwise, under the lock, hand
//!   them to the waiters from the front: a waiter whose `needed` reaches 0 is unlinked and woken;
//!   a partly served head keeps what it got and blocks everyone behind it (strict FIFO, as tokio:
//!   a large `acquire_many` at the head is not overtaken by small ones). Permits left over once
//!   the list is empty go back to the word, clearing `WAITERS` in the same CAS.
//! - **Cancel.** Dropping a queued `Acquire` unlinks its node under the lock and releases whatever
//!   had been assigned to it, through the same hand-off, so no permit is lost.
//! - **Close.** Sets `CLOSED`, then unlinks and wakes every waiter; a woken waiter that finds
//!   `CLOSED` returns its partial assignment and fails with [`AcquireError`].
//! - **Budget.** A poll whose cooperative budget is spent takes no permits: it wakes its task
//!   and returns `Pending` (a yield), a queued waiter keeping its place. But a fresh `Acquire`
//!   that would have to wait queues as above, without waking its task, so a task out of budget
//!   still waits in its turn and is served by a release (tokio checks the budget only after
//!   queueing). tokio also takes permits that are there out of budget and holds them across
//!   the yield; rt leaves them, so other tasks do not queue behind a holder that is not running.
//!
//! Invariants, each changed only under the lock:
//! 1. `WAITERS` is set if and only if the list is non-empty.
//! 2. While `WAITERS` is set the word holds 0 available permits (all went to the head).
//!    So a fast-path acquire, which needs permits in the word, never overtakes a waiter.
//!
//! # State word
//!
//! ```text
//!  usize
//!  +----------------------------------------------------+---------+--------+
//!  |           available permits (usize::BITS - 2)      | WAITERS | CLOSED |
//!  +----------------------------------------------------+---------+--------+
//!                                                         bit 1     bit 0
//! ```
//!
//! This file owns that layout; nothing else masks these bits.

use crate::waiters::{set_waker, List, Node, WakeList};
use rt_core::coop;
use rt_core::sync::{AtomicUsize, Mutex, MutexGuard, Ordering, UnsafeCell};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::ptr::NonNull;
// A user-owned `Arc` receiver must be std's: see `rt_core::sync::StdArc`.
use rt_core::sync::StdArc as Arc;
use std::task::{Context, Poll, Waker};

/// The semaphore is closed: no permit will be handed out any more.
const CLOSED: usize = 0b01;
/// The waiter list is non-empty (invariant 1).
const WAITERS: usize = 0b10;
/// Permits are counted above the two flag bits.
const SHIFT: usize = 2;

/// An async counting semaphore with FIFO waiters.
///
/// ```
/// # use rt_core::test_support::block_on;
/// use rt_sync::semaphore::Semaphore;
///
/// let sem = Semaphore::new(2);
/// block_on(async {
///     let a = sem.acquire().await.unwrap();
///     let _b = sem.acquire().await.unwrap();
///     assert!(sem.try_acquire().is_err());
///     drop(a);
///     assert_eq!(sem.available_permits(), 1);
/// });
/// ```
pub struct Semaphore {
    state: AtomicUsize,
    waiters: Mutex<List<Waiter>>,
}

/// The per-waiter data in a queued `Acquire`'s node.
struct Waiter {
    /// Permits still owed to this waiter. Written only under the lock. A releaser that brings it to
    /// 0 unlinks the node, takes the waker and stores the 0 last (`Release`), so the owner may read
    /// a 0 without the lock (`Acquire`) and drop the node at once.
    needed: AtomicUsize,
    /// Guarded by the semaphore's lock.
    waker: UnsafeCell<Option<Waker>>,
}

// SAFETY: `waker` is only accessed under the semaphore's lock; `needed` is atomic.
unsafe impl Sync for Waiter {}

impl fmt::Debug for Waiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Waiter")
            .field("needed", &self.needed.load(Ordering::Relaxed))
            .finish()
    }
}

/// Error from [`Semaphore::acquire`] and friends: the semaphore was closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcquireError(());

impl fmt::Display for AcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("semaphore closed")
    }
}

impl std::error::Error for AcquireError {}

/// Error from [`Semaphore::try_acquire`] and friends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TryAcquireError {
    /// The semaphore was closed.
    Closed,
    /// Not enough permits were available (or others wait for them first).
    NoPermits,
}

impl fmt::Display for TryAcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryAcquireError::Closed => f.write_str("semaphore closed"),
            TryAcquireError::NoPermits => f.write_str("no permits available"),
        }
    }
}

impl std::error::Error for TryAcquireError {}

impl Semaphore {
    /// The most permits a semaphore can hold.
    pub const MAX_PERMITS: usize = usize::MAX >> SHIFT;

    /// Creates a semaphore holding `permits` permits.
    ///
    /// # Panics
    ///
    /// If `permits` exceeds [`Semaphore::MAX_PERMITS`].
    pub fn new(permits: usize) -> Semaphore {
        assert!(
            permits <= Semaphore::MAX_PERMITS,
            "a semaphore holds at most {} permits",
            Semaphore::MAX_PERMITS
        );
        Semaphore {
            state: AtomicUsize::new(permits << SHIFT),
            waiters: Mutex::new(List::new()),
        }
    }

    /// [`Semaphore::new`] in a `const` context, e.g. for a `static`:
    /// `static LIMIT: Semaphore = Semaphore::const_new(4);`. Not under loom (its primitives have
    /// no `const` constructors), as in tokio.
    ///
    /// # Panics
    ///
    /// If `permits` exceeds [`Semaphore::MAX_PERMITS`] (at compile time in a `const`/`static`).
    #[cfg(not(loom))]
    pub const fn const_new(permits: usize) -> Semaphore {
        assert!(
            permits <= Semaphore::MAX_PERMITS,
            "a semaphore holds at most Semaphore::MAX_PERMITS permits"
        );
        Semaphore {
            state: AtomicUsize::new(permits << SHIFT),
            waiters: Mutex::new(List::new()),
        }
    }

    /// A closed semaphore with no permits, in a `const` context (a `OnceCell` born full).
    #[cfg(not(loom))]
    pub(crate) const fn const_closed() -> Semaphore {
        Semaphore {
            state: AtomicUsize::new(CLOSED),
            waiters: Mutex::new(List::new()),
        }
    }

    /// Permits available right now.
    pub fn available_permits(&self) -> usize {
        self.state.load(Ordering::Acquire) >> SHIFT
    }

    /// Adds `n` permits, handing them to waiters first.
    ///
    /// # Panics
    ///
    /// If the total would exceed [`Semaphore::MAX_PERMITS`].
    pub fn add_permits(&self, n: usize) {
        self.release(n);
    }

    /// Removes up to `n` of the available permits for good and returns how many it removed
    /// (tokio's `forget_permits`). Permits held by others are untouched; while tasks wait, none
    /// are available, so none are removed.
    pub fn forget_permits(&self, n: usize) -> usize {
        let mut curr = self.state.load(Ordering::Acquire);
        loop {
            let available = curr >> SHIFT;
            let taken = available.min(n);
            if taken == 0 {
                return 0;
            }
            match self.state.compare_exchange_weak(
                curr,
                curr - (taken << SHIFT),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return taken,
                Err(actual) => curr = actual,
            }
        }
    }

    /// Closes the semaphore: pending and future acquires fail; `try_acquire` returns `Closed`.
    /// Permits held elsewhere stay valid and may still be released.
    pub fn close(&self) {
        self.state.fetch_or(CLOSED, Ordering::Release);
        let mut wakers = WakeList::new();
        loop {
            let mut list = self.lock();
            while !wakers.is_full() {
                let Some(node) = list.pop_front() else { break };
                // SAFETY: just unlinked under the lock we hold; the owner cannot free it before it
                // takes this lock (rule 3 of waiters.rs).
                let waiter = unsafe { node.as_ref() }.value();
                // SAFETY: the waker cell is guarded by the lock we hold.
                if let Some(w) = waiter.waker.with_mut(|w| unsafe { (*w).take() }) {
                    wakers.push(w);
                }
            }
            let done = list.is_empty();
            if done {
                self.state.fetch_and(!WAITERS, Ordering::Release);
            }
            drop(list);
            wakers.wake_all();
            if done {
                return;
            }
        }
    }

    /// Whether [`Semaphore::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.state.load(Ordering::Acquire) & CLOSED != 0
    }

    /// Waits for one permit, in FIFO order with other waiters.
    ///
    /// Cancel-safe: dropping the future gives up its place, and permits already assigned to it go
    /// to the next waiter.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing: permits are only taken when the future returns them; it loses its place in the queue.
    pub async fn acquire(&self) -> Result<SemaphorePermit<'_>, AcquireError> {
        self.acquire_raw(1).await?;
        Ok(SemaphorePermit {
            sem: self,
            permits: 1,
        })
    }

    /// Waits for `n` permits at once. While it waits at the head, later acquires wait behind it.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing: permits gathered so far go back to the semaphore; it loses its place in the queue.
    pub async fn acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, AcquireError> {
        self.acquire_raw(n as usize).await?;
        Ok(SemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// Takes one permit if one is available and no one waits.
    pub fn try_acquire(&self) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.try_acquire_many(1)
    }

    /// Takes `n` permits if they are available and no one waits.
    pub fn try_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.try_acquire_raw(n as usize)?;
        Ok(SemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// [`Semaphore::acquire`] for a semaphore behind an `Arc`: the permit owns a clone.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; it loses its place in the queue.
    pub async fn acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, AcquireError> {
        self.acquire_many_owned(1).await
    }

    /// [`Semaphore::acquire_many`] for a semaphore behind an `Arc`.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing; permits gathered so far go back; it loses its place in the queue.
    pub async fn acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, AcquireError> {
        self.acquire_raw(n as usize).await?;
        Ok(OwnedSemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// [`Semaphore::try_acquire`] for a semaphore behind an `Arc`.
    pub fn try_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.try_acquire_many_owned(1)
    }

    /// [`Semaphore::try_acquire_many`] for a semaphore behind an `Arc`.
    pub fn try_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.try_acquire_raw(n as usize)?;
        Ok(OwnedSemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// [`acquire`](Semaphore::acquire) from a thread that is not driving tasks (a plain thread,
    /// a `spawn_blocking` closure), parking it until a permit is free. As tokio's
    /// `blocking_acquire`.
    ///
    /// # Panics
    /// On a runtime worker thread or inside `block_on`: use `acquire().await` there.
    ///
    /// ```
    /// let sem = rt_sync::Semaphore::new(1);
    /// let permit = sem.blocking_acquire().unwrap();
    /// assert_eq!(sem.available_permits(), 0);
    /// drop(permit);
    /// assert_eq!(sem.available_permits(), 1);
    /// ```
    #[track_caller]
    pub fn blocking_acquire(&self) -> Result<SemaphorePermit<'_>, AcquireError> {
        crate::block_on::block_on("Semaphore::blocking_acquire", self.acquire())
    }

    /// [`acquire_many`](Semaphore::acquire_many) from a thread that is not driving tasks.
    ///
    /// # Panics
    /// On a runtime worker thread or inside `block_on`: use `acquire_many(n).await` there.
    #[track_caller]
    pub fn blocking_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, AcquireError> {
        crate::block_on::block_on("Semaphore::blocking_acquire_many", self.acquire_many(n))
    }

    /// [`acquire_owned`](Semaphore::acquire_owned) from a thread that is not driving tasks.
    ///
    /// # Panics
    /// On a runtime worker thread or inside `block_on`: use `acquire_owned().await` there.
    #[track_caller]
    pub fn blocking_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, AcquireError> {
        crate::block_on::block_on("Semaphore::blocking_acquire_owned", self.acquire_owned())
    }

    /// [`acquire_many_owned`](Semaphore::acquire_many_owned) from a thread that is not driving
    /// tasks.
    ///
    /// # Panics
    /// On a runtime worker thread or inside `block_on`: use `acquire_many_owned(n).await`
    /// there.
    #[track_caller]
    pub fn blocking_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, AcquireError> {
        crate::block_on::block_on(
            "Semaphore::blocking_acquire_many_owned",
            self.acquire_many_owned(n),
        )
    }

    /// The future behind every acquire: resolves once `n` permits belong to the caller, who then
    /// owes a [`Semaphore::release`] of `n`.
    pub(crate) fn acquire_raw(&self, n: usize) -> Acquire<'_> {
        assert!(n <= Semaphore::MAX_PERMITS, "too many permits requested");
        Acquire {
            sem: self,
            node: Node::new(Waiter {
                needed: AtomicUsize::new(n),
                waker: UnsafeCell::new(None),
            }),
            permits: n,
            queued: false,
        }
    }

    pub(crate) fn try_acquire_raw(&self, n: usize) -> Result<(), TryAcquireError> {
        let mut curr = self.state.load(Ordering::Acquire);
        loop {
            if curr & CLOSED != 0 {
                return Err(TryAcquireError::Closed);
            }
            if curr >> SHIFT < n {
                // Covers a non-empty queue too: `WAITERS` implies 0 available (invariant 2).
                return Err(TryAcquireError::NoPermits);
            }
            match self.state.compare_exchange_weak(
                curr,
                curr - (n << SHIFT),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Ok(()),
                Err(actual) => curr = actual,
            }
        }
    }

    /// Gives back `n` permits: to the waiters in FIFO order, the rest to the word.
    pub(crate) fn release(&self, n: usize) {
        if n == 0 {
            return;
        }
        let mut curr = self.state.load(Ordering::Relaxed);
        while curr & WAITERS == 0 {
            let new = add_permits_to(curr, n);
            match self
                .state
                .compare_exchange_weak(curr, new, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(actual) => curr = actual,
            }
        }
        self.release_locked(n, self.lock());
    }

    /// The hand-off: assigns `rem` permits to the waiters from the front, then returns what is left
    /// to the word. Releases the lock in batches of [`WakeList::CAPACITY`] to wake outside it.
    fn release_locked<'a>(&'a self, mut rem: usize, mut list: MutexGuard<'a, List<Waiter>>) {
        let mut wakers = WakeList::new();
        loop {
            while rem > 0 && !wakers.is_full() {
                let Some(node) = list.front() else { break };
                // SAFETY: linked nodes are live (rule 2 of waiters.rs) and we hold the lock.
                let waiter = unsafe { node.as_ref() }.value();
                let needed = waiter.needed.load(Ordering::Relaxed);
                if needed > rem {
                    waiter.needed.store(needed - rem, Ordering::Relaxed);
                    rem = 0;
                    break;
                }
                rem -= needed;
                list.pop_front();
                // SAFETY: the waker cell is guarded by the lock we hold.
                if let Some(w) = waiter.waker.with_mut(|w| unsafe { (*w).take() }) {
                    wakers.push(w);
                }
                // Last access to the node: from here its owner may free it.
                waiter.needed.store(0, Ordering::Release);
            }
            if list.is_empty() {
                self.settle_idle(rem);
                rem = 0;
            }
            drop(list);
            wakers.wake_all();
            if rem == 0 {
                return;
            }
            list = self.lock();
        }
    }

    /// With the lock held and the list empty: clears `WAITERS` and adds `rem` permits to the word.
    fn settle_idle(&self, rem: usize) {
        let mut curr = self.state.load(Ordering::Relaxed);
        loop {
            let new = add_permits_to(curr & !WAITERS, rem);
            match self
                .state
                .compare_exchange_weak(curr, new, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(actual) => curr = actual,
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, List<Waiter>> {
        // Nothing panics with the lock held except the permit-overflow assertion, which leaves the
        // list consistent: a poisoned lock is still sound to use.
        self.waiters.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `curr` with `n` more permits, or a panic if that exceeds [`Semaphore::MAX_PERMITS`].
fn add_permits_to(curr: usize, n: usize) -> usize {
    let avail = curr >> SHIFT;
    assert!(
        n <= Semaphore::MAX_PERMITS - avail,
        "number of permits would overflow Semaphore::MAX_PERMITS"
    );
    curr + (n << SHIFT)
}

impl fmt::Debug for Semaphore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.state.load(Ordering::Relaxed);
        f.debug_struct("Semaphore")
            .field("permits", &(s >> SHIFT))
            .field("waiters", &(s & WAITERS != 0))
            .field("closed", &(s & CLOSED != 0))
            .finish()
    }
}

/// Waits for permits of a [`Semaphore`]; see the module docs for the protocol.
///
/// States: *fresh* (`queued == false`, nothing owned), *queued* (node linked or already served,
/// `needed` permits still owed), *done* (resolved; permits belong to the caller; `queued` false).
pub(crate) struct Acquire<'a> {
    sem: &'a Semaphore,
    node: Node<Waiter>,
    permits: usize,
    queued: bool,
}

impl Acquire<'_> {
    fn poll_fresh(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), AcquireError>> {
        match self.sem.try_acquire_raw(self.permits) {
            Ok(()) => return Poll::Ready(Ok(())),
            Err(TryAcquireError::Closed) => return Poll::Ready(Err(AcquireError(()))),
            Err(TryAcquireError::NoPermits) => {}
        }
        self.take_or_queue(cx, true)
    }

    /// Takes the permits or queues (module docs, "Acquire"); with `take` false (the budget)
    /// permits enough to complete are not taken: the task is woken to run again (a yield) and
    /// `Pending` returned.
    fn take_or_queue(
        &mut self,
        cx: &mut Context<'_>,
        take: bool,
    ) -> Poll<Result<(), AcquireError>> {
        let n = self.permits;
        let mut list = self.sem.lock();
        let mut curr = self.sem.state.load(Ordering::Acquire);
        let needed = loop {
            if curr & CLOSED != 0 {
                return Poll::Ready(Err(AcquireError(())));
            }
            let avail = curr >> SHIFT;
            let (new, needed) = if curr & WAITERS == 0 && avail >= n {
                if !take {
                    drop(list);
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                (curr - (n << SHIFT), 0)
            } else {
                // Partial assignment: with `WAITERS` set `avail` is 0 (invariant 2).
                ((curr - (avail << SHIFT)) | WAITERS, n - avail)
            };
            match self.sem.state.compare_exchange_weak(
                curr,
                new,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break needed,
                Err(actual) => curr = actual,
            }
        };
        if needed == 0 {
            return Poll::Ready(Ok(()));
        }
        let waiter = self.node.value();
        waiter.needed.store(needed, Ordering::Relaxed);
        // SAFETY: the waker cell is guarded by the lock we hold.
        waiter
            .waker
            .with_mut(|w| unsafe { *w = Some(cx.waker().clone()) });
        // SAFETY: we are polled through `Pin`, so the node stays put until our `Drop`, which unlinks
        // it (rules 1 and 2 of waiters.rs); a fresh node is in no list; we hold the lock.
        unsafe { list.push_back(NonNull::from(&self.node)) };
        self.queued = true;
        Poll::Pending
    }

    fn poll_queued(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), AcquireError>> {
        let waiter = self.node.value();
        if waiter.needed.load(Ordering::Acquire) == 0 {
            self.queued = false;
            return Poll::Ready(Ok(()));
        }
        let mut list = self.sem.lock();
        let needed = waiter.needed.load(Ordering::Relaxed);
        if needed == 0 {
            self.queued = false;
            return Poll::Ready(Ok(()));
        }
        if self.sem.state.load(Ordering::Acquire) & CLOSED != 0 {
            self.queued = false;
            self.unlink(&mut list);
            self.sem.release_locked(self.permits - needed, list);
            return Poll::Ready(Err(AcquireError(())));
        }
        waiter.waker.with_mut(|w| {
            // SAFETY: the waker cell is guarded by the lock we hold.
            set_waker(unsafe { &mut *w }, cx.waker());
        });
        Poll::Pending
    }

    /// Unlinks the node if a releaser or `close` has not already, keeping invariant 1.
    fn unlink(&self, list: &mut MutexGuard<'_, List<Waiter>>) {
        // SAFETY: the node is live (it is ours) and only ever queued on this semaphore's list.
        if unsafe { list.remove(NonNull::from(&self.node)) } && list.is_empty() {
            self.sem.state.fetch_and(!WAITERS, Ordering::Release);
        }
    }
}

impl Future for Acquire<'_> {
    type Output = Result<(), AcquireError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: nothing is moved out of `this`; the node stays where it was pinned.
        let this = unsafe { self.get_unchecked_mut() };
        let Some(coop) = coop::try_proceed() else {
            // The budget (module docs): a queued waiter keeps its place and yields; a fresh one
            // queues if it must wait anyway, else yields without taking the permits.
            if this.queued {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            return this.take_or_queue(cx, false);
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

impl Drop for Acquire<'_> {
    fn drop(&mut self) {
        if !self.queued {
            return;
        }
        if self.node.value().needed.load(Ordering::Acquire) == 0 {
            // Fully served but never observed: pass everything on.
            self.sem.release(self.permits);
            return;
        }
        let mut list = self.sem.lock();
        let needed = self.node.value().needed.load(Ordering::Relaxed);
        self.unlink(&mut list);
        self.sem.release_locked(self.permits - needed, list);
    }
}

impl fmt::Debug for Acquire<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Acquire")
            .field("permits", &self.permits)
            .field("queued", &self.queued)
            .finish()
    }
}

/// Permits borrowed from a [`Semaphore`]; released on drop.
#[must_use = "dropping the permit releases it at once"]
pub struct SemaphorePermit<'a> {
    sem: &'a Semaphore,
    permits: usize,
}

impl<'a> SemaphorePermit<'a> {
    /// The semaphore this permit came from.
    pub fn semaphore(&self) -> &'a Semaphore {
        self.sem
    }

    /// Keeps the permits out of the semaphore for good (they are not released on drop).
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// How many permits this holds.
    pub fn num_permits(&self) -> usize {
        self.permits
    }

    /// Takes `other`'s permits into this one; they are released together.
    ///
    /// # Panics
    ///
    /// If `other` came from another semaphore.
    #[track_caller]
    pub fn merge(&mut self, mut other: Self) {
        assert!(
            std::ptr::eq(self.sem, other.sem),
            "merging permits from different semaphore instances"
        );
        self.permits += std::mem::take(&mut other.permits);
    }

    /// Moves `n` of this one's permits into a new permit; `None` (and nothing moved) if it holds
    /// fewer than `n`.
    pub fn split(&mut self, n: usize) -> Option<Self> {
        let n = Some(n).filter(|&n| n <= self.permits)?;
        self.permits -= n;
        Some(SemaphorePermit {
            sem: self.sem,
            permits: n,
        })
    }
}

impl Drop for SemaphorePermit<'_> {
    fn drop(&mut self) {
        self.sem.release(self.permits);
    }
}

impl fmt::Debug for SemaphorePermit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SemaphorePermit")
            .field("permits", &self.permits)
            .finish()
    }
}

/// Permits of a [`Semaphore`] behind an `Arc`; released on drop.
#[must_use = "dropping the permit releases it at once"]
pub struct OwnedSemaphorePermit {
    sem: Arc<Semaphore>,
    permits: usize,
}

impl OwnedSemaphorePermit {
    /// Keeps the permits out of the semaphore for good (they are not released on drop).
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// How many permits this holds.
    pub fn num_permits(&self) -> usize {
        self.permits
    }

    /// The semaphore the permits came from.
    pub fn semaphore(&self) -> &Arc<Semaphore> {
        &self.sem
    }

    /// Takes `other`'s permits into this one; they are released together.
    ///
    /// # Panics
    ///
    /// If `other` came from another semaphore.
    #[track_caller]
    pub fn merge(&mut self, mut other: Self) {
        assert!(
            Arc::ptr_eq(&self.sem, &other.sem),
            "merging permits from different semaphore instances"
        );
        self.permits += std::mem::take(&mut other.permits);
    }

    /// Moves `n` of this one's permits into a new permit; `None` (and nothing moved) if it holds
    /// fewer than `n`.
    pub fn split(&mut self, n: usize) -> Option<Self> {
        let n = Some(n).filter(|&n| n <= self.permits)?;
        self.permits -= n;
        Some(OwnedSemaphorePermit {
            sem: self.sem.clone(),
            permits: n,
        })
    }
}

impl Drop for OwnedSemaphorePermit {
    fn drop(&mut self) {
        self.sem.release(self.permits);
    }
}

impl fmt::Debug for OwnedSemaphorePermit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedSemaphorePermit")
            .field("permits", &self.permits)
            .finish()
    }
}
