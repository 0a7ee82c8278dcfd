#![cfg(loom)]
//! loom models of the join-waker protocol (rules 4-6 in rt-core's `task/mod.rs`): a
//! `JoinHandle` polled on one thread while its task completes on another.
//!
//! * `block_on_join_sees_completion`: `block_on(join)` (waiting on a loom-visible waker)
//!   against a completing poll; no lost wake-up (loom reports a deadlock if the handle is never
//!   woken).
//! * `join_waker_replaced_races_complete`: the handle is polled with one waker, then with a
//!   different one (clear JOIN_WAKER, rewrite the slot, set it again) while the task completes;
//!   the second waker is the one woken, and every waker clone is dropped exactly once.
//! * `join_handle_dropped_after_registering_races_complete`: rule 6; the stored join waker is
//!   dropped exactly once, by the handle or by the completing thread.
//! * `join_woken_by_a_task_woken_from_a_third_thread`: the task itself is pending until a
//!   third thread wakes it; the handle's waiter still gets its wake.
//! * `panicked_task_error_races_join_drop`: a task panics while its handle is polled once and
//!   dropped; the panic's error (in rt-core's side table, the thin stage of `task/core.rs`)
//!   is dropped exactly once, by the completer or on the handle's side.

mod task_support;

use std::task::Poll;

use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::Arc;
use loom::thread;
use task_support::{
    block_on, model, poll_once, probed, take_waker, waker_slot, Dropped, Output, Probe, Seen,
    Signal, TestSched,
};

fn finish(sched: &TestSched, cell: &Dropped) {
    assert_eq!(sched.run_all(), 0, "a task was left queued");
    assert_eq!(cell.count(), 1, "task cell freed {} times", cell.count());
    assert_eq!(sched.handles(), 1, "a task cell still holds the scheduler");
}

#[test]
fn block_on_join_sees_completion() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (probe, cell) = (Probe::new(), Dropped::new());
        let (mut join, notified) = sched.bind(probed(&probe, |_, _| Poll::Ready(7)), &cell);
        let notified = notified.expect("list open");
        let th = thread::spawn(move || notified.run());
        let (out, polls) = block_on(&mut join);
        assert_eq!(out.unwrap(), 7);
        th.join().unwrap();
        SEEN.record(if polls == 1 { "ready at once" } else { "woken" });
        drop(join);
        finish(&sched, &cell);
    });
    SEEN.assert_exactly(&["ready at once", "woken"]);
}

#[test]
fn join_waker_replaced_races_complete() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (probe, cell) = (Probe::new(), Dropped::new());
        let (mut join, notified) = sched.bind(probed(&probe, |_, _| Poll::Ready(7)), &cell);
        let notified = notified.expect("list open");
        let th = thread::spawn(move || notified.run());
        let (first, second) = (Signal::new(), Signal::new());
        let mut polls = 1;
        let mut res = poll_once(&mut join, &first.waker());
        while res.is_pending() {
            if polls > 1 {
                // `second` is stored: the completion must wake it (else loom finds a deadlock).
                second.wait();
            }
            polls += 1;
            // A different waker: the handle takes the slot back and rewrites it (rule 4).
            res = poll_once(&mut join, &second.waker());
        }
        let Poll::Ready(out) = res else {
            unreachable!()
        };
        assert_eq!(out.unwrap(), 7);
        th.join().unwrap();
        drop(join);
        let first_woken = first.take();
        if polls > 2 {
            // The slot held `second` before the task completed: `first` was not woken.
            assert!(!first_woken, "the replaced join waker was woken");
        }
        assert_eq!(first.live_wakers(), 0, "first join waker leaked");
        assert_eq!(second.live_wakers(), 0, "second join waker leaked");
        SEEN.record(format!("ready at poll {polls}, first woken: {first_woken}"));
        finish(&sched, &cell);
    });
    SEEN.assert_exactly(&[
        "ready at poll 1, first woken: false",
        "ready at poll 2, first woken: false",
        "ready at poll 2, first woken: true",
        "ready at poll 3, first woken: false",
    ]);
}

