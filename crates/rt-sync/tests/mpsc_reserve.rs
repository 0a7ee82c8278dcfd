//! `mpsc` permits: `reserve` takes a slot that `Permit::send` fills without waiting, a dropped
//! permit gives its slot back, `reserve` waits while every slot is taken, owned permits carry
//! their sender, and `close` lets permits already held still send.

use rt::sync::mpsc::{self, error::TrySendError};

fn runtime() -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

#[test]
fn a_permit_holds_a_slot_until_it_sends_or_drops() {
    let rt = runtime();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::channel::<u32>(2);
        assert_eq!(tx.max_capacity(), 2);
        let p1 = tx.reserve().await.unwrap();
        assert_eq!(tx.capacity(), 1);
        let p2 = tx.try_reserve().unwrap();
        assert_eq!(tx.capacity(), 0);
        assert!(matches!(tx.try_send(9), Err(TrySendError::Full(9))));
        assert!(matches!(tx.try_reserve(), Err(TrySendError::Full(()))));
        drop(p1); // unused: the slot comes back
        assert_eq!(tx.capacity(), 1);
        p2.send(1);
        tx.try_send(2).unwrap();
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(rx.recv().await, Some(2));
        assert_eq!(tx.capacity(), 2);
    });
}

#[test]
fn reserve_waits_for_the_receiver_to_free_a_slot() {
    let rt = runtime();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::channel::<u32>(1);
        tx.send(1).await.unwrap();
        let waiter = rt::spawn(async move {
            let permit = tx.reserve().await.unwrap();
            permit.send(2);
        });
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(rx.recv().await, Some(2));
        waiter.await.unwrap();
        assert_eq!(rx.recv().await, None);
    });
}

#[test]
fn an_owned_permit_returns_its_sender() {
    let rt = runtime();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::channel::<u32>(1);
        let permit = tx.reserve_owned().await.unwrap();
        let tx = permit.send(5);
        // Full now: the sender comes back in the error.
        let tx = match tx.try_reserve_owned() {
            Err(TrySendError::Full(tx)) => tx,
            _ => panic!("expected Full with the sender"),
        };
        assert_eq!(rx.recv().await, Some(5));
        let tx = tx.reserve_owned().await.unwrap().release();
        assert_eq!(tx.capacity(), 1);
    });
}

#[test]
fn close_refuses_new_sends_but_held_permits_still_send() {
    let rt = runtime();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::channel::<u32>(4);
        tx.send(1).await.unwrap();
        let held = tx.reserve().await.unwrap();
        rx.close();
        assert!(tx.is_closed());
        assert!(tx.send(2).await.is_err());
        assert!(matches!(tx.try_send(3), Err(TrySendError::Closed(3))));
        assert!(tx.reserve().await.is_err());
        held.send(4);
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(rx.recv().await, Some(4));
        // The sender is alive, but closed and drained with no permit out: done.
        assert_eq!(rx.recv().await, None);
    });
}

#[test]
fn close_with_a_permit_out_ends_when_the_permit_is_dropped() {
    let rt = runtime();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::channel::<u32>(4);
        let held = tx.reserve().await.unwrap();
        rx.close();
        assert!(rx.try_recv().is_err());
        let receiver = rt::spawn(async move { rx.recv().await });
        drop(held);
        assert_eq!(receiver.await.unwrap(), None);
        drop(tx);
    });
}

#[test]
#[should_panic(expected = "mpsc bounded channel requires buffer > 0")]
fn a_zero_bound_panics_with_tokios_message() {
    let _ = mpsc::channel::<u32>(0);
}
