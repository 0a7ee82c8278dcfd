//! At shutdown, `spawn_blocking` closures already queued still run on the pool's threads, as
//! in tokio (only closures spawned after shutdown are cancelled); and `shutdown_timeout`
//! accepts any duration, `Duration::MAX` included (no limit).

mod support;

use std::sync::mpsc;
use std::time::Duration;

use support::deadline;

#[test]
fn a_closure_queued_before_shutdown_still_runs() {
    deadline(|| {
        let rt = rt::Builder::new_multi_thread()
            .worker_threads(1)
            .max_blocking_threads(1)
            .build()
            .unwrap();
        let (started_tx, started_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let first = rt.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            release_rx.recv().unwrap();
            1
        });
        started_rx.recv().unwrap();
        // The pool's one thread is busy: this one waits in the queue.
        let queued = rt.spawn_blocking(|| 2);
        // Returns with both still pending; once the first finishes, its thread runs the queued
        // one before it exits.
        rt.shutdown_timeout(Duration::from_millis(10));
        release_tx.send(()).unwrap();
        let other = support::current_thread();
        assert_eq!(other.block_on(first).unwrap(), 1);
        assert_eq!(other.block_on(queued).unwrap(), 2, "the queued closure ran");
    });
}

#[test]
fn a_closure_spawned_after_shutdown_is_cancelled() {
    deadline(|| {
        let rt = support::multi_thread(1);
        let handle = rt.handle().clone();
        rt.shutdown_timeout(Duration::from_millis(10));
        let h = handle.spawn_blocking(|| 3);
        let other = support::current_thread();
        assert!(other.block_on(h).unwrap_err().is_cancelled());
    });
}

#[test]
fn shutdown_timeout_takes_duration_max() {
    deadline(|| {
        for (_, rt) in support::runtimes() {
            rt.block_on(async { rt::spawn(async {}).await.unwrap() });
            rt.shutdown_timeout(Duration::MAX);
        }
    });
}
