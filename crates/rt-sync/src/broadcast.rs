//! A multi-producer, multi-consumer broadcast channel: every receiver sees every value.
//!
//! The channel keeps the last `capacity` values in a ring. A receiver reads at its own position;
//! a receiver that falls more than `capacity` values behind gets [`RecvError::Lagged`] with the
//! number it missed, and continues from the oldest value still kept. `send` never waits: it
//! overwrites the oldest value when the ring is full.
//!
//! The ring, the positions and the waiters sit under one short lock; each `recv` clones its value
//! under it. A `send` wakes every waiting receiver, after releasing the lock.
//!
//! As in tokio, the ring's length is `capacity` rounded up to a power of two, and each value
//! counts the receivers that have yet to see it (those alive when it was sent): once the last of
//! them has its clone, the ring lets go of the value, and a receiver that is dropped gives up its
//! claim on every value it has not read. So a value does not outlive its last reader, and
//! [`Sender::len`] counts the values some receiver still waits to read.
//! A receiver's position moves past a value before the value is cloned, so a `Clone` that panics
//! loses that value for that receiver instead of making it retry forever. Wakers and values are
//! never dropped under the lock (a waker's or a value's `Drop` may send on the channel).
//!
//! ```
//! # use rt_core::test_support::block_on;
//! use rt_sync::broadcast::{self, RecvError};
//! let (tx, mut rx) = broadcast::channel(2);
//! for i in 0..3 {
//!     tx.send(i).unwrap();
//! }
//! block_on(async {
//!     assert_eq!(rx.recv().await, Err(RecvError::Lagged(1)));
//!     assert_eq!(rx.recv().await, Ok(1));
//!     assert_eq!(rx.recv().await, Ok(2));
//!     drop(tx);
//!     assert_eq!(rx.recv().await, Err(RecvError::Closed));
//! });
//! ```

use std::collections::VecDeque;
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use rt_core::coop;
use rt_core::sync::{Arc, Mutex, MutexGuard};

use rt_core::wait_queue::{Key, WaitQueue};

use crate::notify::Notify;

use crate::tuning::WAKE_BATCH;

/// Creates a broadcast channel keeping the last `capacity` values (rounded up to a power of
/// two, as tokio's).
///
/// # Panics
///
/// If `capacity` is 0 or above `usize::MAX / 2`; the panic names the caller's location.
#[track_caller]
pub fn channel<T: Clone>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let tx = Sender::new(capacity);
    let rx = tx.subscribe();
    (tx, rx)
}

struct Shared<T> {
    state: Mutex<State<T>>,
    capacity: usize,
    /// Woken when the last receiver goes, for [`Sender::closed`].
    no_receivers: Notify,
}

/// One value in the ring.
struct Slot<T> {
    /// `None` once every receiver that was alive at the send has read it (or was dropped).
    val: Option<T>,
    /// Receivers that have yet to read it.
    rem: usize,
}

struct State<T> {
    ring: VecDeque<Slot<T>>,
    /// Position of `ring[0]`; the next value sent gets position `head + ring.len()`.
    head: u64,
    /// Values in the ring that some receiver has yet to read (`Sender::len`).
    queued: usize,
    /// Every sender is gone.
    closed: bool,
    senders: usize,
    weak_senders: usize,
    receivers: usize,
    waiters: WaitQueue<Waker>,
}

impl<T> State<T> {
    fn tail(&self) -> u64 {
        self.head + self.ring.len() as u64
    }

    /// A receiver at `next` goes away: it gives up its claim on every value it has not read.
    /// Returns the values nobody waits for any more, to be dropped outside the lock.
    fn release_from(&mut self, next: u64) -> Vec<T> {
        let mut freed = Vec::new();
        let from = next.max(self.head);
        for pos in from..self.tail() {
            // Below `tail`, so the index fits in the ring.
            let slot = &mut self.ring[(pos - self.head) as usize];
            slot.rem -= 1;
            if slot.rem == 0 {
                self.queued -= 1;
                freed.extend(slot.val.take());
            }
        }
        freed
    }
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A panic under the lock (a panicking `Clone`) leaves the state consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wakes every waiting receiver, `WAKE_BATCH` at a time outside the lock.
    fn wake_all<'a>(&'a self, mut state: MutexGuard<'a, State<T>>) {
        loop {
            let mut batch: [Option<Waker>; WAKE_BATCH] = Default::default();
            let mut n = 0;
            while n < WAKE_BATCH {
                match state.waiters.pop_front() {
                    Some(w) => batch[n] = Some(w),
                    None => break,
                }
                n += 1;
            }
            drop(state);
            for w in batch.iter_mut().take(n) {
                if let Some(w) = w.take() {
                    w.wake();
                }
            }
            if n < WAKE_BATCH {
                return;
            }
            state = self.lock();
        }
    }
}

