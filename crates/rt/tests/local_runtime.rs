//! `runtime::LocalRuntime` and `#[rt::test(flavor = "local")]`, as tokio's: `spawn_local`
//! works on the runtime's thread without a `LocalSet`, from local and `Send` tasks alike.

use std::cell::Cell;
use std::rc::Rc;

fn local_rt() -> rt::runtime::LocalRuntime {
    rt::Builder::new_current_thread()
        .build_local(rt::runtime::LocalOptions::default())
        .unwrap()
}

#[test]
fn spawn_local_inside_block_on() {
    let rt = local_rt();
    let v = rt.block_on(async {
        let shared = Rc::new(Cell::new(1));
        let s = shared.clone();
        rt::task::spawn_local(async move {
            rt::task::yield_now().await;
            s.set(s.get() + 1);
        })
        .await
        .unwrap();
        shared.get()
    });
    assert_eq!(v, 2);
}

#[test]
fn spawn_local_from_a_send_task_wakes_the_runtime() {
    let rt = local_rt();
    let v = rt.block_on(async {
        let (tx, rx) = rt::sync::oneshot::channel();
        rt::spawn(async move {
            // A `Send` task, polled by the scheduler outside the local set's own poll.
            rt::task::spawn_local(async move {
                let local = Rc::new(7);
                rt::task::yield_now().await;
                tx.send(*local).ok()
            });
        });
        rx.await.unwrap()
    });
    assert_eq!(v, 7);
}

#[test]
fn spawn_local_before_block_on_and_under_enter() {
    let rt = local_rt();
    let first = rt.spawn_local(async { Rc::new(3) });
    let second = {
        let _guard = rt.enter();
        rt::task::spawn_local(async { 4 })
    };
    let (a, b) = rt.block_on(async { (first.await.unwrap(), second.await.unwrap()) });
    assert_eq!((*a, b), (3, 4));
}

#[test]
fn local_tasks_drop_with_the_runtime() {
    struct SetOnDrop(Rc<Cell<bool>>);
    impl Drop for SetOnDrop {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }
    let dropped = Rc::new(Cell::new(false));
    let rt = local_rt();
    let guard = SetOnDrop(dropped.clone());
    rt.spawn_local(async move {
        let _guard = guard;
        std::future::pending::<()>().await
    });
    rt.block_on(rt::task::yield_now());
    assert!(!dropped.get());
    drop(rt);
    assert!(dropped.get());
}

#[test]
#[should_panic(expected = "build_local needs a current-thread builder")]
fn a_multi_thread_builder_cannot_build_local() {
    let _ = rt::Builder::new_multi_thread().build_local(Default::default());
}

#[rt::test(flavor = "local")]
async fn the_test_attribute_takes_the_local_flavor() {
    let v = rt::task::spawn_local(async { Rc::new(9) }).await.unwrap();
    assert_eq!(*v, 9);
}
