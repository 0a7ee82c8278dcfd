//! [`TaskGroup`]: a fail-fast group of tasks that cannot outlive it, and [`GroupError`].
//!
//! Each task runs a wrapper (as in `join_set.rs`) that records its outcome in the group's
//! shared state when it ends. The first `Err`, panic or runtime-shutdown cancellation marks the
//! group failed and aborts every other task at once, from the failing task's thread, whether
//! or not `join` is awaited yet; `join` returns once every task's record has fired, which for
//! an aborted task happens after its future was dropped.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use rt_core::sync::{Arc, Mutex};

use super::AbortHandle;
use crate::Handle;

/// Why a [`TaskGroup`] failed.
pub enum GroupError<E> {
    /// A task returned this error.
    Failed(E),
    /// A task panicked with this payload.
    Panicked(PanicPayload),
    /// A task was cancelled by something other than the group (a runtime shutdown, an
    /// `AbortHandle`).
    Cancelled,
}

/// A panic payload kept behind a lock so that [`GroupError`] is `Sync` (as tokio's
/// `JoinError` does).
pub struct PanicPayload(Mutex<Box<dyn Any + Send + 'static>>);

impl PanicPayload {
    /// The payload, to pass to `std::panic::resume_unwind`.
    pub fn into_inner(self) -> Box<dyn Any + Send + 'static> {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

impl fmt::Debug for PanicPayload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PanicPayload(..)")
    }
}

impl<E> GroupError<E> {
    /// Whether a task panicked.
    pub fn is_panic(&self) -> bool {
        matches!(self, GroupError::Panicked(_))
    }

    /// The panic payload.
    ///
    /// # Panics
    /// If the group did not fail by a panic.
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        match self {
            GroupError::Panicked(p) => p.into_inner(),
            _ => panic!("GroupError::into_panic on an error that is not a panic"),
        }
    }
}

impl<E: fmt::Debug> fmt::Debug for GroupError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupError::Failed(e) => f.debug_tuple("Failed").field(e).finish(),
            GroupError::Panicked(p) => f.debug_tuple("Panicked").field(p).finish(),
            GroupError::Cancelled => f.write_str("Cancelled"),
        }
    }
}

impl<E: fmt::Display> fmt::Display for GroupError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupError::Failed(e) => write!(f, "a task of the group failed: {e}"),
            GroupError::Panicked(_) => f.write_str("a task of the group panicked"),
            GroupError::Cancelled => f.write_str("a task of the group was cancelled"),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for GroupError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GroupError::Failed(e) => Some(e),
            _ => None,
        }
    }
}

/// A group of tasks that fails fast and cannot leak a task.
///
/// The first task that returns `Err` or panics aborts every other task of the group at once;
/// [`join`](Self::join) then waits until each of their futures has been dropped and reports
/// that first failure. A task spawned after the failure is dropped without running. Dropping
/// the group without joining aborts all its tasks. Unlike a [`JoinSet`](super::JoinSet), the
/// values come back in spawn order.
///
/// ```
/// let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
/// rt.block_on(async {
///     let group = rt::task::TaskGroup::<u32, String>::new();
///     for i in 0..4 {
///         group.spawn(async move { Ok(i * 10) });
///     }
///     assert_eq!(group.join().await.unwrap(), vec![0, 10, 20, 30]);
///
///     let group = rt::task::TaskGroup::<u32, String>::new();
///     group.spawn(std::future::pending());
///     group.spawn(async { Err("bad input".to_string()) });
///     assert!(matches!(group.join().await, Err(rt::task::GroupError::Failed(e)) if e == "bad input"));
/// });
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct TaskGroup<T, E> {
    shared: Arc<Shared<T, E>>,
}

struct Shared<T, E> {
    state: Mutex<State<T, E>>,
}

struct State<T, E> {
    /// Each task's value, by spawn index.
    values: Vec<Option<T>>,
    /// Each running task's abort handle, by spawn index (`None` once it ended).
    aborts: Vec<Option<AbortHandle>>,
    /// Whether each task's record has fired (so `spawn` does not store a handle after it).
    ended: Vec<bool>,
    /// Tasks whose record has not fired yet.
    live: usize,
    failure: Option<GroupError<E>>,
    /// Set at the first failure and when the group is dropped: no task may run any more.
    failed: bool,
    waker: Option<Waker>,
}

