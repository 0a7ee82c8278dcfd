//! [`UdpSocket`].

use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, RawFd};

use crate::io::poll_evented::PollEvented;
use crate::io::Interest;
use crate::net::{addr, ToSocketAddrs};

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

    fn from_mio(sys: mio::net::UdpSocket) -> io::Result<UdpSocket> {
        Ok(UdpSocket {
            io: PollEvented::new(sys)?,
        })
    }

    /// Wraps a std socket (made non-blocking here).
    pub fn from_std(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        socket.set_nonblocking(true)?;
        UdpSocket::from_mio(mio::net::UdpSocket::from_std(socket))
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

    /// Waits until a receive may not block.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn readable(&self) -> io::Result<()> {
        self.io
            .registration()
            .ready(Interest::READABLE)
            .await
            .map(drop)
    }

    /// Waits until a send may not block.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn writable(&self) -> io::Result<()> {
        self.io
            .registration()
            .ready(Interest::WRITABLE)
            .await
            .map(drop)
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
}

impl AsRawFd for UdpSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}
