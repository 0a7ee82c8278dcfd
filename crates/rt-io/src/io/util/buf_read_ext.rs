//! [`AsyncBufReadExt`]: the methods of a buffered reader, and the [`Lines`] and [`Split`]
//! iterators.

use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::AsyncBufRead;

/// Methods for every [`AsyncBufRead`] (tokio's `AsyncBufReadExt`), implemented for all of them.
pub trait AsyncBufReadExt: AsyncBufRead {
    /// Reads until `byte` (included) or end of stream, appending to `buf`; returns how many
    /// bytes were appended (0: end of stream).
    ///
    /// # Cancel safety
    /// Cancel safe in this sense: bytes read before the future is dropped stay appended to
    /// `buf`, and calling it again continues the same segment (its returned count then starts
    /// from 0).
    fn read_until<'a>(&'a mut self, byte: u8, buf: &'a mut Vec<u8>) -> ReadUntil<'a, Self>
    where
        Self: Unpin,
    {
        ReadUntil {
            reader: self,
            delimiter: byte,
            buf,
            read: 0,
            _pin: PhantomPinned,
        }
    }

    /// Reads until a newline (included) or end of stream, appending to `buf`; returns how many
    /// bytes were appended (0: end of stream). If the bytes read are not valid UTF-8, an
    /// `InvalidData` error and `buf` keeps its original contents; on an IO error the valid
    /// bytes read so far stay appended.
    ///
    /// # Cancel safety
    /// Not cancel safe: if dropped, the bytes read so far are lost (`buf` keeps its original
    /// contents). [`lines`](Self::lines) gives a cancel-safe [`Lines::next_line`].
    fn read_line<'a>(&'a mut self, buf: &'a mut String) -> ReadLine<'a, Self>
    where
        Self: Unpin,
    {
        let start_len = buf.len();
        let bytes = std::mem::take(buf).into_bytes();
        ReadLine {
            reader: self,
            output: buf,
            buf: bytes,
            start_len,
            _pin: PhantomPinned,
        }
    }

    /// The segments of this reader separated by `byte` (the separator not included).
    fn split(self, byte: u8) -> Split<Self>
    where
        Self: Sized,
    {
        Split {
            reader: self,
            delim: byte,
            buf: Vec::new(),
            read: 0,
        }
    }

    /// Returns the buffered data, reading more first if the buffer is empty (empty: end of
    /// stream). Mark what was used with [`consume`](Self::consume).
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before completing, no data was read.
    fn fill_buf(&mut self) -> FillBuf<'_, Self>
    where
        Self: Unpin,
    {
        FillBuf {
            reader: Some(self),
            _pin: PhantomPinned,
        }
    }

    /// Marks `amt` buffered bytes consumed.
    fn consume(&mut self, amt: usize)
    where
        Self: Unpin,
    {
        Pin::new(self).consume(amt)
    }

    /// The lines of this reader, without their `\n` (or `\r\n`).
    fn lines(self) -> Lines<Self>
    where
        Self: Sized,
    {
        Lines {
            reader: self,
            bytes: Vec::new(),
            read: 0,
        }
    }
}

impl<R: AsyncBufRead + ?Sized> AsyncBufReadExt for R {}

/// Reads from `reader` into `buf` until `delim` (included) or end of stream, counting the bytes
/// appended in `read`; returns the count (and resets it).
pub(crate) fn read_until_internal<R: AsyncBufRead + ?Sized>(
    mut reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    delim: u8,
    buf: &mut Vec<u8>,
    read: &mut usize,
) -> Poll<io::Result<usize>> {
    loop {
        let (done, used) = {
            let available = match ready!(reader.as_mut().poll_fill_buf(cx)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                res => res?,
            };
            match memchr(delim, available) {
                Some(i) => {
                    buf.extend_from_slice(&available[..=i]);
                    (true, i + 1)
                }
                None => {
                    buf.extend_from_slice(available);
                    (available.is_empty(), available.len())
                }
            }
        };
        reader.as_mut().consume(used);
        *read += used;
        if done {
            return Poll::Ready(Ok(std::mem::take(read)));
        }
    }
}

