//! Blocking on a future from synchronous code (the `blocking_*` methods of the primitives, as
//! in tokio), without any runtime: the thread parks between polls (`rt_core::block`).

use std::future::Future;

/// Runs `fut` to completion on this thread, parking it between polls (the `blocking_*`
/// methods: `mpsc`'s `blocking_send`/`blocking_recv`, `Mutex::blocking_lock`,
/// `RwLock::blocking_read`/`blocking_write`, `oneshot`'s and `broadcast`'s `blocking_recv`).
///
/// # Panics
/// On a thread that drives tasks, naming `what`.
#[track_caller]
pub(crate) fn block_on<F: Future>(what: &str, fut: F) -> F::Output {
    rt_core::driving::assert_may_block(what);
    rt_core::block::block_on(fut)
}
