//! [`File`]: a std file whose reads, writes and seeks run on the blocking pool, with tokio's
//! buffering.
//!
//! The file is `Idle` (holding its buffer) or has one operation `Busy` on the pool (which took
//! the buffer with it). Who touches what:
//!
//! 1. A **read** serves bytes left in the buffer by the last read; when it is empty it sends the
//!    buffer to the pool to be filled (at most `dst.len()`, at most [`MAX_BUF`]) and returns
//!    `Pending` until that ends.
//! 2. A **write** copies from the caller into the buffer (at most [`MAX_BUF`]), sends it to the
//!    pool to be written in full, and returns `Ready(n)` at once: the write is *in flight*.
//!    The next operation waits for it first; its error is kept and returned by the next
//!    `write`, `flush`, `sync_all`, `sync_data` or `set_len` (as tokio does).
//! 3. **flush** waits for the operation in flight and reports its write error, if any.
//! 4. A **seek** (and a write, and `set_len`) after a read first gives back the bytes the read
//!    fetched ahead and the caller did not consume (`SeekFrom::Current(-unread)`), so the file
//!    position is where the caller thinks it is.
//!
//! Dropping a `File` with a write in flight lets the write finish on the pool (its error is
//! lost, as with tokio): call `flush` (or `sync_all`) to learn how it went.

use std::fmt;
use std::fs::{Metadata, Permissions};
use std::future::{poll_fn, Future};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use rt_core::sync::{Arc, Mutex};

use super::{asyncify, join_error, OpenOptions};
use crate::task::JoinHandle;

/// Most bytes one read or write moves through the pool (tokio's default, 2 MiB).
const MAX_BUF: usize = 2 * 1024 * 1024;

/// A file on the blocking pool, tokio's `fs::File`: `AsyncRead`/`AsyncWrite`/`AsyncSeek` of
/// both rt (tokio's shape) and futures-io.
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
/// # rt::Runtime::new()?.block_on(async {
/// let path = std::env::temp_dir().join(format!("rt-file-doc-{}", std::process::id()));
/// let mut f = rt::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true)
///     .open(&path).await?;
/// f.write_all(b"hello").await?;
/// f.flush().await?; // the write was in flight until here
/// f.seek(std::io::SeekFrom::Start(0)).await?;
/// let mut s = String::new();
/// f.read_to_string(&mut s).await?;
/// assert_eq!(s, "hello");
/// rt::fs::remove_file(&path).await?;
/// # Ok::<(), std::io::Error>(()) })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct File {
    std: Arc<std::fs::File>,
    inner: Mutex<Inner>,
}

struct Inner {
    state: State,
    /// The error of a write that ended while no call could report it (rule 2).
    last_write_err: Option<io::Error>,
    /// The position the last seek reached (what `AsyncSeek::poll_complete` reports).
    pos: u64,
    /// futures-io's `poll_seek` started a seek that has not completed.
    seeking: bool,
    /// The most one read or write moves through the pool (`File::set_max_buf_size`).
    max_buf_size: usize,
}

enum State {
    /// `None` only after the pool shut down under an operation (a fresh buffer is made).
    Idle(Option<Buf>),
    Busy(JoinHandle<(Operation, Buf)>),
}

enum Operation {
    Read(io::Result<usize>),
    Write(io::Result<()>),
    Seek(io::Result<u64>),
}

/// The bytes moving between the caller and the pool; `pos` is how many the caller consumed.
#[derive(Default)]
struct Buf {
    buf: Vec<u8>,
    pos: usize,
}

impl Buf {
    fn is_empty(&self) -> bool {
        self.pos == self.buf.len()
    }