/// The index of the first `needle` in `haystack`: libc's `memchr`, vectorised.
#[inline]
fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    // SAFETY: `memchr` reads at most `haystack.len()` bytes from its start, all of them in the
    // slice; the pointer it returns, if any, is into that range.
    let p = unsafe {
        libc::memchr(
            haystack.as_ptr().cast(),
            needle as libc::c_int,
            haystack.len(),
        )
    };
    if p.is_null() {
        None
    } else {
        Some(p as usize - haystack.as_ptr() as usize)
    }
}

/// The future of [`AsyncBufReadExt::read_until`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadUntil<'a, R: ?Sized> {
    reader: &'a mut R,
    delimiter: u8,
    buf: &'a mut Vec<u8>,
    read: usize,
    _pin: PhantomPinned,
}

impl<R: AsyncBufRead + ?Sized + Unpin> Future for ReadUntil<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        read_until_internal(
            Pin::new(&mut *me.reader),
            cx,
            me.delimiter,
            me.buf,
            &mut me.read,
        )
    }
}

/// The future of [`AsyncBufReadExt::read_line`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadLine<'a, R: ?Sized> {
    reader: &'a mut R,
    output: &'a mut String,
    // The string's bytes, taken out of it while reading; the first `start_len` are its
    // original (valid UTF-8) contents.
    buf: Vec<u8>,
    start_len: usize,
    _pin: PhantomPinned,
}

impl<R: AsyncBufRead + ?Sized + Unpin> Future for ReadLine<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        let mut read = me.buf.len() - me.start_len;
        let res = ready!(read_until_internal(
            Pin::new(&mut *me.reader),
            cx,
            b'\n',
            &mut me.buf,
            &mut read
        ));
        let buf = std::mem::take(&mut me.buf);
        let (buf, res) = finish_line(buf, me.start_len, res);
        *me.output = buf;
        me.start_len = me.output.len();
        Poll::Ready(res)
    }
}

impl<R: ?Sized> Drop for ReadLine<'_, R> {
    fn drop(&mut self) {
        if self.output.is_empty() && !self.buf.is_empty() {
            let mut buf = std::mem::take(&mut self.buf);
            buf.truncate(self.start_len);
            // SAFETY: the first `start_len` bytes are the original string's.
            *self.output = unsafe { String::from_utf8_unchecked(buf) };
        }
    }
}

/// Turns the bytes of a finished `read_line` (the original `start_len` bytes of a string, then
/// what was read) back into a string, as `read_line` documents: invalid UTF-8 gives the
/// original string and `InvalidData`; an IO error keeps the valid bytes read.
fn finish_line(
    mut buf: Vec<u8>,
    start_len: usize,
    res: io::Result<usize>,
) -> (String, io::Result<usize>) {
    let res = match (res, std::str::from_utf8(&buf[start_len..])) {
        (Ok(n), Ok(_)) => Ok(n),
        (Err(e), Ok(_)) => {
            // SAFETY: the original bytes are valid UTF-8 and so, just checked, are the new ones.
            return (unsafe { String::from_utf8_unchecked(buf) }, Err(e));
        }
        (Ok(_), Err(_)) => Err(super::read_ext::invalid_utf8(&buf)),
        (Err(e), Err(_)) => Err(e),
    };
    if res.is_err() {
        buf.truncate(start_len);
    }
    // SAFETY: `buf` is the original string's bytes, followed (on success) by bytes just
    // checked to be valid UTF-8.
    (unsafe { String::from_utf8_unchecked(buf) }, res)
}

/// The future of [`AsyncBufReadExt::fill_buf`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct FillBuf<'a, R: ?Sized> {
    reader: Option<&'a mut R>,
    _pin: PhantomPinned,
}

impl<'a, R: AsyncBufRead + ?Sized + Unpin> Future for FillBuf<'a, R> {
    type Output = io::Result<&'a [u8]>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&'a [u8]>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        let reader: *mut R = me.reader.take().expect("FillBuf polled after completion");
        // SAFETY: `reader` comes from the `&'a mut R` this future held and gave up just above,
        // so this is the only live reference to it, for `'a`.
        match Pin::new(unsafe { &mut *reader }).poll_fill_buf(cx) {
            Poll::Ready(r) => Poll::Ready(r),
            Poll::Pending => {
                // SAFETY: as above; a pending poll returns no borrow of the reader, so the
                // reference made for it is no longer used.
                me.reader = Some(unsafe { &mut *reader });
                Poll::Pending
            }
        }
    }
}

