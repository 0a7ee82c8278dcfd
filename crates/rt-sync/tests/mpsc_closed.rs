//! `Sender::closed` completes when the receiver is closed or dropped, also for a `closed()`
//! future created before that and polled after; `is_closed` agrees.

use rt::sync::mpsc;

#[test]
fn closed_completes_when_the_receiver_is_dropped() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    rt.block_on(async {
        let (tx, rx) = mpsc::channel::<u32>(1);
        let tx2 = tx.clone();
        let watcher = rt::spawn(async move {
            tx2.closed().await;
            tx2.is_closed()
        });
        assert!(!tx.is_closed());
        drop(rx);
        assert!(watcher.await.unwrap());
        assert!(tx.send(1).await.is_err());
    });
}

#[test]
fn closed_completes_when_the_receiver_closes_and_for_unbounded_too() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
        let closed = tx.closed(); // created before the close, polled after it
        rx.close();
        closed.await;
        assert!(tx.is_closed());
        assert!(tx.send(1).is_err());
        assert_eq!(rx.recv().await, None);

        let (tx, mut rx) = mpsc::channel::<u32>(3);
        let watcher = rt::spawn(async move { tx.closed().await });
        rt::task::yield_now().await;
        rx.close();
        watcher.await.unwrap();
    });
}
