//! [`JoinSet`]: a set of spawned tasks whose outputs are collected in completion order.
//!
//! Memory: each task runs a wrapper future around the user's future. When the wrapper finishes
//! (output, panic, or being dropped by an abort or a runtime shutdown, detected by the drop
//! guard [`Record`]) it moves the outcome into the set's shared state, drops the set's
//! `AbortHandle` of that task and wakes the set. The set keeps no `JoinHandle`, so a finished
//! task's cell is freed at once and only its output waits to be collected (tokio's `JoinSet`
//! keeps every finished task's cell until `join_next` collects it).

use std::collections::VecDeque;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use rt_core::sync::{Arc, Mutex};

use super::{AbortHandle, Id, JoinError};
use crate::Handle;

/// A collection of tasks spawned on a runtime, joined in the order they finish.
///
/// tokio's shape. Dropping the set aborts every task still in it.
///
/// ```
/// let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
/// rt.block_on(async {
///     let mut set = rt::task::JoinSet::new();
///     for i in 0..10u32 {
///         set.spawn(async move { i * 2 });
///     }
///     let mut sum = 0;
///     while let Some(res) = set.join_next().await {
///         sum += res.unwrap();
///     }
///     assert_eq!(sum, 90);
/// });
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct JoinSet<T> {
    shared: Arc<Shared<T>>,
}

struct Shared<T> {
    state: Mutex<State<T>>,
}

struct State<T> {
    /// One entry per task not yet collected by `join_next`: running or finished.
    slots: Vec<Option<Slot<T>>>,
    free: Vec<usize>,
    /// Finished tasks' outcomes, in completion order.
    done: VecDeque<(Id, Result<T, JoinError>)>,
    /// Tasks in the set: running plus finished and not collected (`len`).
    len: usize,
    waker: Option<Waker>,
    /// Bumped by `detach_all` and drop: a task spawned in an earlier epoch is no longer the
    /// set's, and its record must not touch the slot of the same index.
    epoch: u64,
}

enum Slot<T> {
    /// Spawned, `spawn` has not yet stored its id and abort handle.
    Spawning,
    /// Running; the set can abort it.
    Running(AbortHandle),
    /// Finished before `spawn` stored its handle; `spawn` moves the outcome to `done`.
    FinishedEarly(Outcome<T>),
}

/// What a task's wrapper recorded.
enum Outcome<T> {
    Output(T),
    Panic(Box<dyn std::any::Any + Send + 'static>),
    Cancelled,
}

impl<T> Outcome<T> {
    fn into_result(self, id: Id) -> Result<T, JoinError> {
        match self {
            Outcome::Output(v) => Ok(v),
            Outcome::Panic(p) => Err(JoinError::panic(id, p)),
            Outcome::Cancelled => Err(JoinError::cancelled(id)),
        }
    }
}

impl<T> Shared<T> {
    /// Records slot `key`'s outcome (rule: the wrapper calls this exactly once, when its task
    /// ends one way or the other).
    fn finish(&self, key: usize, epoch: u64, outcome: Outcome<T>) {
        let (waker, abort) = {
            let mut st = self.state.lock().unwrap();
            if st.epoch != epoch || key >= st.slots.len() {
                // Detached, or the set is gone: nobody collects the outcome.
                return;
            }
            let abort = match st.slots[key].take() {
                Some(Slot::Running(abort)) => {
                    let id = abort.id();
                    st.done.push_back((id, outcome.into_result(id)));
                    st.free.push(key);
                    Some(abort)
                }
                Some(Slot::Spawning) => {
                    st.slots[key] = Some(Slot::FinishedEarly(outcome));
                    None
                }
                // The set was dropped or detached this task: nobody collects the outcome.
                None | Some(Slot::FinishedEarly(_)) => None,
            };
            (st.waker.take(), abort)
        };
        // Outside the lock: dropping the abort handle may free the task's cell.
        drop(abort);
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// The wrapper's drop guard: a task dropped before it finished (aborted, or dropped by a
/// runtime shutdown) is recorded as cancelled.
struct Record<T> {
    shared: Option<Arc<Shared<T>>>,
    key: usize,
    epoch: u64,
}

impl<T> Record<T> {
    fn complete(mut self, outcome: Outcome<T>) {
        if let Some(shared) = self.shared.take() {
            shared.finish(self.key, self.epoch, outcome);
        }
    }
}

impl<T> Drop for Record<T> {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            shared.finish(self.key, self.epoch, Outcome::Cancelled);
        }
    }
}

/// The future a set's task runs: the user's future, caught panics, and the record.
struct Wrapper<F: Future> {
    fut: F,
    record: Option<Record<F::Output>>,
}

impl<F: Future> Future for Wrapper<F> {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: `fut` is structurally pinned: it is never moved out of the wrapper, which
        // is itself pinned; `record` is not structurally pinned and only taken.
        let this = unsafe { self.get_unchecked_mut() };
        // SAFETY: see above.
        let fut = unsafe { Pin::new_unchecked(&mut this.fut) };
        let outcome = match catch_unwind(AssertUnwindSafe(|| fut.poll(cx))) {
            Ok(Poll::Pending) => return Poll::Pending,
            Ok(Poll::Ready(v)) => Outcome::Output(v),
            Err(payload) => Outcome::Panic(payload),
        };
        if let Some(record) = this.record.take() {
            record.complete(outcome);
        }
        Poll::Ready(())
    }
}

