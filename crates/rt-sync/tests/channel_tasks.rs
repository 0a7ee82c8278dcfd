//! Many tasks on the rt runtime (2 workers) sending and receiving while their operations are
//! cancelled at random by racing them against a few yields: every value is dropped exactly once,
//! none is received twice, every completed send is received.

mod channel_util;

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;

use channel_util::Rng;
use rt_sync::channel;

/// Records its drop in a per-id slot.
struct Tracked(u64, Arc<Vec<AtomicUsize>>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.1[self.0 as usize].fetch_add(1, Ordering::SeqCst);
    }
}

/// Runs `op` until it completes or `yields` yields have passed; `None` means it was cancelled.
async fn race_yields<F: Future>(op: F, yields: u64) -> Option<F::Output> {
    let mut op = pin!(op);
    for _ in 0..=yields {
        let polled = std::future::poll_fn(|cx| Poll::Ready(op.as_mut().poll(cx))).await;
        if let Poll::Ready(v) = polled {
            return Some(v);
        }
        rt::task::yield_now().await;
    }
    None
}

fn run(cap: Option<usize>, seed: u64) {
    const PRODUCERS: u64 = 8;
    const CONSUMERS: u64 = 8;
    const ATTEMPTS: u64 = 500;
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let drops: Arc<Vec<AtomicUsize>> = Arc::new(
        (0..PRODUCERS * ATTEMPTS)
            .map(|_| AtomicUsize::new(0))
            .collect(),
    );
    let (sent, mut got) = rt.block_on(async {
        let (tx, rx) = match cap {
            Some(c) => channel::bounded::<Tracked>(c),
            None => channel::unbounded(),
        };
        let producers: Vec<_> = (0..PRODUCERS)
            .map(|p| {
                let tx = tx.clone();
                let drops = drops.clone();
                rt::spawn(async move {
                    let mut rng = Rng::new(seed * 131 + p);
                    let mut sent = Vec::new();
                    for i in 0..ATTEMPTS {
                        let v = p * ATTEMPTS + i;
                        let patience = rng.next() % 4;
                        if let Some(r) =
                            race_yields(tx.send(Tracked(v, drops.clone())), patience).await
                        {
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
                rt::spawn(async move {
                    let mut rng = Rng::new(seed * 17 + c);
                    let mut got = Vec::new();
                    loop {
                        let patience = rng.next() % 4;
                        match race_yields(rx.recv(), patience).await {
                            Some(Some(v)) => got.push(v.0),
                            Some(None) => return got,
                            None => {}
                        }
                    }
                })
            })
            .collect();
        drop(rx);
        let mut sent = Vec::new();
        for h in producers {
            sent.extend(h.await.unwrap());
        }
        let mut got = Vec::new();
        for h in consumers {
            got.extend(h.await.unwrap());
        }
        (sent, got)
    });
    got.sort_unstable();
    let n = got.len();
    got.dedup();
    assert_eq!(got.len(), n, "cap {cap:?}: a value was received twice");
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
fn rendezvous_tasks_with_cancellation() {
    for seed in 0..3 {
        run(Some(0), seed);
    }
}

#[test]
fn bounded_tasks_with_cancellation() {
    for seed in 0..3 {
        run(Some(1), seed);
        run(Some(16), seed);
    }
}

#[test]
fn unbounded_tasks_with_cancellation() {
    run(None, 0);
}

#[test]
fn stream_and_recv_consumers_share_a_channel() {
    let rt = rt::Runtime::new().unwrap();
    let total = rt.block_on(async {
        let (tx, rx) = channel::bounded::<u64>(4);
        let mut stream = rx.clone();
        let by_stream = rt::spawn(async move {
            let mut sum = 0;
            while let Some(v) = std::future::poll_fn(|cx| {
                futures_core::Stream::poll_next(std::pin::Pin::new(&mut stream), cx)
            })
            .await
            {
                sum += v;
            }
            sum
        });
        let by_recv = rt::spawn(async move {
            let mut sum = 0;
            while let Some(v) = rx.recv().await {
                sum += v;
            }
            sum
        });
        for i in 1..=1000 {
            tx.send(i).await.unwrap();
        }
        drop(tx);
        by_stream.await.unwrap() + by_recv.await.unwrap()
    });
    assert_eq!(total, 1000 * 1001 / 2);
}
