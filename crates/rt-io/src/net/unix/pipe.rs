//! Unix pipes and FIFOs (tokio's `tokio::net::unix::pipe`): [`pipe`] for an anonymous pipe,
//! [`OpenOptions`] to open a FIFO file, and the two ends, [`Sender`] and [`Receiver`], each
//! registered with the reactor for its one direction.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::task::{Context, Poll};

use mio::unix::SourceFd;

use crate::io::poll_evented::PollEvented;
use crate::io::{Interest, Ready};
use crate::scheduled_io::Direction;
use crate::syscall::cvt;

/// A new anonymous pipe: what is written to the [`Sender`] is read from the [`Receiver`].
///
/// # Panics
/// Outside an rt runtime.
#[track_caller]
pub fn pipe() -> io::Result<(Sender, Receiver)> {
    let mut fds: [libc::c_int; 2] = [-1, -1];
    // SAFETY: `fds` is an array of two ints, as `pipe2` writes.
    cvt(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) })?;
    // SAFETY: `pipe2` succeeded: both fds are open and owned by nobody else.
    let (rx, tx) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let tx = Sender::from_owned_fd_unchecked(tx)?;
    // An empty pipe: the sender can write now, before the reactor's first event.
    tx.io.registration().assume_ready(Ready::WRITABLE);
    Ok((tx, Receiver::from_owned_fd_unchecked(rx)?))
}

/// Options for opening a FIFO file as a [`Sender`] or a [`Receiver`] (tokio's).
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    read_write: bool,
    unchecked: bool,
}

impl OpenOptions {
    /// The default options: the end's own access mode, and a check that the file is a FIFO.
    pub fn new() -> OpenOptions {
        OpenOptions::default()
    }

    /// Opens the FIFO for reading and writing (Linux): a receiver opened so never sees the end
    /// of the stream when the last writer goes, and a sender opens even with no reader yet.
    pub fn read_write(&mut self, value: bool) -> &mut Self {
        self.read_write = value;
        self
    }

    /// Skips the check that the file is a FIFO (e.g. for a character device).
    pub fn unchecked(&mut self, value: bool) -> &mut Self {
        self.unchecked = value;
        self
    }

    /// Opens the FIFO at `path` as the reading end.
    ///
    /// # Panics
    /// Outside an rt runtime.
    #[track_caller]
    pub fn open_receiver<P: AsRef<Path>>(&self, path: P) -> io::Result<Receiver> {
        let file = self.open(path.as_ref(), false)?;
        Receiver::from_file_unchecked(file)
    }

    /// Opens the FIFO at `path` as the writing end. Without [`OpenOptions::read_write`] this
    /// fails with `ENXIO` while the FIFO has no reader.
    ///
    /// # Panics
    /// Outside an rt runtime.
    #[track_caller]
    pub fn open_sender<P: AsRef<Path>>(&self, path: P) -> io::Result<Sender> {
        let file = self.open(path.as_ref(), true)?;
        Sender::from_file_unchecked(file)
    }

    fn open(&self, path: &Path, sender: bool) -> io::Result<File> {
        let file = std::fs::OpenOptions::new()
            .read(!sender || self.read_write)
            .write(sender || self.read_write)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path)?;
        if !self.unchecked && !is_pipe(file.as_fd())? {
            return Err(not_a_pipe());
        }
        Ok(file)
    }
}

fn not_a_pipe() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "not a pipe")
}

fn is_pipe(fd: BorrowedFd<'_>) -> io::Result<bool> {
    // SAFETY: all-zero is a valid `stat`.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a writable `stat` for the whole call; `fd` is open.
    cvt(unsafe { libc::fstat(fd.as_raw_fd(), &mut st) })?;
    Ok(st.st_mode & libc::S_IFMT == libc::S_IFIFO)
}

/// The fd's status flags (`F_GETFL`).
fn file_flags(fd: BorrowedFd<'_>) -> io::Result<libc::c_int> {
    // SAFETY: `F_GETFL` takes no pointer; `fd` is open for the call.
    cvt(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) })
}

/// Sets or clears `O_NONBLOCK`, keeping the other status flags.
fn set_nonblocking(fd: BorrowedFd<'_>, nonblocking: bool) -> io::Result<()> {
    let flags = file_flags(fd)?;
    let new = if nonblocking {
        flags | libc::O_NONBLOCK
    } else {
        flags & !libc::O_NONBLOCK
    };
    if new != flags {
        // SAFETY: `F_SETFL` takes an int; `fd` is open for the call.
        cvt(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, new) })?;
    }
    Ok(())
}

