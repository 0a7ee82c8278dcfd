//! [`AsyncReadExt`]: the reading methods, each a future over an [`AsyncRead`].

use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::BufMut;

use super::{AsyncRead, Chain, ReadBuf, Take};

macro_rules! read_num_methods {
    ($($(#[$doc:meta])* $name:ident => $ty:ty, $conv:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// An `UnexpectedEof` error if the stream ends first.
        ///
        /// # Cancel safety
        /// Not cancel safe: bytes read before the future is dropped are lost.
        fn $name(&mut self) -> ReadNum<'_, Self, $ty, { std::mem::size_of::<$ty>() }>
        where
            Self: Unpin,
        {
            ReadNum {
                reader: self,
                buf: [0; std::mem::size_of::<$ty>()],
                filled: 0,
                conv: <$ty>::$conv,
                _pin: PhantomPinned,
            }
        }
    )*};
}

/// Reading methods for every [`AsyncRead`] (tokio's `AsyncReadExt`), implemented for all of
/// them.
pub trait AsyncReadExt: AsyncRead {
    /// A reader that reads all of `self`, then all of `next`.
    fn chain<R: AsyncRead>(self, next: R) -> Chain<Self, R>
    where
        Self: Sized,
    {
        super::chain::chain(self, next)
    }

    /// Reads some bytes into `buf`, returning how many: 0 means end of stream (or an empty
    /// `buf`). Waits until at least one byte is available.
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before completing, no data was read.
    fn read<'a>(&'a mut self, buf: &'a mut [u8]) -> Read<'a, Self>
    where
        Self: Unpin,
    {
        Read {
            reader: self,
            buf,
            _pin: PhantomPinned,
        }
    }

    /// Reads some bytes into the spare capacity of `buf`, advancing it; returns how many (0:
    /// end of stream, or `buf` has no spare capacity).
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before completing, no data was read.
    fn read_buf<'a, B>(&'a mut self, buf: &'a mut B) -> ReadBufFut<'a, Self, B>
    where
        Self: Unpin,
        B: BufMut + ?Sized,
    {
        ReadBufFut {
            reader: self,
            buf,
            _pin: PhantomPinned,
        }
    }

    /// Reads exactly `buf.len()` bytes, returning that count. An `UnexpectedEof` error if the
    /// stream ends first (what was read by then is in `buf`, but how much is unspecified).
    ///
    /// # Cancel safety
    /// Not cancel safe: bytes read before the future is dropped are lost.
    fn read_exact<'a>(&'a mut self, buf: &'a mut [u8]) -> ReadExact<'a, Self>
    where
        Self: Unpin,
    {
        ReadExact {
            reader: self,
            buf: ReadBuf::new(buf),
            _pin: PhantomPinned,
        }
    }

    read_num_methods! {
        /// Reads an unsigned 8-bit integer.
        read_u8 => u8, from_be_bytes;
        /// Reads a signed 8-bit integer.
        read_i8 => i8, from_be_bytes;
        /// Reads an unsigned 16-bit integer in big-endian order.
        read_u16 => u16, from_be_bytes;
        /// Reads a signed 16-bit integer in big-endian order.
        read_i16 => i16, from_be_bytes;
        /// Reads an unsigned 32-bit integer in big-endian order.
        read_u32 => u32, from_be_bytes;
        /// Reads a signed 32-bit integer in big-endian order.
        read_i32 => i32, from_be_bytes;
        /// Reads an unsigned 64-bit integer in big-endian order.
        read_u64 => u64, from_be_bytes;
        /// Reads a signed 64-bit integer in big-endian order.
        read_i64 => i64, from_be_bytes;
        /// Reads an unsigned 128-bit integer in big-endian order.
        read_u128 => u128, from_be_bytes;
        /// Reads a signed 128-bit integer in big-endian order.
        read_i128 => i128, from_be_bytes;
        /// Reads a 32-bit IEEE float in big-endian order.
        read_f32 => f32, from_be_bytes;
        /// Reads a 64-bit IEEE float in big-endian order.
        read_f64 => f64, from_be_bytes;
        /// Reads an unsigned 16-bit integer in little-endian order.
        read_u16_le => u16, from_le_bytes;
        /// Reads a signed 16-bit integer in little-endian order.
        read_i16_le => i16, from_le_bytes;
        /// Reads an unsigned 32-bit integer in little-endian order.
        read_u32_le => u32, from_le_bytes;
        /// Reads a signed 32-bit integer in little-endian order.
        read_i32_le => i32, from_le_bytes;
        /// Reads an unsigned 64-bit integer in little-endian order.
        read_u64_le => u64, from_le_bytes;
        /// Reads a signed 64-bit integer in little-endian order.
        read_i64_le => i64, from_le_bytes;
        /// Reads an unsigned 128-bit integer in little-endian order.
        read_u128_le => u128, from_le_bytes;
        /// Reads a signed 128-bit integer in little-endian order.
        read_i128_le => i128, from_le_bytes;
        /// Reads a 32-bit IEEE float in little-endian order.
        read_f32_le => f32, from_le_bytes;
        /// Reads a 64-bit IEEE float in little-endian order.
        read_f64_le => f64, from_le_bytes;
    }

    /// Reads until end of stream, appending to `buf`; returns how many bytes were appended.
    ///
    /// # Cancel safety
    /// Bytes read before the future is dropped stay appended to `buf`.
    fn read_to_end<'a>(&'a mut self, buf: &'a mut Vec<u8>) -> ReadToEnd<'a, Self>
    where
        Self: Unpin,
    {
        let state = ToEndState::new(buf.capacity());
        ReadToEnd {
            reader: self,
            buf,
            state,
            read: 0,
            _pin: PhantomPinned,
        }
    }

    /// Reads until end of stream, appending to `dst`; returns how many bytes were appended. If
    /// the data is not valid UTF-8, an `InvalidData` error, and `dst` is left as it was; on an
    /// IO error `dst` is also left as it was.
    ///
    /// # Cancel safety
    /// Not cancel safe: if dropped, the bytes read so far are lost (`dst` keeps its original
    /// contents).
    fn read_to_string<'a>(&'a mut self, dst: &'a mut String) -> ReadToString<'a, Self>
    where
        Self: Unpin,
    {
        let start_len = dst.len();
        let buf = std::mem::take(dst).into_bytes();
        let state = ToEndState::new(buf.capacity());
        ReadToString {
            reader: self,
            output: dst,
            buf,
            state,
            start_len,
            _pin: PhantomPinned,
        }
    }

    /// A reader that reads at most `limit` bytes of `self`, then reports end of stream.
    fn take(self, limit: u64) -> Take<Self>
    where
        Self: Sized,
    {
        super::take::take(self, limit)
    }
}

impl<R: AsyncRead + ?Sized> AsyncReadExt for R {}

/// Reads an [`io::Error`] of kind `UnexpectedEof`, as a read that ends early reports it.
pub(crate) fn eof() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "early eof")
}

