//! Cooperative scheduling: the budget every task poll runs with, as tokio's `task::coop`.
//!
//! Each poll of a task gets a budget of 128 units. Every operation of an rt resource that
//! completes without waiting (a value received, a lock taken, a socket read) spends one unit;
//! once the budget is spent such operations return `Pending` and wake the task, so a task
//! looping over always-ready resources still yields to its neighbours. Outside a task poll
//! (a plain thread, another executor) the budget is unconstrained.
//!
//! The tools here let code outside rt take part: [`poll_proceed`] and [`RestoreOnPending`]
//! spend budget in a hand-written `poll`, [`consume_budget`] spends it from `async` code,
//! [`cooperative`] makes any future spend it, and [`unconstrained`] opts a future out.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pub use rt_core::coop::{
    consume_budget, cooperative, has_budget_remaining, poll_proceed, Coop, RestoreOnPending,
};

/// Runs `inner` with no cooperative budget: rt's resources inside it never return `Pending` just
/// because the budget is spent. As tokio's `task::coop::unconstrained`.
///
/// Use it sparingly: a future that loops over always-ready resources inside `unconstrained`
/// holds its worker until it waits for real.
///
/// ```
/// let rt = rt::Builder::new_current_thread().build()?;
/// rt.block_on(async {
///     rt::spawn(rt::task::coop::unconstrained(async {
///         for _ in 0..1_000 {
///             rt::task::consume_budget().await;
///             assert!(rt::task::coop::has_budget_remaining());
///         }
///     }))
///     .await
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn unconstrained<F: Future>(inner: F) -> Unconstrained<F> {
    Unconstrained { inner }
}

/// The future [`unconstrained`] returns.
#[must_use = "futures do nothing unless you `.await` or poll them"]
#[derive(Debug)]
pub struct Unconstrained<F> {
    inner: F,
}

impl<F: Future> Future for Unconstrained<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `inner` is structurally pinned: it is never moved out of `self`, and
        // `Unconstrained` has no `Drop` impl and no `Unpin` impl of its own.
        let inner = unsafe { self.map_unchecked_mut(|me| &mut me.inner) };
        rt_core::coop::unconstrained(|| inner.poll(cx))
    }
}
