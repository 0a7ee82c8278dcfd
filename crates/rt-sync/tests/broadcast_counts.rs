//! broadcast as tokio's: `Sender::new` (no receiver until one subscribes), `same_channel`,
//! sender counts, and a receiver's `len`/`is_empty`/`is_closed`, including past a lag.

use rt_sync::broadcast::{self, error::RecvError, Sender};

#[test]
fn sender_new_has_no_receiver_until_one_subscribes() {
    let tx = Sender::<u32>::new(4);
    assert_eq!(tx.receiver_count(), 0);
    assert!(tx.send(1).is_err(), "no receiver yet");
    let mut rx = tx.subscribe();
    assert_eq!(tx.send(2).unwrap(), 1);
    assert_eq!(rx.try_recv(), Ok(2));
}

#[test]
fn receiver_len_counts_unseen_values_and_lag() {
    let (tx, mut rx) = broadcast::channel::<u32>(2);
    assert!(rx.is_empty());
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    assert_eq!(rx.len(), 2);
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(rx.len(), 1);
    tx.send(3).unwrap();
    tx.send(4).unwrap();
    // 3 unseen, one more than the ring keeps: the next receive reports the lag.
    assert_eq!(rx.len(), 3);
    assert!(matches!(
        rx.try_recv(),
        Err(broadcast::TryRecvError::Lagged(1))
    ));
    assert_eq!(rx.len(), 2);
    assert_eq!(rx.try_recv(), Ok(3));
    assert_eq!(rx.try_recv(), Ok(4));
    assert!(rx.is_empty());
}

#[test]
fn same_channel_counts_and_closed() {
    let (tx, rx) = broadcast::channel::<u32>(2);
    let (other_tx, other_rx) = broadcast::channel::<u32>(2);
    let tx2 = tx.clone();
    assert!(tx.same_channel(&tx2) && !tx.same_channel(&other_tx));
    assert!(rx.same_channel(&tx.subscribe()) && !rx.same_channel(&other_rx));
    assert_eq!((tx.strong_count(), rx.sender_strong_count()), (2, 2));
    drop(tx2);
    assert_eq!(rx.sender_strong_count(), 1);
    assert!(!rx.is_closed());
    tx.send(7).unwrap();
    drop(tx);
    assert!(rx.is_closed());
    let mut rx = rx;
    // Values sent before the close are still received.
    assert_eq!(rx.try_recv(), Ok(7));
    assert_eq!(
        rt_core::test_support::block_on(rx.recv()),
        Err(RecvError::Closed)
    );
}
