//! [`stdin`], [`stdout`], [`stderr`]: the process's standard streams, read and written on rt's
//! blocking pool (the std handles block; tokio's versions of these run on tokio's pool, so they
//! cannot be reused here).
//!
//! Each handle is a small state machine over one blocking operation at a time:
//!
//! - *Idle*: the std handle and a buffer are here. A read that finds buffered bytes copies
//!   them; otherwise it moves handle and buffer into a `spawn_blocking` closure that reads once.
//!   A write copies (up to 2 MiB of) the caller's bytes into the buffer, starts a closure that
//!   writes them all and flushes, and returns at once, as tokio's does.
//! - *Busy*: the closure owns handle and buffer; every poll first waits for it to hand them
//!   back. An error it met is returned by the next call (a write's error by the next write or
//!   flush).

use std::fmt;
use std::io::{self, Read, Write};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::task::JoinHandle;

/// The most bytes one blocking read or write moves (tokio's figure).
const MAX_BUF: usize = 2 * 1024 * 1024;

/// What a blocking operation owns while it runs, and hands back.
struct Idle<T> {
    inner: T,
    buf: Vec<u8>,
    /// Read position in `buf` (reads only).
    pos: usize,
    /// The error the last operation met, returned by the next call.
    err: Option<io::Error>,
    /// The last read returned 0 bytes: the next poll reports end of stream (once).
    eof: bool,
}

/// One blocking operation at a time on a std handle, on rt's blocking pool.
struct Blocking<T> {
    /// `Some` while idle.
    idle: Option<Idle<T>>,
    /// `Some` while an operation runs.
    busy: Option<JoinHandle<Idle<T>>>,
}

impl<T: Send + 'static> Blocking<T> {
    fn new(inner: T) -> Blocking<T> {
        Blocking {
            idle: Some(Idle {
                inner,
                buf: Vec::new(),
                pos: 0,
                err: None,
                eof: false,
            }),
            busy: None,
        }
    }

    /// Waits for the running operation, if any; then the handle is idle.
    fn poll_idle(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&mut Idle<T>>> {
        if let Some(h) = &mut self.busy {
            let res = ready!(Pin::new(h).poll(cx));
            self.busy = None;
            match res {
                Ok(idle) => self.idle = Some(idle),
                Err(e) => {
                    return Poll::Ready(Err(io::Error::other(format!(
                        "rt::io standard stream: its blocking operation failed ({e}); the \
                         handle is unusable, get a new one"
                    ))))
                }
            }
        }
        match &mut self.idle {
            Some(idle) => Poll::Ready(Ok(idle)),
            None => Poll::Ready(Err(io::Error::other(
                "rt::io standard stream: an earlier blocking operation failed; get a new handle",
            ))),
        }
    }

    /// Starts `op` on the blocking pool. `Err` ([`rt_io::shutdown_error`], as tokio's) when the
    /// current runtime's pool has shut down: the operation would be dropped unrun, and the
    /// handle stays idle.
    fn start(&mut self, op: impl FnOnce(&mut Idle<T>) + Send + 'static) -> io::Result<()> {
        if crate::context::with_current(|h| h.inner.blocking.is_shut_down()).unwrap_or(false) {
            return Err(rt_io::shutdown_error());
        }
        let mut idle = self.idle.take().expect("start called while busy");
        self.busy = Some(crate::spawn_blocking(move || {
            op(&mut idle);
            idle
        }));
        Ok(())
    }
}

impl<T: Read + Send + 'static> Blocking<T> {
    fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
        dst: &mut crate::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let idle = ready!(self.poll_idle(cx))?;
            if let Some(e) = idle.err.take() {
                return Poll::Ready(Err(e));
            }
            if idle.pos < idle.buf.len() {
                let n = (idle.buf.len() - idle.pos).min(dst.remaining());
                dst.put_slice(&idle.buf[idle.pos..idle.pos + n]);
                idle.pos += n;
                return Poll::Ready(Ok(()));
            }
            if std::mem::take(&mut idle.eof) || dst.remaining() == 0 {
                // The read we started returned 0 bytes: end of stream.
                return Poll::Ready(Ok(()));
            }
            let want = dst.remaining().min(MAX_BUF);
            if let Err(e) = self.start(move |idle| {
                idle.buf.resize(want, 0);
                idle.pos = 0;
                loop {
                    match idle.inner.read(&mut idle.buf) {
                        Ok(n) => {
                            idle.buf.truncate(n);
                            idle.eof = n == 0;
                            break;
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => {
                            idle.buf.clear();
                            idle.err = Some(e);
                            break;
                        }
                    }
                }
            }) {
                return Poll::Ready(Err(e));
            }
        }
    }
}

