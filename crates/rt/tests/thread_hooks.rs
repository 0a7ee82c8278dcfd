//! `Builder::on_thread_start` / `on_thread_stop`: run once on every runtime thread (workers and
//! blocking threads), start before any task, stop before the thread exits; dropping the
//! runtime waits for every stop.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Counts {
    started: AtomicUsize,
    stopped: AtomicUsize,
}

fn builder(mut b: rt::Builder, counts: &Arc<Counts>) -> rt::Builder {
    let (s, t) = (counts.clone(), counts.clone());
    b.on_thread_start(move || {
        s.started.fetch_add(1, Ordering::SeqCst);
    })
    .on_thread_stop(move || {
        t.stopped.fetch_add(1, Ordering::SeqCst);
    });
    b
}

#[test]
fn every_worker_and_blocking_thread_starts_and_stops_once() {
    let counts = Arc::new(Counts::default());
    let mut b = builder(rt::Builder::new_multi_thread(), &counts);
    let rt = b.worker_threads(3).max_blocking_threads(2).build().unwrap();
    // Two blocking closures that wait for each other run on two blocking threads at once.
    let barrier = Arc::new(std::sync::Barrier::new(2));
    rt.block_on(async {
        let a = rt::spawn_blocking({
            let b = barrier.clone();
            move || b.wait()
        });
        let b = rt::spawn_blocking({
            let b = barrier.clone();
            move || b.wait()
        });
        a.await.unwrap();
        b.await.unwrap();
    });
    // A worker's start hook runs on its own thread, which may not have got that far yet: count
    // after the drop, which joins every thread.
    drop(rt);
    assert_eq!(counts.started.load(Ordering::SeqCst), 5);
    assert_eq!(counts.stopped.load(Ordering::SeqCst), 5);
}

#[test]
fn current_thread_hooks_run_on_blocking_threads_only() {
    let counts = Arc::new(Counts::default());
    let rt = builder(rt::Builder::new_current_thread(), &counts)
        .build()
        .unwrap();
    assert_eq!(counts.started.load(Ordering::SeqCst), 0);
    rt.block_on(async { rt::spawn_blocking(|| ()).await })
        .unwrap();
    assert_eq!(counts.started.load(Ordering::SeqCst), 1);
    drop(rt);
    assert_eq!(counts.stopped.load(Ordering::SeqCst), 1);
}

#[test]
fn hooks_run_on_the_thread_inside_the_runtime_context() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let rt = {
        let (start, stop) = (seen.clone(), seen.clone());
        rt::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("hooked")
            .on_thread_start(move || {
                let name = std::thread::current().name().map(str::to_owned);
                // Inside the runtime context: a handle is reachable from the hook.
                let in_rt = rt::Handle::try_current().is_ok();
                start.lock().unwrap().push(("start", name, in_rt));
            })
            .on_thread_stop(move || {
                let name = std::thread::current().name().map(str::to_owned);
                let in_rt = rt::Handle::try_current().is_ok();
                stop.lock().unwrap().push(("stop", name, in_rt));
            })
            .build()
            .unwrap()
    };
    drop(rt);
    let name = Some("hooked".to_owned());
    assert_eq!(
        *seen.lock().unwrap(),
        vec![("start", name.clone(), true), ("stop", name, true)]
    );
}

#[test]
fn shutdown_timeout_waits_for_stop_hooks() {
    let counts = Arc::new(Counts::default());
    let mut b = builder(rt::Builder::new_multi_thread(), &counts);
    let rt = b.worker_threads(2).build().unwrap();
    rt.block_on(async { rt::spawn_blocking(|| ()).await })
        .unwrap();
    rt.shutdown_timeout(std::time::Duration::from_secs(60));
    assert_eq!(counts.stopped.load(Ordering::SeqCst), 3);
}
