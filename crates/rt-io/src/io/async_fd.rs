//! [`AsyncFd`]: readiness for any file descriptor the caller does its own IO on, with tokio's
//! `tokio::io::unix::AsyncFd` API (the facade re-exports it as `rt::io::unix`).

use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::task::{ready, Context, Poll};

use mio::unix::SourceFd;

use crate::handle::Handle;
use crate::readiness::{Interest, Ready};
use crate::registration::Registration;
use crate::scheduled_io::{Direction, ReadyEvent};

/// A file descriptor registered with the reactor. The fd must be in non-blocking mode; the
/// caller does the IO, `AsyncFd` says when to try.
///
/// ```no_run
/// # async fn demo(fd: rt_io::io::AsyncFd<std::os::unix::net::UnixStream>) -> std::io::Result<()> {
/// use std::io::Read;
/// let mut buf = [0; 64];
/// let n = loop {
///     let mut guard = fd.readable().await?;
///     match guard.try_io(|fd| fd.get_ref().read(&mut buf)) {
///         Ok(result) => break result?,
///         Err(_would_block) => continue, // readiness was cleared; wait again
///     }
/// };
/// # let _ = n; Ok(()) }
/// ```
pub struct AsyncFd<T: AsRawFd> {
    /// `None` only during `into_inner` and `drop`.
    inner: Option<T>,
    registration: Registration,
}

impl<T: AsRawFd> AsyncFd<T> {
    /// Registers `inner` for reading and writing with the current reactor.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime.
    #[track_caller]
    pub fn new(inner: T) -> io::Result<AsyncFd<T>> {
        AsyncFd::with_interest(inner, Interest::READABLE | Interest::WRITABLE)
    }

    /// Registers `inner` for `interest` with the current reactor.
    #[track_caller]
    pub fn with_interest(inner: T, interest: Interest) -> io::Result<AsyncFd<T>> {
        AsyncFd::try_with_interest(inner, interest).map_err(io::Error::from)
    }