/// The lines of an [`AsyncBufRead`] ([`AsyncBufReadExt::lines`]): each without its `\n` or
/// `\r\n`.
#[derive(Debug)]
#[must_use = "streams do nothing unless polled"]
pub struct Lines<R> {
    reader: R,
    // Kept across calls so that a cancelled `next_line` loses nothing.
    bytes: Vec<u8>,
    read: usize,
}

impl<R> Lines<R>
where
    R: AsyncBufRead + Unpin,
{
    /// The next line, or `None` at end of stream.
    ///
    /// # Cancel safety
    /// Cancel safe: a partly read line is kept and the next call continues it.
    pub async fn next_line(&mut self) -> io::Result<Option<String>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next_line(cx)).await
    }

    /// The underlying reader.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The underlying reader.
    pub fn get_ref(&mut self) -> &R {
        &self.reader
    }

    /// Unwraps the reader. Bytes buffered by the reader stay in it; a partly read line is lost.
    pub fn into_inner(self) -> R {
        self.reader
    }
}

impl<R> Lines<R>
where
    R: AsyncBufRead,
{
    /// Polls for the next line: `Ready(Ok(Some(line)))`, `Ready(Ok(None))` at end of stream.
    pub fn poll_next_line(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<String>>> {
        // SAFETY: `reader` is structurally pinned (never moved out while pinned); the other
        // fields are not, and are only accessed through plain `&mut`.
        let me = unsafe { self.get_unchecked_mut() };
        // SAFETY: as above, `reader` stays pinned with `self`.
        let reader = unsafe { Pin::new_unchecked(&mut me.reader) };
        let n = ready!(read_until_internal(
            reader,
            cx,
            b'\n',
            &mut me.bytes,
            &mut me.read
        ))?;
        if n == 0 && me.bytes.is_empty() {
            return Poll::Ready(Ok(None));
        }
        let mut bytes = std::mem::take(&mut me.bytes);
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        }
        match String::from_utf8(bytes) {
            Ok(line) => Poll::Ready(Ok(Some(line))),
            // The line is consumed: the next call reads the next one.
            Err(e) => Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, e))),
        }
    }
}

/// The segments of an [`AsyncBufRead`] separated by a byte ([`AsyncBufReadExt::split`]).
#[derive(Debug)]
#[must_use = "streams do nothing unless polled"]
pub struct Split<R> {
    reader: R,
    delim: u8,
    buf: Vec<u8>,
    read: usize,
}

impl<R> Split<R>
where
    R: AsyncBufRead + Unpin,
{
    /// The next segment (without the separator), or `None` at end of stream.
    ///
    /// # Cancel safety
    /// Cancel safe: a partly read segment is kept and the next call continues it.
    pub async fn next_segment(&mut self) -> io::Result<Option<Vec<u8>>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next_segment(cx)).await
    }
}

impl<R> Split<R>
where
    R: AsyncBufRead,
{
    /// Polls for the next segment: `Ready(Ok(Some(segment)))`, `Ready(Ok(None))` at end of
    /// stream.
    pub fn poll_next_segment(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<Vec<u8>>>> {
        // SAFETY: `reader` is structurally pinned (never moved out while pinned); the other
        // fields are not, and are only accessed through plain `&mut`.
        let me = unsafe { self.get_unchecked_mut() };
        // SAFETY: as above, `reader` stays pinned with `self`.
        let reader = unsafe { Pin::new_unchecked(&mut me.reader) };
        let n = ready!(read_until_internal(
            reader,
            cx,
            me.delim,
            &mut me.buf,
            &mut me.read
        ))?;
        if n == 0 && me.buf.is_empty() {
            return Poll::Ready(Ok(None));
        }
        if me.buf.last() == Some(&me.delim) {
            me.buf.pop();
        }
        Poll::Ready(Ok(Some(std::mem::take(&mut me.buf))))
    }
}
