//! peers.rs's `bounded` workload (4 producers × 100,000 `u64` into a bounded channel of 1,024, one
//! consumer summing them) on one runtime per process, timed by the process's CPU clock as well
//! as the wall clock: the measure for A/B steps of the channel on a loaded machine (build A and
//! B, alternate the binaries, take the median of per-round ratios; `docs/BENCHMARKS.md`).
//!
//! `CHAN_CPU_WORKLOAD=pingpong` instead: two tasks, a `bounded(1)` channel each way, 100,000
//! round trips per iteration (ns per round trip in place of per message).
//!
//! `CHAN_CPU_MPSC=1`: the same two workloads on `rt::sync::mpsc` (`channel(1024)` /
//! `channel(1)` pairs) for rt, and on `tokio::sync::mpsc` with `CHAN_CPU_RUNTIME=tokio`.
//! `CHAN_CPU_WORKLOAD=unbounded` (with `CHAN_CPU_MPSC=1`): the producers' round on
//! `unbounded_channel()`.
//!
//! `CHAN_CPU_RUNTIME=rt` (default), `peer` (async-executor + async-channel) or `tokio` (mpsc
//! only);
//! `CHAN_CPU_WORKERS` (default 2), `CHAN_CPU_ITERS` (default 20). For rt it also prints the
//! runtime's polls, unparks and parks per message (`Runtime::metrics`).
//!
//! Run: `cargo bench -p rt-benches --bench channel_cpu`.

const PRODUCERS: u64 = 4;
const PER_PRODUCER: u64 = 100_000;
const CAPACITY: usize = 1_024;

use rt_benches::{cpu_ns, env_usize as env};

const N: u64 = PRODUCERS * PER_PRODUCER;
const EXPECT: u64 = N * (N - 1) / 2;

fn rt_round(rt: &rt::Runtime) {
    rt.block_on(async {
        let (tx, rx) = rt::sync::channel::bounded::<u64>(CAPACITY);
        for p in 0..PRODUCERS {
            let tx = tx.clone();
            rt::spawn(async move {
                for i in 0..PER_PRODUCER {
                    tx.send(p * PER_PRODUCER + i).await.unwrap();
                }
            });
        }
        drop(tx);
        let sum = rt::spawn(async move {
            let mut sum = 0u64;
            while let Some(v) = rx.recv().await {
                sum = sum.wrapping_add(v);
            }
            sum
        });
        assert_eq!(sum.await.unwrap(), EXPECT);
    })
}

const TRIPS: u64 = 100_000;

fn rt_ping_pong(rt: &rt::Runtime) {
    rt.block_on(async {
        let (to_echo, echo_rx) = rt::sync::channel::bounded::<u64>(1);
        let (to_main, main_rx) = rt::sync::channel::bounded::<u64>(1);
        let echo = rt::spawn(async move {
            while let Some(v) = echo_rx.recv().await {
                if to_main.send(v + 1).await.is_err() {
                    break;
                }
            }
        });
        let main = rt::spawn(async move {
            let mut v = 0;
            for _ in 0..TRIPS {
                to_echo.send(v).await.unwrap();
                v = main_rx.recv().await.unwrap();
            }
            v
        });
        assert_eq!(main.await.unwrap(), TRIPS);
        echo.await.unwrap();
    })
}

/// `rt_round` and `rt_ping_pong` on an mpsc channel (`rt::sync::mpsc` or `tokio::sync::mpsc`).
macro_rules! mpsc_round {
    ($block_on:expr, $mpsc:path, $spawn:path) => {{
        use $mpsc as mpsc;
        $block_on(async {
            let (tx, mut rx) = mpsc::channel::<u64>(CAPACITY);
            for p in 0..PRODUCERS {
                let tx = tx.clone();
                $spawn(async move {
                    for i in 0..PER_PRODUCER {
                        tx.send(p * PER_PRODUCER + i).await.unwrap();
                    }
                });
            }
            drop(tx);
            let sum = $spawn(async move {
                let mut sum = 0u64;
                while let Some(v) = rx.recv().await {
                    sum = sum.wrapping_add(v);
                }
                sum
            });
            assert_eq!(sum.await.unwrap(), EXPECT);
        })
    }};
}

/// `mpsc_round!` on `unbounded_channel()`.
macro_rules! mpsc_unbounded_round {
    ($block_on:expr, $mpsc:path, $spawn:path) => {{
        use $mpsc as mpsc;
        $block_on(async {
            let (tx, mut rx) = mpsc::unbounded_channel::<u64>();
            for p in 0..PRODUCERS {
                let tx = tx.clone();
                $spawn(async move {
                    for i in 0..PER_PRODUCER {
                        tx.send(p * PER_PRODUCER + i).unwrap();
                    }
                });
            }
            drop(tx);
            let sum = $spawn(async move {
                let mut sum = 0u64;
                while let Some(v) = rx.recv().await {
                    sum = sum.wrapping_add(v);
                }
                sum
            });
            assert_eq!(sum.await.unwrap(), EXPECT);
        })
    }};
}

macro_rules! mpsc_ping_pong {
    ($block_on:expr, $mpsc:path, $spawn:path) => {{
        use $mpsc as mpsc;
        $block_on(async {
            let (to_echo, mut echo_rx) = mpsc::channel::<u64>(1);
            let (to_main, mut main_rx) = mpsc::channel::<u64>(1);
            let echo = $spawn(async move {
                while let Some(v) = echo_rx.recv().await {
                    if to_main.send(v + 1).await.is_err() {
                        break;
                    }
                }
            });
            let main = $spawn(async move {
                let mut v = 0;
                for _ in 0..TRIPS {
                    to_echo.send(v).await.unwrap();
                    v = main_rx.recv().await.unwrap();
                }
                v
            });
            assert_eq!(main.await.unwrap(), TRIPS);
            echo.await.unwrap();
        })
    }};
}

