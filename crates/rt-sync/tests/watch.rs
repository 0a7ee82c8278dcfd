//! The watch channel: receivers see the latest value and are told when it changes.

mod channel_util;

use std::task::Poll;
use std::thread;

use channel_util::{block_on, poll_with, CountWaker};
use rt_sync::watch;

#[test]
fn changed_completes_after_a_send_and_marks_it_seen() {
    let (tx, mut rx) = watch::channel(0);
    assert_eq!(rx.has_changed(), Ok(false));
    let w = CountWaker::new();
    {
        let mut f = Box::pin(rx.changed());
        assert!(poll_with(f.as_mut(), &w).is_pending());
        tx.send(1).unwrap();
        assert_eq!(w.count(), 1);
        assert_eq!(poll_with(f.as_mut(), &w), Poll::Ready(Ok(())));
    }
    assert_eq!(*rx.borrow(), 1);
    assert_eq!(rx.has_changed(), Ok(false));
    let mut f = Box::pin(rx.changed());
    assert!(poll_with(f.as_mut(), &w).is_pending());
}

#[test]
fn borrow_and_update_marks_seen_and_borrow_does_not() {
    let (tx, mut rx) = watch::channel("a");
    tx.send("b").unwrap();
    assert_eq!(*rx.borrow(), "b");
    assert_eq!(rx.has_changed(), Ok(true));
    assert_eq!(*rx.borrow_and_update(), "b");
    assert_eq!(rx.has_changed(), Ok(false));
}

#[test]
fn many_sends_coalesce_into_one_change() {
    let (tx, mut rx) = watch::channel(0);
    for i in 1..=5 {
        tx.send(i).unwrap();
    }
    block_on(rx.changed()).unwrap();
    assert_eq!(*rx.borrow(), 5);
    assert_eq!(rx.has_changed(), Ok(false));
}

#[test]
fn send_replace_and_send_modify_notify() {
    let (tx, mut rx) = watch::channel(vec![1]);
    assert_eq!(tx.send_replace(vec![2]), vec![1]);
    assert!(rx.has_changed().unwrap());
    rx.borrow_and_update();
    tx.send_modify(|v| v.push(3));
    assert!(rx.has_changed().unwrap());
    assert_eq!(*rx.borrow_and_update(), vec![2, 3]);
    assert_eq!(*tx.borrow(), vec![2, 3]);
}

#[test]
fn sender_drop_ends_changed_after_the_last_unseen_value() {
    let (tx, mut rx) = watch::channel(0);
    tx.send(1).unwrap();
    drop(tx);
    assert!(rx.has_changed().is_err());
    assert_eq!(
        block_on(rx.changed()),
        Ok(()),
        "an unseen value is still reported"
    );
    assert!(block_on(rx.changed()).is_err());
    assert_eq!(*rx.borrow(), 1);
}

#[test]
fn sender_drop_wakes_a_waiting_receiver() {
    let (tx, mut rx) = watch::channel(0);
    let w = CountWaker::new();
    let mut f = Box::pin(rx.changed());
    assert!(poll_with(f.as_mut(), &w).is_pending());
    drop(tx);
    assert_eq!(w.count(), 1);
    assert!(matches!(poll_with(f.as_mut(), &w), Poll::Ready(Err(_))));
}

#[test]
fn send_without_receivers_fails_and_closed_completes() {
    let (tx, rx) = watch::channel(0);
    let rx2 = rx.clone();
    assert_eq!(tx.receiver_count(), 2);
    let w = CountWaker::new();
    let mut closed = Box::pin(tx.closed());
    assert!(poll_with(closed.as_mut(), &w).is_pending());
    drop(rx);
    assert_eq!(w.count(), 0);
    drop(rx2);
    assert_eq!(w.count(), 1);
    assert_eq!(poll_with(closed.as_mut(), &w), Poll::Ready(()));
    assert!(tx.is_closed());
    assert_eq!(tx.send(1).map_err(|e| e.0), Err(1));
    let mut rx = tx.subscribe();
    assert_eq!(
        rx.has_changed(),
        Ok(false),
        "a subscriber has seen the current value"
    );
    tx.send(2).unwrap();
    assert_eq!(*rx.borrow_and_update(), 2);
}

#[test]
fn clones_keep_their_own_seen_version() {
    let (tx, mut rx) = watch::channel(0);
    tx.send(1).unwrap();
    let mut other = rx.clone();
    rx.borrow_and_update();
    assert_eq!(rx.has_changed(), Ok(false));
    assert_eq!(other.has_changed(), Ok(true));
    block_on(other.changed()).unwrap();
}

#[test]
fn a_receiver_on_another_thread_sees_the_final_value() {
    let (tx, mut rx) = watch::channel(0u32);
    let t = thread::spawn(move || {
        block_on(async {
            let mut last = 0;
            while rx.changed().await.is_ok() {
                let v = *rx.borrow_and_update();
                assert!(v > last, "values only grow");
                last = v;
            }
            last
        })
    });
    for i in 1..=1000 {
        tx.send_replace(i);
    }
    drop(tx);
    assert_eq!(t.join().unwrap(), 1000);
}
