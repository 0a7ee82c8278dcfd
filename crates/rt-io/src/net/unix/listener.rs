//! [`UnixListener`].

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::SocketAddr;
use std::path::Path;

use crate::io::poll_evented::PollEvented;
use crate::io::Interest;
use crate::net::unix::UnixStream;

/// A Unix-domain socket listening for connections.
#[derive(Debug)]
pub struct UnixListener {
    io: PollEvented<mio::net::UnixListener>,
}

impl UnixListener {
    /// Binds to the socket file `path` (which must not exist). A path that starts with a NUL
    /// byte names a Linux abstract socket instead (the rest of the path is its name), as in
    /// tokio.
    #[track_caller]
    pub fn bind(path: impl AsRef<Path>) -> io::Result<UnixListener> {
        match super::abstract_addr(path.as_ref())? {
            Some(addr) => UnixListener::bind_addr(&addr),
            None => UnixListener::from_mio(mio::net::UnixListener::bind(path)?),
        }
    }

    /// Binds to `addr` (a path or, on Linux, an abstract name; tokio's `bind_addr`).
    #[track_caller]
    pub fn bind_addr(addr: &SocketAddr) -> io::Result<UnixListener> {
        UnixListener::from_mio(mio::net::UnixListener::bind_addr(addr)?)
    }

    #[track_caller]
    fn from_mio(sys: mio::net::UnixListener) -> io::Result<UnixListener> {
        Ok(UnixListener {
            io: PollEvented::with_interest(sys, Interest::READABLE)?,
        })
    }

    /// Wraps a std listener (made non-blocking here).
    #[track_caller]
    pub fn from_std(listener: std::os::unix::net::UnixListener) -> io::Result<UnixListener> {
        listener.set_nonblocking(true)?;
        UnixListener::from_mio(mio::net::UnixListener::from_std(listener))
    }

    /// Waits for the next connection. Errors leave the listener usable (see `TcpListener::accept`).
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before it completes, no connection was taken from the backlog.
    pub async fn accept(&self) -> io::Result<(UnixStream, SocketAddr)> {
        let sys = self.io.get_ref();
        let (stream, peer) = self
            .io
            .registration()
            .async_io(Interest::READABLE, || sys.accept())
            .await?;
        Ok((UnixStream::from_accepted(stream)?, peer))
    }

    /// Polls for the next connection (the `Stream` form of [`UnixListener::accept`], as in
    /// tokio): only the task that polled last is woken.
    pub fn poll_accept(
        &self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<(UnixStream, SocketAddr)>> {
        let sys = self.io.get_ref();
        let (stream, peer) = std::task::ready!(self.io.poll_read_io(cx, || sys.accept()))?;
        std::task::Poll::Ready(Ok((UnixStream::from_accepted(stream)?, peer)))
    }

    /// The address the listener is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }
}

impl AsRawFd for UnixListener {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}
