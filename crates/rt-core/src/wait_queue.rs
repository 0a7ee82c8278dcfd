//! A FIFO queue of waiters with O(1) removal from the middle, in safe code: the waiter queue of
//! rt-sync's channels (`channel/`, `broadcast.rs`, `watch.rs`) and of rt-io's readiness slots
//! (`scheduled_io.rs`). It lives in rt-core because rt-io and rt-sync both use it and neither
//! may depend on the other; it is plain data (no synchronisation), kept under its owner's lock.
//!
//! Each waiter lives in a slot of a slab; the FIFO order is a ring of `Key`s naming those slots.
//! A `Key` carries the slot's generation, so removing a waiter (a cancelled future) only frees
//! its slot: the stale key left in the ring no longer matches and is skipped when it reaches the
//! front. When stale keys outnumber the live ones the ring is compacted, so a waiter that is
//! cancelled over and over without anyone popping cannot grow the ring without bound.
//!
//! Slots are reused, so a steady state of waiting and waking allocates nothing.
//!
//! A waiter's future keeps its `Key`. "My key is still in the queue" means "nobody has served me
//! yet"; a key that is gone means a waker (or a receiver that took my value) removed it.
//!
//! # Why rt-sync's `waiters.rs` is a second, different list
//!
//! The workspace has exactly two waiter queues, and they differ on purpose:
//!
//! - **This one** (keyed slab): a waiter's entry is owned by the queue, and the future holds only
//!   a `Key`, so the future may move freely and the code is safe. Entries are values (`Waker`
//!   plus whatever the owner stores), reached by key under the owner's lock; `push_front` lets a
//!   served waiter keep its turn. It costs a slot in a `Vec` (amortised, reused).
//! - **rt-sync's `waiters.rs`** (intrusive list): the node lives *inside* the pinned future, so
//!   queueing never allocates, and a notifier may write into the waiter's node (the semaphore's
//!   permit hand-off, `Notify`'s notification kind) and leave it to be read after the lock is
//!   released. That needs `unsafe` and pinning (its rules 1–3), which only the semaphore (and
//!   the mutex, rwlock, condvar, barrier built on it) and `Notify` pay for, as they sit on hot
//!   lock paths where an allocation per contended acquire would show.
//!
//! A third list (rt-io's own `Vec` of keyed wakers) was folded into this one.

use std::collections::VecDeque;

/// Names one waiter; unique for the queue's lifetime (slot index plus that slot's generation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    index: u32,
    generation: u32,
}

#[derive(Debug)]
struct Slot<E> {
    /// Bumped every time the slot is freed, so keys naming earlier occupants go stale.
    generation: u32,
    entry: Option<E>,
}

/// FIFO waiters, each reachable by its [`Key`].
#[derive(Debug)]
pub struct WaitQueue<E> {
    slots: Vec<Slot<E>>,
    free: Vec<u32>,
    /// Keys in FIFO order; some may be stale (their waiter was removed).
    order: VecDeque<Key>,
    live: usize,
}

impl<E> Default for WaitQueue<E> {
    fn default() -> WaitQueue<E> {
        WaitQueue::new()
    }
}

impl<E> WaitQueue<E> {
    /// An empty queue (allocates nothing until the first waiter).
    pub const fn new() -> WaitQueue<E> {
        WaitQueue {
            slots: Vec::new(),
            free: Vec::new(),
            order: VecDeque::new(),
            live: 0,
        }
    }

    /// Whether no waiter is queued.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Number of queued waiters.
    pub fn len(&self) -> usize {
        self.live
    }

