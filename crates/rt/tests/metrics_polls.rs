//! Metrics: polls, spawned and live tasks move as tasks run (both flavours).

use std::time::{Duration, Instant};

const TASKS: u64 = 50;
const YIELDS: u64 = 10;

/// Waits (generously) until `f` holds; fails the test if it never does.
fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::yield_now();
    }
}

fn run_yielders(rt: &rt::Runtime) {
    rt.block_on(async {
        let hs: Vec<_> = (0..TASKS)
            .map(|_| {
                rt::spawn(async {
                    for _ in 0..YIELDS {
                        rt::task::yield_now().await;
                    }
                })
            })
            .collect();
        for h in hs {
            h.await.unwrap();
        }
    });
}

#[test]
fn polls_spawns_and_live_tasks_multi_thread() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let before = rt.metrics().snapshot();
    assert_eq!(before.num_workers(), 2);
    assert_eq!(before.spawned_tasks_count(), 0);
    assert_eq!(before.num_alive_tasks(), 0);
    run_yielders(&rt);
    let m = rt.metrics().snapshot();
    // Each task is polled once per yield and once more to finish.
    let polls: u64 = (0..2).map(|w| m.worker_poll_count(w)).sum();
    assert!(polls >= TASKS * (YIELDS + 1), "polls {polls}");
    assert_eq!(m.spawned_tasks_count(), TASKS);
    // Spawned from the `block_on` thread, not from a worker: all went through the injector.
    assert!(m.remote_schedule_count() >= TASKS);
    let local: u64 = (0..2).map(|w| m.worker_local_schedule_count(w)).sum();
    assert!(local >= TASKS * YIELDS, "local schedules {local}");
    eventually("live tasks to reach 0", || {
        rt.metrics().num_alive_tasks() == 0
    });

    // Spawns from a task running on a worker are counted per worker.
    rt.block_on(async {
        rt::spawn(async {
            for _ in 0..10 {
                rt::spawn(async {}).await.unwrap();
            }
        })
        .await
        .unwrap()
    });
    let m = rt.metrics().snapshot();
    assert_eq!(m.spawned_tasks_count(), TASKS + 11);
    assert_eq!(m.workers().iter().map(|w| w.spawns()).sum::<u64>(), 10);
}

#[test]
fn live_tasks_counts_pending_tasks() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (tx, rx) = rt::sync::oneshot::channel::<()>();
    let h = rt.spawn(async move {
        let _ = rx.await;
    });
    assert_eq!(rt.metrics().num_alive_tasks(), 1);
    tx.send(()).unwrap();
    rt.block_on(h).unwrap();
    eventually("the task to be freed", || {
        rt.metrics().num_alive_tasks() == 0
    });
}

#[test]
fn polls_and_spawns_current_thread() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    run_yielders(&rt);
    let m = rt.metrics().snapshot();
    assert_eq!(m.num_workers(), 1);
    assert!(m.worker_poll_count(0) >= TASKS * (YIELDS + 1));
    assert_eq!(m.spawned_tasks_count(), TASKS);
    // Spawned with no thread in `block_on`: they wait in the run queue.
    let _hs: Vec<_> = (0..3).map(|_| rt.spawn(async {})).collect();
    assert_eq!(rt.metrics().global_queue_depth(), 3);
}
