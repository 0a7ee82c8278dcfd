//! The sender counts seen from a receiver and from weak senders, on both mpsc flavours, as
//! tokio's `sender_strong_count`/`sender_weak_count` and `WeakSender::{strong,weak}_count`.

use rt_sync::mpsc;

#[test]
fn bounded_counts_follow_clones_downgrades_and_drops() {
    let (tx, rx) = mpsc::channel::<u32>(1);
    let tx2 = tx.clone();
    let weak = tx.downgrade();
    assert_eq!((rx.sender_strong_count(), rx.sender_weak_count()), (2, 1));
    assert_eq!((weak.strong_count(), weak.weak_count()), (2, 1));
    let weak2 = weak.clone();
    drop(tx2);
    assert_eq!((rx.sender_strong_count(), rx.sender_weak_count()), (1, 2));
    drop((tx, weak2));
    assert_eq!((weak.strong_count(), weak.weak_count()), (0, 1));
    assert!(weak.upgrade().is_none());
}

#[test]
fn unbounded_counts_follow_clones_downgrades_and_drops() {
    let (tx, rx) = mpsc::unbounded_channel::<u32>();
    let weak = tx.downgrade();
    let tx2 = weak.upgrade().unwrap();
    assert_eq!((rx.sender_strong_count(), rx.sender_weak_count()), (2, 1));
    assert_eq!((weak.strong_count(), weak.weak_count()), (2, 1));
    drop((tx, tx2));
    assert_eq!((rx.sender_strong_count(), weak.strong_count()), (0, 0));
}

#[test]
fn blocking_recv_many_takes_what_is_queued_up_to_the_limit() {
    let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
    for i in 0..5 {
        tx.send(i).unwrap();
    }
    let mut buf = Vec::new();
    assert_eq!(rx.blocking_recv_many(&mut buf, 3), 3);
    assert_eq!(buf, [0, 1, 2]);
    drop(tx);
    assert_eq!(rx.blocking_recv_many(&mut buf, 10), 2);
    assert_eq!(rx.blocking_recv_many(&mut buf, 10), 0, "closed and drained");
    assert_eq!(buf, [0, 1, 2, 3, 4]);

    let (tx, mut rx) = mpsc::channel::<u32>(4);
    let sender = std::thread::spawn(move || tx.blocking_send(7).unwrap());
    let mut buf = Vec::new();
    assert_eq!(
        rx.blocking_recv_many(&mut buf, 4),
        1,
        "waits for the first value"
    );
    assert_eq!(buf, [7]);
    sender.join().unwrap();
}
