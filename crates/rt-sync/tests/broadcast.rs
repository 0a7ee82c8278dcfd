//! The broadcast channel: every receiver sees every value; a slow receiver is told how many it
//! missed and continues from the oldest kept value; it closes when the senders go.

mod channel_util;

use std::task::Poll;
use std::thread;

use channel_util::{block_on, poll_with, CountWaker};
use rt_sync::broadcast::{self, RecvError, SendError, TryRecvError};

#[test]
fn every_receiver_sees_every_value_in_order() {
    let (tx, mut a) = broadcast::channel(16);
    let mut b = tx.subscribe();
    assert_eq!(tx.send(1), Ok(2));
    assert_eq!(tx.send(2), Ok(2));
    for rx in [&mut a, &mut b] {
        assert_eq!(block_on(rx.recv()), Ok(1));
        assert_eq!(block_on(rx.recv()), Ok(2));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    }
}

#[test]
fn a_lagging_receiver_skips_to_the_oldest_kept_value() {
    let (tx, mut rx) = broadcast::channel(4);
    for i in 0..10 {
        tx.send(i).unwrap();
    }
    assert_eq!(block_on(rx.recv()), Err(RecvError::Lagged(6)));
    for i in 6..10 {
        assert_eq!(block_on(rx.recv()), Ok(i));
    }
    tx.send(10).unwrap();
    tx.send(11).unwrap();
    tx.send(12).unwrap();
    tx.send(13).unwrap();
    tx.send(14).unwrap();
    assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(1)));
    assert_eq!(rx.try_recv(), Ok(11));
}

#[test]
fn send_wakes_every_waiting_receiver() {
    let (tx, mut a) = broadcast::channel(2);
    let mut b = a.resubscribe();
    let (wa, wb) = (CountWaker::new(), CountWaker::new());
    let mut fa = Box::pin(a.recv());
    let mut fb = Box::pin(b.recv());
    assert!(poll_with(fa.as_mut(), &wa).is_pending());
    assert!(poll_with(fb.as_mut(), &wb).is_pending());
    tx.send(7).unwrap();
    assert_eq!((wa.count(), wb.count()), (1, 1));
    assert_eq!(poll_with(fa.as_mut(), &wa), Poll::Ready(Ok(7)));
    assert_eq!(poll_with(fb.as_mut(), &wb), Poll::Ready(Ok(7)));
}

#[test]
fn closes_when_every_sender_is_gone_after_the_rest_is_read() {
    let (tx, mut rx) = broadcast::channel(4);
    let tx2 = tx.clone();
    tx.send(1).unwrap();
    drop(tx);
    let w = CountWaker::new();
    assert_eq!(block_on(rx.recv()), Ok(1));
    let mut f = Box::pin(rx.recv());
    assert!(poll_with(f.as_mut(), &w).is_pending());
    drop(tx2);
    assert_eq!(w.count(), 1);
    assert_eq!(
        poll_with(f.as_mut(), &w),
        Poll::Ready(Err(RecvError::Closed))
    );
}

#[test]
fn send_without_receivers_gives_the_value_back() {
    let (tx, rx) = broadcast::channel(4);
    assert_eq!(tx.receiver_count(), 1);
    drop(rx);
    assert_eq!(tx.receiver_count(), 0);
    assert_eq!(tx.send(5), Err(SendError(5)));
    let mut rx = tx.subscribe();
    assert_eq!(tx.send(6), Ok(1));
    assert_eq!(rx.try_recv(), Ok(6));
}

#[test]
fn subscribers_start_at_the_newest_position() {
    let (tx, mut rx) = broadcast::channel(4);
    tx.send(1).unwrap();
    let mut late = tx.subscribe();
    let mut resub = rx.resubscribe();
    tx.send(2).unwrap();
    assert_eq!(late.try_recv(), Ok(2));
    assert_eq!(resub.try_recv(), Ok(2));
    assert_eq!(rx.try_recv(), Ok(1));
}

#[test]
fn cancelled_recv_skips_nothing() {
    let (tx, mut rx) = broadcast::channel(4);
    let w = CountWaker::new();
    {
        let mut f = Box::pin(rx.recv());
        assert!(poll_with(f.as_mut(), &w).is_pending());
        tx.send(1).unwrap();
    }
    assert_eq!(rx.try_recv(), Ok(1));
}

#[test]
fn receivers_on_threads_see_all_values() {
    let (tx, rx) = broadcast::channel::<u32>(1024);
    let receivers: Vec<_> = (0..3)
        .map(|_| {
            let mut rx = rx.resubscribe();
            thread::spawn(move || {
                block_on(async {
                    let mut got = Vec::new();
                    loop {
                        match rx.recv().await {
                            Ok(v) => got.push(v),
                            Err(RecvError::Closed) => return got,
                            Err(RecvError::Lagged(n)) => panic!("lagged by {n} with room for all"),
                        }
                    }
                })
            })
        })
        .collect();
    drop(rx);
    for i in 0..1000 {
        tx.send(i).unwrap();
    }
    drop(tx);
    for h in receivers {
        assert_eq!(h.join().unwrap(), (0..1000).collect::<Vec<_>>());
    }
}

#[test]
#[should_panic(expected = "capacity must be positive")]
fn zero_capacity_is_refused() {
    let _ = broadcast::channel::<u32>(0);
}
