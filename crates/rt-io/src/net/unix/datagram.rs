//! [`UnixDatagram`].

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::SocketAddr;
use std::path::Path;

use crate::io::poll_evented::PollEvented;
use crate::io::Interest;

/// A Unix-domain datagram socket. All methods take `&self`, as for `UdpSocket`.
#[derive(Debug)]
pub struct UnixDatagram {
    io: PollEvented<mio::net::UnixDatagram>,
}

impl UnixDatagram {
    /// Binds to the socket file `path` (which must not exist).
    pub fn bind(path: impl AsRef<Path>) -> io::Result<UnixDatagram> {
        UnixDatagram::from_mio(mio::net::UnixDatagram::bind(path)?)
    }

    /// A socket bound to no address: it can send, and receive replies only once connected.
    pub fn unbound() -> io::Result<UnixDatagram> {
        UnixDatagram::from_mio(mio::net::UnixDatagram::unbound()?)
    }

    /// A connected pair of sockets.
    pub fn pair() -> io::Result<(UnixDatagram, UnixDatagram)> {
        let (a, b) = mio::net::UnixDatagram::pair()?;
        Ok((UnixDatagram::from_mio(a)?, UnixDatagram::from_mio(b)?))
    }

    fn from_mio(sys: mio::net::UnixDatagram) -> io::Result<UnixDatagram> {
        Ok(UnixDatagram {
            io: PollEvented::new(sys)?,
        })
    }

    /// Wraps a std socket (made non-blocking here).
    pub fn from_std(socket: std::os::unix::net::UnixDatagram) -> io::Result<UnixDatagram> {
        socket.set_nonblocking(true)?;
        UnixDatagram::from_mio(mio::net::UnixDatagram::from_std(socket))
    }

    /// Sets the default destination of [`UnixDatagram::send`].
    pub fn connect(&self, path: impl AsRef<Path>) -> io::Result<()> {
        self.io.get_ref().connect(path)
    }

    /// Sends `buf` to the socket at `path`.
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before it completes, no datagram was sent.
    pub async fn send_to(&self, buf: &[u8], path: impl AsRef<Path>) -> io::Result<usize> {
        let sys = self.io.get_ref();
        let path = path.as_ref();
        self.io
            .registration()
            .async_io(Interest::WRITABLE, || sys.send_to(buf, path))
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

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }

    /// The connected peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr()
    }
}

impl AsRawFd for UnixDatagram {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}
