//! [`PollEvented`]: a mio source plus its registration, deregistered on drop.

use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::task::{ready, Context, Poll};

use crate::handle::Handle;
use crate::readiness::Interest;
use crate::registration::Registration;
use crate::scheduled_io::Direction;

/// A mio source registered with the current reactor.
#[derive(Debug)]
pub(crate) struct PollEvented<E: mio::event::Source + AsRawFd> {
    /// `None` only during `into_inner` and `drop`.
    io: Option<E>,
    registration: Registration,
}

impl<E: mio::event::Source + AsRawFd> PollEvented<E> {
    /// Registers `io` for reading and writing with the thread's current reactor.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime (see [`Handle::current`]).
    #[track_caller]
    pub(crate) fn new(io: E) -> io::Result<PollEvented<E>> {
        PollEvented::with_interest(io, Interest::READABLE | Interest::WRITABLE)
    }

    /// Registers `io` for `interest` with the thread's current reactor.
    #[track_caller]
    pub(crate) fn with_interest(io: E, interest: Interest) -> io::Result<PollEvented<E>> {
        PollEvented::new_near_cpu(io, interest, None)
    }

    /// Registers `io` for `interest` with the thread's current reactor, on the shard nearest
    /// to `cpu` (see `Handle::shard_near_cpu`).
    #[track_caller]
    pub(crate) fn new_near_cpu(
        mut io: E,
        interest: Interest,
        cpu: Option<usize>,
    ) -> io::Result<PollEvented<E>> {
        let handle = Handle::current_for_io();
        let fd = io.as_raw_fd();
        let registration = Registration::new_near_cpu(&mut io, fd, interest, handle, cpu)?;
        Ok(PollEvented {
            io: Some(io),
            registration,
        })
    }

    pub(crate) fn registration(&self) -> &Registration {
        &self.registration
    }

    pub(crate) fn get_ref(&self) -> &E {
        self.io.as_ref().expect("PollEvented without its source")
    }

    /// Deregisters the source and returns it.
    pub(crate) fn into_inner(mut self) -> io::Result<E> {
        let mut io = self.io.take().expect("PollEvented without its source");
        self.registration.deregister(&mut io)?;
        Ok(io)
    }

    /// Reads through the reader slot: the `AsyncRead` path.
    ///
    /// A read that returns less than `buf.len()` has drained the socket's receive queue (epoll
    /// semantics), so the readiness is cleared at once, as tokio does: the next read waits for
    /// the next edge instead of paying for a syscall that would return `WouldBlock`.
    pub(crate) fn poll_read<'a>(
        &'a self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>>
    where
        &'a E: Read,
    {
        let mut io = self.get_ref();
        self.poll_read_with(cx, buf, |buf| io.read(buf).map(|n| (n, false)))
    }

    /// Like [`PollEvented::poll_read`], with `read` also saying whether it left the receive
    /// queue empty (`TCP_INQ`): then the readiness is cleared even after a read that filled
    /// `buf` exactly. A closed read side stays ready (closed bits are never cleared), so a FIN
    /// that came with the drained data is still seen by the next read.
    pub(crate) fn poll_read_with(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
        mut read: impl FnMut(&mut [u8]) -> io::Result<(usize, bool)>,
    ) -> Poll<io::Result<usize>> {
        loop {
            let ev = ready!(self.registration.poll_ready(cx, Direction::Read))?;
            match read(buf) {
                Ok((n, drained)) => {
                    if n > 0 && (drained || n < buf.len()) {
                        self.registration.clear_readiness(ev);
                    }
                    return Poll::Ready(Ok(n));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.registration.clear_readiness(ev)
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }

    /// Runs `f` (a non-blocking syscall) once the source is readable, through the reader slot:
    /// the `poll_accept` path of the listeners. Like every `poll_*` method, only the last task
    /// to poll is woken.
    pub(crate) fn poll_read_io<R>(
        &self,
        cx: &mut Context<'_>,
        mut f: impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        loop {
            let ev = ready!(self.registration.poll_ready(cx, Direction::Read))?;
            match f() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.registration.clear_readiness(ev)
                }
                r => return Poll::Ready(r),
            }
        }
    }

    /// Runs `f` (a non-blocking syscall) once the source is writable, through the writer slot:
    /// the `poll_send` path of datagram sockets. Only the last task to poll is woken.
    pub(crate) fn poll_write_io<R>(
        &self,
        cx: &mut Context<'_>,
        mut f: impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        loop {
            let ev = ready!(self.registration.poll_ready(cx, Direction::Write))?;
            match f() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.registration.clear_readiness(ev)
                }
                r => return Poll::Ready(r),
            }
        }
    }

    /// Writes through the writer slot: the `AsyncWrite` path. A short write means the send
    /// buffer is full, so the readiness is cleared at once (see [`PollEvented::poll_read`]).
    pub(crate) fn poll_write<'a>(
        &'a self,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>>
    where
        &'a E: Write,
    {
        let mut io = self.get_ref();
        loop {
            let ev = ready!(self.registration.poll_ready(cx, Direction::Write))?;
            match io.write(buf) {
                Ok(n) => {
                    if n > 0 && n < buf.len() {
                        self.registration.clear_readiness(ev);
                    }
                    return Poll::Ready(Ok(n));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.registration.clear_readiness(ev)
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl<E: mio::event::Source + AsRawFd> PollEvented<E> {
    /// Writes `bufs` to a connected stream socket with one syscall through the writer slot:
    /// the vectored `AsyncWrite` path of the socket types. Small writes go out with `send` from
    /// one buffer, larger ones with `writev` (`raw_socket::send_vectored`). A write shorter than
    /// all of `bufs` clears the readiness, as in [`PollEvented::poll_write`].
    pub(crate) fn poll_send_vectored(
        &self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let fd = self.get_ref().as_raw_fd();
        let total: usize = bufs.iter().map(|b| b.len()).sum();
        loop {
            let ev = ready!(self.registration.poll_ready(cx, Direction::Write))?;
            match crate::net::raw_socket::send_vectored(fd, bufs) {
                Ok(n) => {
                    if n > 0 && n < total {
                        self.registration.clear_readiness(ev);
                    }
                    return Poll::Ready(Ok(n));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.registration.clear_readiness(ev)
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl<E: mio::event::Source + AsRawFd> Drop for PollEvented<E> {
    fn drop(&mut self) {
        if let Some(mut io) = self.io.take() {
            // Fails only if the reactor is gone; closing the fd removes it from epoll anyway.
            let _ = self.registration.deregister(&mut io);
        }
    }
}
