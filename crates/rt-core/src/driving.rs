//! Whether this thread drives tasks (a runtime worker, or a thread inside `block_on`), where
//! blocking the thread is a bug.
//!
//! The flag lives here, below every other rt crate, so that blocking calls anywhere (the
//! facade's `block_on`, rt-sync's `blocking_send`/`blocking_recv`) can refuse to run on such a
//! thread with one message. The facade sets it when it enters a runtime's context.

use std::cell::Cell;

crate::sync::thread_local! {
    /// This thread drives tasks: blocking here is a bug.
    static DRIVING: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread drives tasks.
pub fn is_driving() -> bool {
    DRIVING.try_with(|d| d.get()).unwrap_or(false)
}

/// Sets whether this thread drives tasks; returns the previous setting (to restore later).
pub fn set_driving(driving: bool) -> bool {
    DRIVING.try_with(|d| d.replace(driving)).unwrap_or(false)
}

/// Panics, naming `what`, when this thread drives tasks.
#[track_caller]
pub fn assert_may_block(what: &str) {
    if is_driving() {
        // Opens with tokio's sentence, which ported code may match on.
        panic!(
            "Cannot block the current thread from within a runtime: {what} called from inside \
             an rt runtime (a worker thread, or a thread already in block_on): it would block \
             the thread that drives tasks. Use `.await` instead, or run blocking code with \
             rt::spawn_blocking."
        );
    }
}
