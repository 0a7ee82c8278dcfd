//! [`worker_index`], as tokio's `runtime::worker_index`.

/// The index of the runtime worker running on this thread: `0..worker_threads` on a
/// multi-thread runtime's workers, `0` on the thread inside a current-thread runtime's (or a
/// `LocalRuntime`'s) `block_on`, and `None` anywhere else: a blocking-pool thread, the thread
/// in a multi-thread runtime's `block_on` (not a worker), a second thread in a current-thread
/// runtime's `block_on` while another drives it, or a thread outside every runtime. The same
/// indices as the per-worker metrics.
///
/// A task may move between workers at an `.await`, so the answer holds until the next one.
///
/// ```
/// let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
/// let i = rt.block_on(async { rt::spawn(async { rt::runtime::worker_index() }).await })?;
/// assert!(matches!(i, Some(0 | 1)));
/// assert_eq!(rt.block_on(async { rt::runtime::worker_index() }), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn worker_index() -> Option<usize> {
    rt_sched::multi_thread::current_worker_index()
        .or_else(|| rt_sched::current_thread::drives_here().then_some(0))
}
