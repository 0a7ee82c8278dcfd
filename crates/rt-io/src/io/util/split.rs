//! [`split`]: the read and write halves of one stream, usable from two tasks.

use std::fmt;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use super::{AsyncRead, AsyncWrite, ReadBuf};

/// Splits a stream into a read half and a write half, each usable on its own (and from
/// different tasks): the halves share the stream behind a lock, taken for the span of each
/// poll. [`ReadHalf::unsplit`] puts them back together.
///
/// For rt's sockets prefer their own `split` / `into_split`, which need no lock.
pub fn split<T>(stream: T) -> (ReadHalf<T>, WriteHalf<T>)
where
    T: AsyncRead + AsyncWrite,
{
    let inner = Arc::new(Inner {
        stream: Mutex::new(stream),
    });
    (
        ReadHalf {
            inner: inner.clone(),
        },
        WriteHalf { inner },
    )
}

struct Inner<T> {
    // Never moved while shared: the stream is only moved out by `unsplit`, which needs
    // `T: Unpin` and sole ownership of the `Arc`.
    stream: Mutex<T>,
}

impl<T> Inner<T> {
    fn lock(&self) -> MutexGuard<'_, T> {
        self.stream.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn with_lock<R>(&self, f: impl FnOnce(Pin<&mut T>) -> R) -> R {
        let mut guard = self.lock();
        // SAFETY: the stream lives in the `Arc`'s allocation and is never moved out of it while
        // pinned: only `unsplit` moves it, and that requires `T: Unpin`.
        let stream = unsafe { Pin::new_unchecked(&mut *guard) };
        f(stream)
    }
}

/// The read half of a stream split by [`split`].
pub struct ReadHalf<T> {
    inner: Arc<Inner<T>>,
}

/// The write half of a stream split by [`split`].
pub struct WriteHalf<T> {
    inner: Arc<Inner<T>>,
}

impl<T> ReadHalf<T> {
    /// Whether `other` is the write half split from the same stream.
    pub fn is_pair_of(&self, other: &WriteHalf<T>) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Puts the two halves back together.
    ///
    /// # Panics
    /// If `wr` is not this half's pair.
    #[track_caller]
    pub fn unsplit(self, wr: WriteHalf<T>) -> T
    where
        T: Unpin,
    {
        assert!(self.is_pair_of(&wr), "unrelated `split::Write` passed");
        drop(wr);
        let inner = Arc::try_unwrap(self.inner)
            .ok()
            .expect("`Arc::try_unwrap` failed");
        inner.stream.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

impl<T> WriteHalf<T> {
    /// Whether `other` is the read half split from the same stream.
    pub fn is_pair_of(&self, other: &ReadHalf<T>) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl<T: AsyncRead> AsyncRead for ReadHalf<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.inner.with_lock(|stream| stream.poll_read(cx, buf))
    }
}

impl<T: AsyncWrite> AsyncWrite for WriteHalf<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.inner.with_lock(|stream| stream.poll_write(cx, buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.inner
            .with_lock(|stream| stream.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.lock().is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.inner.with_lock(|stream| stream.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.inner.with_lock(|stream| stream.poll_shutdown(cx))
    }
}

// SAFETY: the halves reach the stream only through the `Mutex`, one at a time, so sharing or
// sending a half is sharing or sending access to a `Mutex<T>`, which needs only `T: Send`.
unsafe impl<T: Send> Send for ReadHalf<T> {}
// SAFETY: as for `ReadHalf`.
unsafe impl<T: Send> Send for WriteHalf<T> {}
// SAFETY: a `&ReadHalf` allows nothing on the stream; every access goes through the `Mutex`.
unsafe impl<T: Send> Sync for ReadHalf<T> {}
// SAFETY: a `&WriteHalf` reaches the stream only through the `Mutex` (`is_write_vectored`).
unsafe impl<T: Send> Sync for WriteHalf<T> {}

impl<T: fmt::Debug> fmt::Debug for ReadHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::ReadHalf").finish()
    }
}

impl<T: fmt::Debug> fmt::Debug for WriteHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::WriteHalf").finish()
    }
}
