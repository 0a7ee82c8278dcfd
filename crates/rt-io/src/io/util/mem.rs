//! In-memory pipes: [`duplex`] ([`DuplexStream`]) and [`simplex`] ([`SimplexStream`]).
//!
//! Each read or write that completes without waiting spends a unit of the cooperative budget,
//! so a task looping over an always-ready pipe still yields.

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{ready, Context, Poll, Waker};

use bytes::{Buf, BytesMut};

use super::{split, AsyncRead, AsyncWrite, ReadBuf, ReadHalf, WriteHalf};

/// Creates a connected pair of in-memory streams: bytes written to one are read from the other
/// (tokio's `duplex`). Each direction buffers at most `max_buf_size` bytes; a write to a full
/// direction waits for the reader. Dropping one end gives the other end-of-stream on read (once
/// the buffered bytes are read) and `BrokenPipe` on write; so does shutting one end's write
/// side down, for the other end's reads.
///
/// # Panics
/// When `max_buf_size` is 0.
#[track_caller]
pub fn duplex(max_buf_size: usize) -> (DuplexStream, DuplexStream) {
    let one = Arc::new(Mutex::new(SimplexStream::new_unsplit(max_buf_size)));
    let two = Arc::new(Mutex::new(SimplexStream::new_unsplit(max_buf_size)));
    (
        DuplexStream {
            read: one.clone(),
            write: two.clone(),
        },
        DuplexStream {
            read: two,
            write: one,
        },
    )
}

/// One end of a [`duplex`] pipe.
#[derive(Debug)]
pub struct DuplexStream {
    read: Arc<Mutex<SimplexStream>>,
    write: Arc<Mutex<SimplexStream>>,
}

/// Creates a one-way in-memory pipe buffering at most `max_buf_size` bytes, as its two halves
/// (tokio's `simplex`). The reader gets end-of-stream once the writer shut down and the buffer
/// is drained.
///
/// # Panics
/// When `max_buf_size` is 0.
#[track_caller]
pub fn simplex(max_buf_size: usize) -> (ReadHalf<SimplexStream>, WriteHalf<SimplexStream>) {
    split(SimplexStream::new_unsplit(max_buf_size))
}

/// A one-way in-memory pipe: what is written to it is read from it (tokio's `SimplexStream`).
/// [`simplex`] gives its two halves; [`new_unsplit`](Self::new_unsplit) the pipe whole.
#[derive(Debug)]
pub struct SimplexStream {
    buffer: BytesMut,
    is_closed: bool,
    max_buf_size: usize,
    read_waker: Option<Waker>,
    write_waker: Option<Waker>,
}

fn lock(m: &Mutex<SimplexStream>) -> MutexGuard<'_, SimplexStream> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SimplexStream {
    /// A pipe buffering at most `max_buf_size` bytes, not split into halves.
    ///
    /// # Panics
    /// When `max_buf_size` is 0.
    #[track_caller]
    pub fn new_unsplit(max_buf_size: usize) -> SimplexStream {
        assert!(
            max_buf_size > 0,
            "`max_buf_size` must be greater than 0: a pipe that buffers no byte can pass none"
        );
        SimplexStream {
            buffer: BytesMut::new(),
            is_closed: false,
            max_buf_size,
            read_waker: None,
            write_waker: None,
        }
    }

    fn close_write(&mut self, d: &mut Deferred) {
        self.is_closed = true;
        d.wake = self.read_waker.take();
    }

    fn close_read(&mut self, d: &mut Deferred) {
        self.is_closed = true;
        d.wake = self.write_waker.take();
    }

    fn poll_read_internal(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
        d: &mut Deferred,
    ) -> Poll<io::Result<()>> {
        if buf.remaining() == 0 {
            return Poll::Ready(Ok(()));
        }
        if self.buffer.has_remaining() {
            let n = std::cmp::min(self.buffer.remaining(), buf.remaining());
            buf.put_slice(&self.buffer[..n]);
            self.buffer.advance(n);
            if n > 0 {
                d.wake = self.write_waker.take();
            }
            Poll::Ready(Ok(()))
        } else if self.is_closed {
            Poll::Ready(Ok(()))
        } else {
            d.replaced = register(&mut self.read_waker, cx);
            Poll::Pending
        }
    }

    fn poll_write_internal(
        &mut self,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
        d: &mut Deferred,
    ) -> Poll<io::Result<usize>> {
        if self.is_closed {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        if bufs.iter().all(|b| b.is_empty()) {
            return Poll::Ready(Ok(0));
        }
        let mut avail = self.max_buf_size - self.buffer.len();
        if avail == 0 {
            d.replaced = register(&mut self.write_waker, cx);
            return Poll::Pending;
        }
        let mut written = 0;
        for b in bufs {
            if avail == 0 {
                break;
            }
            let n = std::cmp::min(avail, b.len());
            self.buffer.extend_from_slice(&b[..n]);
            avail -= n;
            written += n;
        }
        if written > 0 {
            d.wake = self.read_waker.take();
        }
        Poll::Ready(Ok(written))
    }
}

