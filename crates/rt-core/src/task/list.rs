//! `OwnedTasks`: every live task of a scheduler, so shutdown can find and cancel the ones that
//! sit parked on a waker and are in no queue.
//!
//! Sharded by task id so that spawns and completions on different workers rarely meet on one
//! lock. Each shard is a slab: a vector of task pointers plus a free list of slot indices, and
//! each task remembers its slot index in its trailer (`Links`, guarded by the shard lock).
//! Removing a task touches only the shard's slot vector, never the task's neighbours: an
//! intrusive linked list would load two cold task cells per completion. Free slots are reused
//! last-in first-out, so the slots in use stay hot in cache.
//!
//! Once closed, the list refuses new tasks: a spawn racing shutdown either lands before the close
//! (and is cancelled by it) or is refused (and is cancelled at once by `bind`).

use std::future::Future;
use std::marker::PhantomData;
use std::ptr::NonNull;

use super::core::Header;
use super::id::Id;
use super::raw::RawTask;
use super::{JoinHandle, Notified, Schedule, Task};
use crossbeam_utils::CachePadded;

use crate::sync::{AtomicBool, Mutex, Ordering};

/// Where a task sits in its shard. Guarded by the shard lock.
pub(crate) struct Links {
    index: u32,
}

const UNLINKED: u32 = u32::MAX;

impl Default for Links {
    fn default() -> Links {
        Links { index: UNLINKED }
    }
}

struct Shard {
    slots: Vec<Option<NonNull<Header>>>,
    free: Vec<u32>,
}

// SAFETY: the raw pointers are only followed under the shard lock.
unsafe impl Send for Shard {}

/// The set of live tasks owned by one scheduler.
pub struct OwnedTasks<S: 'static> {
    /// Padded: a thread spawning into one shard must not bounce the cache line of the shard a
    /// worker is removing a finished task from.
    shards: Box<[CachePadded<Mutex<Shard>>]>,
    mask: usize,
    closed: AtomicBool,
    _p: PhantomData<S>,
}

impl<S: 'static> std::fmt::Debug for OwnedTasks<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnedTasks")
            .field("shards", &self.shards.len())
            .field("closed", &self.closed.load(Ordering::Relaxed))
            .finish()
    }
}

/// # Safety
/// `task` is live and the caller holds the lock of the shard it is (or will be) in.
unsafe fn links<'a>(task: NonNull<Header>) -> &'a mut Links {
    // SAFETY: per the contract, the shard lock grants exclusive access to the links.
    unsafe {
        let trailer = Header::trailer(task);
        trailer.as_ref().links.with_mut(|l| &mut *l)
    }
}

impl<S: Schedule> OwnedTasks<S> {
    /// A list with at least `shards` shards (rounded up to a power of two).
    pub fn new(shards: usize) -> OwnedTasks<S> {
        let n = shards.max(1).next_power_of_two();
        OwnedTasks {
            shards: (0..n)
                .map(|_| {
                    CachePadded::new(Mutex::new(Shard {
                        slots: Vec::new(),
                        free: Vec::new(),
                    }))
                })
                .collect(),
            mask: n - 1,
            closed: AtomicBool::new(false),
            _p: PhantomData,
        }
    }

    fn shard(&self, id: Id) -> &Mutex<Shard> {
        &self.shards[(id.as_u64() as usize) & self.mask]
    }

    /// Creates a task owned by this list. Returns its `JoinHandle` and the `Notified` to
    /// schedule, or `None` when the list is closed: then the future has already been dropped
    /// and the handle resolves to a cancellation error.
    pub fn bind<F>(
        &self,
        future: F,
        scheduler: S,
        id: Id,
        pooled: bool,
    ) -> (JoinHandle<F::Output>, Option<Notified<S>>)
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let raw = RawTask::new(future, scheduler, id, 3, pooled);
        let join = JoinHandle::new(raw);
        // SAFETY: the three references: list, `Notified`, `JoinHandle`.
        let (task, notified) = unsafe { (Task::<S>::from_raw(raw), Notified::<S>::from_raw(raw)) };
        {
            let mut shard = self.shard(id).lock().unwrap_or_else(|e| e.into_inner());
            if !self.closed.load(Ordering::Acquire) {
                let index = match shard.free.pop() {
                    Some(i) => i,
                    None => {
                        let i = u32::try_from(shard.slots.len()).expect("too many live tasks");
                        assert!(i != UNLINKED, "too many live tasks");
                        shard.slots.push(None);
                        i
                    }
                };
                shard.slots[index as usize] = Some(raw.header_ptr());
                // SAFETY: we hold the shard lock of this task's shard.
                unsafe { links(raw.header_ptr()).index = index };
                std::mem::forget(task);
                return (join, Some(notified));
            }
        }
        // Closed: cancel now. The list's reference performs the shutdown; the `Notified` is
        // dropped unused.
        tracing::trace!(
            task.id = id.as_u64(),
            "spawn refused: runtime is shutting down"
        );
        task.shutdown();
        drop(notified);
        (join, None)
    }

    /// Removes `task` from the list; returns the list's reference if it was still there.
    pub fn remove(&self, task: &Task<S>) -> Option<Task<S>> {
        let ptr = task.raw.header_ptr();
        let mut shard = self
            .shard(task.id())
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        // SAFETY: we hold the shard lock for this task's shard.
        let l = unsafe { links(ptr) };
        if l.index == UNLINKED {
            return None;
        }
        let index = std::mem::replace(&mut l.index, UNLINKED);
        debug_assert_eq!(shard.slots[index as usize], Some(ptr));
        shard.slots[index as usize] = None;
        shard.free.push(index);
        drop(shard);
        // SAFETY: the list's reference, now handed to the caller.
        Some(unsafe { Task::from_raw(task.raw) })
    }

    /// Refuses new tasks from now on and cancels every task in the list (dropping each future
    /// exactly once). Futures run their `Drop` on the calling thread.
    pub fn close_and_shutdown_all(&self) {
        self.closed.store(true, Ordering::Release);
        for shard in self.shards.iter() {
            let tasks: Vec<Task<S>> = {
                let mut shard = shard.lock().unwrap_or_else(|e| e.into_inner());
                shard.free.clear();
                std::mem::take(&mut shard.slots)
                    .into_iter()
                    .flatten()
                    .map(|ptr| {
                        // SAFETY: we hold the shard lock; `ptr` is a live task in it, and the
                        // list's reference moves to the returned `Task`.
                        unsafe {
                            links(ptr).index = UNLINKED;
                            Task::<S>::from_raw(RawTask::from_raw(ptr))
                        }
                    })
                    .collect()
            };
            // Outside the lock: dropping a future may spawn (refused now) or complete tasks.
            for task in tasks {
                task.shutdown();
            }
        }
    }

    /// Whether `close_and_shutdown_all` has run.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Live tasks in the list. Counted shard by shard under each lock (a shared counter would
    /// be one more cache line that every spawn and every completion fights over).
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| {
                let shard = shard.lock().unwrap_or_else(|e| e.into_inner());
                shard.slots.len() - shard.free.len()
            })
            .sum()
    }

    /// Whether no task is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

// SAFETY: the list only holds task pointers under its locks; tasks are `Send` by construction.
unsafe impl<S: Schedule> Send for OwnedTasks<S> {}
// SAFETY: as above.
unsafe impl<S: Schedule> Sync for OwnedTasks<S> {}
