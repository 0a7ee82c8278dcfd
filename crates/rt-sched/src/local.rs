//! `LocalSet`: tasks that stay on one thread, so their futures and outputs need not be `Send`.
//!
//! The tasks are ordinary rt-core task cells (frame-pool allocated), bound through
//! `OwnedTasks::bind_local_in`, whose contract this scheduler keeps:
//!
//! - Only the thread that created the `LocalSet` polls its tasks: `LocalSet` is `!Send` and
//!   `!Sync`, and its queue is drained only inside [`RunUntil::poll`] (which borrows the set).
//! - Only that thread drops their futures: abort and wakes from other threads just queue a
//!   `Notified`; the set's `Drop` (on its thread) cancels every task still live.
//! - Wakes from any thread push onto one shared queue (a `Mutex<VecDeque>`) and wake the
//!   future that drives the set (`RunUntil`), stored at each of its polls. A wake on the set's
//!   own thread while it is being driven skips that: the driver re-checks the queue before it
//!   returns.
//!
//! `run_until` runs at most 61 queued tasks per poll, then polls the outer future again; a
//! set with more work left wakes its own driver, so it never hogs the thread that runs it.
//!
//! Observation (all behind `rt_core::OBSERVE`): a set driven inside a runtime attaches to that
//! runtime's [`Observer`] (`observe.rs`), which lists its tasks in the runtime's dump and lends
//! it the runtime's trace recorder: each poll is a slice on the track of the thread that runs
//! it (nested in the slice of an enclosing poll, if any), spawns, wakes and completions are
//! recorded as the other schedulers record theirs. Each poll also writes the poll stamp of the
//! thread, if the thread has one (`crate::stall::with_thread_stamp`: a current-thread
//! runtime's `block_on` thread), so that runtime's stall monitor names a local task that
//! blocks it; the enclosing stamp is put back after the set's round.

mod observe;

pub use observe::{enter as enter_observer, Observer, ObserverGuard};

// `RefCell`, not a shim type: the thread-local's own value, touched by its thread only.
use std::cell::RefCell;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use rt_core::sync::{Arc, Mutex, OnceLock, StdArc};
use rt_core::task::{JoinHandle, Notified, OwnedTasks, Schedule, SpawnMeta, Task};

use crate::run_queue::RunQueue;
use crate::trace::Recorder;

use crate::tuning::LOCAL_TASKS_PER_TICK;

struct Shared {
    /// `None` once the set is dropped: later wakes drop their `Notified`.
    queue: RunQueue<Notified<Handle>>,
    owned: OwnedTasks<Handle>,
    /// The waker of the future that drives the set, refreshed at each of its polls.
    waker: Mutex<Option<Waker>>,
    /// The trace recorder of the first runtime with a trace file the set was attached to
    /// (module docs, "Observation").
    trace: OnceLock<StdArc<Recorder>>,
}

impl Shared {
    /// The recorder, if the set records (and observation is compiled in).
    #[inline]
    fn trace(&self) -> Option<&Recorder> {
        if rt_core::OBSERVE {
            self.trace.get().map(|r| &**r)
        } else {
            None
        }
    }
}

/// The `Schedule` of a local task: where its wakes go.
#[derive(Clone)]
pub struct Handle {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("local::Handle")
            .field("live_tasks", &self.shared.owned.len())
            .finish()
    }
}

rt_core::sync::thread_local! {
    /// The set `spawn_local` spawns onto on this thread, and whether it is being driven right
    /// now (inside its `run_until` or `poll_all`, or its `Drop`) rather than only entered
    /// (`LocalSet::enter`). A spawn or wake on this thread skips waking the driver only while
    /// it is being driven: the driver re-checks the queue before it returns.
    static CURRENT_LOCAL_SET: RefCell<Option<(Handle, bool)>> = const { RefCell::new(None) };
}

/// A set of tasks that run on the thread that drives it ([`LocalSet::run_until`]); see the
/// module docs. `!Send`, `!Sync`.
pub struct LocalSet {
    handle: Handle,
    /// The runtime observer the set is attached to (module docs, "Observation").
    attached: RefCell<Option<Arc<Observer>>>,
    _not_send: PhantomData<*const ()>,
}

