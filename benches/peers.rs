//! rt against every peer a user would pick instead, in one process and one run, 2 workers each:
//! tokio, and smol's pieces — `async-executor` (a leaked `&'static Executor` run by 2 threads),
//! `async-channel`, `async-lock`, `async-io` (timers, TCP).
//!
//! Every workload is measured with `rt_benches::paired_n`: rotating rounds, the median of the
//! per-round `rt/tokio` and `rt/best_peer` ratios. `mutex` also prints the longest time any one
//! `lock().await` waited, over many short rounds (the workload is bimodal: the 8 tasks land on
//! one worker or on both). `sleep_lateness` prints p50/p99 lateness of 1 ms sleeps (no ratio).
//! No workload here is single-threaded, so `LocalExecutor` has no entry.
//!
//! Run: `cargo bench -p rt-benches --bench peers` (or `-- NAME` for the workloads whose name
//! contains NAME).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use async_executor::Executor;
use futures_lite::{AsyncReadExt, AsyncWriteExt};
use rt_benches::{paired_n, static_executor, yield_now};

const SPAWNS: usize = 10_000;
const YIELD_TASKS: usize = 200;
const YIELDS: usize = 1_000;
const CHAIN: usize = 1_000;
const PAIRS: usize = 1_000;
const TRIPS: usize = 10;
const PRODUCERS: u64 = 4;
const PER_PRODUCER: u64 = 100_000;
const CAPACITY: usize = 1_024;
const LOCK_TASKS: usize = 8;
const LOCK_OPS: usize = 10_000;
const TIMERS: usize = 10_000;
const CONNECTIONS: usize = 50;
const ECHO_TRIPS: usize = 2_000;
const MESSAGE: usize = 64;

type Ex = &'static Executor<'static>;

struct Runtimes {
    rt: rt::Runtime,
    tokio: tokio::runtime::Runtime,
    ex: Ex,
}

impl Runtimes {
    fn new() -> Runtimes {
        Runtimes {
            rt: rt::Builder::new_multi_thread()
                .worker_threads(2)
                .build()
                .unwrap(),
            tokio: tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap(),
            ex: static_executor(2),
        }
    }

    /// Runs `f` as a task on the peer executor and waits for it from this (non-worker) thread.
    fn smol<T: Send + 'static>(&self, f: impl std::future::Future<Output = T> + Send + 'static) -> T {
        async_io::block_on(self.ex.spawn(f))
    }
}

fn spawn_many_local(r: &Runtimes) {
    let ex = r.ex;
    paired_n(
        "spawn_many_local (x20)",
        30,
        &mut [
            ("rt", &mut || {
                for _ in 0..20 {
                    r.rt.block_on(async {
                        rt::spawn(async {
                            let hs: Vec<_> = (0..SPAWNS).map(|_| rt::spawn(async {})).collect();
                            for h in hs {
                                h.await.unwrap();
                            }
                        })
                        .await
                        .unwrap()
                    })
                }
            }),
            ("tokio", &mut || {
                for _ in 0..20 {
                    r.tokio.block_on(async {
                        tokio::spawn(async {
                            let hs: Vec<_> =
                                (0..SPAWNS).map(|_| tokio::spawn(async {})).collect();
                            for h in hs {
                                h.await.unwrap();
                            }
                        })
                        .await
                        .unwrap()
                    })
                }
            }),
            ("async-executor", &mut || {
                for _ in 0..20 {
                    r.smol(async move {
                        let hs: Vec<_> = (0..SPAWNS).map(|_| ex.spawn(async {})).collect();
                        for h in hs {
                            h.await;
                        }
                    })
                }
            }),
        ],
    );
}

