#![cfg(loom)]
//! loom models of the task state word's transitions (rt-core `task/state.rs`, rules 1-7 in
//! `task/mod.rs`), driven through the public API with a hand-drained test scheduler:
//!
//! * `self_wake_during_poll_is_polled_again`: rule 2, on one thread.
//! * `wake_from_other_thread_races_poll`: a wake from another thread lands before, during or
//!   after a poll; a wake during the poll reschedules through `yield_now`, after it returns.
//! * `wake_after_complete_does_nothing`: a late wake (by ref, then by value, possibly the last
//!   reference) neither polls again nor frees twice.
//! * `abort_races_poll`, `abort_races_poll_of_idle_task`: rule 7; the future is dropped once
//!   and the `JoinHandle` sees the output or `Cancelled`.
//! * `join_handle_drop_races_complete`, `join_handle_drop_races_wake_and_complete`: rules 5
//!   and 6; the output and the join waker are dropped exactly once, by whichever side is last.
//! * `into_abort_handle_races_complete`: the same for `JoinHandle::into_abort_handle`, whose
//!   reference outlives the join interest.
//! * `waker_clone_and_drop_across_threads`: the cell is freed exactly once, on whichever thread
//!   drops the last reference.
//!
//! Every model ends with every task cell freed once (`cell.count() == 1`) and no scheduler
//! handle left but the model's own (loom also panics on a leaked loom object).

mod task_support;

use std::task::{Poll, Waker};

use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::Arc;
use loom::thread;
use task_support::{
    model, poll_once, probed, take_waker, waker_slot, Dropped, Output, Probe, Seen, Signal,
    TestSched,
};

/// Ends a model: no task left queued, every cell freed exactly once, no handle left behind.
fn finish(sched: &TestSched, cells: &[&Dropped]) {
    assert_eq!(sched.run_all(), 0, "a task was left queued");
    for cell in cells {
        assert_eq!(cell.count(), 1, "task cell freed {} times", cell.count());
    }
    assert_eq!(sched.handles(), 1, "a task cell still holds the scheduler");
}

#[test]
fn self_wake_during_poll_is_polled_again() {
    model(|| {
        let sched = TestSched::new();
        let (probe, cell) = (Probe::new(), Dropped::new());
        let fut = probed(&probe, |n, cx| {
            if n == 1 {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            Poll::Ready(n)
        });
        let mut join = sched.spawn(fut, &cell);
        // Rule 2: the self-wake did not poll recursively; it queued the task once, via yield.
        assert_eq!(sched.pop().map(|t| t.run()), Some(()));
        assert_eq!(
            (probe.polls(), sched.yields(), sched.schedules()),
            (1, 1, 0)
        );
        assert_eq!(sched.run_all(), 1);
        assert_eq!(probe.polls(), 2);
        assert!(matches!(
            poll_once(&mut join, Waker::noop()),
            Poll::Ready(Ok(2))
        ));
        assert_eq!(probe.drops(), 1);
        drop(join);
        finish(&sched, &[&cell]);
    });
}

#[test]
fn wake_from_other_thread_races_poll() {
    static SEEN: Seen = Seen::new();
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
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            })
        };
        let mut join = sched.spawn(fut, &cell);
        assert_eq!(sched.run_all(), 1);
        let waker = take_waker(&slot);
        let remote = waker.clone();
        let th = {
            let flag = flag.clone();
            thread::spawn(move || {
                flag.store(true, Ordering::Release);
                remote.wake();
            })
        };
        // Poll 2 races the remote wake.
        waker.wake();
        sched.run_all();
        th.join().unwrap();
        sched.run_all();
        assert!(matches!(
            poll_once(&mut join, Waker::noop()),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(probe.drops(), 1);
        SEEN.record(format!(
            "polls={} schedules={} yields={}",
            probe.polls(),
            sched.schedules(),
            sched.yields()
        ));
        drop(join);
        finish(&sched, &[&cell]);
    });
    SEEN.assert_exactly(&[
        // The remote wake came first (or while poll 2 was queued) and poll 2 saw the flag.
        "polls=2 schedules=1 yields=0",
        // It came while poll 2 ran, after the flag check: rescheduled by the poller (rule 2).
        "polls=3 schedules=1 yields=1",
        // It came after poll 2 returned Pending: a fresh submit.
        "polls=3 schedules=2 yields=0",
    ]);
}

