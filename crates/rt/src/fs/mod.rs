//! Files and directories, tokio's `fs` shape: every operation runs on the runtime's blocking
//! pool ([`crate::spawn_blocking`]), so a slow disk never holds up a worker.
//!
//! - `mod.rs`: the one-shot functions ([`read`], [`write()`], [`copy`], [`metadata`], …).
//! - `file.rs`: [`File`], with tokio's buffering: a write copies into the file's buffer and runs
//!   on the pool while the task goes on; it is in flight until `flush` (or the next operation),
//!   and its error surfaces at the next call.
//! - `open_options.rs`: [`OpenOptions`]; `read_dir.rs`: [`ReadDir`] and [`DirEntry`];
//!   `dir_builder.rs`: [`DirBuilder`].
//!
//! ```
//! # rt::Runtime::new()?.block_on(async {
//! let dir = std::env::temp_dir().join(format!("rt-fs-doc-{}", std::process::id()));
//! rt::fs::create_dir_all(&dir).await?;
//! rt::fs::write(dir.join("a.txt"), b"hello").await?;
//! assert_eq!(rt::fs::read_to_string(dir.join("a.txt")).await?, "hello");
//! rt::fs::remove_dir_all(&dir).await?;
//! # Ok::<(), std::io::Error>(()) })?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Panics
//! Every function, outside an rt runtime (it needs the blocking pool).
//!
//! # Files (`rt::fs`)
//!
//! ```rust
//! use rt::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
//!
//! let rt = rt::Runtime::new()?;
//! rt.block_on(async {
//!     let dir = std::env::temp_dir().join(format!("rt-readme-fs-{}", std::process::id()));
//!     rt::fs::create_dir_all(&dir).await?;
//!     rt::fs::write(dir.join("a.txt"), "hello").await?;
//!     assert_eq!(rt::fs::read_to_string(dir.join("a.txt")).await?, "hello");
//!
//!     let mut f = rt::fs::OpenOptions::new().read(true).write(true).open(dir.join("a.txt")).await?;
//!     f.seek(std::io::SeekFrom::End(0)).await?;
//!     f.write_all(b", world").await?;
//!     f.flush().await?; // a write is in flight on the blocking pool until flush
//!     f.rewind().await?;
//!     let mut s = String::new();
//!     f.read_to_string(&mut s).await?;
//!     assert_eq!(s, "hello, world");
//!
//!     let mut entries = rt::fs::read_dir(&dir).await?;
//!     while let Some(e) = entries.next_entry().await? {
//!         assert_eq!(e.file_name(), "a.txt");
//!     }
//!     rt::fs::remove_dir_all(&dir).await
//! })?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! Every call runs on the blocking pool, tokio's shape and buffering: `File` implements tokio's and
//! futures-io's `AsyncRead`/`AsyncWrite`/`AsyncSeek`; a write returns once its bytes are copied into
//! the file's buffer, runs on the pool, and its error comes back from the next call (`flush`,
//! `write`, `sync_all`, `set_len`). A missing path is `ErrorKind::NotFound`.

mod dir_builder;
mod file;
mod open_options;
mod read_dir;

pub use dir_builder::DirBuilder;
pub use file::File;
pub use open_options::OpenOptions;
pub use read_dir::{read_dir, DirEntry, ReadDir};
/// The times [`File::set_times`] sets (std's type: tokio's has the same builder methods).
pub use std::fs::FileTimes;

use std::fs::{Metadata, Permissions};
use std::io;
use std::path::{Path, PathBuf};

use crate::task::JoinError;

/// Runs `f` on the blocking pool and waits for it.
pub(crate) async fn asyncify<F, T>(f: F) -> io::Result<T>
where
    F: FnOnce() -> io::Result<T> + Send + 'static,
    T: Send + 'static,
{
    crate::spawn_blocking(f).await.map_err(join_error)?
}

/// A blocking job that did not finish: its panic goes on in the caller (as std's call would
/// have panicked there); a job the shut-down pool dropped unrun is an `io::Error` of kind
/// `Other` whose inner error reads "background task failed", as tokio's.
pub(crate) fn join_error(e: JoinError) -> io::Error {
    match e.try_into_panic() {
        Ok(payload) => std::panic::resume_unwind(payload),
        Err(_) => io::Error::other("background task failed"),
    }
}

/// Reads the whole file (`std::fs::read`).
pub async fn read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::read(path)).await
}

/// Reads the whole file as UTF-8 (`std::fs::read_to_string`).
pub async fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::read_to_string(path)).await
}

/// Creates or truncates the file and writes `contents` (`std::fs::write`).
pub async fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    let contents = contents.as_ref().to_owned();
    asyncify(move || std::fs::write(path, contents)).await
}

/// Copies the contents and permissions of `from` to `to`; returns the bytes copied.
pub async fn copy(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<u64> {
    let (from, to) = (from.as_ref().to_owned(), to.as_ref().to_owned());
    asyncify(move || std::fs::copy(from, to)).await
}

/// Renames `from` to `to`, replacing `to` if it exists.
pub async fn rename(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<()> {
    let (from, to) = (from.as_ref().to_owned(), to.as_ref().to_owned());
    asyncify(move || std::fs::rename(from, to)).await
}

/// Creates a hard link `dst` to `src`.
pub async fn hard_link(src: impl AsRef<Path>, dst: impl AsRef<Path>) -> io::Result<()> {
    let (src, dst) = (src.as_ref().to_owned(), dst.as_ref().to_owned());
    asyncify(move || std::fs::hard_link(src, dst)).await
}

/// Removes a file.
pub async fn remove_file(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::remove_file(path)).await
}

/// Creates a directory (its parent must exist).
pub async fn create_dir(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::create_dir(path)).await
}

/// Creates a directory and every missing parent.
pub async fn create_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::create_dir_all(path)).await
}

/// Removes an empty directory.
pub async fn remove_dir(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::remove_dir(path)).await
}

/// Removes a directory and everything in it.
pub async fn remove_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::remove_dir_all(path)).await
}

/// The metadata of `path`, following symbolic links.
pub async fn metadata(path: impl AsRef<Path>) -> io::Result<Metadata> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::metadata(path)).await
}

/// The metadata of `path` itself, not following a symbolic link.
pub async fn symlink_metadata(path: impl AsRef<Path>) -> io::Result<Metadata> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::symlink_metadata(path)).await
}

/// The absolute path with every symbolic link resolved.
pub async fn canonicalize(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::canonicalize(path)).await
}

/// Where a symbolic link points.
pub async fn read_link(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::read_link(path)).await
}

/// Sets the permissions of `path`.
pub async fn set_permissions(path: impl AsRef<Path>, perm: Permissions) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::set_permissions(path, perm)).await
}

/// Creates a symbolic link at `dst` pointing to `src` (`std::os::unix::fs::symlink`).
pub async fn symlink(src: impl AsRef<Path>, dst: impl AsRef<Path>) -> io::Result<()> {
    let (src, dst) = (src.as_ref().to_owned(), dst.as_ref().to_owned());
    asyncify(move || std::os::unix::fs::symlink(src, dst)).await
}

/// Whether `path` exists; errors other than "not found" (permissions) are errors.
pub async fn try_exists(path: impl AsRef<Path>) -> io::Result<bool> {
    let path = path.as_ref().to_owned();
    asyncify(move || path.try_exists()).await
}