/// Checks that `fd` is a pipe open for writing (`write`) or reading, and makes it
/// non-blocking.
fn checked(fd: OwnedFd, write: bool) -> io::Result<OwnedFd> {
    if !is_pipe(fd.as_fd())? {
        return Err(not_a_pipe());
    }
    let access = file_flags(fd.as_fd())? & libc::O_ACCMODE;
    let ok = match write {
        true => access == libc::O_WRONLY || access == libc::O_RDWR,
        false => access == libc::O_RDONLY || access == libc::O_RDWR,
    };
    if !ok {
        let msg = match write {
            true => "not in O_WRONLY or O_RDWR access mode",
            false => "not in O_RDONLY or O_RDWR access mode",
        };
        return Err(io::Error::new(io::ErrorKind::InvalidInput, msg));
    }
    set_nonblocking(fd.as_fd(), true)?;
    Ok(fd)
}

/// One end of a pipe as a mio source: the fd, read and written through `&File`.
#[derive(Debug)]
struct PipeEnd(File);

impl mio::event::Source for PipeEnd {
    fn register(
        &mut self,
        registry: &mio::Registry,
        token: mio::Token,
        interests: mio::Interest,
    ) -> io::Result<()> {
        SourceFd(&self.0.as_raw_fd()).register(registry, token, interests)
    }

    fn reregister(
        &mut self,
        registry: &mio::Registry,
        token: mio::Token,
        interests: mio::Interest,
    ) -> io::Result<()> {
        SourceFd(&self.0.as_raw_fd()).reregister(registry, token, interests)
    }

    fn deregister(&mut self, registry: &mio::Registry) -> io::Result<()> {
        SourceFd(&self.0.as_raw_fd()).deregister(registry)
    }
}

impl AsRawFd for PipeEnd {
    fn as_raw_fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}

impl Read for &PipeEnd {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&self.0).read(buf)
    }

    fn read_vectored(&mut self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        (&self.0).read_vectored(bufs)
    }
}

impl Write for &PipeEnd {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        (&self.0).write(buf)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        (&self.0).write_vectored(bufs)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Deregisters `io` and hands back its fd, in blocking mode or not.
fn into_fd(io: PollEvented<PipeEnd>, nonblocking: bool) -> io::Result<OwnedFd> {
    let fd = OwnedFd::from(io.into_inner()?.0);
    set_nonblocking(fd.as_fd(), nonblocking)?;
    Ok(fd)
}

/// The writing end of a pipe (tokio's `pipe::Sender`): `AsyncWrite`, and the readiness and
/// `try_*` methods of a socket.
#[derive(Debug)]
pub struct Sender {
    io: PollEvented<PipeEnd>,
}

impl Sender {
    /// The writing end in `file`, after checking it is a pipe open for writing; made
    /// non-blocking here.
    ///
    /// # Panics
    /// Outside an rt runtime.
    #[track_caller]
    pub fn from_file(file: File) -> io::Result<Sender> {
        Sender::from_owned_fd(file.into())
    }

    /// [`Sender::from_file`] for an `OwnedFd`.
    #[track_caller]
    pub fn from_owned_fd(owned_fd: OwnedFd) -> io::Result<Sender> {
        Sender::from_owned_fd_unchecked(checked(owned_fd, true)?)
    }

    /// The writing end in `file`, unchecked: it must be open for writing and non-blocking.
    #[track_caller]
    pub fn from_file_unchecked(file: File) -> io::Result<Sender> {
        Ok(Sender {
            io: PollEvented::with_interest(PipeEnd(file), Interest::WRITABLE)?,
        })
    }

    /// [`Sender::from_file_unchecked`] for an `OwnedFd`.
    #[track_caller]
    pub fn from_owned_fd_unchecked(owned_fd: OwnedFd) -> io::Result<Sender> {
        Sender::from_file_unchecked(File::from(owned_fd))
    }

    /// Waits until the pipe is ready for any of `interest` (writable, or the reader gone).
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        Ok(self.io.registration().ready(interest).await?.ready)
    }

    /// Waits until a write may succeed.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn writable(&self) -> io::Result<()> {
        self.ready(Interest::WRITABLE).await.map(drop)
    }

    /// Polls for write readiness; only the task that polled last is woken.
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io
            .registration()
            .poll_ready(cx, Direction::Write)
            .map_ok(drop)
    }

    /// Writes what fits without waiting; `WouldBlock` when the pipe is full.
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        let mut end = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::WRITABLE, || end.write(buf))
    }

    /// [`Sender::try_write`] from several buffers (one `writev`).
    pub fn try_write_vectored(&self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        let mut end = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::WRITABLE, || end.write_vectored(bufs))
    }

    /// Runs `f` if the pipe is writable, clearing the readiness when `f` returns
    /// `WouldBlock`.
    pub fn try_io<R>(&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
        self.io.registration().try_io(Interest::WRITABLE, f)
    }

    /// Deregisters the end and returns its fd in blocking mode.
    pub fn into_blocking_fd(self) -> io::Result<OwnedFd> {
        into_fd(self.io, false)
    }

    /// Deregisters the end and returns its fd, still non-blocking.
    pub fn into_nonblocking_fd(self) -> io::Result<OwnedFd> {
        into_fd(self.io, true)
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
        let mut end = self.io.get_ref();
        self.io.poll_write_io(cx, || end.write_vectored(bufs))
    }

    /// A pipe has no half-close: shutting the sender down does nothing (drop it to close).
    pub(crate) fn shutdown_write_priv(&self) -> io::Result<()> {
        Ok(())
    }
}

