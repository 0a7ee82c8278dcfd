//! `rt::task::block_in_place`: while the closure blocks its worker's thread, the tasks that
//! worker holds (LIFO slot, local queue, timers and IO of its shard) still run, because a
//! substitute thread serves them; nested calls and panics behave; current-thread panics,
//! outside a runtime the closure just runs.
//!
//! The closures below block on std channels until tasks held by the blocked worker have run, so
//! without the hand-over they would wait forever; the receive timeouts (a minute) only turn
//! such a deadlock into a failure with a message, they do not measure anything.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::time::Duration;

const DEADLOCK: Duration = Duration::from_secs(60);

fn multi(workers: usize) -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap()
}

/// Tasks spawned just before the call sit in this worker's LIFO slot (the last one) and local
/// queue (the others); the closure waits for all of them.
fn held_tasks_run(workers: usize) {
    let rt = multi(workers);
    let got = rt.block_on(async {
        rt::spawn(async {
            let (tx, rx) = mpsc::channel();
            for i in 0..5 {
                let tx = tx.clone();
                rt::spawn(async move {
                    tx.send(i).unwrap();
                });
            }
            rt::task::block_in_place(move || {
                let mut got: Vec<i32> = (0..5)
                    .map(|_| {
                        rx.recv_timeout(DEADLOCK)
                            .expect("a task held by the blocked worker never ran")
                    })
                    .collect();
                got.sort_unstable();
                got
            })
        })
        .await
        .unwrap()
    });
    assert_eq!(got, vec![0, 1, 2, 3, 4]);
}

#[test]
fn lifo_and_local_queue_served_one_worker() {
    held_tasks_run(1);
}

#[test]
fn lifo_and_local_queue_served_two_workers() {
    held_tasks_run(2);
}

/// The only worker blocks; a timer on its shard, a task spawned from outside and a task
/// spawned from inside the closure all run meanwhile.
#[test]
fn only_worker_blocks_others_still_run() {
    let rt = multi(1);
    let (tx, rx) = mpsc::channel::<&'static str>();
    let (blocked_tx, blocked_rx) = mpsc::channel::<()>();
    let (timer_tx, inner_tx, outside_tx) = (tx.clone(), tx.clone(), tx);
    let blocker = rt.spawn(async move {
        rt::spawn(async move {
            rt::time::sleep(Duration::from_millis(1)).await;
            timer_tx.send("timer").unwrap();
        });
        rt::task::block_in_place(move || {
            blocked_tx.send(()).unwrap();
            rt::spawn(async move {
                inner_tx.send("spawned inside").unwrap();
            });
            let mut seen: Vec<&str> = (0..3)
                .map(|_| rx.recv_timeout(DEADLOCK).expect("a task did not run"))
                .collect();
            seen.sort_unstable();
            seen
        })
    });
    // The worker is blocked in the closure now; spawn from outside.
    blocked_rx.recv_timeout(DEADLOCK).unwrap();
    rt.spawn(async move {
        outside_tx.send("spawned outside").unwrap();
    });
    let seen = rt.block_on(blocker).unwrap();
    assert_eq!(seen, vec!["spawned inside", "spawned outside", "timer"]);
}

/// An echo connection accepted on the worker keeps echoing while that worker blocks.
#[test]
fn io_of_blocked_worker_served() {
    let rt = multi(1);
    let echoed = rt.block_on(async {
        let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        rt::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 5];
            s.read_exact(&mut buf).await.unwrap();
            s.write_all(&buf).await.unwrap();
        });
        rt::spawn(async move {
            rt::task::block_in_place(move || {
                // A plain std client: the echo task must run on the runtime meanwhile.
                use std::io::{Read, Write};
                let mut c = std::net::TcpStream::connect(addr).unwrap();
                c.set_read_timeout(Some(DEADLOCK)).unwrap();
                c.write_all(b"hello").unwrap();
                let mut buf = [0u8; 5];
                c.read_exact(&mut buf).expect("the echo task never ran");
                buf
            })
        })
        .await
        .unwrap()
    });
    assert_eq!(&echoed, b"hello");
}

