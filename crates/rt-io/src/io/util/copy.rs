//! [`copy`], [`copy_buf`], [`copy_bidirectional`] and [`copy_bidirectional_with_sizes`].
//!
//! Each loop iteration that moves bytes without waiting spends a unit of the cooperative budget
//! (`rt_core::coop`), so copying between always-ready ends still yields to the scheduler.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::{AsyncBufRead, AsyncRead, AsyncWrite, ReadBuf, DEFAULT_BUF_SIZE};

/// The state of one direction of a copy: a buffer, what of it is yet to be written, and
/// whether the reader ended.
#[derive(Debug)]
pub(crate) struct CopyBuffer {
    read_done: bool,
    need_flush: bool,
    pos: usize,
    cap: usize,
    amt: u64,
    buf: Box<[u8]>,
}

impl CopyBuffer {
    pub(crate) fn new(buf_size: usize) -> Self {
        CopyBuffer {
            read_done: false,
            need_flush: false,
            pos: 0,
            cap: 0,
            amt: 0,
            buf: vec![0; buf_size].into_boxed_slice(),
        }
    }

    fn poll_fill_buf<R: AsyncRead + ?Sized>(
        &mut self,
        cx: &mut Context<'_>,
        reader: Pin<&mut R>,
    ) -> Poll<io::Result<()>> {
        let mut buf = ReadBuf::new(&mut self.buf);
        buf.set_filled(self.cap);
        let res = reader.poll_read(cx, &mut buf);
        match res {
            Poll::Ready(Ok(())) => {
                let filled = buf.filled().len();
                self.read_done = self.cap == filled;
                self.cap = filled;
                res
            }
            // Interrupted: nothing was read; the copy loop reads again.
            Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => Poll::Ready(Ok(())),
            res => res,
        }
    }

    /// Copies until the reader ends and everything read is written and flushed; returns the
    /// byte count.
    pub(crate) fn poll_copy<R, W>(
        &mut self,
        cx: &mut Context<'_>,
        mut reader: Pin<&mut R>,
        mut writer: Pin<&mut W>,
    ) -> Poll<io::Result<u64>>
    where
        R: AsyncRead + ?Sized,
        W: AsyncWrite + ?Sized,
    {
        loop {
            // A round of the loop that does not wait spends a unit of budget, so that a copy
            // between ends that never wait still yields.
            let coop = ready!(rt_core::coop::poll_proceed(cx));

            // Refill while there is room: either the buffer is empty, or a previous write was
            // partial and reading more lets the next write carry more.
            if self.cap < self.buf.len() && !self.read_done {
                match self.poll_fill_buf(cx, reader.as_mut()) {
                    Poll::Ready(Ok(())) => coop.made_progress(),
                    Poll::Ready(Err(e)) => {
                        coop.made_progress();
                        return Poll::Ready(Err(e));
                    }
                    Poll::Pending => {
                        // Nothing to write either: flush what was written (the reader may be
                        // waiting for the other side to react to it), then wait.
                        if self.pos == self.cap {
                            if self.need_flush {
                                ready!(writer.as_mut().poll_flush(cx))?;
                                self.need_flush = false;
                            }
                            return Poll::Pending;
                        }
                    }
                }
            }

            while self.pos < self.cap {
                let n = match ready!(self.poll_write_buf(cx, reader.as_mut(), writer.as_mut())) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    res => res?,
                };
                coop.made_progress();
                if n == 0 {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "write zero byte into writer",
                    )));
                }
                self.pos += n;
                self.amt += n as u64;
                self.need_flush = true;
            }
            if self.pos == self.cap {
                self.pos = 0;
                self.cap = 0;
            }

            if self.read_done && self.pos == self.cap {
                ready!(writer.as_mut().poll_flush(cx))?;
                coop.made_progress();
                return Poll::Ready(Ok(self.amt));
            }
        }
    }

    fn poll_write_buf<R, W>(
        &mut self,
        cx: &mut Context<'_>,
        mut reader: Pin<&mut R>,
        mut writer: Pin<&mut W>,
    ) -> Poll<io::Result<usize>>
    where
        R: AsyncRead + ?Sized,
        W: AsyncWrite + ?Sized,
    {
        match writer
            .as_mut()
            .poll_write(cx, &self.buf[self.pos..self.cap])
        {
            Poll::Pending => {
                // The writer is full: read more meanwhile if there is room, so that the next
                // write is larger.
                if !self.read_done && self.cap < self.buf.len() {
                    ready!(self.poll_fill_buf(cx, reader.as_mut()))?;
                }
                Poll::Pending
            }
            res => res,
        }
    }
}

/// Copies everything from `reader` to `writer` until end of stream, then flushes; returns how
/// many bytes were copied. Uses an 8 KiB buffer (for an [`AsyncBufRead`], [`copy_buf`] uses
/// its buffer instead).
///
/// # Cancel safety
/// Not cancel safe: bytes read but not yet written when the future is dropped are lost.
pub async fn copy<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    Copy {
        reader,
        writer,
        buf: CopyBuffer::new(DEFAULT_BUF_SIZE),
    }
    .await
}

