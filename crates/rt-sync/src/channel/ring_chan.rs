//! A bounded channel (capacity 1 to `CHANNEL_RING_MAX`) on a lock-free slot ring (`mpmc_ring.rs`): sends and
//! receives that find room or a value touch no lock; the lock is only taken to wait, to wake a
//! waiter, or to move blocked senders' values into the ring.
//!
//! # The protocol
//!
//! The rules of `chan.rs` (Go's, made cancellation-safe) with the ring as `buf`, and no `head`:
//!
//! 1. A sender that finds no blocked sender (`counts.blocked == 0`) pushes into the ring without
//!    the lock. Having pushed, it looks (after a `SeqCst` fence) at `counts.waiting`; if a
//!    receiver waits, it takes the lock and wakes the first one.
//! 2. A sender that finds the ring full, or blocked senders ahead of it, takes the lock. There it
//!    first moves blocked values into the ring (rule 3's refill), then pushes its own if nobody is
//!    still blocked, else queues in `blocked` with its value, publishes `counts.blocked`, and
//!    (after a `SeqCst` fence) refills again: a receiver that popped before it could see the new
//!    count did not refill, and this second look finds the room it made. If that refill took the
//!    sender's own entry, the send is done. Blocked senders complete as in `chan.rs` (tickets
//!    and `served`, or the entry gone from `blocked`).
//! 3. A receiver pops without the lock. A pop that frees the last slot of a batch (slot index
//!    `i` with `(i + 1) % refill_every == 0`, or the ring's last slot; `refill_every` is
//!    `cap / 16`, between 1 and 64) then looks (after a `SeqCst` fence) at `counts.blocked`; if
//!    a sender is blocked, it takes the lock and refills: blocked values move into the ring in
//!    queue order while it has room, and their senders are woken (their sends are done). Each
//!    value a refill or a locked push puts in the ring wakes one queued receiver. Other pops
//!    neither look nor refill: while the ring is full and senders are blocked, that is one lock
//!    and one wake-up per sender per batch instead of one per value (the woken senders then find
//!    a batch of room and push without blocking). The price: with a capacity of 32 or more, a
//!    blocked send may stay pending while fewer than a batch of slots are free, until the
//!    receivers pop up to the batch's end or find the ring empty (rule 4 refills first). Its
//!    value is already queued, in order; nothing is lost or reordered.
//! 4. A receiver that finds the ring empty takes the lock, refills, queues its waker in
//!    `recv_waiters` (at the front if it had been woken: it keeps its place), publishes
//!    `counts.waiting`, and (after a `SeqCst` fence) pops again; a value or `Closed` there
//!    dequeues it. The fences of rules 1 and 4 are the two halves of a store-buffering pair:
//!    either the sender sees the receiver queued, or the receiver's second pop sees the value.
//!    Rules 2 and 3 pair the same way on `counts.blocked`. Waking a receiver removes it from the
//!    queue; one whose future is dropped after that passes the wake-up on if a value is there.
//! 5. `close` sets `closed` and the ring's close mark under the lock, and wakes every waiter.
//!    After the mark no push succeeds, so a receiver that pops `Closed` has drained everything
//!    sent; blocked senders are no longer refilled from and take their values back.
//! 6. The last `Receiver` closes the channel and pops what is left; the ring's `Drop` drops what
//!    a later `Drop` of the channel finds.

use std::task::{Context, Poll};

use rt_core::coop;
use rt_core::sync::{fence, AtomicU64, AtomicUsize, Mutex, MutexGuard, Ordering};
use rt_core::wait_queue::{Key, WaitQueue};

use super::error::TryRecvError;
use super::mpmc_ring::{PopError, PushError, Ring};
use super::send::SendSide;
use super::state::{self, wake_closed, Blocked, Offered, State, Wakes};

use crate::tuning::{REFILL_DIVISOR, REFILL_EVERY_MAX};

type Padded<T> = crossbeam_utils::CachePadded<T>;

/// The queues' lengths, mirrored for the lock-free paths; written under `state`.
#[derive(Debug)]
struct Counts {
    /// `state.blocked.len()`.
    blocked: AtomicUsize,
    /// `state.recv_waiters.len()`.
    waiting: AtomicUsize,
}

#[derive(Debug)]
pub(super) struct RingChan<T> {
    ring: Ring<T>,
    state: Padded<Mutex<State<T>>>,
    counts: Padded<Counts>,
    /// One past the ticket of the last entry a refill took from `blocked`.
    served: AtomicU64,
    cap: usize,
    /// Rule 3's batch: `cap / REFILL_DIVISOR`, between 1 and `REFILL_EVERY_MAX`.
    refill_every: usize,
}

