//! [`JoinSet`]: a set of spawned tasks whose outputs are collected in completion order.
//!
//! Memory: each task runs a wrapper future around the user's future. When the wrapper finishes
//! (output, panic, or being dropped by an abort or a runtime shutdown, detected by the drop
//! guard [`Record`]) it moves the outcome into the set's shared state, drops the set's
//! `AbortHandle` of that task and wakes the set. The set keeps no `JoinHandle`, so a finished
//! task's cell is freed at once and only its output waits to be collected (tokio's `JoinSet`
//! keeps every finished task's cell until `join_next` collects it). The one exception: the
//! abort handles of the last spawns (fewer than `BIND_BATCH`, 32) wait in the set until its
//! next call, so up to 31 finished cells can outlive their tasks until then.
//!
//! Cost: slot keys are handed out by the set itself (no lock), the abort handles of 32 spawns
//! are stored under one lock (`bind_unbound`), a task's end takes the lock once (`finish`),
//! and `join_next` moves every recorded outcome out under one lock. Per task that is about one
//! lock round trip, against four in the first version (rt/tokio 0.87 → about 0.5, see
//! `docs/BENCHMARKS.md`).

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
    /// Outcomes already taken from `shared.done` in one batch, served by `join_next` first.
    ready: VecDeque<(Id, Result<T, JoinError>)>,
    /// Slot keys free for the next spawn: a key comes back when its outcome is collected.
    free: Vec<usize>,
    /// Keys below this were handed out in the current epoch.
    next_key: usize,
    /// Tasks in the set: running plus finished and not collected (`len`).
    len: usize,
    /// The set's epoch (a copy: only `&mut self` methods change `State::epoch`).
    epoch: u64,
    /// Spawned tasks whose abort handles are not in their slots yet: `bind` runs for up to
    /// `BIND_BATCH` of them under one lock. Flushed before anything that reads the slots or
    /// collects outcomes (a key is reused only after its bind ran).
    unbound: Vec<(usize, AbortHandle)>,
    /// Each key's task id, set at spawn, read when its outcome is collected.
    ids: Vec<Id>,
}

use crate::tuning::JOIN_SET_BIND_BATCH as BIND_BATCH;

// The set never pins an output in place: outcomes are moved in and out of its queues. So it is
// `Unpin` whatever `T` is, as tokio's is (tokio-stream's `JoinSetStream` relies on it).
impl<T> Unpin for JoinSet<T> {}

// SAFETY: `Sync` without `T: Sync`, as tokio's: through `&JoinSet` only `len`, `is_empty` and
// `Debug` (which prints the length) are reachable, and none of them touches an output; every
// access to a `T` takes `&mut self` or `self`. `T: Send` because the outputs arrive from the
// tasks' threads (the state's mutex is `Sync` only then).
unsafe impl<T: Send> Sync for JoinSet<T> {}

struct Shared<T> {
    state: Mutex<State<T>>,
}

/// What the set shares with its tasks' records, behind one lock. Each task touches it twice
/// (`bind` at spawn, `finish` at its end); `join_next` takes finished outcomes out in batches.
struct State<T> {
    /// Indexed by key; grown by whichever of `bind` and `finish` comes first.
    slots: Vec<Slot>,
    /// Finished tasks' outcomes with their keys, in completion order.
    done: Vec<(usize, Outcome<T>)>,
    waker: Option<Waker>,
    /// Bumped by `detach_all` and drop: a task spawned in an earlier epoch is no longer the
    /// set's, and its record must not touch the slot of the same index.
    epoch: u64,
}

