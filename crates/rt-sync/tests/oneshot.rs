//! The oneshot channel: one value from sender to receiver; either side's departure is seen by
//! the other; a value is dropped exactly once.

mod channel_util;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::thread;

use channel_util::{block_on, poll_with, CountWaker, Counted};
use rt_sync::oneshot::{self, TryRecvError};

#[test]
fn value_sent_before_the_receiver_waits_is_received() {
    let (tx, rx) = oneshot::channel();
    tx.send(5).unwrap();
    assert_eq!(block_on(rx), Ok(5));
}

#[test]
fn waiting_receiver_is_woken_by_send() {
    let (tx, mut rx) = oneshot::channel::<u32>();
    let w = CountWaker::new();
    assert!(poll_with(std::pin::Pin::new(&mut rx), &w).is_pending());
    assert_eq!(w.count(), 0);
    tx.send(9).unwrap();
    assert_eq!(w.count(), 1);
    assert_eq!(
        poll_with(std::pin::Pin::new(&mut rx), &w),
        Poll::Ready(Ok(9))
    );
}

#[test]
fn repolling_with_a_new_waker_moves_the_wake_up() {
    let (tx, mut rx) = oneshot::channel::<u32>();
    let (a, b) = (CountWaker::new(), CountWaker::new());
    assert!(poll_with(std::pin::Pin::new(&mut rx), &a).is_pending());
    assert!(poll_with(std::pin::Pin::new(&mut rx), &b).is_pending());
    tx.send(1).unwrap();
    assert_eq!((a.count(), b.count()), (0, 1));
}

#[test]
fn dropped_sender_gives_recv_error() {
    let (tx, mut rx) = oneshot::channel::<u32>();
    let w = CountWaker::new();
    assert!(poll_with(std::pin::Pin::new(&mut rx), &w).is_pending());
    drop(tx);
    assert_eq!(w.count(), 1);
    assert!(matches!(
        poll_with(std::pin::Pin::new(&mut rx), &w),
        Poll::Ready(Err(_))
    ));
}

#[test]
fn send_to_a_dropped_or_closed_receiver_gives_the_value_back() {
    let (tx, rx) = oneshot::channel::<u32>();
    assert!(!tx.is_closed());
    drop(rx);
    assert!(tx.is_closed());
    assert_eq!(tx.send(3), Err(3));

    let (tx, mut rx) = oneshot::channel::<u32>();
    rx.close();
    assert!(tx.is_closed());
    assert_eq!(tx.send(4), Err(4));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
}

#[test]
fn value_sent_before_close_can_still_be_taken() {
    let (tx, mut rx) = oneshot::channel::<u32>();
    tx.send(6).unwrap();
    rx.close();
    assert_eq!(rx.try_recv(), Ok(6));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed), "taken once");
}

#[test]
fn try_recv_reports_empty_then_the_value() {
    let (tx, mut rx) = oneshot::channel::<u32>();
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    tx.send(2).unwrap();
    assert_eq!(rx.try_recv(), Ok(2));
}

#[test]
fn closed_waits_for_the_receiver_to_go() {
    let (mut tx, rx) = oneshot::channel::<u32>();
    let w = CountWaker::new();
    {
        let mut closed = Box::pin(tx.closed());
        assert!(poll_with(closed.as_mut(), &w).is_pending());
        drop(rx);
        assert_eq!(w.count(), 1);
        assert_eq!(poll_with(closed.as_mut(), &w), Poll::Ready(()));
    }
    assert!(tx.is_closed());
}

#[test]
fn closed_is_woken_by_close() {
    let (mut tx, mut rx) = oneshot::channel::<u32>();
    let (a, b) = (CountWaker::new(), CountWaker::new());
    let mut closed = Box::pin(tx.closed());
    assert!(poll_with(closed.as_mut(), &a).is_pending());
    assert!(poll_with(closed.as_mut(), &b).is_pending());
    rx.close();
    assert_eq!((a.count(), b.count()), (0, 1));
    assert_eq!(poll_with(closed.as_mut(), &b), Poll::Ready(()));
}

#[test]
fn the_value_is_dropped_exactly_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    // Sent, never received: dropped with the receiver.
    let (tx, rx) = oneshot::channel();
    tx.send(Counted(0, drops.clone())).unwrap();
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    drop(rx);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    // Sent to a dropped receiver: comes back, dropped by the caller.
    let (tx, rx) = oneshot::channel();
    drop(rx);
    drop(tx.send(Counted(1, drops.clone())).unwrap_err());
    assert_eq!(drops.load(Ordering::SeqCst), 2);
    // Received: dropped by the receiver's owner, not again by the channel.
    let (tx, rx) = oneshot::channel();
    tx.send(Counted(2, drops.clone())).unwrap();
    drop(block_on(rx).unwrap());
    assert_eq!(drops.load(Ordering::SeqCst), 3);
}

#[test]
fn across_threads_every_value_arrives() {
    for i in 0..2_000u64 {
        let (tx, rx) = oneshot::channel();
        let (back_tx, back_rx) = oneshot::channel();
        let t = thread::spawn(move || {
            let v = block_on(rx).unwrap();
            back_tx.send(v + 1).unwrap();
        });
        tx.send(i).unwrap();
        assert_eq!(block_on(back_rx), Ok(i + 1));
        t.join().unwrap();
    }
}

#[test]
fn racing_send_and_receiver_drop_drop_the_value_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    for i in 0..2_000u64 {
        let (tx, rx) = oneshot::channel();
        let t = thread::spawn(move || drop(rx));
        // Either outcome is legal (the value is received-and-dropped or comes back); the drop
        // count is what must hold.
        drop(tx.send(Counted(i, drops.clone())));
        t.join().unwrap();
        assert_eq!(drops.load(Ordering::SeqCst) as u64, i + 1);
    }
}

#[test]
fn a_ready_value_waits_while_the_budget_is_spent() {
    let (tx, mut rx) = oneshot::channel::<u32>();
    tx.send(1).unwrap();
    let w = CountWaker::new();
    rt_core::coop::budget(|| {
        for _ in 0..rt_core::coop::BUDGET {
            assert_eq!(
                poll_with(std::pin::pin!(rt_core::coop::consume_budget()), &w),
                Poll::Ready(())
            );
        }
        assert!(poll_with(std::pin::Pin::new(&mut rx), &w).is_pending());
        assert_eq!(w.count(), 1, "the task is woken to come back for the value");
    });
    assert_eq!(
        poll_with(std::pin::Pin::new(&mut rx), &w),
        Poll::Ready(Ok(1))
    );
}
