//! [`DirBuilder`]: creating a directory with options, as tokio's `fs::DirBuilder`.

use std::io;
use std::path::Path;

use super::asyncify;

/// Creates directories with options (`recursive`, `mode`), on the blocking pool: tokio's
/// `fs::DirBuilder` over `std::fs::DirBuilder`.
///
/// ```
/// # rt::Runtime::new()?.block_on(async {
/// let dir = std::env::temp_dir().join(format!("rt-dir-builder-doc-{}", std::process::id()));
/// rt::fs::DirBuilder::new().recursive(true).create(dir.join("a/b")).await?;
/// assert!(rt::fs::metadata(dir.join("a/b")).await?.is_dir());
/// rt::fs::remove_dir_all(&dir).await?;
/// # Ok::<(), std::io::Error>(()) })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct DirBuilder {
    recursive: bool,
    mode: Option<u32>,
}

impl DirBuilder {
    /// A builder that creates one directory (not its parents), with the default mode.
    pub fn new() -> DirBuilder {
        DirBuilder::default()
    }

    /// Whether to create missing parents too (and succeed when the directory exists).
    pub fn recursive(&mut self, recursive: bool) -> &mut DirBuilder {
        self.recursive = recursive;
        self
    }

    /// The permission bits of the new directories (before the umask); default `0o777`.
    pub fn mode(&mut self, mode: u32) -> &mut DirBuilder {
        self.mode = Some(mode);
        self
    }

    /// Creates `path` as configured.
    pub async fn create(&self, path: impl AsRef<Path>) -> io::Result<()> {
        use std::os::unix::fs::DirBuilderExt;
        let path = path.as_ref().to_owned();
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(self.recursive);
        if let Some(mode) = self.mode {
            builder.mode(mode);
        }
        asyncify(move || builder.create(path)).await
    }
}
