//! The child's standard streams on our side: non-blocking pipe ends registered with the
//! reactor ([`rt_io::io::AsyncFd`]), with tokio's and futures-io's `AsyncRead`/`AsyncWrite`.

use std::fmt;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use rt_io::io::{AsyncFd, Interest};
use rt_io::syscall::cvt;

/// One pipe end. A `File` only so that `read`/`write` on it need no `unsafe`.
struct Pipe {
    fd: AsyncFd<File>,
}

impl Pipe {
    fn new(fd: OwnedFd, interest: Interest) -> io::Result<Pipe> {
        set_nonblocking(fd.as_raw_fd())?;
        Ok(Pipe {
            fd: AsyncFd::with_interest(File::from(fd), interest)?,
        })
    }

    fn poll_read(&self, cx: &mut Context<'_>, dst: &mut [u8]) -> Poll<io::Result<usize>> {
        loop {
            let mut guard = ready!(self.fd.poll_read_ready(cx))?;
            if let Ok(res) = guard.try_io(|fd| (&mut fd.get_ref()).read(dst)) {
                return Poll::Ready(res);
            }
        }
    }

    fn poll_write(&self, cx: &mut Context<'_>, src: &[u8]) -> Poll<io::Result<usize>> {
        loop {
            let mut guard = ready!(self.fd.poll_write_ready(cx))?;
            if let Ok(res) = guard.try_io(|fd| (&mut fd.get_ref()).write(src)) {
                return Poll::Ready(res);
            }
        }
    }
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: `fd` is an open descriptor owned by the caller; F_GETFL/F_SETFL only change its
    // status flags.
    let flags = cvt(unsafe { libc::fcntl(fd, libc::F_GETFL) })?;
    // SAFETY: as above.
    cvt(unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) })?;
    Ok(())
}

macro_rules! reader {
    ($(#[$doc:meta])* $name:ident, $std:ty) => {
        $(#[$doc])*
        pub struct $name(Pipe);

        impl $name {
            pub(crate) fn from_std_child(s: $std) -> io::Result<$name> {
                Pipe::new(OwnedFd::from(s), Interest::READABLE).map($name)
            }

            /// Deregisters the pipe and returns its fd (still non-blocking).
            pub fn into_owned_fd(self) -> OwnedFd {
                OwnedFd::from(self.0.fd.into_inner())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.0.fd.as_raw_fd()).finish()
            }
        }

        impl AsRawFd for $name {
            fn as_raw_fd(&self) -> RawFd {
                self.0.fd.as_raw_fd()
            }
        }

        impl AsFd for $name {
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.0.fd.get_ref().as_fd()
            }
        }

        impl crate::io::AsyncRead for $name {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut crate::io::ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                let n = ready!(self.0.poll_read(cx, buf.initialize_unfilled()))?;
                buf.advance(n);
                Poll::Ready(Ok(()))
            }
        }

        impl futures_io::AsyncRead for $name {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                dst: &mut [u8],
            ) -> Poll<io::Result<usize>> {
                self.0.poll_read(cx, dst)
            }
        }
    };
}

reader!(
    /// The child's standard output (`Child::stdout` with `Stdio::piped()`).
    ChildStdout,
    std::process::ChildStdout
);
reader!(
    /// The child's standard error (`Child::stderr` with `Stdio::piped()`).
    ChildStderr,
    std::process::ChildStderr
);

/// The child's standard input (`Child::stdin` with `Stdio::piped()`). Drop it to close the
/// pipe (the child then reads end-of-file); `shutdown` does not close it (as with tokio).
pub struct ChildStdin(Pipe);

impl ChildStdin {
    pub(crate) fn from_std_child(s: std::process::ChildStdin) -> io::Result<ChildStdin> {
        Pipe::new(OwnedFd::from(s), Interest::WRITABLE).map(ChildStdin)
    }

    /// Deregisters the pipe and returns its fd (still non-blocking).
    pub fn into_owned_fd(self) -> OwnedFd {
        OwnedFd::from(self.0.fd.into_inner())
    }
}

impl fmt::Debug for ChildStdin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ChildStdin")
            .field(&self.0.fd.as_raw_fd())
            .finish()
    }
}

impl AsRawFd for ChildStdin {
    fn as_raw_fd(&self) -> RawFd {
        self.0.fd.as_raw_fd()
    }
}

impl AsFd for ChildStdin {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.0.fd.get_ref().as_fd()
    }
}

impl crate::io::AsyncWrite for ChildStdin {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.0.poll_write(cx, src)
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl futures_io::AsyncWrite for ChildStdin {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.0.poll_write(cx, src)
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Reads `pipe` to its end (for `wait_with_output`).
pub(crate) async fn read_to_end<R: crate::io::AsyncRead + Unpin>(
    pipe: Option<R>,
) -> io::Result<Vec<u8>> {
    use crate::io::AsyncReadExt;
    let mut out = Vec::new();
    if let Some(mut p) = pipe {
        p.read_to_end(&mut out).await?;
    }
    Ok(out)
}
