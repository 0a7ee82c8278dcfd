//! Task dumps (`Handle::dump`) and which task each worker is polling.
//!
//! The word a dump reads per worker is the stall detector's poll stamp (`crate::stall`): on a
//! cache line of its own that only that worker writes, the id of the task it started polling
//! last, stored with relaxed stores per poll (`run_task` in `worker.rs`), and cleared once the
//! worker runs out of work (before it turns the driver for more, steals or parks: a store off
//! the busy path). No clock is read.
//!
//! A dump reads a task's RUNNING bit from its state word and looks for a worker whose word
//! holds the task's id. The word is a hint, not a protocol: a worker between two polls may
//! still show the task it just finished, and a task running on a thread that runs the worker
//! loop under another's index (a `block_in_place` substitute shows its own tasks there while
//! the lender's task is inside `block_in_place`) shows no worker. So a dump reports "running"
//! from the state word alone, and "on worker N" when one worker's word names the task.
//! Compiled out with `--cfg rt_unobserved` (`rt_core::OBSERVE`), like the other hooks.

use rt_core::task::TaskSnapshot;

use super::Handle;

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
                    let id = Some(t.id.as_u64());
                    t.worker = self
                        .shared
                        .stamps
                        .iter()
                        .position(|s| s.running_task() == id);
                }
                tasks.push(t);
            }
        });
        tasks
    }
}