impl<T> Default for JoinSet<T> {
    fn default() -> Self {
        JoinSet::new()
    }
}

impl<T> JoinSet<T> {
    /// An empty set.
    pub fn new() -> JoinSet<T> {
        JoinSet {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    slots: Vec::new(),
                    free: Vec::new(),
                    done: VecDeque::new(),
                    len: 0,
                    waker: None,
                    epoch: 0,
                }),
            }),
        }
    }

    /// Tasks in the set: running, or finished and not yet joined.
    pub fn len(&self) -> usize {
        self.shared.state.lock().unwrap().len
    }

    /// Whether the set holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn reserve(&self) -> Record<T> {
        let mut st = self.shared.state.lock().unwrap();
        let key = match st.free.pop() {
            Some(k) => {
                st.slots[k] = Some(Slot::Spawning);
                k
            }
            None => {
                st.slots.push(Some(Slot::Spawning));
                st.slots.len() - 1
            }
        };
        st.len += 1;
        Record {
            shared: Some(self.shared.clone()),
            key,
            epoch: st.epoch,
        }
    }

    /// Stores the spawned task's abort handle in its slot, or its outcome if it already ended.
    fn bind(&self, key: usize, abort: &AbortHandle) {
        let mut st = self.shared.state.lock().unwrap();
        match st.slots[key].take() {
            Some(Slot::FinishedEarly(outcome)) => {
                let id = abort.id();
                st.done.push_back((id, outcome.into_result(id)));
                st.free.push(key);
            }
            Some(Slot::Spawning) => st.slots[key] = Some(Slot::Running(abort.clone())),
            other => st.slots[key] = other,
        }
    }

    /// Spawns `future` on the current runtime into the set.
    ///
    /// # Panics
    /// Outside a runtime.
    #[track_caller]
    pub fn spawn<F>(&mut self, future: F) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        self.spawn_on(future, &Handle::current())
    }

    /// Spawns `future` on the runtime of `handle` into the set.
    #[track_caller]
    pub fn spawn_on<F>(&mut self, future: F, handle: &Handle) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let record = self.reserve();
        let key = record.key;
        let join = handle.spawn(Wrapper {
            fut: future,
            record: Some(record),
        });
        let abort = join.abort_handle();
        // Detached: the wrapper delivers the outcome, so the cell can go when the task ends.
        drop(join);
        self.bind(key, &abort);
        abort
    }

    /// Runs `f` on the current runtime's blocking pool as a task of the set.
    ///
    /// # Panics
    /// Outside a runtime.
    #[track_caller]
    pub fn spawn_blocking<F>(&mut self, f: F) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let record = self.reserve();
        let key = record.key;
        let join = Handle::current().spawn_blocking(move || {
            let outcome = match catch_unwind(AssertUnwindSafe(f)) {
                Ok(v) => Outcome::Output(v),
                Err(p) => Outcome::Panic(p),
            };
            record.complete(outcome);
        });
        let abort = join.abort_handle();
        drop(join);
        self.bind(key, &abort);
        abort
    }

    /// Waits for the next task to finish and returns its outcome, or `None` if the set is
    /// empty.
    ///
    /// # Cancel safety
    /// Cancel safe: if dropped before it returns, no outcome is lost; it stays in the set.
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        self.join_next_with_id().await.map(|r| r.map(|(_, v)| v))
    }

    /// As [`join_next`](Self::join_next), with the finished task's id.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        std::future::poll_fn(|cx| self.poll_join_next_with_id(cx)).await
    }

    fn poll_join_next_with_id(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<(Id, T), JoinError>>> {
        let mut st = self.shared.state.lock().unwrap();
        if let Some((id, res)) = st.done.pop_front() {
            st.len -= 1;
            return Poll::Ready(Some(res.map(|v| (id, v))));
        }
        if st.len == 0 {
            return Poll::Ready(None);
        }
        match &st.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => st.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// The outcome of a task that already finished, without waiting; `None` if none has.
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        self.try_join_next_with_id().map(|r| r.map(|(_, v)| v))
    }

    /// As [`try_join_next`](Self::try_join_next), with the finished task's id.
    pub fn try_join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        let mut st = self.shared.state.lock().unwrap();
        let (id, res) = st.done.pop_front()?;
        st.len -= 1;
        Some(res.map(|v| (id, v)))
    }

    /// Waits for every task and returns their outputs in completion order.
    ///
    /// # Panics
    /// On the first task that failed (panicked or was cancelled), after aborting the rest: a
    /// panic is resumed with its payload.
    pub async fn join_all(mut self) -> Vec<T> {
        let mut out = Vec::with_capacity(self.len());
        while let Some(res) = self.join_next().await {
            match res {
                Ok(v) => out.push(v),
                Err(e) => {
                    self.abort_all();
                    if e.is_panic() {
                        std::panic::resume_unwind(e.into_panic());
                    }
                    panic!("{e}");
                }
            }
        }
        out
    }

    /// Aborts every task in the set; they stay in it (their outcomes, mostly cancellations,
    /// come out of `join_next`).
    pub fn abort_all(&mut self) {
        let handles: Vec<AbortHandle> = {
            let st = self.shared.state.lock().unwrap();
            st.slots
                .iter()
                .filter_map(|s| match s {
                    Some(Slot::Running(a)) => Some(a.clone()),
                    _ => None,
                })
                .collect()
        };
        for h in handles {
            h.abort();
        }
    }

    /// Removes every task from the set without aborting it: running tasks go on, detached.
    pub fn detach_all(&mut self) {
        let mut st = self.shared.state.lock().unwrap();
        st.slots.clear();
        st.free.clear();
        st.done.clear();
        st.len = 0;
        st.epoch += 1;
    }

    /// Aborts every task and waits until all have ended (each future dropped), discarding
    /// their outcomes.
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }
}

impl<T> Drop for JoinSet<T> {
    fn drop(&mut self) {
        let handles: Vec<AbortHandle> = {
            let mut st = self.shared.state.lock().unwrap();
            let handles = st
                .slots
                .drain(..)
                .filter_map(|s| match s {
                    Some(Slot::Running(a)) => Some(a),
                    _ => None,
                })
                .collect();
            st.done.clear();
            st.len = 0;
            st.epoch += 1;
            handles
        };
        for h in handles {
            h.abort();
        }
    }
}

impl<T> std::fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JoinSet").field("len", &self.len()).finish()
    }
}
