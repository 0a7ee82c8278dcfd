//! Chrome trace / Perfetto export, facade side: where the file goes
//! ([`Builder::trace_file`](crate::Builder::trace_file) or `RT_TRACE=path`) and the wiring of
//! rt-sched's recorder (`rt_sched::trace`) into a multi-thread runtime.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rt_sched::trace::Recorder;
use rt_sched::{blocking, multi_thread};

/// The environment variable that turns the trace on for every multi-thread runtime built.
pub(crate) const ENV: &str = "RT_TRACE";

/// Runtimes of this process that took a path from `RT_TRACE` so far.
static FROM_ENV: AtomicUsize = AtomicUsize::new(0);

/// `path` for the first runtime that reads `RT_TRACE`; `stem.N.ext` for the `N`th after it,
/// so a second runtime does not overwrite the first one's trace.
fn numbered(path: &Path, n: usize) -> PathBuf {
    if n == 0 {
        return path.to_path_buf();
    }
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}.{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{n}"),
    };
    path.with_file_name(name)
}

/// Starts a recorder for a runtime of `workers` workers: into `explicit` if set, else into
/// `RT_TRACE`'s path if that is set and not empty; `None` when neither is.
pub(crate) fn open(explicit: Option<&Path>, workers: usize) -> io::Result<Option<Arc<Recorder>>> {
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => match std::env::var_os(ENV) {
            Some(p) if !p.is_empty() => {
                numbered(Path::new(&p), FROM_ENV.fetch_add(1, Ordering::Relaxed))
            }
            _ => return Ok(None),
        },
    };
    Recorder::create(&path, workers)
        .map(Some)
        .map_err(|e| io::Error::new(e.kind(), format!("trace file {}: {e}", path.display())))
}

/// Hands `trace` to the scheduler and the blocking pool.
pub(crate) fn attach(
    mt: multi_thread::MultiThread,
    pool: &blocking::BlockingPool,
    trace: &Option<Arc<Recorder>>,
) -> multi_thread::MultiThread {
    match trace {
        Some(t) => {
            pool.spawner().set_trace(t.clone());
            mt.with_trace(t.clone())
        }
        None => mt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_runtimes_get_numbered_files() {
        let p = Path::new("/tmp/x/trace.json");
        assert_eq!(numbered(p, 0), PathBuf::from("/tmp/x/trace.json"));
        assert_eq!(numbered(p, 1), PathBuf::from("/tmp/x/trace.1.json"));
        assert_eq!(numbered(Path::new("t"), 2), PathBuf::from("t.2"));
    }
}