enum Outcome<T, E> {
    Done(Result<T, E>),
    Panic(Box<dyn Any + Send + 'static>),
    Cancelled,
}

impl<T, E> Shared<T, E> {
    fn finish(&self, index: usize, outcome: Outcome<T, E>) {
        let (to_abort, own, waker) = {
            let mut st = self.state.lock().unwrap();
            let own = st.aborts[index].take();
            st.ended[index] = true;
            let failure = match outcome {
                Outcome::Done(Ok(v)) => {
                    st.values[index] = Some(v);
                    None
                }
                Outcome::Done(Err(e)) => Some(GroupError::Failed(e)),
                Outcome::Panic(p) => Some(GroupError::Panicked(PanicPayload(Mutex::new(p)))),
                // Aborted by the group itself (after a failure or a drop): not a new failure.
                Outcome::Cancelled if st.failed => None,
                Outcome::Cancelled => Some(GroupError::Cancelled),
            };
            let mut to_abort = Vec::new();
            if let Some(f) = failure {
                if !st.failed {
                    st.failed = true;
                    st.failure = Some(f);
                    to_abort = st.aborts.iter().flatten().cloned().collect();
                }
            }
            st.live -= 1;
            let waker = if st.live == 0 { st.waker.take() } else { None };
            (to_abort, own, waker)
        };
        for a in to_abort {
            a.abort();
        }
        drop(own);
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// Drop guard of a group task: fires the record as `Cancelled` if the task ends unfinished.
struct Record<T, E> {
    shared: Option<Arc<Shared<T, E>>>,
    index: usize,
}

impl<T, E> Drop for Record<T, E> {
    fn drop(&mut self) {
        if let Some(s) = self.shared.take() {
            s.finish(self.index, Outcome::Cancelled);
        }
    }
}

struct Wrapper<F, T, E> {
    fut: F,
    record: Option<Record<T, E>>,
}

impl<F, T, E> Future for Wrapper<F, T, E>
where
    F: Future<Output = Result<T, E>>,
{
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: `fut` is structurally pinned (never moved out of the pinned wrapper);
        // `record` is not and is only taken.
        let this = unsafe { self.get_unchecked_mut() };
        if let Some(rec) = &this.record {
            let failed = rec
                .shared
                .as_ref()
                .is_some_and(|s| s.state.lock().unwrap().failed);
            if failed {
                // Spawned after (or racing with) the failure: end without polling the future.
                return Poll::Ready(());
            }
        }
        // SAFETY: see above.
        let fut = unsafe { Pin::new_unchecked(&mut this.fut) };
        let outcome = match catch_unwind(AssertUnwindSafe(|| fut.poll(cx))) {
            Ok(Poll::Pending) => return Poll::Pending,
            Ok(Poll::Ready(r)) => Outcome::Done(r),
            Err(p) => Outcome::Panic(p),
        };
        if let Some(mut rec) = this.record.take() {
            if let Some(s) = rec.shared.take() {
                s.finish(rec.index, outcome);
            }
        }
        Poll::Ready(())
    }
}

impl<T, E> Default for TaskGroup<T, E> {
    fn default() -> Self {
        TaskGroup::new()
    }
}

impl<T, E> TaskGroup<T, E> {
    /// An empty group.
    pub fn new() -> TaskGroup<T, E> {
        TaskGroup {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    values: Vec::new(),
                    aborts: Vec::new(),
                    ended: Vec::new(),
                    live: 0,
                    failure: None,
                    failed: false,
                    waker: None,
                }),
            }),
        }
    }

    /// Spawns `future` on the current runtime as a task of the group. After the group
    /// failed, the task is dropped without running.
    ///
    /// # Panics
    /// Outside a runtime.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> AbortHandle
    where
        F: Future<Output = Result<T, E>> + Send + 'static,
        T: Send + 'static,
        E: Send + 'static,
    {
        self.spawn_meta(future, rt_core::task::SpawnMeta::caller())
    }

    /// [`spawn`](Self::spawn) with an explicit priority ("Priorities" in the
    /// [module docs](super)); `spawn` inherits the spawning task's.
    ///
    /// # Panics
    /// Outside a runtime.
    #[track_caller]
    pub fn spawn_with_priority<F>(&self, priority: super::Priority, future: F) -> AbortHandle
    where
        F: Future<Output = Result<T, E>> + Send + 'static,
        T: Send + 'static,
        E: Send + 'static,
    {
        self.spawn_meta(
            future,
            rt_core::task::SpawnMeta::caller().with_priority(priority),
        )
    }

    fn spawn_meta<F>(&self, future: F, meta: rt_core::task::SpawnMeta<'_>) -> AbortHandle
    where
        F: Future<Output = Result<T, E>> + Send + 'static,
        T: Send + 'static,
        E: Send + 'static,
    {
        let handle = Handle::current();
        let index = {
            let mut st = self.shared.state.lock().unwrap();
            st.values.push(None);
            st.aborts.push(None);
            st.ended.push(false);
            st.live += 1;
            st.values.len() - 1
        };
        let join = handle.spawn_with(
            Wrapper {
                fut: future,
                record: Some(Record {
                    shared: Some(self.shared.clone()),
                    index,
                }),
            },
            meta,
        );
        let abort = join.into_abort_handle();
        let abort_now = {
            let mut st = self.shared.state.lock().unwrap();
            // If the task already ended, its record found no handle to drop: keep none.
            if !st.ended[index] {
                st.aborts[index] = Some(abort.clone());
            }
            st.failed
        };
        if abort_now {
            abort.abort();
        }
        abort
    }

    /// Waits for every task and returns their values in spawn order, or the first failure
    /// once every other task's future has been dropped.
    pub async fn join(self) -> Result<Vec<T>, GroupError<E>> {
        std::future::poll_fn(|cx| {
            let mut st = self.shared.state.lock().unwrap();
            if st.live > 0 {
                st.waker = Some(cx.waker().clone());
                return Poll::Pending;
            }
            Poll::Ready(match st.failure.take() {
                Some(f) => Err(f),
                None => Ok(st
                    .values
                    .drain(..)
                    .map(|v| v.expect("every task ended Ok"))
                    .collect()),
            })
        })
        .await
    }
}

impl<T, E> Drop for TaskGroup<T, E> {
    fn drop(&mut self) {
        let aborts: Vec<AbortHandle> = {
            let mut st = self.shared.state.lock().unwrap();
            st.failed = true;
            st.aborts.iter().flatten().cloned().collect()
        };
        for a in aborts {
            a.abort();
        }
    }
}

impl<T, E> fmt::Debug for TaskGroup<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let st = self.shared.state.lock().unwrap();
        f.debug_struct("TaskGroup")
            .field("tasks", &st.values.len())
            .field("live", &st.live)
            .field("failed", &st.failed)
            .finish()
    }
}
