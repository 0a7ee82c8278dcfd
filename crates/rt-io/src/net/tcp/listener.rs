//! [`TcpListener`].

use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, RawFd};

use crate::io::poll_evented::PollEvented;
use crate::io::Interest;
use crate::net::tcp::{TcpSocket, TcpStream};
use crate::net::{addr, ToSocketAddrs};

use crate::tuning::BACKLOG;

/// A TCP socket listening for connections.
#[derive(Debug)]
pub struct TcpListener {
    io: PollEvented<mio::net::TcpListener>,
}

impl TcpListener {
    /// Binds to `addr` (the first of its addresses that works), with `SO_REUSEADDR` and a backlog
    /// of 1024 pending connections (as tokio's `bind` has always given; the kernel caps it at
    /// `net.core.somaxconn`). `std`'s `bind` listens with 128; for
    /// another value, build the listener with [`TcpSocket::listen`](crate::net::TcpSocket::listen).
    pub async fn bind(addr: impl ToSocketAddrs) -> io::Result<TcpListener> {
        let addrs = addr::resolve(addr).await?;
        addr::first_ok(addrs, |a| async move {
            let socket = if a.is_ipv4() {
                TcpSocket::new_v4()?
            } else {
                TcpSocket::new_v6()?
            };
            socket.set_reuseaddr(true)?;
            socket.bind(a)?;
            socket.listen(BACKLOG)
        })
        .await
    }

    #[track_caller]
    pub(crate) fn from_mio(l: mio::net::TcpListener) -> io::Result<TcpListener> {
        Ok(TcpListener {
            io: PollEvented::with_interest(l, Interest::READABLE)?,
        })
    }

    /// Wraps a std listener (made non-blocking here).
    #[track_caller]
    pub fn from_std(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        listener.set_nonblocking(true)?;
        TcpListener::from_mio(mio::net::TcpListener::from_std(listener))
    }

    /// Waits for the next connection.
    ///
    /// An error from `accept(2)` — `EMFILE` when the process is out of file descriptors, say — is
    /// returned as is and the listener stays usable: the pending connections stay queued, and the
    /// next `accept` tries again at once.
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before it completes, no connection was taken from the backlog.
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        let l = self.io.get_ref();
        let (stream, peer) = self
            .io
            .registration()
            .async_io(Interest::READABLE, || l.accept())
            .await?;
        Ok((TcpStream::from_accepted(stream)?, peer))
    }

    /// Polls for the next connection (the `Stream` form of [`TcpListener::accept`], as in tokio):
    /// only the task that polled last is woken.
    pub fn poll_accept(
        &self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<(TcpStream, SocketAddr)>> {
        let l = self.io.get_ref();
        let (stream, peer) = std::task::ready!(self.io.poll_read_io(cx, || l.accept()))?;
        std::task::Poll::Ready(Ok((TcpStream::from_accepted(stream)?, peer)))
    }

    /// The address the listener is bound to.
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
}

impl AsRawFd for TcpListener {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}