#[test]
fn wake_after_complete_does_nothing() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (probe, cell) = (Probe::new(), Dropped::new());
        let slot = waker_slot();
        let fut = {
            let slot = slot.clone();
            probed(&probe, move |n, cx| {
                if n == 1 {
                    *slot.lock().unwrap() = Some(cx.waker().clone());
                    return Poll::Pending;
                }
                Poll::Ready(())
            })
        };
        let join = sched.spawn(fut, &cell);
        assert_eq!(sched.run_all(), 1);
        let waker = take_waker(&slot);
        let late = waker.clone();
        let th = {
            let probe = probe.clone();
            thread::spawn(move || {
                let complete = probe.drops() == 1;
                late.wake_by_ref();
                // By value: when the task is complete and everything else is gone, this is the
                // last reference and frees the cell.
                late.wake();
                complete
            })
        };
        waker.wake();
        sched.run_all();
        drop(join);
        let complete_before_late_wake = th.join().unwrap();
        sched.run_all();
        assert_eq!(probe.polls(), 2, "a wake after completion polled again");
        assert_eq!(probe.drops(), 1);
        SEEN.record(format!(
            "late wake after complete: {complete_before_late_wake}, cell freed by wake: {}",
            cell.on() != Some(thread::current().id())
        ));
        finish(&sched, &[&cell]);
    });
    // "after complete" is read just before the late wakes start; they may finish after it.
    SEEN.assert_exactly(&[
        "late wake after complete: false, cell freed by wake: false",
        "late wake after complete: false, cell freed by wake: true",
        "late wake after complete: true, cell freed by wake: false",
        "late wake after complete: true, cell freed by wake: true",
    ]);
}

#[test]
fn abort_races_poll() {
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
        let mut join = sched.spawn(fut, &cell);
        let abort = join.abort_handle();
        let th = thread::spawn(move || abort.abort());
        sched.run_all();
        th.join().unwrap();
        sched.run_all();
        assert_eq!(probe.drops(), 1);
        let res = match poll_once(&mut join, Waker::noop()) {
            Poll::Ready(Ok(o)) => {
                drop(o);
                assert_eq!(out.count(), 1);
                "output"
            }
            Poll::Ready(Err(e)) => {
                assert!(e.is_cancelled(), "{e:?}");
                assert_eq!(out.count(), 0);
                "cancelled"
            }
            Poll::Pending => panic!("an aborted task never completed"),
        };
        SEEN.record(format!("polls={} {res}", probe.polls()));
        drop(join);
        finish(&sched, &[&cell]);
    });
    SEEN.assert_exactly(&["polls=0 cancelled", "polls=1 cancelled", "polls=2 output"]);
}

#[test]
fn abort_races_poll_of_idle_task() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (probe, cell) = (Probe::new(), Dropped::new());
        // Pending forever, and never woken: only the abort can complete it.
        let fut = probed(&probe, |_, _| Poll::<()>::Pending);
        let mut join = sched.spawn(fut, &cell);
        let abort = join.abort_handle();
        let th = thread::spawn(move || abort.abort());
        sched.run_all();
        th.join().unwrap();
        sched.run_all();
        assert_eq!(probe.drops(), 1);
        match poll_once(&mut join, Waker::noop()) {
            Poll::Ready(Err(e)) => assert!(e.is_cancelled(), "{e:?}"),
            other => panic!("expected Cancelled, got {:?}", other.map(|r| r.is_ok())),
        }
        // schedules=1: the abort found the task idle and submitted it itself.
        SEEN.record(format!(
            "polls={} schedules={}",
            probe.polls(),
            sched.schedules()
        ));
        drop(join);
        finish(&sched, &[&cell]);
    });
    SEEN.assert_exactly(&[
        "polls=0 schedules=0",
        "polls=1 schedules=0",
        "polls=1 schedules=1",
    ]);
}

#[test]
fn join_handle_drop_races_complete() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (probe, cell, out) = (Probe::new(), Dropped::new(), Dropped::new());
        let fut = {
            let out = out.clone();
            probed(&probe, move |_, _| Poll::Ready(Output::new(&out)))
        };
        let join = sched.spawn(fut, &cell);
        let th = thread::spawn(move || drop(join));
        sched.run_all();
        let joiner = th.thread().id();
        th.join().unwrap();
        assert_eq!(probe.drops(), 1);
        assert_eq!(out.count(), 1, "output dropped {} times", out.count());
        SEEN.record(if out.on() == Some(joiner) {
            "output dropped by the JoinHandle"
        } else {
            "output dropped by the completing thread"
        });
        finish(&sched, &[&cell]);
    });
    SEEN.assert_exactly(&[
        "output dropped by the JoinHandle",
        "output dropped by the completing thread",
    ]);
}

