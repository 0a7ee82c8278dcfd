//! Metrics: blocking threads (live / idle) and the blocking queue depth.

use std::sync::mpsc;
use std::time::{Duration, Instant};

fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::yield_now();
    }
}

#[test]
fn blocking_threads_and_queue() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(1)
        .build()
        .unwrap();
    let m = rt.metrics().snapshot();
    assert_eq!(m.num_blocking_threads(), 0);
    assert_eq!(m.blocking_queue_depth(), 0);

    let (started_tx, started_rx) = mpsc::channel::<()>();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let first = rt.spawn_blocking(move || {
        started_tx.send(()).unwrap();
        go_rx.recv().unwrap();
    });
    started_rx.recv().unwrap();
    // The one thread is busy: the next closures queue.
    let queued: Vec<_> = (0..3).map(|_| rt.spawn_blocking(|| ())).collect();
    let m = rt.metrics().snapshot();
    assert_eq!(m.num_blocking_threads(), 1);
    assert_eq!(m.num_idle_blocking_threads(), 0);
    assert_eq!(m.blocking_queue_depth(), 3);

    go_tx.send(()).unwrap();
    rt.block_on(async {
        first.await.unwrap();
        for h in queued {
            h.await.unwrap();
        }
    });
    eventually("the blocking thread to go idle", || {
        let m = rt.metrics().snapshot();
        m.num_idle_blocking_threads() == 1 && m.blocking_queue_depth() == 0
    });
    assert_eq!(rt.metrics().num_blocking_threads(), 1);
}