impl<T: Write + Send + 'static> Blocking<T> {
    fn poll_write(&mut self, cx: &mut Context<'_>, src: &[u8]) -> Poll<io::Result<usize>> {
        let idle = ready!(self.poll_idle(cx))?;
        if let Some(e) = idle.err.take() {
            return Poll::Ready(Err(e));
        }
        let n = src.len().min(MAX_BUF);
        idle.buf.clear();
        idle.buf.extend_from_slice(&src[..n]);
        let started = self.start(|idle| {
            if let Err(e) = idle
                .inner
                .write_all(&idle.buf)
                .and_then(|()| idle.inner.flush())
            {
                idle.err = Some(e);
            }
            idle.buf.clear();
        });
        Poll::Ready(started.map(|()| n))
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let idle = ready!(self.poll_idle(cx))?;
        match idle.err.take() {
            Some(e) => Poll::Ready(Err(e)),
            None => Poll::Ready(Ok(())),
        }
    }
}

use std::future::Future;

/// The process's standard input, read on rt's blocking pool. Made by [`stdin`].
pub struct Stdin {
    b: Blocking<io::Stdin>,
}

/// The process's standard output, written on rt's blocking pool. Made by [`stdout`].
pub struct Stdout {
    b: Blocking<io::Stdout>,
}

/// The process's standard error, written on rt's blocking pool. Made by [`stderr`].
pub struct Stderr {
    b: Blocking<io::Stderr>,
}

/// A handle to standard input. Reads run on the current runtime's blocking pool: poll it inside
/// an rt runtime.
///
/// As with tokio's, a read that has started cannot be cancelled: if its future is dropped, the
/// bytes it reads are kept for the next read on this handle, but are lost to other handles.
pub fn stdin() -> Stdin {
    Stdin {
        b: Blocking::new(io::stdin()),
    }
}

/// A handle to standard output. Each write is handed to the blocking pool and returns at once;
/// `flush` (or `shutdown`) waits for it and reports its error. Poll it inside an rt runtime.
pub fn stdout() -> Stdout {
    Stdout {
        b: Blocking::new(io::stdout()),
    }
}

/// A handle to standard error; see [`stdout`].
pub fn stderr() -> Stderr {
    Stderr {
        b: Blocking::new(io::stderr()),
    }
}

impl crate::io::AsyncRead for Stdin {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut crate::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.b.poll_read(cx, buf)
    }
}

impl futures_io::AsyncRead for Stdin {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let mut rb = crate::io::ReadBuf::new(buf);
        ready!(self.b.poll_read(cx, &mut rb))?;
        Poll::Ready(Ok(rb.filled().len()))
    }
}

macro_rules! stdio_write {
    ($ty:ty) => {
        impl crate::io::AsyncWrite for $ty {
            fn poll_write(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.b.poll_write(cx, buf)
            }

            fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.b.poll_flush(cx)
            }

            fn poll_shutdown(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
            ) -> Poll<io::Result<()>> {
                self.b.poll_flush(cx)
            }
        }

        impl futures_io::AsyncWrite for $ty {
            fn poll_write(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.b.poll_write(cx, buf)
            }

            fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.b.poll_flush(cx)
            }

            fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.b.poll_flush(cx)
            }
        }
    };
}

stdio_write!(Stdout);
stdio_write!(Stderr);

impl<T> fmt::Debug for Blocking<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Blocking")
            .field("busy", &self.busy.is_some())
            .finish()
    }
}

impl fmt::Debug for Stdin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stdin").field("state", &self.b).finish()
    }
}

impl fmt::Debug for Stdout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stdout").field("state", &self.b).finish()
    }
}

impl fmt::Debug for Stderr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stderr").field("state", &self.b).finish()
    }
}
