//! mpsc `reserve_many` / `try_reserve_many` and `PermitIterator`, as tokio's: all `n` slots at
//! once, slots of unused permits come back, and a request that can never fit fails.

use rt_core::test_support::block_on;
use rt_sync::mpsc::{self, error::TrySendError};

#[test]
fn reserve_many_takes_every_slot_and_yields_that_many_permits() {
    let (tx, mut rx) = mpsc::channel::<u32>(3);
    let permits = block_on(tx.reserve_many(3)).unwrap();
    assert_eq!(permits.len(), 3);
    assert_eq!(tx.capacity(), 0);
    assert!(matches!(tx.try_send(9), Err(TrySendError::Full(9))));
    for (i, permit) in permits.enumerate() {
        permit.send(i as u32);
    }
    let got: Vec<u32> = (0..3).map(|_| rx.try_recv().unwrap()).collect();
    assert_eq!(got, [0, 1, 2]);
}

#[test]
fn dropping_the_iterator_returns_the_slots_of_permits_not_taken() {
    let (tx, _rx) = mpsc::channel::<u32>(4);
    let mut permits = tx.try_reserve_many(3).unwrap();
    let first = permits.next().unwrap();
    assert_eq!(tx.capacity(), 1);
    drop(permits);
    assert_eq!(tx.capacity(), 3, "the two permits never taken are back");
    drop(first);
    assert_eq!(tx.capacity(), 4);
}

#[test]
fn more_than_the_bound_can_never_be_reserved() {
    let (tx, _rx) = mpsc::channel::<u32>(2);
    assert!(matches!(
        tx.try_reserve_many(3),
        Err(TrySendError::Full(()))
    ));
    assert!(block_on(tx.reserve_many(3)).is_err());
    assert_eq!(tx.capacity(), 2);
}

#[test]
fn zero_permits_is_an_empty_iterator() {
    let (tx, _rx) = mpsc::channel::<u32>(2);
    assert_eq!(tx.try_reserve_many(0).unwrap().count(), 0);
    assert_eq!(block_on(tx.reserve_many(0)).unwrap().count(), 0);
}

#[test]
fn try_reserve_many_is_full_when_not_all_slots_are_free() {
    let (tx, _rx) = mpsc::channel::<u32>(2);
    tx.try_send(1).unwrap();
    assert!(matches!(
        tx.try_reserve_many(2),
        Err(TrySendError::Full(()))
    ));
    assert_eq!(tx.capacity(), 1, "a failed try takes nothing");
}

#[test]
fn a_closed_channel_refuses_both() {
    let (tx, mut rx) = mpsc::channel::<u32>(2);
    rx.close();
    assert!(matches!(
        tx.try_reserve_many(1),
        Err(TrySendError::Closed(()))
    ));
    assert!(block_on(tx.reserve_many(1)).is_err());
}

#[test]
fn a_waiting_reserve_many_completes_once_enough_slots_are_back() {
    let (tx, mut rx) = mpsc::channel::<u32>(2);
    tx.try_send(1).unwrap();
    tx.try_send(2).unwrap();
    let waiter = std::thread::spawn(move || {
        let permits = block_on(tx.reserve_many(2)).unwrap();
        permits.count()
    });
    assert_eq!(block_on(rx.recv()), Some(1));
    assert_eq!(block_on(rx.recv()), Some(2));
    assert_eq!(waiter.join().unwrap(), 2);
}

#[test]
fn locked_queue_above_the_ring_bound_honours_permits_after_close() {
    // A bound above the ring's maximum uses the locked queue, whose permits are counted in
    // flight: permits held across `close` still send, and the receiver drains them.
    let (tx, mut rx) = mpsc::channel::<u32>(10_000);
    let permits = tx.try_reserve_many(2).unwrap();
    rx.close();
    for (i, p) in permits.enumerate() {
        p.send(i as u32);
    }
    assert_eq!(block_on(rx.recv()), Some(0));
    assert_eq!(block_on(rx.recv()), Some(1));
    assert_eq!(block_on(rx.recv()), None);
}
