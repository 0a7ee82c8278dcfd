//! Metrics: the local queue depth and the injector depth are what is queued.

use std::sync::mpsc;

#[test]
fn local_queue_depth_counts_spawned_tasks() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let depth = rt.block_on(rt.spawn(async {
        for _ in 0..10 {
            rt::spawn(async {});
        }
        // One worker: nobody else runs them. The last is in the LIFO slot, 9 in the queue.
        let m = rt::Handle::current().metrics();
        (m.worker_local_queue_depth(0), m.global_queue_depth())
    }));
    assert_eq!(depth.unwrap(), (9, 0));
}

#[test]
fn injector_depth_counts_remote_spawns() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        // The worker is held in a poll on purpose: no take-over may drain the injector.
        .stall_threshold(None)
        .build()
        .unwrap();
    let (started_tx, started_rx) = mpsc::channel::<()>();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    // Hold the only worker in a poll.
    let blocker = rt.spawn(async move {
        started_tx.send(()).unwrap();
        go_rx.recv().unwrap();
    });
    started_rx.recv().unwrap();
    let hs: Vec<_> = (0..5).map(|_| rt.spawn(async {})).collect();
    let m = rt.metrics().snapshot();
    assert_eq!(m.global_queue_depth(), 5);
    assert_eq!(m.worker_local_queue_depth(0), 0);
    go_tx.send(()).unwrap();
    rt.block_on(async {
        blocker.await.unwrap();
        for h in hs {
            h.await.unwrap();
        }
    });
    assert_eq!(rt.metrics().global_queue_depth(), 0);
}
