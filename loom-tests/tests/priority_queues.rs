#![cfg(loom)]
//! loom model of the background queues of the multi-thread scheduler ("Priorities" in
//! rt-sched's `multi_thread` docs): a background task goes to its worker's background queue or
//! to the background injector, and the idle protocol (rules 1-4 of `idle.rs`) must see those
//! queues as it sees the normal ones, or a worker parks with background work queued and
//! nobody left to run it.
//!
//! * `remote_background_spawn_is_not_lost`: a background task spawned from outside the
//!   workers (the background injector) runs while the workers search and park.
//! * `background_spawn_from_worker_is_not_lost`: a normal task on a worker spawns a
//!   background task (its worker's background queue, which wakes the other worker unless one
//!   is searching); it runs locally or is stolen, and never lost; it stays background either
//!   way (it inherits nothing here: its priority is explicit).
//!
//! What it does not prove: the time slice (the tasks here spend no budget, so no slice
//! boundary is reached; loom has no clock, and `coop`'s slice logic is plain thread-local
//! state), nor the order between normal and background work, which the tests in
//! `crates/rt/tests/priority_*.rs` check.

mod task_support;

use loom::thread;
use rt_core::task::{next_id, Priority, SpawnMeta};
use rt_sched::current_thread::park_block_on;
use rt_sched::multi_thread::MultiThread;
use task_support::{model, model_capped, Seen};

fn background() -> SpawnMeta<'static> {
    SpawnMeta::caller().with_priority(Priority::Background)
}

#[test]
fn remote_background_spawn_is_not_lost() {
    model(|| {
        let mut rt = MultiThread::new(task_support::mt_config(2, None));
        rt.start().unwrap();
        let join = rt.handle().spawn_with(
            async { rt_core::coop::current_priority() },
            next_id(),
            background(),
        );
        assert_eq!(park_block_on(join).unwrap(), Priority::Background);
        rt.shutdown(None);
        assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
    });
}

#[test]
fn background_spawn_from_worker_is_not_lost() {
    static SEEN: Seen = Seen::new();
    // Preemption bound 1, as `idle.rs`'s `local_spawn_spill_is_not_lost` (the same shape).
    model_capped(1, || {
        let mut rt = MultiThread::new(task_support::mt_config(2, None));
        rt.start().unwrap();
        let handle = rt.handle().clone();
        let parent = rt.handle().spawn(
            async move {
                let on = || thread::current().id();
                let child = handle.spawn_with(
                    async move { (on(), rt_core::coop::current_priority()) },
                    next_id(),
                    background(),
                );
                (on(), child)
            },
            next_id(),
        );
        let (parent_on, child) = park_block_on(parent).unwrap();
        let (child_on, priority) = park_block_on(child).unwrap();
        assert_eq!(priority, Priority::Background);
        rt.shutdown(None);
        assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
        SEEN.record(if child_on == parent_on {
            "run locally"
        } else {
            "stolen"
        });
    });
    SEEN.assert_exactly(&["run locally", "stolen"]);
}
