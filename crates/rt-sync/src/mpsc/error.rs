//! The errors of [`mpsc`](super), at tokio's paths (`mpsc::error::…`) with tokio's messages.

use std::error::Error;
use std::fmt;

value_error! {
    /// The receiver is gone or closed; the value comes back (`SendError<()>` from `reserve`).
    struct SendError => "channel closed"
}

value_error! {
    /// `try_send` (or `try_reserve`) failed; the value comes back.
    enum TrySendError {
        /// Every slot of the bounded channel is taken.
        Full => "no available capacity",
        /// The receiver is gone or closed.
        Closed => "channel closed",
    }
}

value_error! {
    /// `send_timeout` failed; the value comes back.
    enum SendTimeoutError {
        /// No slot freed up before the timeout.
        Timeout => "timed out waiting on send operation",
        /// The receiver is gone or closed.
        Closed => "channel closed",
    }
}

/// `try_recv` found no value.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub enum TryRecvError {
    /// Nothing is queued now, but a sender may still send.
    Empty,
    /// Nothing is queued and nothing can be sent any more.
    Disconnected,
}

impl<T> From<SendError<T>> for TrySendError<T> {
    fn from(e: SendError<T>) -> Self {
        TrySendError::Closed(e.0)
    }
}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryRecvError::Empty => f.write_str("receiving on an empty channel"),
            TryRecvError::Disconnected => f.write_str("receiving on a closed channel"),
        }
    }
}

impl Error for TryRecvError {}
