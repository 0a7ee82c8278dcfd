#![cfg(loom)]
//! loom model of `OwnedTasks`' per-worker caches of free slot indices (rt-core's
//! `task/list.rs`): a worker's cache is a plain `Vec` in an `UnsafeCell`, used with no lock and
//! no atomic read-modify-write by the one thread that runs the worker (the unsafe contract of
//! `OwnedTasks::bind_in` and `remove_in`); other threads share a locked cache.
//!
//! * `worker_cache_moves_to_a_substitute_and_back`: "worker 0" binds a task with its hint and
//!   lends the worker to a substitute thread (a spawn, as `block_in_place` does), which runs
//!   that task to completion (its slot index goes back to worker 0's cache) and binds a second
//!   task; the lender takes the worker back (a join) and completes the second. Meanwhile a
//!   foreign thread binds and completes a task through the shared cache. loom's `UnsafeCell`
//!   checks that every use of the worker's cache is ordered after the previous one (binding a
//!   task with hint 0 on the lender before the join fails the model with a concurrent access);
//!   at the end the list counts no live task and each task produced its output once.
//!
//! The real scheduler's hand-off (a worker lent to a substitute and taken back, tasks bound and
//! completed on both sides) is `block_in_place.rs`.

mod task_support;

use std::cell::Cell;
use std::future::ready;

use loom::sync::Arc;
use loom::thread;
use rt_core::task::{next_id, JoinHandle, Notified, OwnedTasks, Schedule, SpawnMeta, Task};
use task_support::{model, poll_once, Signal};

loom::thread_local! {
    /// The worker this thread runs (`usize::MAX`: none), as rt-sched's `with_current_worker`.
    static WORKER: Cell<usize> = Cell::new(usize::MAX);
}

/// A scheduler whose tasks complete at their first poll and are never woken; a completion
/// returns the slot to the cache of the worker the completing thread runs.
struct HintSched {
    owned: Arc<OwnedTasks<HintSched>>,
}

impl Schedule for HintSched {
    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        let hint = WORKER.with(Cell::get);
        // SAFETY: `hint` is the worker this thread runs (set by the model only on the thread
        // that holds the worker at the time), or none.
        unsafe { self.owned.remove_in(hint, task) }
    }

    fn schedule(&self, _: Notified<Self>) {
        unreachable!("the model's tasks are never woken");
    }
}

type Bound = (JoinHandle<u32>, Option<Notified<HintSched>>);

/// Binds a task whose output is `v`, from the cache of the worker this thread runs.
fn bind(owned: &Arc<OwnedTasks<HintSched>>, v: u32) -> Bound {
    let sched = HintSched {
        owned: owned.clone(),
    };
    let hint = WORKER.with(Cell::get);
    // SAFETY: as in `release`.
    unsafe { owned.bind_in(hint, ready(v), sched, next_id(), SpawnMeta::caller(), false) }
}

/// Runs the task and checks its output.
fn complete((mut join, notified): Bound, v: u32) {
    notified.expect("the list is open").run();
    let signal = Signal::new();
    match poll_once(&mut join, &signal.waker()) {
        std::task::Poll::Ready(out) => assert_eq!(out.unwrap(), v),
        std::task::Poll::Pending => panic!("a completed task's handle is pending"),
    }
}

#[test]
fn worker_cache_moves_to_a_substitute_and_back() {
    model(|| {
        let owned = Arc::new(OwnedTasks::<HintSched>::new(1));
        let foreign = {
            let owned = owned.clone();
            thread::spawn(move || complete(bind(&owned, 3), 3))
        };
        WORKER.with(|w| w.set(0));
        let first = bind(&owned, 1);
        // Lend worker 0: from here until the join this thread does not use its cache.
        WORKER.with(|w| w.set(usize::MAX));
        let substitute = {
            let owned = owned.clone();
            thread::spawn(move || {
                WORKER.with(|w| w.set(0));
                complete(first, 1);
                let second = bind(&owned, 2);
                WORKER.with(|w| w.set(usize::MAX));
                second
            })
        };
        let second = substitute.join().unwrap();
        WORKER.with(|w| w.set(0));
        complete(second, 2);
        foreign.join().unwrap();
        assert_eq!(owned.len(), 0, "the caches' live counts do not add up");
        owned.close_and_shutdown_all();
    });
}
