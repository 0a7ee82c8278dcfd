//! [`ReadDir`]: a directory's entries, read on the blocking pool in batches of [`BATCH`].

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::{FileType, Metadata};
use std::future::poll_fn;
use std::io;
use std::os::unix::fs::DirEntryExt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use rt_core::sync::Arc;

use super::{asyncify, join_error};
use crate::task::JoinHandle;

/// Entries read per trip to the blocking pool.
const BATCH: usize = 32;

/// Opens a directory for reading its entries (`.` and `..` are left out).
///
/// ```
/// # rt::Runtime::new()?.block_on(async {
/// let mut entries = rt::fs::read_dir(".").await?;
/// while let Some(entry) = entries.next_entry().await? {
///     let _name = entry.file_name();
/// }
/// # Ok::<(), std::io::Error>(()) })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub async fn read_dir(path: impl AsRef<Path>) -> io::Result<ReadDir> {
    let path = path.as_ref().to_owned();
    let std = asyncify(move || std::fs::read_dir(path)).await?;
    Ok(ReadDir(State::Idle(Some(Batch {
        entries: VecDeque::with_capacity(BATCH),
        std,
        done: false,
    }))))
}

/// A directory's entries: [`ReadDir::next_entry`], or the [`futures_core::Stream`] of
/// `io::Result<DirEntry>` it implements.
#[derive(Debug)]
pub struct ReadDir(State);

#[derive(Debug)]
struct Batch {
    entries: VecDeque<io::Result<DirEntry>>,
    std: std::fs::ReadDir,
    /// `std` has ended.
    done: bool,
}

#[derive(Debug)]
enum State {
    /// `None` only after the blocking pool shut down under a pending batch.
    Idle(Option<Batch>),
    Pending(JoinHandle<Batch>),
}

impl ReadDir {
    /// The next entry, or `None` at the end.
    ///
    /// # Cancel safety
    /// Cancel safe: an entry read on the pool while the call was pending is kept for the next.
    pub async fn next_entry(&mut self) -> io::Result<Option<DirEntry>> {
        poll_fn(|cx| self.poll_next_entry(cx)).await
    }

    /// Polls for the next entry; `Ready(Ok(None))` at the end.
    pub fn poll_next_entry(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<DirEntry>>> {
        loop {
            match &mut self.0 {
                State::Idle(batch) => {
                    let Some(mut b) = batch.take() else {
                        return Poll::Ready(Ok(None));
                    };
                    if let Some(entry) = b.entries.pop_front() {
                        *batch = Some(b);
                        return Poll::Ready(entry.map(Some));
                    }
                    if b.done {
                        *batch = Some(b);
                        return Poll::Ready(Ok(None));
                    }
                    self.0 = State::Pending(crate::spawn_blocking(move || {
                        for _ in 0..BATCH {
                            match b.std.next() {
                                Some(entry) => b.entries.push_back(entry.map(DirEntry::from_std)),
                                None => {
                                    b.done = true;
                                    break;
                                }
                            }
                        }
                        b
                    }));
                }
                State::Pending(h) => {
                    let res = ready!(Pin::new(h).poll(cx));
                    match res {
                        Ok(b) => self.0 = State::Idle(Some(b)),
                        Err(e) => {
                            self.0 = State::Idle(None);
                            return Poll::Ready(Err(join_error(e)));
                        }
                    }
                }
            }
        }
    }
}

use std::future::Future;

impl futures_core::Stream for ReadDir {
    type Item = io::Result<DirEntry>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().poll_next_entry(cx).map(|r| r.transpose())
    }
}

/// One entry of a [`ReadDir`]: its name and path at once, its metadata on the blocking pool.
#[derive(Debug)]
pub struct DirEntry(Arc<std::fs::DirEntry>);

impl DirEntry {
    fn from_std(e: std::fs::DirEntry) -> DirEntry {
        DirEntry(Arc::new(e))
    }

    /// The directory's path joined with [`DirEntry::file_name`].
    pub fn path(&self) -> PathBuf {
        self.0.path()
    }

    /// The entry's name within its directory.
    pub fn file_name(&self) -> OsString {
        self.0.file_name()
    }

    /// The entry's inode number.
    pub fn ino(&self) -> u64 {
        self.0.ino()
    }

    /// The entry's metadata, not following a symbolic link.
    pub async fn metadata(&self) -> io::Result<Metadata> {
        let e = self.0.clone();
        asyncify(move || e.metadata()).await
    }

    /// The entry's type, not following a symbolic link.
    pub async fn file_type(&self) -> io::Result<FileType> {
        let e = self.0.clone();
        asyncify(move || e.file_type()).await
    }
}
