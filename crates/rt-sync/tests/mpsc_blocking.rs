//! `blocking_send`/`blocking_recv` work from plain threads and `spawn_blocking` closures
//! (parking while the channel is full or empty) and panic, saying what to do instead, on a
//! thread that drives tasks.

use std::thread;

use rt::sync::mpsc;

#[test]
fn blocking_send_from_a_thread_waits_for_room() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (tx, mut rx) = mpsc::channel::<u32>(1);
    let producer = thread::spawn(move || {
        for i in 0..100 {
            tx.blocking_send(i).unwrap();
        }
    });
    let got = rt.block_on(async {
        let mut got = Vec::new();
        while let Some(v) = rx.recv().await {
            got.push(v);
        }
        got
    });
    producer.join().unwrap();
    assert_eq!(got, (0..100).collect::<Vec<_>>());
}

#[test]
fn blocking_recv_from_a_thread_gets_what_tasks_send() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
    let consumer = thread::spawn(move || {
        let mut got = Vec::new();
        while let Some(v) = rx.blocking_recv() {
            got.push(v);
        }
        got
    });
    rt.block_on(async move {
        for i in 0..50 {
            rt::spawn({
                let tx = tx.clone();
                async move { tx.send(i).unwrap() }
            })
            .await
            .unwrap();
        }
    });
    let got = consumer.join().unwrap();
    assert_eq!(got, (0..50).collect::<Vec<_>>());

    let (tx, mut rx) = mpsc::channel::<u32>(1);
    let consumer = thread::spawn(move || rx.blocking_recv());
    rt.block_on(async { tx.send(7).await.unwrap() });
    assert_eq!(consumer.join().unwrap(), Some(7));
}

#[test]
fn blocking_calls_panic_on_a_thread_that_drives_tasks() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let (tx, mut rx) = mpsc::channel::<u32>(1);
    let send = rt.spawn(async move { tx.blocking_send(1) });
    let err = rt.block_on(send).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("Sender::blocking_send"), "{msg}");
    assert!(msg.contains(".await"), "{msg}");
    let recv = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async { rx.blocking_recv() })
    }));
    assert!(recv.is_err(), "blocking_recv inside block_on must panic");
}

#[test]
fn blocking_calls_work_inside_spawn_blocking() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let (tx, mut rx) = mpsc::channel::<u32>(1);
    let consumer = rt.spawn_blocking(move || rx.blocking_recv());
    rt.block_on(async { tx.send(3).await.unwrap() });
    assert_eq!(rt.block_on(consumer).unwrap(), Some(3));
}