/// An `InvalidData` error for bytes that are not valid UTF-8, carrying the `Utf8Error` of the
/// whole of `bytes` (its `valid_up_to` counts from their start).
pub(crate) fn invalid_utf8(bytes: &[u8]) -> io::Error {
    match std::str::from_utf8(bytes) {
        Err(e) => io::Error::new(io::ErrorKind::InvalidData, e),
        Ok(_) => io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ),
    }
}

/// The future of [`AsyncReadExt::read`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Read<'a, R: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut [u8],
    _pin: PhantomPinned,
}

impl<R: AsyncRead + ?Sized + Unpin> Future for Read<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        let mut buf = ReadBuf::new(me.buf);
        ready!(Pin::new(&mut *me.reader).poll_read(cx, &mut buf))?;
        Poll::Ready(Ok(buf.filled().len()))
    }
}

/// The future of [`AsyncReadExt::read_buf`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadBufFut<'a, R: ?Sized, B: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut B,
    _pin: PhantomPinned,
}

impl<R, B> Future for ReadBufFut<'_, R, B>
where
    R: AsyncRead + ?Sized + Unpin,
    B: BufMut + ?Sized,
{
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        Poll::Ready(Ok(ready!(poll_read_buf(
            Pin::new(&mut *me.reader),
            cx,
            me.buf
        ))?))
    }
}