impl std::fmt::Debug for LocalSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalSet")
            .field("live_tasks", &self.handle.shared.owned.len())
            .finish()
    }
}

impl Default for LocalSet {
    fn default() -> LocalSet {
        LocalSet::new()
    }
}

/// Restores the previous `CURRENT_LOCAL_SET` when dropped.
struct Enter(Option<(Handle, bool)>);

impl Enter {
    /// Makes `h` current; `driving` says whether its queue is being run on this thread now.
    /// After the thread's thread-locals are gone (a set dropped by another thread-local's
    /// destructor at thread exit) nothing is made current: a spawn there finds no set.
    fn new(h: &Handle, driving: bool) -> Enter {
        Enter(
            CURRENT_LOCAL_SET
                .try_with(|c| c.replace(Some((h.clone(), driving))))
                .ok()
                .flatten(),
        )
    }
}

impl Drop for Enter {
    fn drop(&mut self) {
        let prev = self.0.take();
        let _ = CURRENT_LOCAL_SET.try_with(|c| *c.borrow_mut() = prev);
    }
}

impl LocalSet {
    /// An empty set.
    pub fn new() -> LocalSet {
        LocalSet {
            handle: Handle {
                shared: Arc::new(Shared {
                    queue: RunQueue::with_capacity(0),
                    owned: OwnedTasks::new(0),
                    waker: Mutex::new(None),
                    trace: OnceLock::new(),
                }),
            },
            attached: RefCell::new(None),
            _not_send: PhantomData,
        }
    }

    /// Spawns `future` on this set: it runs while the set is driven by
    /// [`run_until`](Self::run_until), on the thread driving it.
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.attach();
        self.handle.spawn(future, SpawnMeta::caller())
    }

    /// [`spawn_local`](Self::spawn_local) with an explicit name and spawn location.
    pub fn spawn_local_with<F>(&self, future: F, meta: SpawnMeta<'_>) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.attach();
        self.handle.spawn(future, meta)
    }

    /// Runs `future` on the calling task, and the set's tasks alongside it, until `future`
    /// completes. Inside it, [`spawn_local`] spawns onto this set.
    pub fn run_until<F: Future>(&self, future: F) -> RunUntil<'_, F> {
        RunUntil {
            set: self,
            future,
            _pin: std::marker::PhantomPinned,
        }
    }

    /// Tasks of this set that are still live.
    pub fn live_tasks(&self) -> usize {
        self.handle.shared.owned.len()
    }

    /// Attaches the set to the observer of the runtime current on this thread, if there is
    /// one and the set is not attached to it yet (module docs, "Observation").
    #[inline]
    fn attach(&self) {
        if !rt_core::OBSERVE {
            return;
        }
        observe::with_current(|obs| {
            let Some(obs) = obs else {
                return;
            };
            let mut attached = self.attached.borrow_mut();
            if attached.as_ref().is_some_and(|a| Arc::ptr_eq(a, obs)) {
                return;
            }
            let shared = &self.handle.shared;
            if let Some(old) = attached.take() {
                old.detach(shared);
            }
            obs.attach(shared);
            if let Some(t) = &obs.trace {
                let _ = shared.trace.set(t.clone());
            }
            *attached = Some(obs.clone());
        });
    }
}

impl Drop for LocalSet {
    fn drop(&mut self) {
        // Off the dump's list before the close: no walk may overlap it (`observe.rs`).
        if let Some(obs) = self.attached.get_mut().take() {
            obs.detach(&self.handle.shared);
        }
        // On the set's own thread (it is `!Send`): every live task's future is dropped here.
        let _enter = Enter::new(&self.handle, true);
        self.handle.close();
    }
}

impl Handle {
    fn spawn<F>(&self, future: F, meta: SpawnMeta<'_>) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        let id = rt_core::task::next_id();
        // SAFETY: this scheduler polls and shuts down its tasks only on the set's thread,
        // which is this one (`LocalSet` is `!Send`, and `CURRENT_LOCAL_SET` is a
        // thread-local); wakes from elsewhere only queue the `Notified` (module docs).
        let (join, notified) = unsafe {
            self.shared
                .owned
                .bind_local_in(usize::MAX, future, self.clone(), id, meta, true)
        };
        if let Some(r) = self.shared.trace() {
            r.spawn_here(id.as_u64(), &meta);
        }
        if let Some(n) = notified {
            self.push(n);
        }
        join
    }

