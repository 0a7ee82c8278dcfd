//! The bounded channel's two flavours (`channel/shared.rs`): capacities 1 to 4,096 on the
//! lock-free ring, whose receivers move blocked senders in once per batch of `capacity / 16`
//! slots; larger capacities on the locked ring. Deterministic, one thread.

mod channel_util;

use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;

use channel_util::{block_on, poll_with, CountWaker, Counted};
use rt_sync::channel;

/// Capacity 64 (batches of 4): a sender blocked on the full ring is moved in, and woken, by the
/// pop that frees the fourth slot, not before; its value then arrives after the buffered ones.
#[test]
fn blocked_sender_moves_in_at_the_end_of_a_batch() {
    let (tx, rx) = channel::bounded::<u32>(64);
    for v in 0..64 {
        tx.try_send(v).unwrap();
    }
    let waker = CountWaker::new();
    let mut send = pin!(tx.send(64));
    assert!(poll_with(send.as_mut(), &waker).is_pending());
    for v in 0..3 {
        assert_eq!(rx.try_recv(), Ok(v));
        assert_eq!(waker.count(), 0, "not woken before the batch's end");
        assert_eq!(rx.len(), 63 - v as usize);
    }
    assert_eq!(rx.try_recv(), Ok(3));
    assert_eq!(waker.count(), 1, "woken by the batch's last pop");
    assert_eq!(rx.len(), 61, "the blocked value moved in");
    assert_eq!(poll_with(send.as_mut(), &waker), Poll::Ready(Ok(())));
    let rest: Vec<u32> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
    assert_eq!(rest, (4..=64).collect::<Vec<_>>());
}

/// A receiver that empties the ring takes the blocked senders' values, batch or not.
#[test]
fn receiver_finding_the_ring_empty_takes_blocked_values() {
    let (tx, rx) = channel::bounded::<u32>(64);
    for v in 0..64 {
        tx.try_send(v).unwrap();
    }
    let waker = CountWaker::new();
    let mut send = pin!(tx.send(64));
    assert!(poll_with(send.as_mut(), &waker).is_pending());
    let got = block_on(async {
        let mut got = Vec::new();
        for _ in 0..65 {
            got.push(rx.recv().await.unwrap());
        }
        got
    });
    assert_eq!(got, (0..=64).collect::<Vec<_>>());
    assert_eq!(poll_with(send.as_mut(), &waker), Poll::Ready(Ok(())));
}

/// Capacities 1 (every pop refills), 64 (batches), 4,096 (the largest ring) and 5,000 (the
/// locked flavour): fill, block a sender, drain; every value once, in order, and a closed
/// channel drops what is left exactly once.
#[test]
fn each_flavour_fills_blocks_drains_and_drops_once() {
    for cap in [1usize, 64, 4096, 5000] {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = channel::bounded::<Counted>(cap);
        for v in 0..cap as u64 {
            tx.try_send(Counted(v, drops.clone()))
                .unwrap_or_else(|_| panic!("room at {v} of {cap}"));
        }
        assert!(tx.try_send(Counted(u64::MAX, drops.clone())).is_err());
        assert_eq!(
            drops.load(Ordering::SeqCst),
            1,
            "the refused value came back"
        );
        assert_eq!(rx.len(), cap);
        let half = cap.div_ceil(2);
        {
            let waker = CountWaker::new();
            let mut send = pin!(tx.send(Counted(cap as u64, drops.clone())));
            assert!(poll_with(send.as_mut(), &waker).is_pending());
            for v in 0..half as u64 {
                assert_eq!(block_on(rx.recv()).unwrap().0, v);
            }
            assert!(matches!(
                poll_with(send.as_mut(), &waker),
                Poll::Ready(Ok(()))
            ));
        }
        assert_eq!(drops.load(Ordering::SeqCst), 1 + half);
        drop(rx);
        // The last receiver dropped what was buffered, the blocked value included.
        assert_eq!(drops.load(Ordering::SeqCst), cap + 2, "capacity {cap}");
        drop(tx);
        assert_eq!(drops.load(Ordering::SeqCst), cap + 2, "capacity {cap}");
    }
}
