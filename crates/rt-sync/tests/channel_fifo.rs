//! Values from one producer arrive in the order sent, whatever the capacity and the number of
//! producers and consumers; every value arrives exactly once.

mod channel_util;

use std::thread;

use channel_util::block_on;
use rt_sync::channel::{self, Receiver, Sender};

const PRODUCERS: u64 = 4;
const PER_PRODUCER: u64 = 2_000;

fn produce(tx: Sender<(u64, u64)>) -> Vec<thread::JoinHandle<()>> {
    (0..PRODUCERS)
        .map(|p| {
            let tx = tx.clone();
            thread::spawn(move || {
                block_on(async {
                    for i in 0..PER_PRODUCER {
                        tx.send((p, i)).await.unwrap();
                    }
                })
            })
        })
        .collect()
}

/// One consumer: each producer's sequence is strictly increasing and complete.
fn single_consumer(tx: Sender<(u64, u64)>, rx: Receiver<(u64, u64)>) {
    let producers = produce(tx);
    let mut next = vec![0; PRODUCERS as usize];
    block_on(async {
        while let Some((p, i)) = rx.recv().await {
            assert_eq!(next[p as usize], i, "producer {p} out of order");
            next[p as usize] += 1;
        }
    });
    for h in producers {
        h.join().unwrap();
    }
    assert!(next.iter().all(|&n| n == PER_PRODUCER));
}

#[test]
fn bounded_one_consumer_keeps_each_producers_order() {
    for cap in [1, 2, 16, 1024] {
        let (tx, rx) = channel::bounded(cap);
        single_consumer(tx, rx);
    }
}

#[test]
fn rendezvous_one_consumer_keeps_each_producers_order() {
    let (tx, rx) = channel::bounded(0);
    single_consumer(tx, rx);
}

#[test]
fn unbounded_one_consumer_keeps_each_producers_order() {
    let (tx, rx) = channel::unbounded();
    single_consumer(tx, rx);
}

/// Several consumers: each consumer sees each producer's values in increasing order, and the
/// union is every value exactly once.
#[test]
fn many_consumers_each_see_order_and_all_values_arrive_once() {
    for cap in [0, 1, 8] {
        let (tx, rx) = channel::bounded::<(u64, u64)>(cap);
        let producers = produce(tx);
        let consumers: Vec<_> = (0..3)
            .map(|_| {
                let rx = rx.clone();
                thread::spawn(move || {
                    let mut got = Vec::new();
                    block_on(async {
                        while let Some(v) = rx.recv().await {
                            got.push(v);
                        }
                    });
                    got
                })
            })
            .collect();
        drop(rx);
        for h in producers {
            h.join().unwrap();
        }
        let mut seen = vec![vec![false; PER_PRODUCER as usize]; PRODUCERS as usize];
        for h in consumers {
            let got = h.join().unwrap();
            let mut last = vec![None; PRODUCERS as usize];
            for (p, i) in got {
                assert!(
                    last[p as usize] < Some(i),
                    "consumer saw producer {p} out of order"
                );
                last[p as usize] = Some(i);
                assert!(!seen[p as usize][i as usize], "duplicate value");
                seen[p as usize][i as usize] = true;
            }
        }
        assert!(seen.iter().flatten().all(|&s| s), "lost value (cap {cap})");
    }
}

#[test]
fn try_send_and_try_recv_are_fifo() {
    let (tx, rx) = channel::bounded(3);
    for i in 0..3 {
        tx.try_send(i).unwrap();
    }
    assert_eq!(tx.len(), 3);
    assert!(matches!(
        tx.try_send(9),
        Err(channel::TrySendError::Full(9))
    ));
    for i in 0..3 {
        assert_eq!(rx.try_recv(), Ok(i));
    }
    assert_eq!(rx.try_recv(), Err(channel::TryRecvError::Empty));
    assert!(rx.is_empty());
}
