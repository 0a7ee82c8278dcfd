//! The IO traits — [`AsyncRead`], [`AsyncWrite`], [`AsyncBufRead`], [`AsyncSeek`] — with tokio's
//! signatures, and their implementations for references, boxes, pins, byte slices, vectors and
//! cursors.

use std::io::{self, IoSlice, SeekFrom};
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::ReadBuf;

/// Reads bytes from a source asynchronously (tokio's `AsyncRead`).
///
/// `poll_read` puts data into `buf`'s unfilled part and advances its filled part. It returns
/// `Ready(Ok(()))` having read something, or having read nothing because the source ended (or
/// `buf` has no room); `Pending` after arranging for the task to be woken when data may be
/// available. Use the methods of [`AsyncReadExt`](super::AsyncReadExt) to read from one.
pub trait AsyncRead {
    /// Attempts to read into `buf`.
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>>;
}

/// Writes bytes to a sink asynchronously (tokio's `AsyncWrite`).
///
/// `poll_write` returns how many bytes of `buf` it took (0 only for an empty `buf` or a sink
/// that can take no more); `poll_flush` pushes buffered bytes out; `poll_shutdown` flushes and
/// closes the write side. Use [`AsyncWriteExt`](super::AsyncWriteExt) to write to one.
pub trait AsyncWrite {
    /// Attempts to write some of `buf`.
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>>;

    /// Attempts to flush buffered data to its destination.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>>;

    /// Attempts to shut the writer down: flushes, then closes the write side.
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>>;

    /// Like `poll_write`, from several buffers in order. The default writes the first
    /// non-empty buffer only; a writer with a real vectored write overrides it and
    /// [`is_write_vectored`](Self::is_write_vectored).
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let buf = bufs
            .iter()
            .find(|b| !b.is_empty())
            .map_or(&[][..], |b| &**b);
        self.poll_write(cx, buf)
    }

    /// Whether `poll_write_vectored` is better than writing the buffers one at a time. False by
    /// default.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

/// A reader with an internal buffer (tokio's `AsyncBufRead`).
pub trait AsyncBufRead: AsyncRead {
    /// Returns the buffered data, reading more from the source first if the buffer is empty.
    /// An empty slice means the source ended.
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>>;

    /// Marks `amt` bytes of the buffer (as returned by `poll_fill_buf`) consumed.
    fn consume(self: Pin<&mut Self>, amt: usize);
}

/// Seeks in a byte stream asynchronously (tokio's `AsyncSeek`): `start_seek` begins a seek,
/// `poll_complete` waits for it and gives the new position from the start.
pub trait AsyncSeek {
    /// Starts a seek to `position`. An error if another seek is still in progress.
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()>;

    /// Waits for the seek started by `start_seek` (or, with none started, returns the current
    /// position) and returns the position from the start of the stream.
    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>>;
}

// The forwarding impls for `Box<T>`, `&mut T` and `Pin<P>`, one macro per trait (tokio's
// `deref_async_read!` and friends): each method calls the same method on the pinned inner value
// that `|this| inner` makes of the pinned `self`.

macro_rules! deref_async_read {
    (|$this:ident| $inner:expr) => {
        fn poll_read(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let $this = self;
            $inner.poll_read(cx, buf)
        }
    };
}

impl<T: ?Sized + AsyncRead + Unpin> AsyncRead for Box<T> {
    deref_async_read!(|this| Pin::new(&mut **this.get_mut()));
}

impl<T: ?Sized + AsyncRead + Unpin> AsyncRead for &mut T {
    deref_async_read!(|this| Pin::new(&mut **this.get_mut()));
}

impl<P> AsyncRead for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncRead,
{
    deref_async_read!(|this| this.as_deref_mut());
}

impl AsyncRead for &[u8] {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = std::cmp::min(self.len(), buf.remaining());
        let (a, b) = self.split_at(n);
        buf.put_slice(a);
        *self = b;
        Poll::Ready(Ok(()))
    }
}

impl<T: AsRef<[u8]> + Unpin> AsyncRead for io::Cursor<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let pos = self.position();
        let slice: &[u8] = (*self).get_ref().as_ref();
        if pos > slice.len() as u64 {
            return Poll::Ready(Ok(()));
        }
        let start = pos as usize;
        let n = std::cmp::min(slice.len() - start, buf.remaining());
        buf.put_slice(&slice[start..start + n]);
        self.set_position(pos + n as u64);
        Poll::Ready(Ok(()))
    }
}

