//! watch senders as tokio's: `Sender` is `Clone` and the channel closes with the last one;
//! `Receiver::is_closed`; `Sender::new` and `Default`.

use rt_core::test_support::block_on;
use rt_sync::watch;

#[test]
fn the_channel_closes_with_the_last_sender() {
    let (tx, mut rx) = watch::channel(0u32);
    let tx2 = tx.clone();
    assert_eq!(tx.sender_count(), 2);
    assert!(tx.same_channel(&tx2));
    drop(tx);
    assert!(!rx.is_closed());
    tx2.send(5).unwrap();
    assert!(block_on(rx.changed()).is_ok());
    assert_eq!(*rx.borrow_and_update(), 5);
    drop(tx2);
    assert!(rx.is_closed());
    assert!(block_on(rx.changed()).is_err());
}

#[test]
fn a_waiting_receiver_wakes_only_when_the_last_sender_goes() {
    let (tx, mut rx) = watch::channel(0u32);
    let tx2 = tx.clone();
    drop(tx);
    let closer = std::thread::spawn(move || drop(tx2));
    assert!(block_on(rx.changed()).is_err());
    closer.join().unwrap();
}

#[test]
fn sender_new_and_default_start_without_receivers() {
    let tx = watch::Sender::new(3u32);
    assert_eq!(tx.receiver_count(), 0);
    assert!(tx.send(4).is_err());
    assert_eq!(tx.send_replace(5), 3);
    let rx = tx.subscribe();
    assert_eq!(*rx.borrow(), 5);
    let d: watch::Sender<u32> = Default::default();
    assert_eq!(*d.borrow(), 0);
    assert!(rx.same_channel(&tx.subscribe()));
}
