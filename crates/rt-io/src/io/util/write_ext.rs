//! [`AsyncWriteExt`]: the writing methods, each a future over an [`AsyncWrite`].

use std::future::Future;
use std::io::{self, IoSlice};
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::Buf;

use super::AsyncWrite;

macro_rules! write_num_methods {
    ($($(#[$doc:meta])* $name:ident($ty:ty), $conv:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// # Cancel safety
        /// Not cancel safe: if dropped, part of the number may have been written.
        fn $name(&mut self, n: $ty) -> WriteNum<'_, Self>
        where
            Self: Unpin,
        {
            let bytes = n.$conv();
            let mut buf = [0; 16];
            buf[..bytes.len()].copy_from_slice(&bytes);
            WriteNum {
                writer: self,
                buf,
                written: 0,
                len: bytes.len() as u8,
                _pin: PhantomPinned,
            }
        }
    )*};
}

/// Writing methods for every [`AsyncWrite`] (tokio's `AsyncWriteExt`), implemented for all of
/// them.
pub trait AsyncWriteExt: AsyncWrite {
    /// Writes some of `src`, returning how many bytes were taken.
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before completing, nothing was written.
    fn write<'a>(&'a mut self, src: &'a [u8]) -> Write<'a, Self>
    where
        Self: Unpin,
    {
        Write {
            writer: self,
            buf: src,
            _pin: PhantomPinned,
        }
    }

    /// Writes some of `bufs`, in order, returning how many bytes were taken.
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before completing, nothing was written.
    fn write_vectored<'a, 'b>(&'a mut self, bufs: &'a [IoSlice<'b>]) -> WriteVectored<'a, 'b, Self>
    where
        Self: Unpin,
    {
        WriteVectored {
            writer: self,
            bufs,
            _pin: PhantomPinned,
        }
    }

    /// Writes some of `src`'s remaining bytes and advances it past them; returns how many.
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before completing, nothing was written.
    fn write_buf<'a, B>(&'a mut self, src: &'a mut B) -> WriteBuf<'a, Self, B>
    where
        Self: Sized + Unpin,
        B: Buf,
    {
        WriteBuf {
            writer: self,
            buf: src,
            _pin: PhantomPinned,
        }
    }

    /// Writes all of `src`'s remaining bytes, advancing it as they are written (vectored when
    /// the writer says it is better so).
    ///
    /// # Cancel safety
    /// `src` is advanced past what was written, so the call can be repeated after a cancel.
    fn write_all_buf<'a, B>(&'a mut self, src: &'a mut B) -> WriteAllBuf<'a, Self, B>
    where
        Self: Sized + Unpin,
        B: Buf,
    {
        WriteAllBuf {
            writer: self,
            buf: src,
            _pin: PhantomPinned,
        }
    }

    /// Writes all of `src`. A `WriteZero` error if the writer takes nothing.
    ///
    /// # Cancel safety
    /// Not cancel safe: if dropped, an unknown prefix of `src` may have been written.
    fn write_all<'a>(&'a mut self, src: &'a [u8]) -> WriteAll<'a, Self>
    where
        Self: Unpin,
    {
        WriteAll {
            writer: self,
            buf: src,
            _pin: PhantomPinned,
        }
    }

    write_num_methods! {
        /// Writes an unsigned 8-bit integer.
        write_u8(u8), to_be_bytes;
        /// Writes a signed 8-bit integer.
        write_i8(i8), to_be_bytes;
        /// Writes an unsigned 16-bit integer in big-endian order.
        write_u16(u16), to_be_bytes;
        /// Writes a signed 16-bit integer in big-endian order.
        write_i16(i16), to_be_bytes;
        /// Writes an unsigned 32-bit integer in big-endian order.
        write_u32(u32), to_be_bytes;
        /// Writes a signed 32-bit integer in big-endian order.
        write_i32(i32), to_be_bytes;
        /// Writes an unsigned 64-bit integer in big-endian order.
        write_u64(u64), to_be_bytes;
        /// Writes a signed 64-bit integer in big-endian order.
        write_i64(i64), to_be_bytes;
        /// Writes an unsigned 128-bit integer in big-endian order.
        write_u128(u128), to_be_bytes;
        /// Writes a signed 128-bit integer in big-endian order.
        write_i128(i128), to_be_bytes;
        /// Writes a 32-bit IEEE float in big-endian order.
        write_f32(f32), to_be_bytes;
        /// Writes a 64-bit IEEE float in big-endian order.
        write_f64(f64), to_be_bytes;
        /// Writes an unsigned 16-bit integer in little-endian order.
        write_u16_le(u16), to_le_bytes;
        /// Writes a signed 16-bit integer in little-endian order.
        write_i16_le(i16), to_le_bytes;
        /// Writes an unsigned 32-bit integer in little-endian order.
        write_u32_le(u32), to_le_bytes;
        /// Writes a signed 32-bit integer in little-endian order.
        write_i32_le(i32), to_le_bytes;
        /// Writes an unsigned 64-bit integer in little-endian order.
        write_u64_le(u64), to_le_bytes;
        /// Writes a signed 64-bit integer in little-endian order.
        write_i64_le(i64), to_le_bytes;
        /// Writes an unsigned 128-bit integer in little-endian order.
        write_u128_le(u128), to_le_bytes;
        /// Writes a signed 128-bit integer in little-endian order.
        write_i128_le(i128), to_le_bytes;
        /// Writes a 32-bit IEEE float in little-endian order.
        write_f32_le(f32), to_le_bytes;
        /// Writes a 64-bit IEEE float in little-endian order.
        write_f64_le(f64), to_le_bytes;
    }

    /// Flushes buffered data to its destination.
    ///
    /// # Cancel safety
    /// Cancel safe: flushing again continues where it stopped.
    fn flush(&mut self) -> Flush<'_, Self>
    where
        Self: Unpin,
    {
        Flush {
            writer: self,
            _pin: PhantomPinned,
        }
    }

    /// Flushes and shuts down the write side.
    fn shutdown(&mut self) -> Shutdown<'_, Self>
    where
        Self: Unpin,
    {
        Shutdown {
            writer: self,
            _pin: PhantomPinned,
        }
    }
}

impl<W: AsyncWrite + ?Sized> AsyncWriteExt for W {}

/// At most this many slices of a `Buf` go into one vectored write.
const MAX_VECTOR_ELEMENTS: usize = 64;

/// An [`io::Error`] of kind `WriteZero`, as a writer that takes nothing reports it.
pub(crate) fn write_zero() -> io::Error {
    io::Error::new(io::ErrorKind::WriteZero, "failed to write whole buffer")
}

/// The future of [`AsyncWriteExt::write`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Write<'a, W: ?Sized> {
    writer: &'a mut W,
    buf: &'a [u8],
    _pin: PhantomPinned,
}

impl<W: AsyncWrite + ?Sized + Unpin> Future for Write<'_, W> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        Pin::new(&mut *me.writer).poll_write(cx, me.buf)
    }
}