#[test]
fn join_handle_dropped_after_registering_races_complete() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (probe, cell, out) = (Probe::new(), Dropped::new(), Dropped::new());
        let fut = {
            let out = out.clone();
            probed(&probe, move |_, _| Poll::Ready(Output::new(&out)))
        };
        let (mut join, notified) = sched.bind(fut, &cell);
        let notified = notified.expect("list open");
        let th = thread::spawn(move || notified.run());
        let signal = Signal::new();
        let ready = poll_once(&mut join, &signal.waker()).is_ready();
        drop(join);
        let completer = th.thread().id();
        th.join().unwrap();
        assert_eq!(out.count(), 1, "output dropped {} times", out.count());
        assert_eq!(signal.live_wakers(), 0, "join waker leaked");
        // The last clone is the stored one (the poll's own was dropped on this thread first).
        let last = *signal.dropped_on().last().unwrap();
        let waker_by = if last == completer {
            "completer"
        } else {
            "JoinHandle"
        };
        SEEN.record(format!(
            "ready: {ready}, stored waker dropped by {waker_by}"
        ));
        finish(&sched, &cell);
    });
    SEEN.assert_exactly(&[
        "ready: false, stored waker dropped by JoinHandle",
        "ready: false, stored waker dropped by completer",
        "ready: true, stored waker dropped by JoinHandle",
    ]);
}

#[test]
fn join_woken_by_a_task_woken_from_a_third_thread() {
    model(|| {
        let sched = TestSched::new();
        let (probe, cell) = (Probe::new(), Dropped::new());
        let slot = waker_slot();
        let flag = Arc::new(AtomicBool::new(false));
        let fut = {
            let (slot, flag) = (slot.clone(), flag.clone());
            probed(&probe, move |n, cx| {
                if n == 1 {
                    *slot.lock().unwrap() = Some(cx.waker().clone());
                }
                if flag.load(Ordering::Acquire) {
                    Poll::Ready(n)
                } else {
                    Poll::Pending
                }
            })
        };
        let join = sched.spawn(fut, &cell);
        assert_eq!(sched.run_all(), 1);
        let waker = take_waker(&slot);
        drop(slot);
        // The waker thread sets the flag and wakes the task; the worker thread runs what is
        // queued once the wake is in; the model thread waits on the JoinHandle.
        let waking = {
            let flag = flag.clone();
            thread::spawn(move || {
                flag.store(true, Ordering::Release);
                waker.wake();
            })
        };
        let worker = {
            let sched = sched.clone();
            thread::spawn(move || {
                // The task is queued exactly once, by the wake: run it when it arrives.
                loop {
                    if let Some(t) = sched.pop() {
                        t.run();
                        break;
                    }
                    thread::yield_now();
                }
            })
        };
        let n = block_on(join).0.unwrap();
        assert_eq!(n, 2);
        waking.join().unwrap();
        worker.join().unwrap();
        assert_eq!(probe.drops(), 1);
        finish(&sched, &cell);
    });
}

/// Installs (once) a panic hook that keeps quiet about the models' own task panics (payload
/// `Output`) and reports every other panic, loom's included, as the default hook does.
fn quiet_task_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<Output>() {
                default(info);
            }
        }));
    });
}

#[test]
fn panicked_task_error_races_join_drop() {
    // The thin stage: a panic's `JoinError` waits in rt-core's side table, handed over by the
    // state word like the stage (rules 1 and 5). The task panics on one thread while the
    // handle is polled once and dropped on another: the payload is dropped exactly once, by
    // whoever owns the output, and the cell is freed once.
    static SEEN: Seen = Seen::new();
    quiet_task_panics();
    model(|| {
        let sched = TestSched::new();
        let (cell, payload) = (Dropped::new(), Dropped::new());
        let fut = {
            let payload = payload.clone();
            std::future::poll_fn(move |_| -> Poll<()> {
                std::panic::panic_any(Output::new(&payload))
            })
        };
        let (mut join, notified) = sched.bind(fut, &cell);
        let notified = notified.expect("list open");
        let th = thread::spawn(move || notified.run());
        let signal = Signal::new();
        let res = poll_once(&mut join, &signal.waker());
        let ready = match res {
            Poll::Ready(Err(e)) => {
                assert!(e.is_panic(), "{e:?}");
                drop(e);
                true
            }
            Poll::Ready(Ok(())) => unreachable!("the task panicked"),
            Poll::Pending => false,
        };
        drop(join);
        let completer = th.thread().id();
        th.join().unwrap();
        assert_eq!(
            payload.count(),
            1,
            "payload dropped {} times",
            payload.count()
        );
        let by = if payload.on() == Some(completer) {
            "completer"
        } else {
            "JoinHandle side"
        };
        SEEN.record(format!("ready: {ready}, payload dropped by {by}"));
        finish(&sched, &cell);
    });
    SEEN.assert_exactly(&[
        "ready: false, payload dropped by JoinHandle side",
        "ready: false, payload dropped by completer",
        "ready: true, payload dropped by JoinHandle side",
    ]);
}