/// One key's slot. Rules:
/// 1. A key is handed out by `spawn` only while its slot is `Empty` and its last outcome was
///    collected.
/// 2. Exactly one of `bind` and `finish` finds the slot `Empty`; the other finds what the
///    first one left (`Running`, or `Finished`), and leaves `Empty`.
/// 3. `finish` always queues the outcome in `done` (so outcomes keep completion order), and
///    the set's collection runs every pending `bind` first, so a key leaves `done` only after
///    rule 2 has played out for it.
enum Slot {
    /// No task, or a task spawned whose `bind` and `finish` have not run yet.
    Empty,
    /// Running; the set can abort it.
    Running(AbortHandle),
    /// Finished before `bind` stored its handle: `bind` drops the handle instead.
    Finished,
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

impl<T> State<T> {
    fn slot(&mut self, key: usize) -> &mut Slot {
        if key >= self.slots.len() {
            self.slots.resize_with(key + 1, || Slot::Empty);
        }
        &mut self.slots[key]
    }
}

impl<T> Shared<T> {
    /// Records slot `key`'s outcome (rule: the wrapper calls this exactly once, when its task
    /// ends one way or the other).
    fn finish(&self, key: usize, epoch: u64, outcome: Outcome<T>) {
        let (waker, abort) = {
            let mut st = self.state.lock().unwrap();
            if st.epoch != epoch {
                // Detached, or the set is gone: nobody collects the outcome.
                return;
            }
            let slot = st.slot(key);
            let abort = match std::mem::replace(slot, Slot::Empty) {
                Slot::Running(abort) => Some(abort),
                Slot::Empty => {
                    // `bind` has not run yet: it finds `Finished` and keeps no handle.
                    *slot = Slot::Finished;
                    None
                }
                Slot::Finished => unreachable!("a task's record finished twice"),
            };
            st.done.push((key, outcome));
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
                    done: Vec::new(),
                    waker: None,
                    epoch: 0,
                }),
            }),
            ready: VecDeque::new(),
            free: Vec::new(),
            next_key: 0,
            len: 0,
            epoch: 0,
            unbound: Vec::new(),
            ids: Vec::new(),
        }
    }

    /// Tasks in the set: running, or finished and not yet joined.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the set holds no task.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Hands out a free key (no lock: keys are the set's own until a task is spawned).
    fn reserve(&mut self) -> Record<T> {
        let key = self.free.pop().unwrap_or_else(|| {
            self.next_key += 1;
            self.next_key - 1
        });
        self.len += 1;
        Record {
            shared: Some(self.shared.clone()),
            key,
            epoch: self.epoch,
        }
    }

    /// Stores the spawned tasks' abort handles in their slots (rule 2: or drops those of tasks
    /// that already finished).
    fn bind_unbound(&mut self) {
        if self.unbound.is_empty() {
            return;
        }
        let mut finished = Vec::new();
        {
            let mut st = self.shared.state.lock().unwrap();
            for (key, abort) in self.unbound.drain(..) {
                let slot = st.slot(key);
                match std::mem::replace(slot, Slot::Empty) {
                    Slot::Finished => finished.push(abort),
                    Slot::Empty => *slot = Slot::Running(abort),
                    Slot::Running(_) => unreachable!("a JoinSet key handed out twice"),
                }
            }
        }
        // Outside the lock: dropping these abort handles frees the finished tasks' cells.
        drop(finished);
    }

    fn bind(&mut self, key: usize, abort: &AbortHandle) {
        if key >= self.ids.len() {
            self.ids.resize(key + 1, abort.id());
        }
        self.ids[key] = abort.id();
        self.unbound.push((key, abort.clone()));
        if self.unbound.len() >= BIND_BATCH {
            self.bind_unbound();
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

    /// Spawns `future` on the current runtime into the set with `priority` ("Priorities" in
    /// the [module docs](super)); [`spawn`](Self::spawn) inherits the spawning task's.
    ///
    /// ```
    /// use rt::task::{JoinSet, Priority};
    /// let rt = rt::Builder::new_current_thread().build()?;
    /// rt.block_on(async {
    ///     let mut set = JoinSet::new();
    ///     set.spawn_with_priority(Priority::Background, async { rt::task::current_priority() });
    ///     assert_eq!(set.join_next().await.unwrap().unwrap(), Priority::Background);
    /// });
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Panics
    /// Outside a runtime.
    #[track_caller]
    pub fn spawn_with_priority<F>(&mut self, priority: super::Priority, future: F) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let handle = Handle::current();
        let (key, wrapper) = self.wrap(future);
        let meta = rt_core::task::SpawnMeta::caller().with_priority(priority);
        let join = handle.spawn_with(wrapper, meta);
        self.bind_join(key, join)
    }

    /// Spawns `future` on the runtime of `handle` into the set.
    #[track_caller]
    pub fn spawn_on<F>(&mut self, future: F, handle: &Handle) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let (key, wrapper) = self.wrap(future);
        // Spawned here, in the `#[track_caller]` method, so the task records our caller.
        let join = handle.spawn(wrapper);
        self.bind_join(key, join)
    }

    /// Spawns a `!Send` `future` into the set, on the `LocalSet` this runs in (as
    /// [`crate::task::spawn_local`]).
    ///
    /// # Panics
    /// Outside a `LocalSet`'s `run_until` or `block_on`.
    #[track_caller]
    pub fn spawn_local<F>(&mut self, future: F) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
        T: 'static,
    {
        let (key, wrapper) = self.wrap(future);
        let join = super::spawn_local(wrapper);
        self.bind_join(key, join)
    }

    /// Spawns a `!Send` `future` into the set, on `local_set` (it runs when the `LocalSet` is
    /// driven).
    #[track_caller]
    pub fn spawn_local_on<F>(&mut self, future: F, local_set: &super::LocalSet) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
        T: 'static,
    {
        let (key, wrapper) = self.wrap(future);
        let join = local_set.spawn_local(wrapper);
        self.bind_join(key, join)
    }

    /// A slot for `future` and the wrapper that reports its outcome there. The caller spawns
    /// the wrapper itself (so `#[track_caller]` sees the user's call) and hands the handle to
    /// [`JoinSet::bind_join`].
    fn wrap<F: Future<Output = T>>(&mut self, future: F) -> (usize, Wrapper<F>) {
        let record = self.reserve();
        let key = record.key;
        (
            key,
            Wrapper {
                fut: future,
                record: Some(record),
            },
        )
    }

    /// Binds the spawned wrapper's abort handle to its slot.
    fn bind_join(&mut self, key: usize, join: super::JoinHandle<()>) -> AbortHandle {
        // Detached: the wrapper delivers the outcome, so the cell can go when the task ends.
        let abort = join.into_abort_handle();
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
        self.spawn_blocking_on(f, &Handle::current())
    }

    /// Runs `f` on the blocking pool of `handle`'s runtime as a task of the set.
    #[track_caller]
    pub fn spawn_blocking_on<F>(&mut self, f: F, handle: &Handle) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let record = self.reserve();
        let key = record.key;
        let join = handle.spawn_blocking(move || {
            let outcome = match catch_unwind(AssertUnwindSafe(f)) {
                Ok(v) => Outcome::Output(v),
                Err(p) => Outcome::Panic(p),
            };
            record.complete(outcome);
        });
        let abort = join.into_abort_handle();
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

    /// Moves every outcome recorded so far into `ready`, registering `waker` if there is none
    /// and tasks are still running.
    fn collect(&mut self, waker: Option<&Waker>) {
        self.bind_unbound();
        // Take the whole batch (and its buffer: a set that was not drained for a long time
        // does not keep a second buffer of its size) and sort it outside the lock.
        let (batch, _replaced) = {
            let mut st = self.shared.state.lock().unwrap();
            let batch = std::mem::take(&mut st.done);
            let mut replaced = None;
            if let Some(w) = waker {
                if batch.is_empty() && self.ready.is_empty() && self.len > 0 {
                    match &st.waker {
                        Some(old) if old.will_wake(w) => {}
                        // The old waker is dropped after the lock is released: its drop may
                        // run anything, a task of this set's included, whose end takes the lock.
                        _ => replaced = st.waker.replace(w.clone()),
                    }
                }
            }
            (batch, replaced)
        };
        let ready = &mut self.ready;
        ready.reserve(batch.len());
        for (key, outcome) in batch {
            self.free.push(key);
            let id = self.ids[key];
            ready.push_back((id, outcome.into_result(id)));
        }
    }

    fn pop_ready(&mut self) -> Option<Result<(Id, T), JoinError>> {
        let (id, res) = self.ready.pop_front()?;
        self.len -= 1;
        Some(res.map(|v| (id, v)))
    }

    /// Polls for the next finished task: `Ready(None)` if the set is empty, `Pending` (with
    /// `cx`'s waker registered) while every task still runs. An outcome spends a unit of the
    /// cooperative budget; with the budget spent it returns `Pending` (after waking the task)
    /// even if outcomes wait. For hand-written futures and streams; `join_next` is this in a
    /// future.
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        self.poll_join_next_with_id(cx)
            .map(|r| r.map(|r| r.map(|(_, v)| v)))
    }

    /// As [`poll_join_next`](Self::poll_join_next), with the finished task's id.
    pub fn poll_join_next_with_id(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<(Id, T), JoinError>>> {
        if self.len == 0 {
            return Poll::Ready(None);
        }
        // An outcome spends a unit of the cooperative budget (as a `JoinHandle` does); with
        // the budget spent the set yields, even with outcomes waiting (tokio's `JoinSet`).
        let coop = std::task::ready!(rt_core::coop::poll_proceed(cx));
        if self.ready.is_empty() {
            self.collect(Some(cx.waker()));
        }
        let r = self.pop_ready();
        if r.is_some() {
            coop.made_progress();
            return Poll::Ready(r);
        }
        Poll::Pending
    }

    /// The outcome of a task that already finished, without waiting; `None` if none has.
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        self.try_join_next_with_id().map(|r| r.map(|(_, v)| v))
    }

    /// As [`try_join_next`](Self::try_join_next), with the finished task's id.
    pub fn try_join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        if self.ready.is_empty() {
            self.collect(None);
        }
        self.pop_ready()
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
        self.bind_unbound();
        let handles: Vec<AbortHandle> = {
            let st = self.shared.state.lock().unwrap();
            st.slots
                .iter()
                .filter_map(|s| match s {
                    Slot::Running(a) => Some(a.clone()),
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
        self.unbound.clear();
        let mut st = self.shared.state.lock().unwrap();
        // Dropped after the lock is released, as in `Drop`.
        let _slots = std::mem::take(&mut st.slots);
        let _done = std::mem::take(&mut st.done);
        st.epoch += 1;
        self.epoch = st.epoch;
        drop(st);
        self.ready.clear();
        self.free.clear();
        self.next_key = 0;
        self.len = 0;
    }

    /// Aborts every task and waits until all have ended (each future dropped), discarding
    /// their outcomes.
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }
}

