//! [`UnixDatagram`].

use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::SocketAddr;
use std::path::Path;
use std::task::{ready, Context, Poll};

use crate::io::ReadBuf;

use crate::io::poll_evented::PollEvented;
use crate::io::Interest;

/// `mem` (uninitialised memory a receive writes into) as bytes, for the receiving syscalls of
/// mio, which take `&mut [u8]`.
///
/// # Safety
/// The slice is handed only to a receiving syscall, which writes into it and never reads it;
/// no byte of it is read before the syscall wrote it.
unsafe fn as_recv_buf(mem: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: per the contract no uninitialised byte is read.
    unsafe { &mut *(mem as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

/// A Unix-domain datagram socket. All methods take `&self`, as for `UdpSocket`.
#[derive(Debug)]
pub struct UnixDatagram {
    io: PollEvented<mio::net::UnixDatagram>,
}

impl UnixDatagram {
    /// Binds to the socket file `path` (which must not exist). A path that starts with a NUL
    /// byte names a Linux abstract socket instead (the rest of the path is its name), as in
    /// tokio.
    #[track_caller]
    pub fn bind(path: impl AsRef<Path>) -> io::Result<UnixDatagram> {
        let sys = match super::abstract_addr(path.as_ref())? {
            Some(addr) => mio::net::UnixDatagram::bind_addr(&addr)?,
            None => mio::net::UnixDatagram::bind(path)?,
        };
        UnixDatagram::from_mio(sys)
    }

    /// A socket bound to no address: it can send, and receive replies only once connected.
    #[track_caller]
    pub fn unbound() -> io::Result<UnixDatagram> {
        UnixDatagram::from_mio(mio::net::UnixDatagram::unbound()?)
    }

    /// A connected pair of sockets.
    #[track_caller]
    pub fn pair() -> io::Result<(UnixDatagram, UnixDatagram)> {
        let (a, b) = mio::net::UnixDatagram::pair()?;
        let (a, b) = (UnixDatagram::from_mio(a)?, UnixDatagram::from_mio(b)?);
        // Fresh buffers: both ends can send now, and receive only once the peer sends.
        a.io.registration().assume_ready(crate::io::Ready::WRITABLE);
        b.io.registration().assume_ready(crate::io::Ready::WRITABLE);
        Ok((a, b))
    }

    #[track_caller]
    fn from_mio(sys: mio::net::UnixDatagram) -> io::Result<UnixDatagram> {
        Ok(UnixDatagram {
            io: PollEvented::new(sys)?,
        })
    }

    /// Wraps a std socket (made non-blocking here).
    #[track_caller]
    pub fn from_std(socket: std::os::unix::net::UnixDatagram) -> io::Result<UnixDatagram> {
        socket.set_nonblocking(true)?;
        UnixDatagram::from_mio(mio::net::UnixDatagram::from_std(socket))
    }

    /// Sets the default destination of [`UnixDatagram::send`]: a socket file, or an abstract
    /// name when `path` starts with a NUL byte.
    pub fn connect(&self, path: impl AsRef<Path>) -> io::Result<()> {
        super::socket::connect_path(self.io.get_ref().as_raw_fd(), path.as_ref())
    }

    /// Sends `buf` to the socket at `path` (a socket file, or an abstract name when `path`
    /// starts with a NUL byte).
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before it completes, no datagram was sent.
    pub async fn send_to(&self, buf: &[u8], path: impl AsRef<Path>) -> io::Result<usize> {
        let fd = self.io.get_ref().as_raw_fd();
        let path = path.as_ref();
        self.io
            .registration()
            .async_io(Interest::WRITABLE, || {
                super::socket::send_to_path(fd, buf, path)
            })
            .await
    }

    /// Receives one datagram into `buf`, with its sender.
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before it completes, no datagram was received.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .async_io(Interest::READABLE, || sys.recv_from(buf))
            .await
    }

    /// Sends `buf` to the connected peer.
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before it completes, no datagram was sent.
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .async_io(Interest::WRITABLE, || sys.send(buf))
            .await
    }

    /// Receives one datagram into `buf`.
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before it completes, no datagram was received.
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .async_io(Interest::READABLE, || sys.recv(buf))
            .await
    }

    /// Sends `buf` to the connected peer if the socket is writable now (`WouldBlock` if not).
    pub fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::WRITABLE, || sys.send(buf))
    }

    /// Sends `buf` to the socket at `path` if the socket is writable now (`WouldBlock` if not).
    pub fn try_send_to(&self, buf: &[u8], path: impl AsRef<Path>) -> io::Result<usize> {
        let fd = self.io.get_ref().as_raw_fd();
        let path = path.as_ref();
        self.io.registration().try_io(Interest::WRITABLE, || {
            super::socket::send_to_path(fd, buf, path)
        })
    }

    /// Receives a datagram if one is queued now (`WouldBlock` if not).
    pub fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::READABLE, || sys.recv(buf))
    }

    /// Receives a datagram and its sender if one is queued now (`WouldBlock` if not).
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::READABLE, || sys.recv_from(buf))
    }

    /// Receives a datagram into the spare capacity of `buf`, advancing it (tokio's
    /// `recv_buf`).
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn recv_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .async_io(Interest::READABLE, || recv_buf(buf, |b| sys.recv(b)))
            .await
    }

    /// [`UnixDatagram::recv_buf`] if a datagram is queued now (`WouldBlock` if not).
    pub fn try_recv_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::READABLE, || recv_buf(buf, |b| sys.recv(b)))
    }

    /// Receives a datagram into the spare capacity of `buf`, advancing it; returns its length
    /// and sender (tokio's `recv_buf_from`).
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn recv_buf_from<B: bytes::BufMut>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .async_io(Interest::READABLE, || recv_buf(buf, |b| sys.recv_from(b)))
            .await
    }

    /// [`UnixDatagram::recv_buf_from`] if a datagram is queued now (`WouldBlock` if not).
    pub fn try_recv_buf_from<B: bytes::BufMut>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::READABLE, || recv_buf(buf, |b| sys.recv_from(b)))
    }

    /// Polls sending `buf` to the connected peer. Only the last task to poll is woken.
    pub fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let sys = self.io.get_ref();
        self.io.poll_write_io(cx, || sys.send(buf))
    }

    /// Polls sending `buf` to the socket at `path`. Only the last task to poll is woken.
    pub fn poll_send_to(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        path: impl AsRef<Path>,
    ) -> Poll<io::Result<usize>> {
        let fd = self.io.get_ref().as_raw_fd();
        let path = path.as_ref();
        self.io
            .poll_write_io(cx, || super::socket::send_to_path(fd, buf, path))
    }

    /// Polls receiving a datagram into `buf`'s unfilled part. Only the last task to poll is
    /// woken.
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let sys = self.io.get_ref();
        let n = ready!(self.io.poll_read_io(cx, || {
            // SAFETY: only `recv(2)` writes into the unfilled part, never reads it.
            sys.recv(unsafe { as_recv_buf(buf.unfilled_mut()) })
        }))?;
        filled(buf, n);
        Poll::Ready(Ok(()))
    }

    /// Polls receiving a datagram into `buf`'s unfilled part; returns its sender. Only the
    /// last task to poll is woken.
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        let sys = self.io.get_ref();
        let (n, from) = ready!(self.io.poll_read_io(cx, || {
            // SAFETY: only `recvfrom(2)` writes into the unfilled part, never reads it.
            sys.recv_from(unsafe { as_recv_buf(buf.unfilled_mut()) })
        }))?;
        filled(buf, n);
        Poll::Ready(Ok(from))
    }

    /// Polls until a receive may not block. Only the last task to poll is woken.
    pub fn poll_recv_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io
            .registration()
            .poll_ready(cx, crate::scheduled_io::Direction::Read)
            .map_ok(drop)
    }

    /// Polls until a send may not block. Only the last task to poll is woken.
    pub fn poll_send_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io
            .registration()
            .poll_ready(cx, crate::scheduled_io::Direction::Write)
            .map_ok(drop)
    }

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }

    /// The connected peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr()
    }
}

