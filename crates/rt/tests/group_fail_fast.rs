//! `rt::task::TaskGroup` fails fast: the first `Err` or panic aborts every sibling, `join`
//! returns only after each sibling's future was dropped, and a task spawned after the failure
//! never runs. Values come back in spawn order.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

mod support;
use support::DropCount;

use rt::task::{GroupError, TaskGroup};

#[test]
fn values_in_spawn_order() {
    support::multi_thread(2).block_on(async {
        let group = TaskGroup::<u32, ()>::new();
        for i in 0..100u32 {
            group.spawn(async move {
                if i % 2 == 0 {
                    rt::task::yield_now().await;
                }
                Ok(i)
            });
        }
        assert_eq!(group.join().await.unwrap(), (0..100).collect::<Vec<_>>());
    });
}

#[test]
fn error_aborts_siblings_before_join_returns() {
    let drops = Arc::new(AtomicUsize::new(0));
    support::multi_thread(2).block_on(async {
        let group = TaskGroup::<(), &'static str>::new();
        for _ in 0..50 {
            let guard = DropCount(drops.clone());
            group.spawn(async move {
                let _guard = guard;
                std::future::pending::<Result<(), &str>>().await
            });
        }
        group.spawn(async { Err("bad") });
        let res = group.join().await;
        assert!(matches!(res, Err(GroupError::Failed("bad"))));
        assert_eq!(
            drops.load(Ordering::SeqCst),
            50,
            "every sibling dropped before join returned"
        );
    });
}

#[test]
fn panic_aborts_siblings_and_carries_the_payload() {
    let drops = Arc::new(AtomicUsize::new(0));
    support::multi_thread(2).block_on(async {
        let group = TaskGroup::<(), ()>::new();
        for _ in 0..10 {
            let guard = DropCount(drops.clone());
            group.spawn(async move {
                let _guard = guard;
                std::future::pending::<Result<(), ()>>().await
            });
        }
        group.spawn(async { panic!("task blew up") });
        let err = group.join().await.unwrap_err();
        assert!(err.is_panic());
        assert_eq!(
            *err.into_panic().downcast::<&str>().unwrap(),
            "task blew up"
        );
        assert_eq!(drops.load(Ordering::SeqCst), 10);
    });
}

#[test]
fn failure_aborts_siblings_without_join_and_later_spawns_never_run() {
    let drops = Arc::new(AtomicUsize::new(0));
    let ran = Arc::new(AtomicBool::new(false));
    support::multi_thread(2).block_on(async {
        let group = TaskGroup::<(), u8>::new();
        let guard = DropCount(drops.clone());
        let sibling = group.spawn(async move {
            let _guard = guard;
            std::future::pending::<Result<(), u8>>().await
        });
        let failing = group.spawn(async { Err(1) });
        // Without awaiting join: the sibling is aborted by the failure itself.
        while !(failing.is_finished() && sibling.is_finished()) {
            rt::task::yield_now().await;
        }
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        let ran2 = ran.clone();
        let late = group.spawn(async move {
            ran2.store(true, Ordering::SeqCst);
            Ok(())
        });
        while !late.is_finished() {
            rt::task::yield_now().await;
        }
        assert!(matches!(group.join().await, Err(GroupError::Failed(1))));
    });
    assert!(
        !ran.load(Ordering::SeqCst),
        "a task spawned after the failure ran"
    );
}

#[test]
fn group_error_is_send_sync_and_an_error() {
    fn assert_send_sync<T: Send + Sync>() {}
    fn assert_error<T: std::error::Error>() {}
    assert_send_sync::<GroupError<std::io::Error>>();
    assert_error::<GroupError<std::io::Error>>();
    let e: GroupError<std::io::Error> = GroupError::Failed(std::io::Error::other("x"));
    assert_eq!(e.to_string(), "a task of the group failed: x");
}
