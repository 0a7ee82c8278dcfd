//! A worker's LIFO slot: one task, held as a pointer in an `AtomicPtr`, so that a thread taking
//! over a stalled worker (`multi_thread/takeover.rs`) can take it.
//!
//! The protocol is ownership by swap: the slot holds at most one `Notified` reference, and
//! every access that may meet a task is a `swap`, which hands whatever was there to the
//! swapper. The owner swaps a new task in (and pushes the displaced one to its local queue) or
//! swaps null in to take the task; a take-over thread swaps null in. Whoever's swap returns a
//! task owns it; no task is lost or taken twice (loom model `loom-tests/tests/lifo_take.rs`).
//! One access needs no swap: the owner putting a task into an empty slot stores it, because
//! only the owner ever makes the slot non-empty (a taker only empties it), so a slot the owner
//! sees empty stays empty until its store.
//!
//! Cost: the owner's swap (a spawn that displaces a task, a pop) is an `xchg` on a line that
//! stays in its core's cache (only a take-over thread ever reads it, and only while the owner
//! is stuck in a poll), so the spawn path pays no contended atomic; see `docs/BENCHMARKS.md`
//! for the measurement against the former `Cell`.

use std::ptr::{self, NonNull};

use rt_core::sync::{AtomicPtr, Ordering};
use rt_core::task::{Header, Notified, Schedule};

/// A LIFO slot holding at most one task.
pub struct LifoSlot<S: Schedule> {
    slot: AtomicPtr<Header>,
    _p: std::marker::PhantomData<Notified<S>>,
}

impl<S: Schedule> Default for LifoSlot<S> {
    fn default() -> LifoSlot<S> {
        LifoSlot::new()
    }
}

impl<S: Schedule> LifoSlot<S> {
    /// An empty slot.
    pub fn new() -> LifoSlot<S> {
        LifoSlot {
            slot: AtomicPtr::new(ptr::null_mut()),
            _p: std::marker::PhantomData,
        }
    }

    /// Puts `task` in the slot; returns the task it displaced. Only the owner calls this.
    #[inline]
    pub fn replace(&self, task: Notified<S>) -> Option<Notified<S>> {
        let new = task.into_raw().as_ptr();
        if self.slot.load(Ordering::Relaxed).is_null() {
            // Empty, and it stays empty until we write: only the owner stores a task, a taker
            // only swaps null in. So a plain store does (Release: a taker that swaps it out
            // sees the task's contents). A stale non-null read just takes the swap below.
            self.slot.store(new, Ordering::Release);
            return None;
        }
        // AcqRel: the new task's contents are published to a taker (Release), and the
        // displaced one's are ours (Acquire).
        let prev = self.slot.swap(new, Ordering::AcqRel);
        // SAFETY: every non-null value in the slot came from `into_raw` of a `Notified<S>`, and
        // the swap handed it to us alone.
        NonNull::new(prev).map(|p| unsafe { Notified::from_raw_ptr(p) })
    }

    /// Takes the task in the slot, if any (the owner, or a take-over thread).
    #[inline]
    pub fn take(&self) -> Option<Notified<S>> {
        if self.slot.load(Ordering::Relaxed).is_null() {
            // Nothing there: no read-modify-write (the common case on a taker's poll loop).
            return None;
        }
        let prev = self.slot.swap(ptr::null_mut(), Ordering::AcqRel);
        // SAFETY: as in `replace`.
        NonNull::new(prev).map(|p| unsafe { Notified::from_raw_ptr(p) })
    }

    /// Whether the slot is empty now.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.slot.load(Ordering::Acquire).is_null()
    }
}

impl<S: Schedule> std::fmt::Debug for LifoSlot<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LifoSlot")
            .field("empty", &self.is_empty())
            .finish()
    }
}

impl<S: Schedule> Drop for LifoSlot<S> {
    fn drop(&mut self) {
        drop(self.take());
    }
}

// SAFETY: the slot hands a `Notified<S>` (itself `Send + Sync` for a `Schedule`) between
// threads only through the swap.
unsafe impl<S: Schedule> Send for LifoSlot<S> {}
// SAFETY: as above.
unsafe impl<S: Schedule> Sync for LifoSlot<S> {}
