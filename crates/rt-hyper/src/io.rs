//! [`HyperIo`]: rt's IO traits to hyper's, and back.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// Adapts an rt stream (anything implementing rt's `AsyncRead` / `AsyncWrite`) to hyper's
/// `hyper::rt::Read` / `Write` — and, the other way, anything implementing hyper's traits (such
/// as `hyper::upgrade::Upgraded`) to rt's. hyper-util's `TokioIo` under another name.
///
/// Reads go straight into hyper's uninitialised buffer: nothing is zeroed first.
#[derive(Debug)]
pub struct HyperIo<T> {
    inner: T,
}

impl<T> HyperIo<T> {
    /// Wraps `inner`.
    pub fn new(inner: T) -> HyperIo<T> {
        HyperIo { inner }
    }

    /// The wrapped stream.
    pub fn inner(&self) -> &T {
        &self.inner
    }

    /// The wrapped stream, mutably.
    pub fn inner_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    /// Unwraps the stream.
    pub fn into_inner(self) -> T {
        self.inner
    }
}

impl<T: rt::io::AsyncRead + Unpin> hyper::rt::Read for HyperIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        let n = {
            // SAFETY: the slice is handed to an rt `ReadBuf`, which only ever writes bytes
            // into it (it never de-initialises one), and the read's count of filled bytes is
            // all we take from it.
            let unfilled = unsafe { buf.as_mut() };
            let mut tbuf = rt::io::ReadBuf::uninit(unfilled);
            ready!(Pin::new(&mut self.inner).poll_read(cx, &mut tbuf))?;
            tbuf.filled().len()
        };
        // SAFETY: the read filled (so initialised) the first `n` bytes of the cursor's memory.
        unsafe { buf.advance(n) };
        Poll::Ready(Ok(()))
    }
}

impl<T: rt::io::AsyncWrite + Unpin> hyper::rt::Write for HyperIo<T> {
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

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }
}

impl<T: hyper::rt::Read + Unpin> rt::io::AsyncRead for HyperIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        tbuf: &mut rt::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = {
            // SAFETY: the unfilled part is handed to a hyper `ReadBuf`, which only ever writes
            // bytes into it; we take only its count of filled bytes.
            let unfilled = unsafe { tbuf.unfilled_mut() };
            let mut hbuf = hyper::rt::ReadBuf::uninit(unfilled);
            ready!(hyper::rt::Read::poll_read(
                Pin::new(&mut self.inner),
                cx,
                hbuf.unfilled()
            ))?;
            hbuf.filled().len()
        };
        // SAFETY: the read filled (so initialised) the first `n` unfilled bytes.
        unsafe { tbuf.assume_init(n) };
        tbuf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl<T: hyper::rt::Write + Unpin> rt::io::AsyncWrite for HyperIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        hyper::rt::Write::poll_write(Pin::new(&mut self.inner), cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        hyper::rt::Write::poll_flush(Pin::new(&mut self.inner), cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        hyper::rt::Write::poll_shutdown(Pin::new(&mut self.inner), cx)
    }

    fn is_write_vectored(&self) -> bool {
        hyper::rt::Write::is_write_vectored(&self.inner)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        hyper::rt::Write::poll_write_vectored(Pin::new(&mut self.inner), cx, bufs)
    }
}
