//! A FIFO queue of waiters with O(1) removal from the middle, in safe code.
//!
//! Each waiter lives in a slot of a slab; the FIFO order is a ring of `Key`s naming those slots.
//! A `Key` carries the slot's generation, so removing a waiter (a cancelled future) only frees
//! its slot: the stale key left in the ring no longer matches and is skipped when it reaches the
//! front. When stale keys outnumber the live ones the ring is compacted, so a waiter that is
//! cancelled over and over without anyone popping cannot grow the ring without bound.
//!
//! The queue is plain data: the channel that owns it keeps it under its lock. Slots are reused,
//! so a steady state of waiting and waking allocates nothing.
//!
//! A waiter's future keeps its `Key`. "My key is still in the queue" means "nobody has served me
//! yet"; a key that is gone means a waker (or a receiver that took my value) removed it.

use std::collections::VecDeque;

/// Names one waiter; unique for the queue's lifetime (slot index plus that slot's generation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key {
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
pub(crate) struct WaitQueue<E> {
    slots: Vec<Slot<E>>,
    free: Vec<u32>,
    /// Keys in FIFO order; some may be stale (their waiter was removed).
    order: VecDeque<Key>,
    live: usize,
}

impl<E> WaitQueue<E> {
    pub(crate) const fn new() -> WaitQueue<E> {
        WaitQueue {
            slots: Vec::new(),
            free: Vec::new(),
            order: VecDeque::new(),
            live: 0,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Number of queued waiters.
    pub(crate) fn len(&self) -> usize {
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
    pub(crate) fn push_back(&mut self, entry: E) -> Key {
        let key = self.insert(entry);
        self.order.push_back(key);
        key
    }

    /// Adds a waiter ahead of all others: one that was served but found nothing keeps its turn.
    pub(crate) fn push_front(&mut self, entry: E) -> Key {
        let key = self.insert(entry);
        self.order.push_front(key);
        key
    }

    fn is_live(&self, key: Key) -> bool {
        let slot = &self.slots[key.index as usize];
        slot.generation == key.generation && slot.entry.is_some()
    }

    /// The waiter named by `key`, if it is still queued.
    pub(crate) fn get_mut(&mut self, key: Key) -> Option<&mut E> {
        let slot = self.slots.get_mut(key.index as usize)?;
        if slot.generation != key.generation {
            return None;
        }
        slot.entry.as_mut()
    }

    /// Whether the waiter named by `key` is still queued.
    pub(crate) fn contains(&self, key: Key) -> bool {
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
    pub(crate) fn remove(&mut self, key: Key) -> Option<E> {
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
    pub(crate) fn pop_front(&mut self) -> Option<E> {
        self.skip_stale();
        let key = self.order.pop_front()?;
        Some(self.free_slot(key.index))
    }

    /// Every queued waiter, in slot order (not FIFO order), left in the queue.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut E> {
        self.slots.iter_mut().filter_map(|s| s.entry.as_mut())
    }

    /// Takes every waiter out of the queue, in FIFO order.
    pub(crate) fn drain(&mut self) -> Vec<E> {
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
