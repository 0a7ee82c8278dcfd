//! The cooperative budget.
//!
//! Every poll of a task runs with a budget of [`BUDGET`] units (128, as in tokio). Each operation of a
//! runtime resource that completes without waiting — a lock taken, a value received, a permit
//! acquired — spends one unit through [`poll_proceed`]. When the budget is spent the operation returns
//! `Pending` after waking the task, so a task looping over an always-ready resource still yields to
//! the scheduler and cannot starve its neighbours.
//!
//! Outside a budgeted poll (a plain thread, a foreign executor) the budget is unconstrained and
//! [`poll_proceed`] always proceeds: the primitives stay runtime-agnostic.
//!
//! ```
//! use std::task::{Context, Poll};
//! fn poll_thing(cx: &mut Context<'_>) -> Poll<u32> {
//!     let coop = std::task::ready!(rt_core::coop::poll_proceed(cx));
//!     // ... the operation succeeded without waiting:
//!     coop.made_progress();
//!     Poll::Ready(7)
//! }
//! ```

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Units of budget handed to each task poll.
pub const BUDGET: u8 = 128;

crate::sync::thread_local! {
    /// `None`: unconstrained. `Some(n)`: `n` units left in the current poll.
    static CURRENT_BUDGET: Cell<Option<u8>> = const { Cell::new(None) };
}

/// Runs `f` (one task poll) with a fresh budget, restoring the previous budget afterwards.
#[inline]
pub fn budget<R>(f: impl FnOnce() -> R) -> R {
    with_budget(Some(BUDGET), f)
}

/// Runs `f` with no budget constraint (used by `block_on`'s own future, as tokio does).
#[inline]
pub fn unconstrained<R>(f: impl FnOnce() -> R) -> R {
    with_budget(None, f)
}

fn with_budget<R>(b: Option<u8>, f: impl FnOnce() -> R) -> R {
    struct Reset(Option<u8>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let _ = CURRENT_BUDGET.try_with(|c| c.set(self.0));
        }
    }
    let prev = CURRENT_BUDGET.with(|c| c.replace(b));
    let _reset = Reset(prev);
    f()
}

/// Whether the current poll still has budget left (always true when unconstrained).
#[inline]
pub fn has_budget_remaining() -> bool {
    CURRENT_BUDGET
        .try_with(|c| c.get().is_none_or(|n| n > 0))
        .unwrap_or(true)
}

/// Spends one unit of budget, or, when none is left, wakes the task and returns `Pending`.
///
/// The returned guard gives the unit back on drop unless [`RestoreOnPending::made_progress`] is
/// called: an operation that ends up waiting anyway should not be charged.
#[inline]
pub fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
    let r = CURRENT_BUDGET.try_with(|c| match c.get() {
        None => Poll::Ready(RestoreOnPending(Cell::new(None))),
        Some(0) => Poll::Pending,
        Some(n) => {
            c.set(Some(n - 1));
            Poll::Ready(RestoreOnPending(Cell::new(Some(n))))
        }
    });
    match r {
        Ok(Poll::Pending) => {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
        Ok(ready) => ready,
        Err(_) => Poll::Ready(RestoreOnPending(Cell::new(None))),
    }
}

/// Gives a budget unit back when dropped, unless the operation made progress.
#[derive(Debug)]
#[must_use = "call `made_progress` when the operation completed"]
pub struct RestoreOnPending(Cell<Option<u8>>);

impl RestoreOnPending {
    /// The operation completed: keep the unit spent. Takes `&self`, as tokio's does, so a
    /// guard held in a loop can be marked more than once.
    #[inline]
    pub fn made_progress(&self) {
        self.0.set(None);
    }
}

impl Drop for RestoreOnPending {
    fn drop(&mut self) {
        if let Some(n) = self.0.get() {
            let _ = CURRENT_BUDGET.try_with(|c| {
                if c.get().is_some() {
                    c.set(Some(n));
                }
            });
        }
    }
}

/// Spends one unit of budget, yielding to the scheduler if it is exhausted.
///
/// A task that loops on work that never waits calls this so it still lets others run.
pub async fn consume_budget() {
    ConsumeBudget { done: false }.await
}

struct ConsumeBudget {
    done: bool,
}

impl Future for ConsumeBudget {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            return Poll::Ready(());
        }
        let coop = std::task::ready!(poll_proceed(cx));
        coop.made_progress();
        self.done = true;
        Poll::Ready(())
    }
}
