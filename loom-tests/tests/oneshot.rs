#![cfg(loom)]
//! loom models of the oneshot state word (its layout and rules are in rt-sync's oneshot.rs):
//!
//! * `send_races_recv`: the receiver polls once with one waker, then waits with another (the
//!   waker-replacement path) while the sender sends. The value always arrives; the first poll
//!   finds it ready in some executions and not in others.
//! * `send_races_receiver_drop`: the receiver, after perhaps polling, is dropped while the value
//!   is sent. The value is dropped exactly once; the send succeeds in some executions and comes
//!   back in others.
//! * `send_races_close`: the receiver closes while the value is sent; a send that succeeded is
//!   still received after the close, one that failed is not. Both occur.
//! * `sender_drop_races_recv`: the sender goes away unsent while the receiver waits: the
//!   receiver sees the error (a lost wake-up would deadlock, which loom reports).
//! * `closed_races_receiver_drop`: the sender waits in `closed` (re-polled with a new waker)
//!   while the receiver is dropped; `closed` completes and a later send fails.
//!
//! loom's `UnsafeCell` checks that the two sides never touch a waker or the value at once.

use std::pin::{pin, Pin};
use std::sync::atomic::Ordering::Relaxed as SeenOrder;

use std::task::Poll;

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;

use loom::thread;

use rt_sync::oneshot;

use loom_tests::{block_on, poll_once, seen};

/// Counts its drops in a loom-visible counter.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn send_races_recv() {
    let outcomes = seen::<2>();
    loom::model(move || {
        let (tx, mut rx) = oneshot::channel::<u32>();
        let sender = thread::spawn(move || tx.send(1).unwrap());
        let first = poll_once(Pin::new(&mut rx));
        let ready_at_once = first.is_ready();
        let value = match first {
            Poll::Ready(r) => r,
            Poll::Pending => block_on(rx),
        };
        assert_eq!(value, Ok(1));
        sender.join().unwrap();
        outcomes[ready_at_once as usize].store(true, SeenOrder);
    });
    assert!(outcomes.iter().all(|o| o.load(SeenOrder)));
}

#[test]
fn send_races_receiver_drop() {
    let outcomes = seen::<2>();
    loom::model(move || {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx) = oneshot::channel::<Counted>();
        let sender = {
            let drops = drops.clone();
            thread::spawn(move || tx.send(Counted(drops)).is_ok())
        };
        if let Poll::Ready(r) = poll_once(Pin::new(&mut rx)) {
            assert!(r.is_ok());
            drop(r);
        } else {
            drop(rx);
        }
        let sent = sender.join().unwrap();
        assert_eq!(
            drops.load(Ordering::SeqCst),
            1,
            "the value is dropped exactly once"
        );
        outcomes[sent as usize].store(true, SeenOrder);
    });
    assert!(outcomes.iter().all(|o| o.load(SeenOrder)));
}

#[test]
fn send_races_close() {
    let outcomes = seen::<2>();
    loom::model(move || {
        let (tx, mut rx) = oneshot::channel::<u32>();
        let sender = thread::spawn(move || tx.send(3).is_ok());
        rx.close();
        let sent = sender.join().unwrap();
        let got = rx.try_recv();
        assert_eq!(
            got.is_ok(),
            sent,
            "a value sent before the close is still received"
        );
        if !sent {
            assert_eq!(got, Err(oneshot::TryRecvError::Closed));
        }
        outcomes[sent as usize].store(true, SeenOrder);
    });
    assert!(outcomes.iter().all(|o| o.load(SeenOrder)));
}

#[test]
fn sender_drop_races_recv() {
    loom::model(|| {
        let (tx, rx) = oneshot::channel::<u32>();
        let sender = thread::spawn(move || drop(tx));
        assert!(block_on(rx).is_err());
        sender.join().unwrap();
    });
}

#[test]
fn closed_races_receiver_drop() {
    loom::model(|| {
        let (mut tx, rx) = oneshot::channel::<u32>();
        let receiver = thread::spawn(move || drop(rx));
        {
            let mut closed = pin!(tx.closed());
            if poll_once(closed.as_mut()).is_pending() {
                block_on(closed);
            }
        }
        assert!(tx.is_closed());
        assert_eq!(tx.send(5), Err(5));
        receiver.join().unwrap();
    });
}