/// The sending end; cloning adds a producer.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// A sender that does not keep the channel open: once every [`Sender`] is gone the receivers
/// see [`RecvError::Closed`]. [`upgrade`](WeakSender::upgrade) it to send. As tokio's
/// `broadcast::WeakSender`.
pub struct WeakSender<T> {
    shared: Arc<Shared<T>>,
}

/// The receiving end: reads every value sent after it was created.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// Position of the next value to read.
    next: u64,
}

/// The errors under tokio's path (`tokio::sync::broadcast::error::{RecvError, SendError,
/// TryRecvError}`).
pub mod error {
    pub use super::{RecvError, SendError, TryRecvError};
}

/// `send` found no receiver; the value comes back.
#[derive(PartialEq, Eq, Clone, Copy)]
pub struct SendError<T>(pub T);

/// Why `recv` returned no value.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum RecvError {
    /// Every sender is gone and every value was read.
    Closed,
    /// The receiver fell behind and this many values were overwritten unread; the next `recv`
    /// returns the oldest value kept.
    Lagged(u64),
}

/// Why `try_recv` returned no value.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum TryRecvError {
    /// No new value yet.
    Empty,
    /// Every sender is gone and every value was read.
    Closed,
    /// As [`RecvError::Lagged`].
    Lagged(u64),
}

impl<T> Sender<T> {
    /// Sends `value` to every receiver, returning how many there are. Never waits.
    ///
    /// Fails, giving the value back, when there is no receiver.
    pub fn send(&self, value: T) -> Result<usize, SendError<T>> {
        let mut state = self.shared.lock();
        if state.receivers == 0 {
            return Err(SendError(value));
        }
        let evicted = if state.ring.len() == self.shared.capacity {
            state.head += 1;
            let slot = state.ring.pop_front();
            if slot.as_ref().is_some_and(|s| s.rem > 0) {
                state.queued -= 1;
            }
            slot
        } else {
            None
        };
        let receivers = state.receivers;
        state.ring.push_back(Slot {
            val: Some(value),
            rem: receivers,
        });
        state.queued += 1;
        self.shared.wake_all(state);
        drop(evicted);
        Ok(receivers)
    }

    /// A new receiver that sees values sent from now on.
    pub fn subscribe(&self) -> Receiver<T> {
        subscribe(&self.shared)
    }

    /// Number of receivers.
    pub fn receiver_count(&self) -> usize {
        self.shared.lock().receivers
    }

    /// Number of values queued: sent, not yet read by every receiver that was alive at the
    /// send, and not yet overwritten. As tokio's `Sender::len`.
    ///
    /// ```
    /// let (tx, mut rx1) = rt_sync::broadcast::channel(4);
    /// let mut rx2 = tx.subscribe();
    /// tx.send(1).unwrap();
    /// assert_eq!(tx.len(), 1);
    /// rx1.try_recv().unwrap();
    /// assert_eq!(tx.len(), 1); // rx2 has yet to read it
    /// rx2.try_recv().unwrap();
    /// assert!(tx.is_empty());
    /// ```
    pub fn len(&self) -> usize {
        self.shared.lock().queued
    }

    /// Whether no value is queued ([`len`](Sender::len) is 0).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Completes once every receiver is gone (at once if none is there now). As tokio's
    /// `Sender::closed`.
    ///
    /// # Cancel safety
    /// Cancel safe: it takes nothing.
    pub async fn closed(&self) {
        loop {
            // Created before the check, so a wake after the check is not missed.
            let notified = self.shared.no_receivers.notified();
            if self.shared.lock().receivers == 0 {
                return;
            }
            notified.await;
        }
    }

    /// A sender that does not keep the channel open.
    pub fn downgrade(&self) -> WeakSender<T> {
        self.shared.lock().weak_senders += 1;
        WeakSender {
            shared: self.shared.clone(),
        }
    }

    /// Number of weak senders of this channel.
    pub fn weak_count(&self) -> usize {
        self.shared.lock().weak_senders
    }
}

