//! rt's IO traits and toolkit, under tokio's names and with tokio's documented semantics:
//! [`AsyncRead`] (with [`ReadBuf`]), [`AsyncWrite`], [`AsyncBufRead`], [`AsyncSeek`], their
//! extension traits, the buffered wrappers, `copy`, `split`, `join`, the in-memory pipes
//! ([`duplex`], [`simplex`]) and [`empty`] / [`sink`] / [`repeat`].
//!
//! The helpers that never wait (the pipes when ready, `empty`, `sink`, `repeat`, each round of
//! a `copy`) spend rt's cooperative budget, so a loop over them yields to the scheduler.
//!
//! # Pinning
//!
//! The futures the extension traits return (`read`, `write_all`, `read_u32`, `fill_buf`,
//! `seek`, …) are `!Unpin`, as tokio's are (a `PhantomPinned` marker), so code written for one
//! runtime compiles on the other: pin one (`rt::pin!`, `Box::pin`) to poll it by hand. None of
//! them pins a field: each reaches its reader or writer through a `&mut` (which the methods
//! ask to be `Unpin`), so their `poll`s take `&mut Self` out of the `Pin` and move nothing.

mod buf_read_ext;
mod buf_reader;
mod buf_stream;
mod buf_writer;
mod chain;
mod copy;
mod empty_sink_repeat;
mod join;
mod mem;
mod read_buf;
mod read_ext;
mod seek_ext;
mod split;
mod take;
mod traits;
mod write_ext;

/// The default capacity of the buffered wrappers and of `copy`'s buffer: 8 KiB.
pub(crate) const DEFAULT_BUF_SIZE: usize = 8 * 1024;

pub use buf_read_ext::{AsyncBufReadExt, Lines, Split};
pub use buf_reader::BufReader;
pub use buf_stream::BufStream;
pub use buf_writer::BufWriter;
pub use chain::Chain;
pub use copy::{copy, copy_bidirectional, copy_bidirectional_with_sizes, copy_buf};
pub use empty_sink_repeat::{empty, repeat, sink, Empty, Repeat, Sink};
pub use join::{join, Join};
pub use mem::{duplex, simplex, DuplexStream, SimplexStream};
pub use read_buf::ReadBuf;
pub use read_ext::AsyncReadExt;
pub use seek_ext::AsyncSeekExt;
pub use split::{split, ReadHalf, WriteHalf};
pub use take::Take;
pub use traits::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite};
pub use write_ext::AsyncWriteExt;
