//! JoinSet as tokio's: `spawn_local`/`spawn_local_on` for `!Send` futures, `spawn_blocking_on`,
//! `poll_join_next` in a hand-written future, and `collect`/`extend` from an iterator.

use std::cell::Cell;
use std::future::poll_fn;
use std::rc::Rc;
use std::task::Poll;

use rt::task::{JoinSet, LocalSet};

fn runtime() -> rt::Runtime {
    rt::runtime::Builder::new_current_thread().build().unwrap()
}

#[test]
fn spawn_local_runs_non_send_futures_in_the_set() {
    let rt = runtime();
    let local = LocalSet::new();
    let hits = Rc::new(Cell::new(0));
    let total = local.block_on(&rt, {
        let hits = hits.clone();
        async move {
            let mut set = JoinSet::new();
            for i in 0..5u32 {
                let hits = hits.clone();
                set.spawn_local(async move {
                    hits.set(hits.get() + 1);
                    i
                });
            }
            let mut total = 0;
            while let Some(r) = set.join_next().await {
                total += r.unwrap();
            }
            total
        }
    });
    assert_eq!((total, hits.get()), (10, 5));
}

#[test]
fn spawn_local_on_queues_on_the_given_local_set() {
    let rt = runtime();
    let local = LocalSet::new();
    let mut set = JoinSet::new();
    let rc = Rc::new(7);
    set.spawn_local_on(async move { *rc + 1 }, &local);
    assert_eq!(set.len(), 1);
    let got = local.block_on(&rt, async move { set.join_next().await.unwrap().unwrap() });
    assert_eq!(got, 8);
}

#[test]
fn spawn_blocking_on_and_poll_join_next() {
    let rt = runtime();
    let handle = rt.handle().clone();
    let mut set = JoinSet::new();
    set.spawn_blocking_on(|| 40 + 2, &handle);
    let got = rt.block_on(async move {
        let first = poll_fn(|cx| set.poll_join_next(cx)).await;
        // Empty now: polls to Ready(None) at once.
        let empty = poll_fn(|cx| match set.poll_join_next(cx) {
            Poll::Ready(r) => Poll::Ready(r.is_none()),
            Poll::Pending => Poll::Ready(false),
        })
        .await;
        (first.unwrap().unwrap(), empty)
    });
    assert_eq!(got, (42, true));
}

#[test]
fn poll_join_next_with_id_names_the_task() {
    let rt = runtime();
    rt.block_on(async {
        let mut set = JoinSet::new();
        let id = set.spawn(async { "done" }).id();
        let (got_id, v) = poll_fn(|cx| set.poll_join_next_with_id(cx))
            .await
            .unwrap()
            .unwrap();
        assert_eq!((got_id, v), (id, "done"));
    });
}

#[test]
fn collect_and_extend_spawn_every_future() {
    let rt = runtime();
    let sum = rt.block_on(async {
        let mut set: JoinSet<u64> = (1..=4u64).map(|i| async move { i * 10 }).collect();
        set.extend((5..=6u64).map(|i| async move { i * 10 }));
        assert_eq!(set.len(), 6);
        set.join_all().await.into_iter().sum::<u64>()
    });
    assert_eq!(sum, 210);
}
