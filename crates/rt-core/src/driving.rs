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

/// Panics, naming `what`, when this thread drives tasks. For a blocking call (`blocking_recv`,
/// a coroutine's `resume`); `block_on` uses [`assert_may_block_on`].
#[track_caller]
pub fn assert_may_block(what: &str) {
    if is_driving() {
        refuse(
            "Cannot block the current thread from within a runtime. This happens because a \
             function attempted to block the current thread while the thread is being used to \
             drive asynchronous tasks.",
            what,
        );
    }
}

/// Panics, naming `what`, when this thread drives tasks. For `Runtime::block_on` and
/// `Handle::block_on`.
#[track_caller]
pub fn assert_may_block_on(what: &str) {
    if is_driving() {
        refuse(
            "Cannot start a runtime from within a runtime. This happens because a function (like \
             `block_on`) attempted to block the current thread while the thread is being used to \
             drive asynchronous tasks. If you are in an async function, use `.await` on the \
             future instead of blocking on it.",
            what,
        );
    }
}

/// The panic of both: tokio's sentence (which ported code matches on), then what rt saw.
#[track_caller]
fn refuse(tokio_sentence: &str, what: &str) -> ! {
    panic!(
        "{tokio_sentence} ({what} was called on a thread that drives rt tasks: a worker, or a \
         thread already in block_on. Use `.await` instead, or run blocking code with \
         rt::spawn_blocking.)"
    );
}
