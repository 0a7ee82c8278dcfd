#![cfg(loom)]
//! loom model of `block_in_place`'s lend-and-reclaim protocol (rules 1-3 in rt-sched's
//! `multi_thread/mod.rs`), on the real one-worker scheduler: the worker lends its context to a
//! substitute loom thread and takes it back.
//!
//! * `held_task_runs_while_lent`: a task puts a child in the worker's LIFO slot, then blocks
//!   in `block_in_place` until the child has finished (`park_block_on` on the child's handle).
//!   Only the substitute can run the child: if it did not, or if the reclaim's wake were lost
//!   (the substitute asleep for good, the lender waiting in the join), loom reports the
//!   deadlock. The child runs exactly once (its handle resolves once, and no task is left).
//! * `reclaim_races_the_substitute`: the closure returns at once, so the reclaim races the
//!   substitute's start, its run of the child and its park; the child still runs exactly once,
//!   on the substitute or on the worker after it is back.
//! * `second_lend_reuses_a_queued_job`: a first `block_in_place` returns at once, so its job
//!   may still be queued on the lend pool when the second one (which waits for a held child,
//!   as in the first model) re-arms the worker's record: the re-arm races the stale job's
//!   start (`lend.rs`: `QUEUED` → `QUEUED|ARMED` against `QUEUED` → 0); either the old job
//!   serves the second lend or a new one is queued, and the child still runs exactly once.

mod task_support;

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use rt_core::task::next_id;
use rt_sched::current_thread::park_block_on;
use rt_sched::multi_thread::{block_in_place, MultiThread};
use task_support::model;

fn run(wait_in_closure: bool, twice: bool) {
    let mut rt = MultiThread::new(task_support::mt_config(1, None));
    rt.start().unwrap();
    let handle = rt.handle().clone();
    let runs = Arc::new(AtomicUsize::new(0));
    let parent = {
        let runs = runs.clone();
        rt.handle().spawn(
            async move {
                let child = handle.spawn(
                    async move {
                        runs.fetch_add(1, Ordering::Relaxed);
                    },
                    next_id(),
                );
                if twice {
                    // Returns at once: its job may stay queued for the next lend.
                    assert!(matches!(block_in_place(|| 1), Ok(1)));
                }
                let r = block_in_place(move || {
                    if wait_in_closure {
                        park_block_on(child).unwrap();
                        None
                    } else {
                        Some(child)
                    }
                });
                match r {
                    Ok(Some(child)) => child.await.unwrap(),
                    Ok(None) => {}
                    Err(_) => panic!("block_in_place refused on a worker"),
                }
            },
            next_id(),
        )
    };
    park_block_on(parent).unwrap();
    assert_eq!(runs.load(Ordering::Relaxed), 1);
    rt.shutdown(None);
    assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
}

#[test]
fn held_task_runs_while_lent() {
    model(|| run(true, false));
}

#[test]
fn reclaim_races_the_substitute() {
    model(|| run(false, false));
}

#[test]
fn second_lend_reuses_a_queued_job() {
    model(|| run(true, true));
}
