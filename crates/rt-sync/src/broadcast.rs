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
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use rt_core::coop;
use rt_core::sync::{Arc, Mutex, MutexGuard};

use rt_core::wait_queue::{Key, WaitQueue};

/// Wakers woken per lock release when a send wakes many receivers.
const WAKE_BATCH: usize = 32;

/// Creates a broadcast channel keeping the last `capacity` values.
///
/// # Panics
///
/// If `capacity` is 0.
pub fn channel<T: Clone>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let tx = Sender::new(capacity);
    let rx = tx.subscribe();
    (tx, rx)
}

struct Shared<T> {
    state: Mutex<State<T>>,
    capacity: usize,
}

struct State<T> {
    ring: VecDeque<T>,
    /// Position of `ring[0]`; the next value sent gets position `head + ring.len()`.
    head: u64,
    /// Every sender is gone.
    closed: bool,
    senders: usize,
    receivers: usize,
    waiters: WaitQueue<Waker>,
}

impl<T> State<T> {
    fn tail(&self) -> u64 {
        self.head + self.ring.len() as u64
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
            state.ring.pop_front()
        } else {
            None
        };
        state.ring.push_back(value);
        let receivers = state.receivers;
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
}

impl<T> Sender<T> {
    /// A channel keeping the last `capacity` values, with no receiver yet: `send` fails until
    /// one [`Sender::subscribe`]s (tokio's `Sender::new`).
    ///
    /// # Panics
    ///
    /// If `capacity` is 0.
    pub fn new(capacity: usize) -> Sender<T> {
        assert!(capacity > 0, "broadcast channel capacity must be positive");
        Sender {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    ring: VecDeque::with_capacity(capacity),
                    head: 0,
                    closed: false,
                    senders: 1,
                    receivers: 0,
                    waiters: WaitQueue::new(),
                }),
                capacity,
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
        match read(&mut self.next, &mut state) {
            Some(r) => r.map_err(|e| match e {
                RecvError::Closed => TryRecvError::Closed,
                RecvError::Lagged(n) => TryRecvError::Lagged(n),
            }),
            None => Err(TryRecvError::Empty),
        }
    }
}

/// Reads at `*next`; `None` when nothing is there yet.
fn read<T: Clone>(next: &mut u64, state: &mut State<T>) -> Option<Result<T, RecvError>> {
    if *next < state.head {
        let missed = state.head - *next;
        *next = state.head;
        return Some(Err(RecvError::Lagged(missed)));
    }
    if *next < state.tail() {
        // The index fits: it is below `ring.len()`.
        let value = state.ring[(*next - state.head) as usize].clone();
        *next += 1;
        return Some(Ok(value));
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
        self.shared.lock().receivers -= 1;
    }
}

/// The future of [`Receiver::recv`].
#[must_use = "futures do nothing unless polled"]
pub struct RecvFuture<'a, T> {
    rx: &'a mut Receiver<T>,
    waiting: Option<Key>,
}

impl<T: Clone> Future for RecvFuture<'_, T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let coop = std::task::ready!(coop::poll_proceed(cx));
        let Receiver { shared, next } = &mut *this.rx;
        let mut state = shared.lock();
        if let Some(r) = read(next, &mut state) {
            if let Some(key) = this.waiting.take() {
                state.waiters.remove(key);
            }
            drop(state);
            coop.made_progress();
            return Poll::Ready(r);
        }
        match this.waiting.and_then(|k| state.waiters.get_mut(k)) {
            Some(w) if w.will_wake(cx.waker()) => {}
            Some(w) => *w = cx.waker().clone(),
            None => this.waiting = Some(state.waiters.push_back(cx.waker().clone())),
        }
        Poll::Pending
    }
}

impl<T> Drop for RecvFuture<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.waiting.take() {
            self.rx.shared.lock().waiters.remove(key);
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
