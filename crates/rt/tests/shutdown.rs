//! Shutdown: every pending future is dropped exactly once (parked, queued, detached, joined),
//! held `JoinHandle`s resolve to a cancellation error after the runtime is gone,
//! `shutdown_timeout` returns even when a thread is stuck, and a spawn during or after shutdown
//! never runs: its future is dropped and its handle is cancelled.

mod support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::task::{Poll, Waker};
use std::time::Duration;

use rt::task::JoinHandle;
use support::{
    deadline, poll_once, runtimes, until_count, DropCount, DropSignal, Never, WakeSelfOnDrop,
};

/// One drop counter per future, to see that each was dropped exactly once.
fn counters(n: usize) -> Arc<Vec<AtomicUsize>> {
    Arc::new((0..n).map(|_| AtomicUsize::new(0)).collect())
}

struct IndexedDrop(Arc<Vec<AtomicUsize>>, usize);

impl Drop for IndexedDrop {
    fn drop(&mut self) {
        self.0[self.1].fetch_add(1, Ordering::SeqCst);
    }
}

fn assert_each_dropped_once(drops: &[AtomicUsize], what: &str) {
    for (i, d) in drops.iter().enumerate() {
        assert_eq!(d.load(Ordering::SeqCst), 1, "{what}: future {i}");
    }
}

fn assert_cancelled<T: std::fmt::Debug>(h: &mut JoinHandle<T>, what: &str) {
    match poll_once(h) {
        Poll::Ready(Err(e)) => assert!(e.is_cancelled(), "{what}: {e}"),
        other => panic!("{what}: expected a cancellation, got {other:?}"),
    }
}

#[test]
fn shutdown_drops_every_pending_future_once() {
    const PARKED: usize = 50;
    const DETACHED: usize = 50;
    const WAITERS: usize = 10;
    const QUEUED: usize = 50;
    for (flavor, rt) in runtimes() {
        let drops = counters(PARKED + DETACHED + WAITERS + QUEUED);
        let polls = Arc::new(AtomicUsize::new(0));
        let parked_task = |i: usize| {
            let (guard, never) = (
                IndexedDrop(drops.clone(), i),
                Never {
                    polls: polls.clone(),
                },
            );
            async move {
                let _guard = guard;
                never.await
            }
        };
        // Parked on a never-ready future, JoinHandle held.
        let mut joined: Vec<_> = (0..PARKED).map(|i| rt.spawn(parked_task(i))).collect();
        // Parked and detached.
        for i in PARKED..PARKED + DETACHED {
            drop(rt.spawn(parked_task(i)));
        }
        // Parked on another task's JoinHandle.
        let mut waiters: Vec<_> = (0..WAITERS)
            .map(|k| {
                let i = PARKED + DETACHED + k;
                let (guard, inner) = (IndexedDrop(drops.clone(), i), rt.spawn(Never::default()));
                rt.spawn(async move {
                    let _guard = guard;
                    inner.await
                })
            })
            .collect();
        rt.block_on(until_count(&polls, PARKED + DETACHED));
        // Spawned last and never polled: the current-thread runtime runs nothing outside
        // block_on; a multi-thread worker may or may not have polled them.
        let queued_polls = Arc::new(AtomicUsize::new(0));
        let mut queued: Vec<_> = (0..QUEUED)
            .map(|k| {
                let i = PARKED + DETACHED + WAITERS + k;
                let (guard, never) = (
                    IndexedDrop(drops.clone(), i),
                    Never {
                        polls: queued_polls.clone(),
                    },
                );
                rt.spawn(async move {
                    let _guard = guard;
                    never.await
                })
            })
            .collect();
        assert!(
            drops.iter().all(|d| d.load(Ordering::SeqCst) == 0),
            "{flavor}"
        );

        drop(rt);
        assert_each_dropped_once(&drops, flavor);
        if flavor == "current_thread" {
            assert_eq!(queued_polls.load(Ordering::SeqCst), 0, "{flavor}");
        }
        for h in joined.iter_mut().chain(&mut queued) {
            assert_cancelled(h, flavor);
        }
        // The same, awaited on another runtime.
        let other = support::current_thread();
        for h in waiters.drain(..) {
            let e = other.block_on(h).expect_err("cancelled by shutdown");
            assert!(e.is_cancelled(), "{flavor}: {e}");
        }
        drop((joined, queued));
        assert_each_dropped_once(&drops, flavor);
    }
}

