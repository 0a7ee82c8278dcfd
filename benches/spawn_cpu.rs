//! spawn_many_local on rt alone, timed by the process's CPU clock: a task spawns 10,000 trivial
//! tasks and joins them, `ITERS` times, and the bench prints ns per task of wall time and of
//! CPU time. With one worker (`SPAWN_CPU_WORKERS=1`, the default) the CPU time is the worker's
//! own work, which other processes on the machine preempt but do not add to: the measure used
//! for A/B steps of the spawn path on a loaded machine (build A and B, alternate the binaries,
//! take the median of per-round ratios; `docs/BENCHMARKS.md`).
//!
//! `SPAWN_CPU_WORKLOAD=yield_many` times yield_many instead: 200 tasks that each yield 1,000
//! times, `ITERS / 10` times, and prints ns per poll (a yield is one poll and one local
//! schedule: the measure of the per-poll observation hooks).
//!
//! Run: `cargo bench -p rt-benches --bench spawn_cpu` (`SPAWN_CPU_ITERS`, `SPAWN_CPU_WORKERS`,
//! `SPAWN_CPU_WORKLOAD`).

use rt_benches::{cpu_ns, env_usize as env};

fn main() {
    let iters = env("SPAWN_CPU_ITERS", 100);
    let workers = env("SPAWN_CPU_WORKERS", 1);
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .unwrap();
    let yields = std::env::var("SPAWN_CPU_WORKLOAD").is_ok_and(|w| w == "yield_many");
    let (cpu, wall) = (cpu_ns(), std::time::Instant::now());
    if yields {
        let iters = iters.div_ceil(10);
        for _ in 0..iters {
            rt.block_on(async {
                let hs: Vec<_> = (0..200)
                    .map(|_| {
                        rt::spawn(async {
                            for _ in 0..1_000 {
                                rt::task::yield_now().await;
                            }
                        })
                    })
                    .collect();
                for h in hs {
                    h.await.unwrap();
                }
            })
        }
        let n = (iters * 200 * 1_001) as f64;
        let (wall, cpu) = (
            wall.elapsed().as_nanos() as f64 / n,
            (cpu_ns() - cpu) as f64 / n,
        );
        println!("{cpu:.1} ns/poll cpu, {wall:.1} ns/poll wall ({workers} workers, yield_many)");
        return;
    }
    for _ in 0..iters {
        rt.block_on(async {
            rt::spawn(async {
                let hs: Vec<_> = (0..10_000).map(|_| rt::spawn(async {})).collect();
                for h in hs {
                    h.await.unwrap();
                }
            })
            .await
            .unwrap()
        })
    }
    let n = (iters * 10_000) as f64;
    let (wall, cpu) = (
        wall.elapsed().as_nanos() as f64 / n,
        (cpu_ns() - cpu) as f64 / n,
    );
    println!("{cpu:.1} ns/task cpu, {wall:.1} ns/task wall ({workers} workers)");
}
