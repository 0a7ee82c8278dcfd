//! A bounded, lock-free MPMC ring of slots with stamps (Dmitry Vyukov's bounded queue, as in
//! crossbeam's `ArrayQueue` and concurrent-queue's `Bounded`), with a close mark: the buffer of
//! a bounded channel (`ring_chan.rs`). This file owns the layout of the position words.
//!
//! # Positions and stamps
//!
//! `head` and `tail` are positions: `{ lap, mark, index }` packed in one `usize`. `index` (the low
//! bits, below `mark_bit`) is the slot, `mark_bit = (cap + 1).next_power_of_two()` is the close
//! mark (only ever set in `tail`), and the bits from `one_lap = 2 * mark_bit` up count laps.
//! Every slot has a stamp: a slot is free for the push at position `p` when its stamp is `p`, and
//! holds the value for the pop at position `p` when its stamp is `p + 1`. A pusher moves `tail`
//! by compare-and-swap, then writes the value and publishes it with the stamp `tail + 1`
//! (release); a popper moves `head` the same way, reads the value and frees the slot for the next
//! lap with the stamp `head + one_lap` (release). The stamp is the only thing that hands a
//! slot's value between threads: the acquire load of a matching stamp comes after the write it
//! publishes.
//!
//! A push that finds its slot still holding last lap's value looks at `head`: one lap behind
//! `tail` means full. A pop that finds its slot not yet written looks at
//! `tail`: equal to `head` means empty, and empty with the mark set means closed and drained.
//!
//! **No waiting on the other side.** Vyukov's queue (and crossbeam's) spins when the other side
//! is half-way through an operation on the slot (a pop has moved `head` past it but not yet freed
//! it, or a push has moved `tail` past it but not yet written it). On a loaded machine the thread
//! half-way through may be descheduled for milliseconds, and the spinner burns them. Here a push
//! that finds its slot being popped reports `Full`, and a pop that finds its slot being pushed
//! reports `Empty` (`Closed` is only reported with `tail == head`, so never while a push is
//! under way). The channel (`ring_chan.rs`) makes that safe: the half-way side, having published
//! its stamp, looks for waiters after a `SeqCst` fence (a pop only at the end of a refill batch;
//! its rule 3 says why the others need not), and the side that gave up queues itself and looks
//! at the ring again after its own fence, so one of the two sees the other. Spinning
//! (`spin_loop`, a yield under loom) is left only for a stale `head` or `tail`, which a reload
//! fixes. Once the mark is set no push succeeds, so a pop that reports `Closed` has seen every
//! value that was ever pushed.

use std::mem::MaybeUninit;

use rt_core::sync::{spin_loop, AtomicUsize, Ordering, UnsafeCell};

type Padded<T> = crossbeam_utils::CachePadded<T>;

/// Why a push failed; the value comes back.
pub(super) enum PushError<T> {
    Full(T),
    Closed(T),
}

/// Why a pop found nothing.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum PopError {
    Empty,
    /// Closed and every pushed value popped.
    Closed,
}

struct Slot<T> {
    stamp: AtomicUsize,
    value: UnsafeCell<MaybeUninit<T>>,
}

pub(super) struct Ring<T> {
    head: Padded<AtomicUsize>,
    tail: Padded<AtomicUsize>,
    slots: Box<[Slot<T>]>,
    mark_bit: usize,
    one_lap: usize,
}

// SAFETY: values move between threads through the slots (so `T: Send`), and a slot's value is
// only touched by the one thread whose compare-and-swap of `head` or `tail` claimed it, ordered
// by the stamp's release/acquire (module docs).
unsafe impl<T: Send> Send for Ring<T> {}
// SAFETY: as above; `&Ring` only moves values in and out, never shares a `&T`.
unsafe impl<T: Send> Sync for Ring<T> {}

impl<T> Ring<T> {
    /// A ring of `cap` slots; `cap >= 1`.
    pub(super) fn new(cap: usize) -> Ring<T> {
        assert!(cap >= 1, "a ring has at least one slot");
        let mark_bit = (cap + 1).next_power_of_two();
        Ring {
            head: Padded::new(AtomicUsize::new(0)),
            tail: Padded::new(AtomicUsize::new(0)),
            slots: (0..cap)
                .map(|i| Slot {
                    stamp: AtomicUsize::new(i),
                    value: UnsafeCell::new(MaybeUninit::uninit()),
                })
                .collect(),
            mark_bit,
            one_lap: mark_bit * 2,
        }
    }

    /// The position after `pos` (whose mark is clear).
    fn next(&self, pos: usize) -> usize {
        let index = pos & (self.mark_bit - 1);
        if index + 1 < self.slots.len() {
            pos + 1
        } else {
            (pos & !(self.one_lap - 1)).wrapping_add(self.one_lap)
        }
    }

    pub(super) fn push(&self, value: T) -> Result<(), PushError<T>> {
        match self.reserve() {
            Ok(slot) => {
                slot.write(value);
                Ok(())
            }
            Err(PushError::Full(())) => Err(PushError::Full(value)),
            Err(PushError::Closed(())) => Err(PushError::Closed(value)),
        }
    }

