//! [`BufReader`]: a buffer in front of a reader.

use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf, DEFAULT_BUF_SIZE};

pin_project! {
    /// Adds a buffer to a reader (tokio's `BufReader`): small reads are served from the buffer,
    /// which is refilled by reads of its capacity; a read at least as large as the capacity
    /// into an empty buffer goes straight to the reader. Implements [`AsyncBufRead`].
    ///
    /// Seeking discards the buffer. Writes (when the reader is also a writer) pass through.
    #[derive(Debug)]
    pub struct BufReader<R> {
        #[pin]
        inner: R,
        buf: Box<[u8]>,
        pos: usize,
        cap: usize,
        seek_state: SeekState,
    }
}

#[derive(Debug, Clone, Copy)]
enum SeekState {
    // No seek in progress.
    Init,
    // `start_seek` was called; the inner seek is not started yet.
    Start(SeekFrom),
    // A `SeekFrom::Current(n)` whose `n - buffered` overflows: the first of two inner seeks
    // (back by the buffered bytes) is in progress, then `n` from there.
    PendingOverflowed(i64),
    // The inner seek is in progress.
    Pending,
}

impl<R: AsyncRead> BufReader<R> {
    /// A `BufReader` with an 8 KiB buffer.
    pub fn new(inner: R) -> Self {
        Self::with_capacity(DEFAULT_BUF_SIZE, inner)
    }

    /// A `BufReader` with a buffer of `capacity` bytes.
    ///
    /// # Panics
    /// If `capacity` is 0.
    #[track_caller]
    pub fn with_capacity(capacity: usize, inner: R) -> Self {
        assert!(capacity > 0, "capacity must be greater than zero");
        BufReader {
            inner,
            buf: vec![0; capacity].into_boxed_slice(),
            pos: 0,
            cap: 0,
            seek_state: SeekState::Init,
        }
    }
}

impl<R> BufReader<R> {
    /// The underlying reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The underlying reader. Reading from it directly skips the buffered bytes.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The underlying reader, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().inner
    }

    /// Unwraps the reader; buffered bytes are lost.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The buffered bytes not yet read.
    pub fn buffer(&self) -> &[u8] {
        &self.buf[self.pos..self.cap]
    }

    fn discard_buffer(self: Pin<&mut Self>) {
        let me = self.project();
        *me.pos = 0;
        *me.cap = 0;
    }
}

impl<R: AsyncRead> AsyncRead for BufReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        // An empty buffer and a read at least as large: skip the copy.
        if self.pos == self.cap && buf.remaining() >= self.buf.len() {
            let res = ready!(self.as_mut().get_pin_mut().poll_read(cx, buf));
            self.discard_buffer();
            return Poll::Ready(res);
        }
        let rem = ready!(self.as_mut().poll_fill_buf(cx))?;
        let amt = std::cmp::min(rem.len(), buf.remaining());
        buf.put_slice(&rem[..amt]);
        self.consume(amt);
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncRead> AsyncBufRead for BufReader<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        if *me.pos >= *me.cap {
            let mut buf = ReadBuf::new(me.buf);
            ready!(me.inner.poll_read(cx, &mut buf))?;
            *me.cap = buf.filled().len();
            *me.pos = 0;
        }
        Poll::Ready(Ok(&me.buf[*me.pos..*me.cap]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        *me.pos = std::cmp::min(*me.pos + amt, *me.cap);
    }
}

impl<R: AsyncRead + AsyncSeek> AsyncSeek for BufReader<R> {
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        *self.project().seek_state = SeekState::Start(pos);
        Ok(())
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let res = ready!(self.as_mut().poll_seek_state(cx));
        if res.is_err() {
            *self.project().seek_state = SeekState::Init;
        }
        Poll::Ready(res)
    }
}

impl<R: AsyncRead + AsyncSeek> BufReader<R> {
    /// Drives the seek in progress; with none, waits for the reader's own pending operation
    /// and returns the logical position (the reader's, less what is buffered).
    fn poll_seek_state(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        loop {
            let mut me = self.as_mut().project();
            match *me.seek_state {
                SeekState::Init => {
                    let pos = ready!(me.inner.poll_complete(cx))?;
                    let buffered = (*me.cap - *me.pos) as u64;
                    return Poll::Ready(Ok(pos.saturating_sub(buffered)));
                }
                SeekState::Start(SeekFrom::Current(n)) => {
                    let remainder = (*me.cap - *me.pos) as i64;
                    match n.checked_sub(remainder) {
                        Some(offset) => {
                            me.inner.start_seek(SeekFrom::Current(offset))?;
                            *me.seek_state = SeekState::Pending;
                        }
                        None => {
                            // `n - remainder` overflows: seek back over the buffered bytes
                            // first, then by `n`.
                            me.inner.start_seek(SeekFrom::Current(-remainder))?;
                            *me.seek_state = SeekState::PendingOverflowed(n);
                        }
                    }
                }
                SeekState::Start(pos) => {
                    me.inner.start_seek(pos)?;
                    *me.seek_state = SeekState::Pending;
                }
                SeekState::PendingOverflowed(n) => {
                    ready!(me.inner.as_mut().poll_complete(cx))?;
                    // The buffer is discarded: the reader's position is now the logical one.
                    *me.pos = 0;
                    *me.cap = 0;
                    me.inner.start_seek(SeekFrom::Current(n))?;
                    *me.seek_state = SeekState::Pending;
                }
                SeekState::Pending => {
                    let res = ready!(me.inner.poll_complete(cx));
                    *me.seek_state = SeekState::Init;
                    if res.is_ok() {
                        *me.pos = 0;
                        *me.cap = 0;
                    }
                    return Poll::Ready(res);
                }
            }
        }
    }
}

impl<R: AsyncRead + AsyncWrite> AsyncWrite for BufReader<R> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_pin_mut().poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_pin_mut().poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.get_ref().is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_shutdown(cx)
    }
}
