//! Values left in a channel are dropped exactly once when the channel goes.

mod channel_util;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use channel_util::{poll_with, CountWaker, Counted};
use rt_sync::channel;

#[test]
fn buffered_values_drop_once_with_the_channel() {
    for cap in [Some(1), Some(8), None] {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = match cap {
            Some(c) => channel::bounded(c),
            None => channel::unbounded(),
        };
        let n = cap.unwrap_or(20);
        for i in 0..n {
            tx.try_send(Counted(i as u64, drops.clone())).unwrap();
        }
        // One value received and dropped by its owner.
        drop(rx.try_recv().unwrap());
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        drop(tx);
        assert_eq!(
            drops.load(Ordering::SeqCst),
            1,
            "closing does not drop buffered values"
        );
        drop(rx);
        assert_eq!(drops.load(Ordering::SeqCst), n);
    }
}

#[test]
fn buffered_values_drop_when_the_last_receiver_goes() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = channel::bounded(4);
    let rx2 = rx.clone();
    for i in 0..3 {
        tx.try_send(Counted(i, drops.clone())).unwrap();
    }
    drop(rx);
    assert_eq!(
        drops.load(Ordering::SeqCst),
        0,
        "a receiver is left to take them"
    );
    drop(rx2);
    assert_eq!(
        drops.load(Ordering::SeqCst),
        3,
        "nobody can take them any more"
    );
    assert!(tx.is_closed());
    drop(tx);
    assert_eq!(drops.load(Ordering::SeqCst), 3);
}

#[test]
fn values_sent_after_receivers_left_come_back_and_drop_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = channel::bounded(4);
    drop(rx);
    let err = tx.try_send(Counted(0, drops.clone())).unwrap_err();
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    drop(err);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    drop(tx);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn value_of_a_blocked_sender_is_returned_on_close_and_drops_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = channel::bounded(0);
    let w = CountWaker::new();
    let mut send = Box::pin(tx.send(Counted(1, drops.clone())));
    assert!(poll_with(send.as_mut(), &w).is_pending());
    drop(rx);
    match poll_with(send.as_mut(), &w) {
        std::task::Poll::Ready(Err(e)) => {
            assert_eq!(e.0 .0, 1);
            assert_eq!(drops.load(Ordering::SeqCst), 0);
        }
        other => panic!(
            "expected the value back, got {:?}",
            other.map(|r| r.is_ok())
        ),
    }
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    drop(send);
    drop(tx);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}
