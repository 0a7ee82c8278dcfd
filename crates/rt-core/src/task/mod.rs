//! The task: one allocation holding a header, the scheduler handle, the future (then its
//! output) and a trailer.
//!
//! # References
//!
//! A task cell is reference counted in its state word (`state.rs`). These types each own one
//! count:
//!
//! - [`Task`]: the scheduler's owned list holds one while the task is live (`list.rs`).
//! - [`Notified`]: a task that is scheduled to run. At most one exists at a time (NOTIFIED).
//!   Polling consumes it.
//! - [`JoinHandle`]: the right to read the output (JOIN_INTEREST).
//! - `Waker`s: one count each; the waker handed to a poll borrows the poll's count instead.
//!
//! A spawn creates three counts (list, `Notified`, `JoinHandle`); the cell is freed when the
//! count reaches zero, by whoever dropped it last.
//!
//! # Rules
//!
//! 1. Only the holder of RUNNING touches the future: polls it or drops it. RUNNING is taken by
//!    `transition_to_running` (a worker holding a `Notified`) or `transition_to_shutdown`.
//! 2. A wake while RUNNING only sets NOTIFIED; the poller, on seeing it after the poll, turns its
//!    own reference into the next `Notified` and reschedules. A task is therefore never polled
//!    recursively from inside its own poll, and never queued twice.
//! 3. A wake of an idle, un-notified task sets NOTIFIED and submits a `Notified` (taking a new
//!    count for `wake_by_ref`, reusing the waker's count for `wake`). A wake of a notified or
//!    complete task does nothing.
//! 4. JOIN_WAKER clear: the `JoinHandle` alone may write the waker slot. JOIN_WAKER set: the
//!    slot is read-only, and the completing thread may read it and wake it. Setting and clearing
//!    JOIN_WAKER fail once COMPLETE is set.
//! 5. Once COMPLETE is set the stage holds the output and the future is gone. The output
//!    belongs to the `JoinHandle` while JOIN_INTEREST is set; otherwise the completing thread
//!    drops it. Whoever drops it contains any panic of its `Drop`.
//! 6. The completing thread clears JOIN_WAKER after waking; if JOIN_INTEREST is gone by then,
//!    it drops the waker. A `JoinHandle` dropped before completion clears both bits at once and
//!    drops the waker itself.
//! 7. CANCELLED (abort, shutdown) is acted on by whoever next holds RUNNING: it drops the
//!    future instead of polling it and completes the task with a cancellation error (or a panic
//!    error, if the future's `Drop` panicked).

mod core;
mod dump;
mod error;
mod harness;
mod id;
mod join;
mod list;
mod meta;
mod priority;
mod raw;
mod state;
mod waker;

use std::future::Future;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

pub use self::core::Header;
pub use self::dump::TaskSnapshot;
pub use self::error::JoinError;
pub use self::id::{id, try_id, Id};
pub use self::join::{AbortHandle, JoinHandle};
pub use self::list::OwnedTasks;
pub use self::meta::{describe, MetaInfo, MetaWord, SpawnMeta};
pub use self::priority::Priority;
use self::raw::RawTask;

/// What a task needs of its scheduler.
pub trait Schedule: Send + Sync + Sized + 'static {
    /// The task completed: remove it from the owned list, returning the list's reference if it
    /// was there.
    fn release(&self, task: &Task<Self>) -> Option<Task<Self>>;

    /// Runs the task later (a wake).
    fn schedule(&self, task: Notified<Self>);

    /// The task woke itself during its own poll (it yielded): run it after the others. Defaults
    /// to [`Schedule::schedule`].
    fn yield_now(&self, task: Notified<Self>) {
        self.schedule(task);
    }

    /// A poll of one of this scheduler's tasks panicked with `payload` (called on the polling
    /// thread, RUNNING still held, before the task completes). Returns the payload the task's
    /// [`JoinError`] carries: by default `payload` itself. A scheduler that shuts down on an
    /// unhandled panic takes the payload and returns a stand-in.
    fn unhandled_panic(
        &self,
        payload: Box<dyn std::any::Any + Send>,
    ) -> Box<dyn std::any::Any + Send> {
        payload
    }
}

/// The owned list's reference to a task.
pub struct Task<S: 'static> {
    raw: RawTask,
    _p: std::marker::PhantomData<S>,
}

/// A task scheduled to run: hand it to [`Notified::run`] to poll it once.
pub struct Notified<S: 'static> {
    raw: RawTask,
    _p: std::marker::PhantomData<S>,
}