/// Spawns every future of the iterator on the current runtime into a new set (tokio's
/// `collect::<JoinSet<_>>()`).
///
/// # Panics
/// Outside a runtime.
impl<T, F> FromIterator<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    #[track_caller]
    fn from_iter<I: IntoIterator<Item = F>>(iter: I) -> Self {
        let mut set = JoinSet::new();
        set.extend(iter);
        set
    }
}

/// Spawns every future of the iterator on the current runtime into the set.
///
/// # Panics
/// Outside a runtime.
impl<T, F> Extend<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    #[track_caller]
    fn extend<I: IntoIterator<Item = F>>(&mut self, iter: I) {
        let handle = Handle::current();
        for future in iter {
            self.spawn_on(future, &handle);
        }
    }
}

impl<T> Drop for JoinSet<T> {
    fn drop(&mut self) {
        self.bind_unbound();
        // The outcomes and the waker are dropped after the lock is released: their drops may
        // run anything, the end of a task of this set (which takes the lock) included.
        let (handles, _done, _waker): (Vec<AbortHandle>, _, _) = {
            let mut st = self.shared.state.lock().unwrap();
            let handles = st
                .slots
                .drain(..)
                .filter_map(|s| match s {
                    Slot::Running(a) => Some(a),
                    _ => None,
                })
                .collect();
            st.epoch += 1;
            (handles, std::mem::take(&mut st.done), st.waker.take())
        };
        for h in handles {
            h.abort();
        }
    }
}

impl<T> std::fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JoinSet").field("len", &self.len).finish()
    }
}
