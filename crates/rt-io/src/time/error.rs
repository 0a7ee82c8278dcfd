//! Timer errors.

use std::fmt;
use std::io;

/// The error of a [`Timeout`](super::Timeout) whose deadline passed before its future completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed(());

impl Elapsed {
    pub(crate) fn new() -> Elapsed {
        Elapsed(())
    }
}

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("deadline has elapsed")
    }
}

impl std::error::Error for Elapsed {}

impl From<Elapsed> for io::Error {
    fn from(_: Elapsed) -> io::Error {
        io::ErrorKind::TimedOut.into()
    }
}

/// A timer failure, tokio's `time::error::Error`: the timer's runtime has shut down, the timer
/// wheel is full, or a deadline is out of range.
///
/// rt's timers report these conditions by panicking, as tokio's do (a sleep polled after its
/// runtime shut down panics), so no rt API returns this type today; it exists so that code
/// written against tokio's error type (matching on [`is_shutdown`](Error::is_shutdown), or
/// naming the type in a signature) ports unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error(Kind);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Shutdown,
    AtCapacity,
    Invalid,
}

impl Error {
    /// The timer's runtime has shut down.
    pub fn shutdown() -> Error {
        Error(Kind::Shutdown)
    }

    /// Whether the timer's runtime has shut down.
    pub fn is_shutdown(&self) -> bool {
        self.0 == Kind::Shutdown
    }

    /// The timer wheel is at capacity.
    pub fn at_capacity() -> Error {
        Error(Kind::AtCapacity)
    }

    /// Whether the timer wheel was at capacity.
    pub fn is_at_capacity(&self) -> bool {
        self.0 == Kind::AtCapacity
    }

    /// The deadline is out of the timer's range.
    pub fn invalid() -> Error {
        Error(Kind::Invalid)
    }

    /// Whether the deadline was out of the timer's range.
    pub fn is_invalid(&self) -> bool {
        self.0 == Kind::Invalid
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            Kind::Shutdown => "the timer is shutdown, must be called from the context of a runtime",
            Kind::AtCapacity => "timer is at capacity and cannot create a new entry",
            Kind::Invalid => "timer duration exceeds maximum duration",
        })
    }
}

impl std::error::Error for Error {}
