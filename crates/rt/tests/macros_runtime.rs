//! `#[rt::test]` bodies really run on an `rt` runtime, of the flavor the attribute asks for.
//!
//! The options are checked at compile time in `macros.rs`; here each flavor is observed from inside:
//! where spawned tasks run, whether they can run while the body is not yielding, and that the body sees the
//! runtime through `rt::Handle::current()`.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;

/// How long a test waits for something that should happen at once, before failing instead of hanging.
const DEADLINE: Duration = Duration::from_secs(10);

#[rt::test]
async fn default_flavor_spawns_on_the_test_thread() {
    // current_thread is the default for `#[rt::test]`: tasks run on the thread that runs the body.
    let test_thread = thread::current().id();
    let task_thread = rt::spawn(async { thread::current().id() }).await.unwrap();
    assert_eq!(task_thread, test_thread);
}

#[rt::test(flavor = "current_thread")]
async fn current_thread_runs_a_task_only_when_the_body_yields() {
    let ran = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&ran);
    let handle = rt::spawn(async move { flag.store(true, Ordering::SeqCst) });
    // One thread, and the body has not yielded yet: nothing can have run the task.
    assert!(!ran.load(Ordering::SeqCst));
    for _ in 0..100 {
        if ran.load(Ordering::SeqCst) {
            break;
        }
        rt::task::yield_now().await;
    }
    assert!(
        ran.load(Ordering::SeqCst),
        "the task never ran while the body yielded"
    );
    handle.await.unwrap();
}

#[rt::test(flavor = "current_thread")]
async fn current_thread_keeps_every_task_on_the_test_thread() {
    let test_thread = thread::current().id();
    let handles: Vec<_> = (0..8)
        .map(|_| rt::spawn(async { thread::current().id() }))
        .collect();
    for handle in handles {
        assert_eq!(handle.await.unwrap(), test_thread);
    }
}

#[rt::test(flavor = "multi_thread")]
async fn multi_thread_runs_tasks_on_its_workers() {
    // The body runs on the test thread (inside `block_on`); spawned tasks go to the worker threads, which
    // carry the builder's default name.
    let test_thread = thread::current().id();
    let (task_thread, task_thread_name) = rt::spawn(async {
        let current = thread::current();
        (current.id(), current.name().map(str::to_owned))
    })
    .await
    .unwrap();
    assert_ne!(task_thread, test_thread);
    let name = task_thread_name.expect("worker threads are named");
    assert!(name.starts_with("rt-worker"), "task ran on thread {name:?}");
}

#[rt::test(flavor = "multi_thread")]
async fn multi_thread_joins_spawned_tasks() {
    let handles: Vec<_> = (0..32u64)
        .map(|i| rt::spawn(async move { i * i }))
        .collect();
    let mut sum = 0;
    for handle in handles {
        sum += handle.await.unwrap();
    }
    assert_eq!(sum, (0..32u64).map(|i| i * i).sum::<u64>());
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_thread_runs_a_task_while_the_body_blocks() {
    let (tx, rx) = mpsc::channel();
    let handle = rt::spawn(async move { tx.send(7).unwrap() });
    // The body blocks its thread without yielding, so only another worker can run the task (on the
    // current_thread flavor this would time out).
    assert_eq!(rx.recv_timeout(DEADLINE), Ok(7));
    handle.await.unwrap();
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn worker_threads_bounds_the_threads_tasks_run_on() {
    let handles: Vec<_> = (0..64)
        .map(|_| {
            rt::spawn(async {
                rt::task::yield_now().await;
                thread::current().id()
            })
        })
        .collect();
    let mut threads = HashSet::new();
    for handle in handles {
        threads.insert(handle.await.unwrap());
    }
    assert!(!threads.contains(&thread::current().id()));
    assert!(threads.len() <= 2, "tasks ran on {} threads", threads.len());
}

#[rt::test]
async fn body_sees_the_runtime_through_handle_current() {
    let handle = rt::Handle::current();
    assert_eq!(handle.spawn(async { 5 }).await.unwrap(), 5);
}

#[rt::test(flavor = "multi_thread")]
async fn multi_thread_body_sees_the_runtime_through_handle_current() {
    let handle = rt::Handle::current();
    let inner = handle.spawn(async { rt::spawn(async { 6 }).await.unwrap() });
    assert_eq!(inner.await.unwrap(), 6);
}

#[rt::test]
async fn result_returning_test_passes_on_ok() -> Result<(), String> {
    let value = rt::spawn(async { Ok::<u32, String>(3) }).await.unwrap()?;
    assert_eq!(value, 3);
    Ok(())
}

#[rt::test]
#[should_panic(expected = "panicked inside the runtime")]
async fn panic_in_the_body_fails_the_test() {
    rt::task::yield_now().await;
    panic!("panicked inside the runtime");
}

#[rt::test(flavor = "multi_thread")]
#[should_panic(expected = "panicked on a multi_thread runtime")]
async fn panic_in_a_multi_thread_body_fails_the_test() {
    rt::task::yield_now().await;
    panic!("panicked on a multi_thread runtime");
}

#[rt::test(crate = "rt")]
async fn crate_option_names_the_runtime() {
    assert_eq!(rt::spawn(async { 8 }).await.unwrap(), 8);
}
