//! IO traits and tools, under tokio's names: a tokio user's `use tokio::io::{...}` becomes
//! `use rt::io::{...}` unchanged.
//!
//! - [`AsyncRead`], [`AsyncWrite`], [`ReadBuf`], [`AsyncBufRead`] are tokio's traits (from the
//!   `tokio` crate built with only its runtime-independent `io-util` feature: no tokio runtime
//!   is pulled in). Every rt stream implements them — `TcpStream`, `UnixStream`, their borrowed
//!   and owned halves, [`DuplexStream`], [`Stdin`] / [`Stdout`] / [`Stderr`] — and also the
//!   futures-io traits, which live in [`rt::io::futures`](self::futures).
//! - The toolkit is tokio's own runtime-independent code, re-exported: [`AsyncReadExt`],
//!   [`AsyncWriteExt`], [`AsyncBufReadExt`], [`BufReader`], [`BufWriter`], [`copy`],
//!   [`copy_bidirectional`], [`split`], [`empty`], [`sink`], … It is generic over the traits, so
//!   it behaves the same on rt's streams as on tokio's.
//! - rt's own: [`duplex`] (a [`DuplexStream`] that also implements the futures-io traits) and
//!   [`stdin`] / [`stdout`] / [`stderr`], which run the blocking reads and writes on rt's
//!   blocking pool (tokio's would need tokio's).
//! - [`AsyncFd`] and the readiness types, for any file descriptor.
//!
//! ```
//! use rt::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
//!
//! # rt::Runtime::new()?.block_on(async {
//! let (mut a, b) = rt::io::duplex(64);
//! a.write_all(b"one\ntwo\n").await?;
//! drop(a);
//! let mut lines = BufReader::new(b).lines();
//! assert_eq!(lines.next_line().await?.as_deref(), Some("one"));
//! assert_eq!(lines.next_line().await?.as_deref(), Some("two"));
//! assert_eq!(lines.next_line().await?, None);
//! # rt::io::Result::Ok(())
//! # })?;
//! # Ok::<(), std::io::Error>(())
//! ```

mod duplex;
mod stdio;

pub use duplex::{duplex, DuplexStream};
pub use stdio::{stderr, stdin, stdout, Stderr, Stdin, Stdout};

pub use rt_io::io::*;
pub use tokio::io::{
    copy, copy_bidirectional, copy_bidirectional_with_sizes, copy_buf, empty, join, repeat,
    simplex, sink, split, AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncSeek,
    AsyncSeekExt, AsyncWrite, AsyncWriteExt, BufReader, BufStream, BufWriter, Chain, Empty, Error,
    ErrorKind, Join, Lines, ReadBuf, ReadHalf, Repeat, Result, SeekFrom, SimplexStream, Sink,
    Split, Take, WriteHalf,
};

/// tokio's `tokio::io::unix`: readiness for a file descriptor the caller does its own IO on
/// (`use tokio::io::unix::AsyncFd` becomes `use rt::io::unix::AsyncFd`). The same types are also
/// at `rt::io::AsyncFd`.
pub mod unix {
    pub use rt_io::io::{
        AsyncFd, AsyncFdReadyGuard, AsyncFdReadyMutGuard, AsyncFdRegisterError, AsyncFdTryNewError,
        TryIoError,
    };
}

/// The futures-io traits (what `rt::io::{AsyncRead, AsyncWrite}` were before they became
/// tokio's), for code written against the `futures` family. Every rt stream implements both.
pub mod futures {
    pub use futures_io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite};
}
