//! The unbounded channel's handles: [`UnboundedSender`] (whose `send` is synchronous, as in
//! tokio), [`UnboundedReceiver`], [`WeakUnboundedSender`].

use std::fmt;
use std::task::{Context, Poll};

use rt_core::sync::{Arc, Ordering};

use super::error::{SendError, TryRecvError};
use super::{Rx, Shared};

/// Sends values into an unbounded channel; cloning adds a sender.
pub struct UnboundedSender<T> {
    shared: Arc<Shared<T>>,
}

/// Receives values from an unbounded channel.
pub struct UnboundedReceiver<T> {
    rx: Rx<T>,
}

/// An unbounded sender that does not keep the channel open.
pub struct WeakUnboundedSender<T> {
    shared: Arc<Shared<T>>,
}

impl<T> UnboundedSender<T> {
    pub(super) fn new(shared: Arc<Shared<T>>) -> UnboundedSender<T> {
        UnboundedSender { shared }
    }

    /// Queues `value` now, never waiting; fails, giving it back, once the receiver is closed
    /// or gone. Not `async`: tokio's `let _ = tx.send(msg);` sends.
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        // No in-flight count: an unbounded channel has no permits, so a send racing
        // `Receiver::close` either queued before the queue closed (and is received) or fails
        // (module docs of `mpsc`).
        self.shared.push_unbounded(value).map_err(SendError)
    }

    /// Completes when the receiver is closed or dropped.
    pub async fn closed(&self) {
        self.shared.closed().await;
    }

    /// Whether the receiver is closed or dropped.
    pub fn is_closed(&self) -> bool {
        self.shared.is_closed()
    }

    /// A sender that does not keep the channel open.
    pub fn downgrade(&self) -> WeakUnboundedSender<T> {
        self.shared.weak.fetch_add(1, Ordering::Relaxed);
        WeakUnboundedSender {
            shared: self.shared.clone(),
        }
    }

    /// Whether both senders belong to one channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Number of `UnboundedSender`s of this channel.
    pub fn strong_count(&self) -> usize {
        self.shared.senders.load(Ordering::Acquire)
    }

    /// Number of `WeakUnboundedSender`s of this channel.
    pub fn weak_count(&self) -> usize {
        self.shared.weak.load(Ordering::Acquire)
    }
}

impl<T> Clone for UnboundedSender<T> {
    fn clone(&self) -> Self {
        self.shared.add_sender();
        UnboundedSender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for UnboundedSender<T> {
    fn drop(&mut self) {
        self.shared.drop_sender();
    }
}

impl<T> WeakUnboundedSender<T> {
    /// An `UnboundedSender` again, unless every one is gone.
    pub fn upgrade(&self) -> Option<UnboundedSender<T>> {
        self.shared.upgrade().then(|| UnboundedSender {
            shared: self.shared.clone(),
        })
    }

    /// Number of `UnboundedSender`s of this channel.
    pub fn strong_count(&self) -> usize {
        self.shared.senders.load(Ordering::Acquire)
    }

    /// Number of `WeakUnboundedSender`s of this channel.
    pub fn weak_count(&self) -> usize {
        self.shared.weak.load(Ordering::Acquire)
    }
}

impl<T> Clone for WeakUnboundedSender<T> {
    fn clone(&self) -> Self {
        self.shared.weak.fetch_add(1, Ordering::Relaxed);
        WeakUnboundedSender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for WeakUnboundedSender<T> {
    fn drop(&mut self) {
        self.shared.weak.fetch_sub(1, Ordering::Relaxed);
    }
}

impl<T> UnboundedReceiver<T> {
    pub(super) fn new(rx: Rx<T>) -> UnboundedReceiver<T> {
        UnboundedReceiver { rx }
    }

    /// The next value; `None` once every sender is gone (or the channel is closed) and the
    /// queue is drained.
    ///
    /// # Cancel safety
    /// Cancel safe: a dropped `recv` future took nothing.
    pub async fn recv(&mut self) -> Option<T> {
        self.rx.recv().await
    }

    /// Waits for at least one value, then moves up to `limit` queued values into `buffer`.
    /// Returns how many it moved: 0 only when `limit` is 0 or the channel is done.
    ///
    /// # Cancel safety
    /// Cancel safe: a dropped future took nothing.
    pub async fn recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        self.rx.recv_many(buffer, limit).await
    }

    /// A value if one is queued now.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.rx.try_recv()
    }

    /// Receives from a thread that is not driving tasks, parking it while the queue is empty.
    ///
    /// # Panics
    /// On a runtime worker thread or inside `block_on`. Use `recv().await` there.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Option<T> {
        super::block_on("UnboundedReceiver::blocking_recv", self.rx.recv())
    }

    /// Polls for the next value (for hand-written futures and streams).
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        self.rx.poll_recv(cx)
    }

    /// Polls for up to `limit` values, appended to `buffer` (for hand-written futures and
    /// streams): `Ready(0)` when `limit` is 0 or the channel is closed and empty, as
    /// [`recv_many`](UnboundedReceiver::recv_many).
    pub fn poll_recv_many(
        &mut self,
        cx: &mut Context<'_>,
        buffer: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        self.rx.poll_recv_many(cx, buffer, limit)
    }

    /// Closes the channel to new sends; what is queued can still be received.
    pub fn close(&mut self) {
        self.rx.close();
    }

    /// Whether the channel is closed (by [`close`](UnboundedReceiver::close), or every sender
    /// is gone).
    pub fn is_closed(&self) -> bool {
        self.rx.is_closed()
    }

    /// Number of queued values.
    pub fn len(&self) -> usize {
        self.rx.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of `UnboundedSender`s of this channel.
    pub fn sender_strong_count(&self) -> usize {
        self.rx.shared.senders.load(Ordering::Acquire)
    }

    /// Number of `WeakUnboundedSender`s of this channel.
    pub fn sender_weak_count(&self) -> usize {
        self.rx.shared.weak.load(Ordering::Acquire)
    }

    /// Receives up to `limit` values from a thread that is not driving tasks, parking it while
    /// the queue is empty, as [`recv_many`](UnboundedReceiver::recv_many).
    ///
    /// # Panics
    /// On a runtime worker thread or inside `block_on`. Use `recv_many(..).await` there.
    #[track_caller]
    pub fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        super::block_on(
            "UnboundedReceiver::blocking_recv_many",
            self.rx.recv_many(buffer, limit),
        )
    }
}

impl<T> fmt::Debug for UnboundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnboundedSender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for UnboundedReceiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnboundedReceiver").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for WeakUnboundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeakUnboundedSender")
            .finish_non_exhaustive()
    }
}