/// Spawns `SPAWNS` counting tasks through `spawn` from this thread and waits for the last.
fn remote(spawn: &dyn Fn(Box<dyn FnOnce() + Send>)) {
    let (tx, rx) = mpsc::sync_channel(1);
    let rem = Arc::new(AtomicUsize::new(SPAWNS));
    for _ in 0..SPAWNS {
        let (tx, rem) = (tx.clone(), rem.clone());
        spawn(Box::new(move || {
            if rem.fetch_sub(1, Ordering::Relaxed) == 1 {
                tx.send(()).unwrap();
            }
        }));
    }
    rx.recv().unwrap();
}

fn spawn_many_remote(r: &Runtimes) {
    paired_n(
        "spawn_many_remote (x20)",
        30,
        &mut [
            ("rt", &mut || {
                for _ in 0..20 {
                    remote(&|f| drop(r.rt.spawn(async move { f() })))
                }
            }),
            ("tokio", &mut || {
                for _ in 0..20 {
                    remote(&|f| drop(r.tokio.spawn(async move { f() })))
                }
            }),
            ("async-executor", &mut || {
                for _ in 0..20 {
                    remote(&|f| r.ex.spawn(async move { f() }).detach())
                }
            }),
        ],
    );
}

fn yield_many(r: &Runtimes) {
    let ex = r.ex;
    paired_n(
        "yield_many",
        20,
        &mut [
            ("rt", &mut || {
                r.rt.block_on(async {
                    let hs: Vec<_> = (0..YIELD_TASKS)
                        .map(|_| {
                            rt::spawn(async {
                                for _ in 0..YIELDS {
                                    rt::task::yield_now().await;
                                }
                            })
                        })
                        .collect();
                    for h in hs {
                        h.await.unwrap();
                    }
                })
            }),
            ("tokio", &mut || {
                r.tokio.block_on(async {
                    let hs: Vec<_> = (0..YIELD_TASKS)
                        .map(|_| {
                            tokio::spawn(async {
                                for _ in 0..YIELDS {
                                    tokio::task::yield_now().await;
                                }
                            })
                        })
                        .collect();
                    for h in hs {
                        h.await.unwrap();
                    }
                })
            }),
            ("async-executor", &mut || {
                r.smol(async move {
                    let hs: Vec<_> = (0..YIELD_TASKS)
                        .map(|_| {
                            ex.spawn(async {
                                for _ in 0..YIELDS {
                                    yield_now().await;
                                }
                            })
                        })
                        .collect();
                    for h in hs {
                        h.await;
                    }
                })
            }),
        ],
    );
}

fn rt_chain(n: usize, tx: mpsc::SyncSender<()>) {
    if n == 0 {
        tx.send(()).unwrap();
    } else {
        rt::spawn(async move { rt_chain(n - 1, tx) });
    }
}

fn tokio_chain(n: usize, tx: mpsc::SyncSender<()>) {
    if n == 0 {
        tx.send(()).unwrap();
    } else {
        tokio::spawn(async move { tokio_chain(n - 1, tx) });
    }
}

fn ex_chain(ex: Ex, n: usize, tx: mpsc::SyncSender<()>) {
    if n == 0 {
        tx.send(()).unwrap();
    } else {
        ex.spawn(async move { ex_chain(ex, n - 1, tx) }).detach();
    }
}

fn chained_spawn(r: &Runtimes) {
    let ex = r.ex;
    paired_n(
        "chained_spawn (x20)",
        30,
        &mut [
            ("rt", &mut || {
                for _ in 0..20 {
                    let (tx, rx) = mpsc::sync_channel(1);
                    r.rt.spawn(async move { rt_chain(CHAIN, tx) });
                    rx.recv().unwrap();
                }
            }),
            ("tokio", &mut || {
                for _ in 0..20 {
                    let (tx, rx) = mpsc::sync_channel(1);
                    r.tokio.spawn(async move { tokio_chain(CHAIN, tx) });
                    rx.recv().unwrap();
                }
            }),
            ("async-executor", &mut || {
                for _ in 0..20 {
                    let (tx, rx) = mpsc::sync_channel(1);
                    ex.spawn(async move { ex_chain(ex, CHAIN, tx) }).detach();
                    rx.recv().unwrap();
                }
            }),
        ],
    );
}