    fn insert(&mut self, entry: E) -> Key {
        self.live += 1;
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            debug_assert!(slot.entry.is_none());
            slot.entry = Some(entry);
            return Key {
                index,
                generation: slot.generation,
            };
        }
        let index = u32::try_from(self.slots.len()).expect("more than u32::MAX waiters");
        self.slots.push(Slot {
            generation: 0,
            entry: Some(entry),
        });
        Key {
            index,
            generation: 0,
        }
    }

    /// Adds a waiter behind all others.
    pub fn push_back(&mut self, entry: E) -> Key {
        let key = self.insert(entry);
        self.order.push_back(key);
        key
    }

    /// Adds a waiter ahead of all others: one that was served but found nothing keeps its turn.
    pub fn push_front(&mut self, entry: E) -> Key {
        let key = self.insert(entry);
        self.order.push_front(key);
        key
    }

    fn is_live(&self, key: Key) -> bool {
        let slot = &self.slots[key.index as usize];
        slot.generation == key.generation && slot.entry.is_some()
    }

    /// The waiter named by `key`, if it is still queued.
    pub fn get_mut(&mut self, key: Key) -> Option<&mut E> {
        let slot = self.slots.get_mut(key.index as usize)?;
        if slot.generation != key.generation {
            return None;
        }
        slot.entry.as_mut()
    }

    /// Whether the waiter named by `key` is still queued.
    pub fn contains(&self, key: Key) -> bool {
        self.slots
            .get(key.index as usize)
            .is_some_and(|s| s.generation == key.generation && s.entry.is_some())
    }

    fn free_slot(&mut self, index: u32) -> E {
        let slot = &mut self.slots[index as usize];
        let entry = slot.entry.take().expect("freeing an empty slot");
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(index);
        self.live -= 1;
        entry
    }

    /// Takes the waiter named by `key` out of the queue, wherever it stands.
    pub fn remove(&mut self, key: Key) -> Option<E> {
        if !self.contains(key) {
            return None;
        }
        let entry = self.free_slot(key.index);
        if self.order.len() > 2 * self.live + 16 {
            let slots = &self.slots;
            self.order.retain(|k| {
                let s = &slots[k.index as usize];
                s.generation == k.generation && s.entry.is_some()
            });
        }
        Some(entry)
    }

    fn skip_stale(&mut self) {
        while let Some(&key) = self.order.front() {
            if self.is_live(key) {
                return;
            }
            self.order.pop_front();
        }
    }

    /// Takes the first waiter out of the queue.
    pub fn pop_front(&mut self) -> Option<E> {
        self.skip_stale();
        let key = self.order.pop_front()?;
        Some(self.free_slot(key.index))
    }

    /// Every queued waiter, in slot order (not FIFO order), left in the queue.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut E> {
        self.slots.iter_mut().filter_map(|s| s.entry.as_mut())
    }

    /// Takes every waiter for which `pred` holds out of the queue, in FIFO order, handing each
    /// to `take`; the others keep their place.
    pub fn take_matching(&mut self, mut pred: impl FnMut(&E) -> bool, mut take: impl FnMut(E)) {
        if self.order.is_empty() {
            // The common case on a socket's readiness slot (its `poll_*` waiters have slots of
            // their own): nothing to move out and back.
            return;
        }
        let mut order = std::mem::take(&mut self.order);
        order.retain(|&key| {
            if !self.is_live(key) {
                return false;
            }
            let slot = &self.slots[key.index as usize];
            if slot.entry.as_ref().is_some_and(&mut pred) {
                take(self.free_slot(key.index));
                false
            } else {
                true
            }
        });
        self.order = order;
    }

    /// Takes every waiter out of the queue, in FIFO order.
    pub fn drain(&mut self) -> Vec<E> {
        let mut out = Vec::with_capacity(self.live);
        while let Some(e) = self.pop_front() {
            out.push(e);
        }
        self.order.clear();
        out
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::WaitQueue;

    #[test]
    fn fifo_with_removal_from_the_middle() {
        let mut q = WaitQueue::new();
        let a = q.push_back('a');
        let b = q.push_back('b');
        let c = q.push_back('c');
        assert_eq!(q.remove(b), Some('b'));
        assert_eq!(q.remove(b), None);
        let d = q.push_front('d');
        assert!(q.contains(a) && q.contains(c) && q.contains(d) && !q.contains(b));
        assert_eq!(q.live, 3);
        assert_eq!(q.pop_front(), Some('d'));
        assert_eq!(q.pop_front(), Some('a'));
        assert_eq!(q.pop_front(), Some('c'));
        assert_eq!(q.pop_front(), None);
        assert!(q.is_empty());
        // A key of a reused slot does not name the new occupant.
        let e = q.push_back('e');
        assert_eq!(q.get_mut(a), None);
        assert_eq!(q.get_mut(e).copied(), Some('e'));
    }

    #[test]
    fn take_matching_keeps_fifo_order_and_the_rest() {
        let mut q = WaitQueue::new();
        let keys: Vec<_> = (0..6).map(|i| q.push_back(i)).collect();
        q.remove(keys[2]);
        let mut taken = Vec::new();
        q.take_matching(|&i| i % 2 == 1, |i| taken.push(i));
        assert_eq!(taken, [1, 3, 5]);
        assert!(q.contains(keys[0]) && q.contains(keys[4]) && !q.contains(keys[1]));
        assert_eq!(q.len(), 2);
        assert_eq!(q.pop_front(), Some(0));
        assert_eq!(q.pop_front(), Some(4));
        assert!(q.is_empty());
    }

    #[test]
    fn repeated_cancellation_keeps_the_ring_small() {
        let mut q = WaitQueue::new();
        let keep = q.push_back(0);
        for i in 0..10_000 {
            let k = q.push_back(i);
            q.remove(k);
        }
        assert!(q.order.len() <= 2 * q.live + 17);
        assert_eq!(q.slots.len(), 2);
        assert_eq!(q.remove(keep), Some(0));
    }
}
