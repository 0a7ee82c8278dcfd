//! [`OpenOptions`]: std's, opened on the blocking pool.

use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::{asyncify, File};

/// How to open a file: tokio's `OpenOptions` (std's builder, with an async `open`).
///
/// ```
/// # rt::Runtime::new()?.block_on(async {
/// let path = std::env::temp_dir().join(format!("rt-open-options-{}", std::process::id()));
/// let _f = rt::fs::OpenOptions::new().write(true).create(true).open(&path).await?;
/// rt::fs::remove_file(&path).await?;
/// # Ok::<(), std::io::Error>(()) })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct OpenOptions(std::fs::OpenOptions);

impl OpenOptions {
    /// Nothing set: set at least one of `read`, `write`, `append`.
    pub fn new() -> OpenOptions {
        OpenOptions(std::fs::OpenOptions::new())
    }

    /// Open for reading.
    pub fn read(&mut self, read: bool) -> &mut OpenOptions {
        self.0.read(read);
        self
    }

    /// Open for writing.
    pub fn write(&mut self, write: bool) -> &mut OpenOptions {
        self.0.write(write);
        self
    }

    /// Every write goes to the end of the file.
    pub fn append(&mut self, append: bool) -> &mut OpenOptions {
        self.0.append(append);
        self
    }

    /// Truncate the file to 0 bytes when opening it.
    pub fn truncate(&mut self, truncate: bool) -> &mut OpenOptions {
        self.0.truncate(truncate);
        self
    }

    /// Create the file if it does not exist.
    pub fn create(&mut self, create: bool) -> &mut OpenOptions {
        self.0.create(create);
        self
    }

    /// Create the file, failing if it exists.
    pub fn create_new(&mut self, create_new: bool) -> &mut OpenOptions {
        self.0.create_new(create_new);
        self
    }

    /// The permission bits of a file this call creates.
    pub fn mode(&mut self, mode: u32) -> &mut OpenOptions {
        self.0.mode(mode);
        self
    }

    /// Extra `open(2)` flags.
    pub fn custom_flags(&mut self, flags: i32) -> &mut OpenOptions {
        self.0.custom_flags(flags);
        self
    }

    /// Opens `path` with these options.
    pub async fn open(&self, path: impl AsRef<Path>) -> io::Result<File> {
        let path = path.as_ref().to_owned();
        let opts = self.0.clone();
        let std = asyncify(move || opts.open(path)).await?;
        Ok(File::from_std(std))
    }
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions::new()
    }
}

impl From<std::fs::OpenOptions> for OpenOptions {
    fn from(o: std::fs::OpenOptions) -> OpenOptions {
        OpenOptions(o)
    }
}
