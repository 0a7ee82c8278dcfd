//! The shared state of a [`channel`](super) and the hand-off protocol, all under one short lock.
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
//! 3. A receiver takes the front of `buf` and refills `buf` from the first blocked sender, or,
//!    for capacity 0, takes the first blocked sender's value directly. Either way it wakes that
//!    sender, whose send has completed.
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

use std::collections::VecDeque;
use std::task::{Context, Poll, Waker};

use rt_core::coop;
use rt_core::sync::{AtomicUsize, Mutex, MutexGuard, Ordering};

use super::error::{SendError, TryRecvError, TrySendError};
use super::wait_queue::{Key, WaitQueue};

/// Upper bound on the ring's up-front allocation; a larger bounded ring grows on demand.
const PREALLOCATE_MAX: usize = 4096;

/// Shared by every `Sender` and `Receiver` of one channel.
#[derive(Debug)]
pub(super) struct Chan<T> {
    state: Mutex<State<T>>,
    /// `None`: unbounded.
    cap: Option<usize>,
    pub(super) senders: AtomicUsize,
    pub(super) receivers: AtomicUsize,
}

#[derive(Debug)]
struct State<T> {
    buf: VecDeque<T>,
    closed: bool,
    /// Senders waiting with their values (rule 2).
    blocked: WaitQueue<Blocked<T>>,
    /// Receivers waiting for a value (rule 4).
    recv_waiters: WaitQueue<Waker>,
}

#[derive(Debug)]
struct Blocked<T> {
    value: T,
    /// `None` once `close` has taken it to wake the sender.
    waker: Option<Waker>,
}

/// A send future's progress.
#[derive(Debug)]
pub(super) enum SendState<T> {
    /// Not yet offered to the channel.
    Idle(T),
    /// Queued in `blocked`, value included.
    Blocked(Key),
    /// Finished: the output has been returned.
    Done,
}

/// Wakers collected under the lock, woken after it is released.
#[derive(Default)]
struct Wakes(Option<Waker>, Option<Waker>);

impl Wakes {
    fn wake(self) {
        if let Some(w) = self.0 {
            w.wake();
        }
        if let Some(w) = self.1 {
            w.wake();
        }
    }
}

impl<T> State<T> {
    fn has_room(&self, cap: Option<usize>) -> bool {
        cap.is_none_or(|c| self.buf.len() < c)
    }

    /// Whether a receiver would find a value right now.
    fn available(&self) -> bool {
        !self.buf.is_empty() || (!self.closed && !self.blocked.is_empty())
    }

    /// Rule 3 then rule 5: takes the next value, collecting the sender and receiver to wake.
    fn take(&mut self, wakes: &mut Wakes) -> Option<T> {
        let value = match self.buf.pop_front() {
            Some(v) => {
                if !self.closed {
                    if let Some(b) = self.blocked.pop_front() {
                        self.buf.push_back(b.value);
                        wakes.0 = b.waker;
                    }
                }
                v
            }
            None if self.closed => return None,
            None => {
                let b = self.blocked.pop_front()?;
                wakes.0 = b.waker;
                b.value
            }
        };
        if self.available() {
            wakes.1 = self.recv_waiters.pop_front();
        }
        Some(value)
    }
}

fn set_waker(slot: &mut Option<Waker>, cx: &Context<'_>) {
    match slot {
        Some(w) if w.will_wake(cx.waker()) => {}
        _ => *slot = Some(cx.waker().clone()),
    }
}

