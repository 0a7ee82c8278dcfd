#![cfg(loom)]
//! loom models of a spawn racing shutdown (rt-core's `task/list.rs`: "a spawn racing shutdown
//! either lands before the close, and is cancelled by it, or is refused, and is cancelled at
//! once by `bind`"; rule 7 in `task/mod.rs`).
//!
//! * `bind_and_poll_race_close_and_shutdown_all`: `OwnedTasks::bind` and the task's first
//!   polls on one thread, `close_and_shutdown_all` on another.
//! * `spawn_races_multi_thread_shutdown`: `Handle::spawn` from a foreign thread racing
//!   `MultiThread::shutdown` (one worker), the `JoinHandle` awaited with `park_block_on`.
//!
//! Either way the future is dropped exactly once, the output (if any) exactly once, the
//! `JoinHandle` resolves to the output or `Cancelled`, and the task cell is freed.

mod task_support;

use std::task::{Poll, Waker};

use loom::thread;
use rt_core::task::{next_id, JoinError};
use rt_sched::current_thread::park_block_on;
use rt_sched::multi_thread::{Config, MultiThread};
use task_support::{model, poll_once, probed, Dropped, Output, Probe, Seen, TestSched};

/// The output, or "cancelled"; checks the output's drop count either way.
fn outcome(res: Result<Output, JoinError>, out: &Dropped) -> &'static str {
    match res {
        Ok(o) => {
            drop(o);
            assert_eq!(out.count(), 1, "output dropped {} times", out.count());
            "output"
        }
        Err(e) => {
            assert!(e.is_cancelled(), "{e:?}");
            assert_eq!(out.count(), 0, "a cancelled task produced an output");
            "cancelled"
        }
    }
}

#[test]
fn bind_and_poll_race_close_and_shutdown_all() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (probe, cell, out) = (Probe::new(), Dropped::new(), Dropped::new());
        let fut = {
            let out = out.clone();
            probed(&probe, move |n, cx| {
                if n == 1 {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Poll::Ready(Output::new(&out))
            })
        };
        let spawner = {
            let (sched, cell) = (sched.clone(), cell.clone());
            thread::spawn(move || {
                let (join, notified) = sched.bind(fut, &cell);
                let bound = notified.is_some();
                if let Some(n) = notified {
                    n.run();
                    // The self-wake's reschedule, unless shutdown completed the task.
                    sched.run_all();
                }
                (join, bound)
            })
        };
        sched.owned().close_and_shutdown_all();
        let (mut join, bound) = spawner.join().unwrap();
        // A queued `Notified` of a task the shutdown completed only drops its reference.
        sched.run_all();
        assert!(sched.owned().is_empty());
        assert_eq!(probe.drops(), 1, "future dropped {} times", probe.drops());
        let Poll::Ready(res) = poll_once(&mut join, Waker::noop()) else {
            panic!("JoinHandle unresolved after shutdown");
        };
        let res = outcome(res, &out);
        let bound = if bound { "bound" } else { "refused" };
        SEEN.record(format!("{bound}: {res} after {} polls", probe.polls()));
        drop(join);
        assert_eq!(cell.count(), 1, "task cell freed {} times", cell.count());
        assert_eq!(sched.handles(), 1, "a task cell still holds the scheduler");
    });
    SEEN.assert_exactly(&[
        "bound: cancelled after 0 polls",
        "bound: cancelled after 1 polls",
        "bound: output after 2 polls",
        "refused: cancelled after 0 polls",
    ]);
}

#[test]
fn spawn_races_multi_thread_shutdown() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let mut rt = MultiThread::new(Config {
            workers: 1,
            thread_name: "rt-worker".into(),
            thread_stack_size: None,
            frame_pool: false,
            on_thread: rt_sched::no_hook(),
            io_driver: None,
        });
        rt.start().unwrap();
        let (probe, out) = (Probe::new(), Dropped::new());
        let fut = {
            let out = out.clone();
            probed(&probe, move |_, _| Poll::Ready(Output::new(&out)))
        };
        let spawner = {
            let handle = rt.handle().clone();
            thread::spawn(move || handle.spawn(fut, next_id()))
        };
        rt.shutdown(None);
        let join = spawner.join().unwrap();
        assert_eq!(probe.drops(), 1, "future dropped {} times", probe.drops());
        let res = outcome(park_block_on(join), &out);
        SEEN.record(format!("{res} after {} polls", probe.polls()));
        assert_eq!(
            rt.handle().metrics().live_tasks,
            0,
            "a task outlived shutdown"
        );
    });
    SEEN.assert_exactly(&["cancelled after 0 polls", "output after 1 polls"]);
}
