//! `abort`: before the first poll, during a poll (the task aborts itself), while the task is
//! parked (another thread aborts it), and after completion (no effect). `AbortHandle` and
//! `is_finished`.
//!
//! Each aborted future is dropped exactly once (a `DropCount` inside it) and its `JoinHandle`
//! resolves to a cancellation error.

mod support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Barrier, Mutex};

use support::{runtimes, until, until_count, DropCount, Gate, Never, WakeSelfOnDrop};

#[test]
fn abort_before_the_first_poll_current_thread() {
    let rt = support::current_thread();
    let drops = Arc::new(AtomicUsize::new(0));
    let never = Never::default();
    let polls = never.polls.clone();
    let guard = DropCount(drops.clone());
    // Outside `block_on` a current-thread runtime runs nothing: the task is still queued.
    let h = rt.spawn(async move {
        let _guard = guard;
        never.await
    });
    h.abort();
    assert_eq!(drops.load(Ordering::SeqCst), 0, "abort only marks the task");
    let err = rt.block_on(h).expect_err("an aborted task has no output");
    assert!(err.is_cancelled(), "{err}");
    assert_eq!(
        polls.load(Ordering::SeqCst),
        0,
        "an aborted task is never polled"
    );
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn abort_before_the_first_poll_multi_thread() {
    let rt = support::multi_thread(1);
    // Occupy the only worker so the next task stays queued.
    let (started_tx, started_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let blocker = rt.spawn(async move {
        started_tx.send(()).unwrap();
        release_rx.recv().unwrap();
    });
    started_rx.recv().unwrap();

    let drops = Arc::new(AtomicUsize::new(0));
    let never = Never::default();
    let polls = never.polls.clone();
    let guard = DropCount(drops.clone());
    let h = rt.spawn(async move {
        let _guard = guard;
        never.await
    });
    h.abort();
    assert!(
        !h.is_finished(),
        "the worker is busy: nobody has dropped the future yet"
    );
    release_tx.send(()).unwrap();
    rt.block_on(blocker).unwrap();
    let err = rt.block_on(h).expect_err("an aborted task has no output");
    assert!(err.is_cancelled(), "{err}");
    assert_eq!(
        polls.load(Ordering::SeqCst),
        0,
        "an aborted task is never polled"
    );
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn abort_from_a_foreign_thread_while_parked() {
    for (flavor, rt) in runtimes() {
        let drops = Arc::new(AtomicUsize::new(0));
        let never = Never::default();
        let polls = never.polls.clone();
        let guard = DropCount(drops.clone());
        let h = rt.spawn(async move {
            let _guard = guard;
            never.await
        });
        rt.block_on(async {
            until_count(&polls, 1).await;
            assert!(!h.is_finished(), "{flavor}: parked, not finished");
            let abort = h.abort_handle();
            std::thread::spawn(move || abort.abort()).join().unwrap();
            let err = h.await.expect_err("an aborted task has no output");
            assert!(err.is_cancelled(), "{flavor}: {err}");
        });
        assert_eq!(drops.load(Ordering::SeqCst), 1, "{flavor}");
        assert_eq!(
            polls.load(Ordering::SeqCst),
            1,
            "{flavor}: not polled after the abort"
        );
    }
}

#[test]
fn a_task_aborts_itself_during_its_poll() {
    for (flavor, rt) in runtimes() {
        let drops = Arc::new(AtomicUsize::new(0));
        let slot: Arc<Mutex<Option<rt::task::AbortHandle>>> = Arc::default();
        let filled = Arc::new(AtomicBool::new(false));
        let after_abort = Arc::new(AtomicBool::new(false));
        let never = Never::default();
        let polls = never.polls.clone();
        let h = rt.spawn({
            let (guard, slot, filled, after_abort) = (
                DropCount(drops.clone()),
                slot.clone(),
                filled.clone(),
                after_abort.clone(),
            );
            async move {
                let _guard = guard;
                until(&filled).await;
                let me = slot.lock().unwrap().take().unwrap();
                assert_eq!(me.id(), rt::task::id());
                me.abort();
                // The abort takes effect at the next suspension point, not inside `abort()`.
                after_abort.store(true, Ordering::SeqCst);
                never.await
            }
        });
        *slot.lock().unwrap() = Some(h.abort_handle());
        filled.store(true, Ordering::SeqCst);
        let err = rt.block_on(h).expect_err("the task aborted itself");
        assert!(err.is_cancelled(), "{flavor}: {err}");
        assert!(
            after_abort.load(Ordering::SeqCst),
            "{flavor}: the poll ran on after abort()"
        );
        assert_eq!(
            polls.load(Ordering::SeqCst),
            1,
            "{flavor}: not polled after its own abort"
        );
        assert_eq!(drops.load(Ordering::SeqCst), 1, "{flavor}");
    }
}

#[test]
fn a_task_aborted_while_it_yields_is_not_polled_again() {
    for (flavor, rt) in runtimes() {
        let polls = Arc::new(AtomicUsize::new(0));
        let p = polls.clone();
        let slot: Arc<Mutex<Option<rt::task::AbortHandle>>> = Arc::default();
        let s = slot.clone();
        let h = rt.spawn(async move {
            loop {
                if p.fetch_add(1, Ordering::SeqCst) >= 3 {
                    if let Some(me) = s.lock().unwrap().take() {
                        me.abort();
                    }
                }
                // The yield's own wake and the abort's both land while the task runs.
                rt::task::yield_now().await;
            }
        });
        *slot.lock().unwrap() = Some(h.abort_handle());
        let err = rt.block_on(h).expect_err("aborted");
        assert!(err.is_cancelled(), "{flavor}");
        let seen = polls.load(Ordering::SeqCst);
        assert!(seen >= 4, "{flavor}: {seen}");
        rt.block_on(async { rt::task::yield_now().await });
        assert_eq!(
            polls.load(Ordering::SeqCst),
            seen,
            "{flavor}: polled after cancellation"
        );
    }
}

#[test]
fn abort_after_completion_has_no_effect() {
    for (flavor, rt) in runtimes() {
        let h = rt.spawn(async { String::from("done") });
        rt.block_on(async {
            while !h.is_finished() {
                rt::task::yield_now().await;
            }
        });
        h.abort();
        h.abort_handle().abort();
        assert!(h.is_finished(), "{flavor}");
        assert_eq!(
            rt.block_on(h).expect("output survives a late abort"),
            "done",
            "{flavor}"
        );
    }
}

#[test]
fn abort_handle_outlives_the_join_handle() {
    for (flavor, rt) in runtimes() {
        let drops = Arc::new(AtomicUsize::new(0));
        let never = Never::default();
        let polls = never.polls.clone();
        let guard = DropCount(drops.clone());
        let h = rt.spawn(async move {
            let _guard = guard;
            never.await
        });
        let abort = h.abort_handle();
        let clone = abort.clone();
        assert_eq!(abort.id(), h.id(), "{flavor}");
        assert_eq!(clone.id(), h.id(), "{flavor}");
        drop(h); // detach: the task keeps running
        rt.block_on(until_count(&polls, 1));
        assert!(!abort.is_finished(), "{flavor}");
        drop(clone); // dropping an AbortHandle does nothing to the task
        rt.block_on(rt::task::yield_now());
        assert_eq!(drops.load(Ordering::SeqCst), 0, "{flavor}");
        abort.abort();
        rt.block_on(async {
            while !abort.is_finished() {
                rt::task::yield_now().await;
            }
        });
        assert_eq!(drops.load(Ordering::SeqCst), 1, "{flavor}");
    }
}

#[test]
fn concurrent_aborts_drop_the_future_once() {
    let rt = support::multi_thread(2);
    for _ in 0..100 {
        let drops = Arc::new(AtomicUsize::new(0));
        let guard = DropCount(drops.clone());
        let h = rt.spawn(async move {
            let _guard = guard;
            Never::default().await
        });
        let barrier = Arc::new(Barrier::new(4));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (a, b) = (h.abort_handle(), barrier.clone());
                std::thread::spawn(move || {
                    b.wait();
                    a.abort();
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(rt.block_on(h).unwrap_err().is_cancelled());
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }
}

#[test]
fn abort_racing_a_wake_drops_the_future_once() {
    let rt = support::multi_thread(2);
    let (mut completed, mut cancelled) = (0, 0);
    for _ in 0..200 {
        let drops = Arc::new(AtomicUsize::new(0));
        let gate = Arc::new(Gate::default());
        let (guard, g) = (DropCount(drops.clone()), gate.clone());
        let h = rt.spawn(async move {
            let _guard = guard;
            g.wait().await;
            7
        });
        rt.block_on(async {
            while gate.waiting() == 0 {
                rt::task::yield_now().await;
            }
        });
        let barrier = Arc::new(Barrier::new(2));
        let opener = {
            let (gate, b) = (gate.clone(), barrier.clone());
            std::thread::spawn(move || {
                b.wait();
                gate.open();
            })
        };
        let aborter = {
            let (a, b) = (h.abort_handle(), barrier.clone());
            std::thread::spawn(move || {
                b.wait();
                a.abort();
            })
        };
        opener.join().unwrap();
        aborter.join().unwrap();
        match rt.block_on(h) {
            Ok(v) => {
                assert_eq!(v, 7);
                completed += 1;
            }
            Err(e) => {
                assert!(e.is_cancelled(), "{e}");
                cancelled += 1;
            }
        }
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }
    assert_eq!(completed + cancelled, 200);
}

#[test]
fn a_future_that_wakes_itself_while_dropped_by_abort() {
    for (flavor, rt) in runtimes() {
        let (drops, polls) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let h = rt.spawn(WakeSelfOnDrop {
            waker: None,
            polls: polls.clone(),
            drops: DropCount(drops.clone()),
        });
        rt.block_on(until_count(&polls, 1));
        h.abort();
        assert!(rt.block_on(h).unwrap_err().is_cancelled(), "{flavor}");
        rt.block_on(rt::task::yield_now());
        assert_eq!(drops.load(Ordering::SeqCst), 1, "{flavor}");
        assert_eq!(
            polls.load(Ordering::SeqCst),
            1,
            "{flavor}: polled after the abort"
        );
        // Still serving.
        assert_eq!(rt.block_on(rt.spawn(async { 1 })).unwrap(), 1, "{flavor}");
    }
}

/// `JoinHandle::into_abort_handle` keeps the power to abort: the task's future is dropped
/// exactly once, by the abort, on the current-thread runtime (where nothing runs outside
/// `block_on`, so the order is fixed).
#[test]
fn into_abort_handle_still_aborts() {
    let rt = support::current_thread();
    let drops = Arc::new(AtomicUsize::new(0));
    let never = Never::default();
    let polls = never.polls.clone();
    let guard = DropCount(drops.clone());
    let abort = rt
        .spawn(async move {
            let _guard = guard;
            never.await
        })
        .into_abort_handle();
    assert!(!abort.is_finished());
    abort.abort();
    rt.block_on(async {
        while !abort.is_finished() {
            rt::task::yield_now().await;
        }
    });
    assert_eq!(
        polls.load(Ordering::SeqCst),
        0,
        "aborted before its first poll"
    );
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}
