//! Dropping a `TaskGroup` without joining aborts all its tasks; a group whose task is
//! cancelled by runtime shutdown makes `join` return `GroupError::Cancelled`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

mod support;
use support::DropCount;

use rt::task::{GroupError, TaskGroup};

#[test]
fn drop_without_join_aborts_all() {
    let drops = Arc::new(AtomicUsize::new(0));
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    rt.block_on(async {
        let group = TaskGroup::<(), ()>::new();
        let mut handles = Vec::new();
        for _ in 0..20 {
            let guard = DropCount(drops.clone());
            handles.push(group.spawn(async move {
                let _guard = guard;
                std::future::pending::<Result<(), ()>>().await
            }));
        }
        drop(group);
        for h in handles {
            while !h.is_finished() {
                rt::task::yield_now().await;
            }
        }
    });
    assert_eq!(drops.load(Ordering::SeqCst), 20);
}

#[test]
fn runtime_shutdown_makes_join_cancelled() {
    let rt_a = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let rt_b = rt::Builder::new_current_thread().build().unwrap();
    let group = TaskGroup::<(), ()>::new();
    let _enter = rt_a.enter();
    group.spawn(std::future::pending());
    drop(_enter);
    // Shutting rt_a down drops the pending task: the group records a cancellation.
    drop(rt_a);
    let res = rt_b.block_on(group.join());
    assert!(matches!(res, Err(GroupError::Cancelled)));
}