impl<T> Sender<T> {
    /// A channel keeping the last `capacity` values, with no receiver yet: `send` fails until
    /// one [`Sender::subscribe`]s (tokio's `Sender::new`).
    ///
    /// # Panics
    ///
    /// If `capacity` is 0 or above `usize::MAX / 2`.
    #[track_caller]
    pub fn new(capacity: usize) -> Sender<T> {
        assert!(capacity > 0, "broadcast channel capacity must be positive");
        assert!(
            capacity <= usize::MAX >> 1,
            "broadcast channel capacity exceeded `usize::MAX / 2`"
        );
        let capacity = capacity.next_power_of_two();
        Sender {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    ring: VecDeque::with_capacity(capacity),
                    head: 0,
                    queued: 0,
                    closed: false,
                    senders: 1,
                    weak_senders: 0,
                    receivers: 0,
                    waiters: WaitQueue::new(),
                }),
                capacity,
                no_receivers: Notify::new(),
            }),
        }
    }

    /// Whether both senders belong to the same channel.
    pub fn same_channel(&self, other: &Sender<T>) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Number of senders of this channel.
    pub fn strong_count(&self) -> usize {
        self.shared.lock().senders
    }
}

fn subscribe<T>(shared: &Arc<Shared<T>>) -> Receiver<T> {
    let mut state = shared.lock();
    state.receivers += 1;
    let next = state.tail();
    drop(state);
    Receiver {
        shared: shared.clone(),
        next,
    }
}

impl<T: Clone> Receiver<T> {
    /// Receives the next value; see [`RecvError`] for lag and close.
    ///
    /// Cancel-safe: dropping the future before it completes skips no value.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing: a message is consumed only when the future returns it.
    pub fn recv(&mut self) -> RecvFuture<'_, T> {
        RecvFuture {
            rx: self,
            waiting: None,
            _pin: PhantomPinned,
        }
    }

    /// [`recv`](Receiver::recv) for synchronous code: parks this thread until a value, a lag
    /// or the close (tokio's `blocking_recv`).
    ///
    /// # Panics
    /// On a runtime worker thread or inside `block_on` (it would block the thread that drives
    /// tasks): `.await` `recv()` there instead, or call this from `spawn_blocking`.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Result<T, RecvError> {
        crate::block_on::block_on("broadcast::Receiver::blocking_recv", self.recv())
    }

    /// Receives the next value if there is one now.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let mut state = self.shared.lock();
        let mut freed = None;
        let r = read(&mut self.next, &mut state, &mut freed);
        drop(state);
        drop(freed);
        match r {
            Some(r) => r.map_err(|e| match e {
                RecvError::Closed => TryRecvError::Closed,
                RecvError::Lagged(n) => TryRecvError::Lagged(n),
            }),
            None => Err(TryRecvError::Empty),
        }
    }
}

/// Reads at `*next`; `None` when nothing is there yet. A value this read was the last reader of
/// leaves the ring into `freed`, for the caller to drop after releasing the lock.
fn read<T: Clone>(
    next: &mut u64,
    state: &mut State<T>,
    freed: &mut Option<T>,
) -> Option<Result<T, RecvError>> {
    if *next < state.head {
        let missed = state.head - *next;
        *next = state.head;
        return Some(Err(RecvError::Lagged(missed)));
    }
    if *next < state.tail() {
        // The index fits: it is below `ring.len()`. The position moves first, so a panicking
        // `Clone` skips the value instead of leaving it to be retried.
        let slot = &mut state.ring[(*next - state.head) as usize];
        *next += 1;
        slot.rem -= 1;
        if slot.rem == 0 {
            state.queued -= 1;
            *freed = slot.val.take();
        }
        // Cloned even by the last reader, as in tokio: `Clone` runs once per receiver.
        let kept = freed.as_ref().or(slot.val.as_ref());
        let value = kept.expect("a value is kept while a receiver has yet to read it");
        return Some(Ok(value.clone()));
    }
    if state.closed {
        return Some(Err(RecvError::Closed));
    }
    None
}

impl<T> Receiver<T> {
    /// A new receiver, starting at the newest position (it sees values sent from now on).
    pub fn resubscribe(&self) -> Receiver<T> {
        subscribe(&self.shared)
    }

    /// Values sent that this receiver has not received yet, counting those it has lagged past
    /// (more than the capacity means the next receive reports [`RecvError::Lagged`]).
    pub fn len(&self) -> usize {
        let tail = self.shared.lock().tail();
        usize::try_from(tail - self.next).unwrap_or(usize::MAX)
    }

