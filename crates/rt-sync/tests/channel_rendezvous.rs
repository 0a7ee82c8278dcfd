//! A capacity-0 channel is a rendezvous: `send` completes only once a receiver has taken the
//! value, and a send cancelled before that takes its value back.

mod channel_util;

use std::task::Poll;

use channel_util::{poll_with, CountWaker};
use rt_sync::channel::{self, TryRecvError};

#[test]
fn send_waits_until_a_receiver_takes_the_value() {
    let (tx, rx) = channel::bounded::<u32>(0);
    let w = CountWaker::new();
    let mut send = Box::pin(tx.send(1));
    assert!(poll_with(send.as_mut(), &w).is_pending());
    assert!(
        poll_with(send.as_mut(), &w).is_pending(),
        "nobody took it yet"
    );
    assert_eq!(rx.len(), 0);
    assert_eq!(w.count(), 0);
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(w.count(), 1, "the taking receiver wakes the sender");
    assert_eq!(poll_with(send.as_mut(), &w), Poll::Ready(Ok(())));
}

#[test]
fn a_waiting_receiver_is_woken_by_a_sender_and_takes_the_value() {
    let (tx, rx) = channel::bounded::<u32>(0);
    let (rw, sw) = (CountWaker::new(), CountWaker::new());
    let mut recv = Box::pin(rx.recv());
    assert!(poll_with(recv.as_mut(), &rw).is_pending());
    let mut send = Box::pin(tx.send(5));
    assert!(poll_with(send.as_mut(), &sw).is_pending());
    assert_eq!(rw.count(), 1);
    assert_eq!(poll_with(recv.as_mut(), &rw), Poll::Ready(Some(5)));
    assert_eq!(sw.count(), 1);
    assert_eq!(poll_with(send.as_mut(), &sw), Poll::Ready(Ok(())));
}

#[test]
fn cancelled_send_takes_its_value_back() {
    let (tx, rx) = channel::bounded::<u32>(0);
    let (rw, sw) = (CountWaker::new(), CountWaker::new());
    let mut recv = Box::pin(rx.recv());
    assert!(poll_with(recv.as_mut(), &rw).is_pending());
    let mut send = Box::pin(tx.send(5));
    assert!(poll_with(send.as_mut(), &sw).is_pending());
    drop(send);
    // The receiver was woken for the value, but it left with its sender.
    assert_eq!(rw.count(), 1);
    assert!(poll_with(recv.as_mut(), &rw).is_pending());
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    // A later sender is received instead.
    let mut send = Box::pin(tx.send(6));
    assert!(poll_with(send.as_mut(), &sw).is_pending());
    assert_eq!(poll_with(recv.as_mut(), &rw), Poll::Ready(Some(6)));
}
