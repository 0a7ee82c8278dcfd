//! Cancellation at every await point loses and duplicates nothing: a dropped send has not sent,
//! a dropped receive has taken nothing, and a receiver woken but dropped passes its wake-up on.

mod channel_util;

use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::thread;

use channel_util::{block_on, poll_here, poll_with, CountWaker, Counted, Rng};
use rt_sync::channel::{self, TryRecvError};

#[test]
fn woken_then_cancelled_receiver_passes_the_wake_up_on() {
    let (tx, rx) = channel::bounded::<u32>(2);
    let (a, b) = (CountWaker::new(), CountWaker::new());
    let mut first = Box::pin(rx.recv());
    let mut second = Box::pin(rx.recv());
    assert!(poll_with(first.as_mut(), &a).is_pending());
    assert!(poll_with(second.as_mut(), &b).is_pending());
    tx.try_send(1).unwrap();
    assert_eq!((a.count(), b.count()), (1, 0));
    drop(first);
    assert_eq!(b.count(), 1, "the wake-up moved to the next receiver");
    assert_eq!(poll_with(second.as_mut(), &b), Poll::Ready(Some(1)));
}

#[test]
fn queued_receiver_cancelled_before_any_value_takes_nothing() {
    let (tx, rx) = channel::unbounded::<u32>();
    let (a, b) = (CountWaker::new(), CountWaker::new());
    let mut first = Box::pin(rx.recv());
    let mut second = Box::pin(rx.recv());
    assert!(poll_with(first.as_mut(), &a).is_pending());
    assert!(poll_with(second.as_mut(), &b).is_pending());
    drop(first);
    tx.try_send(1).unwrap();
    assert_eq!((a.count(), b.count()), (0, 1));
    assert_eq!(poll_with(second.as_mut(), &b), Poll::Ready(Some(1)));
}

#[test]
fn cancelled_blocked_sender_has_not_sent() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = channel::bounded(1);
    tx.try_send(Counted(0, drops.clone())).unwrap();
    let w = CountWaker::new();
    let mut send = Box::pin(tx.send(Counted(1, drops.clone())));
    assert!(poll_with(send.as_mut(), &w).is_pending());
    drop(send);
    assert_eq!(
        drops.load(Ordering::SeqCst),
        1,
        "the unsent value left with its future"
    );
    assert_eq!(rx.try_recv().map(|c| c.0), Ok(0));
    assert!(matches!(rx.try_recv(), Err(TryRecvError::Empty)));
}

#[test]
fn send_completed_by_a_receiver_but_dropped_unpolled_has_sent() {
    let (tx, rx) = channel::bounded::<u32>(0);
    let w = CountWaker::new();
    let mut send = Box::pin(tx.send(4));
    assert!(poll_with(send.as_mut(), &w).is_pending());
    assert_eq!(rx.try_recv(), Ok(4));
    drop(send);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
}

#[test]
fn blocked_senders_around_a_cancelled_one_complete_only_once_served() {
    let (tx, rx) = channel::bounded::<u32>(0);
    let (a, b, c) = (CountWaker::new(), CountWaker::new(), CountWaker::new());
    let mut first = Box::pin(tx.send(1));
    let mut second = Box::pin(tx.send(2));
    let mut third = Box::pin(tx.send(3));
    assert!(poll_with(first.as_mut(), &a).is_pending());
    assert!(poll_with(second.as_mut(), &b).is_pending());
    assert!(poll_with(third.as_mut(), &c).is_pending());
    drop(second);
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!((a.count(), c.count()), (1, 0));
    assert_eq!(poll_with(first.as_mut(), &a), Poll::Ready(Ok(())));
    assert!(poll_with(third.as_mut(), &c).is_pending(), "not served yet");
    assert_eq!(rx.try_recv(), Ok(3));
    assert_eq!(c.count(), 1);
    assert_eq!(poll_with(third.as_mut(), &c), Poll::Ready(Ok(())));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
}