    /// Registers `inner` for reading and writing with the current reactor, handing it back
    /// when registering fails (tokio 1.5x's constructor; [`AsyncFd::new`] is the same without
    /// the `unsafe` contract).
    ///
    /// # Safety
    ///
    /// `inner.as_raw_fd()` must be an open file descriptor that stays open, refers to the same
    /// open file description and is returned by every `as_raw_fd` call until the `AsyncFd` is
    /// dropped, forgotten or taken apart by [`AsyncFd::into_inner`]: the reactor deregisters
    /// that fd then, and an fd closed or reused in between would deregister someone else's.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime.
    #[track_caller]
    pub unsafe fn register(inner: T) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        AsyncFd::try_with_interest(inner, Interest::READABLE | Interest::WRITABLE)
    }

    /// [`AsyncFd::register`] for `interest`.
    ///
    /// # Safety
    ///
    /// As [`AsyncFd::register`].
    ///
    /// # Panics
    ///
    /// Outside an rt runtime.
    #[track_caller]
    pub unsafe fn register_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        AsyncFd::try_with_interest(inner, interest)
    }

    /// [`AsyncFd::new`] that hands `inner` back when registering fails.
    #[track_caller]
    pub fn try_new(inner: T) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        AsyncFd::try_with_interest(inner, Interest::READABLE | Interest::WRITABLE)
    }

    /// [`AsyncFd::with_interest`] that hands `inner` back when registering fails.
    #[track_caller]
    pub fn try_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        let handle = Handle::current_for_io();
        let fd = inner.as_raw_fd();
        match Registration::new(&mut SourceFd(&fd), fd, interest, handle) {
            Ok(registration) => Ok(AsyncFd {
                inner: Some(inner),
                registration,
            }),
            Err(cause) => Err(AsyncFdRegisterError { inner, cause }),
        }
    }

    /// The wrapped value.
    pub fn get_ref(&self) -> &T {
        self.inner.as_ref().expect("AsyncFd without its value")
    }

    /// The wrapped value, mutably.
    pub fn get_mut(&mut self) -> &mut T {
        self.inner.as_mut().expect("AsyncFd without its value")
    }

    /// Deregisters the fd and returns the value.
    pub fn into_inner(mut self) -> T {
        let inner = self.inner.take().expect("AsyncFd without its value");
        let fd = inner.as_raw_fd();
        // Fails only when the reactor is gone, and then nothing will be delivered anyway.
        let _ = self.registration.deregister(&mut SourceFd(&fd));
        inner
    }

    /// Waits until the fd is readable (or closed, or in error).
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn readable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        self.ready(Interest::READABLE).await
    }

    /// Waits until the fd is writable (or closed, or in error).
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn writable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        self.ready(Interest::WRITABLE).await
    }

    /// Polls for read readiness (tokio's `poll_read_ready`), for `AsyncRead` impls over an fd.
    /// Only the last task to poll is woken (one waker slot per direction), as with tokio.
    pub fn poll_read_ready<'a>(
        &'a self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        self.poll_ready_in(cx, Direction::Read)
    }

    /// Polls for write readiness (tokio's `poll_write_ready`), for `AsyncWrite` impls over an
    /// fd. Only the last task to poll is woken.
    pub fn poll_write_ready<'a>(
        &'a self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        self.poll_ready_in(cx, Direction::Write)
    }

    /// [`AsyncFd::poll_read_ready`] with a guard that lends the value mutably.
    pub fn poll_read_ready_mut<'a>(
        &'a mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        let event = ready!(self.registration.poll_ready(cx, Direction::Read))?;
        Poll::Ready(Ok(AsyncFdReadyMutGuard {
            fd: self,
            event: Some(event),
        }))
    }

    /// [`AsyncFd::poll_write_ready`] with a guard that lends the value mutably.
    pub fn poll_write_ready_mut<'a>(
        &'a mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        let event = ready!(self.registration.poll_ready(cx, Direction::Write))?;
        Poll::Ready(Ok(AsyncFdReadyMutGuard {
            fd: self,
            event: Some(event),
        }))
    }

    fn poll_ready_in<'a>(
        &'a self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        let event = ready!(self.registration.poll_ready(cx, direction))?;
        Poll::Ready(Ok(AsyncFdReadyGuard {
            fd: self,
            event: Some(event),
        }))
    }

    /// Waits until the fd is ready for any of `interest`.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn ready(&self, interest: Interest) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let event = self.registration.ready(interest).await?;
        Ok(AsyncFdReadyGuard {
            fd: self,
            event: Some(event),
        })
    }

    /// [`AsyncFd::ready`] with a guard that lends the value mutably (for IO that needs
    /// `&mut T`, such as `Read` on a `File`).
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn ready_mut(
        &mut self,
        interest: Interest,
    ) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        let event = self.registration.ready(interest).await?;
        Ok(AsyncFdReadyMutGuard {
            fd: self,
            event: Some(event),
        })
    }

    /// [`AsyncFd::readable`] with a guard that lends the value mutably.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn readable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        self.ready_mut(Interest::READABLE).await
    }

    /// [`AsyncFd::writable`] with a guard that lends the value mutably.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn writable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        self.ready_mut(Interest::WRITABLE).await
    }

    /// Waits for `interest`, runs `f`, and repeats while `f` returns `WouldBlock` (clearing the
    /// readiness each time): the whole edge-triggered loop in one call.
    ///
    /// # Cancel safety
    /// Cancel safe if `f` is: when cancelled, `f` is not running.
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        mut f: impl FnMut(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        let inner = self.get_ref();
        self.registration.async_io(interest, || f(inner)).await
    }

    /// One attempt without waiting: runs `f` if the readiness word says `interest` is ready,
    /// else returns `WouldBlock` without calling it; a `WouldBlock` from `f` clears the
    /// readiness it saw.
    pub fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        let inner = self.get_ref();
        self.registration.try_io(interest, || f(inner))
    }

    /// [`AsyncFd::try_io`] with the value lent mutably.
    pub fn try_io_mut<R>(
        &mut self,
        interest: Interest,
        f: impl FnOnce(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        let inner = self.inner.as_mut().expect("AsyncFd without its value");
        self.registration.try_io(interest, || f(inner))
    }

    /// [`AsyncFd::async_io`] with the value lent mutably.
    ///
    /// # Cancel safety
    /// As [`AsyncFd::async_io`].
    pub async fn async_io_mut<R>(
        &mut self,
        interest: Interest,
        mut f: impl FnMut(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        let inner = self.inner.as_mut().expect("AsyncFd without its value");
        self.registration.async_io(interest, || f(inner)).await
    }
}

/// [`AsyncFd::register`] (or `register_with_interest`, `try_new`, `try_with_interest`) failed:
/// the value, and why.
pub struct AsyncFdRegisterError<T> {
    inner: T,
    cause: io::Error,
}

/// The older name of [`AsyncFdRegisterError`].
pub type AsyncFdTryNewError<T> = AsyncFdRegisterError<T>;

impl<T> AsyncFdRegisterError<T> {
    /// The value that was to be registered, and the error registering it.
    pub fn into_parts(self) -> (T, io::Error) {
        (self.inner, self.cause)
    }
}

impl<T> fmt::Display for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.cause, f)
    }
}

impl<T> fmt::Debug for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.cause, f)
    }
}

impl<T> std::error::Error for AsyncFdRegisterError<T> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.cause)
    }
}

impl<T> From<AsyncFdRegisterError<T>> for io::Error {
    fn from(e: AsyncFdTryNewError<T>) -> io::Error {
        e.cause
    }
}

impl<T: AsRawFd> AsRawFd for AsyncFd<T> {
    fn as_raw_fd(&self) -> RawFd {
        self.get_ref().as_raw_fd()
    }
}

