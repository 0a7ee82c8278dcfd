//! [`BufWriter`]: a buffer in front of a writer.

use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf, DEFAULT_BUF_SIZE};

pin_project! {
    /// Adds a buffer to a writer (tokio's `BufWriter`): small writes collect in the buffer,
    /// which goes out when it would overflow, on `flush` and on `shutdown`; a write at least as
    /// large as the capacity goes straight to the writer once the buffer is out.
    ///
    /// Bytes still buffered when it is dropped are lost: flush (or shut down) first. Seeking
    /// writes the buffer out first. Reads (when the writer is also a reader) pass through.
    #[derive(Debug)]
    pub struct BufWriter<W> {
        #[pin]
        inner: W,
        buf: Vec<u8>,
        written: usize,
        seek_state: SeekState,
    }
}

#[derive(Debug, Clone, Copy)]
enum SeekState {
    Init,
    // `start_seek` was called: write the buffer out, then start the inner seek.
    Start(SeekFrom),
    Pending,
}

impl<W: AsyncWrite> BufWriter<W> {
    /// A `BufWriter` with an 8 KiB buffer.
    pub fn new(inner: W) -> Self {
        Self::with_capacity(DEFAULT_BUF_SIZE, inner)
    }

    /// A `BufWriter` with a buffer of `cap` bytes.
    pub fn with_capacity(cap: usize, inner: W) -> Self {
        BufWriter {
            inner,
            buf: Vec::with_capacity(cap),
            written: 0,
            seek_state: SeekState::Init,
        }
    }

    fn flush_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut me = self.project();
        let len = me.buf.len();
        let mut ret = Ok(());
        while *me.written < len {
            match me.inner.as_mut().poll_write(cx, &me.buf[*me.written..]) {
                Poll::Ready(Ok(0)) => {
                    ret = Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "failed to write the buffered data",
                    ));
                    break;
                }
                Poll::Ready(Ok(n)) => *me.written += n,
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Poll::Ready(Err(e)) => {
                    ret = Err(e);
                    break;
                }
                Poll::Pending => break,
            }
        }
        // Keep only what is not written yet, whatever stopped the loop.
        if *me.written > 0 {
            me.buf.drain(..*me.written);
        }
        *me.written = 0;
        if ret.is_ok() && !me.buf.is_empty() {
            return Poll::Pending;
        }
        Poll::Ready(ret)
    }
}

impl<W> BufWriter<W> {
    /// The underlying writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The underlying writer. Writing to it directly goes ahead of the buffered bytes.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// The underlying writer, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W> {
        self.project().inner
    }

    /// Unwraps the writer; buffered bytes are lost.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// The buffered bytes not yet written out.
    pub fn buffer(&self) -> &[u8] {
        &self.buf
    }
}

impl<W: AsyncWrite> AsyncWrite for BufWriter<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.buf.len() + buf.len() > self.buf.capacity() {
            ready!(self.as_mut().flush_buf(cx))?;
        }
        let me = self.project();
        if buf.len() >= me.buf.capacity() {
            me.inner.poll_write(cx, buf)
        } else {
            me.buf.extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.inner.is_write_vectored() {
            let total = bufs
                .iter()
                .fold(0usize, |acc, b| acc.saturating_add(b.len()));
            if total > self.buf.capacity() - self.buf.len() {
                ready!(self.as_mut().flush_buf(cx))?;
            }
            let me = self.project();
            if total >= me.buf.capacity() {
                return me.inner.poll_write_vectored(cx, bufs);
            }
            for b in bufs {
                me.buf.extend_from_slice(b);
            }
            return Poll::Ready(Ok(total));
        }
        // The writer writes one buffer at a time: collect as many of `bufs` as fit, so that
        // they go out together.
        let mut bufs = bufs.iter().skip_while(|b| b.is_empty());
        let Some(first) = bufs.next() else {
            return Poll::Ready(Ok(0));
        };
        if self.buf.len() + first.len() > self.buf.capacity() {
            ready!(self.as_mut().flush_buf(cx))?;
        }
        let me = self.project();
        if first.len() >= me.buf.capacity() {
            return me.inner.poll_write(cx, first);
        }
        me.buf.extend_from_slice(first);
        let mut total = first.len();
        for b in bufs {
            let room = me.buf.capacity() - me.buf.len();
            let n = std::cmp::min(room, b.len());
            me.buf.extend_from_slice(&b[..n]);
            total += n;
            if n < b.len() {
                break;
            }
        }
        Poll::Ready(Ok(total))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().flush_buf(cx))?;
        self.get_pin_mut().poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().flush_buf(cx))?;
        self.get_pin_mut().poll_shutdown(cx)
    }
}

impl<W: AsyncWrite + AsyncSeek> AsyncSeek for BufWriter<W> {
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        // The buffer goes out first, which needs a `Context`: `poll_complete` does it.
        *self.project().seek_state = SeekState::Start(pos);
        Ok(())
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        match self.seek_state {
            // No seek started: the writer's position, plus what is buffered for it.
            SeekState::Init => {
                let me = self.project();
                let pos = ready!(me.inner.poll_complete(cx))?;
                return Poll::Ready(Ok(pos + me.buf.len() as u64));
            }
            SeekState::Start(pos) => {
                if let Err(e) = ready!(self.as_mut().flush_buf(cx)) {
                    *self.project().seek_state = SeekState::Init;
                    return Poll::Ready(Err(e));
                }
                let me = self.as_mut().project();
                if let Err(e) = me.inner.start_seek(pos) {
                    *me.seek_state = SeekState::Init;
                    return Poll::Ready(Err(e));
                }
                *me.seek_state = SeekState::Pending;
            }
            SeekState::Pending => {}
        }
        let me = self.project();
        let res = ready!(me.inner.poll_complete(cx));
        *me.seek_state = SeekState::Init;
        Poll::Ready(res)
    }
}

impl<W: AsyncWrite + AsyncRead> AsyncRead for BufWriter<W> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_read(cx, buf)
    }
}

impl<W: AsyncWrite + AsyncBufRead> AsyncBufRead for BufWriter<W> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_pin_mut().poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.get_pin_mut().consume(amt)
    }
}
