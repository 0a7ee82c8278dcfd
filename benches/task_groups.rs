//! Task groups and macros, rt vs tokio in one run: `JoinSet` spawn + `join_next` of 10,000
//! trivial tasks, a 10,000-task `TaskGroup` with one failing task (failure to `join`
//! returning), and `select!` over two ready futures.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

const TASKS: u32 = 10_000;

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

fn rt_join_set(rt: &rt::Runtime) {
    rt.block_on(async {
        let mut set = rt::task::JoinSet::new();
        for i in 0..TASKS {
            set.spawn(async move { i });
        }
        let mut n = 0;
        while let Some(r) = set.join_next().await {
            n += r.unwrap() & 1;
        }
        std::hint::black_box(n);
    });
}

fn tokio_join_set(tk: &tokio::runtime::Runtime) {
    tk.block_on(async {
        let mut set = tokio::task::JoinSet::new();
        for i in 0..TASKS {
            set.spawn(async move { i });
        }
        let mut n = 0;
        while let Some(r) = set.join_next().await {
            n += r.unwrap() & 1;
        }
        std::hint::black_box(n);
    });
}

fn join_set(c: &mut Criterion) {
    let rt = rt_runtime();
    let tk = tokio_runtime();
    let mut g = c.benchmark_group("join_set_10k");
    g.bench_function("rt", |b| b.iter(|| rt_join_set(&rt)));
    g.bench_function("tokio", |b| b.iter(|| tokio_join_set(&tk)));
    g.finish();
    rt_benches::paired(
        "join_set_10k (x10)",
        30,
        || (0..10).for_each(|_| rt_join_set(&rt)),
        || (0..10).for_each(|_| tokio_join_set(&tk)),
    );
}

/// 10,000 pending tasks and one that fails when told to; returns the time from the failure
/// to `join` returning.
fn rt_group_failure(rt: &rt::Runtime) -> Duration {
    rt.block_on(async {
        let group = rt::task::TaskGroup::<(), ()>::new();
        for _ in 0..TASKS {
            group.spawn(std::future::pending());
        }
        let (tx, rx) = rt::sync::oneshot::channel::<Instant>();
        group.spawn(async move {
            let _ = rx.await;
            Err(())
        });
        tx.send(Instant::now()).unwrap();
        let start = Instant::now();
        assert!(group.join().await.is_err());
        start.elapsed()
    })
}

fn group_failure(c: &mut Criterion) {
    let rt = rt_runtime();
    let mut g = c.benchmark_group("task_group_10k_one_fails");
    g.bench_function("rt failure to join", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| rt_group_failure(&rt)).sum())
    });
    g.finish();
}

fn rt_select(rt: &rt::Runtime) {
    rt.block_on(async {
        let mut n = 0u32;
        for _ in 0..1_000 {
            rt::select! {
                v = std::future::ready(1u32) => n += v,
                v = std::future::ready(2u32) => n += v,
            }
        }
        std::hint::black_box(n);
    });
}

fn tokio_select(tk: &tokio::runtime::Runtime) {
    tk.block_on(async {
        let mut n = 0u32;
        for _ in 0..1_000 {
            tokio::select! {
                v = std::future::ready(1u32) => n += v,
                v = std::future::ready(2u32) => n += v,
            }
        }
        std::hint::black_box(n);
    });
}

fn select_two_ready(c: &mut Criterion) {
    let rt = rt_runtime();
    let tk = tokio_runtime();
    let mut g = c.benchmark_group("select_two_ready_x1000");
    g.bench_function("rt", |b| b.iter(|| rt_select(&rt)));
    g.bench_function("tokio", |b| b.iter(|| tokio_select(&tk)));
    g.finish();
    rt_benches::paired(
        "select_two_ready_x1000 (x20)",
        30,
        || (0..20).for_each(|_| rt_select(&rt)),
        || (0..20).for_each(|_| tokio_select(&tk)),
    );
}

criterion_group!(benches, join_set, group_failure, select_two_ready);
criterion_main!(benches);
