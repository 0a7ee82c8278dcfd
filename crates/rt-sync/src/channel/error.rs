//! The errors of [`channel`](super): each gives a value that was not sent back to its owner.

use std::error::Error;
use std::fmt;

value_error! {
    /// `send` failed because the channel is closed; the value comes back.
    struct SendError => "sending on a closed channel"
}

value_error! {
    /// `try_send` failed; the value comes back.
    enum TrySendError {
        /// The buffer is full (a rendezvous channel is always full to `try_send`).
        Full => "sending on a full channel",
        /// The channel is closed.
        Closed => "sending on a closed channel",
    }
}

/// `try_recv` found no value.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub enum TryRecvError {
    /// Nothing is buffered right now, but the channel is open.
    Empty,
    /// The channel is closed and drained.
    Closed,
}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryRecvError::Empty => f.write_str("receiving on an empty channel"),
            TryRecvError::Closed => f.write_str("receiving on a closed channel"),
        }
    }
}

impl Error for TryRecvError {}