macro_rules! deref_async_write {
    (|$this:ident| $inner:expr) => {
        fn poll_write(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            let $this = self;
            $inner.poll_write(cx, buf)
        }

        fn poll_write_vectored(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            bufs: &[IoSlice<'_>],
        ) -> Poll<io::Result<usize>> {
            let $this = self;
            $inner.poll_write_vectored(cx, bufs)
        }

        fn is_write_vectored(&self) -> bool {
            (**self).is_write_vectored()
        }

        fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            let $this = self;
            $inner.poll_flush(cx)
        }

        fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            let $this = self;
            $inner.poll_shutdown(cx)
        }
    };
}

impl<T: ?Sized + AsyncWrite + Unpin> AsyncWrite for Box<T> {
    deref_async_write!(|this| Pin::new(&mut **this.get_mut()));
}

impl<T: ?Sized + AsyncWrite + Unpin> AsyncWrite for &mut T {
    deref_async_write!(|this| Pin::new(&mut **this.get_mut()));
}

impl<P> AsyncWrite for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncWrite,
{
    deref_async_write!(|this| this.as_deref_mut());
}

impl AsyncWrite for Vec<u8> {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Poll::Ready(io::Write::write_vectored(self.get_mut(), bufs))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

macro_rules! cursor_async_write {
    ($($ty:ty),*) => {$(
        impl AsyncWrite for io::Cursor<$ty> {
            fn poll_write(
                self: Pin<&mut Self>,
                _cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                Poll::Ready(io::Write::write(self.get_mut(), buf))
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                _cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                Poll::Ready(io::Write::write_vectored(self.get_mut(), bufs))
            }

            fn is_write_vectored(&self) -> bool {
                true
            }

            fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(io::Write::flush(self.get_mut()))
            }

            fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.poll_flush(cx)
            }
        }
    )*};
}

cursor_async_write!(&mut [u8], &mut Vec<u8>, Vec<u8>, Box<[u8]>);

macro_rules! deref_async_buf_read {
    (|$this:ident| $inner:expr) => {
        fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
            let $this = self;
            $inner.poll_fill_buf(cx)
        }

        fn consume(self: Pin<&mut Self>, amt: usize) {
            let $this = self;
            $inner.consume(amt)
        }
    };
}

impl<T: ?Sized + AsyncBufRead + Unpin> AsyncBufRead for Box<T> {
    deref_async_buf_read!(|this| Pin::new(&mut **this.get_mut()));
}

impl<T: ?Sized + AsyncBufRead + Unpin> AsyncBufRead for &mut T {
    deref_async_buf_read!(|this| Pin::new(&mut **this.get_mut()));
}

impl<P> AsyncBufRead for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncBufRead,
{
    deref_async_buf_read!(|this| this.as_deref_mut());
}

impl AsyncBufRead for &[u8] {
    fn poll_fill_buf(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Poll::Ready(Ok(*self.get_mut()))
    }

    fn consume(mut self: Pin<&mut Self>, amt: usize) {
        *self = &self[amt..];
    }
}

impl<T: AsRef<[u8]> + Unpin> AsyncBufRead for io::Cursor<T> {
    fn poll_fill_buf(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let this = self.get_mut();
        let slice = this.get_ref().as_ref();
        let start = std::cmp::min(this.position(), slice.len() as u64) as usize;
        Poll::Ready(Ok(&slice[start..]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let this = self.get_mut();
        this.set_position(this.position() + amt as u64);
    }
}

macro_rules! deref_async_seek {
    (|$this:ident| $inner:expr) => {
        fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
            let $this = self;
            $inner.start_seek(pos)
        }

        fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
            let $this = self;
            $inner.poll_complete(cx)
        }
    };
}

impl<T: ?Sized + AsyncSeek + Unpin> AsyncSeek for Box<T> {
    deref_async_seek!(|this| Pin::new(&mut **this.get_mut()));
}

impl<T: ?Sized + AsyncSeek + Unpin> AsyncSeek for &mut T {
    deref_async_seek!(|this| Pin::new(&mut **this.get_mut()));
}

impl<P> AsyncSeek for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncSeek,
{
    deref_async_seek!(|this| this.as_deref_mut());
}

impl<T: AsRef<[u8]> + Unpin> AsyncSeek for io::Cursor<T> {
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        io::Seek::seek(self.get_mut(), pos).map(drop)
    }

    fn poll_complete(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Poll::Ready(Ok(self.get_mut().position()))
    }
}
