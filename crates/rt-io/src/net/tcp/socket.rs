//! [`TcpSocket`]: a TCP socket before it listens or connects, for options that must be set first.

use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::Duration;

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

    /// Sets `SO_KEEPALIVE`: the kernel probes an idle connection and drops a dead one.
    pub fn set_keepalive(&self, keepalive: bool) -> io::Result<()> {
        raw_socket::set_int_opt(self, libc::SOL_SOCKET, libc::SO_KEEPALIVE, keepalive.into())
    }

    /// Whether `SO_KEEPALIVE` is set.
    pub fn keepalive(&self) -> io::Result<bool> {
        Ok(raw_socket::int_opt(self, libc::SOL_SOCKET, libc::SO_KEEPALIVE)? != 0)
    }

    /// Sets `SO_SNDBUF`, the send buffer size (the kernel doubles it for bookkeeping).
    pub fn set_send_buffer_size(&self, size: u32) -> io::Result<()> {
        raw_socket::set_int_opt(self, libc::SOL_SOCKET, libc::SO_SNDBUF, clamp(size))
    }

    /// The `SO_SNDBUF` of this socket.
    pub fn send_buffer_size(&self) -> io::Result<u32> {
        Ok(raw_socket::int_opt(self, libc::SOL_SOCKET, libc::SO_SNDBUF)? as u32)
    }

    /// Sets `SO_RCVBUF`, the receive buffer size (the kernel doubles it for bookkeeping).
    pub fn set_recv_buffer_size(&self, size: u32) -> io::Result<()> {
        raw_socket::set_int_opt(self, libc::SOL_SOCKET, libc::SO_RCVBUF, clamp(size))
    }

    /// The `SO_RCVBUF` of this socket.
    pub fn recv_buffer_size(&self) -> io::Result<u32> {
        Ok(raw_socket::int_opt(self, libc::SOL_SOCKET, libc::SO_RCVBUF)? as u32)
    }

    /// Sets `TCP_NODELAY` (disables Nagle's algorithm when `true`).
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        raw_socket::set_int_opt(self, libc::IPPROTO_TCP, libc::TCP_NODELAY, nodelay.into())
    }

    /// Whether `TCP_NODELAY` is set.
    pub fn nodelay(&self) -> io::Result<bool> {
        Ok(raw_socket::int_opt(self, libc::IPPROTO_TCP, libc::TCP_NODELAY)? != 0)
    }

    /// Sets the IPv4 type-of-service byte of outgoing packets (`IP_TOS`; tokio's `set_tos_v4`).
    pub fn set_tos_v4(&self, tos: u32) -> io::Result<()> {
        raw_socket::set_int_opt(self, libc::IPPROTO_IP, libc::IP_TOS, tos as libc::c_int)
    }

    /// The IPv4 type-of-service byte of outgoing packets (`IP_TOS`).
    pub fn tos_v4(&self) -> io::Result<u32> {
        raw_socket::int_opt(self, libc::IPPROTO_IP, libc::IP_TOS).map(|v| v as u32)
    }

    /// Sets the IPv6 traffic class of outgoing packets (`IPV6_TCLASS`; tokio's
    /// `set_tclass_v6`).
    pub fn set_tclass_v6(&self, tclass: u32) -> io::Result<()> {
        raw_socket::set_int_opt(
            self,
            libc::IPPROTO_IPV6,
            libc::IPV6_TCLASS,
            tclass as libc::c_int,
        )
    }

    /// The IPv6 traffic class of outgoing packets (`IPV6_TCLASS`).
    pub fn tclass_v6(&self) -> io::Result<u32> {
        raw_socket::int_opt(self, libc::IPPROTO_IPV6, libc::IPV6_TCLASS).map(|v| v as u32)
    }

    /// Sets `SO_LINGER` to zero; see [`TcpStream::set_zero_linger`].
    pub fn set_zero_linger(&self) -> io::Result<()> {
        raw_socket::set_linger(self, Some(Duration::ZERO))
    }

    /// Sets `SO_LINGER`; see [`TcpStream::set_linger`].
    pub fn set_linger(&self, linger: Option<Duration>) -> io::Result<()> {
        raw_socket::set_linger(self, linger)
    }

    /// The `SO_LINGER` of this socket (`None`: off).
    pub fn linger(&self) -> io::Result<Option<Duration>> {
        raw_socket::linger(self)
    }

    /// Sets `IP_TOS`, the type-of-service byte of IPv4 packets.
    pub fn set_tos(&self, tos: u32) -> io::Result<()> {
        raw_socket::set_int_opt(self, libc::IPPROTO_IP, libc::IP_TOS, clamp(tos))
    }

    /// The `IP_TOS` of this socket.
    pub fn tos(&self) -> io::Result<u32> {
        Ok(raw_socket::int_opt(self, libc::IPPROTO_IP, libc::IP_TOS)? as u32)
    }

    /// Wraps a connected std stream's socket, for setting options on it (tokio's
    /// `TcpSocket::from_std_stream`).
    pub fn from_std_stream(stream: std::net::TcpStream) -> TcpSocket {
        TcpSocket {
            fd: OwnedFd::from(stream),
        }
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
    #[track_caller]
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

/// A `u32` option value as the `int` the kernel takes (saturating).
fn clamp(v: u32) -> libc::c_int {
    libc::c_int::try_from(v).unwrap_or(libc::c_int::MAX)
}

impl AsRawFd for TcpSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
