//! A worker's LIFO slot: one task, held as a pointer in an `AtomicPtr`, so that a thread taking
//! over a stalled worker (`multi_thread/takeover.rs`) can take it.
//!
//! The owner (the thread running the worker's context) reaches the slot on every spawn and
//! every pop, a thief only while the owner is stuck in a poll. So the owner's accesses are plain
//! loads and stores, and the thief pays for the exclusion:
//!
//! * **Owner** ([`replace`](LifoSlot::replace), [`take`](LifoSlot::take)): announces itself
//!   (`owner_in = true`), passes the light half of an asymmetric barrier pair
//!   (`rt_core::asym`: a compiler fence), and reads `thieves`. Zero: it reads and writes the
//!   slot with plain loads and stores, then clears `owner_in` (Release). Non-zero: it clears
//!   `owner_in` and uses swaps, which a thief's swap cannot split.
//! * **Thief** ([`steal`](LifoSlot::steal)): counts itself in `thieves`, passes the heavy half
//!   (`membarrier(2)`: every running thread executes a full barrier), waits until `owner_in` is
//!   clear, and swaps the task out.
//!
//! The barrier pair is a Dekker handshake: either the owner's read of `thieves` comes after the
//! thief's barrier (and sees the thief, so it swaps), or its `owner_in = true` was visible
//! before it (and the thief waits for the plain access to finish; its Release store of
//! `owner_in = false` hands the slot's contents to the thief's Acquire load). So a plain access
//! never overlaps a thief's swap, and whoever's swap or plain take returns a task owns it: no
//! task is lost or run twice (loom model `loom-tests/tests/lifo_take.rs`, where both halves
//! of the pair are `SeqCst` fences).
//!
//! Cost: the owner's access is two stores and a load on a line only it writes (a thief only
//! reads it, and only during a stall) — no read-modify-write. The former design swapped on
//! every displacing spawn and every pop: an `xchg` each, about 6% of `spawn_many_local`'s CPU
//! time (docs/BENCHMARKS.md). A thief's steal costs a system call (microseconds), paid only by
//! a take-over thread, and only when the slot holds a task.

use std::ptr::{self, NonNull};

use rt_core::sync::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use rt_core::task::{Header, Notified, Schedule};

/// The ordering of the handshake's flag accesses around the barrier pair. Shipped: `Relaxed`
/// (the pair's barriers order them; a `SeqCst` store would be an `xchg`, the very cost the
/// handshake removes). Under loom: `SeqCst`, because loom orders `Relaxed` accesses around two
/// `SeqCst` fences more weakly than the C++ fence rules do (and reports a double take that the
/// fences forbid); `rt_core::sync`'s exception 1.
const HANDSHAKE: Ordering = if cfg!(loom) {
    Ordering::SeqCst
} else {
    Ordering::Relaxed
};

/// A LIFO slot holding at most one task.
pub struct LifoSlot<S: Schedule> {
    slot: AtomicPtr<Header>,
    /// The owner is inside an access (module docs).
    owner_in: AtomicBool,
    /// Thieves inside [`LifoSlot::steal`]: while non-zero, the owner uses swaps.
    thieves: AtomicUsize,
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
        rt_core::asym::init();
        LifoSlot {
            slot: AtomicPtr::new(ptr::null_mut()),
            owner_in: AtomicBool::new(false),
            thieves: AtomicUsize::new(0),
            _p: std::marker::PhantomData,
        }
    }

    /// Runs an owner access: `plain` when no thief is about, else `swapping` (module docs).
    #[inline]
    fn owner<R>(
        &self,
        plain: impl FnOnce(&AtomicPtr<Header>) -> R,
        swapping: impl FnOnce(&AtomicPtr<Header>) -> R,
    ) -> R {
        self.owner_in.store(true, HANDSHAKE);
        rt_core::asym::light();
        if self.thieves.load(HANDSHAKE) != 0 {
            self.owner_in.store(false, Ordering::Release);
            return swapping(&self.slot);
        }
        let out = plain(&self.slot);
        // Release: a thief that sees the access over sees what it wrote.
        self.owner_in.store(false, Ordering::Release);
        out
    }

    /// Puts `task` in the slot; returns the task it displaced. Only the owner calls this.
    #[inline]
    pub fn replace(&self, task: Notified<S>) -> Option<Notified<S>> {
        let new = task.into_raw().as_ptr();
        let prev = self.owner(
            |slot| {
                let prev = slot.load(Ordering::Relaxed);
                slot.store(new, Ordering::Relaxed);
                prev
            },
            // AcqRel: the new task's contents are published to a thief, the displaced one's
            // are ours.
            |slot| slot.swap(new, Ordering::AcqRel),
        );
        // SAFETY: every non-null value in the slot came from `into_raw` of a `Notified<S>`, and
        // the access (exclusive, or a swap) handed it to us alone.
        NonNull::new(prev).map(|p| unsafe { Notified::from_raw_ptr(p) })
    }

    /// Takes the task in the slot, if any. Only the owner calls this.
    #[inline]
    pub fn take(&self) -> Option<Notified<S>> {
        if self.slot.load(Ordering::Relaxed).is_null() {
            // Empty, and only the owner fills it: nothing to take, no access needed.
            return None;
        }
        let prev = self.owner(
            |slot| {
                let prev = slot.load(Ordering::Relaxed);
                slot.store(ptr::null_mut(), Ordering::Relaxed);
                prev
            },
            |slot| slot.swap(ptr::null_mut(), Ordering::AcqRel),
        );
        // SAFETY: as in `replace`.
        NonNull::new(prev).map(|p| unsafe { Notified::from_raw_ptr(p) })
    }

    /// Takes the task in the slot, if any, from a thread that is not the owner (a take-over
    /// thread). Costs a `membarrier(2)` when the slot holds a task.
    pub fn steal(&self) -> Option<Notified<S>> {
        if self.slot.load(Ordering::Relaxed).is_null() {
            // Nothing there (the common case on a taker's poll loop): no barrier.
            return None;
        }
        self.thieves.fetch_add(1, Ordering::SeqCst);
        rt_core::asym::heavy();
        // Acquire (at least): the owner's last plain access happens before our swap.
        while self.owner_in.load(if cfg!(loom) {
            HANDSHAKE
        } else {
            Ordering::Acquire
        }) {
            // An owner access in progress: a few instructions, unless its thread lost the CPU.
            rt_core::sync::spin_loop();
        }
        let prev = self.slot.swap(ptr::null_mut(), Ordering::AcqRel);
        self.thieves.fetch_sub(1, Ordering::Release);
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
        // `&mut`: no other thread is about.
        drop(self.take());
    }
}

// SAFETY: the slot hands a `Notified<S>` (itself `Send + Sync` for a `Schedule`) between
// threads only through the exclusion of the module docs.
unsafe impl<S: Schedule> Send for LifoSlot<S> {}
// SAFETY: as above.
unsafe impl<S: Schedule> Sync for LifoSlot<S> {}
