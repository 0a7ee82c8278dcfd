//! `LocalSet` as a future (it completes once none of its tasks is live) and
//! `LocalSet::enter`, as tokio's.

use std::cell::Cell;
use std::rc::Rc;

mod support;

#[test]
fn awaiting_the_set_runs_its_tasks_to_the_end() {
    let rt = support::current_thread();
    let local = rt::task::LocalSet::new();
    let done = Rc::new(Cell::new(0));
    for i in 0..4 {
        let done = done.clone();
        local.spawn_local(async move {
            for _ in 0..i {
                rt::task::yield_now().await;
            }
            // Tasks spawned from inside count too.
            let done2 = done.clone();
            rt::task::spawn_local(async move { done2.set(done2.get() + 10) });
            done.set(done.get() + 1);
        });
    }
    rt.block_on(local);
    assert_eq!(done.get(), 44);
}

#[test]
fn an_empty_set_is_ready_at_once() {
    let rt = support::current_thread();
    rt.block_on(rt::task::LocalSet::new());
}

#[test]
fn a_set_waits_for_a_task_woken_from_another_thread() {
    let rt = support::current_thread();
    let local = rt::task::LocalSet::new();
    let (tx, rx) = rt::sync::oneshot::channel::<u8>();
    let got = Rc::new(Cell::new(0));
    let g = got.clone();
    local.spawn_local(async move { g.set(rx.await.unwrap()) });
    let sender = std::thread::spawn(move || tx.send(9).unwrap());
    rt.block_on(local);
    sender.join().unwrap();
    assert_eq!(got.get(), 9);
}

#[test]
fn enter_makes_spawn_local_reach_the_set() {
    let rt = support::current_thread();
    let local = rt::task::LocalSet::new();
    let join = {
        let _guard = local.enter();
        rt::task::spawn_local(async { Rc::new(3) })
    };
    assert_eq!(*local.block_on(&rt, join).unwrap(), 3);
    // The guard is gone: outside any set again.
    assert!(std::panic::catch_unwind(|| drop(rt::task::spawn_local(async {}))).is_err());
}
