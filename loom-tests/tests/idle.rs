#![cfg(loom)]
//! loom model of the idle/park protocol (rules 1-4 in rt-sched's `idle.rs`), on the real
//! multi-thread scheduler: its workers are loom threads, its queues the loom-visible ones of
//! `queue.rs`, its parkers crossbeam's under `crossbeam_loom`.
//!
//! * `remote_spawn_is_not_lost`: a task spawned from outside the workers, while they search
//!   and park, runs; the model thread waits for it with `park_block_on(join)`. A lost wake-up
//!   (every worker asleep with the task in the injector) is a deadlock, which loom reports.

mod task_support;

use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::Arc;
use rt_core::task::next_id;
use rt_sched::current_thread::park_block_on;
use rt_sched::multi_thread::{Config, MultiThread};
use task_support::model;

fn config(workers: usize) -> Config {
    Config {
        workers,
        thread_name: "rt-worker".into(),
        thread_stack_size: None,
        frame_pool: false,
        on_thread: rt_sched::no_hook(),
    }
}

#[test]
fn remote_spawn_is_not_lost() {
    model(|| {
        let mut rt = MultiThread::new(config(2));
        rt.start().unwrap();
        let ran = Arc::new(AtomicBool::new(false));
        let join = {
            let ran = ran.clone();
            rt.handle().spawn(async move { ran.store(true, Ordering::Release) }, next_id())
        };
        park_block_on(join).unwrap();
        assert!(ran.load(Ordering::Acquire));
        rt.shutdown(None);
    });
}
