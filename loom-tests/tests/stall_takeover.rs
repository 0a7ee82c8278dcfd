#![cfg(loom)]
//! loom model of the take-over of a stalled worker (rules S1-S3 in rt-sched's
//! `multi_thread/mod.rs`), on the real one-worker scheduler: a task spawns one child (into
//! the worker's LIFO slot), starts a take-over thread, spawns a second child (which displaces
//! the first into the local queue, if the take-over has not taken it yet) and waits for the
//! take-over thread, which runs two take-over steps meanwhile (`Handle::takeover_step`: the
//! LIFO slot, else one task stolen from the queue). The worker runs whatever is left when the
//! task's poll returns. Each child runs exactly once, and no task is left behind.
//!
//! The monitor's clock and the take-over thread's parking are not modelled (loom has no
//! clock): they only decide when steps happen, not which thread gets a task.

mod task_support;

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use rt_core::task::next_id;
use rt_sched::current_thread::park_block_on;
use rt_sched::multi_thread::MultiThread;
use task_support::model;

#[test]
fn owner_and_takeover_share_out_the_worker() {
    model(|| {
        let mut rt = MultiThread::new(task_support::mt_config(1, None));
        rt.start().unwrap();
        let handle = rt.handle().clone();
        let runs: Arc<[AtomicUsize; 2]> = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let parent = {
            let runs = runs.clone();
            rt.handle().spawn(
                async move {
                    let child = |k: usize| {
                        let runs = runs.clone();
                        handle.spawn(
                            async move {
                                runs[k].fetch_add(1, Ordering::Relaxed);
                            },
                            next_id(),
                        )
                    };
                    let first = child(0);
                    let sub = {
                        let handle = handle.clone();
                        loom::thread::spawn(move || {
                            handle.takeover_step(0);
                            handle.takeover_step(0);
                        })
                    };
                    let second = child(1);
                    // The stalled poll: blocks its worker until the take-over thread is done.
                    sub.join().unwrap();
                    (first, second)
                },
                next_id(),
            )
        };
        let (first, second) = park_block_on(parent).unwrap();
        park_block_on(first).unwrap();
        park_block_on(second).unwrap();
        for r in runs.iter() {
            assert_eq!(r.load(Ordering::Relaxed), 1);
        }
        rt.shutdown(None);
        assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
    });
}
