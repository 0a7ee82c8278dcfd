//! The cost of seeing inside (issue 11): the same workloads on a normal build of rt (spawn
//! locations and names, stall stamps and the stall monitor, the default metrics counters, the
//! trace hooks with no trace file) against a build with every observation hook compiled out
//! (`RUSTFLAGS="--cfg rt_unobserved"`, which turns `rt_core::OBSERVE` off).
//!
//! Two builds cannot share a process, so each round runs one child process of each build,
//! alternating which goes first; a child runs its workload `REPS` times after a warm-up and prints
//! its median. The driver prints, per workload, both medians and the median of the per-round
//! observed/unobserved ratios with their range.
//!
//! Run: `scripts/observe-cost.sh` (builds the unobserved binary into `target/unobserved`, then
//! runs this bench with `RT_UNOBSERVED_BENCH` pointing at it). Knobs: `OBSERVE_COST_ROUNDS`
//! (default 10). The last two workloads run on a current-thread runtime (`yield_many` as its
//! tasks, then as `LocalSet` tasks); the others on a 2-worker multi-thread runtime.

use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const SPAWNS: usize = 10_000;
const YIELD_TASKS: usize = 200;
const YIELDS: usize = 1_000;
const CHAIN: usize = 1_000;
const WARMUP: usize = 3;
const REPS: usize = 15;
const WORKLOADS: [&str; 6] = [
    "spawn_many_local",
    "yield_many",
    "chained_spawn",
    "ping_pong",
    "yield_many_current_thread",
    "yield_many_local_set",
];

fn runtime() -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

fn spawn_many_local(rt: &rt::Runtime) {
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

fn yield_many(rt: &rt::Runtime) {
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
}

/// `yield_many` on a current-thread runtime (its poll stamp, its stall monitor).
fn yield_many_current_thread(rt: &rt::Runtime) {
    yield_many(rt)
}

/// `yield_many` as `LocalSet` tasks on a current-thread runtime (the set's observer, its
/// stamp around each poll).
fn yield_many_local_set(rt: &rt::Runtime) {
    let local = rt::task::LocalSet::new();
    local.block_on(rt, async {
        let hs: Vec<_> = (0..YIELD_TASKS)
            .map(|_| {
                rt::task::spawn_local(async {
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
}

fn chain(n: usize, tx: mpsc::SyncSender<()>) {
    if n == 0 {
        tx.send(()).unwrap();
    } else {
        rt::spawn(async move { chain(n - 1, tx) });
    }
}

fn chained_spawn(rt: &rt::Runtime) {
    let (tx, rx) = mpsc::sync_channel(1);
    rt.spawn(async move { chain(CHAIN, tx) });
    rx.recv().unwrap();
}

/// Child mode: runs `workload` and prints the median time of `REPS` runs in nanoseconds.
fn child(workload: &str) {
    let rt = if workload.ends_with("current_thread") || workload.ends_with("local_set") {
        rt::Builder::new_current_thread().build().unwrap()
    } else {
        runtime()
    };
    let run: fn(&rt::Runtime) = match workload {
        "spawn_many_local" => spawn_many_local,
        "yield_many" => yield_many,
        "chained_spawn" => chained_spawn,
        "ping_pong" => rt_benches::ping_pong::rt,
        "yield_many_current_thread" => yield_many_current_thread,
        "yield_many_local_set" => yield_many_local_set,
        other => panic!("unknown workload {other:?}; expected one of {WORKLOADS:?}"),
    };
    for _ in 0..WARMUP {
        run(&rt);
    }
    let mut times: Vec<u128> = (0..REPS)
        .map(|_| {
            let start = Instant::now();
            run(&rt);
            start.elapsed().as_nanos()
        })
        .collect();
    times.sort();
    println!("median_ns {}", times[REPS / 2]);
}

/// Runs `exe` in child mode for `workload` and returns its median.
fn measure(exe: &std::path::Path, workload: &str) -> Duration {
    let out = Command::new(exe)
        .args(["--child", workload])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    assert!(
        out.status.success(),
        "{} --child {workload} failed: {}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let ns = text
        .lines()
        .find_map(|l| l.strip_prefix("median_ns "))
        .and_then(|n| n.trim().parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no median in child output: {text}"));
    Duration::from_nanos(ns)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(&args[i + 1]);
        return;
    }
    let Some(unobserved) = std::env::var_os("RT_UNOBSERVED_BENCH") else {
        println!(
            "observe_cost: RT_UNOBSERVED_BENCH is not set; run scripts/observe-cost.sh, which \
             builds the unobserved binary and sets it"
        );
        return;
    };
    let observed = std::env::current_exe().unwrap();
    let unobserved = std::path::PathBuf::from(unobserved);
    let rounds: usize = std::env::var("OBSERVE_COST_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(10);
    // Only the workloads named on the command line (criterion-style filter), else all.
    let filter: Vec<&String> = args[1..].iter().filter(|a| !a.starts_with('-')).collect();
    for workload in WORKLOADS {
        if !filter.is_empty() && !filter.iter().any(|f| workload.contains(f.as_str())) {
            continue;
        }
        let (mut obs, mut unobs, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            let (o, u) = if round % 2 == 0 {
                let o = measure(&observed, workload);
                (o, measure(&unobserved, workload))
            } else {
                let u = measure(&unobserved, workload);
                (measure(&observed, workload), u)
            };
            obs.push(o);
            unobs.push(u);
            ratios.push(o.as_secs_f64() / u.as_secs_f64());
        }
        obs.sort();
        unobs.sort();
        ratios.sort_by(f64::total_cmp);
        println!(
            "{workload} ({rounds} alternating rounds of {REPS} runs per build): observed median \
             {:.3?}, unobserved median {:.3?}, median of per-round observed/unobserved = {:.3} \
             (range {:.3}-{:.3})",
            obs[rounds / 2],
            unobs[rounds / 2],
            ratios[rounds / 2],
            ratios[0],
            ratios[rounds - 1]
        );
    }
}