struct Copy<'a, R: ?Sized, W: ?Sized> {
    reader: &'a mut R,
    writer: &'a mut W,
    buf: CopyBuffer,
}

impl<R, W> Future for Copy<'_, R, W>
where
    R: AsyncRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    type Output = io::Result<u64>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let me = self.get_mut();
        me.buf
            .poll_copy(cx, Pin::new(&mut *me.reader), Pin::new(&mut *me.writer))
    }
}

/// Copies everything from a buffered `reader` to `writer` through the reader's own buffer
/// until end of stream, then flushes; returns how many bytes were copied.
///
/// # Cancel safety
/// Not cancel safe in general; no bytes are lost if the reader keeps unconsumed bytes (as
/// [`BufReader`](super::BufReader) does), since each write consumes only what it took.
pub async fn copy_buf<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncBufRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    CopyBuf {
        reader,
        writer,
        amt: 0,
        need_flush: false,
    }
    .await
}

struct CopyBuf<'a, R: ?Sized, W: ?Sized> {
    reader: &'a mut R,
    writer: &'a mut W,
    amt: u64,
    need_flush: bool,
}

impl<R, W> Future for CopyBuf<'_, R, W>
where
    R: AsyncBufRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    type Output = io::Result<u64>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let me = self.get_mut();
        loop {
            let coop = ready!(rt_core::coop::poll_proceed(cx));
            let buf = match Pin::new(&mut *me.reader).poll_fill_buf(cx) {
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Poll::Ready(res) => res?,
                Poll::Pending => {
                    // Nothing to read: flush what was written, as the reader may wait for
                    // the writer's buffered bytes to go out.
                    if me.need_flush {
                        ready!(Pin::new(&mut *me.writer).poll_flush(cx))?;
                        me.need_flush = false;
                    }
                    return Poll::Pending;
                }
            };
            if buf.is_empty() {
                ready!(Pin::new(&mut *me.writer).poll_flush(cx))?;
                coop.made_progress();
                return Poll::Ready(Ok(me.amt));
            }
            let n = match ready!(Pin::new(&mut *me.writer).poll_write(cx, buf)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                res => res?,
            };
            coop.made_progress();
            me.need_flush = true;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            me.amt += n as u64;
            Pin::new(&mut *me.reader).consume(n);
        }
    }
}

enum TransferState {
    Running(CopyBuffer),
    ShuttingDown(u64),
    Done(u64),
}

fn transfer_one_direction<A, B>(
    cx: &mut Context<'_>,
    state: &mut TransferState,
    r: &mut A,
    w: &mut B,
) -> Poll<io::Result<u64>>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    let mut r = Pin::new(r);
    let mut w = Pin::new(w);
    loop {
        match state {
            TransferState::Running(buf) => {
                let count = ready!(buf.poll_copy(cx, r.as_mut(), w.as_mut()))?;
                *state = TransferState::ShuttingDown(count);
            }
            TransferState::ShuttingDown(count) => {
                ready!(w.as_mut().poll_shutdown(cx))?;
                *state = TransferState::Done(*count);
            }
            TransferState::Done(count) => return Poll::Ready(Ok(*count)),
        }
    }
}

/// Copies both ways between `a` and `b` at once until both reach end of stream: when one side
/// ends, the other's write side is shut down. Returns the byte counts `(a to b, b to a)`. Uses
/// an 8 KiB buffer each way.
///
/// # Cancel safety
/// Not cancel safe: bytes read but not yet written when the future is dropped are lost.
pub async fn copy_bidirectional<A, B>(a: &mut A, b: &mut B) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    copy_bidirectional_with_sizes(a, b, DEFAULT_BUF_SIZE, DEFAULT_BUF_SIZE).await
}

/// [`copy_bidirectional`] with a buffer of `a_to_b_buf_size` bytes for `a` to `b` and of
/// `b_to_a_buf_size` bytes the other way.
///
/// # Panics
/// If either size is 0.
pub async fn copy_bidirectional_with_sizes<A, B>(
    a: &mut A,
    b: &mut B,
    a_to_b_buf_size: usize,
    b_to_a_buf_size: usize,
) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    assert!(
        a_to_b_buf_size > 0,
        "`a_to_b_buf_size` must be greater than 0"
    );
    assert!(
        b_to_a_buf_size > 0,
        "`b_to_a_buf_size` must be greater than 0"
    );
    let mut a_to_b = TransferState::Running(CopyBuffer::new(a_to_b_buf_size));
    let mut b_to_a = TransferState::Running(CopyBuffer::new(b_to_a_buf_size));
    std::future::poll_fn(|cx| {
        let a_to_b = transfer_one_direction(cx, &mut a_to_b, a, b)?;
        let b_to_a = transfer_one_direction(cx, &mut b_to_a, b, a)?;
        let a_to_b = ready!(a_to_b);
        let b_to_a = ready!(b_to_a);
        Poll::Ready(Ok((a_to_b, b_to_a)))
    })
    .await
}