#[test]
fn queued_tasks_are_dropped_unpolled_multi_thread() {
    let rt = support::multi_thread(1);
    // Keep the only worker busy so that what is spawned next stays queued.
    let (started_tx, started_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let (blocker_dropped_tx, blocker_dropped_rx) = mpsc::channel();
    let blocker = rt.spawn(async move {
        let _signal = DropSignal(blocker_dropped_tx);
        started_tx.send(()).unwrap();
        release_rx.recv().unwrap();
    });
    started_rx.recv().unwrap();

    let drops = counters(100);
    let polls = Arc::new(AtomicUsize::new(0));
    let mut queued: Vec<_> = (0..100)
        .map(|i| {
            let (guard, never) = (
                IndexedDrop(drops.clone(), i),
                Never {
                    polls: polls.clone(),
                },
            );
            rt.spawn(async move {
                let _guard = guard;
                never.await
            })
        })
        .collect();
    // Do not wait for the busy worker: the call returns, and the worker drops the queued
    // futures when its poll returns.
    rt.shutdown_background();
    release_tx.send(()).unwrap();
    blocker_dropped_rx.recv().unwrap();
    let other = support::current_thread();
    for h in &mut queued {
        assert!(other.block_on(h).unwrap_err().is_cancelled(), "queued");
    }
    assert_each_dropped_once(&drops, "queued");
    assert_eq!(
        polls.load(Ordering::SeqCst),
        0,
        "a task queued at shutdown is never polled"
    );
    drop(blocker);
}

#[test]
fn a_task_woken_but_not_yet_run_is_dropped_once_current_thread() {
    let rt = support::current_thread();
    let drops = Arc::new(AtomicUsize::new(0));
    let slot: Arc<Mutex<Option<Waker>>> = Arc::default();
    let polls = Arc::new(AtomicUsize::new(0));
    let (guard, s, p) = (DropCount(drops.clone()), slot.clone(), polls.clone());
    let mut h = rt.spawn(async move {
        let _guard = guard;
        std::future::poll_fn(|cx| {
            p.fetch_add(1, Ordering::SeqCst);
            *s.lock().unwrap() = Some(cx.waker().clone());
            Poll::<()>::Pending
        })
        .await
    });
    rt.block_on(until_count(&polls, 1));
    // Queued again, and nobody runs the queue before the shutdown.
    slot.lock().unwrap().take().unwrap().wake();
    drop(rt);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    assert_eq!(polls.load(Ordering::SeqCst), 1);
    assert_cancelled(&mut h, "woken");
}

#[test]
fn shutdown_timeout_returns_while_a_blocking_task_is_stuck() {
    for flavor in ["multi_thread", "current_thread"] {
        deadline(move || {
            let rt = match flavor {
                "multi_thread" => support::multi_thread(2),
                _ => support::current_thread(),
            };
            let (started_tx, started_rx) = mpsc::channel();
            let (release_tx, release_rx) = mpsc::channel::<()>();
            let h = rt.spawn_blocking(move || {
                started_tx.send(()).unwrap();
                release_rx.recv().unwrap();
                7
            });
            started_rx.recv().unwrap();
            rt.shutdown_timeout(Duration::from_millis(10));
            // Returned with the closure still blocked. Release it: it finishes on its own thread
            // and its handle still gets the output.
            release_tx.send(()).unwrap();
            let other = support::current_thread();
            assert_eq!(other.block_on(h).unwrap(), 7, "{flavor}");
        });
    }
}

#[test]
fn shutdown_timeout_returns_while_a_worker_is_stuck_in_a_poll() {
    deadline(|| {
        let rt = support::multi_thread(2);
        let (started_tx, started_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (dropped_tx, dropped_rx) = mpsc::channel();
        let after = Arc::new(AtomicBool::new(false));
        let a = after.clone();
        let h = rt.spawn(async move {
            let _signal = DropSignal(dropped_tx);
            started_tx.send(()).unwrap();
            release_rx.recv().unwrap(); // blocks the worker: a bug in the task, not the runtime
            a.store(true, Ordering::SeqCst);
            Never::default().await
        });
        started_rx.recv().unwrap();
        rt.shutdown_timeout(Duration::from_millis(10));
        // The task is marked cancelled; its worker drops the future once the poll returns.
        release_tx.send(()).unwrap();
        dropped_rx.recv().unwrap();
        assert!(after.load(Ordering::SeqCst));
        let other = support::current_thread();
        assert!(other.block_on(h).unwrap_err().is_cancelled());
    });
}

#[test]
fn a_spawn_from_a_drop_during_shutdown_never_runs() {
    struct SpawnOnDrop {
        ran: Arc<AtomicBool>,
        inner_drops: Arc<AtomicUsize>,
        handles: Arc<Mutex<Vec<JoinHandle<()>>>>,
    }
    impl Drop for SpawnOnDrop {
        fn drop(&mut self) {
            let (ran, guard) = (self.ran.clone(), DropCount(self.inner_drops.clone()));
            let h = rt::spawn(async move {
                let _guard = guard;
                ran.store(true, Ordering::SeqCst);
            });
            self.handles.lock().unwrap().push(h);
        }
    }
    for (flavor, rt) in runtimes() {
        let ran = Arc::new(AtomicBool::new(false));
        let inner_drops = Arc::new(AtomicUsize::new(0));
        let handles: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let polls = Arc::new(AtomicUsize::new(0));
        for _ in 0..10 {
            let on_drop = SpawnOnDrop {
                ran: ran.clone(),
                inner_drops: inner_drops.clone(),
                handles: handles.clone(),
            };
            let never = Never {
                polls: polls.clone(),
            };
            drop(rt.spawn(async move {
                let _on_drop = on_drop;
                never.await
            }));
        }
        rt.block_on(until_count(&polls, 10));
        drop(rt);
        assert!(
            !ran.load(Ordering::SeqCst),
            "{flavor}: a spawn during shutdown ran"
        );
        assert_eq!(inner_drops.load(Ordering::SeqCst), 10, "{flavor}");
        let mut handles = std::mem::take(&mut *handles.lock().unwrap());
        assert_eq!(handles.len(), 10, "{flavor}");
        for h in &mut handles {
            assert_cancelled(h, flavor);
        }
    }
}

#[test]
fn a_spawn_after_shutdown_through_a_cloned_handle_never_runs() {
    for (flavor, rt) in runtimes() {
        let handle = rt.handle().clone();
        drop(rt);
        let ran = Arc::new(AtomicBool::new(false));
        let drops = Arc::new(AtomicUsize::new(0));
        let (r, guard) = (ran.clone(), DropCount(drops.clone()));
        let mut h = handle.spawn(async move {
            let _guard = guard;
            r.store(true, Ordering::SeqCst);
        });
        assert_eq!(
            drops.load(Ordering::SeqCst),
            1,
            "{flavor}: the future is dropped at once"
        );
        assert_cancelled(&mut h, flavor);
        assert!(h.is_finished(), "{flavor}");

        let (r, guard) = (ran.clone(), DropCount(drops.clone()));
        let mut h = handle.spawn_blocking(move || {
            let _guard = guard;
            r.store(true, Ordering::SeqCst);
        });
        assert_eq!(
            drops.load(Ordering::SeqCst),
            2,
            "{flavor}: the closure is dropped at once"
        );
        assert_cancelled(&mut h, flavor);
        assert!(!ran.load(Ordering::SeqCst), "{flavor}: ran after shutdown");
    }
}

#[test]
fn wakes_from_drops_during_shutdown_are_harmless() {
    struct WakeOnDrop(Arc<Mutex<Option<Waker>>>);
    impl Drop for WakeOnDrop {
        fn drop(&mut self) {
            if let Some(w) = self.0.lock().unwrap().take() {
                w.wake();
            }
        }
    }
    for (flavor, rt) in runtimes() {
        let drops = Arc::new(AtomicUsize::new(0));
        let polls = Arc::new(AtomicUsize::new(0));
        let slots: Vec<Arc<Mutex<Option<Waker>>>> = (0..20).map(|_| Arc::default()).collect();
        // Tasks that park and publish their waker...
        for slot in &slots {
            let (slot, guard, p) = (slot.clone(), DropCount(drops.clone()), polls.clone());
            drop(rt.spawn(async move {
                let _guard = guard;
                std::future::poll_fn(|cx| {
                    p.fetch_add(1, Ordering::SeqCst);
                    *slot.lock().unwrap() = Some(cx.waker().clone());
                    Poll::<()>::Pending
                })
                .await
            }));
        }
        rt.block_on(until_count(&polls, 20));
        // ...and tasks whose drop wakes them, whichever order shutdown takes.
        for slot in &slots {
            let (on_drop, guard) = (WakeOnDrop(slot.clone()), DropCount(drops.clone()));
            drop(rt.spawn(async move {
                let _guard = guard;
                let _on_drop = on_drop;
                Never::default().await
            }));
        }
        // ...and tasks that wake themselves while they are dropped.
        let self_polls = Arc::new(AtomicUsize::new(0));
        for _ in 0..20 {
            drop(rt.spawn(WakeSelfOnDrop {
                waker: None,
                polls: self_polls.clone(),
                drops: DropCount(drops.clone()),
            }));
        }
        rt.block_on(until_count(&self_polls, 20));
        let before = polls.load(Ordering::SeqCst);
        drop(rt);
        assert_eq!(drops.load(Ordering::SeqCst), 60, "{flavor}");
        assert_eq!(
            self_polls.load(Ordering::SeqCst),
            20,
            "{flavor}: polled during shutdown"
        );
        assert_eq!(
            polls.load(Ordering::SeqCst),
            before,
            "{flavor}: polled during shutdown"
        );
    }
}

#[test]
fn spawns_racing_shutdown_are_each_dropped_once() {
    for (flavor, rt) in runtimes() {
        let created = Arc::new(AtomicUsize::new(0));
        let drops = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let spawners: Vec<_> = (0..2)
            .map(|_| {
                let handle = rt.handle().clone();
                let (created, drops, stop) = (created.clone(), drops.clone(), stop.clone());
                std::thread::spawn(move || {
                    let mut handles = Vec::new();
                    while !stop.load(Ordering::SeqCst) {
                        created.fetch_add(1, Ordering::SeqCst);
                        let guard = DropCount(drops.clone());
                        handles.push(handle.spawn(async move {
                            let _guard = guard;
                            Never::default().await
                        }));
                    }
                    handles
                })
            })
            .collect();
        // Shut down in the middle of the spawning.
        while created.load(Ordering::SeqCst) < 1_000 {
            std::thread::yield_now();
        }
        drop(rt);
        let after_drop = created.load(Ordering::SeqCst);
        while created.load(Ordering::SeqCst) < after_drop + 1_000 {
            std::thread::yield_now();
        }
        stop.store(true, Ordering::SeqCst);
        let mut handles: Vec<_> = spawners
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect();
        // Each was cancelled: by the shutdown, or at once by a spawn that came too late.
        assert_eq!(
            drops.load(Ordering::SeqCst),
            created.load(Ordering::SeqCst),
            "{flavor}"
        );
        for h in &mut handles {
            assert_cancelled(h, flavor);
        }
    }
}