impl<T: AsRawFd> Drop for AsyncFd<T> {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            let fd = inner.as_raw_fd();
            let _ = self.registration.deregister(&mut SourceFd(&fd));
        }
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFd<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFd")
            .field("inner", &self.inner)
            .finish()
    }
}

/// The readiness half of both guards (they differ only in how they lend the fd): `ready`,
/// `clear_ready`, `clear_ready_matching`, `retain_ready`, over fields `fd` and `event`.
macro_rules! guard_readiness {
    ($guard:ident) => {
        impl<T: AsRawFd> $guard<'_, T> {
            /// The readiness that completed the wait (empty once cleared).
            pub fn ready(&self) -> Ready {
                self.event.map_or(Ready::EMPTY, |e| e.ready)
            }

            /// Forgets the readiness: the next wait waits for a new event. Call it after
            /// `WouldBlock`.
            pub fn clear_ready(&mut self) {
                if let Some(ev) = self.event.take() {
                    self.fd.registration.clear_readiness(ev);
                }
            }

            /// Forgets only the bits of `ready` (e.g. `Ready::READABLE` when a read blocked but
            /// a write may still go through); the rest stays observed.
            pub fn clear_ready_matching(&mut self, ready: Ready) {
                if let Some(ev) = self.event {
                    self.fd.registration.clear_readiness(ev.with_ready(ready));
                    let left = ev.ready - ready;
                    self.event = (!left.is_empty()).then(|| ev.with_ready(left));
                }
            }

            /// Keeps the readiness: the next wait completes at once.
            pub fn retain_ready(&mut self) {
                self.event = None;
            }
        }
    };
}

/// Readiness observed by [`AsyncFd::readable`] / [`AsyncFd::writable`]. Clear it when the IO
/// returned `WouldBlock`, or use [`AsyncFdReadyGuard::try_io`], which does so.
pub struct AsyncFdReadyGuard<'a, T: AsRawFd> {
    fd: &'a AsyncFd<T>,
    /// `None` once cleared or retained.
    event: Option<ReadyEvent>,
}

/// The IO in [`AsyncFdReadyGuard::try_io`] would have blocked; the readiness was cleared.
#[derive(Debug)]
pub struct TryIoError(());

impl fmt::Display for TryIoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the operation would block; readiness cleared")
    }
}

impl std::error::Error for TryIoError {}

guard_readiness!(AsyncFdReadyGuard);

impl<'a, T: AsRawFd> AsyncFdReadyGuard<'a, T> {
    /// Runs `f`; if it returns `WouldBlock`, clears the readiness and returns `Err(TryIoError)`.
    pub fn try_io<R>(
        &mut self,
        f: impl FnOnce(&'a AsyncFd<T>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        match f(self.fd) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.clear_ready();
                Err(TryIoError(()))
            }
            r => Ok(r),
        }
    }

    /// The `AsyncFd` this guard belongs to.
    pub fn get_ref(&self) -> &'a AsyncFd<T> {
        self.fd
    }

    /// The wrapped value.
    pub fn get_inner(&self) -> &'a T {
        self.fd.get_ref()
    }
}

impl<T: AsRawFd> fmt::Debug for AsyncFdReadyGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFdReadyGuard")
            .field("fd", &self.fd.as_raw_fd())
            .field("ready", &self.ready())
            .finish()
    }
}

/// Readiness observed by [`AsyncFd::readable_mut`] / [`AsyncFd::writable_mut`] /
/// [`AsyncFd::ready_mut`]: [`AsyncFdReadyGuard`] with the value lent mutably.
pub struct AsyncFdReadyMutGuard<'a, T: AsRawFd> {
    fd: &'a mut AsyncFd<T>,
    /// `None` once cleared or retained.
    event: Option<ReadyEvent>,
}

guard_readiness!(AsyncFdReadyMutGuard);

impl<T: AsRawFd> AsyncFdReadyMutGuard<'_, T> {
    /// Runs `f`; if it returns `WouldBlock`, clears the readiness and returns `Err(TryIoError)`.
    pub fn try_io<R>(
        &mut self,
        f: impl FnOnce(&mut AsyncFd<T>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        match f(self.fd) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.clear_ready();
                Err(TryIoError(()))
            }
            r => Ok(r),
        }
    }

    /// The `AsyncFd` this guard belongs to.
    pub fn get_ref(&self) -> &AsyncFd<T> {
        self.fd
    }

    /// The `AsyncFd` this guard belongs to, mutably.
    pub fn get_mut(&mut self) -> &mut AsyncFd<T> {
        self.fd
    }

    /// The wrapped value.
    pub fn get_inner(&self) -> &T {
        self.fd.get_ref()
    }

    /// The wrapped value, mutably.
    pub fn get_inner_mut(&mut self) -> &mut T {
        self.fd.get_mut()
    }
}

impl<T: AsRawFd> fmt::Debug for AsyncFdReadyMutGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFdReadyMutGuard")
            .field("fd", &self.fd.as_raw_fd())
            .field("ready", &self.ready())
            .finish()
    }
}
