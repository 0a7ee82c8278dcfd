#![cfg(loom)]
//! loom models of the bounded `mpsc` channel on its lock-free ring (rt-sync's `mpsc/ring.rs`,
//! rules 1-4, with the slot semaphore and the send word of `mpsc/mod.rs` as they ship):
//!
//! * `send_recv_wake_cap1`: a producer sends three values into `channel(1)` (waiting on the slot
//!   semaphore for each after the first) while the receiver receives until `None`. Every value
//!   arrives once, in order: no lost wake-up either way (loom reports one as a deadlock), and a
//!   freed slot is seen by the push its permit goes to (rule 1's accounting; a push that spun
//!   forever would be reported too).
//! * `half_written_slot`: two producers send one value each into `channel(2)` while the receiver
//!   receives until `None`. One producer may claim the first position and publish after the
//!   second: the receiver must treat the unpublished slot as "nothing yet" and be woken by its
//!   publish, not report `None`; both values arrive, once.
//! * `permit_races_close`: a producer reserves a permit and sends through it while the receiver
//!   closes; a second sender stays alive. The receiver gets the value exactly when the reserve
//!   succeeded, then `None` (the ring is closed once the close and the permit are both done),
//!   and both outcomes occur.
//! * `closed_receiver_waits_for_unused_permit`: a permit is out (held by a second sender, in
//!   an `OwnedPermit`) while the receiver closes and waits; the permit is dropped unused on
//!   another thread. The receiver must see `None` once the permit is back: the ring's receiver
//!   waits for every slot to come back after a close, and a dropped permit wakes it.
//! * `closed_receiver_woken_by_the_last_of_two_permits`: the same with two permits dropped on
//!   two threads at once. Only the permit that leaves the channel idle wakes the receiver (as
//!   tokio's), so of two concurrent returns the later must see the earlier and the close, and
//!   wake: a receiver left parked is reported as a deadlock.
//! * `receiver_drop_races_permit`: a producer holding a permit sends while the receiver, having
//!   received one value, is dropped. Each value is dropped exactly once: received, drained by
//!   the receiver's drop, or left in the ring for its `Drop`.

use std::sync::atomic::AtomicUsize as StdAtomicUsize;
use std::sync::atomic::Ordering::Relaxed as SeenOrder;
use std::sync::Arc as StdArc;

use loom::thread;

use loom_tests::{block_on, seen};
use rt_sync::mpsc;

#[test]
fn send_recv_wake_cap1() {
    loom::model(|| {
        let (tx, mut rx) = mpsc::channel::<u32>(1);
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
fn half_written_slot() {
    loom::model(|| {
        let (tx, mut rx) = mpsc::channel::<u32>(2);
        let tx2 = tx.clone();
        let a = thread::spawn(move || tx.try_send(1).is_ok());
        let b = thread::spawn(move || tx2.try_send(2).is_ok());
        let mut got = block_on(async {
            let mut got = Vec::new();
            while let Some(v) = rx.recv().await {
                got.push(v);
            }
            got
        });
        assert!(
            a.join().unwrap() && b.join().unwrap(),
            "two slots, two sends"
        );
        got.sort_unstable();
        assert_eq!(got, [1, 2], "both values once");
    });
}

#[test]
fn permit_races_close() {
    let outcomes = seen::<2>();
    loom::model(move || {
        let (tx, mut rx) = mpsc::channel::<u32>(1);
        let tx2 = tx.clone();
        let sender = thread::spawn(move || match tx2.try_reserve() {
            Ok(permit) => {
                permit.send(7);
                true
            }
            Err(_) => false,
        });
        rx.close();
        let got = block_on(rx.recv());
        let sent = sender.join().unwrap();
        assert_eq!(got, sent.then_some(7));
        assert_eq!(block_on(rx.recv()), None);
        outcomes[usize::from(sent)].store(true, SeenOrder);
        drop(tx);
    });
    assert!(
        outcomes.iter().all(|o| o.load(SeenOrder)),
        "both outcomes occur"
    );
}

#[test]
fn closed_receiver_waits_for_unused_permit() {
    loom::model(|| {
        let (tx, mut rx) = mpsc::channel::<u32>(1);
        let permit = tx.clone().try_reserve_owned().ok().unwrap();
        let holder = thread::spawn(move || drop(permit));
        rx.close();
        assert_eq!(block_on(rx.recv()), None);
        holder.join().unwrap();
        // `tx` is still alive: only the close and the permit's return can end the channel.
        drop(tx);
    });
}

#[test]
fn closed_receiver_woken_by_the_last_of_two_permits() {
    loom::model(|| {
        let (tx, mut rx) = mpsc::channel::<u32>(2);
        let a = tx.clone().try_reserve_owned().ok().unwrap();
        let b = tx.clone().try_reserve_owned().ok().unwrap();
        let holder_a = thread::spawn(move || drop(a));
        let holder_b = thread::spawn(move || drop(b));
        rx.close();
        assert_eq!(block_on(rx.recv()), None);
        holder_a.join().unwrap();
        holder_b.join().unwrap();
        drop(tx);
    });
}

/// Counts its drops.
struct Counted(StdArc<StdAtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeenOrder);
    }
}

#[test]
fn receiver_drop_races_permit() {
    loom::model(|| {
        let drops = StdArc::new(StdAtomicUsize::new(0));
        let (tx, mut rx) = mpsc::channel::<Counted>(2);
        tx.try_send(Counted(drops.clone())).ok().unwrap();
        let d = drops.clone();
        let producer = thread::spawn(move || {
            if let Ok(permit) = tx.try_reserve() {
                permit.send(Counted(d));
            } else {
                // The receiver closed first: the value was never made, so count it here.
                d.fetch_add(1, SeenOrder);
            }
        });
        drop(block_on(rx.recv()));
        drop(rx);
        producer.join().unwrap();
        assert_eq!(drops.load(SeenOrder), 2, "each value dropped exactly once");
    });
}