/// `JoinHandle::into_abort_handle` (the join interest goes, the reference stays with the
/// `AbortHandle`) races completion: the output is dropped exactly once, and the cell is freed
/// exactly once, after the abort handle is dropped.
#[test]
fn into_abort_handle_races_complete() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (probe, cell, out) = (Probe::new(), Dropped::new(), Dropped::new());
        let fut = {
            let out = out.clone();
            probed(&probe, move |_, _| Poll::Ready(Output::new(&out)))
        };
        let join = sched.spawn(fut, &cell);
        let th = thread::spawn(move || join.into_abort_handle());
        sched.run_all();
        let joiner = th.thread().id();
        let abort = th.join().unwrap();
        assert_eq!(probe.drops(), 1);
        assert_eq!(cell.count(), 0, "the abort handle keeps the cell");
        drop(abort);
        assert_eq!(out.count(), 1, "output dropped {} times", out.count());
        SEEN.record(if out.on() == Some(joiner) {
            "output dropped by into_abort_handle"
        } else {
            "output dropped by the completing thread"
        });
        finish(&sched, &[&cell]);
    });
    SEEN.assert_exactly(&[
        "output dropped by into_abort_handle",
        "output dropped by the completing thread",
    ]);
}

#[test]
fn join_handle_drop_races_wake_and_complete() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (probe, cell, out) = (Probe::new(), Dropped::new(), Dropped::new());
        let slot = waker_slot();
        let fut = {
            let (slot, out) = (slot.clone(), out.clone());
            probed(&probe, move |n, cx| {
                if n == 1 {
                    *slot.lock().unwrap() = Some(cx.waker().clone());
                    return Poll::Pending;
                }
                Poll::Ready(Output::new(&out))
            })
        };
        let mut join = sched.spawn(fut, &cell);
        assert_eq!(sched.run_all(), 1);
        let waker = take_waker(&slot);
        let th = thread::spawn(move || {
            // Register a join waker, then drop the handle: rules 4 and 6 race the completion.
            let signal = Signal::new();
            let ready = poll_once(&mut join, &signal.waker()).is_ready();
            drop(join);
            // Not yet `live_wakers() == 0`: a completion between COMPLETE and clearing
            // JOIN_WAKER still holds the slot, and drops the waker itself (rule 6).
            (ready, signal)
        });
        // The schedule (a wake) and the completing poll race the handle's drop.
        waker.wake();
        sched.run_all();
        let joiner = th.thread().id();
        let (ready, signal) = th.join().unwrap();
        assert_eq!(signal.live_wakers(), 0, "join waker leaked");
        assert_eq!(probe.drops(), 1);
        assert_eq!(out.count(), 1, "output dropped {} times", out.count());
        let by = if out.on() == Some(joiner) {
            "JoinHandle"
        } else {
            "completer"
        };
        SEEN.record(format!("join ready: {ready}, output dropped by {by}"));
        finish(&sched, &[&cell]);
    });
    SEEN.assert_exactly(&[
        "join ready: false, output dropped by JoinHandle",
        "join ready: false, output dropped by completer",
        "join ready: true, output dropped by JoinHandle",
    ]);
}

#[test]
fn waker_clone_and_drop_across_threads() {
    static SEEN: Seen = Seen::new();
    model(|| {
        let sched = TestSched::new();
        let (probe, cell) = (Probe::new(), Dropped::new());
        let slot = waker_slot();
        let fut = {
            let slot = slot.clone();
            probed(&probe, move |_, cx| {
                *slot.lock().unwrap() = Some(cx.waker().clone());
                Poll::<()>::Pending
            })
        };
        let join = sched.spawn(fut, &cell);
        assert_eq!(sched.run_all(), 1);
        let waker = take_waker(&slot);
        drop(slot);
        let theirs = waker.clone();
        let th = thread::spawn(move || {
            let again = theirs.clone();
            drop(theirs);
            // Submits the task unless shutdown completed it first.
            again.wake_by_ref();
            drop(again);
        });
        drop(waker);
        drop(join);
        // Shutdown drops the future and the list's reference, racing the other thread's wakers.
        sched.owned().close_and_shutdown_all();
        let other = th.thread().id();
        th.join().unwrap();
        sched.run_all();
        assert_eq!(probe.polls(), 1, "polled after shutdown");
        assert_eq!(probe.drops(), 1);
        SEEN.record(if cell.on() == Some(other) {
            "freed by the waker thread"
        } else {
            "freed by the model thread"
        });
        finish(&sched, &[&cell]);
    });
    SEEN.assert_exactly(&["freed by the model thread", "freed by the waker thread"]);
}
