//! [`Take`]: at most a given number of bytes of a reader.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::{AsyncBufRead, AsyncRead, ReadBuf};

pin_project! {
    /// A reader that reads at most `limit` bytes of another, then reports end of stream
    /// ([`AsyncReadExt::take`](super::AsyncReadExt::take)).
    #[derive(Debug)]
    #[must_use = "streams do nothing unless polled"]
    pub struct Take<R> {
        #[pin]
        inner: R,
        limit: u64,
    }
}

pub(super) fn take<R: AsyncRead>(inner: R, limit: u64) -> Take<R> {
    Take { inner, limit }
}

impl<R: AsyncRead> Take<R> {
    /// How many bytes may still be read before end of stream.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Sets how many bytes may still be read.
    pub fn set_limit(&mut self, limit: u64) {
        self.limit = limit
    }

    /// The underlying reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The underlying reader. Reading from it directly bypasses the limit.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The underlying reader, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().inner
    }

    /// Unwraps the reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: AsyncRead> AsyncRead for Take<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.limit == 0 {
            return Poll::Ready(Ok(()));
        }
        let me = self.project();
        let max = std::cmp::min(buf.remaining() as u64, *me.limit) as usize;
        let mut b = buf.take(max);
        let ptr = b.filled().as_ptr();
        ready!(me.inner.poll_read(cx, &mut b))?;
        assert_eq!(ptr, b.filled().as_ptr(), "the reader replaced the ReadBuf");
        let n = b.filled().len();
        // SAFETY: the inner reader filled, so initialised, `n` bytes of `buf`'s unfilled part.
        unsafe { buf.assume_init(n) };
        buf.advance(n);
        *me.limit -= n as u64;
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncBufRead> AsyncBufRead for Take<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        if *me.limit == 0 {
            return Poll::Ready(Ok(&[]));
        }
        let buf = ready!(me.inner.poll_fill_buf(cx)?);
        let cap = std::cmp::min(buf.len() as u64, *me.limit) as usize;
        Poll::Ready(Ok(&buf[..cap]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        let amt = std::cmp::min(amt as u64, *me.limit) as usize;
        *me.limit -= amt as u64;
        me.inner.consume(amt);
    }
}
