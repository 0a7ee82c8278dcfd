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
}

senders_common!(UnboundedSender, WeakUnboundedSender, "`UnboundedSender`s");

receiver_common!(UnboundedReceiver, WeakUnboundedSender, "`UnboundedSender`s");

impl<T> UnboundedReceiver<T> {
    /// Closes the channel to new sends; what is queued can still be received.
    pub fn close(&mut self) {
        self.rx.close();
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
