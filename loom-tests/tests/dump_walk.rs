#![cfg(loom)]
//! loom models of a task dump's walk of the owned list (rt-core's `task/list.rs`, "Walking the
//! list": the walker borrows the list's reference by swapping each slot empty, reads the
//! header, swaps the pointer back, then settles a completion or close that found the slot
//! empty meanwhile).
//!
//! * `walk_races_completion_and_free`: a task completes (its `JoinHandle` already dropped, so
//!   completion frees the cell) while the walker reads it.
//! * `walk_races_completion_and_slot_reuse`: one thread runs a task to completion and binds a
//!   second one, which takes the first one's slot unless the walker still holds it.
//! * `walk_races_spawn`: a task is bound while the walker walks past a live one.
//! * `walk_races_close`: `close_and_shutdown_all` runs while the walker holds a task's slot.
//!
//! Each checks that the cell is freed exactly once and never read after (loom reports an
//! access to a freed atomic), that the future is dropped exactly once, that the list ends
//! empty with its live count back at zero, and that a task live for the whole walk is seen
//! exactly once. The walker reads each header through `TaskSnapshot::of`, as `Handle::dump`
//! does. Each model runs in well under a second at the default bound of 2.

mod task_support;

use std::task::{Poll, Waker};

use loom::thread;
use rt_core::task::{Id, TaskSnapshot};
use task_support::{model, poll_once, probed, Dropped, Output, Probe, Seen, TestSched};

/// Walks the list as a dump does: the ids seen.
fn walk(sched: &TestSched) -> Vec<Id> {
    let mut seen = Vec::new();
    sched.owned().for_each_live(|h| {
        if let Some(t) = TaskSnapshot::of(h, 1) {
            seen.push(t.id);
        }
    });
    seen
}

#[test]
fn walk_races_completion_and_free() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (probe, cell, out) = (Probe::new(), Dropped::new(), Dropped::new());
        let fut = {
            let out = out.clone();
            probed(&probe, move |_, _| Poll::Ready(Output::new(&out)))
        };
        let (join, notified) = sched.bind(fut, &cell);
        let id = join.id();
        // Nobody reads the output: the completing thread drops it and frees the cell, unless
        // the walker holds the list's reference at that moment (then the walker frees it).
        drop(join);
        let n = notified.expect("list open");
        let runner = thread::spawn(move || n.run());
        let seen = walk(&sched);
        runner.join().unwrap();
        assert!(seen.iter().all(|s| *s == id));
        assert_eq!(probe.polls(), 1);
        assert_eq!(probe.drops(), 1);
        assert_eq!(out.count(), 1, "output dropped {} times", out.count());
        assert_eq!(cell.count(), 1, "task cell freed {} times", cell.count());
        assert!(
            sched.owned().is_empty(),
            "live count left at {}",
            sched.owned().len()
        );
        assert_eq!(sched.handles(), 1, "a task cell still holds the scheduler");
        SEEN.record(format!("walk saw {} tasks", seen.len()));
    });
    SEEN.assert_exactly(&["walk saw 0 tasks", "walk saw 1 tasks"]);
}

#[test]
fn walk_races_spawn() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (first, second) = (Probe::new(), Probe::new());
        let (cell1, cell2) = (Dropped::new(), Dropped::new());
        let fut1 = probed(&first, |_, _| Poll::<()>::Pending);
        let fut2 = probed(&second, |_, _| Poll::<()>::Pending);
        let (mut join1, n1) = sched.bind(fut1, &cell1);
        // Polled once: idle, in the list.
        n1.expect("list open").run();
        let spawner = {
            let (sched, cell2) = (sched.clone(), cell2.clone());
            thread::spawn(move || {
                let (join2, n2) = sched.bind(fut2, &cell2);
                drop(n2);
                join2
            })
        };
        let seen = walk(&sched);
        let mut join2 = spawner.join().unwrap();
        let live1 = seen.iter().filter(|s| **s == join1.id()).count();
        assert_eq!(
            live1, 1,
            "a task live for the whole walk seen {live1} times"
        );
        let new = seen.iter().filter(|s| **s == join2.id()).count();
        assert!(new <= 1);
        assert_eq!(sched.owned().len(), 2);
        sched.shutdown();
        assert!(sched.owned().is_empty());
        for (join, probe) in [(&mut join1, &first), (&mut join2, &second)] {
            assert_eq!(probe.drops(), 1);
            let Poll::Ready(Err(e)) = poll_once(join, Waker::noop()) else {
                panic!("JoinHandle unresolved after shutdown");
            };
            assert!(e.is_cancelled());
        }
        drop((join1, join2));
        assert_eq!((cell1.count(), cell2.count()), (1, 1));
        SEEN.record(format!("walk saw the new task {new} times"));
    });
    SEEN.assert_exactly(&[
        "walk saw the new task 0 times",
        "walk saw the new task 1 times",
    ]);
}

