//! The cost of the Chrome trace file (issue 11, "Cost", second bullet): nanoseconds added to
//! each poll with `Builder::trace_file` on, and the events dropped at about 1,000,000 polls/s.
//!
//! - `yield_many` (200 tasks × 1,000 yields on 2 workers, 200,000 polls): rt without a trace
//!   file and rt with one, alternating round by round; per round ns/poll of each and their
//!   difference; the median and range of the differences. tokio (2 workers, same workload; it
//!   has no trace file to turn on) is printed alongside for scale.
//! - `paced`: 2 tasks, one per worker, each polled every 2 µs (it spins to its next slot, then
//!   yields) for 1 s: about 1,000,000 polls/s with the trace on; the file's drop count against
//!   the events recorded.
//!
//! Run: `cargo bench -p rt-benches --bench trace` (knob: `TRACE_BENCH_ROUNDS`, default 10).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const TASKS: usize = 200;
const YIELDS: usize = 1_000;
const POLLS: usize = TASKS * (YIELDS + 1);

fn runtime(trace: Option<&Path>) -> rt::Runtime {
    let mut b = rt::Builder::new_multi_thread();
    b.worker_threads(2);
    if let Some(p) = trace {
        b.trace_file(p);
    }
    b.build().unwrap()
}

fn yield_many_rt(rt: &rt::Runtime) -> Duration {
    rt.block_on(async {
        let start = Instant::now();
        rt_benches::rt_yielders(TASKS, YIELDS).await;
        start.elapsed()
    })
}

fn yield_many_tokio(rt: &tokio::runtime::Runtime) -> Duration {
    rt.block_on(async {
        let start = Instant::now();
        rt_benches::tokio_yielders(TASKS, YIELDS).await;
        start.elapsed()
    })
}

fn number_after(text: &str, key: &str) -> u64 {
    let at = text.find(key).map(|i| i + key.len()).unwrap_or(0);
    text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or(0)
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rt-trace-bench-{}-{name}", std::process::id()))
}

fn ns_per_poll(d: Duration) -> f64 {
    d.as_nanos() as f64 / POLLS as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("trace: bench");
        return;
    }
    let rounds: usize = std::env::var("TRACE_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let path = temp("yield.json");
    let tokio_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (mut off, mut on, mut added, mut tokio_ns) = (vec![], vec![], vec![], vec![]);
    let mut dropped = 0;
    for round in 0..rounds {
        let mut run = |trace: bool| {
            let rt = runtime(trace.then_some(path.as_path()));
            yield_many_rt(&rt); // warm-up
            let d = ns_per_poll(yield_many_rt(&rt));
            drop(rt);
            if trace {
                let text = std::fs::read_to_string(&path).unwrap();
                dropped += number_after(&text, "\"rt.dropped_events\":");
            }
            d
        };
        let (a, b) = if round % 2 == 0 {
            let a = run(false);
            (a, run(true))
        } else {
            let b = run(true);
            (run(false), b)
        };
        off.push(a);
        on.push(b);
        added.push(b - a);
        yield_many_tokio(&tokio_rt);
        tokio_ns.push(ns_per_poll(yield_many_tokio(&tokio_rt)));
    }
    let _ = std::fs::remove_file(&path);
    let (lo, hi) = added
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
    println!(
        "yield_many ({rounds} alternating rounds, {POLLS} polls each, 2 workers): rt {:.1} ns/poll, \
         rt + trace file {:.1} ns/poll, added median {:.1} ns/poll (range {lo:.1}..{hi:.1}); \
         tokio {:.1} ns/poll; events dropped in the traced runs: {dropped}",
        median(&mut off),
        median(&mut on),
        median(&mut added),
        median(&mut tokio_ns),
    );

    // About 1,000,000 polls/s for a second, traced.
    let path = temp("paced.json");
    let rt = runtime(Some(&path));
    let polls = rt.block_on(async {
        let end = Instant::now() + Duration::from_secs(1);
        let hs: Vec<_> = (0..2)
            .map(|_| {
                rt::spawn(async move {
                    let mut next = Instant::now();
                    let mut polls = 0u64;
                    while next < end {
                        next += Duration::from_micros(2);
                        while Instant::now() < next {
                            std::hint::spin_loop();
                        }
                        polls += 1;
                        rt::task::yield_now().await;
                    }
                    polls
                })
            })
            .collect();
        let mut n = 0;
        for h in hs {
            n += h.await.unwrap();
        }
        n
    });
    drop(rt);
    let text = std::fs::read_to_string(&path).unwrap();
    let dropped = number_after(&text, "\"rt.dropped_events\":");
    let written = text.matches("\"ph\":\"X\"").count();
    let _ = std::fs::remove_file(&path);
    println!(
        "paced: {polls} polls in 1 s on 2 workers with the trace file on: {dropped} events dropped, \
         {written} slices written, file {:.1} MB",
        text.len() as f64 / 1e6
    );
}
