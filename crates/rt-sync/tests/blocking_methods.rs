//! The `blocking_*` methods for synchronous code (tokio's names): `Mutex::blocking_lock`
//! (and `_owned`), `RwLock::blocking_read` / `blocking_write`, `oneshot::Receiver::blocking_recv`
//! and `broadcast::Receiver::blocking_recv` park a plain thread until they succeed, and panic
//! with advice on a runtime worker (where they would block the thread that runs tasks).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc};
use std::thread;

use rt::sync::{broadcast, oneshot, Mutex, RwLock};

#[test]
fn blocking_lock_waits_for_the_holder() {
    let m = Arc::new(Mutex::new(0));
    let held = m.try_lock().unwrap();
    let (tx, rx) = mpsc::channel();
    let t = {
        let m = m.clone();
        thread::spawn(move || {
            *m.blocking_lock() += 1;
            *m.clone().blocking_lock_owned() += 1;
            tx.send(()).unwrap();
        })
    };
    drop(held);
    rx.recv().unwrap();
    t.join().unwrap();
    assert_eq!(*m.try_lock().unwrap(), 2);
}

#[test]
fn blocking_read_and_write_wait_for_the_holder() {
    let l = Arc::new(RwLock::new(0));
    let writer = l.try_write().unwrap();
    let t = {
        let l = l.clone();
        thread::spawn(move || {
            *l.blocking_write() += 1;
            *l.blocking_read()
        })
    };
    drop(writer);
    assert_eq!(t.join().unwrap(), 1);
}

#[test]
fn oneshot_and_broadcast_blocking_recv() {
    let (tx, rx) = oneshot::channel();
    let t = thread::spawn(move || rx.blocking_recv());
    tx.send(5).unwrap();
    assert_eq!(t.join().unwrap(), Ok(5));
    let (tx, rx) = oneshot::channel::<u32>();
    drop(tx);
    assert!(rx.blocking_recv().is_err(), "a dropped sender is an error");

    let (tx, mut rx) = broadcast::channel(4);
    let t = thread::spawn(move || {
        let mut got = Vec::new();
        while let Ok(v) = rx.blocking_recv() {
            got.push(v);
        }
        got
    });
    for i in 0..3 {
        tx.send(i).unwrap();
    }
    drop(tx);
    assert_eq!(t.join().unwrap(), vec![0, 1, 2]);
}

#[test]
fn blocking_methods_panic_on_a_worker_with_advice() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let m = Arc::new(Mutex::new(0));
    let msg = rt.block_on(async move {
        rt::spawn(async move {
            let err = catch_unwind(AssertUnwindSafe(|| drop(m.blocking_lock())))
                .expect_err("blocking_lock on a worker must panic");
            err.downcast_ref::<String>()
                .cloned()
                .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        })
        .await
        .unwrap()
    });
    assert!(msg.contains("Mutex::blocking_lock"), "{msg}");
}
