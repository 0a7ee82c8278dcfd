//! `Builder::thread_name` and `thread_name_fn` name every runtime thread: the workers (seen
//! from inside a task) and the blocking pool's threads (seen from inside `spawn_blocking`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn name() -> String {
    std::thread::current().name().unwrap_or("").to_owned()
}

#[test]
fn thread_name_names_workers_and_blocking_threads() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("svc")
        .build()
        .unwrap();
    let (in_task, in_blocking) = rt.block_on(async {
        let in_task = rt::spawn(async { name() }).await.unwrap();
        let in_blocking = rt::spawn_blocking(name).await.unwrap();
        (in_task, in_blocking)
    });
    assert_eq!(in_task, "svc");
    assert_eq!(in_blocking, "svc");
}

#[test]
fn default_name_is_rt_worker() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    assert_eq!(
        rt.block_on(async { rt::spawn(async { name() }).await })
            .unwrap(),
        "rt-worker"
    );
}

#[test]
fn thread_name_fn_is_called_for_each_thread() {
    let calls = Arc::new(AtomicUsize::new(0));
    let rt = {
        let calls = calls.clone();
        rt::Builder::new_multi_thread()
            .worker_threads(3)
            .thread_name_fn(move || format!("svc-{}", calls.fetch_add(1, Ordering::SeqCst)))
            .build()
            .unwrap()
    };
    // The three workers are named when the runtime starts.
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    let (in_task, in_blocking) = rt.block_on(async {
        let in_task = rt::spawn(async { name() }).await.unwrap();
        let in_blocking = rt::spawn_blocking(name).await.unwrap();
        (in_task, in_blocking)
    });
    assert!(
        ["svc-0", "svc-1", "svc-2"].contains(&in_task.as_str()),
        "{in_task}"
    );
    // The first blocking thread is the fourth thread named.
    assert_eq!(in_blocking, "svc-3");
}

#[test]
fn current_thread_blocking_threads_are_named_too() {
    let rt = rt::Builder::new_current_thread()
        .thread_name_fn(|| "ct-blocking".to_owned())
        .build()
        .unwrap();
    assert_eq!(
        rt.block_on(async { rt::spawn_blocking(name).await })
            .unwrap(),
        "ct-blocking"
    );
}

#[test]
fn the_later_of_thread_name_and_thread_name_fn_wins() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name_fn(|| "from-fn".to_owned())
        .thread_name("plain")
        .build()
        .unwrap();
    assert_eq!(
        rt.block_on(async { rt::spawn(async { name() }).await })
            .unwrap(),
        "plain"
    );
}
