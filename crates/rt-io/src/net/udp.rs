//! [`UdpSocket`].

use std::io;
use std::mem::MaybeUninit;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::fd::{AsRawFd, RawFd};
use std::task::{ready, Context, Poll};

use crate::io::ReadBuf;

use crate::io::poll_evented::PollEvented;
use crate::io::Interest;
use crate::net::{addr, ToSocketAddrs};

/// The unfilled part of `buf` as bytes for `recv(2)`.
///
/// # Safety
///
/// The caller hands the slice only to a syscall that writes into it and never reads it, and
/// then marks initialised only the bytes the kernel reported written.
unsafe fn unfilled<'a>(buf: &'a mut ReadBuf<'_>) -> &'a mut [u8] {
    // SAFETY: per the contract no uninitialised byte is read.
    unsafe { &mut *(buf.unfilled_mut() as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

/// Marks `n` bytes received into `buf`'s unfilled part as filled.
fn filled(buf: &mut ReadBuf<'_>, n: usize) {
    // SAFETY: the kernel wrote `n` bytes at the start of the unfilled part.
    unsafe { buf.assume_init(n) };
    buf.advance(n);
}

/// A UDP socket. All methods take `&self`: share it (in an `Arc`) between tasks that send and
/// receive at once; every waiting task is woken when the socket becomes ready.
#[derive(Debug)]
pub struct UdpSocket {
    io: PollEvented<mio::net::UdpSocket>,
}

impl UdpSocket {
    /// Binds to `addr` (the first of its addresses that works).
    pub async fn bind(addr: impl ToSocketAddrs) -> io::Result<UdpSocket> {
        let addrs = addr::resolve(addr).await?;
        addr::first_ok(addrs, |a| async move {
            UdpSocket::from_mio(mio::net::UdpSocket::bind(a)?)
        })
        .await
    }

    #[track_caller]
    fn from_mio(sys: mio::net::UdpSocket) -> io::Result<UdpSocket> {
        Ok(UdpSocket {
            io: PollEvented::new(sys)?,
        })
    }

    /// Wraps a std socket (made non-blocking here).
    #[track_caller]
    pub fn from_std(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        socket.set_nonblocking(true)?;
        UdpSocket::from_mio(mio::net::UdpSocket::from_std(socket))
    }

    /// Deregisters the socket and returns it as a std socket, still in non-blocking mode.
    pub fn into_std(self) -> io::Result<std::net::UdpSocket> {
        Ok(self.io.into_inner()?.into())
    }

    /// Sets the default destination of [`UdpSocket::send`] and the only source
    /// [`UdpSocket::recv`] accepts.
    pub async fn connect(&self, addr: impl ToSocketAddrs) -> io::Result<()> {
        let addrs = addr::resolve(addr).await?;
        let sys = self.io.get_ref();
        addr::first_ok(addrs, |a| async move { sys.connect(a) }).await
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

    /// Receives one datagram from the connected peer into `buf` (excess bytes are discarded).
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

    /// Sends `buf` to `target`.
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before it completes, no datagram was sent.
    pub async fn send_to(&self, buf: &[u8], target: impl ToSocketAddrs) -> io::Result<usize> {
        let target = addr::resolve(target).await?[0];
        let sys = self.io.get_ref();
        self.io
            .registration()
            .async_io(Interest::WRITABLE, || sys.send_to(buf, target))
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

    /// Sends `buf` to the connected peer if the socket is writable now (`WouldBlock` if not).
    pub fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::WRITABLE, || sys.send(buf))
    }

    /// Polls sending `buf` to the connected peer. Only the last task to poll is woken.
    pub fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let sys = self.io.get_ref();
        self.io.poll_write_io(cx, || sys.send(buf))
    }

    /// Receives a datagram from the connected peer if one is queued (`WouldBlock` if not).
    pub fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::READABLE, || sys.recv(buf))
    }

    /// Polls receiving a datagram from the connected peer into `buf`'s unfilled part (not
    /// zeroed first). Only the last task to poll is woken.
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        self.poll_recv_into(cx, buf, |sys, b| Ok((sys.recv(b)?, ())))
    }

    /// Polls `recv` (one of `recv`, `recv_from`, `peek_from`: it returns the byte count and
    /// what else it learnt) into `buf`'s unfilled part, and marks what it wrote as filled.
    fn poll_recv_into<R>(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
        mut recv: impl FnMut(&mio::net::UdpSocket, &mut [u8]) -> io::Result<(usize, R)>,
    ) -> Poll<io::Result<R>> {
        let sys = self.io.get_ref();
        let (n, r) = ready!(self.io.poll_read_io(cx, || {
            // SAFETY: `recv` only hands it to a receiving syscall, which writes into it and
            // never reads it; `filled` marks only what it wrote.
            recv(sys, unsafe { unfilled(buf) })
        }))?;
        filled(buf, n);
        Poll::Ready(Ok(r))
    }

    /// Sends `buf` to `target` if the socket is writable now (`WouldBlock` if not).
    pub fn try_send_to(&self, buf: &[u8], target: SocketAddr) -> io::Result<usize> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::WRITABLE, || sys.send_to(buf, target))
    }

    /// Polls sending `buf` to `target`. Only the last task to poll is woken.
    pub fn poll_send_to(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: SocketAddr,
    ) -> Poll<io::Result<usize>> {
        let sys = self.io.get_ref();
        self.io.poll_write_io(cx, || sys.send_to(buf, target))
    }

    /// Receives a datagram and its sender if one is queued (`WouldBlock` if not).
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::READABLE, || sys.recv_from(buf))
    }

    /// Polls receiving a datagram into `buf`'s unfilled part; returns its sender. Only the
    /// last task to poll is woken.
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        self.poll_recv_into(cx, buf, |sys, b| sys.recv_from(b))
    }

    /// Copies the next datagram from the connected peer into `buf` without taking it off the
    /// queue.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .async_io(Interest::READABLE, || sys.peek(buf))
            .await
    }

    /// Copies the next datagram into `buf` without taking it off the queue; returns its sender.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .async_io(Interest::READABLE, || sys.peek_from(buf))
            .await
    }

    /// [`UdpSocket::peek_from`] if a datagram is queued now (`WouldBlock` if not).
    pub fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::READABLE, || sys.peek_from(buf))
    }

    /// Polls peeking at the next datagram (into `buf`'s unfilled part); returns its sender.
    /// Only the last task to poll is woken.
    pub fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        self.poll_recv_into(cx, buf, |sys, b| sys.peek_from(b))
    }

    /// Receives a datagram from the connected peer into the spare capacity of `buf`, advancing
    /// it (tokio's `recv_buf`). A datagram longer than that capacity is cut.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn recv_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.io
            .registration()
            .async_io(Interest::READABLE, || recv_buf(self.as_raw_fd(), buf, 0))
            .await
            .map(|(n, _)| n)
    }

    /// [`UdpSocket::recv_buf`] if a datagram is queued now (`WouldBlock` if not).
    pub fn try_recv_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.io
            .registration()
            .try_io(Interest::READABLE, || recv_buf(self.as_raw_fd(), buf, 0))
            .map(|(n, _)| n)
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
        self.io
            .registration()
            .async_io(Interest::READABLE, || recv_buf(self.as_raw_fd(), buf, 0))
            .await
    }

    /// [`UdpSocket::recv_buf_from`] if a datagram is queued now (`WouldBlock` if not).
    pub fn try_recv_buf_from<B: bytes::BufMut>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        self.io
            .registration()
            .try_io(Interest::READABLE, || recv_buf(self.as_raw_fd(), buf, 0))
    }

    /// The sender of the next datagram, which stays queued (tokio's `peek_sender`).
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn peek_sender(&self) -> io::Result<SocketAddr> {
        self.io
            .registration()
            .async_io(Interest::READABLE, || peek_sender(self.as_raw_fd()))
            .await
    }

    /// [`UdpSocket::peek_sender`] if a datagram is queued now (`WouldBlock` if not).
    pub fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        self.io
            .registration()
            .try_io(Interest::READABLE, || peek_sender(self.as_raw_fd()))
    }

    /// Polls for the sender of the next datagram, which stays queued. Only the last task to
    /// poll is woken.
    pub fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>> {
        let fd = self.as_raw_fd();
        self.io.poll_read_io(cx, || peek_sender(fd))
    }

    /// Sets the IPv4 type-of-service byte of outgoing packets (`IP_TOS`; tokio's `set_tos_v4`).
    pub fn set_tos_v4(&self, tos: u32) -> io::Result<()> {
        crate::net::raw_socket::set_int_opt(
            self,
            libc::IPPROTO_IP,
            libc::IP_TOS,
            tos as libc::c_int,
        )
    }

    /// The IPv4 type-of-service byte of outgoing packets (`IP_TOS`).
    pub fn tos_v4(&self) -> io::Result<u32> {
        crate::net::raw_socket::int_opt(self, libc::IPPROTO_IP, libc::IP_TOS).map(|v| v as u32)
    }

    /// Sets the IPv6 traffic class of outgoing packets (`IPV6_TCLASS`; tokio's
    /// `set_tclass_v6`).
    pub fn set_tclass_v6(&self, tclass: u32) -> io::Result<()> {
        crate::net::raw_socket::set_int_opt(
            self,
            libc::IPPROTO_IPV6,
            libc::IPV6_TCLASS,
            tclass as libc::c_int,
        )
    }

    /// The IPv6 traffic class of outgoing packets (`IPV6_TCLASS`).
    pub fn tclass_v6(&self) -> io::Result<u32> {
        crate::net::raw_socket::int_opt(self, libc::IPPROTO_IPV6, libc::IPV6_TCLASS)
            .map(|v| v as u32)
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

    /// Sets `IP_TTL`, the time-to-live of the packets this socket sends.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.get_ref().set_ttl(ttl)
    }

    /// The `IP_TTL` of this socket.
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.get_ref().ttl()
    }

    /// Takes the socket's pending error (`SO_ERROR`), clearing it.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.get_ref().take_error()
    }

    /// The connected peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr()
    }

    /// Sets `SO_BROADCAST`: whether datagrams may go to a broadcast address.
    pub fn set_broadcast(&self, on: bool) -> io::Result<()> {
        self.io.get_ref().set_broadcast(on)
    }

    /// The `SO_BROADCAST` of this socket.
    pub fn broadcast(&self) -> io::Result<bool> {
        self.io.get_ref().broadcast()
    }

    /// Sets `IP_MULTICAST_LOOP`: whether IPv4 multicast datagrams loop back to this host.
    pub fn set_multicast_loop_v4(&self, on: bool) -> io::Result<()> {
        self.io.get_ref().set_multicast_loop_v4(on)
    }

    /// The `IP_MULTICAST_LOOP` of this socket.
    pub fn multicast_loop_v4(&self) -> io::Result<bool> {
        self.io.get_ref().multicast_loop_v4()
    }

    /// Sets `IP_MULTICAST_TTL`, the time-to-live of IPv4 multicast datagrams.
    pub fn set_multicast_ttl_v4(&self, ttl: u32) -> io::Result<()> {
        self.io.get_ref().set_multicast_ttl_v4(ttl)
    }

    /// The `IP_MULTICAST_TTL` of this socket.
    pub fn multicast_ttl_v4(&self) -> io::Result<u32> {
        self.io.get_ref().multicast_ttl_v4()
    }

    /// Sets `IPV6_MULTICAST_LOOP`: whether IPv6 multicast datagrams loop back to this host.
    pub fn set_multicast_loop_v6(&self, on: bool) -> io::Result<()> {
        self.io.get_ref().set_multicast_loop_v6(on)
    }

    /// The `IPV6_MULTICAST_LOOP` of this socket.
    pub fn multicast_loop_v6(&self) -> io::Result<bool> {
        self.io.get_ref().multicast_loop_v6()
    }

    /// Joins the IPv4 multicast group `multiaddr` on the interface with address `interface`
    /// (`Ipv4Addr::UNSPECIFIED`: the system's choice).
    pub fn join_multicast_v4(&self, multiaddr: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.io.get_ref().join_multicast_v4(&multiaddr, &interface)
    }

    /// Joins the IPv6 multicast group `multiaddr` on interface index `interface` (0: any).
    pub fn join_multicast_v6(&self, multiaddr: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.io.get_ref().join_multicast_v6(multiaddr, interface)
    }

    /// Leaves an IPv4 multicast group joined with [`UdpSocket::join_multicast_v4`].
    pub fn leave_multicast_v4(&self, multiaddr: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.io.get_ref().leave_multicast_v4(&multiaddr, &interface)
    }

    /// Leaves an IPv6 multicast group joined with [`UdpSocket::join_multicast_v6`].
    pub fn leave_multicast_v6(&self, multiaddr: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.io.get_ref().leave_multicast_v6(multiaddr, interface)
    }
}

impl_socket_readiness!(UdpSocket);

impl AsRawFd for UdpSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

/// One `recvfrom` into the spare capacity of `buf`, which it then advances by what was read.
fn recv_buf<B: bytes::BufMut>(
    fd: RawFd,
    buf: &mut B,
    flags: libc::c_int,
) -> io::Result<(usize, SocketAddr)> {
    let dst = buf.chunk_mut();
    // SAFETY: `UninitSlice` is a `[MaybeUninit<u8>]` in a wrapper; the bytes are only written
    // (by `recvfrom`), never read, through it.
    let dst = unsafe { dst.as_uninit_slice_mut() };
    let (n, from) = crate::net::raw_socket::recv_from_uninit(fd, dst, flags)?;
    // SAFETY: `recvfrom` initialised the first `n` bytes of `chunk_mut` (a cut datagram reports
    // at most the buffer's length without `MSG_TRUNC`).
    unsafe { buf.advance_mut(n) };
    Ok((n, from))
}

/// The next datagram's sender, without taking the datagram.
fn peek_sender(fd: RawFd) -> io::Result<SocketAddr> {
    crate::net::raw_socket::recv_from_uninit(fd, &mut [], libc::MSG_PEEK).map(|(_, from)| from)
}
