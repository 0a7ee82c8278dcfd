//! The error IO operations return once their reactor stopped, and [`is_rt_shutdown_err`], which
//! recognises it (as tokio's `runtime::is_rt_shutdown_err`).
//!
//! The error is an `io::Error` of kind `Other` carrying a [`Stopped`]: recognised by that type,
//! never by its message, so an error that merely quotes the message is not taken for it.

use std::error::Error;
use std::fmt;
use std::io;

/// Why the reactor no longer delivers events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// The runtime shut it down.
    ShutDown,
    /// Its thread panicked.
    Gone,
}

impl Stopped {
    /// The `io::Error` an operation on a stopped reactor returns.
    pub(crate) fn into_io(self) -> io::Error {
        io::Error::other(self)
    }
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stopped::ShutDown => "rt-io reactor has shut down",
            Stopped::Gone => "rt-io reactor thread is gone",
        })
    }
}

impl Error for Stopped {}

/// The error an operation returns because its runtime shut down: [`is_rt_shutdown_err`] is true
/// for it. For the facade's services that run on the runtime's blocking pool (the standard
/// streams), so they report a shut-down runtime as its sockets do.
pub fn shutdown_error() -> io::Error {
    Stopped::ShutDown.into_io()
}

/// Whether `err` is the error an IO operation returns because its runtime shut down (or its
/// reactor thread died), as tokio's `runtime::is_rt_shutdown_err`. Errors from elsewhere, a
/// `JoinError` turned into an `io::Error` included, are not.
///
/// ```
/// let err = std::io::Error::other("rt-io reactor has shut down");
/// // The same words are not the same error.
/// assert!(!rt_io::is_rt_shutdown_err(&err));
/// ```
pub fn is_rt_shutdown_err(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::Other && err.get_ref().is_some_and(|e| e.is::<Stopped>())
}
