//! The shared state of a [`channel`](super) and the hand-off protocol, under two short locks:
//! the flavour of a rendezvous, an unbounded channel, and a bounded one above `CHANNEL_RING_MAX` slots
//! (a bounded channel of capacity 1 to `CHANNEL_RING_MAX` runs on the lock-free ring of `ring_chan.rs`,
//! which follows the same rules).
//!
//! # Why a lock
//!
//! Every operation holds the lock for a few instructions: a ring push or pop, a look at the
//! waiter queues. Uncontended that is one compare-and-swap to take and one swap to release; on a
//! small machine it beats the lock-free block lists plus semaphore that tokio's `mpsc` pays for,
//! and it makes multi-consumer, FIFO waiters and rendezvous simple to get right. Wakers are woken
//! after the lock is released.
//!
//! # The protocol (Go's, made cancellation-safe)
//!
//! 1. A sender that finds room pushes into the ring `buf` and wakes the first waiting receiver.
//! 2. A sender that finds no room (always, for capacity 0) queues itself in `blocked` together
//!    with its value, and wakes the first waiting receiver. It is done when its entry is gone
//!    from `blocked`: a receiver removed the entry and took the value (rule 3). A sender whose
//!    future is dropped while its entry is still queued removes it and takes the value back: a
//!    cancelled send has not sent.
//! 3. A receiver takes the front of `buf` (through `head`, below) and refills `buf` from the
//!    first blocked senders while there is room, or, for capacity 0, takes the first blocked
//!    sender's value directly. Either way it wakes those senders, whose sends have completed.
//! 4. A receiver that finds nothing queues its waker in `recv_waiters`. Waking a receiver
//!    *removes* it from the queue: a receiver whose key is gone has been served and looks again;
//!    finding nothing (another receiver got there first), it queues again at the front.
//! 5. A served receiver that takes a value and sees more available wakes the next waiter; a
//!    served receiver whose future is dropped before it took anything passes its wake-up on the
//!    same way. Together with rules 1 and 2 this keeps the invariant: whenever a value is
//!    available and receivers are queued, at least one served receiver is on its way.
//! 6. `close` marks the channel closed, wakes every queued receiver and every blocked sender.
//!    Receivers drain `buf`, then see `None`. Blocked senders are no longer taken from (rule 3
//!    checks `closed`); each finds its entry still queued and takes its value back as an error.
//! 7. The last `Receiver` to go drops whatever is still buffered: no receiver can come back for
//!    it. Otherwise buffered values are dropped with the channel, once.
//!
//! # The receivers' end of the ring: `head`
//!
//! Values leave in batches: a receiver that finds `head` empty swaps the whole of `state.buf`
//! into it under both locks, then takes from `head` under the `head` lock alone, so the
//! receiving worker and the sending worker mostly take different locks. Values are in the order
//! `head`, `buf`, `blocked`, oldest first, and the bound counts `head` and `buf` together. Lock
//! order: `head` before `state`.
//!
//! - `head_len` is an upper bound on `head.len()`: set exactly under both locks, lowered under
//!   `head` now and then (every `HEAD_LEN_EVERY` values, and when `head` runs empty). A sender
//!   holding `state` may read a value that is too large, never too small: room it sees is there. A sender that sees no room while `head_len > 0` takes both locks and looks
//!   again before it blocks, and a sender that sees `head_len == 0` knows `head` is empty and
//!   stays so while it holds `state`. So a sender only blocks with `head` locked or empty.
//! - `blocked_len` and `recv_waiting` mirror the two queues' lengths, written under `state`;
//!   they grow only while `head` is held or empty. Each is stored only when it changes, and the
//!   two sides' data lie on separate cache lines, so the two workers do not share lines they
//!   write on every value.
//! - With capacity 0 nothing ever enters `buf`, so `head` stays empty and receivers skip its
//!   lock (they stand in an empty ring for it). A receiver that took from a non-empty `head`
//!   without `state` reads them under `head`: zero means nobody can be waiting for what it did,
//!   otherwise it takes `state` and applies rules 3 and 5 as usual.
//!
//! # Knowing a blocked send is done without the lock
//!
//! Each entry of `blocked` carries a ticket, handed out in queue order under the lock, and
//! entries leave the front of `blocked` in ticket order. A receiver that takes an entry (rule 3)
//! raises `Chan::served` past its ticket (release, under the lock). A blocked sender whose
//! ticket is below `served` (acquire) has had its value taken: its entry cannot have gone any
//! other way, since only the sender itself removes its entry otherwise, and then it is no longer
//! blocked. So a woken sender completes, and a dropped one finishes, without taking the lock;
//! a ticket not yet below `served` sends it down the locked path, which decides as before.