/// One `poll_read` into the spare capacity of `buf`, advancing it by what was read.
pub(crate) fn poll_read_buf<R, B>(
    reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    buf: &mut B,
) -> Poll<io::Result<usize>>
where
    R: AsyncRead + ?Sized,
    B: BufMut + ?Sized,
{
    if !buf.has_remaining_mut() {
        return Poll::Ready(Ok(0));
    }
    let n = {
        let dst = buf.chunk_mut();
        // SAFETY: `UninitSlice` is a `[MaybeUninit<u8>]`; the `ReadBuf` never de-initialises it.
        let dst = unsafe { dst.as_uninit_slice_mut() };
        let mut rb = ReadBuf::uninit(dst);
        let ptr = rb.filled().as_ptr();
        ready!(reader.poll_read(cx, &mut rb))?;
        // A reader may not swap the buffer out from under the `ReadBuf`.
        assert_eq!(ptr, rb.filled().as_ptr(), "the reader replaced the ReadBuf");
        rb.filled().len()
    };
    // SAFETY: the reader filled (so initialised) the first `n` bytes of `chunk_mut`.
    unsafe { buf.advance_mut(n) };
    Poll::Ready(Ok(n))
}

/// The future of [`AsyncReadExt::read_exact`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadExact<'a, R: ?Sized> {
    reader: &'a mut R,
    buf: ReadBuf<'a>,
    _pin: PhantomPinned,
}

impl<R: AsyncRead + ?Sized + Unpin> Future for ReadExact<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        while me.buf.remaining() > 0 {
            let before = me.buf.remaining();
            match ready!(Pin::new(&mut *me.reader).poll_read(cx, &mut me.buf)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                res => res?,
            }
            if me.buf.remaining() == before {
                return Poll::Ready(Err(eof()));
            }
        }
        Poll::Ready(Ok(me.buf.capacity()))
    }
}

/// The future of the `read_u8` … `read_f64_le` methods of [`AsyncReadExt`]: reads `N` bytes
/// and converts them to a `T`.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadNum<'a, R: ?Sized, T, const N: usize> {
    reader: &'a mut R,
    buf: [u8; N],
    filled: usize,
    conv: fn([u8; N]) -> T,
    _pin: PhantomPinned,
}

impl<R: ?Sized, T, const N: usize> std::fmt::Debug for ReadNum<'_, R, T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadNum")
            .field("size", &N)
            .field("filled", &self.filled)
            .finish()
    }
}

impl<R: AsyncRead + ?Sized + Unpin, T, const N: usize> Future for ReadNum<'_, R, T, N> {
    type Output = io::Result<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        while me.filled < N {
            let mut buf = ReadBuf::new(&mut me.buf[me.filled..]);
            match ready!(Pin::new(&mut *me.reader).poll_read(cx, &mut buf)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                res => res?,
            }
            let n = buf.filled().len();
            if n == 0 {
                return Poll::Ready(Err(eof()));
            }
            me.filled += n;
        }
        Poll::Ready(Ok((me.conv)(me.buf)))
    }
}

/// The future of [`AsyncReadExt::read_to_end`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadToEnd<'a, R: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut Vec<u8>,
    state: ToEndState,
    read: usize,
    _pin: PhantomPinned,
}

impl<R: AsyncRead + ?Sized + Unpin> Future for ReadToEnd<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        poll_read_to_end(
            Pin::new(&mut *me.reader),
            cx,
            me.buf,
            &mut me.state,
            &mut me.read,
        )
    }
}

/// What a read to the end remembers between reads: how much of the vector's spare capacity a
/// reader already initialised (so it is not zeroed again), and the capacity it started with.
#[derive(Debug)]
pub(crate) struct ToEndState {
    start_cap: usize,
    cap: usize,
    initialized: usize,
}

impl ToEndState {
    pub(crate) fn new(cap: usize) -> ToEndState {
        ToEndState {
            start_cap: cap,
            cap,
            initialized: 0,
        }
    }
}

/// The size of the probe read `read_to_end` makes into a stack buffer, and of each growth.
const PROBE: usize = 32;

