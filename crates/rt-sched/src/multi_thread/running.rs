//! Which task each worker is polling, for task dumps (`Handle::dump`).
//!
//! One word per worker, on a cache line of its own that only that worker writes: the id of the
//! task it started polling last, stored with one relaxed store per poll (`run_task` in
//! `worker.rs`), and 0 once the worker runs out of work (before it turns the driver for more,
//! steals or parks: a store off the busy path). No clock is read.
//!
//! A dump reads a task's RUNNING bit from its state word and looks for a worker whose word
//! holds the task's id. The word is a hint, not a protocol: a worker between two polls may
//! still show the task it just finished, and a task running on a thread that runs the worker
//! loop under another's index (a `block_in_place` substitute shows its own tasks there while
//! the lender's task is inside `block_in_place`) shows no worker. So a dump reports "running"
//! from the state word alone, and "on worker N" when one worker's word names the task. The
//! stall detector's per-worker poll stamp is the same kind of word; the two may become one.
//! Compiled out with `--cfg rt_unobserved` (`rt_core::OBSERVE`), like the other hooks.

use crossbeam_utils::CachePadded;
// Statistics outside every protocol (nothing waits on them): std's atomics even under loom,
// exception 2 in `rt_core::sync`.
use rt_core::sync::unmodelled::{AtomicU64, Ordering::Relaxed};
use rt_core::task::{Id, TaskSnapshot};

use super::Handle;

/// Per worker: the id of the task it polls (0: none).
pub(crate) struct Running {
    ids: Box<[CachePadded<AtomicU64>]>,
}

impl Running {
    pub(crate) fn new(workers: usize) -> Running {
        Running {
            ids: (0..workers)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
        }
    }

    /// Worker `worker` starts polling task `id`.
    #[inline]
    pub(crate) fn enter(&self, worker: usize, id: Id) {
        if rt_core::OBSERVE {
            self.ids[worker].store(id.as_u64(), Relaxed);
        }
    }

    /// Worker `worker` is out of tasks.
    #[inline]
    pub(crate) fn clear(&self, worker: usize) {
        if rt_core::OBSERVE {
            self.ids[worker].store(0, Relaxed);
        }
    }

    /// The worker whose word names task `id`, if any.
    fn worker_of(&self, id: Id) -> Option<usize> {
        let id = id.as_u64();
        self.ids.iter().position(|w| w.load(Relaxed) == id)
    }
}

impl Handle {
    /// Every live task of this scheduler, as seen by one walk of its owned list
    /// (`OwnedTasks::for_each_live`): never blocks on a task, callable from any thread,
    /// including a task of this scheduler. A running task's `worker` is filled in when a
    /// worker's running word names it (module docs).
    pub fn dump(&self) -> Vec<TaskSnapshot> {
        let mut tasks = Vec::with_capacity(self.shared.owned.len());
        self.shared.owned.for_each_live(|h| {
            if let Some(mut t) = TaskSnapshot::of(h, 1) {
                if t.running {
                    t.worker = self.shared.running.worker_of(t.id);
                }
                tasks.push(t);
            }
        });
        tasks
    }
}
