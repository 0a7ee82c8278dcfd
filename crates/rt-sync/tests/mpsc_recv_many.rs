//! `recv_many` waits for one value, then takes what is queued up to `limit`, freeing the slots;
//! it returns 0 for `limit == 0` and once the channel is done.

use rt::sync::mpsc;

#[test]
fn recv_many_takes_up_to_the_limit_and_frees_slots() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::channel::<u32>(8);
        for i in 0..5 {
            tx.send(i).await.unwrap();
        }
        assert_eq!(tx.capacity(), 3);
        let mut buf = vec![100];
        assert_eq!(rx.recv_many(&mut buf, 0).await, 0);
        assert_eq!(rx.recv_many(&mut buf, 3).await, 3);
        assert_eq!(buf, [100, 0, 1, 2]); // appended, not replaced
        assert_eq!(tx.capacity(), 6);
        buf.clear();
        assert_eq!(rx.recv_many(&mut buf, 10).await, 2);
        assert_eq!(buf, [3, 4]);
        assert_eq!(tx.capacity(), 8);

        // Waits for the first value.
        let sender = rt::spawn(async move {
            rt::task::yield_now().await;
            tx.send(9).await.unwrap();
        });
        buf.clear();
        assert_eq!(rx.recv_many(&mut buf, 10).await, 1);
        assert_eq!(buf, [9]);
        sender.await.unwrap();
        // Every sender gone, queue drained.
        assert_eq!(rx.recv_many(&mut buf, 10).await, 0);
    });
}

#[test]
fn recv_many_on_an_unbounded_channel() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
        for i in 0..100 {
            tx.send(i).unwrap();
        }
        drop(tx);
        let mut buf = Vec::new();
        while rx.recv_many(&mut buf, 32).await > 0 {}
        assert_eq!(buf, (0..100).collect::<Vec<_>>());
    });
}

#[test]
fn poll_recv_many_is_pending_then_takes_the_batch() {
    use std::future::Future;
    use std::task::{Context, Poll, Waker};

    let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
    let mut cx = Context::from_waker(Waker::noop());
    let mut buf = Vec::new();
    assert_eq!(rx.poll_recv_many(&mut cx, &mut buf, 4), Poll::Pending);
    for i in 0..6 {
        tx.send(i).unwrap();
    }
    assert_eq!(rx.poll_recv_many(&mut cx, &mut buf, 4), Poll::Ready(4));
    assert_eq!(buf, [0, 1, 2, 3]);
    drop(tx);
    assert_eq!(rx.poll_recv_many(&mut cx, &mut buf, 4), Poll::Ready(2));
    assert_eq!(rx.poll_recv_many(&mut cx, &mut buf, 4), Poll::Ready(0));

    let (tx, mut rx) = mpsc::channel::<u32>(2);
    let mut send = Box::pin(async move { tx.send(7).await });
    assert!(send.as_mut().poll(&mut cx).is_ready());
    let mut buf = Vec::new();
    assert_eq!(rx.poll_recv_many(&mut cx, &mut buf, 0), Poll::Ready(0));
    assert_eq!(rx.poll_recv_many(&mut cx, &mut buf, 8), Poll::Ready(1));
    assert_eq!(buf, [7]);
}
