//! Tasks: spawning, joining, yielding.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pub mod coop;
pub use coop::{consume_budget, unconstrained, Unconstrained};
pub use rt_core::task::{id, try_id, AbortHandle, Id, JoinError, JoinHandle};

pub use crate::{spawn, spawn_blocking};
mod builder;
pub use builder::Builder;
mod join_set;
pub use join_set::JoinSet;
mod group;
pub use group::{GroupError, PanicPayload, TaskGroup};

mod local;
mod task_local;
pub use local::{spawn_local, LocalEnterGuard, LocalSet, RunUntil};
pub use task_local::{AccessError, LocalKey, TaskLocalFuture};

/// Runs `f`, which may block the thread (a synchronous call, a lock held long, CPU-heavy
/// work), from inside a task without holding up the tasks queued on this worker: on the
/// multi-thread runtime the worker hands its queue, its LIFO slot and its IO to a substitute
/// thread while `f` runs, and takes them back when `f` returns. Returns what `f` returns; a
/// panic in `f` propagates to the caller (the worker is taken back first).
///
/// Outside any runtime, on a blocking-pool thread, inside `block_on` of a multi-thread
/// runtime, or nested in another `block_in_place`, `f` simply runs, as in tokio.
///
/// # Panics
/// On a current-thread runtime (its only thread cannot be handed over): use
/// [`spawn_blocking`] and await its handle instead, or build the
/// runtime with [`Builder::new_multi_thread`](crate::Builder::new_multi_thread).
///
/// ```
/// let rt = rt::Builder::new_multi_thread().worker_threads(1).build()?;
/// let n = rt.block_on(async {
///     rt::spawn(async {
///         // Blocks this worker's thread; other tasks keep running meanwhile.
///         rt::task::block_in_place(|| (1..=10u64).product::<u64>())
///     })
///     .await
/// })?;
/// assert_eq!(n, 3_628_800);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[track_caller]
pub fn block_in_place<F, R>(f: F) -> R
where
    F: FnOnce() -> R,
{
    match rt_sched::multi_thread::block_in_place(f) {
        Ok(r) => r,
        Err(f) => {
            let on_current_thread = crate::context::is_driving()
                && crate::context::try_current().is_some_and(|h| {
                    h.runtime_flavor() == crate::runtime::RuntimeFlavor::CurrentThread
                });
            assert!(
                !on_current_thread,
                "rt::task::block_in_place can call blocking only when running on the \
                 multi-threaded runtime (a current_thread runtime's only thread would block every \
                 task): use `rt::task::spawn_blocking(f).await` instead, or build the runtime \
                 with `rt::Builder::new_multi_thread()`"
            );
            // Blocking is allowed here (outside a worker, or nested): run it.
            let prev = rt_core::driving::set_driving(false);
            let _restore = RestoreDriving(prev);
            f()
        }
    }
}

struct RestoreDriving(bool);

impl Drop for RestoreDriving {
    fn drop(&mut self) {
        rt_core::driving::set_driving(self.0);
    }
}

/// Yields to the scheduler once: the task goes to the back of its worker's queue and runs
/// again after the tasks queued before it.
pub async fn yield_now() {
    YieldNow { yielded: false }.await
}

struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