#[test]
fn each_receive_frees_exactly_one_slot_for_senders() {
    let (tx, rx) = channel::bounded::<u32>(4);
    for i in 0..4 {
        tx.try_send(i).unwrap();
    }
    let w = CountWaker::new();
    let mut blocked = Box::pin(tx.send(9));
    assert!(poll_with(blocked.as_mut(), &w).is_pending());
    for (i, next) in (0..3).zip(4..) {
        assert_eq!(rx.try_recv(), Ok(i));
        if i == 0 {
            assert_eq!(w.count(), 1, "the freed slot went to the blocked sender");
            assert_eq!(poll_with(blocked.as_mut(), &w), Poll::Ready(Ok(())));
            assert!(tx.try_send(next).is_err(), "still full");
        } else {
            tx.try_send(next).unwrap();
            assert!(tx.try_send(99).is_err(), "one slot per receive");
        }
        assert_eq!(rx.len(), 4);
    }
    let rest: Vec<u32> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
    assert_eq!(rest, [3, 9, 5, 6]);
}

/// Polls once; if pending, either drops the future (cancel) or waits for it.
fn poll_or_cancel<F: std::future::Future>(mut fut: Pin<&mut F>, cancel: bool) -> Option<F::Output> {
    match poll_here(fut.as_mut()) {
        Poll::Ready(v) => Some(v),
        Poll::Pending if cancel => None,
        Poll::Pending => Some(block_on(fut)),
    }
}

/// A value that records its drop in a per-id slot.
struct Tracked(u64, Arc<Vec<AtomicUsize>>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.1[self.0 as usize].fetch_add(1, Ordering::SeqCst);
    }
}

/// Producers and consumers on threads, each cancelling a random third of the operations that
/// would wait. Every value is dropped exactly once (by its receiver, or with its cancelled send
/// future); none is received twice; every send that completed was received.
fn stress(cap: Option<usize>, seed: u64) {
    const PRODUCERS: u64 = 3;
    const CONSUMERS: u64 = 3;
    const ATTEMPTS: u64 = 3_000;
    let drops: Arc<Vec<AtomicUsize>> = Arc::new(
        (0..PRODUCERS * ATTEMPTS)
            .map(|_| AtomicUsize::new(0))
            .collect(),
    );
    let (tx, rx) = match cap {
        Some(c) => channel::bounded::<Tracked>(c),
        None => channel::unbounded(),
    };
    let producers: Vec<_> = (0..PRODUCERS)
        .map(|p| {
            let tx = tx.clone();
            let drops = drops.clone();
            thread::spawn(move || {
                let mut rng = Rng::new(seed * 31 + p);
                let mut sent = Vec::new();
                for i in 0..ATTEMPTS {
                    let v = p * ATTEMPTS + i;
                    let fut = std::pin::pin!(tx.send(Tracked(v, drops.clone())));
                    if let Some(r) = poll_or_cancel(fut, rng.one_in(3)) {
                        assert!(r.is_ok());
                        sent.push(v);
                    }
                }
                sent
            })
        })
        .collect();
    drop(tx);
    let consumers: Vec<_> = (0..CONSUMERS)
        .map(|c| {
            let rx = rx.clone();
            thread::spawn(move || {
                let mut rng = Rng::new(seed * 77 + c);
                let mut got = Vec::new();
                loop {
                    let fut = std::pin::pin!(rx.recv());
                    match poll_or_cancel(fut, rng.one_in(3)) {
                        Some(Some(v)) => got.push(v.0),
                        Some(None) => return got,
                        None => {}
                    }
                }
            })
        })
        .collect();
    drop(rx);
    let sent: Vec<u64> = producers
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let mut got: Vec<u64> = consumers
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    got.sort_unstable();
    let before = got.len();
    got.dedup();
    assert_eq!(got.len(), before, "cap {cap:?}: a value was received twice");
    for v in sent {
        assert!(
            got.binary_search(&v).is_ok(),
            "cap {cap:?}: sent value {v} lost"
        );
    }
    for (id, d) in drops.iter().enumerate() {
        assert_eq!(
            d.load(Ordering::SeqCst),
            1,
            "cap {cap:?}: value {id} drop count"
        );
    }
}

#[test]
fn random_cancellation_rendezvous() {
    for seed in 0..4 {
        stress(Some(0), seed);
    }
}

#[test]
fn random_cancellation_bounded() {
    for seed in 0..4 {
        stress(Some(1), seed);
        stress(Some(4), seed);
    }
}

#[test]
fn random_cancellation_unbounded() {
    for seed in 0..2 {
        stress(None, seed);
    }
}
