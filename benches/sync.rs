//! Locks under contention: rt vs tokio, 2 workers each, side by side.
//!
//! Each benchmark spawns [`TASKS`] tasks that each run [`OPS`] operations on one shared primitive,
//! then joins them all:
//! - `mutex`: lock, increment, unlock.
//! - `semaphore`: acquire one of 2 permits, release it.
//! - `rwlock`: read-mostly; one operation in 10 is a write.
//!
//! Run: `cargo bench -p rt-benches --bench sync`

use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};

const TASKS: usize = 8;
const OPS: usize = 10_000;

/// rt's side: its runtime, its `sync` module and how it fans tasks out.
mod rt_side {
    pub use rt::sync;

    pub fn runtime() -> rt::Runtime {
        rt::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap()
    }

    /// Spawns `TASKS` copies of `task(i)` and joins them.
    pub fn fan_out<F, Fut>(rt: &rt::Runtime, task: F)
    where
        F: Fn(usize) -> Fut,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        rt.block_on(async {
            let hs: Vec<_> = (0..super::TASKS).map(|i| rt::spawn(task(i))).collect();
            for h in hs {
                h.await.unwrap();
            }
        })
    }
}

/// tokio's side, the same names as [`rt_side`].
mod tokio_side {
    pub use tokio::sync;

    pub fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap()
    }

    /// Spawns `TASKS` copies of `task(i)` and joins them.
    pub fn fan_out<F, Fut>(rt: &tokio::runtime::Runtime, task: F)
    where
        F: Fn(usize) -> Fut,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        rt.block_on(async {
            let hs: Vec<_> = (0..super::TASKS).map(|i| tokio::spawn(task(i))).collect();
            for h in hs {
                h.await.unwrap();
            }
        })
    }
}

fn configure(g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
}

/// One benchmark group: `$body`, one iteration, written once and run as `rt` on rt's runtime
/// and then as `tokio` on tokio's; in it `$side` names the side's module (`rt_side` or
/// `tokio_side`) and `$runtime` its runtime.
macro_rules! rt_and_tokio {
    ($c:ident, $name:literal, |$side:ident, $runtime:ident| $body:block) => {{
        let mut g = $c.benchmark_group($name);
        configure(&mut g);
        {
            use crate::rt_side as $side;
            let $runtime = $side::runtime();
            g.bench_function("rt", |b| b.iter(|| $body));
        }
        {
            use crate::tokio_side as $side;
            let $runtime = $side::runtime();
            g.bench_function("tokio", |b| b.iter(|| $body));
        }
        g.finish();
    }};
}

fn mutex(c: &mut Criterion) {
    rt_and_tokio!(c, "mutex", |side, runtime| {
        let m = Arc::new(side::sync::Mutex::new(0u64));
        side::fan_out(&runtime, |_| {
            let m = m.clone();
            async move {
                for _ in 0..OPS {
                    *m.lock().await += 1;
                }
            }
        });
        assert_eq!(*m.try_lock().unwrap(), (TASKS * OPS) as u64);
    });
}

fn semaphore(c: &mut Criterion) {
    rt_and_tokio!(c, "semaphore", |side, runtime| {
        let s = Arc::new(side::sync::Semaphore::new(2));
        side::fan_out(&runtime, |_| {
            let s = s.clone();
            async move {
                for _ in 0..OPS {
                    drop(s.acquire().await.unwrap());
                }
            }
        });
        assert_eq!(s.available_permits(), 2);
    });
}

fn rwlock(c: &mut Criterion) {
    rt_and_tokio!(c, "rwlock", |side, runtime| {
        let l = Arc::new(side::sync::RwLock::new(0u64));
        side::fan_out(&runtime, |t| {
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
    });
}

criterion_group!(benches, mutex, semaphore, rwlock);
criterion_main!(benches);