use std::collections::VecDeque;
use std::task::{Context, Poll, Waker};

use rt_core::coop;
use rt_core::sync::{AtomicU64, AtomicUsize, Mutex, MutexGuard, Ordering};

use super::error::TryRecvError;
use super::send::SendSide;
use super::state::{self, wake_closed, Blocked, Offered, Wakes};
use rt_core::wait_queue::{Key, WaitQueue};

use crate::tuning::{HEAD_LEN_EVERY, PREALLOCATE_MAX};

/// Keeps what one side writes off the other side's cache lines.
type Padded<T> = crossbeam_utils::CachePadded<T>;

/// Shared by every `Sender` and `Receiver` of one channel.
#[derive(Debug)]
pub(super) struct Chan<T> {
    /// The oldest buffered values, taken by receivers (see the module docs). Locked before
    /// `state`.
    head: Padded<Mutex<VecDeque<T>>>,
    /// At least `head.len()` (module docs).
    head_len: Padded<AtomicUsize>,
    state: Padded<Mutex<State<T>>>,
    /// `state.blocked.len()`, written under `state`.
    blocked_len: Padded<AtomicUsize>,
    /// `state.recv_waiters.len()`, written under `state`.
    recv_waiting: AtomicUsize,
    /// One past the ticket of the last entry a receiver took from `blocked`.
    served: AtomicU64,
    /// `None`: unbounded.
    cap: Option<usize>,
}

/// The locked state, with the buffer `buf` (the values between `head` and `blocked`).
type State<T> = state::State<T, VecDeque<T>>;

/// A send future's progress.
#[derive(Debug)]
pub(super) enum SendState<T> {
    /// Not yet offered to the channel.
    Idle(T),
    /// Queued in `blocked`, value included, with its ticket.
    Blocked(Key, u64),
    /// Finished: the output has been returned.
    Done,
}

/// What a receiver found.
enum Took<T> {
    Value(T),
    Closed,
    Empty,
}

impl<T> State<T> {
    /// Whether a receiver would find a value right now, given what is in `head`.
    fn available(&self, head: &VecDeque<T>) -> bool {
        !head.is_empty() || !self.buf.is_empty() || (!self.closed && !self.blocked.is_empty())
    }
}

impl<T> Chan<T> {
    pub(super) fn new(cap: Option<usize>) -> Chan<T> {
        let prealloc = cap.map_or(0, |c| c.min(PREALLOCATE_MAX));
        Chan {
            head: Padded::new(Mutex::new(VecDeque::with_capacity(prealloc))),
            head_len: Padded::new(AtomicUsize::new(0)),
            state: Padded::new(Mutex::new(State::new(VecDeque::with_capacity(prealloc)))),
            blocked_len: Padded::new(AtomicUsize::new(0)),
            recv_waiting: AtomicUsize::new(0),
            served: AtomicU64::new(0),
            cap,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        state::lock(&self.state)
    }

    fn lock_head(&self) -> MutexGuard<'_, VecDeque<T>> {
        state::lock(&self.head)
    }

