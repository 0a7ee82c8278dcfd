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
//!
//! # Task groups
//!
//! `rt::task::JoinSet` is tokio's (`spawn`, `spawn_on`, `spawn_local`, `spawn_local_on`,
//! `spawn_blocking(_on)`, `join_next(_with_id)`, `try_join_next(_with_id)`, `poll_join_next(_with_id)`,
//! `join_all`, `abort_all`, `detach_all`, `shutdown`, `collect`/`extend` from futures): outcomes come
//! out in completion order, dropping the set aborts its tasks. Unlike tokio's, a finished task's cell is freed as soon as it finishes; only its output
//! waits in the set.
//!
//! ```rust
//! let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
//! rt.block_on(async {
//!     let mut set = rt::task::JoinSet::new();
//!     for i in 0..10u32 {
//!         set.spawn(async move { i * 2 });
//!     }
//!     let mut sum = 0;
//!     while let Some(res) = set.join_next().await {
//!         sum += res.unwrap();
//!     }
//!     assert_eq!(sum, 90);
//! });
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! `rt::task::TaskGroup<T, E>` fails fast: the first task that returns `Err` or panics aborts all
//! the others at once (whether or not `join` is awaited yet), `join` waits until their futures were
//! dropped and returns that first failure; values come back in spawn order; a task spawned after the
//! failure never runs; dropping the group aborts its tasks.
//!
//! ```rust
//! let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
//! rt.block_on(async {
//!     let group = rt::task::TaskGroup::<u32, String>::new();
//!     group.spawn(std::future::pending());
//!     group.spawn(async { Err("bad input".to_string()) });
//!     match group.join().await {
//!         Err(rt::task::GroupError::Failed(e)) => assert_eq!(e, "bad input"),
//!         other => panic!("{other:?}"),
//!     }
//! });
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Task-local values
//!
//! ```rust
//! rt::task_local! {
//!     static REQUEST_ID: u64;
//!     pub static USER: String;
//! }
//!
//! let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
//! let id = rt.block_on(rt.spawn(REQUEST_ID.scope(7, async {
//!     rt::task::yield_now().await; // may resume on another worker: the value follows
//!     REQUEST_ID.get()
//! })))?;
//! assert_eq!(id, 7);
//! assert_eq!(USER.sync_scope("ann".to_string(), || USER.with(|u| u.len())), 3);
//! assert!(REQUEST_ID.try_with(|v| *v).is_err()); // outside any scope: AccessError
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The value lives in the future returned by `scope`, and is swapped into a thread-local only
//! while that future is polled, so it follows the task across workers and steals (tokio's design).
//! `with` outside a scope panics with a message; `try_with` returns `rt::task::AccessError`.
//!
//! # Local tasks (`!Send` futures)
//!
//! ```rust
//! use std::{cell::RefCell, rc::Rc};
//!
//! let rt = rt::Builder::new_current_thread().build()?;
//! let local = rt::task::LocalSet::new();
//! let hits = Rc::new(RefCell::new(0));
//! let h = hits.clone();
//! local.block_on(&rt, async move {
//!     let t = rt::task::spawn_local(async move {
//!         *h.borrow_mut() += 1;
//!         Rc::new("a !Send output")
//!     });
//!     assert_eq!(*t.await.unwrap(), "a !Send output");
//! });
//! assert_eq!(*hits.borrow(), 1);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! A `LocalSet` runs its tasks on the thread that drives it (`run_until(fut).await` inside any
//! `block_on`, or `LocalSet::block_on(&rt, fut)`); a task never leaves that thread, wakes from
//! other threads are queued for it, and dropping the set drops its unfinished tasks there.
//! `rt::task::spawn_local` outside a `LocalSet` panics with a message. Differences from tokio:
//! `LocalSet` is not itself a `Future` and has no `enter`; panics of local tasks always go to their
//! `JoinHandle` (the set has no `unhandled_panic` option).
//!
//! # Latency-sensitive and background work in one runtime (task priorities)
//!
//! tokio's advice for a service that mixes request handling with CPU-heavy work is two runtimes.
//! In rt a task can be spawned at `Priority::Background` instead: workers run normal
//! (latency-sensitive) tasks first, and a background task's poll gives way at its next budget check
//! (`consume_budget`, `yield_if_needed`, any rt future) once it has run longer than a time slice
//! (`Builder::background_time_slice`, 100 µs by default) while normal work waits, queued or as
//! ready IO. Background work still gets a share of busy workers (`Builder::background_interval`),
//! and what a background task spawns is background too. `benches/priority.rs` measures request
//! latency under saturating background work against tokio's one- and two-runtime setups
//! (`docs/BENCHMARKS.md`).
//!
//! ```rust
//! use rt::task::{JoinSet, Priority};
//! let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
//! let total = rt.block_on(async {
//!     let mut batch = JoinSet::new();
//!     for chunk in 0..4u64 {
//!         batch.spawn_with_priority(Priority::Background, async move {
//!             let mut sum = 0u64;
//!             for i in chunk * 1000..(chunk + 1) * 1000 {
//!                 sum += i;
//!                 rt::task::consume_budget().await; // where the slice can end
//!             }
//!             sum
//!         });
//!     }
//!     let mut total = 0;
//!     while let Some(part) = batch.join_next().await {
//!         total += part.unwrap();
//!     }
//!     total
//! });
//! assert_eq!(total, (0..4000u64).sum::<u64>());
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! A normal task that waits on a lock or channel held up by a background task waits for that
//! task's next (sliced, deprioritised) poll: rt lends no priority, so keep what request handlers
//! need out of long stretches of background work. CPU work that never reaches a budget check is a
//! stall: with `stall_threshold` set, the report names its priority and the take-over serves the
//! stalled worker's normal tasks. The task dump and the trace file show each task's priority.
//!
//! # Blocking inside a task (`rt::task::block_in_place`)
//!
//! On the multi-thread runtime a task may block its thread in `rt::task::block_in_place(f)`: while
//! `f` runs, a substitute thread serves everything that worker held — the task it was about to run,
//! its queue, its timers and sockets — and the worker takes them back when `f` returns. On a
//! current-thread runtime it panics (use `spawn_blocking` there); outside a runtime `f` just runs.
//! The substitute comes from a pool of reused threads and takes over only if `f` is still running
//! when it gets there, so a short `block_in_place` costs about 0.2–0.3 µs (as tokio's does), not a
//! thread start.
//!
//! ```rust
//! let rt = rt::Builder::new_multi_thread().worker_threads(1).build()?;
//! let got = rt.block_on(async {
//!     rt::spawn(async {
//!         let (tx, rx) = std::sync::mpsc::channel();
//!         // Spawned onto this worker, which is about to block: it still runs.
//!         rt::spawn(async move { tx.send("served").unwrap() });
//!         rt::task::block_in_place(move || rx.recv().unwrap())
//!     })
//!     .await
//! })?;
//! assert_eq!(got, "served");
//! # Ok::<(), Box<dyn std::error::Error>>(())
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
/// runtime, inside `Handle::block_on` of a current-thread runtime, or nested in another
/// `block_in_place`, `f` simply runs, as in tokio.
///
/// `f` runs with no cooperative budget, as in tokio: rt's resources polled inside it (by
/// another executor's `block_on`, say) never return `Pending` because the calling task has
/// spent its budget; the task's budget is as it was when `f` returns.
///
/// # Panics
/// Inside a [`LocalSet`] being driven (its `run_until`, a `spawn_local` task, its `Drop`), as
/// in tokio, and on a current-thread runtime (its only thread cannot be handed over): use
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
    assert!(
        !rt_sched::local::driven_here(),
        "rt::task::block_in_place can call blocking only when running on the multi-threaded \
         runtime, outside a LocalSet (the set's tasks are tied to this thread, which cannot be \
         handed over): use `rt::task::spawn_blocking(f).await` instead"
    );
    // The closure runs outside any task's cooperative budget (tokio's): a blocking section
    // that polls rt's resources itself (`futures::executor::block_on` of a channel) must not
    // find the calling task's budget spent and spin on it. The task's budget is back after.
    let f = move || rt_core::coop::unconstrained(f);
    match rt_sched::multi_thread::block_in_place(f) {
        Ok(r) => r,
        Err(f) => {
            // Only the thread that drives a current-thread scheduler (in its `Runtime::block_on`,
            // a task of it included) is refused; a `Handle::block_on` of that runtime waits for
            // its own future alone, and `f` runs there as in tokio.
            let on_current_thread = rt_sched::current_thread::drives_here();
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
