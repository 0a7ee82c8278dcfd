//! [`duplex`]: an in-memory pipe pair, tokio's `DuplexStream` with the futures-io traits added.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// Creates a connected pair of in-memory streams, each a [`DuplexStream`]: bytes written to one
/// are read from the other. Each direction buffers at most `max_buf_size` bytes; a write to a
/// full direction waits for the reader. Dropping one end gives the other end-of-stream on read
/// and `BrokenPipe` on write.
///
/// It is tokio's `duplex` (runtime-independent), wrapped so that it also implements the
/// futures-io traits like every rt stream.
pub fn duplex(max_buf_size: usize) -> (DuplexStream, DuplexStream) {
    let (a, b) = tokio::io::duplex(max_buf_size);
    (DuplexStream { inner: a }, DuplexStream { inner: b })
}

/// One end of a [`duplex`] pipe. Implements tokio's `AsyncRead` / `AsyncWrite` and futures-io's.
#[derive(Debug)]
pub struct DuplexStream {
    inner: tokio::io::DuplexStream,
}

impl tokio::io::AsyncRead for DuplexStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for DuplexStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

impl futures_io::AsyncRead for DuplexStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let mut rb = tokio::io::ReadBuf::new(buf);
        ready!(tokio::io::AsyncRead::poll_read(
            Pin::new(&mut self.inner),
            cx,
            &mut rb
        ))?;
        Poll::Ready(Ok(rb.filled().len()))
    }
}

impl futures_io::AsyncWrite for DuplexStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        tokio::io::AsyncWrite::poll_write(Pin::new(&mut self.inner), cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        tokio::io::AsyncWrite::poll_flush(Pin::new(&mut self.inner), cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        tokio::io::AsyncWrite::poll_shutdown(Pin::new(&mut self.inner), cx)
    }
}
