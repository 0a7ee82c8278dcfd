//! Timers: rt vs tokio, 2 workers each, side by side.
//!
//! - `timers_10k`: spawn 10,000 tasks that each `sleep(1 ms)`, join them all (total time).
//! - `lateness`: how late sleeps of 100 µs, 1 ms and 10 ms complete (actual - requested), measured
//!   in a task on a worker over [`SAMPLES`] sequential sleeps each; printed as a p50/p99 table.
//!
//! Run: `cargo bench -p rt-benches --bench time`

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

const TASKS: usize = 10_000;
const SAMPLES: usize = 200;
const LENGTHS: [Duration; 3] = [
    Duration::from_micros(100),
    Duration::from_millis(1),
    Duration::from_millis(10),
];

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

fn timers_10k(c: &mut Criterion) {
    let mut g = c.benchmark_group("timers_10k");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    let rt = rt_runtime();
    g.bench_function("rt", |b| {
        b.iter(|| {
            rt.block_on(async {
                rt::spawn(async {
                    let hs: Vec<_> = (0..TASKS)
                        .map(|_| rt::spawn(rt::time::sleep(Duration::from_millis(1))))
                        .collect();
                    for h in hs {
                        h.await.unwrap();
                    }
                })
                .await
                .unwrap()
            })
        })
    });
    drop(rt);
    let tokio = tokio_runtime();
    g.bench_function("tokio", |b| {
        b.iter(|| {
            tokio.block_on(async {
                tokio::spawn(async {
                    let hs: Vec<_> = (0..TASKS)
                        .map(|_| tokio::spawn(tokio::time::sleep(Duration::from_millis(1))))
                        .collect();
                    for h in hs {
                        h.await.unwrap();
                    }
                })
                .await
                .unwrap()
            })
        })
    });
    g.finish();
}

/// Lateness of each sleep, sorted.
type Samples = Vec<Duration>;

fn percentile(sorted: &Samples, p: f64) -> Duration {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn rt_lateness(length: Duration) -> Samples {
    let rt = rt_runtime();
    rt.block_on(async move {
        rt::spawn(async move {
            let mut out = Vec::with_capacity(SAMPLES);
            for _ in 0..SAMPLES {
                let start = Instant::now();
                rt::time::sleep(length).await;
                out.push(start.elapsed() - length);
            }
            out.sort();
            out
        })
        .await
        .unwrap()
    })
}

fn tokio_lateness(length: Duration) -> Samples {
    let tokio = tokio_runtime();
    tokio.block_on(async move {
        tokio::spawn(async move {
            let mut out = Vec::with_capacity(SAMPLES);
            for _ in 0..SAMPLES {
                let start = Instant::now();
                tokio::time::sleep(length).await;
                out.push(start.elapsed() - length);
            }
            out.sort();
            out
        })
        .await
        .unwrap()
    })
}

fn lateness(_: &mut Criterion) {
    println!();
    println!("lateness (actual - requested), {SAMPLES} sequential sleeps in a task, 2 workers");
    println!(
        "{:>8} | {:>10} {:>10} | {:>10} {:>10}",
        "sleep", "rt p50", "rt p99", "tokio p50", "tokio p99"
    );
    for length in LENGTHS {
        let r = rt_lateness(length);
        let t = tokio_lateness(length);
        println!(
            "{:>8} | {:>10} {:>10} | {:>10} {:>10}",
            format!("{length:?}"),
            format!("{:.1?}", percentile(&r, 0.5)),
            format!("{:.1?}", percentile(&r, 0.99)),
            format!("{:.1?}", percentile(&t, 0.5)),
            format!("{:.1?}", percentile(&t, 0.99)),
        );
    }
    println!();
}

criterion_group!(benches, timers_10k, lateness);
criterion_main!(benches);