impl_stream_write!([] Sender, s => s);

impl AsRawFd for Sender {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

impl AsFd for Sender {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().0.as_fd()
    }
}

/// The reading end of a pipe (tokio's `pipe::Receiver`): `AsyncRead`, and the readiness and
/// `try_*` methods of a socket.
#[derive(Debug)]
pub struct Receiver {
    io: PollEvented<PipeEnd>,
}

impl Receiver {
    /// The reading end in `file`, after checking it is a pipe open for reading; made
    /// non-blocking here.
    ///
    /// # Panics
    /// Outside an rt runtime.
    #[track_caller]
    pub fn from_file(file: File) -> io::Result<Receiver> {
        Receiver::from_owned_fd(file.into())
    }

    /// [`Receiver::from_file`] for an `OwnedFd`.
    #[track_caller]
    pub fn from_owned_fd(owned_fd: OwnedFd) -> io::Result<Receiver> {
        Receiver::from_owned_fd_unchecked(checked(owned_fd, false)?)
    }

    /// The reading end in `file`, unchecked: it must be open for reading and non-blocking.
    #[track_caller]
    pub fn from_file_unchecked(file: File) -> io::Result<Receiver> {
        Ok(Receiver {
            io: PollEvented::with_interest(PipeEnd(file), Interest::READABLE)?,
        })
    }

    /// [`Receiver::from_file_unchecked`] for an `OwnedFd`.
    #[track_caller]
    pub fn from_owned_fd_unchecked(owned_fd: OwnedFd) -> io::Result<Receiver> {
        Receiver::from_file_unchecked(File::from(owned_fd))
    }

    /// Waits until the pipe is ready for any of `interest` (data, or the writers gone).
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        Ok(self.io.registration().ready(interest).await?.ready)
    }

    /// Waits until a read may succeed.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn readable(&self) -> io::Result<()> {
        self.ready(Interest::READABLE).await.map(drop)
    }

    /// Polls for read readiness; only the task that polled last is woken.
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io
            .registration()
            .poll_ready(cx, Direction::Read)
            .map_ok(drop)
    }

    /// Reads what is there without waiting; `WouldBlock` when the pipe is empty, `Ok(0)` at
    /// the end of the stream.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        let mut end = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::READABLE, || end.read(buf))
    }

    /// [`Receiver::try_read`] into several buffers (one `readv`).
    pub fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        let mut end = self.io.get_ref();
        self.io
            .registration()
            .try_io(Interest::READABLE, || end.read_vectored(bufs))
    }

    /// [`Receiver::try_read`] into a `BufMut`'s spare capacity, advancing it.
    pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        let fd = self.io.get_ref().as_raw_fd();
        self.io.registration().try_io(Interest::READABLE, || {
            let dst = buf.chunk_mut();
            // SAFETY: `read` only writes to the memory, so uninitialised bytes are fine, and
            // the length is the chunk's.
            let n = cvt(unsafe { libc::read(fd, dst.as_mut_ptr().cast(), dst.len()) })? as usize;
            // SAFETY: the kernel initialised the first `n` bytes of the chunk.
            unsafe { buf.advance_mut(n) };
            Ok(n)
        })
    }

    /// Runs `f` if the pipe is readable, clearing the readiness when `f` returns
    /// `WouldBlock`.
    pub fn try_io<R>(&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
        self.io.registration().try_io(Interest::READABLE, f)
    }

    /// Deregisters the end and returns its fd in blocking mode.
    pub fn into_blocking_fd(self) -> io::Result<OwnedFd> {
        into_fd(self.io, false)
    }

    /// Deregisters the end and returns its fd, still non-blocking.
    pub fn into_nonblocking_fd(self) -> io::Result<OwnedFd> {
        into_fd(self.io, true)
    }

    pub(crate) fn poll_read_priv(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_read(cx, buf)
    }
}

impl_stream_read!([] Receiver, s => s);

impl AsRawFd for Receiver {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

impl AsFd for Receiver {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().0.as_fd()
    }
}