// SAFETY: a task may be polled, woken and dropped from any thread; `F: Send` is required at
// spawn for every scheduler that moves tasks between threads.
unsafe impl<S: Schedule> Send for Task<S> {}
// SAFETY: as above.
unsafe impl<S: Schedule> Sync for Task<S> {}
// SAFETY: as above.
unsafe impl<S: Schedule> Send for Notified<S> {}
// SAFETY: as above.
unsafe impl<S: Schedule> Sync for Notified<S> {}

impl<S: Schedule> Task<S> {
    /// # Safety
    /// The caller hands over one reference count of a live task whose scheduler type is `S`.
    pub(crate) unsafe fn from_raw(raw: RawTask) -> Task<S> {
        Task {
            raw,
            _p: std::marker::PhantomData,
        }
    }

    /// The task's id.
    pub fn id(&self) -> Id {
        self.raw.header().id
    }

    /// Cancels the task (drops its future, completes it) unless it is running elsewhere, in
    /// which case it is marked cancelled and the running poll finishes the job.
    pub fn shutdown(self) {
        let raw = ManuallyDrop::new(self).raw;
        raw.shutdown();
    }

    /// The task header (for debugging and trace export).
    pub fn header(&self) -> &Header {
        self.raw.header()
    }
}

impl<S: Schedule> Notified<S> {
    /// # Safety
    /// The caller hands over the `Notified` reference count of a live task with scheduler `S`.
    pub(crate) unsafe fn from_raw(raw: RawTask) -> Notified<S> {
        Notified {
            raw,
            _p: std::marker::PhantomData,
        }
    }

    /// Polls the task once (or drops its future if it was cancelled).
    pub fn run(self) {
        let raw = ManuallyDrop::new(self).raw;
        raw.poll();
    }

    /// Cancels the task instead of running it (used when draining queues at shutdown).
    pub fn shutdown(self) {
        let raw = ManuallyDrop::new(self).raw;
        raw.shutdown();
    }

    /// The task's id.
    pub fn id(&self) -> Id {
        self.raw.header().id
    }

    /// The task header (for trace export: the spawn location of the task about to run).
    pub fn header(&self) -> &Header {
        self.raw.header()
    }

    /// The task's priority (fixed at spawn): which queue a scheduler puts it in.
    #[inline]
    pub fn priority(&self) -> Priority {
        self.raw.header().meta.priority()
    }

    /// A copy of the task's meta word, for [`describe`] on another thread.
    #[inline]
    pub fn meta_word(&self) -> MetaWord {
        self.raw.header().meta.word()
    }

    /// Gives up this `Notified` as a pointer (for a slot that holds it in an `AtomicPtr`); the
    /// reference count it stands for travels with the pointer.
    #[inline]
    pub fn into_raw(self) -> NonNull<Header> {
        ManuallyDrop::new(self).raw.header_ptr()
    }

    /// Takes back a `Notified` given up by [`Notified::into_raw`].
    ///
    /// # Safety
    /// `ptr` came from `Notified::<S>::into_raw` (the same `S`) and is turned back at most
    /// once.
    #[inline]
    pub unsafe fn from_raw_ptr(ptr: NonNull<Header>) -> Notified<S> {
        // SAFETY: the pointer carries the `Notified` reference of a live task (caller).
        unsafe { Notified::from_raw(RawTask::from_raw(ptr)) }
    }
}

impl<S: 'static> Drop for Task<S> {
    fn drop(&mut self) {
        self.raw.drop_reference();
    }
}

impl<S: 'static> Drop for Notified<S> {
    fn drop(&mut self) {
        self.raw.drop_reference();
    }
}

impl<S: 'static> std::fmt::Debug for Task<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.raw.header().fmt(f)
    }
}

impl<S: 'static> std::fmt::Debug for Notified<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.raw.header().fmt(f)
    }
}

/// Creates a task that belongs to no owned list (the blocking pool's tasks, which are always
/// either queued or running). Returns the `Notified` to schedule and the `JoinHandle`.
pub fn unowned<F, S>(
    future: F,
    scheduler: S,
    id: Id,
    meta: SpawnMeta<'_>,
    pooled: bool,
) -> (Notified<S>, JoinHandle<F::Output>)
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
    S: Schedule,
{
    let raw = RawTask::new(future, scheduler, id, meta, 2, pooled, list::UNOWNED);
    // SAFETY: the two references: `Notified` and `JoinHandle`.
    (unsafe { Notified::from_raw(raw) }, JoinHandle::new(raw))
}

/// A fresh task id.
pub fn next_id() -> Id {
    Id::next()
}
