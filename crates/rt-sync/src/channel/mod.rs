//! Multi-producer, multi-consumer channels, Go style: [`bounded`] (capacity 0 is a rendezvous)
//! and [`unbounded`].
//!
//! Both ends are `Clone`. The channel closes when every `Sender` or every `Receiver` is gone, or
//! when either side calls `close`; closing wakes every waiter. Receivers drain what is buffered,
//! then see `None`; a send into a closed channel gives its value back in the error.
//!
//! Waiters are served first come, first served. Every future is cancellation-safe: a dropped
//! `send` future has not sent (its value goes back with it, for a rendezvous too), and a dropped
//! `recv` future that had been woken passes the wake-up on to the next receiver.
//!
//! A bounded channel of capacity 1 to 4,096 keeps its values in a lock-free ring of slots
//! allocated once, up front: a send that finds room and a receive that finds a value take no
//! lock. A sender that finds the ring full queues with its value (in order behind what is
//! buffered) until receivers make room; to save a wake-up per value, receivers move queued
//! senders in once per batch of `capacity / 16` slots (at most 64), so with a capacity of 32 or
//! more a blocked `send` may stay pending while fewer than a batch of slots are free, until the
//! receivers reach the batch's end or empty the ring. The protocol is written down in
//! `ring_chan.rs`. A rendezvous, an unbounded channel and a larger bounded one use two short
//! locks instead (`chan.rs`); a larger bounded channel's buffer holds 4,096 values up front and
//! grows on demand beyond. Sending allocates nothing; waiting clones the task's waker, and only
//! waiting does.
//!
//! ```
//! # use rt_core::test_support::block_on;
//! let (tx, rx) = rt_sync::channel::bounded(2);
//! block_on(async {
//!     tx.send(1).await.unwrap();
//!     tx.send(2).await.unwrap();
//!     drop(tx);
//!     assert_eq!(rx.recv().await, Some(1));
//!     assert_eq!(rx.recv().await, Some(2));
//!     assert_eq!(rx.recv().await, None);
//! });
//! ```

mod chan;
mod error;
mod mpmc_ring;
mod ring_chan;
mod send;
mod shared;
mod state;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use rt_core::sync::{Arc, Ordering};

use self::chan::SendState;
use self::shared::Shared as Chan;
use rt_core::wait_queue::Key;

pub use self::error::{SendError, TryRecvError, TrySendError};

/// A channel holding at most `cap` values; `send` waits while it is full.
///
/// With `cap == 0` the channel is a rendezvous: `send` completes only once a receiver has taken
/// the value, and `try_send` always reports `Full`.
pub fn bounded<T>(cap: usize) -> (Sender<T>, Receiver<T>) {
    pair(Chan::new(Some(cap)))
}

/// A channel without a bound: `send` never waits.
pub fn unbounded<T>() -> (Sender<T>, Receiver<T>) {
    pair(Chan::new(None))
}

fn pair<T>(chan: Chan<T>) -> (Sender<T>, Receiver<T>) {
    let chan = Arc::new(chan);
    (
        Sender { chan: chan.clone() },
        Receiver {
            chan,
            waiting: None,
        },
    )
}

/// The sending end; cloning adds a producer.
pub struct Sender<T> {
    chan: Arc<Chan<T>>,
}

/// The receiving end; cloning adds a consumer. Also a [`Stream`] of the values.
pub struct Receiver<T> {
    chan: Arc<Chan<T>>,
    /// The `Stream` impl's place in the waiter queue (`recv` futures keep their own).
    waiting: Option<Key>,
}

macro_rules! common_methods {
    () => {
        /// Closes the channel, waking every waiter. Returns `false` if it was already closed.
        pub fn close(&self) -> bool {
            self.chan.close()
        }

        /// Whether the channel is closed (values may still be buffered).
        pub fn is_closed(&self) -> bool {
            self.chan.is_closed()
        }

        /// Number of buffered values (a value still held by a waiting sender does not count).
        pub fn len(&self) -> usize {
            self.chan.len()
        }

        /// Whether no value is buffered.
        pub fn is_empty(&self) -> bool {
            self.len() == 0
        }

        /// The bound, or `None` for an unbounded channel.
        pub fn capacity(&self) -> Option<usize> {
            self.chan.capacity()
        }
    };
}

impl<T> Sender<T> {
    /// Sends `value`, waiting for room (for a rendezvous, for a receiver to take it).
    ///
    /// Cancel-safe: if the future is dropped before it completes, the value was not sent.
    ///
    /// # Cancel safety
    /// Not cancel safe: the value moves into the future, so dropping it before it completes drops the value (the channel never received it).
    pub fn send(&self, value: T) -> SendFuture<'_, T> {
        SendFuture {
            chan: &self.chan,
            state: SendState::Idle(value),
        }
    }

    /// Sends `value` if there is room now.
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        self.chan.try_send(value)
    }

    common_methods!();
}

impl<T> Receiver<T> {
    /// Receives the next value; `None` once the channel is closed and drained.
    ///
    /// Cancel-safe: if the future is dropped before it completes, no value was taken.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future before it completes loses nothing: no message is taken from the channel unless the future returns it.
    pub fn recv(&self) -> RecvFuture<'_, T> {
        RecvFuture {
            chan: &self.chan,
            waiting: None,
        }
    }

    /// Receives a value if one is ready now.
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        self.chan.try_recv()
    }

    common_methods!();
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.chan.senders.fetch_add(1, Ordering::Relaxed);
        Sender {
            chan: self.chan.clone(),
        }
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        self.chan.receivers.fetch_add(1, Ordering::Relaxed);
        Receiver {
            chan: self.chan.clone(),
            waiting: None,
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.chan.release_sender();
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if let Some(key) = self.waiting.take() {
            self.chan.cancel_recv(key);
        }
        self.chan.release_receiver();
    }
}

impl<T> Stream for Receiver<T> {
    type Item = T;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let this = self.get_mut();
        this.chan.poll_recv(cx, &mut this.waiting)
    }
}

/// The future of [`Sender::send`].
#[must_use = "futures do nothing unless polled"]
pub struct SendFuture<'a, T> {
    chan: &'a Chan<T>,
    state: SendState<T>,
}

// The value is moved, never pinned: the future can be `Unpin` whatever `T` is.
impl<T> Unpin for SendFuture<'_, T> {}

impl<T> Future for SendFuture<'_, T> {
    type Output = Result<(), SendError<T>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        this.chan.poll_send(cx, &mut this.state)
    }
}

impl<T> Drop for SendFuture<'_, T> {
    fn drop(&mut self) {
        if let SendState::Blocked(key, ticket) = self.state {
            drop(self.chan.cancel_send(key, ticket));
        }
    }
}

/// The future of [`Receiver::recv`].
#[must_use = "futures do nothing unless polled"]
pub struct RecvFuture<'a, T> {
    chan: &'a Chan<T>,
    waiting: Option<Key>,
}

impl<T> Future for RecvFuture<'_, T> {
    type Output = Option<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let this = self.get_mut();
        this.chan.poll_recv(cx, &mut this.waiting)
    }
}

impl<T> Drop for RecvFuture<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.waiting.take() {
            self.chan.cancel_recv(key);
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("capacity", &self.capacity())
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("capacity", &self.capacity())
            .field("waiting", &self.waiting.is_some())
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for SendFuture<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.state {
            SendState::Idle(_) => "idle",
            SendState::Blocked(..) => "blocked",
            SendState::Done => "done",
        };
        f.debug_struct("SendFuture")
            .field("state", &state)
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
