//! [`UnixStream`].

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::SocketAddr;
use std::path::Path;
use std::task::{Context, Poll};

use rt_core::sync::Arc;

use crate::io::poll_evented::PollEvented;
use crate::io::{Interest, Ready};
use crate::net::unix::split::{self, OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};

/// A Unix-domain stream connection, with the same read/write methods as `TcpStream`, and the
/// same halves ([`UnixStream::split`], [`UnixStream::into_split`]).
#[derive(Debug)]
pub struct UnixStream {
    io: PollEvented<mio::net::UnixStream>,
}

impl UnixStream {
    /// Connects to the socket file `path`.
    pub async fn connect(path: impl AsRef<Path>) -> io::Result<UnixStream> {
        let stream = UnixStream::from_mio(mio::net::UnixStream::connect(path)?)?;
        let reg = stream.io.registration();
        reg.ready(Interest::WRITABLE).await?;
        if let Some(e) = stream.io.get_ref().take_error()? {
            return Err(e);
        }
        Ok(stream)
    }

    /// A connected pair of streams.
    pub fn pair() -> io::Result<(UnixStream, UnixStream)> {
        let (a, b) = mio::net::UnixStream::pair()?;
        Ok((UnixStream::from_mio(a)?, UnixStream::from_mio(b)?))
    }

    pub(crate) fn from_mio(sys: mio::net::UnixStream) -> io::Result<UnixStream> {
        Ok(UnixStream {
            io: PollEvented::new(sys)?,
        })
    }

    /// Wraps a connected std stream (made non-blocking here).
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

    /// Waits until the stream is ready for any of `interest`, and says what it is ready for.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        Ok(self.io.registration().ready(interest).await?.ready)
    }

    /// Waits until a read may not block.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn readable(&self) -> io::Result<()> {
        self.ready(Interest::READABLE).await.map(drop)
    }

    /// Waits until a write may not block.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn writable(&self) -> io::Result<()> {
        self.ready(Interest::WRITABLE).await.map(drop)
    }

    /// Reads without waiting: `WouldBlock` when no data is known to be available.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        let mut sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::READABLE, || sys.read(buf))
    }

    /// Writes without waiting: `WouldBlock` when the socket is not known to be writable.
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        let mut sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::WRITABLE, || sys.write(buf))
    }

    /// Reads into `bufs` (one `readv`) without waiting: `WouldBlock` when no data is known to
    /// be available.
    pub fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        let mut sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::READABLE, || sys.read_vectored(bufs))
    }

    /// Writes `bufs` (one `writev`) without waiting: `WouldBlock` when the socket is not known
    /// to be writable.
    pub fn try_write_vectored(&self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        let mut sys = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::WRITABLE, || sys.write_vectored(bufs))
    }

    /// Runs `f` (your own non-blocking syscall on this stream's fd, e.g. `sendmsg` with
    /// `SCM_RIGHTS`) if the stream is ready for `interest`; a `WouldBlock` from `f` clears the
    /// readiness.
    pub fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        self.io.registration().try_io(interest, f)
    }

    /// Waits for `interest` and runs `f` until it does not return `WouldBlock`.
    ///
    /// # Cancel safety
    /// Cancel safe if `f` is.
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        self.io.registration().async_io(interest, f).await
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
        self.io.poll_write_vectored(cx, bufs)
    }

    pub(crate) fn shutdown_write_priv(&self) -> io::Result<()> {
        match self.io.get_ref().shutdown(Shutdown::Write) {
            Err(e) if e.kind() == io::ErrorKind::NotConnected => Ok(()),
            r => r,
        }
    }
}

impl_stream_read!([] UnixStream, s => s);
impl_stream_write!([] UnixStream, s => s);

impl AsRawFd for UnixStream {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}
