//! Tasks: spawning, joining, yielding.
//!
//! # Priorities
//!
//! Every task has a [`Priority`], set at spawn with [`Builder::priority`],
//! [`JoinSet::spawn_with_priority`] or [`TaskGroup::spawn_with_priority`], and otherwise
//! inherited from the task that spawns it (`Normal` from outside any task). One runtime then
//! serves both latency-sensitive work and batch work, where tokio's advice is two runtimes:
//!
//! - a worker runs queued normal tasks before background ones, steals normal work first, and
//!   turns its IO reactor before it starts a background poll;
//! - a background poll runs in time slices ([`crate::Builder::background_time_slice`], 100 µs
//!   by default): past its slice, while normal work waits (queued, or IO ready on the worker's
//!   reactor), its next budget check — [`consume_budget`], [`yield_if_needed`], or any rt
//!   future that spends the budget — returns `Pending`, so the worker serves that work and the
//!   background task resumes afterwards;
//! - background work keeps a share of the workers that normal work keeps busy
//!   ([`crate::Builder::background_interval`]), so it never starves.
//!
//! A wake never changes a priority: the task is queued with its own, whoever wakes it. CPU
//! work that never reaches a budget check cannot be sliced: it is a stall, and with
//! [`crate::Builder::stall_threshold`] set the stall report names its priority and the stalled
//! worker's take-over serves its normal work first. A normal task waiting on a lock, a channel
//! or a join that a background task holds up waits for that background task's next poll
//! (priority inversion; rt lends no priority): keep what latency-sensitive tasks need out of
//! the long stretches of background work. The task dump ([`crate::Runtime::dump`]) and the
//! trace file show each task's priority.
//!
//! ```
//! use rt::task::Priority;
//! let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
//! rt.block_on(async {
//!     let batch = rt::task::Builder::new()
//!         .priority(Priority::Background)
//!         .spawn(async {
//!             // Spawned from a background task: background too.
//!             rt::spawn(async { rt::task::current_priority() }).await.unwrap()
//!         })?;
//!     assert_eq!(batch.await.unwrap(), Priority::Background);
//!     assert_eq!(rt::task::current_priority(), Priority::Normal);
//!     Ok::<(), std::io::Error>(())
//! })?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pub mod coop;
pub use coop::{consume_budget, unconstrained, Unconstrained};
pub use rt_core::coop::{current_priority, yield_if_needed};
pub use rt_core::task::{id, try_id, AbortHandle, Id, JoinError, JoinHandle, Priority};

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
