//! The queue of a bounded `mpsc` channel of at most [`MPSC_RING_MAX`](crate::tuning::MPSC_RING_MAX) slots: a lock-free ring of
//! stamped slots for many producers and one consumer, where every push holds a slot permit (the
//! `Semaphore` in `Shared`), so a push never finds the ring full and never fails. This file owns
//! the layout of the positions and stamps, and the values of the receiver's parking word.
//!
//! # Positions and stamps
//!
//! A position is a plain counter (wrapping); position `p` lives in slot `p & mask`, and the ring
//! has `size = max(2, bound.next_power_of_two())` slots (`mask = size - 1`), at least as many as
//! the channel has permits. Each slot has a stamp:
//!
//! - stamp `p`: the slot is free for the push at position `p`;
//! - stamp `p + 1`: it holds the value pushed at position `p`;
//! - the consumer frees it for the next lap with stamp `p + size`.
//!
//! With `size >= 2`, a slot at index `i` holds a value exactly when `stamp & mask == (i + 1) &
//! mask` (what `Drop` relies on).
//!
//! # The protocol
//!
//! 1. **Push** (a permit held). Claim a position with `tail.fetch_add(1, AcqRel)`, write the
//!    value, publish it with the stamp `p + 1` (release), then `unpark` (rule 3). The slot is
//!    free by then: permits count the values between the consumer and `tail`, and the consumer
//!    gives a permit back only after it has freed the slot (rule 2). If `p` was claimed,
//!    `p + 1` claims were made with permits, so at least `p + 1 - bound` pops had given theirs
//!    back; each claim's `AcqRel` makes the claims before it, and through them
//!    their permits' acquisitions and the releases those read, happen before it. So the pop of
//!    position `p - size` has freed the slot, and this push sees that. A push still checks the
//!    stamp and spins while it is not `p` (never observed; it is the one place a bug in the
//!    accounting would show up, and it is cheaper than a wrong write).
//! 2. **Pop** (the one consumer, with its own `head`). The slot at `head` with stamp `head + 1`
//!    (acquire) holds a value: read it, free the slot (stamp `head + size`, release), advance
//!    `head`, and only then give the permit back (`Shared::release_slots`). A slot without that
//!    stamp is empty *or half-written*: a push claimed it and has not published it yet. Either
//!    way the consumer reports "nothing yet": the half-way push wakes it when it publishes
//!    (rule 1), so it never waits on the other side.
//! 3. **Waiting: the parking word** (`IDLE`, `REGISTERING`, `PARKED`, `WAKING`). A receiver
//!    that found nothing `park`s: it takes `REGISTERING` from `IDLE` or `PARKED` (waiting
//!    while a wake holds `WAKING`: a pointer move), puts its waker in the cell, stores `PARKED`
//!    (release), and after a `SeqCst` fence pops again (and looks at the close again). A push
//!    (or a close, or a permit given back unused) `unpark`s: after its own `SeqCst` fence it
//!    looks at the word and, only if it reads `PARKED`, elects itself with one
//!    `PARKED -> WAKING` compare-and-swap, takes the waker, stores `IDLE` and wakes it. The two
//!    fences make a store-buffering pair: either the push sees `PARKED` (and, acquiring it, the
//!    waker), or the receiver's second pop sees the stamp. Nothing writes the word while the
//!    receiver is running (a push only loads it), and a receiver that finds a value after
//!    parking puts the word back to `IDLE` (`cancel_park`), so running receivers are not woken.
//! 4. **Close** (`close`). Stores `closed` (release) and unparks the receiver. The channel
//!    closes the ring only when the last strong sender goes, which no permit outlives, and the
//!    senders count's read-modify-writes order every push before it. So a receiver that sees
//!    `closed` (acquire) and then finds the slot at `head` empty has received everything: no
//!    half-written slot is left. After `Receiver::close` the ring is not closed; the receiver
//!    ends once every slot permit is back (`done`, `mod.rs`), and the permit given back unused
//!    that makes it so unparks it (`wake_receiver_if`: the condition is read after the fence,
//!    so of the permits given back concurrently the last one, which sees them all, wakes it).

use std::mem::MaybeUninit;
use std::task::{Context, Poll, Waker};

use rt_core::sync::{fence, spin_loop, AtomicBool, AtomicUsize, Ordering, UnsafeCell};

use crate::waiters::set_waker;

type Padded<T> = crossbeam_utils::CachePadded<T>;

struct Slot<T> {
    stamp: AtomicUsize,
    value: UnsafeCell<MaybeUninit<T>>,
}

