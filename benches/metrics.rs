//! The cost of the opt-in histograms (`Builder::poll_time_histogram(true)`: two clock reads per
//! poll and a wake-time side-table entry per wake) on `yield_many` and `spawn_many`: rt with
//! them off (the default), rt with them on, tokio and the async-executor peer, in one process,
//! the order rotating every round. Prints each one's median and the medians of the per-round
//! ratios rt+histograms/rt and rt/tokio.
//!
//! The cost of the always-on counters is what `benches/observe_cost.rs` measures (a build with
//! `rt_core::OBSERVE` off, which compiles the counters out, against a normal one):
//! `scripts/observe-cost.sh yield_many`.
//!
//! Run: `cargo bench -p rt-benches --bench metrics`. Knob: `METRICS_ROUNDS` (default 15).

use std::time::Instant;

use rt_benches::{static_executor, yield_now, Ex};

const YIELD_TASKS: usize = 200;
const YIELDS: usize = 500;
const SPAWNS: usize = 20_000;

fn rt_yield_many(rt: &rt::Runtime) {
    rt.block_on(rt_benches::rt_yielders(YIELD_TASKS, YIELDS));
}

fn rt_spawn_many(rt: &rt::Runtime) {
    rt.block_on(async {
        rt::spawn(async {
            let hs: Vec<_> = (0..SPAWNS).map(|_| rt::spawn(async {})).collect();
            for h in hs {
                h.await.unwrap();
            }
        })
        .await
        .unwrap();
    });
}

fn tokio_yield_many(rt: &tokio::runtime::Runtime) {
    rt.block_on(rt_benches::tokio_yielders(YIELD_TASKS, YIELDS));
}

fn tokio_spawn_many(rt: &tokio::runtime::Runtime) {
    rt.block_on(async {
        tokio::spawn(async {
            let hs: Vec<_> = (0..SPAWNS).map(|_| tokio::spawn(async {})).collect();
            for h in hs {
                h.await.unwrap();
            }
        })
        .await
        .unwrap();
    });
}

fn smol_yield_many(ex: Ex) {
    async_io::block_on(ex.spawn(async move {
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
    }));
}

fn smol_spawn_many(ex: Ex) {
    async_io::block_on(ex.spawn(async move {
        let hs: Vec<_> = (0..SPAWNS).map(|_| ex.spawn(async {})).collect();
        for h in hs {
            h.await;
        }
    }));
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

/// Median and range of the per-round ratios `a[k] / b[k]`.
fn ratio(a: &[f64], b: &[f64]) -> String {
    let mut r: Vec<f64> = a.iter().zip(b).map(|(x, y)| x / y).collect();
    r.sort_by(f64::total_cmp);
    format!(
        "{:.3} (range {:.3}-{:.3})",
        r[r.len() / 2],
        r[0],
        r[r.len() - 1]
    )
}

fn bench(name: &str, rounds: usize, contestants: &mut [(&str, &mut dyn FnMut())]) {
    let n = contestants.len();
    for (_, f) in contestants.iter_mut() {
        f(); // warm-up
    }
    let mut times = vec![Vec::with_capacity(rounds); n];
    for round in 0..rounds {
        for k in 0..n {
            let i = (round + k) % n;
            let start = Instant::now();
            (contestants[i].1)();
            times[i].push(start.elapsed().as_secs_f64());
        }
    }
    let mut line = format!("{name} ({rounds} rotating rounds): medians");
    for (i, (c, _)) in contestants.iter().enumerate() {
        line.push_str(&format!(" {c} {:.2} ms", median(&times[i]) * 1e3));
    }
    println!("{line}");
    println!(
        "  {name}: rt+histograms/rt = {}; rt/tokio = {}; rt/async-executor = {}",
        ratio(&times[1], &times[0]),
        ratio(&times[0], &times[2]),
        ratio(&times[0], &times[3])
    );
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let rounds: usize = std::env::var("METRICS_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let build = |histograms: bool| {
        rt::Builder::new_multi_thread()
            .worker_threads(2)
            .poll_time_histogram(histograms)
            .build()
            .unwrap()
    };
    let (plain, hist) = (build(false), build(true));
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let ex = static_executor(2);
    let wanted = |n: &str| filter.as_deref().is_none_or(|f| n.contains(f));
    if wanted("yield_many") {
        bench(
            "yield_many",
            rounds,
            &mut [
                ("rt", &mut || rt_yield_many(&plain)),
                ("rt+histograms", &mut || rt_yield_many(&hist)),
                ("tokio", &mut || tokio_yield_many(&tokio)),
                ("async-executor", &mut || smol_yield_many(ex)),
            ],
        );
    }
    if wanted("spawn_many") {
        bench(
            "spawn_many",
            rounds,
            &mut [
                ("rt", &mut || rt_spawn_many(&plain)),
                ("rt+histograms", &mut || rt_spawn_many(&hist)),
                ("tokio", &mut || tokio_spawn_many(&tokio)),
                ("async-executor", &mut || smol_spawn_many(ex)),
            ],
        );
    }
    let m = hist.metrics().snapshot();
    let polls: u64 = (0..m.num_workers()).map(|w| m.worker_poll_count(w)).sum();
    println!(
        "  (rt+histograms recorded {polls} polls; steals {}, parks {})",
        (0..m.num_workers())
            .map(|w| m.worker_steal_count(w))
            .sum::<u64>(),
        (0..m.num_workers())
            .map(|w| m.worker_park_count(w))
            .sum::<u64>()
    );
}
