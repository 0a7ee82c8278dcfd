//! Closing: `close` wakes every waiter on both sides; receivers drain, then see `None`; a send
//! after close gives its value back; the last sender or receiver going closes the channel.

mod channel_util;

use std::task::Poll;

use channel_util::{poll_with, CountWaker};
use rt_sync::channel::{self, SendError, TryRecvError, TrySendError};

#[test]
fn close_wakes_every_waiting_receiver_and_they_see_none() {
    for cap in [Some(0), Some(1), Some(4), None] {
        let (tx, rx) = match cap {
            Some(c) => channel::bounded::<u32>(c),
            None => channel::unbounded(),
        };
        let wakers: Vec<_> = (0..3).map(|_| CountWaker::new()).collect();
        let mut futs: Vec<_> = (0..3).map(|_| Box::pin(rx.recv())).collect();
        for (f, w) in futs.iter_mut().zip(&wakers) {
            assert!(poll_with(f.as_mut(), w).is_pending());
        }
        assert!(tx.close());
        assert!(!rx.close(), "second close reports it was closed already");
        for (f, w) in futs.iter_mut().zip(&wakers) {
            assert_eq!(w.count(), 1);
            assert_eq!(poll_with(f.as_mut(), w), Poll::Ready(None));
        }
        assert!(tx.is_closed() && rx.is_closed());
    }
}

#[test]
fn close_wakes_every_blocked_sender_and_gives_values_back() {
    for cap in [0, 1] {
        let (tx, rx) = channel::bounded::<u32>(cap);
        if cap == 1 {
            tx.try_send(0).unwrap();
        }
        let wakers: Vec<_> = (0..3).map(|_| CountWaker::new()).collect();
        let mut futs: Vec<_> = (1..4).map(|i| Box::pin(tx.send(i))).collect();
        for (f, w) in futs.iter_mut().zip(&wakers) {
            assert!(poll_with(f.as_mut(), w).is_pending());
        }
        assert!(rx.close());
        for (i, (f, w)) in futs.iter_mut().zip(&wakers).enumerate() {
            assert_eq!(w.count(), 1);
            assert_eq!(
                poll_with(f.as_mut(), w),
                Poll::Ready(Err(SendError(i as u32 + 1)))
            );
        }
        // What was buffered before the close is still received, then `None`.
        if cap == 1 {
            assert_eq!(rx.try_recv(), Ok(0));
        }
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    }
}

#[test]
fn receivers_drain_then_see_none() {
    let (tx, rx) = channel::bounded(8);
    for i in 0..5 {
        tx.try_send(i).unwrap();
    }
    tx.close();
    assert_eq!(rx.len(), 5);
    let got = channel_util::block_on(async {
        let mut got = Vec::new();
        while let Some(v) = rx.recv().await {
            got.push(v);
        }
        got
    });
    assert_eq!(got, [0, 1, 2, 3, 4]);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
}

#[test]
fn send_after_close_gives_the_value_back() {
    let (tx, rx) = channel::unbounded();
    rx.close();
    assert_eq!(channel_util::block_on(tx.send(7)), Err(SendError(7)));
    assert_eq!(tx.try_send(8), Err(TrySendError::Closed(8)));
}

#[test]
fn last_sender_dropped_closes() {
    let (tx, rx) = channel::bounded::<u32>(2);
    let tx2 = tx.clone();
    let w = CountWaker::new();
    let mut fut = Box::pin(rx.recv());
    assert!(poll_with(fut.as_mut(), &w).is_pending());
    drop(tx);
    assert!(!rx.is_closed());
    assert_eq!(w.count(), 0);
    drop(tx2);
    assert!(rx.is_closed());
    assert_eq!(w.count(), 1);
    assert_eq!(poll_with(fut.as_mut(), &w), Poll::Ready(None));
}

#[test]
fn last_receiver_dropped_closes() {
    let (tx, rx) = channel::bounded::<u32>(1);
    let rx2 = rx.clone();
    tx.try_send(1).unwrap();
    let w = CountWaker::new();
    let mut fut = Box::pin(tx.send(2));
    assert!(poll_with(fut.as_mut(), &w).is_pending());
    drop(rx);
    assert_eq!(w.count(), 0);
    drop(rx2);
    assert_eq!(w.count(), 1);
    assert_eq!(poll_with(fut.as_mut(), &w), Poll::Ready(Err(SendError(2))));
    assert!(tx.is_closed());
}

#[test]
fn capacity_and_len_report_the_channel() {
    let (tx, rx) = channel::bounded::<u8>(3);
    assert_eq!((tx.capacity(), rx.capacity()), (Some(3), Some(3)));
    let (utx, urx) = channel::unbounded::<u8>();
    assert_eq!((utx.capacity(), urx.capacity()), (None, None));
    let (ztx, _zrx) = channel::bounded::<u8>(0);
    assert_eq!(ztx.capacity(), Some(0));
    assert!(matches!(ztx.try_send(1), Err(TrySendError::Full(1))));
    tx.try_send(1).unwrap();
    assert_eq!((tx.len(), rx.len(), rx.is_empty()), (1, 1, false));
}
