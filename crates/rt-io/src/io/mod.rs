//! rt's IO traits and toolkit (tokio's names and semantics, rt's own code), and IO on any file
//! descriptor: [`AsyncFd`], and the readiness types.
//!
//! The sockets of [`crate::net`] are built on the same machinery: a source registered with the
//! reactor, readiness recorded by the reactor, the syscall done by the task.

mod async_fd;
pub(crate) mod poll_evented;
#[macro_use]
mod stream;
mod util;

pub use crate::readiness::{Interest, Ready};
pub use async_fd::{
    AsyncFd, AsyncFdReadyGuard, AsyncFdReadyMutGuard, AsyncFdRegisterError, AsyncFdTryNewError,
    TryIoError,
};
pub use std::io::{Error, ErrorKind, Result, SeekFrom};
pub use util::*;
