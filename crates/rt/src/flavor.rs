//! `RuntimeFlavor`: which scheduler a runtime runs, as tokio's `Handle::runtime_flavor` reports.

/// The scheduler a runtime runs, from [`Handle::runtime_flavor`](crate::Handle::runtime_flavor).
/// Same variants as tokio's (`rt::runtime::RuntimeFlavor`), and likewise `#[non_exhaustive]`.
///
/// ```
/// use rt::runtime::RuntimeFlavor;
///
/// let rt = rt::Builder::new_current_thread().build()?;
/// assert_eq!(rt.handle().runtime_flavor(), RuntimeFlavor::CurrentThread);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RuntimeFlavor {
    /// One thread, the one in `block_on` ([`Builder::new_current_thread`](crate::Builder::new_current_thread)).
    CurrentThread,
    /// Work-stealing workers ([`Builder::new_multi_thread`](crate::Builder::new_multi_thread)).
    MultiThread,
}
