//! Locks under contention: rt vs tokio, 2 workers each, side by side.
//!
//! Each benchmark spawns [`TASKS`] tasks that each run [`OPS`] operations on one shared primitive,
//! then joins them all:
//! - `mutex`: lock, increment, unlock.
//! - `semaphore`: acquire one of 2 permits, release it.
//! - `rwlock`: read-mostly; one operation in 10 is a write.
//!
//! Run: `cargo bench -p rt-benches --bench sync`

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};

const TASKS: usize = 8;
const OPS: usize = 10_000;

fn rt_runtime() -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

fn tokio_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

/// Spawns `TASKS` copies of `task(i)` on rt and joins them.
fn rt_fan_out<F, Fut>(rt: &rt::Runtime, task: F)
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    rt.block_on(async {
        let hs: Vec<_> = (0..TASKS).map(|i| rt::spawn(task(i))).collect();
        for h in hs {
            h.await.unwrap();
        }
    })
}

/// Spawns `TASKS` copies of `task(i)` on tokio and joins them.
fn tokio_fan_out<F, Fut>(rt: &tokio::runtime::Runtime, task: F)
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    rt.block_on(async {
        let hs: Vec<_> = (0..TASKS).map(|i| tokio::spawn(task(i))).collect();
        for h in hs {
            h.await.unwrap();
        }
    })
}

fn configure(g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
}

fn mutex(c: &mut Criterion) {
    let mut g = c.benchmark_group("mutex");
    configure(&mut g);
    let rt = rt_runtime();
    g.bench_function("rt", |b| {
        b.iter(|| {
            let m = Arc::new(rt::sync::Mutex::new(0u64));
            rt_fan_out(&rt, |_| {
                let m = m.clone();
                async move {
                    for _ in 0..OPS {
                        *m.lock().await += 1;
                    }
                }
            });
            assert_eq!(*m.try_lock().unwrap(), (TASKS * OPS) as u64);
        })
    });
    drop(rt);
    let tokio = tokio_runtime();
    g.bench_function("tokio", |b| {
        b.iter(|| {
            let m = Arc::new(tokio::sync::Mutex::new(0u64));
            tokio_fan_out(&tokio, |_| {
                let m = m.clone();
                async move {
                    for _ in 0..OPS {
                        *m.lock().await += 1;
                    }
                }
            });
            assert_eq!(*m.try_lock().unwrap(), (TASKS * OPS) as u64);
        })
    });
    g.finish();
}

fn semaphore(c: &mut Criterion) {
    let mut g = c.benchmark_group("semaphore");
    configure(&mut g);
    let rt = rt_runtime();
    g.bench_function("rt", |b| {
        b.iter(|| {
            let s = Arc::new(rt::sync::Semaphore::new(2));
            rt_fan_out(&rt, |_| {
                let s = s.clone();
                async move {
                    for _ in 0..OPS {
                        drop(s.acquire().await.unwrap());
                    }
                }
            });
            assert_eq!(s.available_permits(), 2);
        })
    });
    drop(rt);
    let tokio = tokio_runtime();
    g.bench_function("tokio", |b| {
        b.iter(|| {
            let s = Arc::new(tokio::sync::Semaphore::new(2));
            tokio_fan_out(&tokio, |_| {
                let s = s.clone();
                async move {
                    for _ in 0..OPS {
                        drop(s.acquire().await.unwrap());
                    }
                }
            });
            assert_eq!(s.available_permits(), 2);
        })
    });
    g.finish();
}

fn rwlock(c: &mut Criterion) {
    let mut g = c.benchmark_group("rwlock");
    configure(&mut g);
    let rt = rt_runtime();
    g.bench_function("rt", |b| {
        b.iter(|| {
            let l = Arc::new(rt::sync::RwLock::new(0u64));
            rt_fan_out(&rt, |t| {
                let l = l.clone();
                async move {
                    for i in 0..OPS {
                        if (i + t) % 10 == 0 {
                            *l.write().await += 1;
                        } else {
                            std::hint::black_box(*l.read().await);
                        }
                    }
                }
            });
            assert_eq!(*l.try_read().unwrap(), (TASKS * OPS / 10) as u64);
        })
    });
    drop(rt);
    let tokio = tokio_runtime();
    g.bench_function("tokio", |b| {
        b.iter(|| {
            let l = Arc::new(tokio::sync::RwLock::new(0u64));
            tokio_fan_out(&tokio, |t| {
                let l = l.clone();
                async move {
                    for i in 0..OPS {
                        if (i + t) % 10 == 0 {
                            *l.write().await += 1;
                        } else {
                            std::hint::black_box(*l.read().await);
                        }
                    }
                }
            });
            assert_eq!(*l.try_read().unwrap(), (TASKS * OPS / 10) as u64);
        })
    });
    g.finish();
}

criterion_group!(benches, mutex, semaphore, rwlock);
criterion_main!(benches);
