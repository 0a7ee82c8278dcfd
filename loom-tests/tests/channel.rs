#![cfg(loom)]
//! loom models of the MPMC channel's hand-off protocol (rules 1-7 in rt-sync's channel/chan.rs):
//!
//! * `bounded_send_recv_close`: capacity 1; a producer sends two values while a consumer
//!   receives until `None` and a third thread closes. Every value whose send succeeded is
//!   received, in order, and nothing else; 0, 1 and 2 values received all occur.
//! * `rendezvous_send_recv_close`: capacity 0; one send, one receive, one close. The send
//!   succeeds exactly when the receiver got the value; both outcomes occur.
//! * `rendezvous_cancelled_send`: capacity 0; the sender polls once and drops its future while
//!   a receiver waits. The value is received or returned, never both, and dropped exactly once.
//! * `bounded_cancelled_blocked_send`: capacity 1, full; a sender polls once and drops its future
//!   while a receiver takes the buffered value and refills the ring from the blocked sender. The
//!   value is received or goes back with the future, never both, and is dropped exactly once;
//!   both occur.
//! * `woken_receiver_cancelled_passes_wake_on`: capacity 1; two receivers, one of which polls
//!   once and is dropped, possibly after being woken. The other still gets the value (a lost
//!   wake-up would deadlock, which loom reports).
//! * `full_channel_receiver_drains_head_while_sender_blocks` / `full_ring_...`: below.
//!
//! Capacities 1 and 2 run on the lock-free ring (`ring_chan.rs`, the same rules; its own models
//! are in `channel_ring.rs`), capacities 0 and 3 on `chan.rs`'s locked flavour (under loom
//! `RING_MAX` is 2).

use std::pin::pin;

use std::sync::atomic::Ordering::Relaxed as SeenOrder;

use std::task::Poll;

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;

use loom::thread;

use rt_sync::channel;

use loom_tests::{block_on, poll_once, seen};

#[test]
fn bounded_send_recv_close() {
    let outcomes = seen::<3>();
    loom::model(move || {
        let (tx, rx) = channel::bounded::<u32>(1);
        let closer = tx.clone();
        let producer = thread::spawn(move || {
            block_on(async {
                let mut sent = Vec::new();
                for v in 1..=2 {
                    if tx.send(v).await.is_ok() {
                        sent.push(v);
                    }
                }
                sent
            })
        });
        let consumer = thread::spawn(move || {
            block_on(async {
                let mut got = Vec::new();
                while let Some(v) = rx.recv().await {
                    got.push(v);
                }
                got
            })
        });
        closer.close();
        let sent = producer.join().unwrap();
        let got = consumer.join().unwrap();
        assert_eq!(got, sent, "received exactly the values sent, in order");
        outcomes[got.len()].store(true, SeenOrder);
    });
    assert!(
        outcomes.iter().all(|o| o.load(SeenOrder)),
        "0, 1 and 2 received all occur"
    );
}

#[test]
fn rendezvous_send_recv_close() {
    let outcomes = seen::<2>();
    loom::model(move || {
        let (tx, rx) = channel::bounded::<u32>(0);
        let closer = rx.clone();
        let sender = thread::spawn(move || block_on(tx.send(7)).is_ok());
        let receiver = thread::spawn(move || block_on(rx.recv()));
        closer.close();
        let sent = sender.join().unwrap();
        let got = receiver.join().unwrap();
        assert_eq!(
            sent,
            got == Some(7),
            "send completes exactly when the value was taken"
        );
        outcomes[sent as usize].store(true, SeenOrder);
    });
    assert!(outcomes.iter().all(|o| o.load(SeenOrder)));
}

