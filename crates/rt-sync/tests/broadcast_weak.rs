//! broadcast `WeakSender`, as tokio's: it does not keep the channel open, upgrades while a
//! `Sender` lives, and is counted on both sides.

use rt_sync::broadcast::{self, error::RecvError};

#[test]
fn weak_sender_does_not_keep_the_channel_open() {
    let (tx, mut rx) = broadcast::channel::<u32>(4);
    let weak = tx.downgrade();
    assert_eq!((tx.weak_count(), rx.sender_weak_count()), (1, 1));
    let tx2 = weak.upgrade().expect("a sender lives");
    assert_eq!((weak.strong_count(), weak.weak_count()), (2, 1));
    tx2.send(5).unwrap();
    drop((tx, tx2));
    assert!(weak.upgrade().is_none());
    assert_eq!(rt_core::test_support::block_on(rx.recv()), Ok(5));
    assert_eq!(
        rt_core::test_support::block_on(rx.recv()),
        Err(RecvError::Closed)
    );
}

#[test]
fn weak_clones_and_drops_are_counted() {
    let (tx, rx) = broadcast::channel::<u32>(1);
    let w1 = tx.downgrade();
    let w2 = w1.clone();
    assert_eq!(rx.sender_weak_count(), 2);
    drop(w1);
    assert_eq!(tx.weak_count(), 1);
    drop(w2);
    assert_eq!(tx.weak_count(), 0);
}