#[test]
fn walk_races_close() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (probe, cell) = (Probe::new(), Dropped::new());
        let fut = probed(&probe, |_, _| Poll::<()>::Pending);
        let (mut join, n) = sched.bind(fut, &cell);
        n.expect("list open").run();
        let closer = {
            let sched = sched.clone();
            thread::spawn(move || sched.owned().close_and_shutdown_all())
        };
        let seen = walk(&sched);
        closer.join().unwrap();
        assert!(sched.owned().is_closed());
        assert!(
            sched.owned().is_empty(),
            "live count left at {}",
            sched.owned().len()
        );
        assert_eq!(probe.drops(), 1, "future dropped {} times", probe.drops());
        let Poll::Ready(Err(e)) = poll_once(&mut join, Waker::noop()) else {
            panic!("JoinHandle unresolved after the close");
        };
        assert!(e.is_cancelled());
        drop(join);
        assert_eq!(cell.count(), 1, "task cell freed {} times", cell.count());
        SEEN.record(format!("walk saw {} tasks", seen.len()));
    });
    SEEN.assert_exactly(&["walk saw 0 tasks", "walk saw 1 tasks"]);
}

#[test]
fn walk_races_completion_and_slot_reuse() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (first, second) = (Probe::new(), Probe::new());
        let (cell1, cell2, out) = (Dropped::new(), Dropped::new(), Dropped::new());
        let fut1 = {
            let out = out.clone();
            probed(&first, move |_, _| Poll::Ready(Output::new(&out)))
        };
        let fut2 = probed(&second, |_, _| Poll::<()>::Pending);
        let (join1, n1) = sched.bind(fut1, &cell1);
        let id1 = join1.id();
        drop(join1);
        let n1 = n1.expect("list open");
        let worker = {
            let (sched, cell2) = (sched.clone(), cell2.clone());
            thread::spawn(move || {
                n1.run();
                let (join2, n2) = sched.bind(fut2, &cell2);
                n2.expect("list open").run();
                join2
            })
        };
        let seen = walk(&sched);
        let mut join2 = worker.join().unwrap();
        let id2 = join2.id();
        assert!(seen.iter().filter(|s| **s == id1).count() <= 1);
        assert!(seen.iter().filter(|s| **s == id2).count() <= 1);
        assert_eq!(cell1.count(), 1, "first cell freed {} times", cell1.count());
        assert_eq!(out.count(), 1);
        assert_eq!(sched.owned().len(), 1, "live count {}", sched.owned().len());
        // The second task is still listed: a later walk sees it once.
        assert_eq!(walk(&sched), vec![id2]);
        sched.shutdown();
        assert!(sched.owned().is_empty());
        assert_eq!(second.drops(), 1);
        let Poll::Ready(Err(e)) = poll_once(&mut join2, Waker::noop()) else {
            panic!("JoinHandle unresolved after shutdown");
        };
        assert!(e.is_cancelled());
        drop(join2);
        assert_eq!(cell2.count(), 1);
        let which = |id| if id == id1 { "first" } else { "second" };
        let seen: Vec<_> = seen.into_iter().map(which).collect();
        SEEN.record(format!("walk saw {seen:?}"));
    });
    SEEN.assert_exactly(&[
        "walk saw []",
        "walk saw [\"first\"]",
        // The first task's slot held by the walker when the second was bound: another slot.
        "walk saw [\"first\", \"second\"]",
        "walk saw [\"second\"]",
    ]);
}
