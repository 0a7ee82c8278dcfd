//! [`UnixStream`].

use std::io;
use std::net::Shutdown;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::SocketAddr;
use std::path::Path;
use std::task::{Context, Poll};

use rt_core::sync::Arc;

use crate::io::poll_evented::PollEvented;
use crate::io::Interest;
use crate::net::unix::split::{self, OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};

/// A Unix-domain stream connection, with the same read/write methods as `TcpStream`, and the
/// same halves ([`UnixStream::split`], [`UnixStream::into_split`]).
#[derive(Debug)]
pub struct UnixStream {
    io: PollEvented<mio::net::UnixStream>,
}

impl UnixStream {
    /// Connects to the socket file `path`. A path that starts with a NUL byte names a Linux
    /// abstract socket instead (the rest of the path is its name), as in tokio.
    pub async fn connect(path: impl AsRef<Path>) -> io::Result<UnixStream> {
        let sys = match super::abstract_addr(path.as_ref())? {
            Some(addr) => mio::net::UnixStream::connect_addr(&addr)?,
            None => mio::net::UnixStream::connect(path)?,
        };
        UnixStream::finish_connect(sys).await
    }

    /// Connects to `addr` (a path or, on Linux, an abstract name; tokio's `connect_addr`).
    pub async fn connect_addr(addr: &SocketAddr) -> io::Result<UnixStream> {
        UnixStream::finish_connect(mio::net::UnixStream::connect_addr(addr)?).await
    }

    /// Waits for a connect started on `sys` to finish, and reports its error.
    pub(crate) async fn finish_connect(sys: mio::net::UnixStream) -> io::Result<UnixStream> {
        let stream = UnixStream::from_mio(sys)?;
        let reg = stream.io.registration();
        reg.ready(Interest::WRITABLE).await?;
        if let Some(e) = stream.io.get_ref().take_error()? {
            return Err(e);
        }
        Ok(stream)
    }

    /// A connected pair of streams.
    #[track_caller]
    pub fn pair() -> io::Result<(UnixStream, UnixStream)> {
        let (a, b) = mio::net::UnixStream::pair()?;
        let (a, b) = (UnixStream::from_mio(a)?, UnixStream::from_mio(b)?);
        // Fresh buffers: both ends writable now, readable only once the peer writes.
        a.io.registration().assume_ready(crate::io::Ready::WRITABLE);
        b.io.registration().assume_ready(crate::io::Ready::WRITABLE);
        Ok((a, b))
    }

    /// A stream `accept` returned, assumed readable and writable (see
    /// `TcpStream::from_accepted`).
    #[track_caller]
    pub(crate) fn from_accepted(sys: mio::net::UnixStream) -> io::Result<UnixStream> {
        let stream = UnixStream::from_mio(sys)?;
        stream
            .io
            .registration()
            .assume_ready(crate::io::Ready::READABLE | crate::io::Ready::WRITABLE);
        Ok(stream)
    }

    #[track_caller]
    pub(crate) fn from_mio(sys: mio::net::UnixStream) -> io::Result<UnixStream> {
        Ok(UnixStream {
            io: PollEvented::new(sys)?,
        })
    }

    /// Wraps a connected std stream (made non-blocking here).
    #[track_caller]
    pub fn from_std(stream: std::os::unix::net::UnixStream) -> io::Result<UnixStream> {
        stream.set_nonblocking(true)?;
        UnixStream::from_mio(mio::net::UnixStream::from_std(stream))
    }

    /// Deregisters the stream and returns it as a std stream (still non-blocking).
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixStream> {
        Ok(self.io.into_inner()?.into())
    }

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }

    /// Takes the socket's pending error (`SO_ERROR`), clearing it.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.get_ref().take_error()
    }

    /// The remote address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr()
    }

    /// The credentials of the peer process (`SO_PEERCRED`): who connected to this socket.
    pub fn peer_cred(&self) -> io::Result<crate::net::unix::UCred> {
        crate::net::unix::ucred::peer_cred(self)
    }

    /// Borrowed halves, usable from two tasks at once (e.g. under a scoped join).
    pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
        split::borrowed(self)
    }

    /// Owned halves, each movable to its own task. Dropping the write half shuts the write side.
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        split::owned(Arc::new(self))
    }

    pub(crate) fn poll_read_priv(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_read(cx, buf)
    }

    pub(crate) fn poll_write_priv(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_write(cx, buf)
    }

    pub(crate) fn poll_write_vectored_priv(
        &self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_send_vectored(cx, bufs)
    }

    pub(crate) fn shutdown_write_priv(&self) -> io::Result<()> {
        match self.io.get_ref().shutdown(Shutdown::Write) {
            Err(e) if e.kind() == io::ErrorKind::NotConnected => Ok(()),
            r => r,
        }
    }
}

impl_socket_readiness!(UnixStream);
impl_stream_try_rw!(UnixStream);
impl_stream_read!([] UnixStream, s => s);
impl_stream_write!([] UnixStream, s => s);

impl AsRawFd for UnixStream {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}
