#![cfg(loom)]
//! loom model of the idle/park protocol (rules 1-4 in rt-sched's `idle.rs`), on the real
//! multi-thread scheduler: its workers are loom threads, its queues the loom-visible ones of
//! `queue.rs`, its parkers crossbeam's under `crossbeam_loom`.
//!
//! * `remote_spawn_is_not_lost`: a task spawned from outside the workers, while they search
//!   and park, runs; the model thread waits for it with `park_block_on(join)`. A lost wake-up
//!   (every worker asleep with the task in the injector) is a deadlock, which loom reports.
//! * `local_spawn_spill_is_not_lost`: a task on a worker spawns two more; the second takes
//!   the LIFO slot and pushes the first to the local queue, which wakes the other worker
//!   (unless one is searching); the first is then run locally or stolen, and never lost.
//!   Explored at preemption bound 1 only (see the test).
//!
//! Under loom the workers search one round and do not spin (`worker.rs`), so that each model
//! stays within seconds.

mod task_support;

use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::Arc;
use loom::thread;
use rt_core::task::next_id;
use rt_sched::current_thread::park_block_on;
use rt_sched::multi_thread::{Config, MultiThread};
use task_support::{model, model_capped, Seen};

fn config(workers: usize) -> Config {
    task_support::mt_config(workers, None)
}

#[test]
fn remote_spawn_is_not_lost() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let mut rt = MultiThread::new(config(2));
        rt.start().unwrap();
        let ran = Arc::new(AtomicBool::new(false));
        let join = {
            let ran = ran.clone();
            rt.handle().spawn(
                async move {
                    ran.store(true, Ordering::Release);
                    thread::current().id()
                },
                next_id(),
            )
        };
        let ran_on = park_block_on(join).unwrap();
        assert!(ran.load(Ordering::Acquire));
        rt.shutdown(None);
        assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
        SEEN.record(format!("ran on {ran_on:?}"));
    });
    // Either worker may be the one that finds the task (loom numbers the model thread 0 and
    // the workers 1 and 2, in spawn order).
    SEEN.assert_exactly(&["ran on ThreadId(1)", "ran on ThreadId(2)"]);
}

#[test]
fn local_spawn_spill_is_not_lost() {
    static SEEN: Seen = Seen::new();
    // Preemption bound 1: about 74k executions (15 s); at bound 2 it runs for over 5 minutes.
    model_capped(1, || {
        let mut rt = MultiThread::new(config(2));
        rt.start().unwrap();
        let handle = rt.handle().clone();
        let parent = rt.handle().spawn(
            async move {
                let on = || thread::current().id();
                // `first` goes to the LIFO slot, then is displaced to the local queue by `second`.
                let first = handle.spawn(async move { on() }, next_id());
                let second = handle.spawn(async {}, next_id());
                (on(), first, second)
            },
            next_id(),
        );
        let (parent_on, first, second) = park_block_on(parent).unwrap();
        let first_on = park_block_on(first).unwrap();
        park_block_on(second).unwrap();
        rt.shutdown(None);
        assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
        SEEN.record(if first_on == parent_on {
            "run locally"
        } else {
            "stolen"
        });
    });
    SEEN.assert_exactly(&["run locally", "stolen"]);
}

/// [`remote_spawn_is_not_lost`] with at most one worker awake (`Config::max_awake`, rules 1
/// and 5 of `idle.rs`): a remote spawn wakes a sleeper only when both workers sleep, so a
/// spawn that finds one awake relies on that worker's re-check when its park leaves the cap.
#[test]
fn remote_spawn_is_not_lost_at_awake_cap() {
    model(|| {
        let mut rt = MultiThread::new(Config {
            max_awake: 1,
            ..config(2)
        });
        rt.start().unwrap();
        let join = rt.handle().spawn(async {}, next_id());
        park_block_on(join).unwrap();
        rt.shutdown(None);
        assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
    });
}

/// [`local_spawn_spill_is_not_lost`] with at most one worker awake: the spill's notify finds
/// the cap reached (the spawning worker is awake), so the spilled task is run by its own
/// worker or by the other one if it is still awake and steals it; never lost.
#[test]
fn local_spawn_spill_is_not_lost_at_awake_cap() {
    // Preemption bound 1, as `local_spawn_spill_is_not_lost`.
    model_capped(1, || {
        let mut rt = MultiThread::new(Config {
            max_awake: 1,
            ..config(2)
        });
        rt.start().unwrap();
        let handle = rt.handle().clone();
        let parent = rt.handle().spawn(
            async move {
                let first = handle.spawn(async {}, next_id());
                let second = handle.spawn(async {}, next_id());
                (first, second)
            },
            next_id(),
        );
        let (first, second) = park_block_on(parent).unwrap();
        park_block_on(first).unwrap();
        park_block_on(second).unwrap();
        rt.shutdown(None);
        assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
    });
}
