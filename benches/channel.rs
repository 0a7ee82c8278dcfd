//! Channels: rt vs tokio, 2 workers each, side by side.
//!
//! - `ping_pong`: 1,000 pairs of tasks, each pair doing 10 round trips over oneshots.
//!   Also printed: the median rt/tokio ratio of 30 alternating batches (`rt_benches::paired`).
//! - `bounded`: 4 producers x 100,000 `u64` into capacity 1,024, one consumer.
//! - `rendezvous`: 4 producers x 10,000 through rt's capacity 0 (tokio: `mpsc` capacity 1, as
//!   tokio has no rendezvous). For a like-for-like line the group also runs rt at capacity 1:
//!   `rt_cap1` (`rt::sync::channel::bounded(1)`) and `rt_mpsc_cap1` (`rt::sync::mpsc::channel(1)`,
//!   the same code as tokio's line), and smol's MPMC channel on rt's runtime for
//!   `rt::sync::channel`'s peer: `rt_async_channel_cap1` (`async_channel::bounded(1)`).
//! - `unbounded`: 4 producers x 100,000 `u64`, one consumer.
//! - `mpsc_port`: what a port from tokio runs — `rt::sync::mpsc` against `tokio::sync::mpsc`,
//!   same code: 4 producers x 100,000 into `channel(1024)`, the same into `unbounded_channel`,
//!   and 100 pairs of tasks doing 100 round trips each over `channel(1)` pairs. Paired only
//!   (`rt_benches::paired`, 15 alternating rounds each).
//!
//! Run: `cargo bench -p rt-benches --bench channel`

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, SamplingMode};

const PAIRS: usize = 1_000;
const ROUND_TRIPS: usize = 10;
const PRODUCERS: u64 = 4;
const PER_PRODUCER: u64 = 100_000;
const RENDEZVOUS_PER_PRODUCER: u64 = 10_000;
const CAPACITY: usize = 1_024;

fn rt_runtime() -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

fn tokio_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Flat sampling: every sample runs the same number of iterations, so a slow workload
/// (100+ ms under tokio) still fits the time budget with 10 samples.
fn configure(g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, samples: usize) {
    g.sample_size(samples)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
}

/// One ping: the partner answers on `reply` with the sender for the next ping.
macro_rules! ping_pong {
    ($oneshot:path, $spawn:path) => {{
        use $oneshot as oneshot;
        struct Ping(oneshot::Sender<oneshot::Sender<Ping>>);

        async fn partner(mut rx: oneshot::Receiver<Ping>) {
            while let Ok(Ping(reply)) = rx.await {
                let (next_tx, next_rx) = oneshot::channel();
                if reply.send(next_tx).is_err() {
                    return;
                }
                rx = next_rx;
            }
        }

        async fn pinger() {
            let (mut tx, rx) = oneshot::channel();
            $spawn(partner(rx));
            for _ in 0..ROUND_TRIPS {
                let (reply_tx, reply_rx) = oneshot::channel();
                assert!(tx.send(Ping(reply_tx)).is_ok());
                tx = reply_rx.await.unwrap();
            }
        }

        async {
            let handles: Vec<_> = (0..PAIRS).map(|_| $spawn(pinger())).collect();
            for h in handles {
                h.await.unwrap();
            }
        }
    }};
}

fn ping_pong(c: &mut Criterion) {
    let mut g = c.benchmark_group("ping_pong");
    configure(&mut g, 20);
    let rt = rt_runtime();
    g.bench_function("rt", |b| {
        b.iter(|| rt.block_on(ping_pong!(rt::sync::oneshot, rt::spawn)))
    });
    let m = rt.metrics().total();
    println!(
        "rt ping_pong: unparks per poll = {:.5} (unparks {}, polls {}, parks {})",
        m.unparks() as f64 / m.polls().max(1) as f64,
        m.unparks(),
        m.polls(),
        m.parks()
    );
    let tokio = tokio_runtime();
    g.bench_function("tokio", |b| {
        b.iter(|| tokio.block_on(ping_pong!(tokio::sync::oneshot, tokio::spawn)))
    });
    g.finish();
    // The same, alternating batches of 20 iterations (see `rt_benches::paired`).
    rt_benches::paired(
        "ping_pong (x20)",
        30,
        || {
            for _ in 0..20 {
                rt.block_on(ping_pong!(rt::sync::oneshot, rt::spawn));
            }
        },
        || {
            for _ in 0..20 {
                tokio.block_on(ping_pong!(tokio::sync::oneshot, tokio::spawn));
            }
        },
    );
}

