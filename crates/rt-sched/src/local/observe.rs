//! Seeing `LocalSet` tasks: the runtime a set is driven in lists its tasks in `Handle::dump`
//! and records them in its trace file.
//!
//! Each runtime has one [`Observer`] (the facade keeps it with its handle and makes it this
//! thread's, [`enter`], wherever it makes the runtime current: `block_on`, worker and blocking
//! threads, `Handle::enter`). A set is *attached* to the observer of the thread that drives it
//! (at each `RunUntil` poll, and at a `LocalSet::spawn_local` made inside a runtime): the
//! observer keeps the set's shared state in its list, and the set takes the observer's trace
//! recorder (the first one it meets, for good).
//!
//! The dump walks each attached set's owned list with `OwnedTasks::for_each_live`, the walk of
//! the multi-thread dump (loom model `dump_walk`), from any thread. One rule makes that walk
//! safe for tasks whose futures are `!Send`: a walk that finds the list *closed* shuts the task
//! it holds down itself, which here would drop a local future on the dumping thread. So no walk
//! may overlap a set's close: walks run under the observer's `sets` lock, and `LocalSet::drop`
//! detaches the set (taking that lock, so after any walk under way) before it closes the list;
//! a detached set is walked no more. Outside a close, a walk only reads headers and may drop a
//! completed task's last reference (its future and output already dropped on the set's thread,
//! as `bind_local_in` requires; what is left, the cell and its waker slot, is `Send`).

// `RefCell`, not a shim type: the thread-local's own value, touched by its thread only.
use std::cell::RefCell;

use rt_core::sync::{Arc, Mutex};
use rt_core::task::TaskSnapshot;

use super::Shared;
use crate::trace::Recorder;

/// What a runtime shares with the `LocalSet`s driven inside it (module docs).
pub struct Observer {
    /// The runtime's trace recorder, if it writes a trace file.
    pub(super) trace: Option<rt_core::sync::StdArc<Recorder>>,
    /// The attached sets. Walks hold the lock; a set leaves before its close.
    sets: Mutex<Vec<Arc<Shared>>>,
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("local::Observer")
            .field("trace", &self.trace.is_some())
            .field("sets", &lock(&self.sets).len())
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> rt_core::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Observer {
    /// An observer for a runtime that records into `trace`, if any.
    pub fn new(trace: Option<rt_core::sync::StdArc<Recorder>>) -> Observer {
        Observer {
            trace,
            sets: Mutex::new(Vec::new()),
        }
    }

    /// Every live task of every attached set (`for_each_live`, so never blocking on a task).
    /// A task is running only while its set polls it; `running` (per worker, the task it
    /// polls now, from the poll stamps) gives its worker when its set runs on one.
    pub fn dump(&self, running: &[Option<u64>]) -> Vec<TaskSnapshot> {
        let sets = lock(&self.sets);
        let mut tasks = Vec::new();
        for s in sets.iter() {
            s.owned.for_each_live(|h| {
                if let Some(mut t) = TaskSnapshot::of(h, 1) {
                    let id = Some(t.id.as_u64());
                    t.worker = if t.running {
                        running.iter().position(|r| *r == id)
                    } else {
                        None
                    };
                    tasks.push(t);
                }
            });
        }
        tasks
    }

    pub(super) fn attach(&self, set: &Arc<Shared>) {
        lock(&self.sets).push(set.clone());
    }

    /// Takes `set` off the list; returns after any walk under way (module docs).
    pub(super) fn detach(&self, set: &Arc<Shared>) {
        lock(&self.sets).retain(|s| !Arc::ptr_eq(s, set));
    }
}

rt_core::sync::thread_local! {
    /// The observer of the runtime current on this thread.
    static CURRENT: RefCell<Option<Arc<Observer>>> = const { RefCell::new(None) };
}

/// Makes `observer` this thread's until the guard drops (nestable: the previous one comes
/// back). The facade enters it wherever it makes its runtime current.
pub fn enter(observer: &Arc<Observer>) -> ObserverGuard {
    let prev = CURRENT
        .try_with(|c| c.replace(Some(observer.clone())))
        .ok()
        .flatten();
    ObserverGuard {
        prev,
        _not_send: std::marker::PhantomData,
    }
}

/// Restores the previous observer of this thread when dropped ([`enter`]).
#[must_use = "the observer is current only while the guard lives"]
pub struct ObserverGuard {
    prev: Option<Arc<Observer>>,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl std::fmt::Debug for ObserverGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObserverGuard").finish_non_exhaustive()
    }
}

impl Drop for ObserverGuard {
    fn drop(&mut self) {
        let prev = self.prev.take();
        let _ = CURRENT.try_with(|c| *c.borrow_mut() = prev);
    }
}

/// Runs `f` with this thread's observer, if any.
pub(super) fn with_current<R>(f: impl FnOnce(Option<&Arc<Observer>>) -> R) -> R {
    let mut f = Some(f);
    let r = CURRENT.try_with(|c| {
        let c = c.borrow();
        (f.take().expect("called once"))(c.as_ref())
    });
    match r {
        Ok(r) => r,
        // The thread-local is gone (a thread's exit): no observer.
        Err(_) => (f.take().expect("not called"))(None),
    }
}