    /// Whether this receiver has received every value sent so far.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether both receivers belong to the same channel.
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Whether every sender is gone (values still queued can be received).
    pub fn is_closed(&self) -> bool {
        self.shared.lock().closed
    }

    /// Number of senders of this channel.
    pub fn sender_strong_count(&self) -> usize {
        self.shared.lock().senders
    }

    /// Number of weak senders of this channel.
    pub fn sender_weak_count(&self) -> usize {
        self.shared.lock().weak_senders
    }
}

impl<T> WeakSender<T> {
    /// A [`Sender`] again, unless every sender is gone.
    pub fn upgrade(&self) -> Option<Sender<T>> {
        let mut state = self.shared.lock();
        if state.senders == 0 {
            return None;
        }
        state.senders += 1;
        drop(state);
        Some(Sender {
            shared: self.shared.clone(),
        })
    }

    /// Number of senders of this channel.
    pub fn strong_count(&self) -> usize {
        self.shared.lock().senders
    }

    /// Number of weak senders of this channel.
    pub fn weak_count(&self) -> usize {
        self.shared.lock().weak_senders
    }
}

impl<T> Clone for WeakSender<T> {
    fn clone(&self) -> Self {
        self.shared.lock().weak_senders += 1;
        WeakSender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for WeakSender<T> {
    fn drop(&mut self) {
        self.shared.lock().weak_senders -= 1;
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.shared.lock().senders += 1;
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.senders -= 1;
        if state.senders == 0 {
            state.closed = true;
            self.shared.wake_all(state);
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.receivers -= 1;
        let last = state.receivers == 0;
        let freed = state.release_from(self.next);
        drop(state);
        drop(freed);
        if last {
            self.shared.no_receivers.notify_waiters();
        }
    }
}

/// The future of [`Receiver::recv`]. `!Unpin`, as tokio's (pin it to poll it by hand).
#[must_use = "futures do nothing unless polled"]
pub struct RecvFuture<'a, T> {
    rx: &'a mut Receiver<T>,
    waiting: Option<Key>,
    _pin: PhantomPinned,
}

impl<T: Clone> Future for RecvFuture<'_, T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: `!Unpin` only as tokio's future is: no field is pinned, nothing is moved out.
        let this = unsafe { self.get_unchecked_mut() };
        let coop = std::task::ready!(coop::poll_proceed(cx));
        let Receiver { shared, next } = &mut *this.rx;
        let mut state = shared.lock();
        let mut freed = None;
        if let Some(r) = read(next, &mut state, &mut freed) {
            let old = this
                .waiting
                .take()
                .and_then(|key| state.waiters.remove(key));
            drop(state);
            drop((old, freed));
            coop.made_progress();
            return Poll::Ready(r);
        }
        let old = match this.waiting.and_then(|k| state.waiters.get_mut(k)) {
            Some(w) if w.will_wake(cx.waker()) => None,
            Some(w) => Some(std::mem::replace(w, cx.waker().clone())),
            None => {
                this.waiting = Some(state.waiters.push_back(cx.waker().clone()));
                None
            }
        };
        drop(state);
        // A replaced waker drops outside the lock: its `Drop` may send on this channel.
        drop(old);
        Poll::Pending
    }
}

impl<T> Drop for RecvFuture<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.waiting.take() {
            // The waker drops after the lock is released: its `Drop` may send on this channel.
            let waker = self.rx.shared.lock().waiters.remove(key);
            drop(waker);
        }
    }
}

impl<T> fmt::Debug for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SendError").finish_non_exhaustive()
    }
}

impl<T> fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("broadcasting with no receiver")
    }
}

impl<T> Error for SendError<T> {}

impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecvError::Closed => f.write_str("broadcast channel closed"),
            RecvError::Lagged(n) => write!(f, "receiver lagged by {n} values"),
        }
    }
}

impl Error for RecvError {}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryRecvError::Empty => f.write_str("broadcast channel empty"),
            TryRecvError::Closed => f.write_str("broadcast channel closed"),
            TryRecvError::Lagged(n) => write!(f, "receiver lagged by {n} values"),
        }
    }
}

impl Error for TryRecvError {}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("capacity", &self.shared.capacity)
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for WeakSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeakSender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for RecvFuture<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecvFuture")
            .field("waiting", &self.waiting.is_some())
            .finish_non_exhaustive()
    }
}
