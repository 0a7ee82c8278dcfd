//! `rt::task::JoinSet`: outcomes come out in completion order whatever the spawn order,
//! `abort_all` cancels, `shutdown` waits until every future was dropped, `detach_all` lets
//! tasks run on outside the set, dropping the set aborts, panics come back as `JoinError`s.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

mod support;
use support::DropCount;

use rt::task::JoinSet;

#[test]
fn join_next_in_completion_order_not_spawn_order() {
    support::multi_thread(2).block_on(async {
        let mut set = JoinSet::new();
        let (tx, rx) = rt::sync::oneshot::channel::<()>();
        // The first spawned waits for the second to finish.
        set.spawn(async move {
            rx.await.unwrap();
            "first"
        });
        set.spawn(async move {
            tx.send(()).unwrap();
            "second"
        });
        assert_eq!(set.len(), 2);
        assert_eq!(set.join_next().await.unwrap().unwrap(), "second");
        assert_eq!(set.join_next().await.unwrap().unwrap(), "first");
        assert!(set.join_next().await.is_none());
        assert!(set.is_empty());
    });
}

#[test]
fn join_next_with_id_matches_the_abort_handle() {
    support::multi_thread(2).block_on(async {
        let mut set = JoinSet::new();
        let abort = set.spawn(async { 5 });
        let (id, v) = set.join_next_with_id().await.unwrap().unwrap();
        assert_eq!((id, v), (abort.id(), 5));
    });
}

#[test]
fn abort_all_cancels_and_keeps_them_to_join() {
    support::multi_thread(2).block_on(async {
        let mut set: JoinSet<()> = JoinSet::new();
        for _ in 0..10 {
            set.spawn(std::future::pending());
        }
        set.abort_all();
        let mut cancelled = 0;
        while let Some(res) = set.join_next().await {
            assert!(res.unwrap_err().is_cancelled());
            cancelled += 1;
        }
        assert_eq!(cancelled, 10);
    });
}

#[test]
fn shutdown_waits_until_every_future_is_dropped() {
    let drops = Arc::new(AtomicUsize::new(0));
    support::multi_thread(2).block_on(async {
        let mut set: JoinSet<()> = JoinSet::new();
        for _ in 0..100 {
            let guard = DropCount(drops.clone());
            set.spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await
            });
        }
        set.shutdown().await;
        assert_eq!(drops.load(Ordering::SeqCst), 100);
        assert!(set.is_empty());
    });
}

#[test]
fn detach_all_lets_tasks_run_on() {
    support::multi_thread(2).block_on(async {
        let mut set = JoinSet::new();
        let (tx, rx) = rt::sync::oneshot::channel::<()>();
        let (done_tx, done_rx) = rt::sync::oneshot::channel::<u8>();
        set.spawn(async move {
            rx.await.unwrap();
            done_tx.send(3).unwrap();
        });
        set.detach_all();
        assert!(set.is_empty());
        assert!(set.join_next().await.is_none());
        drop(set);
        tx.send(()).unwrap();
        assert_eq!(done_rx.await.unwrap(), 3);
    });
}

#[test]
fn drop_aborts() {
    let drops = Arc::new(AtomicUsize::new(0));
    let rt = support::multi_thread(2);
    rt.block_on(async {
        let mut set: JoinSet<()> = JoinSet::new();
        let guard = DropCount(drops.clone());
        let (tx, rx) = rt::sync::oneshot::channel::<()>();
        let abort = set.spawn(async move {
            let _guard = guard;
            tx.send(()).unwrap();
            std::future::pending::<()>().await
        });
        rx.await.unwrap();
        drop(set);
        // Wait (without sleeping) until the aborted task has ended.
        while !abort.is_finished() {
            rt::task::yield_now().await;
        }
    });
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn panic_is_a_join_error_and_join_all_collects() {
    support::multi_thread(2).block_on(async {
        let mut set = JoinSet::new();
        set.spawn(async { panic!("boom") });
        let err = set.join_next().await.unwrap().unwrap_err();
        assert!(err.is_panic());
        assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "boom");

        let mut set = JoinSet::new();
        for i in 0..5u32 {
            set.spawn(async move { i });
        }
        set.spawn_blocking(|| 5);
        let mut all = set.join_all().await;
        all.sort();
        assert_eq!(all, vec![0, 1, 2, 3, 4, 5]);
    });
}

#[test]
fn try_join_next_does_not_wait() {
    support::multi_thread(2).block_on(async {
        let mut set: JoinSet<u8> = JoinSet::new();
        assert!(set.try_join_next().is_none());
        let abort = set.spawn(async { 1 });
        while !abort.is_finished() {
            rt::task::yield_now().await;
        }
        assert_eq!(set.try_join_next().unwrap().unwrap(), 1);
    });
}

#[test]
fn join_set_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<JoinSet<String>>();
}