/// Counts its drops in a loom-visible counter.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn rendezvous_cancelled_send() {
    let outcomes = seen::<2>();
    loom::model(move || {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = channel::bounded::<Counted>(0);
        let sender = {
            let drops = drops.clone();
            thread::spawn(move || {
                let fut = pin!(tx.send(Counted(drops)));
                // A rendezvous send never completes on its first poll: it waits to be taken.
                assert!(poll_once(fut).is_pending());
                // The future is dropped here (cancelled), then the last sender closes.
            })
        };
        let got = block_on(rx.recv());
        let received = got.is_some();
        drop(got);
        sender.join().unwrap();
        assert_eq!(
            drops.load(Ordering::SeqCst),
            1,
            "the value is dropped exactly once"
        );
        outcomes[received as usize].store(true, SeenOrder);
    });
    assert!(
        outcomes.iter().all(|o| o.load(SeenOrder)),
        "taken and cancelled both occur"
    );
}

#[test]
fn bounded_cancelled_blocked_send() {
    let outcomes = seen::<2>();
    loom::model(move || {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = channel::bounded::<Counted>(1);
        tx.try_send(Counted(drops.clone())).unwrap();
        let sender = {
            let drops = drops.clone();
            thread::spawn(move || {
                let fut = pin!(tx.send(Counted(drops)));
                // Unless the receiver made room already, the send waits; then it is cancelled
                // (dropped here), and the last sender closes.
                poll_once(fut).is_ready()
            })
        };
        drop(block_on(rx.recv()).expect("the buffered value"));
        let second = block_on(rx.recv());
        let received = second.is_some();
        drop(second);
        let sent_at_once = sender.join().unwrap();
        assert!(received || !sent_at_once, "a completed send is received");
        assert_eq!(
            drops.load(Ordering::SeqCst),
            2,
            "each value is dropped exactly once"
        );
        outcomes[received as usize].store(true, SeenOrder);
    });
    assert!(
        outcomes.iter().all(|o| o.load(SeenOrder)),
        "refilled and cancelled both occur"
    );
}

#[test]
fn woken_receiver_cancelled_passes_wake_on() {
    let outcomes = seen::<2>();
    loom::model(move || {
        let (tx, rx) = channel::bounded::<u32>(1);
        let rx2 = rx.clone();
        let quitter = thread::spawn(move || {
            let fut = pin!(rx2.recv());
            matches!(poll_once(fut), Poll::Ready(Some(_)))
        });
        let stayer = thread::spawn(move || block_on(rx.recv()));
        tx.try_send(1).unwrap();
        let quitter_got = quitter.join().unwrap();
        if quitter_got {
            drop(tx); // lets the stayer see `None`
        }
        let stayer_got = stayer.join().unwrap();
        assert_eq!(
            stayer_got.is_some(),
            !quitter_got,
            "exactly one receiver gets the value"
        );
        outcomes[quitter_got as usize].store(true, SeenOrder);
    });
    assert!(outcomes.iter().all(|o| o.load(SeenOrder)));
}

/// Capacity 3 (the locked flavour: under loom the lock-free ring stops at 2), filled: a receiver
/// drains the receive-side ring (`head`) while a sender, seeing the channel full, blocks at the
/// same moment (the two-lock hand-off of rules in chan.rs). The send must complete (a lost
/// wake-up deadlocks, which loom reports) and every value arrives once, in order. Capacity 2
/// runs the same on the lock-free ring (`ring_chan.rs`).
#[test]
fn full_channel_receiver_drains_head_while_sender_blocks() {
    full_channel_drain(3);
}

#[test]
fn full_ring_receiver_drains_while_sender_blocks() {
    full_channel_drain(2);
}

fn full_channel_drain(cap: u32) {
    loom::model(move || {
        let (tx, rx) = channel::bounded::<u32>(cap as usize);
        block_on(async {
            for v in 1..=cap {
                tx.send(v).await.unwrap();
            }
        });
        let producer = thread::spawn(move || block_on(tx.send(cap + 1)).is_ok());
        let got = block_on(async {
            let mut got = Vec::new();
            while let Some(v) = rx.recv().await {
                got.push(v);
            }
            got
        });
        assert!(producer.join().unwrap());
        assert_eq!(got, (1..=cap + 1).collect::<Vec<_>>());
    });
}