fn peer_ping_pong(ex: rt_benches::Ex) {
    async_io::block_on(ex.spawn(async move {
        let (to_echo, echo_rx) = async_channel::bounded::<u64>(1);
        let (to_main, main_rx) = async_channel::bounded::<u64>(1);
        let echo = ex.spawn(async move {
            while let Ok(v) = echo_rx.recv().await {
                if to_main.send(v + 1).await.is_err() {
                    break;
                }
            }
        });
        let mut v = 0;
        for _ in 0..TRIPS {
            to_echo.send(v).await.unwrap();
            v = main_rx.recv().await.unwrap();
        }
        drop(to_echo);
        echo.await;
        assert_eq!(v, TRIPS);
    }))
}

fn peer_round(ex: rt_benches::Ex) {
    async_io::block_on(ex.spawn(async move {
        let (tx, rx) = async_channel::bounded::<u64>(CAPACITY);
        for p in 0..PRODUCERS {
            let tx = tx.clone();
            ex.spawn(async move {
                for i in 0..PER_PRODUCER {
                    tx.send(p * PER_PRODUCER + i).await.unwrap();
                }
            })
            .detach();
        }
        drop(tx);
        let sum = ex.spawn(async move {
            let mut sum = 0u64;
            while let Ok(v) = rx.recv().await {
                sum = sum.wrapping_add(v);
            }
            sum
        });
        assert_eq!(sum.await, EXPECT);
    }))
}

fn main() {
    let iters = env("CHAN_CPU_ITERS", 20);
    let workers = env("CHAN_CPU_WORKERS", 2);
    let peer = std::env::var("CHAN_CPU_RUNTIME").is_ok_and(|v| v == "peer");
    let ping_pong = std::env::var("CHAN_CPU_WORKLOAD").is_ok_and(|v| v == "pingpong");
    let n = (iters as u64 * if ping_pong { TRIPS } else { N }) as f64;
    let mpsc = std::env::var("CHAN_CPU_MPSC").is_ok_and(|v| v == "1");
    let unbounded = std::env::var("CHAN_CPU_WORKLOAD").is_ok_and(|v| v == "unbounded");
    if std::env::var("CHAN_CPU_RUNTIME").is_ok_and(|v| v == "tokio") {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .build()
            .unwrap();
        let (cpu, wall) = (cpu_ns(), std::time::Instant::now());
        for _ in 0..iters {
            if ping_pong {
                mpsc_ping_pong!(|f| rt.block_on(f), tokio::sync::mpsc, tokio::spawn);
            } else if unbounded {
                mpsc_unbounded_round!(|f| rt.block_on(f), tokio::sync::mpsc, tokio::spawn);
            } else {
                mpsc_round!(|f| rt.block_on(f), tokio::sync::mpsc, tokio::spawn);
            }
        }
        let (wall, cpu) = (
            wall.elapsed().as_nanos() as f64 / n,
            (cpu_ns() - cpu) as f64 / n,
        );
        println!("tokio mpsc: {cpu:.1} ns/msg cpu, {wall:.1} ns/msg wall ({workers} workers)");
        return;
    }
    if peer {
        // As `Runtimes::smol`: `workers` executor threads, the main thread waits on the round.
        let ex = rt_benches::static_executor(workers);
        let (cpu, wall) = (cpu_ns(), std::time::Instant::now());
        for _ in 0..iters {
            if ping_pong {
                peer_ping_pong(ex);
            } else {
                peer_round(ex);
            }
        }
        let (wall, cpu) = (
            wall.elapsed().as_nanos() as f64 / n,
            (cpu_ns() - cpu) as f64 / n,
        );
        println!("peer: {cpu:.1} ns/msg cpu, {wall:.1} ns/msg wall ({workers} threads)");
        return;
    }
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .unwrap();
    let before = rt.metrics().snapshot();
    let (cpu, wall) = (cpu_ns(), std::time::Instant::now());
    for _ in 0..iters {
        match (ping_pong, mpsc) {
            (true, false) => rt_ping_pong(&rt),
            (false, false) => rt_round(&rt),
            (true, true) => mpsc_ping_pong!(|f| rt.block_on(f), rt::sync::mpsc, rt::spawn),
            (false, true) if unbounded => {
                mpsc_unbounded_round!(|f| rt.block_on(f), rt::sync::mpsc, rt::spawn)
            }
            (false, true) => mpsc_round!(|f| rt.block_on(f), rt::sync::mpsc, rt::spawn),
        }
    }
    let (wall, cpu) = (
        wall.elapsed().as_nanos() as f64 / n,
        (cpu_ns() - cpu) as f64 / n,
    );
    let after = rt.metrics().snapshot();
    let sum = |f: &dyn Fn(&rt::metrics::Metrics, usize) -> u64, m: &rt::metrics::Metrics| {
        (0..workers).map(|w| f(m, w)).sum::<u64>()
    };
    let per = |f: &dyn Fn(&rt::metrics::Metrics, usize) -> u64| {
        (sum(f, &after) - sum(f, &before)) as f64 / n
    };
    let polls = per(&|m, w| m.worker_poll_count(w));
    let unparks = per(&|m, w| m.worker_unpark_count(w));
    let parks = per(&|m, w| m.worker_park_count(w));
    let steals = per(&|m, w| m.worker_steal_count(w));
    println!(
        "rt: {cpu:.1} ns/msg cpu, {wall:.1} ns/msg wall ({workers} workers); per msg: \
         polls {polls:.4}, unparks {unparks:.5}, parks {parks:.5}, steals {steals:.5}"
    );
}