impl<T> RingChan<T> {
    pub(super) fn new(cap: usize) -> RingChan<T> {
        RingChan {
            ring: Ring::new(cap),
            state: Padded::new(Mutex::new(State::new(()))),
            counts: Padded::new(Counts {
                blocked: AtomicUsize::new(0),
                waiting: AtomicUsize::new(0),
            }),
            served: AtomicU64::new(0),
            cap,
            refill_every: (cap / REFILL_DIVISOR).clamp(1, REFILL_EVERY_MAX),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        state::lock(&self.state)
    }

    /// Publishes the queues' lengths after a change under `state` (stored only when changed).
    fn sync_counts(&self, s: &State<T>) {
        let blocked = s.blocked.len();
        if self.counts.blocked.load(Ordering::Relaxed) != blocked {
            self.counts.blocked.store(blocked, Ordering::Relaxed);
        }
        let waiting = s.recv_waiters.len();
        if self.counts.waiting.load(Ordering::Relaxed) != waiting {
            self.counts.waiting.store(waiting, Ordering::Relaxed);
        }
    }

    pub(super) fn capacity(&self) -> Option<usize> {
        Some(self.cap)
    }

    pub(super) fn len(&self) -> usize {
        self.ring.len()
    }

    pub(super) fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Rule 5.
    pub(super) fn close(&self) -> bool {
        let mut s = self.lock();
        let Some(wakers) = s.close() else {
            return false;
        };
        self.ring.close();
        self.sync_counts(&s);
        drop(s);
        wake_closed(wakers)
    }

    /// Rule 3's refill: blocked values move into the ring, in queue order, while it has room;
    /// each wakes its sender and one queued receiver.
    fn refill(&self, s: &mut State<T>, wakes: &mut Wakes) {
        if s.closed {
            return;
        }
        while !s.blocked.is_empty() {
            let Ok(slot) = self.ring.reserve() else {
                break;
            };
            let b = s.blocked.pop_front().expect("just seen non-empty");
            slot.write(b.value);
            self.served.store(b.ticket + 1, Ordering::Release);
            wakes.sender(b.waker);
            wakes.receivers(&mut s.recv_waiters, 1);
        }
    }

    /// Rule 1's look for a waiting receiver, after a lock-free push.
    fn after_push(&self, wakes: &mut Wakes) {
        fence(Ordering::SeqCst);
        if self.counts.waiting.load(Ordering::Relaxed) > 0 {
            let mut s = self.lock();
            wakes.receivers(&mut s.recv_waiters, 1);
            self.sync_counts(&s);
        }
    }

    /// Rule 3's look for a blocked sender, after a lock-free pop from slot `index`: refills
    /// when the pop frees the last slot of a batch of `refill_every`.
    fn after_pop(&self, index: usize, wakes: &mut Wakes) {
        let batch_end = (index + 1).is_multiple_of(self.refill_every) || index + 1 == self.cap;
        if !batch_end {
            // No refill here whatever the count says, so no look (and no fence) either.
            return;
        }
        fence(Ordering::SeqCst);
        if self.counts.blocked.load(Ordering::Relaxed) > 0 {
            let mut s = self.lock();
            self.refill(&mut s, wakes);
            self.sync_counts(&s);
        }
    }

    /// Rules 1 and 2: sent (`Ok(None)`), queued (`Ok(Some(key, ticket))`), or given back.
    fn offer(&self, value: T, block: Option<&Context<'_>>, wakes: &mut Wakes) -> Offered<T> {
        let value = if self.counts.blocked.load(Ordering::Relaxed) == 0 {
            match self.ring.push(value) {
                Ok(()) => {
                    self.after_push(wakes);
                    return Ok(None);
                }
                Err(PushError::Closed(value)) => return Err((value, true)),
                Err(PushError::Full(value)) => value,
            }
        } else {
            value
        };
        let mut s = self.lock();
        if s.closed {
            return Err((value, true));
        }
        self.refill(&mut s, wakes);
        let value = if s.blocked.is_empty() {
            match self.ring.push(value) {
                Ok(()) => {
                    wakes.receivers(&mut s.recv_waiters, 1);
                    self.sync_counts(&s);
                    return Ok(None);
                }
                // `closed` is false and only `close` (under the lock) sets the mark.
                Err(PushError::Full(value) | PushError::Closed(value)) => value,
            }
        } else {
            value
        };
        let Some(cx) = block else {
            self.sync_counts(&s);
            return Err((value, false));
        };
        let (key, ticket) = s.block(value, cx);
        self.sync_counts(&s);
        // Rule 2's second look: pairs with `after_pop`'s fence.
        fence(Ordering::SeqCst);
        self.refill(&mut s, wakes);
        self.sync_counts(&s);
        if self.is_served(ticket) {
            // Our own entry went into the ring; its waker (ours) is among `wakes`, harmlessly.
            return Ok(None);
        }
        Ok(Some((key, ticket)))
    }

    pub(super) fn try_recv(&self) -> Result<T, TryRecvError> {
        let mut wakes = Wakes::default();
        let out = match self.ring.pop_indexed() {
            Ok((v, index)) => {
                self.after_pop(index, &mut wakes);
                Ok(v)
            }
            Err(PopError::Closed) => Err(TryRecvError::Closed),
            Err(PopError::Empty) if self.counts.blocked.load(Ordering::Relaxed) == 0 => {
                Err(TryRecvError::Empty)
            }
            Err(PopError::Empty) => {
                // Blocked senders' values count as there: refill, then look again.
                let mut s = self.lock();
                self.refill(&mut s, &mut wakes);
                self.sync_counts(&s);
                drop(s);
                match self.ring.pop_indexed() {
                    Ok((v, index)) => {
                        self.after_pop(index, &mut wakes);
                        Ok(v)
                    }
                    Err(PopError::Closed) => Err(TryRecvError::Closed),
                    Err(PopError::Empty) => Err(TryRecvError::Empty),
                }
            }
        };
        wakes.wake();
        out
    }

    /// Rules 3 and 4. `waiting` is the caller's key in `recv_waiters`, if it queued.
    pub(super) fn poll_recv(
        &self,
        cx: &mut Context<'_>,
        waiting: &mut Option<Key>,
    ) -> Poll<Option<T>> {
        let coop = std::task::ready!(coop::poll_proceed(cx));
        let mut wakes = Wakes::default();
        let out = self.recv_inner(cx, waiting, &mut wakes);
        wakes.wake();
        if out.is_ready() {
            coop.made_progress();
        }
        out
    }

    fn recv_inner(
        &self,
        cx: &Context<'_>,
        waiting: &mut Option<Key>,
        wakes: &mut Wakes,
    ) -> Poll<Option<T>> {
        let mut served = false;
        if let Some(key) = *waiting {
            let mut s = self.lock();
            if s.still_waiting(key, cx) {
                return Poll::Pending;
            }
            *waiting = None;
            served = true;
        }
        match self.ring.pop_indexed() {
            Ok((v, index)) => {
                self.after_pop(index, wakes);
                return Poll::Ready(Some(v));
            }
            Err(PopError::Closed) => return Poll::Ready(None),
            Err(PopError::Empty) => {}
        }
        let mut s = self.lock();
        self.refill(&mut s, wakes);
        let key = s.wait_recv(cx, served);
        self.sync_counts(&s);
        // Rule 4's second look: pairs with `after_push`'s fence.
        fence(Ordering::SeqCst);
        let got = self.ring.pop();
        if matches!(got, Err(PopError::Empty)) {
            *waiting = Some(key);
            return Poll::Pending;
        }
        s.recv_waiters.remove(key);
        if got.is_ok() {
            // The pop made room: blocked senders move in (rule 3, still under the lock).
            self.refill(&mut s, wakes);
        }
        self.sync_counts(&s);
        Poll::Ready(got.ok())
    }

    /// A receive future dropped while queued or woken: a woken one passes its wake-up on.
    pub(super) fn cancel_recv(&self, key: Key) {
        let mut wakes = Wakes::default();
        {
            let mut s = self.lock();
            let removed = s.recv_waiters.remove(key).is_some();
            if !removed && !self.ring.is_empty() {
                wakes.receivers(&mut s.recv_waiters, 1);
            }
            self.sync_counts(&s);
        }
        wakes.wake();
    }

    /// After the last `Receiver` closed the channel: drops what is buffered (rule 6).
    pub(super) fn drop_buffered(&self) {
        while self.ring.pop().is_ok() {}
    }
}

impl<T> SendSide<T> for RingChan<T> {
    fn offer_waking(&self, value: T, cx: Option<&Context<'_>>) -> Offered<T> {
        let mut wakes = Wakes::default();
        let out = self.offer(value, cx, &mut wakes);
        wakes.wake();
        out
    }

    fn served(&self) -> &AtomicU64 {
        &self.served
    }

    fn with_blocked<R>(&self, f: impl FnOnce(&mut WaitQueue<Blocked<T>>, bool) -> R) -> R {
        let mut s = self.lock();
        let closed = s.closed;
        let r = f(&mut s.blocked, closed);
        self.sync_counts(&s);
        r
    }
}
