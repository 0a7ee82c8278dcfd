//! [`empty`], [`sink`] and [`repeat`]: readers and writers that never wait. Each operation
//! spends a unit of the cooperative budget, so a loop over one still yields to the scheduler.

use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

/// Spends a unit of budget for an operation that completes now (or yields if none is left).
fn proceed(cx: &mut Context<'_>) -> Poll<()> {
    ready!(rt_core::coop::poll_proceed(cx)).made_progress();
    Poll::Ready(())
}

/// A reader that is always at end of stream and a writer that takes and drops everything
/// ([`empty`]).
#[derive(Debug, Default, Clone, Copy)]
pub struct Empty {
    _p: (),
}

/// A reader at end of stream, which as a writer takes and drops everything (tokio's `empty`).
pub fn empty() -> Empty {
    Empty { _p: () }
}

impl AsyncRead for Empty {
    #[inline]
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        _: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(proceed(cx));
        Poll::Ready(Ok(()))
    }
}

impl AsyncBufRead for Empty {
    #[inline]
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        ready!(proceed(cx));
        Poll::Ready(Ok(&[]))
    }

    #[inline]
    fn consume(self: Pin<&mut Self>, _: usize) {}
}

impl AsyncSeek for Empty {
    #[inline]
    fn start_seek(self: Pin<&mut Self>, _position: SeekFrom) -> io::Result<()> {
        Ok(())
    }

    #[inline]
    fn poll_complete(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Poll::Ready(Ok(0))
    }
}

/// A writer that takes and drops everything ([`sink`]).
#[derive(Debug, Default, Clone, Copy)]
pub struct Sink {
    _p: (),
}

/// A writer that takes and drops everything (tokio's `sink`).
pub fn sink() -> Sink {
    Sink { _p: () }
}

/// `AsyncWrite` for a writer that takes every byte and drops it, ready at once (after the
/// cooperative budget's check): `Empty` and `Sink` write alike.
macro_rules! discarding_write {
    ($($ty:ty),+) => {$(
        impl AsyncWrite for $ty {
            #[inline]
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                ready!(proceed(cx));
                Poll::Ready(Ok(buf.len()))
            }

            #[inline]
            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                ready!(proceed(cx));
                Poll::Ready(Ok(()))
            }

            #[inline]
            fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                ready!(proceed(cx));
                Poll::Ready(Ok(()))
            }

            #[inline]
            fn is_write_vectored(&self) -> bool {
                true
            }

            #[inline]
            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                ready!(proceed(cx));
                Poll::Ready(Ok(bufs.iter().map(|b| b.len()).sum()))
            }
        }
    )+};
}

discarding_write!(Empty, Sink);

/// A reader that yields one byte over and over ([`repeat`]).
#[derive(Debug, Clone, Copy)]
pub struct Repeat {
    byte: u8,
}

/// A reader that fills every read with `byte`, endlessly (tokio's `repeat`).
pub fn repeat(byte: u8) -> Repeat {
    Repeat { byte }
}

impl AsyncRead for Repeat {
    #[inline]
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(proceed(cx));
        let n = buf.remaining();
        buf.initialize_unfilled().fill(self.byte);
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}