    /// `head`, locked, for a receiver; with capacity 0, an empty stand-in (module docs).
    fn head_for_recv<'a, 'g>(
        &'a self,
        guard: &'g mut Option<MutexGuard<'a, VecDeque<T>>>,
        none: &'g mut VecDeque<T>,
    ) -> &'g mut VecDeque<T> {
        if self.cap == Some(0) {
            none
        } else {
            guard.insert(self.lock_head())
        }
    }

    fn room(&self, buffered: usize) -> bool {
        self.cap.is_none_or(|c| buffered < c)
    }

    /// Refreshes `blocked_len` and `recv_waiting` after a change under `state`, writing only
    /// what changed (they are written under `state` alone, so the loads see the last value).
    fn sync_counts(&self, s: &State<T>) {
        let blocked = s.blocked.len();
        if self.blocked_len.load(Ordering::Relaxed) != blocked {
            self.blocked_len.store(blocked, Ordering::Release);
        }
        let waiting = s.recv_waiters.len();
        if self.recv_waiting.load(Ordering::Relaxed) != waiting {
            self.recv_waiting.store(waiting, Ordering::Release);
        }
    }

    pub(super) fn capacity(&self) -> Option<usize> {
        self.cap
    }

    pub(super) fn len(&self) -> usize {
        let h = self.lock_head();
        let s = self.lock();
        h.len() + s.buf.len()
    }

    pub(super) fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Rule 6. Returns whether this call closed the channel.
    pub(super) fn close(&self) -> bool {
        let mut s = self.lock();
        let Some(wakers) = s.close() else {
            return false;
        };
        self.sync_counts(&s);
        drop(s);
        wake_closed(wakers)
    }

    /// Offers `value` (rule 1, or rule 2 through `block`), returning the receiver to wake.
    fn offer(&self, value: T, block: Option<&Context<'_>>) -> (Offered<T>, Option<Waker>) {
        let mut s = self.lock();
        if s.closed {
            return (Err((value, true)), None);
        }
        let seen = self.head_len.load(Ordering::Acquire);
        // `seen` is at least `head.len()`: room seen is room (module docs).
        if self.room(s.buf.len() + seen) {
            s.buf.push_back(value);
            let wake = s.recv_waiters.pop_front();
            self.sync_counts(&s);
            return (Ok(None), wake);
        }
        let _head;
        if seen > 0 {
            // Look again with `head` held, so no receiver can be taking from it unseen.
            drop(s);
            _head = self.lock_head();
            s = self.lock();
            if s.closed {
                return (Err((value, true)), None);
            }
            if self.room(s.buf.len() + _head.len()) {
                s.buf.push_back(value);
                let wake = s.recv_waiters.pop_front();
                self.sync_counts(&s);
                return (Ok(None), wake);
            }
        }
        let Some(cx) = block else {
            return (Err((value, false)), None);
        };
        let (key, ticket) = s.block(value, cx);
        let wake = s.recv_waiters.pop_front();
        self.sync_counts(&s);
        (Ok(Some((key, ticket))), wake)
    }

    /// Rule 3's refill: blocked values move into `buf` while there is room.
    fn refill(&self, s: &mut State<T>, head: &VecDeque<T>, wakes: &mut Wakes) {
        if s.closed {
            return;
        }
        while self.room(s.buf.len() + head.len()) {
            let Some(b) = s.blocked.pop_front() else {
                break;
            };
            self.served.store(b.ticket + 1, Ordering::Release);
            s.buf.push_back(b.value);
            wakes.sender(b.waker);
        }
    }

    /// Rules 3 and 5 with both locks held. `head` is empty or this is the slow path.
    fn take_locked(&self, s: &mut State<T>, head: &mut VecDeque<T>, wakes: &mut Wakes) -> Took<T> {
        if head.is_empty() {
            std::mem::swap(head, &mut s.buf);
        }
        let value = match head.pop_front() {
            Some(v) => v,
            None if s.closed => return Took::Closed,
            None => match s.blocked.pop_front() {
                Some(b) => {
                    self.served.store(b.ticket + 1, Ordering::Release);
                    wakes.sender(b.waker);
                    b.value
                }
                None => return Took::Empty,
            },
        };
        self.head_len.store(head.len(), Ordering::Release);
        self.refill(s, head, wakes);
        if s.available(head) {
            wakes.receiver = s.recv_waiters.pop_front();
        }
        self.sync_counts(s);
        Took::Value(value)
    }

    /// Takes the next value with `head` held: from `head` alone when nobody waits, else under
    /// `state` too, which is then returned.
    fn take<'a>(
        &'a self,
        head: &mut VecDeque<T>,
        state: Option<MutexGuard<'a, State<T>>>,
        wakes: &mut Wakes,
    ) -> (Took<T>, Option<MutexGuard<'a, State<T>>>) {
        if state.is_none() && !head.is_empty() {
            let v = head.pop_front().expect("head just seen non-empty");
            if head.len() & (HEAD_LEN_EVERY - 1) == 0 {
                // Lowering it now and then is enough: a stale value is only too large.
                self.head_len.store(head.len(), Ordering::Release);
            }
            let blocked = self.blocked_len.load(Ordering::Acquire) > 0;
            let waiting = !head.is_empty() && self.recv_waiting.load(Ordering::Acquire) > 0;
            if blocked || waiting {
                let mut s = self.lock();
                self.refill(&mut s, head, wakes);
                if s.available(head) {
                    wakes.receiver = s.recv_waiters.pop_front();
                }
                self.sync_counts(&s);
            }
            return (Took::Value(v), None);
        }
        let mut s = state.unwrap_or_else(|| self.lock());
        let took = self.take_locked(&mut s, head, wakes);
        (took, Some(s))
    }

    pub(super) fn try_recv(&self) -> Result<T, TryRecvError> {
        let mut wakes = Wakes::default();
        let out = {
            let (mut guard, mut none) = (None, VecDeque::new());
            let h = self.head_for_recv(&mut guard, &mut none);
            match self.take(h, None, &mut wakes).0 {
                Took::Value(v) => Ok(v),
                Took::Closed => Err(TryRecvError::Closed),
                Took::Empty => Err(TryRecvError::Empty),
            }
        };
        wakes.wake();
        out
    }

    /// Rules 3, 4 and 5. `waiting` is the caller's key in `recv_waiters`, if it queued.
    pub(super) fn poll_recv(
        &self,
        cx: &mut Context<'_>,
        waiting: &mut Option<Key>,
    ) -> Poll<Option<T>> {
        let coop = std::task::ready!(coop::poll_proceed(cx));
        let mut wakes = Wakes::default();
        let out = {
            let (mut guard, mut none) = (None, VecDeque::new());
            let h = self.head_for_recv(&mut guard, &mut none);
            let mut state = None;
            let mut served = false;
            if let Some(key) = *waiting {
                let mut s = self.lock();
                if s.still_waiting(key, cx) {
                    return Poll::Pending;
                }
                *waiting = None;
                served = true;
                state = Some(s);
            }
            match self.take(h, state, &mut wakes) {
                (Took::Value(v), _) => Poll::Ready(Some(v)),
                (Took::Closed, _) => Poll::Ready(None),
                (Took::Empty, s) => {
                    let mut s = s.expect("an empty take holds the state lock");
                    *waiting = Some(s.wait_recv(cx, served));
                    self.sync_counts(&s);
                    Poll::Pending
                }
            }
        };
        wakes.wake();
        if out.is_ready() {
            coop.made_progress();
        }
        out
    }

    /// A receive future dropped while queued or served (rule 5).
    pub(super) fn cancel_recv(&self, key: Key) {
        let wake = {
            let (mut guard, mut none) = (None, VecDeque::new());
            let h = self.head_for_recv(&mut guard, &mut none);
            let mut s = self.lock();
            let removed = s.recv_waiters.remove(key).is_some();
            let wake = if removed || !s.available(h) {
                None
            } else {
                s.recv_waiters.pop_front()
            };
            self.sync_counts(&s);
            wake
        };
        if let Some(w) = wake {
            w.wake();
        }
    }

    /// After the last `Receiver` closed the channel: drops what is buffered, since no receiver
    /// can ever come back for it.
    pub(super) fn drop_buffered(&self) {
        let head = {
            let mut h = self.lock_head();
            self.head_len.store(0, Ordering::Release);
            std::mem::take(&mut *h)
        };
        drop(head);
        let buffered = std::mem::take(&mut self.lock().buf);
        drop(buffered);
    }
}

impl<T> SendSide<T> for Chan<T> {
    fn offer_waking(&self, value: T, cx: Option<&Context<'_>>) -> Offered<T> {
        let (out, wake) = self.offer(value, cx);
        if let Some(w) = wake {
            w.wake();
        }
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
