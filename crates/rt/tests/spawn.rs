//! Spawning: tasks run, outputs come back, detached tasks still run, 1,000,000 tasks complete.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn runtimes() -> Vec<rt::Runtime> {
    vec![
        rt::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap(),
        rt::Builder::new_current_thread().build().unwrap(),
    ]
}

#[test]
fn spawn_returns_output() {
    for rt in runtimes() {
        let h: rt::task::JoinHandle<u32> = rt.spawn(async { 1 });
        assert_eq!(rt.block_on(h).unwrap(), 1);
    }
}

#[test]
fn spawn_from_inside_a_task() {
    for rt in runtimes() {
        let out = rt.block_on(async {
            let h = rt::spawn(async { rt::spawn(async { 40 }).await.unwrap() + 2 });
            h.await.unwrap()
        });
        assert_eq!(out, 42);
    }
}

#[test]
fn million_tasks_all_complete() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let done = Arc::new(AtomicUsize::new(0));
    let d = done.clone();
    rt.block_on(async move {
        let mut handles = Vec::with_capacity(1_000);
        for _ in 0..1_000 {
            let d = d.clone();
            handles.push(rt::spawn(async move {
                let mut inner = Vec::with_capacity(1_000);
                for _ in 0..1_000 {
                    let d = d.clone();
                    inner.push(rt::spawn(async move {
                        d.fetch_add(1, Ordering::Relaxed);
                    }));
                }
                for h in inner {
                    h.await.unwrap();
                }
            }));
        }
        for h in handles {
            h.await.unwrap();
        }
    });
    assert_eq!(done.load(Ordering::Relaxed), 1_000_000);
}

#[test]
fn detached_tasks_still_run() {
    for rt in runtimes() {
        let (tx, rx) = std::sync::mpsc::channel();
        let n = 100;
        for i in 0..n {
            let tx = tx.clone();
            drop(rt.spawn(async move { tx.send(i).unwrap() }));
        }
        drop(tx);
        // The current-thread runtime only runs tasks inside block_on: drive it until all sent.
        rt.block_on(async {
            while rt::Handle::current().metrics().num_alive_tasks() > 0 {
                rt::task::yield_now().await;
            }
        });
        let mut got: Vec<i32> = rx.iter().collect();
        got.sort();
        assert_eq!(got, (0..n).collect::<Vec<_>>());
    }
}

#[test]
fn spawn_blocking_runs_on_pool() {
    for rt in runtimes() {
        let name = rt.block_on(async {
            rt::spawn_blocking(|| std::thread::current().name().map(str::to_owned))
                .await
                .unwrap()
        });
        assert_eq!(name.as_deref(), Some("rt-worker"));
    }
}

#[test]
fn runtime_handle_and_join_handle_are_send_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    fn assert_unpin<T: Unpin>() {}
    assert_send_sync::<rt::Runtime>();
    assert_send_sync::<rt::Handle>();
    assert_send_sync::<rt::task::JoinHandle<u32>>();
    assert_unpin::<rt::task::JoinHandle<u32>>();
}