    fn unread(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn copy_to(&mut self, dst: &mut [u8]) -> usize {
        let n = self.unread().min(dst.len());
        dst[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        if self.is_empty() {
            self.clear();
        }
        n
    }

    /// Copies the buffers of `src` in order, at most `max` bytes in all; returns how many.
    fn copy_from(&mut self, src: &[io::IoSlice<'_>], max: usize) -> usize {
        debug_assert!(self.is_empty());
        self.clear();
        let mut left = max;
        for s in src {
            if left == 0 {
                break;
            }
            let n = s.len().min(left);
            self.buf.extend_from_slice(&s[..n]);
            left -= n;
        }
        max - left
    }

    fn clear(&mut self) {
        self.buf.clear();
        self.pos = 0;
    }

    /// Drops the unread bytes; returns how far to seek back to un-read them (rule 4).
    fn discard_read(&mut self) -> i64 {
        let back = -(self.unread() as i64);
        self.clear();
        back
    }

    fn read_from(&mut self, f: &std::fs::File, max: usize) -> io::Result<usize> {
        self.clear();
        self.buf.resize(max, 0);
        let res = loop {
            match (&mut &*f).read(&mut self.buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => break r,
            }
        };
        self.buf.truncate(*res.as_ref().unwrap_or(&0));
        res
    }

    fn write_to(&mut self, f: &std::fs::File) -> io::Result<()> {
        let res = (&mut &*f).write_all(&self.buf[self.pos..]);
        self.clear();
        res
    }
}

impl State {
    fn take_idle(&mut self) -> Buf {
        match self {
            State::Idle(buf) => buf.take().unwrap_or_default(),
            State::Busy(_) => unreachable!("take_idle on a busy file"),
        }
    }
}

impl Inner {
    /// Waits for the operation in flight, if any; keeps its write error in `last_write_err`.
    fn poll_settle(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let State::Busy(h) = &mut self.state {
            let res = ready!(Pin::new(h).poll(cx));
            match res {
                Ok((op, buf)) => {
                    self.state = State::Idle(Some(buf));
                    match op {
                        Operation::Write(Err(e)) => self.last_write_err = Some(e),
                        Operation::Seek(Ok(pos)) => self.pos = pos,
                        Operation::Read(_) | Operation::Write(Ok(())) | Operation::Seek(_) => {}
                    }
                }
                Err(e) => {
                    self.state = State::Idle(None);
                    return Poll::Ready(Err(join_error(e)));
                }
            }
        }
        Poll::Ready(Ok(()))
    }

    /// Rule 3: waits for the operation in flight and reports a write error.
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_settle(cx))?;
        match self.last_write_err.take() {
            Some(e) => Poll::Ready(Err(e)),
            None => Poll::Ready(Ok(())),
        }
    }

    fn poll_read(
        &mut self,
        std: &Arc<std::fs::File>,
        cx: &mut Context<'_>,
        dst: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            match &mut self.state {
                State::Idle(slot) => {
                    let mut buf = slot.take().unwrap_or_default();
                    if !buf.is_empty() || dst.is_empty() {
                        let n = buf.copy_to(dst);
                        *slot = Some(buf);
                        return Poll::Ready(Ok(n));
                    }
                    let max = dst.len().min(self.max_buf_size);
                    let std = std.clone();
                    self.state = State::Busy(crate::spawn_blocking(move || {
                        let res = buf.read_from(&std, max);
                        (Operation::Read(res), buf)
                    }));
                }
                State::Busy(h) => {
                    let res = ready!(Pin::new(h).poll(cx));
                    let (op, mut buf) = match res {
                        Ok(done) => done,
                        Err(e) => {
                            self.state = State::Idle(None);
                            return Poll::Ready(Err(join_error(e)));
                        }
                    };
                    match op {
                        Operation::Read(Ok(_)) => {
                            let n = buf.copy_to(dst);
                            self.state = State::Idle(Some(buf));
                            return Poll::Ready(Ok(n));
                        }
                        Operation::Read(Err(e)) => {
                            buf.clear();
                            self.state = State::Idle(Some(buf));
                            return Poll::Ready(Err(e));
                        }
                        Operation::Write(res) => {
                            if let Err(e) = res {
                                self.last_write_err = Some(e);
                            }
                            self.state = State::Idle(Some(buf));
                        }
                        Operation::Seek(res) => {
                            if let Ok(pos) = res {
                                self.pos = pos;
                            }
                            self.state = State::Idle(Some(buf));
                        }
                    }
                }
            }
        }
    }

