//! [`UnixSocket`]: a Unix-domain socket before it listens, connects or becomes a datagram
//! socket, for binding it (to a path or an abstract name) first.

use std::io;
use std::mem;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::net::unix::{UnixDatagram, UnixListener, UnixStream};
use crate::syscall::cvt;

/// An unbound, unconnected Unix-domain socket (tokio's `UnixSocket`): a stream socket becomes
/// a [`UnixListener`] or a [`UnixStream`], a datagram socket a [`UnixDatagram`].
///
/// ```no_run
/// # async fn demo() -> std::io::Result<()> {
/// let socket = rt_io::net::UnixSocket::new_stream()?;
/// socket.bind("/tmp/client.sock")?;
/// let stream = socket.connect("/tmp/server.sock").await?;
/// # let _ = stream; Ok(()) }
/// ```
#[derive(Debug)]
pub struct UnixSocket {
    fd: OwnedFd,
}

impl UnixSocket {
    /// A new datagram socket.
    pub fn new_datagram() -> io::Result<UnixSocket> {
        UnixSocket::new(libc::SOCK_DGRAM)
    }

    /// A new stream socket.
    pub fn new_stream() -> io::Result<UnixSocket> {
        UnixSocket::new(libc::SOCK_STREAM)
    }

    fn new(ty: libc::c_int) -> io::Result<UnixSocket> {
        let ty = ty | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC;
        // SAFETY: `socket` takes no pointers; any argument values are sound.
        let fd = cvt(unsafe { libc::socket(libc::AF_UNIX, ty, 0) })?;
        // SAFETY: `fd` was just returned by `socket` and is owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(UnixSocket { fd })
    }

    /// `SO_TYPE`: `SOCK_STREAM` or `SOCK_DGRAM`.
    fn ty(&self) -> io::Result<libc::c_int> {
        crate::net::raw_socket::int_opt(self, libc::SOL_SOCKET, libc::SO_TYPE)
    }

    /// Binds the socket to `path`: a socket file, or, when `path` starts with a NUL byte, a
    /// Linux abstract name (the rest of the path).
    pub fn bind(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let (addr, len) = sockaddr_un(path.as_ref())?;
        // SAFETY: `addr` is a valid `sockaddr_un` of `len` bytes, live for the whole call.
        cvt(unsafe {
            libc::bind(
                self.fd.as_raw_fd(),
                (&addr as *const libc::sockaddr_un).cast(),
                len,
            )
        })?;
        Ok(())
    }

    /// Listens with room for `backlog` pending connections. An error for a datagram socket.
    pub fn listen(self, backlog: u32) -> io::Result<UnixListener> {
        if self.ty()? == libc::SOCK_DGRAM {
            return Err(io::Error::other(
                "listen cannot be called on a datagram socket",
            ));
        }
        crate::net::raw_socket::listen(&self, backlog)?;
        UnixListener::from_std(std::os::unix::net::UnixListener::from(self.fd))
    }

    /// Connects to `path` (a socket file, or an abstract name as in [`UnixSocket::bind`]). An
    /// error for a datagram socket (connect the [`UnixDatagram`] instead).
    pub async fn connect(self, path: impl AsRef<Path>) -> io::Result<UnixStream> {
        if self.ty()? == libc::SOCK_DGRAM {
            return Err(io::Error::other(
                "connect cannot be called on a datagram socket",
            ));
        }
        let (addr, len) = sockaddr_un(path.as_ref())?;
        // SAFETY: `addr` is a valid `sockaddr_un` of `len` bytes, live for the whole call.
        let r = cvt(unsafe {
            libc::connect(
                self.fd.as_raw_fd(),
                (&addr as *const libc::sockaddr_un).cast(),
                len,
            )
        });
        match r {
            Err(e) if e.raw_os_error() != Some(libc::EINPROGRESS) => return Err(e),
            _ => {}
        }
        let std = std::os::unix::net::UnixStream::from(self.fd);
        UnixStream::finish_connect(mio::net::UnixStream::from_std(std)).await
    }

    /// The socket as a [`UnixDatagram`]. An error for a stream socket.
    pub fn datagram(self) -> io::Result<UnixDatagram> {
        if self.ty()? == libc::SOCK_STREAM {
            return Err(io::Error::other(
                "datagram cannot be called on a stream socket",
            ));
        }
        UnixDatagram::from_std(std::os::unix::net::UnixDatagram::from(self.fd))
    }
}

/// `connect(2)` of `fd` to `path` (a socket file or an abstract name).
pub(super) fn connect_path(fd: RawFd, path: &Path) -> io::Result<()> {
    let (addr, len) = sockaddr_un(path)?;
    // SAFETY: `addr` is a valid `sockaddr_un` of `len` bytes, live for the whole call.
    cvt(unsafe { libc::connect(fd, (&addr as *const libc::sockaddr_un).cast(), len) })?;
    Ok(())
}

/// `sendto(2)` of `buf` from `fd` to `path` (a socket file or an abstract name).
pub(super) fn send_to_path(fd: RawFd, buf: &[u8], path: &Path) -> io::Result<usize> {
    let (addr, len) = sockaddr_un(path)?;
    // SAFETY: `buf` is readable for its length and `addr` a valid `sockaddr_un` of `len`
    // bytes, both live for the whole call.
    let n = cvt(unsafe {
        libc::sendto(
            fd,
            buf.as_ptr().cast(),
            buf.len(),
            libc::MSG_NOSIGNAL,
            (&addr as *const libc::sockaddr_un).cast(),
            len,
        )
    })?;
    Ok(n as usize)
}

/// `path` as a `sockaddr_un` and its length: a path of the file system (NUL-terminated), or
/// an abstract name when it starts with a NUL byte (exactly its bytes, leading NUL included).
fn sockaddr_un(path: &Path) -> io::Result<(libc::sockaddr_un, libc::socklen_t)> {
    // SAFETY: all-zero is a valid `sockaddr_un`.
    let mut addr: libc::sockaddr_un = unsafe { mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let bytes = path.as_os_str().as_bytes();
    let is_abstract = bytes.first() == Some(&0);
    if !is_abstract && bytes.contains(&0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "paths must not contain interior null bytes",
        ));
    }
    // A file path needs room for its terminating NUL; an abstract name does not.
    let room = addr.sun_path.len() - usize::from(!is_abstract);
    if bytes.len() > room {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "path must be shorter than SUN_LEN",
        ));
    }
    for (dst, src) in addr.sun_path.iter_mut().zip(bytes) {
        *dst = *src as libc::c_char;
    }
    let base = mem::offset_of!(libc::sockaddr_un, sun_path);
    let len = base + bytes.len() + usize::from(!is_abstract && !bytes.is_empty());
    Ok((addr, len as libc::socklen_t))
}

impl AsRawFd for UnixSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

impl AsFd for UnixSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl FromRawFd for UnixSocket {
    /// # Safety
    /// `fd` must be an open Unix-domain socket that nothing else owns.
    unsafe fn from_raw_fd(fd: RawFd) -> UnixSocket {
        UnixSocket {
            // SAFETY: the caller hands over an open socket that nothing else owns.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        }
    }
}

impl IntoRawFd for UnixSocket {
    fn into_raw_fd(self) -> RawFd {
        self.fd.into_raw_fd()
    }
}