pub(super) struct Ring<T> {
    /// The next position to claim (rule 1).
    tail: Padded<AtomicUsize>,
    /// The receiver's waker (rule 3) and the close flag (rule 4), on the consumer's side.
    rx: Padded<RxSide>,
    slots: Box<[Slot<T>]>,
    mask: usize,
}

struct RxSide {
    /// The receiver's parking word (`IDLE`, `REGISTERING`, `PARKED`, `WAKING`; rule 3).
    state: AtomicUsize,
    /// The receiver's waker: written under `REGISTERING`, taken under `WAKING`.
    waker: UnsafeCell<Option<Waker>>,
    closed: AtomicBool,
}

// SAFETY: values move between threads through the slots (so `T: Send`); a slot's value is
// written only by the push that claimed its position with `tail` and read only by the consumer
// after the stamp that publishes it (acquire/release, module docs).
unsafe impl<T: Send> Send for Ring<T> {}
// SAFETY: as above; `&Ring` only moves values in and out, never shares a `&T`.
unsafe impl<T: Send> Sync for Ring<T> {}

impl<T> Ring<T> {
    /// A ring for a channel of `bound` permits, `1 <= bound <= RING_MAX`.
    pub(super) fn new(bound: usize) -> Ring<T> {
        let size = bound.next_power_of_two().max(2);
        Ring {
            tail: Padded::new(AtomicUsize::new(0)),
            rx: Padded::new(RxSide {
                state: AtomicUsize::new(IDLE),
                waker: UnsafeCell::new(None),
                closed: AtomicBool::new(false),
            }),
            slots: (0..size)
                .map(|i| Slot {
                    stamp: AtomicUsize::new(i),
                    value: UnsafeCell::new(MaybeUninit::uninit()),
                })
                .collect(),
            mask: size - 1,
        }
    }

    /// Rule 1. The caller holds a slot permit for this push.
    pub(super) fn push(&self, value: T) {
        let pos = self.tail.fetch_add(1, Ordering::AcqRel);
        let slot = &self.slots[pos & self.mask];
        while slot.stamp.load(Ordering::Acquire) != pos {
            // Not reached while the permits are counted right (module docs).
            spin_loop();
        }
        // SAFETY: the claim gave this thread position `pos`, and the stamp (acquired) says the
        // consumer has freed the slot: nobody else touches the value until the stamp below.
        slot.value.with_mut(|p| unsafe { (*p).write(value) });
        slot.stamp.store(pos.wrapping_add(1), Ordering::Release);
        self.unpark();
    }

    /// Rule 3, the waking side: after a `SeqCst` fence (pairing with `park`'s), wakes the
    /// receiver if it is parked. One compare-and-swap elects the waker; nothing is written
    /// while the receiver is not parked.
    fn unpark(&self) {
        self.unpark_if(|| true);
    }