/// `PRODUCERS` tasks send `per` values each; one consumer task sums them.
macro_rules! mpsc_workload {
    ($spawn:path, $chan:expr, $per:expr, |$tx:ident, $v:ident| $send:expr, |$rx:ident| $recv:expr) => {
        async {
            #[allow(unused_mut)]
            let (tx, mut $rx) = $chan;
            for p in 0..PRODUCERS {
                let $tx = tx.clone();
                $spawn(async move {
                    for i in 0..$per {
                        let $v = p * $per + i;
                        $send;
                    }
                });
            }
            drop(tx);
            let consumer = $spawn(async move {
                let mut sum = 0u64;
                while let Some(v) = $recv {
                    sum = sum.wrapping_add(v);
                }
                sum
            });
            let n = PRODUCERS * $per;
            assert_eq!(consumer.await.unwrap(), n * (n - 1) / 2);
        }
    };
}

fn bounded(c: &mut Criterion) {
    let mut g = c.benchmark_group("bounded");
    configure(&mut g, 10);
    let rt = rt_runtime();
    g.bench_function("rt", |b| {
        b.iter(|| {
            rt.block_on(mpsc_workload!(
                rt::spawn,
                rt::sync::channel::bounded::<u64>(CAPACITY),
                PER_PRODUCER,
                |tx, v| tx.send(v).await.unwrap(),
                |rx| rx.recv().await
            ))
        })
    });
    let tokio = tokio_runtime();
    g.bench_function("tokio", |b| {
        b.iter(|| {
            tokio.block_on(mpsc_workload!(
                tokio::spawn,
                tokio::sync::mpsc::channel::<u64>(CAPACITY),
                PER_PRODUCER,
                |tx, v| tx.send(v).await.unwrap(),
                |rx| rx.recv().await
            ))
        })
    });
    g.finish();
}

fn rendezvous(c: &mut Criterion) {
    let mut g = c.benchmark_group("rendezvous");
    configure(&mut g, 10);
    let rt = rt_runtime();
    // One line of the group on rt's runtime: `$chan` made fresh per iteration; the receive is
    // `rx.recv().await` unless given.
    macro_rules! on_rt {
        ($name:literal, $chan:expr) => {
            on_rt!($name, $chan, |rx| rx.recv().await)
        };
        ($name:literal, $chan:expr, |$rx:ident| $recv:expr) => {
            g.bench_function($name, |b| {
                b.iter(|| {
                    rt.block_on(mpsc_workload!(
                        rt::spawn,
                        $chan,
                        RENDEZVOUS_PER_PRODUCER,
                        |tx, v| tx.send(v).await.unwrap(),
                        |$rx| $recv
                    ))
                })
            })
        };
    }
    on_rt!("rt", rt::sync::channel::bounded::<u64>(0));
    on_rt!("rt_cap1", rt::sync::channel::bounded::<u64>(1));
    on_rt!("rt_mpsc_cap1", rt::sync::mpsc::channel::<u64>(1));
    on_rt!(
        "rt_async_channel_cap1",
        async_channel::bounded::<u64>(1),
        |rx| { rx.recv().await.ok() }
    );
    let tokio = tokio_runtime();
    g.bench_function("tokio", |b| {
        b.iter(|| {
            tokio.block_on(mpsc_workload!(
                tokio::spawn,
                tokio::sync::mpsc::channel::<u64>(1),
                RENDEZVOUS_PER_PRODUCER,
                |tx, v| tx.send(v).await.unwrap(),
                |rx| rx.recv().await
            ))
        })
    });
    g.finish();
}