    /// Starts writing `src` (all of its buffers, in order, up to `max_buf_size` bytes) on the
    /// blocking pool; returns how many bytes were taken.
    fn poll_write(
        &mut self,
        std: &Arc<std::fs::File>,
        cx: &mut Context<'_>,
        src: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if let Some(e) = self.last_write_err.take() {
            return Poll::Ready(Err(e));
        }
        ready!(self.poll_settle(cx))?;
        if let Some(e) = self.last_write_err.take() {
            return Poll::Ready(Err(e));
        }
        let mut buf = self.state.take_idle();
        let seek = (!buf.is_empty()).then(|| SeekFrom::Current(buf.discard_read()));
        let n = buf.copy_from(src, self.max_buf_size);
        let std = std.clone();
        self.state = State::Busy(crate::spawn_blocking(move || {
            let res = match seek {
                Some(seek) => (&*std).seek(seek).and_then(|_| buf.write_to(&std)),
                None => buf.write_to(&std),
            };
            (Operation::Write(res), buf)
        }));
        Poll::Ready(Ok(n))
    }

    fn start_seek(&mut self, std: &Arc<std::fs::File>, mut pos: SeekFrom) -> io::Result<()> {
        let State::Idle(_) = self.state else {
            return Err(io::Error::other(
                "another file operation is pending: call poll_complete before start_seek",
            ));
        };
        let mut buf = self.state.take_idle();
        if !buf.is_empty() {
            let back = buf.discard_read();
            if let SeekFrom::Current(off) = &mut pos {
                *off += back;
            }
        }
        let std = std.clone();
        self.state = State::Busy(crate::spawn_blocking(move || {
            let res = (&*std).seek(pos);
            (Operation::Seek(res), buf)
        }));
        Ok(())
    }

    fn poll_complete(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        loop {
            let State::Busy(h) = &mut self.state else {
                return Poll::Ready(Ok(self.pos));
            };
            let res = ready!(Pin::new(h).poll(cx));
            let (op, buf) = match res {
                Ok(done) => done,
                Err(e) => {
                    self.state = State::Idle(None);
                    return Poll::Ready(Err(join_error(e)));
                }
            };
            self.state = State::Idle(Some(buf));
            match op {
                Operation::Seek(res) => {
                    if let Ok(pos) = res {
                        self.pos = pos;
                    }
                    return Poll::Ready(res);
                }
                Operation::Write(Err(e)) => self.last_write_err = Some(e),
                Operation::Read(_) | Operation::Write(Ok(())) => {}
            }
        }
    }
}

impl File {
    /// Opens `path` for reading.
    pub async fn open(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new().read(true).open(path).await
    }

    /// Opens `path` for writing, creating it or truncating it.
    pub async fn create(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .await
    }

    /// Opens `path` for reading and writing, creating it; fails if it exists.
    pub async fn create_new(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .await
    }

    /// A blank [`OpenOptions`].
    pub fn options() -> OpenOptions {
        OpenOptions::new()
    }

    /// Wraps an open std file.
    pub fn from_std(std: std::fs::File) -> File {
        File {
            std: Arc::new(std),
            inner: Mutex::new(Inner {
                state: State::Idle(Some(Buf::default())),
                last_write_err: None,
                pos: 0,
                seeking: false,
                max_buf_size: MAX_BUF,
            }),
        }
    }

    /// Sets the most one read or write moves between the caller and the blocking pool
    /// (default 2 MiB), as tokio's `set_max_buf_size`: a larger value means fewer trips to the
    /// pool for large reads and writes, and that much more memory per file.
    ///
    /// # Panics
    /// When `max_buf_size` is 0.
    #[track_caller]
    pub fn set_max_buf_size(&mut self, max_buf_size: usize) {
        assert!(max_buf_size > 0, "`max_buf_size` must be greater than 0");
        let inner = self.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        inner.max_buf_size = max_buf_size;
    }