    /// [`unpark`](Self::unpark) only if `wanted()`, asked after the fence and only once the
    /// receiver is seen parked: the fence pairs with the receiver's, so `wanted` reads what
    /// was written before the receiver parked, and a wake that `wanted` declines is one the
    /// receiver's own look after parking does not need.
    fn unpark_if(&self, wanted: impl FnOnce() -> bool) {
        fence(Ordering::SeqCst);
        if self.rx.state.load(Ordering::Relaxed) == PARKED
            && wanted()
            && self
                .rx
                .state
                .compare_exchange(PARKED, WAKING, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        {
            // SAFETY: `WAKING` (set by us over `PARKED`) gives us the cell: the receiver writes
            // it only under `REGISTERING`, which it takes from `IDLE` or `PARKED` alone.
            let w = self.rx.waker.with_mut(|w| unsafe { (*w).take() });
            self.rx.state.store(IDLE, Ordering::Release);
            if let Some(w) = w {
                w.wake();
            }
        }
    }

    /// Rule 3, the receiver's side: registers `waker` and publishes `PARKED`, then fences.
    fn park(&self, waker: &Waker) {
        let mut s = self.rx.state.load(Ordering::Relaxed);
        loop {
            if s == WAKING {
                // A wake is moving the old waker out: a few instructions.
                spin_loop();
                s = self.rx.state.load(Ordering::Relaxed);
                continue;
            }
            match self.rx.state.compare_exchange(
                s,
                REGISTERING,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(actual) => s = actual,
            }
        }
        // SAFETY: `REGISTERING` (set by us) keeps wakes off the cell; nobody else writes the
        // state until we store `PARKED`.
        self.rx
            .waker
            .with_mut(|w| set_waker(unsafe { &mut *w }, waker));
        self.rx.state.store(PARKED, Ordering::Release);
        fence(Ordering::SeqCst);
    }

    /// The receiver found a value after all: no wake is needed (one that already took the
    /// waker goes ahead harmlessly).
    fn cancel_park(&self) {
        if self.rx.state.load(Ordering::Relaxed) == PARKED {
            let _ =
                self.rx
                    .state
                    .compare_exchange(PARKED, IDLE, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// Rule 2: the value at `head`, if it is published.
    pub(super) fn pop(&self, head: &mut usize) -> Option<T> {
        let slot = &self.slots[*head & self.mask];
        if slot.stamp.load(Ordering::Acquire) != head.wrapping_add(1) {
            return None;
        }
        // SAFETY: the stamp (acquired) publishes the value written at position `head`; only the
        // one consumer (holding `&mut head`) reads it, once, then frees the slot.
        let value = slot.value.with(|p| unsafe { (*p).assume_init_read() });
        slot.stamp
            .store(head.wrapping_add(self.mask + 1), Ordering::Release);
        *head = head.wrapping_add(1);
        Some(value)
    }

    /// Rules 2 to 4: a value, `None` once closed and drained, or pending with the waker
    /// registered.
    pub(super) fn poll_pop(
        &self,
        head: &mut usize,
        cx: &Context<'_>,
        done: impl Fn() -> bool,
    ) -> Poll<Option<T>> {
        if let Some(v) = self.pop(head) {
            // Parked by an earlier poll that was woken for something else: pushes need not
            // wake it now.
            self.cancel_park();
            return Poll::Ready(Some(v));
        }
        if self.rx.closed.load(Ordering::Acquire) || done() {
            self.cancel_park();
            return Poll::Ready(self.pop(head));
        }
        self.park(cx.waker());
        if let Some(v) = self.pop(head) {
            self.cancel_park();
            return Poll::Ready(Some(v));
        }
        if self.rx.closed.load(Ordering::Acquire) || done() {
            self.cancel_park();
            return Poll::Ready(self.pop(head));
        }
        Poll::Pending
    }

    /// A value if one is published; `Err(true)` once closed and drained.
    pub(super) fn try_pop(&self, head: &mut usize, done: impl Fn() -> bool) -> Result<T, bool> {
        if let Some(v) = self.pop(head) {
            return Ok(v);
        }
        if self.rx.closed.load(Ordering::Acquire) || done() {
            return self.pop(head).ok_or(true);
        }
        Err(false)
    }

    /// Rule 4.
    pub(super) fn close(&self) {
        self.rx.closed.store(true, Ordering::Release);
        self.unpark();
    }

    /// Wakes the receiver if it waits and `wanted()` (a permit given back unused: the last
    /// one out, which a closed receiver waits for; rule 4). See `unpark_if`.
    pub(super) fn wake_receiver_if(&self, wanted: impl FnOnce() -> bool) {
        self.unpark_if(wanted);
    }

    /// The receiver is gone: its waker need not be kept (it may keep its task's memory alive).
    pub(super) fn receiver_gone(&self) {
        let s = self.rx.state.load(Ordering::Relaxed);
        if s != WAKING
            && self
                .rx
                .state
                .compare_exchange(s, REGISTERING, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        {
            // SAFETY: `REGISTERING` (set by us) keeps wakes off the cell.
            let w = self.rx.waker.with_mut(|w| unsafe { (*w).take() });
            self.rx.state.store(IDLE, Ordering::Release);
            drop(w);
        }
    }

    pub(super) fn is_closed(&self) -> bool {
        self.rx.closed.load(Ordering::Acquire)
    }

    /// Claimed positions past `head` (a claimed slot may still be being written).
    pub(super) fn len(&self, head: usize) -> usize {
        self.tail.load(Ordering::Acquire).wrapping_sub(head)
    }
}

impl<T> Drop for Ring<T> {
    fn drop(&mut self) {
        // Exclusive access: every push has published its stamp; a slot holds a value exactly
        // when its stamp is one past its index, modulo the size (module docs).
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let stamp = slot.stamp.load(Ordering::Relaxed);
            if stamp & self.mask == (i + 1) & self.mask {
                // SAFETY: the stamp says the slot holds a value no pop has taken; dropped once.
                slot.value.with_mut(|p| unsafe { (*p).assume_init_drop() });
            }
        }
    }
}

// The receiver's parking word (rule 3); this file owns its values.
/// Not parked: pushes do not wake.
const IDLE: usize = 0;
/// The receiver is writing its waker.
const REGISTERING: usize = 1;
/// The receiver waits with its waker in the cell: the next push (or close, or returned permit)
/// wakes it.
const PARKED: usize = 2;
/// A waker elected by `PARKED -> WAKING` is taking the waker out of the cell.
const WAKING: usize = 3;