/// Stores `cx`'s waker in `slot` (unless it is already there); returns the waker it replaces.
fn register(slot: &mut Option<Waker>, cx: &Context<'_>) -> Option<Waker> {
    match slot {
        Some(w) if w.will_wake(cx.waker()) => None,
        _ => slot.replace(cx.waker().clone()),
    }
}

/// What a pipe operation leaves to do once the pipe's lock is released: a waker to wake, and a
/// waker it replaced, to drop. Waking or dropping a waker may run arbitrary code (a waker that
/// owns the other end of the pipe drops it, which takes the lock), so neither happens under the
/// lock. Declared before the guard, it is dropped after it.
#[derive(Default)]
struct Deferred {
    wake: Option<Waker>,
    replaced: Option<Waker>,
}

impl Drop for Deferred {
    fn drop(&mut self) {
        if let Some(w) = self.wake.take() {
            w.wake();
        }
    }
}

/// Spends a unit of budget around `f`, unless `f` ends up waiting.
fn coop<T>(cx: &mut Context<'_>, f: impl FnOnce(&mut Context<'_>) -> Poll<T>) -> Poll<T> {
    let coop = ready!(rt_core::coop::poll_proceed(cx));
    let res = f(cx);
    if res.is_ready() {
        coop.made_progress();
    }
    res
}

impl AsyncRead for SimplexStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        coop(cx, |cx| {
            me.poll_read_internal(cx, buf, &mut Deferred::default())
        })
    }
}

impl AsyncWrite for SimplexStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        coop(cx, |cx| {
            me.poll_write_internal(cx, &[IoSlice::new(buf)], &mut Deferred::default())
        })
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        coop(cx, |cx| {
            me.poll_write_internal(cx, bufs, &mut Deferred::default())
        })
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().close_write(&mut Deferred::default());
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for DuplexStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        coop(cx, |cx| {
            let mut d = Deferred::default();
            let mut guard = lock(&self.read);
            let res = guard.poll_read_internal(cx, buf, &mut d);
            drop(guard);
            res
        })
    }
}

impl AsyncWrite for DuplexStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        coop(cx, |cx| {
            let mut d = Deferred::default();
            let mut guard = lock(&self.write);
            let res = guard.poll_write_internal(cx, &[IoSlice::new(buf)], &mut d);
            drop(guard);
            res
        })
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        coop(cx, |cx| {
            let mut d = Deferred::default();
            let mut guard = lock(&self.write);
            let res = guard.poll_write_internal(cx, bufs, &mut d);
            drop(guard);
            res
        })
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut d = Deferred::default();
        lock(&self.write).close_write(&mut d);
        Poll::Ready(Ok(()))
    }
}

impl Drop for DuplexStream {
    fn drop(&mut self) {
        // The peer's reads end once they drain the buffer; its writes fail.
        let mut d = Deferred::default();
        lock(&self.write).close_write(&mut d);
        drop(d);
        let mut d = Deferred::default();
        lock(&self.read).close_read(&mut d);
    }
}

impl futures_io::AsyncRead for DuplexStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let mut rb = ReadBuf::new(buf);
        ready!(AsyncRead::poll_read(self, cx, &mut rb))?;
        Poll::Ready(Ok(rb.filled().len()))
    }
}

impl futures_io::AsyncWrite for DuplexStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        AsyncWrite::poll_write(self, cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        AsyncWrite::poll_write_vectored(self, cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        AsyncWrite::poll_flush(self, cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        AsyncWrite::poll_shutdown(self, cx)
    }
}