/// `PAIRS` pingers each do `TRIPS` round trips with a partner task through one-shot channels (for
/// the peer: an `async-channel` of capacity 1, used once); each reply carries the sender for the
/// next ping, a recursive type.
mod pp {
    pub struct RtTx(pub rt::sync::oneshot::Sender<RtTx>);
    pub struct TkTx(pub tokio::sync::oneshot::Sender<TkTx>);
    pub struct AcTx(pub async_channel::Sender<AcTx>);
}

fn ping_pong(r: &Runtimes) {
    use pp::*;
    let ex = r.ex;
    paired_n(
        "ping_pong (x20)",
        30,
        &mut [
            ("rt", &mut || {
                for _ in 0..20 {
                    r.rt.block_on(async {
                        let hs: Vec<_> = (0..PAIRS)
                            .map(|_| {
                                rt::spawn(async {
                                    let (tx, mut rx) = rt::sync::oneshot::channel::<RtTx>();
                                    rt::spawn(async move {
                                        while let Ok(RtTx(reply)) = rx.await {
                                            let (ntx, nrx) = rt::sync::oneshot::channel();
                                            if reply.send(RtTx(ntx)).is_err() {
                                                return;
                                            }
                                            rx = nrx;
                                        }
                                    });
                                    let mut tx = tx;
                                    for _ in 0..TRIPS {
                                        let (rtx, rrx) = rt::sync::oneshot::channel();
                                        assert!(tx.send(RtTx(rtx)).is_ok());
                                        tx = rrx.await.unwrap().0;
                                    }
                                })
                            })
                            .collect();
                        for h in hs {
                            h.await.unwrap();
                        }
                    })
                }
            }),
            ("tokio", &mut || {
                for _ in 0..20 {
                    r.tokio.block_on(async {
                        let hs: Vec<_> = (0..PAIRS)
                            .map(|_| {
                                tokio::spawn(async {
                                    let (tx, mut rx) = tokio::sync::oneshot::channel::<TkTx>();
                                    tokio::spawn(async move {
                                        while let Ok(TkTx(reply)) = rx.await {
                                            let (ntx, nrx) = tokio::sync::oneshot::channel();
                                            if reply.send(TkTx(ntx)).is_err() {
                                                return;
                                            }
                                            rx = nrx;
                                        }
                                    });
                                    let mut tx = tx;
                                    for _ in 0..TRIPS {
                                        let (rtx, rrx) = tokio::sync::oneshot::channel();
                                        assert!(tx.send(TkTx(rtx)).is_ok());
                                        tx = rrx.await.unwrap().0;
                                    }
                                })
                            })
                            .collect();
                        for h in hs {
                            h.await.unwrap();
                        }
                    })
                }
            }),
            ("async-executor", &mut || {
                for _ in 0..20 {
                    r.smol(async move {
                        let hs: Vec<_> = (0..PAIRS)
                            .map(|_| {
                                ex.spawn(async move {
                                    let (tx, rx) = async_channel::bounded::<AcTx>(1);
                                    ex.spawn(async move {
                                        let mut rx = rx;
                                        while let Ok(AcTx(reply)) = rx.recv().await {
                                            let (ntx, nrx) = async_channel::bounded(1);
                                            if reply.try_send(AcTx(ntx)).is_err() {
                                                return;
                                            }
                                            rx = nrx;
                                        }
                                    })
                                    .detach();
                                    let mut tx = tx;
                                    for _ in 0..TRIPS {
                                        let (rtx, rrx) = async_channel::bounded(1);
                                        assert!(tx.try_send(AcTx(rtx)).is_ok());
                                        tx = rrx.recv().await.unwrap().0;
                                    }
                                })
                            })
                            .collect();
                        for h in hs {
                            h.await;
                        }
                    })
                }
            }),
        ],
    );
}