    /// Cancels every live task (their futures dropped on this thread) and drops what is
    /// queued.
    fn close(&self) {
        self.shared.owned.close_and_shutdown_all();
        self.shared.queue.close();
        drop(self.shared.waker.lock().unwrap().take());
    }

    /// Whether this set is being driven on this thread right now.
    fn is_driven_here(&self) -> bool {
        CURRENT_LOCAL_SET
            .try_with(|c| {
                c.borrow()
                    .as_ref()
                    .is_some_and(|(h, driving)| *driving && Arc::ptr_eq(&h.shared, &self.shared))
            })
            .unwrap_or(false)
    }
}

/// Whether some [`LocalSet`] is being driven on this thread right now (inside its `run_until`,
/// its poll as a future, or its `Drop`). The facade's `block_in_place` refuses to run there, as
/// tokio's does: the set's tasks belong to this thread and cannot move with the worker.
pub fn driven_here() -> bool {
    CURRENT_LOCAL_SET
        .try_with(|c| c.borrow().as_ref().is_some_and(|(_, driving)| *driving))
        .unwrap_or(false)
}

/// Spawns `future` onto the [`LocalSet`] being driven on this thread.
///
/// # Panics
/// Outside a `LocalSet`'s `run_until` (or its `block_on`), with a message saying so.
#[track_caller]
pub fn spawn_local<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    spawn_local_with(future, SpawnMeta::caller())
}

/// [`spawn_local`] with an explicit name and spawn location.
///
/// # Panics
/// As [`spawn_local`]; the panic names the caller's location.
#[track_caller]
pub fn spawn_local_with<F>(future: F, meta: SpawnMeta<'_>) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    match try_spawn_local_with(future, meta) {
        Ok(join) => join,
        Err(_) => no_local_set(),
    }
}

/// [`spawn_local_with`] that hands `future` back when no [`LocalSet`] is entered on this
/// thread, for callers that say more about why (rt's `LocalRuntime` entered on another thread).
pub fn try_spawn_local_with<F>(future: F, meta: SpawnMeta<'_>) -> Result<JoinHandle<F::Output>, F>
where
    F: Future + 'static,
    F::Output: 'static,
{
    let h = CURRENT_LOCAL_SET
        .try_with(|c| c.borrow().as_ref().map(|(h, _)| h.clone()))
        .ok()
        .flatten();
    match h {
        Some(h) => Ok(h.spawn(future, meta)),
        None => Err(future),
    }
}

/// The panic of a local spawn outside every [`LocalSet`].
#[cold]
#[track_caller]
pub fn no_local_set() -> ! {
    panic!(
        "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`: \
         run the code inside LocalSet::run_until(..), LocalSet::block_on(&rt, ..) or \
         LocalRuntime::block_on(..), or spawn with LocalSet::spawn_local"
    )
}

/// The future of [`LocalSet::run_until`].
///
/// `!Unpin` whatever `F` is, as tokio's.
pub struct RunUntil<'a, F> {
    set: &'a LocalSet,
    future: F,
    _pin: std::marker::PhantomPinned,
}

impl<F> std::fmt::Debug for RunUntil<'_, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunUntil").finish_non_exhaustive()
    }
}

impl<F: Future> Future for RunUntil<'_, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `future` is structurally pinned: it is never moved out of `self`; `set` is a
        // plain reference.
        let this = unsafe { self.get_unchecked_mut() };
        let _enter = Enter::new(&this.set.handle, true);
        this.set.attach();
        this.set.register_waker(cx);
        // SAFETY: see above.
        let fut = unsafe { Pin::new_unchecked(&mut this.future) };
        if let Poll::Ready(out) = fut.poll(cx) {
            return Poll::Ready(out);
        }
        this.set.run_queued(cx);
        Poll::Pending
    }
}

