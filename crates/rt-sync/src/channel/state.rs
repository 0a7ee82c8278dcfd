//! What both flavours of channel (`chan.rs`, `ring_chan.rs`) keep under their state lock: the
//! closed flag, the blocked senders with their values and tickets, and the queued receivers;
//! plus the wakers collected under the lock and woken after it. Each flavour keeps its own
//! buffer (`buf`: a `VecDeque` in `chan.rs`, nothing here for the ring, which lives outside the
//! lock) and its own protocol; the steps of rules 2, 4 and close that are written the same in
//! both are here.

use std::task::{Context, Waker};

use rt_core::sync::{Mutex, MutexGuard};
use rt_core::wait_queue::{Key, WaitQueue};

/// A channel's state under its lock; `buf` is the flavour's locked buffer, if any.
#[derive(Debug)]
pub(super) struct State<T, B = ()> {
    pub(super) buf: B,
    pub(super) closed: bool,
    /// Senders waiting with their values (rule 2).
    pub(super) blocked: WaitQueue<Blocked<T>>,
    /// Receivers waiting for a value (rule 4).
    pub(super) recv_waiters: WaitQueue<Waker>,
    /// The ticket the next entry of `blocked` gets.
    next_ticket: u64,
}

#[derive(Debug)]
pub(super) struct Blocked<T> {
    pub(super) value: T,
    pub(super) ticket: u64,
    /// `None` once `close` has taken it to wake the sender.
    pub(super) waker: Option<Waker>,
}

/// What a flavour's `offer` did: sent, or queued with this key and ticket; or gave the value
/// back, with whether the channel was closed (otherwise it was full and blocking was not asked
/// for).
pub(super) type Offered<T> = Result<Option<(Key, u64)>, (T, bool)>;

/// Locks a channel's mutex. No user code runs under the channels' locks except waker clones and
/// a value's move; a panic there leaves the state consistent, so a poisoned lock is still usable.
pub(super) fn lock<S>(m: &Mutex<S>) -> MutexGuard<'_, S> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<T, B> State<T, B> {
    pub(super) fn new(buf: B) -> State<T, B> {
        State {
            buf,
            closed: false,
            blocked: WaitQueue::new(),
            recv_waiters: WaitQueue::new(),
            next_ticket: 0,
        }
    }

    /// Close: marks the channel closed and takes the wakers of every queued receiver and every
    /// blocked sender (whose entries stay queued, for them to take their values back). `None`
    /// if it was closed already.
    pub(super) fn close(&mut self) -> Option<Vec<Waker>> {
        if self.closed {
            return None;
        }
        self.closed = true;
        let mut wakers = self.recv_waiters.drain();
        wakers.extend(self.blocked.iter_mut().filter_map(|b| b.waker.take()));
        Some(wakers)
    }

    /// Rule 2: queues a sender with its value and the next ticket.
    pub(super) fn block(&mut self, value: T, cx: &Context<'_>) -> (Key, u64) {
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        let key = self.blocked.push_back(Blocked {
            value,
            ticket,
            waker: Some(cx.waker().clone()),
        });
        (key, ticket)
    }

    /// Rule 4, a receiver polled again with its key: `true` while it is still queued (its waker
    /// kept current); `false` once a waker has served it (removed it from the queue).
    pub(super) fn still_waiting(&mut self, key: Key, cx: &Context<'_>) -> bool {
        match self.recv_waiters.get_mut(key) {
            Some(w) => {
                if !w.will_wake(cx.waker()) {
                    *w = cx.waker().clone();
                }
                true
            }
            None => false,
        }
    }

    /// Rule 4: queues a receiver, at the front if it had been served (it keeps its place).
    pub(super) fn wait_recv(&mut self, cx: &Context<'_>, served: bool) -> Key {
        let w = cx.waker().clone();
        if served {
            self.recv_waiters.push_front(w)
        } else {
            self.recv_waiters.push_back(w)
        }
    }
}

/// Wakes what `State::close` took, after the lock is released.
pub(super) fn wake_closed(wakers: Vec<Waker>) -> bool {
    for w in wakers {
        w.wake();
    }
    true
}

/// Wakers collected under the locks, woken after they are released.
#[derive(Default)]
pub(super) struct Wakes {
    pub(super) receiver: Option<Waker>,
    sender: Option<Waker>,
    /// Past the first sender and the first receiver.
    more: Vec<Waker>,
}

impl Wakes {
    pub(super) fn sender(&mut self, w: Option<Waker>) {
        if let Some(w) = w {
            if self.sender.is_none() {
                self.sender = Some(w);
            } else {
                self.more.push(w);
            }
        }
    }

    /// Takes up to `n` receivers from the front of `queue` to wake.
    pub(super) fn receivers(&mut self, queue: &mut WaitQueue<Waker>, n: usize) {
        for _ in 0..n {
            let Some(w) = queue.pop_front() else {
                break;
            };
            if self.receiver.is_none() {
                self.receiver = Some(w);
            } else {
                self.more.push(w);
            }
        }
    }

    pub(super) fn wake(self) {
        if let Some(w) = self.receiver {
            w.wake();
        }
        if let Some(w) = self.sender {
            w.wake();
        }
        for w in self.more {
            w.wake();
        }
    }
}