#[test]
fn nested_calls_run_and_return() {
    let rt = multi(1);
    let v = rt.block_on(async {
        rt::spawn(async {
            rt::task::block_in_place(|| {
                let inner = rt::task::block_in_place(|| 20);
                // Still served while nested: a task spawned here runs.
                let (tx, rx) = mpsc::channel();
                rt::spawn(async move { tx.send(1).unwrap() });
                inner + rx.recv_timeout(DEADLOCK).unwrap()
            }) + 1
        })
        .await
        .unwrap()
    });
    assert_eq!(v, 22);
}

/// A task running on the substitute may call `block_in_place` too (the context moves on).
#[test]
fn call_from_substitute() {
    let rt = multi(1);
    let v = rt.block_on(async {
        rt::spawn(async {
            let (tx, rx) = mpsc::channel();
            rt::spawn(async move {
                let (tx2, rx2) = mpsc::channel();
                rt::spawn(async move { tx2.send(5).unwrap() });
                let n = rt::task::block_in_place(move || rx2.recv_timeout(DEADLOCK).unwrap());
                tx.send(n * 2).unwrap();
            });
            rt::task::block_in_place(move || rx.recv_timeout(DEADLOCK).unwrap())
        })
        .await
        .unwrap()
    });
    assert_eq!(v, 10);
}

#[test]
fn panic_in_closure_propagates() {
    let rt = multi(1);
    rt.block_on(async {
        let caught = rt::spawn(async {
            let r = catch_unwind(AssertUnwindSafe(|| {
                rt::task::block_in_place(|| -> u32 { panic!("boom in f") })
            }));
            // The worker came back: tasks still run on it.
            let after = rt::spawn(async { 7 }).await.unwrap();
            (r, after)
        })
        .await
        .unwrap();
        let (r, after) = caught;
        let payload = r.unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom in f"));
        assert_eq!(after, 7);
        // Uncaught, it fails the task like any panic.
        let err = rt::spawn(async { rt::task::block_in_place(|| panic!("uncaught")) })
            .await
            .unwrap_err();
        assert!(err.is_panic());
        assert_eq!(rt::spawn(async { 3 }).await.unwrap(), 3);
    });
}

#[test]
fn current_thread_panics_with_advice() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let r = rt.block_on(async { catch_unwind(|| rt::task::block_in_place(|| 1)) });
    let payload = r.unwrap_err();
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap();
    assert!(msg.contains("current_thread"), "{msg}");
    assert!(msg.contains("spawn_blocking"), "{msg}");
}

#[test]
fn outside_runtime_just_runs() {
    assert_eq!(rt::task::block_in_place(|| 5), 5);
    // And inside `block_on` of a multi-thread runtime (not a worker).
    let rt = multi(1);
    assert_eq!(rt.block_on(async { rt::task::block_in_place(|| 6) }), 6);
}

/// The outer lender takes the worker back while its substitute is itself blocked in a nested
/// `block_in_place`: the deeper substitute keeps serving until the nested call returns (the
/// task it must run is only woken by the outer closure's end), then the context comes back
/// level by level.
#[test]
fn outer_reclaim_while_substitute_lends_on() {
    let rt = multi(1);
    let v = rt.block_on(async {
        rt::spawn(async {
            let (in_tx, in_rx) = mpsc::channel::<()>();
            let (go_tx, go_rx) = rt::sync::oneshot::channel::<u32>();
            let nested = rt::spawn(async move {
                let (tx, rx) = mpsc::channel();
                rt::spawn(async move {
                    let n = go_rx.await.unwrap();
                    tx.send(n).unwrap();
                });
                rt::task::block_in_place(move || {
                    in_tx.send(()).unwrap();
                    rx.recv_timeout(DEADLOCK)
                        .expect("the deeper substitute stopped early")
                })
            });
            rt::task::block_in_place(move || {
                in_rx.recv_timeout(DEADLOCK).unwrap();
                go_tx.send(9).unwrap();
            });
            nested.await.unwrap()
        })
        .await
        .unwrap()
    });
    assert_eq!(v, 9);
}
