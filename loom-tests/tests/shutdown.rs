#![cfg(loom)]
//! loom models of a spawn racing shutdown (rt-core's `task/list.rs`: "a spawn racing shutdown
//! either lands before the close, and is cancelled by it, or is refused, and is cancelled at
//! once by `bind`"; rule 7 in `task/mod.rs`).
//!
//! * `bind_and_poll_race_close_and_shutdown_all`: `OwnedTasks::bind` and the task's first
//!   polls on one thread, `close_and_shutdown_all` on another.
//! * `slot_reuse_races_close_and_shutdown_all`: one thread binds a task, runs it to completion
//!   (its slot goes back to the free list) and binds a second task into the reused slot, which
//!   stays pending; the close on another thread must cancel the second task exactly once and
//!   never touch the first.
//! * `two_drainers_race_a_bind`: a bind racing two `close_and_shutdown_share` drainers (a
//!   multi-thread runtime's workers at shutdown), each starting at its own part of the slots.
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
use rt_sched::multi_thread::MultiThread;
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
fn two_drainers_race_a_bind() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (probe, cell, out) = (Probe::new(), Dropped::new(), Dropped::new());
        let fut = probed(&probe, |_, _| Poll::<Output>::Pending);
        let spawner = {
            let (sched, cell) = (sched.clone(), cell.clone());
            thread::spawn(move || {
                let (join, notified) = sched.bind(fut, &cell);
                let bound = notified.is_some();
                drop(notified);
                (join, bound)
            })
        };
        // A multi-thread runtime's workers at shutdown: each drains from its own part.
        let other = {
            let sched = sched.clone();
            thread::spawn(move || sched.owned().close_and_shutdown_share(1, 2))
        };
        sched.owned().close_and_shutdown_share(0, 2);
        other.join().unwrap();
        let (mut join, bound) = spawner.join().unwrap();
        assert!(sched.owned().is_empty());
        assert_eq!(probe.drops(), 1, "future dropped {} times", probe.drops());
        let Poll::Ready(res) = poll_once(&mut join, Waker::noop()) else {
            panic!("JoinHandle unresolved after shutdown");
        };
        let res = outcome(res, &out);
        SEEN.record(format!(
            "{}: {res}",
            if bound { "bound" } else { "refused" }
        ));
        drop(join);
        assert_eq!(cell.count(), 1, "task cell freed {} times", cell.count());
    });
    SEEN.assert_exactly(&["bound: cancelled", "refused: cancelled"]);
}

#[test]
fn slot_reuse_races_close_and_shutdown_all() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (first, second) = (Probe::new(), Probe::new());
        let (cell1, cell2, out) = (Dropped::new(), Dropped::new(), Dropped::new());
        let fut1 = {
            let out = out.clone();
            probed(&first, move |_, _| Poll::Ready(Output::new(&out)))
        };
        let fut2 = probed(&second, |_, _| Poll::<Output>::Pending);
        let spawner = {
            let (sched, cell1, cell2) = (sched.clone(), cell1.clone(), cell2.clone());
            thread::spawn(move || {
                let (join1, n1) = sched.bind(fut1, &cell1);
                if let Some(n) = n1 {
                    n.run();
                }
                let (join2, n2) = sched.bind(fut2, &cell2);
                if let Some(n) = n2 {
                    n.run();
                }
                (join1, join2)
            })
        };
        sched.owned().close_and_shutdown_all();
        let (mut join1, mut join2) = spawner.join().unwrap();
        sched.run_all();
        assert!(sched.owned().is_empty());
        assert_eq!(
            first.drops(),
            1,
            "first future dropped {} times",
            first.drops()
        );
        assert_eq!(
            second.drops(),
            1,
            "second future dropped {} times",
            second.drops()
        );
        let Poll::Ready(res1) = poll_once(&mut join1, Waker::noop()) else {
            panic!("first JoinHandle unresolved after shutdown");
        };
        let Poll::Ready(res2) = poll_once(&mut join2, Waker::noop()) else {
            panic!("second JoinHandle unresolved after shutdown");
        };
        let res1 = outcome(res1, &out);
        assert!(
            matches!(&res2, Err(e) if e.is_cancelled()),
            "second task not cancelled"
        );
        SEEN.record(format!(
            "first: {res1} after {} polls, second polled {}",
            first.polls(),
            second.polls()
        ));
        drop((join1, join2));
        assert_eq!(cell1.count(), 1, "first cell freed {} times", cell1.count());
        assert_eq!(
            cell2.count(),
            1,
            "second cell freed {} times",
            cell2.count()
        );
        assert_eq!(sched.handles(), 1, "a task cell still holds the scheduler");
    });
    SEEN.assert_exactly(&[
        "first: cancelled after 0 polls, second polled 0",
        "first: output after 1 polls, second polled 0",
        "first: output after 1 polls, second polled 1",
    ]);
}

#[test]
fn spawn_races_multi_thread_shutdown() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let mut rt = MultiThread::new(task_support::mt_config(1, None));
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
            rt.handle().metrics().num_alive_tasks(),
            0,
            "a task outlived shutdown"
        );
    });
    SEEN.assert_exactly(&["cancelled after 0 polls", "output after 1 polls"]);
}
