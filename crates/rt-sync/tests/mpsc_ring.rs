//! The bounded `mpsc` queue on its lock-free ring (bounds 1 to 4,096) and above it (the locked
//! queue): order across laps of the ring, a closed receiver that waits for permits still out,
//! values dropped exactly once whichever end drops first, `len`, and many senders.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rt::sync::mpsc::{self, error::TryRecvError};

fn runtime() -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

#[test]
fn order_holds_across_laps_of_the_ring() {
    // 3 slots (a ring of 4), 1 slot (a ring of 2), and one bound above the ring's largest.
    for bound in [1, 3, 4_096, 5_000] {
        let (tx, mut rx) = mpsc::channel::<u32>(bound);
        for v in 0..1_000 {
            tx.try_send(v).unwrap();
            assert_eq!(rx.len(), 1);
            assert_eq!(rx.try_recv(), Ok(v));
            assert!(rx.is_empty());
        }
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        drop(tx);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    }
}

#[test]
fn len_counts_queued_values_and_capacity_the_free_slots() {
    let (tx, mut rx) = mpsc::channel::<u32>(3);
    tx.try_send(1).unwrap();
    tx.try_send(2).unwrap();
    assert_eq!((rx.len(), tx.capacity(), rx.capacity()), (2, 1, 1));
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!((rx.len(), tx.capacity()), (1, 2));
}

#[test]
fn a_closed_receiver_ends_once_the_permits_out_are_back() {
    let rt = runtime();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::channel::<u32>(3);
        tx.try_send(1).unwrap();
        let sending = tx.clone().reserve_owned().await.unwrap();
        let unused = tx.clone().reserve_owned().await.unwrap();
        rx.close();
        assert!(tx.try_send(9).is_err(), "no new sends after close");
        assert_eq!(rx.recv().await, Some(1));
        // Two permits out: the receiver waits for both, on another task.
        let (done_tx, done_rx) = rt::sync::oneshot::channel();
        let recv = rt::spawn(async move {
            let mut got = Vec::new();
            while let Some(v) = rx.recv().await {
                got.push(v);
            }
            let _ = done_tx.send(());
            got
        });
        let _still_open = sending.send(2);
        drop(unused);
        done_rx.await.unwrap();
        assert_eq!(recv.await.unwrap(), [2]);
        // `tx` still lives: the channel ended through the close and the permits alone.
        drop(tx);
    });
}

/// Counts its drops.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn values_are_dropped_once_whichever_end_goes_first() {
    let drops = Arc::new(AtomicUsize::new(0));
    // The receiver first, with values queued and a permit that sends after it is gone.
    let (tx, rx) = mpsc::channel::<Counted>(4);
    tx.try_send(Counted(drops.clone())).ok().unwrap();
    tx.try_send(Counted(drops.clone())).ok().unwrap();
    let permit = tx.try_reserve().unwrap();
    drop(rx);
    assert_eq!(
        drops.load(Ordering::Relaxed),
        2,
        "the receiver's drop drops what is queued"
    );
    permit.send(Counted(drops.clone()));
    drop(tx);
    assert_eq!(
        drops.load(Ordering::Relaxed),
        3,
        "a later send is dropped with the channel"
    );
    // The senders first: the receiver still gets the values, then drops the rest.
    let (tx, mut rx) = mpsc::channel::<Counted>(4);
    for _ in 0..3 {
        tx.try_send(Counted(drops.clone())).ok().unwrap();
    }
    drop(tx);
    drop(rx.try_recv().unwrap());
    assert_eq!(drops.load(Ordering::Relaxed), 4);
    drop(rx);
    assert_eq!(drops.load(Ordering::Relaxed), 6);
}

#[test]
fn many_senders_each_in_order() {
    let rt = runtime();
    for bound in [1, 16, 5_000] {
        let got = rt.block_on(async move {
            let (tx, mut rx) = mpsc::channel::<(u32, u32)>(bound);
            for p in 0..4 {
                let tx = tx.clone();
                rt::spawn(async move {
                    for i in 0..2_000 {
                        tx.send((p, i)).await.unwrap();
                    }
                });
            }
            drop(tx);
            let mut got = Vec::new();
            while let Some(v) = rx.recv().await {
                got.push(v);
            }
            got
        });
        assert_eq!(got.len(), 8_000);
        for p in 0..4 {
            let mine: Vec<u32> = got.iter().filter(|v| v.0 == p).map(|v| v.1).collect();
            assert_eq!(mine, (0..2_000).collect::<Vec<_>>(), "sender {p} in order");
        }
    }
}