impl<T> Chan<T> {
    pub(super) fn new(cap: Option<usize>) -> Chan<T> {
        let prealloc = cap.map_or(0, |c| c.min(PREALLOCATE_MAX));
        Chan {
            state: Mutex::new(State {
                buf: VecDeque::with_capacity(prealloc),
                closed: false,
                blocked: WaitQueue::new(),
                recv_waiters: WaitQueue::new(),
            }),
            cap,
            senders: AtomicUsize::new(1),
            receivers: AtomicUsize::new(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // No user code runs under the lock except waker clones; a panic there leaves the state
        // consistent, so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn capacity(&self) -> Option<usize> {
        self.cap
    }

    pub(super) fn len(&self) -> usize {
        self.lock().buf.len()
    }

    pub(super) fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Rule 6. Returns whether this call closed the channel.
    pub(super) fn close(&self) -> bool {
        let wakers: Vec<Waker> = {
            let mut s = self.lock();
            if s.closed {
                return false;
            }
            s.closed = true;
            let mut wakers = s.recv_waiters.drain();
            wakers.extend(s.blocked.iter_mut().filter_map(|b| b.waker.take()));
            wakers
        };
        for w in wakers {
            w.wake();
        }
        true
    }

    pub(super) fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        let wake = {
            let mut s = self.lock();
            if s.closed {
                return Err(TrySendError::Closed(value));
            }
            if !s.has_room(self.cap) {
                return Err(TrySendError::Full(value));
            }
            s.buf.push_back(value);
            s.recv_waiters.pop_front()
        };
        if let Some(w) = wake {
            w.wake();
        }
        Ok(())
    }

    /// Rules 1 and 2.
    pub(super) fn poll_send(
        &self,
        cx: &mut Context<'_>,
        st: &mut SendState<T>,
    ) -> Poll<Result<(), SendError<T>>> {
        let coop = std::task::ready!(coop::poll_proceed(cx));
        let mut wake = None;
        let out = {
            let mut s = self.lock();
            match std::mem::replace(st, SendState::Done) {
                SendState::Done => panic!("send future polled after completion"),
                SendState::Blocked(key) => {
                    let closed = s.closed;
                    match s.blocked.get_mut(key) {
                        // A receiver took the value (rule 3).
                        None => Poll::Ready(Ok(())),
                        Some(b) if !closed => {
                            set_waker(&mut b.waker, cx);
                            *st = SendState::Blocked(key);
                            Poll::Pending
                        }
                        Some(_) => {
                            let b = s.blocked.remove(key).expect("entry just seen");
                            Poll::Ready(Err(SendError(b.value)))
                        }
                    }
                }
                SendState::Idle(value) => {
                    if s.closed {
                        Poll::Ready(Err(SendError(value)))
                    } else if s.has_room(self.cap) {
                        s.buf.push_back(value);
                        wake = s.recv_waiters.pop_front();
                        Poll::Ready(Ok(()))
                    } else {
                        let key = s.blocked.push_back(Blocked {
                            value,
                            waker: Some(cx.waker().clone()),
                        });
                        *st = SendState::Blocked(key);
                        wake = s.recv_waiters.pop_front();
                        Poll::Pending
                    }
                }
            }
        };
        if let Some(w) = wake {
            w.wake();
        }
        if out.is_ready() {
            coop.made_progress();
        }
        out
    }

    /// A send future dropped: a value still queued goes back with it (rule 2).
    pub(super) fn cancel_send(&self, key: Key) -> Option<T> {
        self.lock().blocked.remove(key).map(|b| b.value)
    }

    pub(super) fn try_recv(&self) -> Result<T, TryRecvError> {
        let mut wakes = Wakes::default();
        let out = {
            let mut s = self.lock();
            match s.take(&mut wakes) {
                Some(v) => Ok(v),
                None if s.closed => Err(TryRecvError::Closed),
                None => Err(TryRecvError::Empty),
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
            let mut s = self.lock();
            let mut served = false;
            if let Some(key) = *waiting {
                if let Some(w) = s.recv_waiters.get_mut(key) {
                    if !w.will_wake(cx.waker()) {
                        *w = cx.waker().clone();
                    }
                    return Poll::Pending;
                }
                *waiting = None;
                served = true;
            }
            if let Some(v) = s.take(&mut wakes) {
                Poll::Ready(Some(v))
            } else if s.closed {
                Poll::Ready(None)
            } else {
                let w = cx.waker().clone();
                *waiting = Some(if served {
                    s.recv_waiters.push_front(w)
                } else {
                    s.recv_waiters.push_back(w)
                });
                Poll::Pending
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
            let mut s = self.lock();
            if s.recv_waiters.remove(key).is_some() || !s.available() {
                return;
            }
            s.recv_waiters.pop_front()
        };
        if let Some(w) = wake {
            w.wake();
        }
    }

    /// Drops a `Sender`; the last one closes the channel.
    pub(super) fn release_sender(&self) {
        if self.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.close();
        }
    }

    /// Drops a `Receiver`; the last one closes the channel and drops what is buffered, since no
    /// receiver can ever come back for it.
    pub(super) fn release_receiver(&self) {
        if self.receivers.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.close();
            let buffered = std::mem::take(&mut self.lock().buf);
            drop(buffered);
        }
    }
}
