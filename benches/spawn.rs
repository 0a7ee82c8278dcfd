//! Spawning and scheduling: rt vs tokio, 2 workers each, side by side.
//!
//! Run: `cargo bench -p rt-benches --bench spawn`

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};

const SPAWNS: usize = 10_000;
const YIELD_TASKS: usize = 200;
const YIELDS: usize = 1_000;
const CHAIN: usize = 1_000;

fn rt_runtime(pool: bool) -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(2)
        .frame_pool(pool)
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

/// A task spawns `SPAWNS` trivial tasks and joins them.
fn rt_spawn_many_local(rt: &rt::Runtime) {
    rt.block_on(async {
        rt::spawn(async {
            let mut hs = Vec::with_capacity(SPAWNS);
            for _ in 0..SPAWNS {
                hs.push(rt::spawn(async {}));
            }
            for h in hs {
                h.await.unwrap();
            }
        })
        .await
        .unwrap()
    })
}

fn spawn_many_local(c: &mut Criterion) {
    let mut g = c.benchmark_group("spawn_many_local");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    let rt = rt_runtime(true);
    g.bench_function("rt", |b| b.iter(|| rt_spawn_many_local(&rt)));
    let m = rt.metrics().total();
    println!(
        "rt spawn_many_local: unparks per spawn = {:.5} (unparks {}, polls {})",
        m.unparks() as f64 / m.polls().max(1) as f64,
        m.unparks(),
        m.polls()
    );
    let rt_nopool = rt_runtime(false);
    g.bench_function("rt_no_pool", |b| b.iter(|| rt_spawn_many_local(&rt_nopool)));
    let tk = tokio_runtime();
    g.bench_function("tokio", |b| b.iter(|| tokio_spawn_many_local(&tk)));
    g.finish();
    // The same, alternating batches of 50 iterations (see `rt_benches::paired`).
    rt_benches::paired(
        "spawn_many_local (x50)",
        30,
        || (0..50).for_each(|_| rt_spawn_many_local(&rt)),
        || (0..50).for_each(|_| tokio_spawn_many_local(&tk)),
    );
}

fn tokio_spawn_many_local(tk: &tokio::runtime::Runtime) {
    tk.block_on(async {
        tokio::spawn(async {
            let mut hs = Vec::with_capacity(SPAWNS);
            for _ in 0..SPAWNS {
                hs.push(tokio::spawn(async {}));
            }
            for h in hs {
                h.await.unwrap();
            }
        })
        .await
        .unwrap()
    })
}

fn spawn_many_remote(c: &mut Criterion) {
    let mut g = c.benchmark_group("spawn_many_remote");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    let rt = rt_runtime(true);
    g.bench_function("rt", |b| {
        b.iter(|| {
            let (tx, rx) = mpsc::sync_channel(1);
            let rem = Arc::new(AtomicUsize::new(SPAWNS));
            for _ in 0..SPAWNS {
                let (tx, rem) = (tx.clone(), rem.clone());
                rt.spawn(async move {
                    if rem.fetch_sub(1, Ordering::Relaxed) == 1 {
                        tx.send(()).unwrap();
                    }
                });
            }
            rx.recv().unwrap();
        })
    });
    let m = rt.metrics().total();
    println!(
        "rt spawn_many_remote: unparks per spawn = {:.5} (unparks {}, polls {})",
        m.unparks() as f64 / m.polls().max(1) as f64,
        m.unparks(),
        m.polls()
    );
    let tk = tokio_runtime();
    g.bench_function("tokio", |b| {
        b.iter(|| {
            let (tx, rx) = mpsc::sync_channel(1);
            let rem = Arc::new(AtomicUsize::new(SPAWNS));
            for _ in 0..SPAWNS {
                let (tx, rem) = (tx.clone(), rem.clone());
                tk.spawn(async move {
                    if rem.fetch_sub(1, Ordering::Relaxed) == 1 {
                        tx.send(()).unwrap();
                    }
                });
            }
            rx.recv().unwrap();
        })
    });
    g.finish();
}

fn yield_many(c: &mut Criterion) {
    let mut g = c.benchmark_group("yield_many");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    let rt = rt_runtime(true);
    g.bench_function("rt", |b| {
        b.iter(|| {
            rt.block_on(async {
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
        })
    });
    let tk = tokio_runtime();
    g.bench_function("tokio", |b| {
        b.iter(|| {
            tk.block_on(async {
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
        })
    });
    g.finish();
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

fn chained_spawn(c: &mut Criterion) {
    let mut g = c.benchmark_group("chained_spawn");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    let rt = rt_runtime(true);
    g.bench_function("rt", |b| {
        b.iter(|| {
            let (tx, rx) = mpsc::sync_channel(1);
            rt.spawn(async move { rt_chain(CHAIN, tx) });
            rx.recv().unwrap();
        })
    });
    let tk = tokio_runtime();
    g.bench_function("tokio", |b| {
        b.iter(|| {
            let (tx, rx) = mpsc::sync_channel(1);
            tk.spawn(async move { tokio_chain(CHAIN, tx) });
            rx.recv().unwrap();
        })
    });
    g.finish();
}

/// `block_in_place` calls made by one task in a row, each around a trivial closure: what handing
/// the worker to a substitute thread and taking it back costs.
const BLOCK_IN_PLACE_CALLS: usize = 200;

fn rt_block_in_place(rt: &rt::Runtime) {
    rt.block_on(async {
        rt::spawn(async {
            for i in 0..BLOCK_IN_PLACE_CALLS {
                std::hint::black_box(rt::task::block_in_place(|| std::hint::black_box(i)));
            }
        })
        .await
        .unwrap()
    })
}

fn tokio_block_in_place(tk: &tokio::runtime::Runtime) {
    tk.block_on(async {
        tokio::spawn(async {
            for i in 0..BLOCK_IN_PLACE_CALLS {
                std::hint::black_box(tokio::task::block_in_place(|| std::hint::black_box(i)));
            }
        })
        .await
        .unwrap()
    })
}

fn block_in_place(c: &mut Criterion) {
    let mut g = c.benchmark_group("block_in_place");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    let rt = rt_runtime(true);
    g.bench_function("rt", |b| b.iter(|| rt_block_in_place(&rt)));
    let tk = tokio_runtime();
    g.bench_function("tokio", |b| b.iter(|| tokio_block_in_place(&tk)));
    g.finish();
    rt_benches::paired(
        "block_in_place (x200 calls)",
        30,
        || rt_block_in_place(&rt),
        || tokio_block_in_place(&tk),
    );
}

criterion_group!(
    benches,
    spawn_many_local,
    spawn_many_remote,
    yield_many,
    chained_spawn,
    block_in_place
);
criterion_main!(benches);