/// The future of [`AsyncWriteExt::write_vectored`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteVectored<'a, 'b, W: ?Sized> {
    writer: &'a mut W,
    bufs: &'a [IoSlice<'b>],
    _pin: PhantomPinned,
}

impl<W: AsyncWrite + ?Sized + Unpin> Future for WriteVectored<'_, '_, W> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        Pin::new(&mut *me.writer).poll_write_vectored(cx, me.bufs)
    }
}

/// The future of [`AsyncWriteExt::write_buf`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteBuf<'a, W, B> {
    writer: &'a mut W,
    buf: &'a mut B,
    _pin: PhantomPinned,
}

impl<W: AsyncWrite + Unpin, B: Buf> Future for WriteBuf<'_, W, B> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        if !me.buf.has_remaining() {
            return Poll::Ready(Ok(0));
        }
        let n = if me.writer.is_write_vectored() {
            let mut slices = [IoSlice::new(&[]); MAX_VECTOR_ELEMENTS];
            let cnt = me.buf.chunks_vectored(&mut slices);
            ready!(Pin::new(&mut *me.writer).poll_write_vectored(cx, &slices[..cnt]))?
        } else {
            ready!(Pin::new(&mut *me.writer).poll_write(cx, me.buf.chunk()))?
        };
        me.buf.advance(n);
        Poll::Ready(Ok(n))
    }
}

/// The future of [`AsyncWriteExt::write_all_buf`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteAllBuf<'a, W, B> {
    writer: &'a mut W,
    buf: &'a mut B,
    _pin: PhantomPinned,
}

impl<W: AsyncWrite + Unpin, B: Buf> Future for WriteAllBuf<'_, W, B> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        while me.buf.has_remaining() {
            let res = if me.writer.is_write_vectored() {
                let mut slices = [IoSlice::new(&[]); MAX_VECTOR_ELEMENTS];
                let cnt = me.buf.chunks_vectored(&mut slices);
                ready!(Pin::new(&mut *me.writer).poll_write_vectored(cx, &slices[..cnt]))
            } else {
                ready!(Pin::new(&mut *me.writer).poll_write(cx, me.buf.chunk()))
            };
            let n = match res {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                res => res?,
            };
            if n == 0 {
                return Poll::Ready(Err(write_zero()));
            }
            me.buf.advance(n);
        }
        Poll::Ready(Ok(()))
    }
}

/// The future of [`AsyncWriteExt::write_all`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteAll<'a, W: ?Sized> {
    writer: &'a mut W,
    buf: &'a [u8],
    _pin: PhantomPinned,
}

impl<W: AsyncWrite + ?Sized + Unpin> Future for WriteAll<'_, W> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        while !me.buf.is_empty() {
            let n = match ready!(Pin::new(&mut *me.writer).poll_write(cx, me.buf)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                res => res?,
            };
            if n == 0 {
                return Poll::Ready(Err(write_zero()));
            }
            me.buf = &me.buf[n..];
        }
        Poll::Ready(Ok(()))
    }
}

/// The future of the `write_u8` … `write_f64_le` methods of [`AsyncWriteExt`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteNum<'a, W: ?Sized> {
    writer: &'a mut W,
    buf: [u8; 16],
    written: u8,
    len: u8,
    _pin: PhantomPinned,
}

impl<W: AsyncWrite + ?Sized + Unpin> Future for WriteNum<'_, W> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        while me.written < me.len {
            let src = &me.buf[me.written as usize..me.len as usize];
            let n = match ready!(Pin::new(&mut *me.writer).poll_write(cx, src)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                res => res?,
            };
            if n == 0 {
                return Poll::Ready(Err(write_zero()));
            }
            me.written += n as u8;
        }
        Poll::Ready(Ok(()))
    }
}

/// The future of [`AsyncWriteExt::flush`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Flush<'a, W: ?Sized> {
    writer: &'a mut W,
    _pin: PhantomPinned,
}

impl<W: AsyncWrite + ?Sized + Unpin> Future for Flush<'_, W> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out.
        Pin::new(&mut *unsafe { self.get_unchecked_mut() }.writer).poll_flush(cx)
    }
}

/// The future of [`AsyncWriteExt::shutdown`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Shutdown<'a, W: ?Sized> {
    writer: &'a mut W,
    _pin: PhantomPinned,
}

impl<W: AsyncWrite + ?Sized + Unpin> Future for Shutdown<'_, W> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out.
        Pin::new(&mut *unsafe { self.get_unchecked_mut() }.writer).poll_shutdown(cx)
    }
}