fn unbounded(c: &mut Criterion) {
    let mut g = c.benchmark_group("unbounded");
    configure(&mut g, 10);
    let rt = rt_runtime();
    g.bench_function("rt", |b| {
        b.iter(|| {
            rt.block_on(mpsc_workload!(
                rt::spawn,
                rt::sync::channel::unbounded::<u64>(),
                PER_PRODUCER,
                |tx, v| tx.try_send(v).unwrap(),
                |rx| rx.recv().await
            ))
        })
    });
    let tokio = tokio_runtime();
    g.bench_function("tokio", |b| {
        b.iter(|| {
            tokio.block_on(mpsc_workload!(
                tokio::spawn,
                tokio::sync::mpsc::unbounded_channel::<u64>(),
                PER_PRODUCER,
                |tx, v| tx.send(v).unwrap(),
                |rx| rx.recv().await
            ))
        })
    });
    g.finish();
}

/// Two tasks bounce a counter over a pair of `channel(1)`s, `MPSC_TRIPS` times.
macro_rules! mpsc_ping_pong {
    ($mpsc:path, $spawn:path) => {{
        use $mpsc as mpsc;
        async {
            let handles: Vec<_> = (0..MPSC_PAIRS)
                .map(|_| {
                    $spawn(async {
                        let (to_tx, mut to_rx) = mpsc::channel::<u64>(1);
                        let (back_tx, mut back_rx) = mpsc::channel::<u64>(1);
                        $spawn(async move {
                            while let Some(v) = to_rx.recv().await {
                                if back_tx.send(v + 1).await.is_err() {
                                    return;
                                }
                            }
                        });
                        let mut v = 0;
                        for _ in 0..MPSC_TRIPS {
                            to_tx.send(v).await.unwrap();
                            v = back_rx.recv().await.unwrap();
                        }
                        assert_eq!(v, MPSC_TRIPS);
                    })
                })
                .collect();
            for h in handles {
                h.await.unwrap();
            }
        }
    }};
}

const MPSC_PAIRS: usize = 100;
const MPSC_TRIPS: u64 = 100;

fn mpsc_port(_: &mut Criterion) {
    let rt = rt_runtime();
    let tokio = tokio_runtime();
    rt_benches::paired(
        "mpsc_port bounded 4x100,000 cap 1,024",
        15,
        || {
            rt.block_on(mpsc_workload!(
                rt::spawn,
                rt::sync::mpsc::channel::<u64>(CAPACITY),
                PER_PRODUCER,
                |tx, v| tx.send(v).await.unwrap(),
                |rx| rx.recv().await
            ))
        },
        || {
            tokio.block_on(mpsc_workload!(
                tokio::spawn,
                tokio::sync::mpsc::channel::<u64>(CAPACITY),
                PER_PRODUCER,
                |tx, v| tx.send(v).await.unwrap(),
                |rx| rx.recv().await
            ))
        },
    );
    rt_benches::paired(
        "mpsc_port unbounded 4x100,000",
        15,
        || {
            rt.block_on(mpsc_workload!(
                rt::spawn,
                rt::sync::mpsc::unbounded_channel::<u64>(),
                PER_PRODUCER,
                |tx, v| tx.send(v).unwrap(),
                |rx| rx.recv().await
            ))
        },
        || {
            tokio.block_on(mpsc_workload!(
                tokio::spawn,
                tokio::sync::mpsc::unbounded_channel::<u64>(),
                PER_PRODUCER,
                |tx, v| tx.send(v).unwrap(),
                |rx| rx.recv().await
            ))
        },
    );
    rt_benches::paired(
        "mpsc_port ping_pong 100 pairs x 100 trips, channel(1)",
        15,
        || rt.block_on(mpsc_ping_pong!(rt::sync::mpsc, rt::spawn)),
        || tokio.block_on(mpsc_ping_pong!(tokio::sync::mpsc, tokio::spawn)),
    );
}

criterion_group!(benches, ping_pong, bounded, rendezvous, unbounded, mpsc_port);
criterion_main!(benches);