impl LocalSet {
    /// The set as a future of its own (tokio's `impl Future for LocalSet`): runs its queued
    /// tasks, and is `Ready` once none of its tasks is live.
    pub fn poll_all(&self, cx: &mut Context<'_>) -> Poll<()> {
        let _enter = Enter::new(&self.handle, true);
        self.attach();
        self.register_waker(cx);
        self.run_queued(cx);
        if self.live_tasks() == 0 {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    /// Makes this set the one [`spawn_local`] spawns onto on this thread until the guard is
    /// dropped (tokio's `LocalSet::enter`). The tasks still run only while the set is driven.
    pub fn enter(&self) -> LocalEnterGuard {
        LocalEnterGuard {
            _enter: Enter::new(&self.handle, false),
            _not_send: PhantomData,
        }
    }

    /// Wakes from other threads (and spawns from outside) wake `cx`'s task from now on.
    fn register_waker(&self, cx: &Context<'_>) {
        let mut w = self.handle.shared.waker.lock().unwrap();
        if !w.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            *w = Some(cx.waker().clone());
        }
    }

    /// Runs up to `LOCAL_TASKS_PER_TICK` queued tasks; with work left after that, wakes `cx`'s task so the
    /// outer scheduler runs others first and then comes back.
    fn run_queued(&self, cx: &Context<'_>) {
        let shared = &self.handle.shared;
        let ran = if !rt_core::OBSERVE {
            run_tasks(shared, None, None)
        } else {
            let trace = shared.trace();
            crate::stall::with_thread_stamp(|stamp| {
                let enclosing = stamp.map(crate::stall::PollStamp::sample);
                let ran = run_tasks(shared, stamp, trace);
                if ran > 0 {
                    if let (Some(s), Some(e)) = (stamp, enclosing) {
                        s.restore(e);
                    }
                }
                ran
            })
        };
        if ran == LOCAL_TASKS_PER_TICK && shared.queue.has_work() {
            cx.waker().wake_by_ref();
        }
    }
}

/// The guard of [`LocalSet::enter`]: while it lives, [`spawn_local`] on this thread spawns onto
/// that set. Restores what was current before when dropped. `!Send`.
pub struct LocalEnterGuard {
    _enter: Enter,
    _not_send: PhantomData<*const ()>,
}

impl std::fmt::Debug for LocalEnterGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEnterGuard").finish_non_exhaustive()
    }
}

/// Runs up to `LOCAL_TASKS_PER_TICK` queued tasks of the set, stamping each poll on `stamp` and recording
/// it in `trace` (module docs, "Observation"). Returns how many ran.
#[inline]
fn run_tasks(
    shared: &Shared,
    stamp: Option<&crate::stall::PollStamp>,
    trace: Option<&Recorder>,
) -> usize {
    for ran in 0..LOCAL_TASKS_PER_TICK {
        let Some(t) = shared.queue.pop() else {
            return ran;
        };
        if let Some(s) = stamp {
            s.enter(t.id(), t.meta_word());
        }
        match trace {
            Some(r) => r.run_here(t, "local-set"),
            None => t.run(),
        }
    }
    LOCAL_TASKS_PER_TICK
}

impl Schedule for Handle {
    fn release(&self, task: &Task<Handle>) -> Option<Task<Handle>> {
        if let Some(r) = self.shared.trace() {
            r.complete_here(task.id().as_u64());
        }
        self.shared.owned.remove(task)
    }

    fn schedule(&self, task: Notified<Handle>) {
        if let Some(r) = self.shared.trace() {
            r.wake_here(task.id().as_u64());
        }
        self.push(task);
    }
}

impl Handle {
    /// Queues a task and wakes the set's driver unless it runs on this thread now (a spawn, or
    /// a wake through `schedule`).
    fn push(&self, task: Notified<Handle>) {
        if !self.shared.queue.push(task) {
            return; // dropped set: its list has cancelled the task
        }
        if self.is_driven_here() {
            // The driver is in its poll on this thread and re-checks the queue.
            return;
        }
        let w = self.shared.waker.lock().unwrap().clone();
        if let Some(w) = w {
            w.wake();
        }
    }
}