    /// The most one read or write moves between the caller and the blocking pool.
    pub fn max_buf_size(&self) -> usize {
        self.lock().max_buf_size
    }

    fn lock(&self) -> rt_core::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for the operation in flight and reports a kept write error (rules 2, 3).
    async fn settle(&self) -> io::Result<()> {
        poll_fn(|cx| self.lock().poll_flush(cx)).await
    }

    /// Waits for the operation in flight, then runs `f` on the pool with the file position
    /// where the caller thinks it is (rule 4).
    async fn run<T, F>(&self, f: F) -> io::Result<T>
    where
        F: FnOnce(&std::fs::File) -> io::Result<T> + Send + 'static,
        T: Send + 'static,
    {
        let seek = loop {
            self.settle().await?;
            let mut inner = self.lock();
            match &mut inner.state {
                State::Idle(Some(buf)) => break (!buf.is_empty()).then(|| buf.discard_read()),
                State::Idle(None) => break None,
                // Another `&self` call started an operation meanwhile: let it end first.
                State::Busy(_) => continue,
            }
        };
        let std = self.std.clone();
        asyncify(move || {
            if let Some(back) = seek {
                (&*std).seek(SeekFrom::Current(back))?;
            }
            f(&std)
        })
        .await
    }

    /// Flushes data and metadata to the disk (`fsync`), after any write in flight.
    pub async fn sync_all(&self) -> io::Result<()> {
        self.run(|f| f.sync_all()).await
    }

    /// Flushes data to the disk (`fdatasync`), after any write in flight.
    pub async fn sync_data(&self) -> io::Result<()> {
        self.run(|f| f.sync_data()).await
    }

    /// Truncates or extends the file to `size` bytes, after any write in flight; the position
    /// does not move.
    pub async fn set_len(&self, size: u64) -> io::Result<()> {
        self.run(move |f| f.set_len(size)).await
    }

    /// Sets the file's access and modification times (`futimens`), after any write in flight.
    pub async fn set_times(&self, times: super::FileTimes) -> io::Result<()> {
        self.run(move |f| f.set_times(times)).await
    }

    /// Sets the file's modification time alone: [`set_times`](File::set_times) with only the
    /// modification time set.
    pub async fn set_modified(&self, time: std::time::SystemTime) -> io::Result<()> {
        self.set_times(super::FileTimes::new().set_modified(time))
            .await
    }

    /// The file's metadata.
    pub async fn metadata(&self) -> io::Result<Metadata> {
        let std = self.std.clone();
        asyncify(move || std.metadata()).await
    }

    /// Sets the file's permissions.
    pub async fn set_permissions(&self, perm: Permissions) -> io::Result<()> {
        let std = self.std.clone();
        asyncify(move || std.set_permissions(perm)).await
    }

    /// A second handle to the same open file (sharing its position), with the same
    /// [`max_buf_size`](File::max_buf_size).
    pub async fn try_clone(&self) -> io::Result<File> {
        self.settle().await?;
        let std = self.std.clone();
        let max_buf_size = self.max_buf_size();
        let mut clone = asyncify(move || std.try_clone())
            .await
            .map(File::from_std)?;
        clone.set_max_buf_size(max_buf_size);
        Ok(clone)
    }

    /// The std file, after any operation in flight ended (its error is dropped: flush first
    /// to see it) and with the position where the caller thinks it is.
    ///
    /// # Panics
    /// Only if a cancelled call still holds the file on the blocking pool and duplicating the
    /// descriptor fails (out of file descriptors).
    pub async fn into_std(self) -> std::fs::File {
        let _ = self.settle().await;
        let back = match &mut self.lock().state {
            State::Idle(Some(buf)) if !buf.is_empty() => Some(buf.discard_read()),
            _ => None,
        };
        if let Some(back) = back {
            let _ = (&*self.std).seek(SeekFrom::Current(back));
        }
        // A cancelled `metadata`/`set_permissions` may still hold the file on the pool: then a
        // duplicate of the descriptor (sharing the position) stands in for it.
        Arc::try_unwrap(self.std).unwrap_or_else(|std| {
            std.try_clone()
                .expect("into_std: could not duplicate a file still used on the blocking pool")
        })
    }