    /// Claims the slot for the next push; the caller writes it with [`Reserved::write`] at once
    /// (pops wait for it). Lets a caller move a value in only once there is room for it.
    pub(super) fn reserve(&self) -> Result<Reserved<'_, T>, PushError<()>> {
        let mut tail = self.tail.load(Ordering::Relaxed);
        loop {
            if tail & self.mark_bit != 0 {
                return Err(PushError::Closed(()));
            }
            let slot = &self.slots[tail & (self.mark_bit - 1)];
            let stamp = slot.stamp.load(Ordering::Acquire);
            if stamp == tail {
                match self.tail.compare_exchange(
                    tail,
                    self.next(tail),
                    Ordering::SeqCst,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => return Ok(Reserved { slot, tail }),
                    Err(t) => tail = t,
                }
            } else if stamp.wrapping_add(self.one_lap) == tail + 1 {
                // The slot holds last lap's value: full, or a pop has taken it and not yet
                // freed the slot, which counts as full too (module docs: no waiting). Either way
                // `Full` unless `tail` was stale, so no fence before looking at `head`.
                let head = self.head.load(Ordering::Relaxed);
                let now = self.tail.load(Ordering::Relaxed);
                if head.wrapping_add(self.one_lap) == tail || now == tail {
                    return Err(PushError::Full(()));
                }
                // `tail` was stale.
                spin_loop();
                tail = now;
            } else {
                // `tail` was stale: another push has claimed the slot. Look again.
                spin_loop();
                tail = self.tail.load(Ordering::Relaxed);
            }
        }
    }

    pub(super) fn pop(&self) -> Result<T, PopError> {
        self.pop_indexed().map(|(value, _)| value)
    }

    /// Pops, also returning the index of the slot the value was in.
    pub(super) fn pop_indexed(&self) -> Result<(T, usize), PopError> {
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            let slot = &self.slots[head & (self.mark_bit - 1)];
            let stamp = slot.stamp.load(Ordering::Acquire);
            if stamp == head + 1 {
                match self.head.compare_exchange(
                    head,
                    self.next(head),
                    Ordering::SeqCst,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        // SAFETY: the compare-and-swap gave this thread the slot at `head`, whose
                        // stamp (acquired) says the value was written: it is read exactly once,
                        // then the slot is freed for the next lap.
                        let value = slot.value.with(|p| unsafe { p.read().assume_init() });
                        slot.stamp
                            .store(head.wrapping_add(self.one_lap), Ordering::Release);
                        return Ok((value, head & (self.mark_bit - 1)));
                    }
                    Err(h) => head = h,
                }
            } else if stamp == head {
                // Not written: empty, or a push has claimed the slot and not yet written it,
                // which counts as empty too (module docs: no waiting). Either way `Empty` unless
                // closed, so no fence before looking at `tail`: a `tail` with the mark is the
                // last one (no push succeeds after it), and a stale one without it says `Empty`
                // for a close still in progress, which the caller's locked look settles.
                let tail = self.tail.load(Ordering::Relaxed);
                if tail & !self.mark_bit == head {
                    return Err(if tail & self.mark_bit != 0 {
                        PopError::Closed
                    } else {
                        PopError::Empty
                    });
                }
                let now = self.head.load(Ordering::Relaxed);
                if now == head {
                    return Err(PopError::Empty);
                }
                // `head` was stale.
                spin_loop();
                head = now;
            } else {
                // `head` was stale: another pop has claimed the slot. Look again.
                spin_loop();
                head = self.head.load(Ordering::Relaxed);
            }
        }
    }

    /// Sets the close mark; returns whether this call set it. No push succeeds afterwards.
    pub(super) fn close(&self) -> bool {
        self.tail.fetch_or(self.mark_bit, Ordering::SeqCst) & self.mark_bit == 0
    }

    /// The number of values in the ring (a snapshot).
    pub(super) fn len(&self) -> usize {
        loop {
            let tail = self.tail.load(Ordering::SeqCst);
            let head = self.head.load(Ordering::SeqCst);
            if self.tail.load(Ordering::SeqCst) == tail {
                let hix = head & (self.mark_bit - 1);
                let tix = tail & (self.mark_bit - 1);
                return if hix < tix {
                    tix - hix
                } else if hix > tix {
                    self.slots.len() - hix + tix
                } else if tail & !self.mark_bit == head {
                    0
                } else {
                    self.slots.len()
                };
            }
            spin_loop();
        }
    }

    /// Whether the ring looked empty (a snapshot).
    pub(super) fn is_empty(&self) -> bool {
        let head = self.head.load(Ordering::SeqCst);
        let tail = self.tail.load(Ordering::SeqCst);
        tail & !self.mark_bit == head
    }
}

/// A slot claimed by [`Ring::reserve`], to be written at once.
#[must_use = "a reserved slot must be written: pops wait for it"]
pub(super) struct Reserved<'a, T> {
    slot: &'a Slot<T>,
    tail: usize,
}

impl<T> Reserved<'_, T> {
    /// Writes the value and publishes it.
    pub(super) fn write(self, value: T) {
        // SAFETY: the compare-and-swap of `tail` in `reserve` gave this thread the slot, whose
        // stamp said free: no other thread touches its value until the stamp below publishes it
        // (module docs).
        self.slot
            .value
            .with_mut(|p| unsafe { p.write(MaybeUninit::new(value)) });
        self.slot.stamp.store(self.tail + 1, Ordering::Release);
    }
}

impl<T> Drop for Ring<T> {
    fn drop(&mut self) {
        // Exclusive access: every push and pop has finished, so the values are the slots from
        // `head` to `tail`, each written and not yet read.
        let head = self.head.load(Ordering::Relaxed);
        let len = self.len();
        let hix = head & (self.mark_bit - 1);
        for i in 0..len {
            let index = (hix + i) % self.slots.len();
            self.slots[index].value.with_mut(|p| {
                // SAFETY: slots from `head` for `len` hold values no pop has taken (above);
                // each is dropped once here.
                unsafe { (*p).assume_init_drop() }
            });
        }
    }
}

impl<T> std::fmt::Debug for Ring<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ring")
            .field("cap", &self.slots.len())
            .field("len", &self.len())
            .finish()
    }
}
