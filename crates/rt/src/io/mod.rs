//! IO traits and tools, under tokio's names: a tokio user's `use tokio::io::{...}` becomes
//! `use rt::io::{...}` unchanged.
//!
//! - [`AsyncRead`] (with [`ReadBuf`]), [`AsyncWrite`], [`AsyncBufRead`], [`AsyncSeek`] are rt's
//!   own traits with tokio's signatures and documented semantics. Every rt stream implements
//!   them — `TcpStream`, `UnixStream`, their borrowed and owned halves, [`DuplexStream`],
//!   [`Stdin`] / [`Stdout`] / [`Stderr`], `rt::fs::File`, the child process pipes — and also the
//!   futures-io traits, which live in [`rt::io::futures`](self::futures).
//! - The toolkit is rt's own too (it lives in rt-io): [`AsyncReadExt`], [`AsyncWriteExt`],
//!   [`AsyncBufReadExt`], [`AsyncSeekExt`], [`BufReader`], [`BufWriter`], [`BufStream`],
//!   [`copy`], [`copy_bidirectional`], [`split`], [`join`], [`duplex`], [`simplex`], [`empty`],
//!   [`sink`], [`repeat`], … The helpers that never wait spend rt's cooperative budget, so a
//!   task looping over `copy`, `sink`, `repeat`, `empty` or an always-ready pipe still yields.
//! - [`stdin`] / [`stdout`] / [`stderr`] run the blocking reads and writes on rt's blocking
//!   pool.
//! - [`AsyncFd`] and the readiness types, for any file descriptor.
//!
//! # Not crates.io tokio's traits
//!
//! These traits are not crates.io tokio's, and rt has no feature implementing tokio's traits
//! for its streams: rt's dependency graph holds no crates.io `tokio` at all, so that the
//! `tokio` face crate (which re-exports rt under tokio's module tree, and is patched in with
//! `[patch.crates-io]`) can stand in for tokio without a dependency cycle. Libraries written
//! against `tokio::io` run on rt through that face; hyper runs on rt through the `rt-hyper`
//! crate, which adapts rt's traits to hyper's.
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

mod stdio;

pub use stdio::{stderr, stdin, stdout, Stderr, Stdin, Stdout};

pub use rt_io::io::{
    copy, copy_bidirectional, copy_bidirectional_with_sizes, copy_buf, duplex, empty, join, repeat,
    simplex, sink, split, AsyncBufRead, AsyncBufReadExt, AsyncFd, AsyncFdReadyGuard,
    AsyncFdReadyMutGuard, AsyncFdRegisterError, AsyncFdTryNewError, AsyncRead, AsyncReadExt,
    AsyncSeek, AsyncSeekExt, AsyncWrite, AsyncWriteExt, BufReader, BufStream, BufWriter, Chain,
    DuplexStream, Empty, Error, ErrorKind, Interest, Join, Lines, ReadBuf, ReadHalf, Ready, Repeat,
    Result, SeekFrom, SimplexStream, Sink, Split, Take, TryIoError, WriteHalf,
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

/// The futures-io traits, for code written against the `futures` family. Every rt stream
/// implements both these and rt's own.
pub mod futures {
    pub use futures_io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite};
}
