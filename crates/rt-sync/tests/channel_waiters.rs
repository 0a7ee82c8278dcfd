//! Waiting receivers and senders are served first come, first served, and a waker is cloned
//! only by an operation that waits.

mod channel_util;

use std::pin::pin;
use std::task::Poll;

use channel_util::{poll_with, CountWaker};
use rt_sync::channel;

#[test]
fn waiting_receivers_are_served_in_arrival_order() {
    let (tx, rx) = channel::bounded::<u32>(4);
    let wakers: Vec<_> = (0..3).map(|_| CountWaker::new()).collect();
    let mut futs: Vec<_> = (0..3).map(|_| Box::pin(rx.recv())).collect();
    for (f, w) in futs.iter_mut().zip(&wakers) {
        assert!(poll_with(f.as_mut(), w).is_pending());
    }
    tx.try_send(10).unwrap();
    assert_eq!(
        wakers.iter().map(|w| w.count()).collect::<Vec<_>>(),
        [1, 0, 0]
    );
    tx.try_send(11).unwrap();
    assert_eq!(
        wakers.iter().map(|w| w.count()).collect::<Vec<_>>(),
        [1, 1, 0]
    );
    assert_eq!(
        poll_with(futs[0].as_mut(), &wakers[0]),
        Poll::Ready(Some(10))
    );
    assert_eq!(
        poll_with(futs[1].as_mut(), &wakers[1]),
        Poll::Ready(Some(11))
    );
    assert!(poll_with(futs[2].as_mut(), &wakers[2]).is_pending());
}

#[test]
fn blocked_senders_are_served_in_arrival_order() {
    let (tx, rx) = channel::bounded::<u32>(1);
    tx.try_send(0).unwrap();
    let wakers: Vec<_> = (0..3).map(|_| CountWaker::new()).collect();
    let mut futs: Vec<_> = (1..4).map(|i| Box::pin(tx.send(i))).collect();
    for (f, w) in futs.iter_mut().zip(&wakers) {
        assert!(poll_with(f.as_mut(), w).is_pending());
    }
    assert_eq!(rx.try_recv(), Ok(0));
    // The first blocked sender's value moved into the buffer: its send is complete.
    assert_eq!(
        wakers.iter().map(|w| w.count()).collect::<Vec<_>>(),
        [1, 0, 0]
    );
    assert_eq!(poll_with(futs[0].as_mut(), &wakers[0]), Poll::Ready(Ok(())));
    assert!(poll_with(futs[1].as_mut(), &wakers[1]).is_pending());
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(rx.try_recv(), Ok(2));
    assert_eq!(rx.try_recv(), Ok(3));
    assert_eq!(poll_with(futs[2].as_mut(), &wakers[2]), Poll::Ready(Ok(())));
}

#[test]
fn ready_operations_leave_the_waker_alone() {
    let (tx, rx) = channel::bounded::<u32>(1);
    let w = CountWaker::new();
    // `Arc::strong_count` counts the waker clones the channel keeps.
    let before = std::sync::Arc::strong_count(&w);
    assert_eq!(poll_with(pin!(tx.send(1)), &w), Poll::Ready(Ok(())));
    assert_eq!(poll_with(pin!(rx.recv()), &w), Poll::Ready(Some(1)));
    assert_eq!(std::sync::Arc::strong_count(&w), before);
    let mut waiting = Box::pin(rx.recv());
    assert!(poll_with(waiting.as_mut(), &w).is_pending());
    assert_eq!(std::sync::Arc::strong_count(&w), before + 1);
    // Re-polling with the same waker keeps the one clone.
    assert!(poll_with(waiting.as_mut(), &w).is_pending());
    assert_eq!(std::sync::Arc::strong_count(&w), before + 1);
    drop(waiting);
    assert_eq!(std::sync::Arc::strong_count(&w), before);
}

#[test]
fn a_repolled_waiter_keeps_its_place() {
    let (tx, rx) = channel::unbounded::<u32>();
    let (a, b) = (CountWaker::new(), CountWaker::new());
    let mut first = Box::pin(rx.recv());
    let mut second = Box::pin(rx.recv());
    assert!(poll_with(first.as_mut(), &a).is_pending());
    assert!(poll_with(second.as_mut(), &b).is_pending());
    // A spurious re-poll of the first does not send it to the back.
    assert!(poll_with(first.as_mut(), &a).is_pending());
    tx.try_send(5).unwrap();
    assert_eq!((a.count(), b.count()), (1, 0));
    assert_eq!(poll_with(first.as_mut(), &a), Poll::Ready(Some(5)));
}
