//! Metrics: a worker that steals counts its steal operations and the tasks they took; LIFO-slot
//! runs are counted.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const TASKS: usize = 64;

#[test]
fn a_blocked_workers_queue_is_stolen_and_counted() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let done = Arc::new(AtomicUsize::new(0));
    let d = done.clone();
    let spawner_worker = rt.block_on(rt.spawn(async move {
        for _ in 0..TASKS {
            let d = d.clone();
            rt::spawn(async move {
                d.fetch_add(1, Ordering::SeqCst);
            });
        }
        // Keep this worker busy in this poll until every task but the last ran: they sit on
        // its queue, so only the other worker can run them, by stealing. (The last one is in
        // this worker's LIFO slot, which is not stolen.)
        let deadline = Instant::now() + Duration::from_secs(20);
        while d.load(Ordering::SeqCst) < TASKS - 1 {
            assert!(Instant::now() < deadline, "the tasks were never stolen");
            std::hint::spin_loop();
        }
    }));
    spawner_worker.unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while done.load(Ordering::SeqCst) < TASKS {
        assert!(Instant::now() < deadline, "the LIFO task never ran");
        std::thread::yield_now();
    }
    let m = rt.metrics().snapshot();
    let ops: u64 = (0..2).map(|w| m.worker_steal_operations(w)).sum();
    let stolen: u64 = (0..2).map(|w| m.worker_steal_count(w)).sum();
    assert!(ops >= 1, "no steal operation counted");
    assert!(stolen >= ops, "{stolen} tasks in {ops} steals");
    // The last spawned task sat in the LIFO slot, which cannot be stolen.
    assert!(stolen < TASKS as u64, "{stolen}");
    assert_eq!(m.worker_overflow_count(0), 0);
}

#[test]
fn lifo_slot_runs_are_counted() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    rt.block_on(rt.spawn(async {
        // Ping-pong through a channel: each send wakes the receiver into the LIFO slot.
        let (tx, mut rx) = rt::sync::mpsc::channel::<u32>(1);
        let rx_task = rt::spawn(async move {
            let mut n = 0;
            while rx.recv().await.is_some() {
                n += 1;
            }
            n
        });
        for i in 0..100 {
            tx.send(i).await.unwrap();
        }
        drop(tx);
        assert_eq!(rx_task.await.unwrap(), 100);
    }))
    .unwrap();
    let m = rt.metrics().snapshot();
    assert!(
        m.worker_lifo_hit_count(0) >= 50,
        "{}",
        m.worker_lifo_hit_count(0)
    );
    assert!(m.worker_lifo_hit_count(0) <= m.worker_poll_count(0));
}
