#![cfg(loom)]
//! loom models of the bounded channel on the lock-free slot ring (rt-sync's
//! `channel/mpmc_ring.rs` and the protocol in `channel/ring_chan.rs`, rules 1-6). Under loom every
//! capacity refills in batches of the whole ring (`REFILL_DIVISOR` is 1), so capacity 2 reaches
//! the pops that neither look for blocked senders nor refill.
//!
//! * `send_recv_race_cap1` / `send_recv_race_cap2`: a producer sends three values (it blocks on
//!   a full ring) while a consumer receives until `None`. Every value arrives once, in order: no
//!   lost wake-up on either side (loom reports one as a deadlock).
//! * `two_producers_cap1`: two producers race for the one slot and the blocked queue; each
//!   producer's value arrives once.
//! * `blocked_send_completes_after_one_recv`: capacity 1, full; a sender blocks while the
//!   receiver takes one value and then waits for the send to finish before receiving again.
//!   The store-buffering pair of rules 2 and 3 (the pop's look at `counts.blocked` against the
//!   sender's second look) must move the value in; without either half loom finds the hang.
//! * `close_races_blocked_sender_and_receiver`: capacity 1, full; one sender blocks with a second
//!   value while a receiver drains and waits on the empty ring, and `close` races both. The
//!   blocked send succeeds exactly when its value is received, the waiting receiver sees `None`,
//!   and every value is dropped exactly once; both outcomes occur.
//! * `drop_with_items`: capacity 2; a producer sends two values while the only receiver takes at
//!   most one and is dropped. Each value is dropped exactly once, whether it was received, left
//!   in the ring (dropped by the last receiver or with the channel), or returned by a failed send.
//!
//! Time (LOOM_MAX_PREEMPTIONS=2, release, this 2-core machine): see `docs/BENCHMARKS.md`
//! ("Bounded channel, lock-free ring"); each model well under the 40 s budget.

use std::sync::atomic::Ordering::Relaxed as SeenOrder;

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

use rt_sync::channel;

use loom_tests::{block_on, seen};

fn send_recv_race(cap: usize) {
    loom::model(move || {
        let (tx, rx) = channel::bounded::<u32>(cap);
        let producer = thread::spawn(move || {
            block_on(async {
                for v in 1..=3 {
                    tx.send(v).await.unwrap();
                }
            })
        });
        let got = block_on(async {
            let mut got = Vec::new();
            while let Some(v) = rx.recv().await {
                got.push(v);
            }
            got
        });
        producer.join().unwrap();
        assert_eq!(got, [1, 2, 3], "every value once, in order");
    });
}

#[test]
fn send_recv_race_cap1() {
    send_recv_race(1);
}

#[test]
fn send_recv_race_cap2() {
    send_recv_race(2);
}

#[test]
fn two_producers_cap1() {
    loom::model(|| {
        let (tx, rx) = channel::bounded::<u32>(1);
        let producers: Vec<_> = (1..=2)
            .map(|v| {
                let tx = tx.clone();
                thread::spawn(move || block_on(tx.send(v)).unwrap())
            })
            .collect();
        drop(tx);
        let mut got = block_on(async {
            let mut got = Vec::new();
            while let Some(v) = rx.recv().await {
                got.push(v);
            }
            got
        });
        for p in producers {
            p.join().unwrap();
        }
        got.sort_unstable();
        assert_eq!(got, [1, 2], "each producer's value once");
    });
}

#[test]
fn blocked_send_completes_after_one_recv() {
    loom::model(|| {
        let (tx, rx) = channel::bounded::<u32>(1);
        tx.try_send(1).unwrap();
        let sender = thread::spawn(move || block_on(tx.send(2)).unwrap());
        assert_eq!(block_on(rx.recv()), Some(1));
        // The receiver does not come back until the send is done: the pop's look at the blocked
        // count, or the sender's second look after queueing, must move the value in.
        sender.join().unwrap();
        assert_eq!(rx.try_recv(), Ok(2));
    });
}

/// Counts its drops in a loom-visible counter; carries a value to check order.
struct Counted(u32, Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.1.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn close_races_blocked_sender_and_receiver() {
    let outcomes = seen::<2>();
    loom::model(move || {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = channel::bounded::<Counted>(1);
        tx.try_send(Counted(1, drops.clone()))
            .unwrap_or_else(|_| panic!("room for the first value"));
        let closer = rx.clone();
        let sender = {
            let drops = drops.clone();
            thread::spawn(move || block_on(tx.send(Counted(2, drops))).is_ok())
        };
        let receiver = thread::spawn(move || {
            block_on(async {
                let mut got = Vec::new();
                while let Some(v) = rx.recv().await {
                    got.push(v.0);
                }
                got
            })
        });
        closer.close();
        let sent = sender.join().unwrap();
        let got = receiver.join().unwrap();
        drop(closer);
        let expect: &[u32] = if sent { &[1, 2] } else { &[1] };
        // The first value may also be left in the ring by a close before any receive; the
        // receiver then drains it: `close` keeps buffered values.
        assert_eq!(
            got, expect,
            "the blocked send succeeded exactly when received"
        );
        assert_eq!(drops.load(Ordering::SeqCst), 2, "each value dropped once");
        outcomes[sent as usize].store(true, SeenOrder);
    });
    assert!(
        outcomes.iter().all(|o| o.load(SeenOrder)),
        "the blocked send both succeeds and fails"
    );
}

#[test]
fn drop_with_items() {
    loom::model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = channel::bounded::<Counted>(2);
        let producer = {
            let drops = drops.clone();
            thread::spawn(move || {
                block_on(async {
                    for v in 1..=2 {
                        // A failed send hands the value back, dropped here.
                        let _ = tx.send(Counted(v, drops.clone())).await;
                    }
                })
            })
        };
        let consumer = thread::spawn(move || {
            let got = block_on(rx.recv());
            drop(got);
            // The last receiver: closes and drops what is buffered.
        });
        consumer.join().unwrap();
        producer.join().unwrap();
        assert_eq!(drops.load(Ordering::SeqCst), 2, "each value dropped once");
    });
}
