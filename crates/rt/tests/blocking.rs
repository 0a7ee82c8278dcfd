//! `spawn_blocking`: closures run concurrently up to `max_blocking_threads` and no further, a
//! panic becomes a `JoinError::Panic`, `Handle::block_on` works inside a closure, and `abort`
//! cancels a closure that has not started (and nothing else).

mod support;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Barrier, Mutex};

use support::{deadline, panic_text, quiet_expected_panics, DropCount, EXPECTED};

fn with_blocking_limit(flavor: &str, n: usize) -> rt::Runtime {
    let mut b = match flavor {
        "multi_thread" => {
            let mut b = rt::Builder::new_multi_thread();
            b.worker_threads(1);
            b
        }
        _ => rt::Builder::new_current_thread(),
    };
    b.max_blocking_threads(n).build().unwrap()
}

const FLAVORS: [&str; 2] = ["multi_thread", "current_thread"];

#[test]
fn closures_run_concurrently_up_to_the_limit() {
    for flavor in FLAVORS {
        deadline(move || {
            let rt = with_blocking_limit(flavor, 2);
            // Four closures that meet in pairs: only two at a time can run, and two must, or
            // the first would wait at the barrier forever.
            let barrier = Arc::new(Barrier::new(2));
            let running = Arc::new(AtomicUsize::new(0));
            let most = Arc::new(AtomicUsize::new(0));
            let threads = Arc::new(Mutex::new(HashSet::new()));
            let handles: Vec<_> = (0..4)
                .map(|i| {
                    let (barrier, running, most, threads) = (
                        barrier.clone(),
                        running.clone(),
                        most.clone(),
                        threads.clone(),
                    );
                    rt.spawn_blocking(move || {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        threads.lock().unwrap().insert(std::thread::current().id());
                        barrier.wait();
                        running.fetch_sub(1, Ordering::SeqCst);
                        i
                    })
                })
                .collect();
            let out: Vec<_> = handles
                .into_iter()
                .map(|h| rt.block_on(h).unwrap())
                .collect();
            assert_eq!(out, [0, 1, 2, 3], "{flavor}");
            assert_eq!(
                most.load(Ordering::SeqCst),
                2,
                "{flavor}: at most two at a time"
            );
            let threads = threads.lock().unwrap().len();
            assert!(
                threads <= 2,
                "{flavor}: {threads} blocking threads for a limit of 2"
            );
        });
    }
}

#[test]
fn a_panicking_closure_becomes_a_panic_error() {
    quiet_expected_panics();
    for flavor in FLAVORS {
        let rt = with_blocking_limit(flavor, 1);
        for i in 0..10 {
            let err = rt
                .block_on(rt.spawn_blocking(move || -> u32 { panic!("{EXPECTED} blocking {i}") }))
                .expect_err("the closure panicked");
            assert!(err.is_panic(), "{flavor}: {err}");
            assert_eq!(
                panic_text(err.into_panic().as_ref()),
                format!("{EXPECTED} blocking {i}")
            );
        }
        // The single pool thread survived (or was replaced): the pool still runs closures.
        assert_eq!(rt.block_on(rt.spawn_blocking(|| 5)).unwrap(), 5, "{flavor}");
    }
}

#[test]
fn handle_block_on_works_inside_a_blocking_closure() {
    for flavor in FLAVORS {
        deadline(move || {
            let rt = with_blocking_limit(flavor, 4);
            let out = rt.block_on(async {
                rt::spawn_blocking(|| {
                    let handle = rt::Handle::current();
                    handle.block_on(async {
                        // A task spawned from here runs on the runtime (for current_thread, on
                        // the thread inside Runtime::block_on) and wakes this thread.
                        let a = rt::spawn(async {
                            rt::task::yield_now().await;
                            40
                        });
                        rt::task::yield_now().await;
                        a.await.unwrap() + 2
                    })
                })
                .await
                .unwrap()
            });
            assert_eq!(out, 42, "{flavor}");
        });
    }
}

#[test]
fn abort_cancels_a_closure_that_has_not_started() {
    for flavor in FLAVORS {
        deadline(move || {
            let rt = with_blocking_limit(flavor, 1);
            let (started_tx, started_rx) = mpsc::channel();
            let (release_tx, release_rx) = mpsc::channel::<()>();
            let first = rt.spawn_blocking(move || {
                started_tx.send(()).unwrap();
                release_rx.recv().unwrap();
                1
            });
            started_rx.recv().unwrap();
            // The only pool thread is busy: this one waits in the queue.
            let ran = Arc::new(AtomicBool::new(false));
            let drops = Arc::new(AtomicUsize::new(0));
            let (r, guard) = (ran.clone(), DropCount(drops.clone()));
            let second = rt.spawn_blocking(move || {
                let _guard = guard;
                r.store(true, Ordering::SeqCst);
                2
            });
            second.abort();
            release_tx.send(()).unwrap();
            assert_eq!(rt.block_on(first).unwrap(), 1, "{flavor}");
            let err = rt.block_on(second).expect_err("aborted before it started");
            assert!(err.is_cancelled(), "{flavor}: {err}");
            assert!(
                !ran.load(Ordering::SeqCst),
                "{flavor}: an aborted closure ran"
            );
            assert_eq!(
                drops.load(Ordering::SeqCst),
                1,
                "{flavor}: the closure was dropped"
            );
        });
    }
}

#[test]
fn abort_does_not_stop_a_running_closure() {
    for flavor in FLAVORS {
        deadline(move || {
            let rt = with_blocking_limit(flavor, 1);
            let (started_tx, started_rx) = mpsc::channel();
            let (release_tx, release_rx) = mpsc::channel::<()>();
            let h = rt.spawn_blocking(move || {
                started_tx.send(()).unwrap();
                release_rx.recv().unwrap();
                "finished"
            });
            started_rx.recv().unwrap();
            h.abort();
            release_tx.send(()).unwrap();
            assert_eq!(rt.block_on(h).unwrap(), "finished", "{flavor}");
        });
    }
}