/// Reads into `buf` until end of stream, counting the bytes appended in `read`; returns the
/// count (and resets it) at the end.
///
/// The vector grows only when data does not fit: while its capacity is the one it came with
/// (and at least [`PROBE`] bytes) and less than `PROBE` bytes are spare, a read goes into a
/// stack buffer first, so that a vector exactly large enough never reallocates to learn that
/// the stream ended. Otherwise `PROBE` more bytes are reserved (the vector doubles) and the read
/// goes straight into the spare capacity. `Interrupted` errors are retried.
pub(crate) fn poll_read_to_end<R: AsyncRead + ?Sized>(
    mut reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    buf: &mut Vec<u8>,
    state: &mut ToEndState,
    read: &mut usize,
) -> Poll<io::Result<usize>> {
    loop {
        let spare = buf.capacity() - buf.len();
        let probe = spare < PROBE && buf.capacity() == state.start_cap && state.start_cap >= PROBE;
        let res = if probe {
            let mut small = [std::mem::MaybeUninit::<u8>::uninit(); PROBE];
            let mut rb = ReadBuf::uninit(&mut small);
            let res = reader.as_mut().poll_read(cx, &mut rb);
            let got = rb.filled();
            if !got.is_empty() {
                if got.len() > spare {
                    buf.reserve(PROBE);
                }
                buf.extend_from_slice(got);
            }
            res.map_ok(|()| got.len())
        } else {
            buf.reserve(PROBE);
            if buf.capacity() != state.cap {
                // A new allocation: what was initialised past the length is not carried over.
                state.cap = buf.capacity();
                state.initialized = 0;
            }
            let len = buf.len();
            let mut rb = ReadBuf::uninit(buf.spare_capacity_mut());
            // SAFETY: `initialized` bytes of the spare capacity were initialised by an earlier
            // read into this same allocation (reset above when it changes).
            unsafe { rb.assume_init(state.initialized) };
            let res = reader.as_mut().poll_read(cx, &mut rb);
            let n = rb.filled().len();
            state.initialized = rb.initialized().len() - n;
            // SAFETY: the reader filled, so initialised, the first `n` bytes of the spare
            // capacity.
            unsafe { buf.set_len(len + n) };
            res.map_ok(|()| n)
        };
        match ready!(res) {
            Ok(0) => return Poll::Ready(Ok(std::mem::take(read))),
            Ok(n) => *read += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Poll::Ready(Err(e)),
        }
    }
}

/// The future of [`AsyncReadExt::read_to_string`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadToString<'a, R: ?Sized> {
    reader: &'a mut R,
    output: &'a mut String,
    // The string's bytes, taken out of it while reading; the first `start_len` are the
    // original (valid UTF-8) contents.
    buf: Vec<u8>,
    state: ToEndState,
    start_len: usize,
    _pin: PhantomPinned,
}

impl<R: AsyncRead + ?Sized + Unpin> Future for ReadToString<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        let mut read = me.buf.len() - me.start_len;
        let res = ready!(poll_read_to_end(
            Pin::new(&mut *me.reader),
            cx,
            &mut me.buf,
            &mut me.state,
            &mut read
        ));
        let mut buf = std::mem::take(&mut me.buf);
        let res = match res {
            Ok(n) if std::str::from_utf8(&buf[me.start_len..]).is_ok() => Ok(n),
            Ok(_) => Err(invalid_utf8(&buf)),
            Err(e) => Err(e),
        };
        if res.is_err() {
            buf.truncate(me.start_len);
        }
        // SAFETY: `buf` is the original string's bytes followed, if at all, by bytes just
        // checked to be valid UTF-8 (starting on a character boundary, as the original ends
        // with a complete character).
        *me.output = unsafe { String::from_utf8_unchecked(buf) };
        me.start_len = me.output.len();
        Poll::Ready(res)
    }
}

impl<R: ?Sized> Drop for ReadToString<'_, R> {
    fn drop(&mut self) {
        if self.output.is_empty() && !self.buf.is_empty() {
            let mut buf = std::mem::take(&mut self.buf);
            buf.truncate(self.start_len);
            // SAFETY: the first `start_len` bytes are the original string's.
            *self.output = unsafe { String::from_utf8_unchecked(buf) };
        }
    }
}