    /// The std file, if no operation is in flight; else the `File` back.
    pub fn try_into_std(self) -> Result<std::fs::File, File> {
        if matches!(self.lock().state, State::Busy(_)) {
            return Err(self);
        }
        match Arc::try_unwrap(self.std) {
            Ok(std) => Ok(std),
            Err(std) => Err(File {
                std,
                inner: self.inner,
            }),
        }
    }
}

impl fmt::Debug for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The type's path, as tokio's `File` names itself (`tokio::fs::File` under the face).
        let name = if cfg!(feature = "tokio-face") {
            "tokio::fs::File"
        } else {
            "rt::fs::File"
        };
        f.debug_struct(name).field("std", &self.std).finish()
    }
}

impl From<std::fs::File> for File {
    fn from(std: std::fs::File) -> File {
        File::from_std(std)
    }
}

impl std::os::fd::FromRawFd for File {
    /// Wraps an open file descriptor, as `std::fs::File::from_raw_fd`.
    ///
    /// # Safety
    /// `fd` must be an open file descriptor that nothing else owns; the `File` closes it.
    unsafe fn from_raw_fd(fd: std::os::fd::RawFd) -> File {
        // SAFETY: the caller's contract is std's.
        File::from_std(unsafe { std::fs::File::from_raw_fd(fd) })
    }
}

impl std::os::fd::AsRawFd for File {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.std.as_raw_fd()
    }
}

impl std::os::fd::AsFd for File {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.std.as_fd()
    }
}

impl File {
    fn parts(self: Pin<&mut Self>) -> (&Arc<std::fs::File>, &mut Inner) {
        let me = self.get_mut();
        (
            &me.std,
            me.inner.get_mut().unwrap_or_else(|e| e.into_inner()),
        )
    }
}

impl crate::io::AsyncRead for File {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut crate::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let (std, inner) = self.parts();
        let n = ready!(inner.poll_read(std, cx, buf.initialize_unfilled()))?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl crate::io::AsyncWrite for File {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        let (std, inner) = self.parts();
        inner.poll_write(std, cx, &[io::IoSlice::new(src)])
    }

    /// Takes all of `bufs` (up to the file's buffer size) into one write.
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let (std, inner) = self.parts();
        inner.poll_write(std, cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.parts().1.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.parts().1.poll_flush(cx)
    }
}

impl crate::io::AsyncSeek for File {
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        let (std, inner) = self.parts();
        inner.start_seek(std, pos)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        self.parts().1.poll_complete(cx)
    }
}

impl futures_io::AsyncRead for File {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        dst: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let (std, inner) = self.parts();
        inner.poll_read(std, cx, dst)
    }
}

impl futures_io::AsyncWrite for File {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        let (std, inner) = self.parts();
        inner.poll_write(std, cx, &[io::IoSlice::new(src)])
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let (std, inner) = self.parts();
        inner.poll_write(std, cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.parts().1.poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.parts().1.poll_flush(cx)
    }
}

impl futures_io::AsyncSeek for File {
    /// Waits for the operation in flight, then seeks. A pending seek is not remembered across
    /// calls with a different `pos`: poll one seek to completion before the next.
    fn poll_seek(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        let (std, inner) = self.parts();
        if !inner.seeking {
            ready!(inner.poll_settle(cx))?;
            inner.start_seek(std, pos)?;
            inner.seeking = true;
        }
        let res = ready!(inner.poll_complete(cx));
        inner.seeking = false;
        Poll::Ready(res)
    }
}
