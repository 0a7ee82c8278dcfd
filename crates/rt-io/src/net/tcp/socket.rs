//! [`TcpSocket`]: a TCP socket before it listens or connects, for options that must be set first.

use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use crate::net::raw_socket;
use crate::net::tcp::{TcpListener, TcpStream};

/// An unconnected TCP socket.
///
/// ```no_run
/// # async fn demo() -> std::io::Result<()> {
/// let socket = rt_io::net::TcpSocket::new_v4()?;
/// socket.set_reuseaddr(true)?;
/// socket.bind("127.0.0.1:0".parse().unwrap())?;
/// let listener = socket.listen(1024)?;
/// # let _ = listener; Ok(()) }
/// ```
#[derive(Debug)]
pub struct TcpSocket {
    fd: OwnedFd,
}

impl TcpSocket {
    /// A new IPv4 socket.
    pub fn new_v4() -> io::Result<TcpSocket> {
        Ok(TcpSocket {
            fd: raw_socket::tcp_socket(libc::AF_INET)?,
        })
    }

    /// A new IPv6 socket.
    pub fn new_v6() -> io::Result<TcpSocket> {
        Ok(TcpSocket {
            fd: raw_socket::tcp_socket(libc::AF_INET6)?,
        })
    }

    /// Sets `SO_REUSEADDR`.
    pub fn set_reuseaddr(&self, reuse: bool) -> io::Result<()> {
        raw_socket::set_int_opt(self, libc::SOL_SOCKET, libc::SO_REUSEADDR, reuse.into())
    }

    /// Whether `SO_REUSEADDR` is set.
    pub fn reuseaddr(&self) -> io::Result<bool> {
        Ok(raw_socket::int_opt(self, libc::SOL_SOCKET, libc::SO_REUSEADDR)? != 0)
    }

    /// Sets `SO_REUSEPORT`: several sockets may then bind the same address and port.
    pub fn set_reuseport(&self, reuse: bool) -> io::Result<()> {
        raw_socket::set_int_opt(self, libc::SOL_SOCKET, libc::SO_REUSEPORT, reuse.into())
    }

    /// Whether `SO_REUSEPORT` is set.
    pub fn reuseport(&self) -> io::Result<bool> {
        Ok(raw_socket::int_opt(self, libc::SOL_SOCKET, libc::SO_REUSEPORT)? != 0)
    }

    /// Binds to `addr`.
    pub fn bind(&self, addr: SocketAddr) -> io::Result<()> {
        raw_socket::bind(self, &addr)
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        raw_socket::local_addr(self)
    }

    /// Starts listening with room for `backlog` pending connections.
    pub fn listen(self, backlog: u32) -> io::Result<TcpListener> {
        raw_socket::listen(&self, backlog)?;
        let std = std::net::TcpListener::from(self.fd);
        TcpListener::from_mio(mio::net::TcpListener::from_std(std))
    }

    /// Connects to `addr`.
    pub async fn connect(self, addr: SocketAddr) -> io::Result<TcpStream> {
        raw_socket::connect(&self, &addr)?;
        let std = std::net::TcpStream::from(self.fd);
        TcpStream::connected(mio::net::TcpStream::from_std(std)).await
    }
}

impl AsRawFd for TcpSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
