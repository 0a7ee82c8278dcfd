//! A fixed-size single-producer single-consumer ring of trace [`Event`]s: one per worker, filled
//! by the worker (the [`Producer`]) and drained by the trace writer thread (the [`Consumer`]).
//!
//! The protocol (modelled in `loom-tests/tests/trace_ring.rs`):
//!
//! 1. Only the producer writes slots and `head`; only the consumer writes `tail`. Both indices
//!    only grow (wrapping), and `head - tail` never exceeds the capacity.
//! 2. The producer writes the slots of a push, then publishes them with one `Release` store of
//!    `head`; the consumer reads `head` with `Acquire` before it reads those slots. A push of
//!    several events (a spawn and its name) is seen whole or not at all.
//! 3. The consumer reads slots, then gives them back with a `Release` store of `tail`; the
//!    producer reads `tail` with `Acquire` before it overwrites a slot, so a slot is never
//!    written while it is being read.
//! 4. A push that does not fit is dropped, never waited for: the producer counts it in
//!    `dropped` (its own counter, a load and a store) and returns. A worker never blocks on the
//!    writer.

use std::marker::PhantomData;

use crossbeam_utils::CachePadded;
use rt_core::sync::{Arc, AtomicU64, AtomicUsize, Ordering, UnsafeCell};

/// One compact binary trace event (32 bytes, no allocation). What `task`, `a` and `b` hold
/// depends on `kind` (see `super::Kind`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Event {
    /// Raw clock reading (`super::Clock`).
    pub ts: u64,
    /// A task id, or 0.
    pub task: u64,
    /// Kind-specific.
    pub a: u64,
    /// Kind-specific.
    pub b: u32,
    /// The event's kind.
    pub kind: u32,
}

struct Ring {
    slots: Box<[UnsafeCell<Event>]>,
    mask: usize,
    /// Next slot the producer writes (rule 1: producer-owned).
    head: CachePadded<AtomicUsize>,
    /// Next slot the consumer reads (rule 1: consumer-owned).
    tail: CachePadded<AtomicUsize>,
    /// Events dropped because the ring was full (rule 4: producer-owned).
    dropped: CachePadded<AtomicU64>,
}

/// The writing end. One per ring; `Send` but not `Sync`, so one thread at a time pushes.
pub struct Producer {
    ring: Arc<Ring>,
    _not_sync: PhantomData<std::cell::Cell<()>>,
}

/// The reading end. One per ring; `Send` but not `Sync`.
pub struct Consumer {
    ring: Arc<Ring>,
    _not_sync: PhantomData<std::cell::Cell<()>>,
}

impl std::fmt::Debug for Producer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Producer").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Consumer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Consumer").finish_non_exhaustive()
    }
}

// SAFETY: the slots are only touched under rules 1-3: the producer writes slots the consumer
// has given back, the consumer reads slots the producer has published, each side through its
// one (non-`Sync`) handle.
unsafe impl Send for Ring {}
// SAFETY: as above.
unsafe impl Sync for Ring {}

/// A ring of `capacity` events (rounded up to a power of two, at least 2).
pub fn ring(capacity: usize) -> (Producer, Consumer) {
    let cap = capacity.max(2).next_power_of_two();
    let ring = Arc::new(Ring {
        slots: (0..cap)
            .map(|_| UnsafeCell::new(Event::default()))
            .collect(),
        mask: cap - 1,
        head: CachePadded::new(AtomicUsize::new(0)),
        tail: CachePadded::new(AtomicUsize::new(0)),
        dropped: CachePadded::new(AtomicU64::new(0)),
    });
    (
        Producer {
            ring: ring.clone(),
            _not_sync: PhantomData,
        },
        Consumer {
            ring,
            _not_sync: PhantomData,
        },
    )
}

impl Producer {
    /// Pushes one event, or drops it (and counts it) if the ring is full.
    #[inline]
    pub fn push(&self, e: Event) -> bool {
        self.push_all(&[e])
    }

    /// Pushes all of `events` or, if they do not all fit, none (each counted as dropped).
    #[inline]
    pub fn push_all(&self, events: &[Event]) -> bool {
        let r = &*self.ring;
        // Rule 1: `head` is ours.
        let head = r.head.load(Ordering::Relaxed);
        // Rule 3: the slots up to `tail` have been read.
        let tail = r.tail.load(Ordering::Acquire);
        if head.wrapping_sub(tail) + events.len() > r.slots.len() {
            // Rule 4: our own counter, so a load and a store.
            let d = r.dropped.load(Ordering::Relaxed);
            r.dropped
                .store(d.wrapping_add(events.len() as u64), Ordering::Relaxed);
            return false;
        }
        for (i, e) in events.iter().enumerate() {
            let slot = &r.slots[head.wrapping_add(i) & r.mask];
            // SAFETY: rules 1 and 3: this slot is past `head`, so unpublished, and the consumer
            // gave it back (it is within capacity of `tail`): nobody else touches it.
            slot.with_mut(|p| unsafe { p.write(*e) });
        }
        // Rule 2: publish.
        r.head
            .store(head.wrapping_add(events.len()), Ordering::Release);
        true
    }
}

impl Consumer {
    /// Moves every published event into `out`, oldest first; returns how many.
    pub fn drain(&self, out: &mut Vec<Event>) -> usize {
        let r = &*self.ring;
        // Rule 1: `tail` is ours.
        let tail = r.tail.load(Ordering::Relaxed);
        // Rule 2: the slots before `head` are written.
        let head = r.head.load(Ordering::Acquire);
        let n = head.wrapping_sub(tail);
        for i in 0..n {
            let slot = &r.slots[tail.wrapping_add(i) & r.mask];
            // SAFETY: rule 2: published and not given back yet, so the producer does not
            // write it until our `tail` store below.
            out.push(slot.with(|p| unsafe { *p }));
        }
        // Rule 3: give the slots back.
        r.tail.store(head, Ordering::Release);
        n
    }

    /// Events the producer has dropped so far.
    pub fn dropped(&self) -> u64 {
        self.ring.dropped.load(Ordering::Relaxed)
    }
}
