//! Task ids: unique for the life of the process.

use std::cell::Cell;
use std::fmt;
use std::num::NonZeroU64;

// An id source outside every protocol: std's atomic even under loom (exception 2 in `sync.rs`).
use crate::sync::unmodelled::{AtomicU64, Ordering::Relaxed};

/// A task's id: unique among all tasks of the process, never reused.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(NonZeroU64);

impl Id {
    pub(crate) fn next() -> Id {
        crate::sync::thread_local! {
            // Ids are handed out in blocks of 1024 per thread so a spawn costs no shared atomic.
            static BLOCK: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
        }
        static NEXT: AtomicU64 = AtomicU64::new(1);
        const BLOCK_LEN: u64 = 1024;
        let take = || {
            let start = NEXT.fetch_add(BLOCK_LEN, Relaxed);
            (start, start + BLOCK_LEN)
        };
        let id = BLOCK
            .try_with(|b| {
                let (mut next, mut end) = b.get();
                if next == end {
                    (next, end) = take();
                }
                b.set((next + 1, end));
                next
            })
            .unwrap_or_else(|_| take().0);
        Id(NonZeroU64::new(id).expect("task id counter overflowed"))
    }

    /// The id as a number (for logs and trace export).
    pub fn as_u64(self) -> u64 {
        self.0.get()
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({})", self.0)
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

crate::sync::thread_local! {
    /// The id of the task this thread is polling (set by [`IdGuard`] for one poll).
    static CURRENT_TASK_ID: Cell<Option<Id>> = const { Cell::new(None) };
}

/// The id of the task being polled on this thread, if any.
pub fn try_id() -> Option<Id> {
    CURRENT_TASK_ID.try_with(|c| c.get()).ok().flatten()
}

/// The id of the task being polled on this thread.
///
/// # Panics
/// Outside a task (for example in `block_on`'s own future), with a message saying so that
/// names the caller's location.
#[track_caller]
pub fn id() -> Id {
    try_id().expect(
        "rt::task::id() called outside a task: call it from a future spawned with rt::spawn",
    )
}

/// Sets the current task id for the duration of a poll.
pub(crate) struct IdGuard(Option<Id>);

impl IdGuard {
    pub(crate) fn enter(id: Id) -> IdGuard {
        IdGuard(
            CURRENT_TASK_ID
                .try_with(|c| c.replace(Some(id)))
                .ok()
                .flatten(),
        )
    }
}

impl Drop for IdGuard {
    fn drop(&mut self) {
        let _ = CURRENT_TASK_ID.try_with(|c| c.set(self.0));
    }
}