impl_socket_readiness!(UnixDatagram);

/// Marks `n` bytes received into `buf`'s unfilled part as filled.
fn filled(buf: &mut ReadBuf<'_>, n: usize) {
    // SAFETY: the kernel wrote `n` bytes at the start of the unfilled part.
    unsafe { buf.assume_init(n) };
    buf.advance(n);
}

/// Receives with `recv` (returning the byte count first) into the spare capacity of `buf`,
/// which it then advances by what was received.
fn recv_buf<B: bytes::BufMut, R: RecvLen>(
    buf: &mut B,
    recv: impl FnOnce(&mut [u8]) -> io::Result<R>,
) -> io::Result<R> {
    let dst = buf.chunk_mut();
    // SAFETY: `UninitSlice` is a `[MaybeUninit<u8>]` in a wrapper, and `recv` is a receiving
    // syscall: it only writes the bytes, never reads them.
    let dst = unsafe { as_recv_buf(dst.as_uninit_slice_mut()) };
    let r = recv(dst)?;
    // SAFETY: the syscall initialised the first `len` bytes of `chunk_mut`.
    unsafe { buf.advance_mut(r.len()) };
    Ok(r)
}

/// What a receive returns, with the byte count in it.
trait RecvLen {
    fn len(&self) -> usize;
}

impl RecvLen for usize {
    fn len(&self) -> usize {
        *self
    }
}

impl RecvLen for (usize, SocketAddr) {
    fn len(&self) -> usize {
        self.0
    }
}

impl AsRawFd for UnixDatagram {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}
