//! Memory: RSS per pending task, with 1,000,000 tasks parked on a never-ready future (the same
//! zero-sized future for every runtime, `parked_task`): rt (with and without the frame pool),
//! tokio and the `async-executor` peer (detached tasks: no handles).
//!
//! Each runtime is measured in a fresh child process (this binary re-executes itself), so one
//! runtime's freed-but-retained heap never flatters or burdens the other.
//!
//! Run: `cargo bench -p rt-benches --bench memory`

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Poll;

const TASKS: usize = 1_000_000;

fn rss_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("read /proc/self/statm");
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("statm resident field");
    pages * 4096
}

/// Tasks polled so far: each task counts itself at its first poll.
static POLLED: AtomicUsize = AtomicUsize::new(0);

/// The task every runtime spawns: counts its first (only) poll and stays pending, never woken.
/// Zero-sized (it captures nothing; the counter is a static), so each runtime's cost is its own
/// per-task bookkeeping. The count, not a runtime's poll metric, tells when every task is
/// parked: the metrics may be compiled out (`--cfg rt_unobserved`).
fn parked_task() -> impl std::future::Future<Output = ()> + Send + 'static {
    std::future::poll_fn(|_| {
        POLLED.fetch_add(1, Ordering::Relaxed);
        Poll::Pending
    })
}

fn all_polled() -> bool {
    POLLED.load(Ordering::Relaxed) >= TASKS
}

fn child(which: &str) {
    let before;
    let after;
    match which {
        "rt" | "rt_no_pool" => {
            let rt = rt::Builder::new_multi_thread()
                .worker_threads(2)
                .frame_pool(which == "rt")
                .build()
                .unwrap();
            // Warm up the runtime's threads and allocator before the baseline.
            rt.block_on(async { rt::spawn(async {}).await.unwrap() });
            before = rss_bytes();
            rt.block_on(async {
                for _ in 0..TASKS {
                    drop(rt::spawn(parked_task()));
                }
                // Let the workers poll every task once, so each is parked, not queued.
                while !all_polled() {
                    rt::task::yield_now().await;
                }
            });
            after = rss_bytes();
            drop(rt);
        }
        "tokio" => {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async { tokio::spawn(async {}).await.unwrap() });
            before = rss_bytes();
            rt.block_on(async {
                for _ in 0..TASKS {
                    drop(tokio::spawn(parked_task()));
                }
                while !all_polled() {
                    tokio::task::yield_now().await;
                }
            });
            after = rss_bytes();
            drop(rt);
        }
        "async-executor" => {
            let ex = rt_benches::static_executor(2);
            async_io::block_on(ex.spawn(async {}));
            before = rss_bytes();
            for _ in 0..TASKS {
                ex.spawn(parked_task()).detach();
            }
            while !all_polled() {
                std::thread::yield_now();
            }
            after = rss_bytes();
        }
        other => panic!("unknown runtime {other}"),
    }
    println!("{}", (after.saturating_sub(before)) as f64 / TASKS as f64);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(pos) = args.iter().position(|a| a == "--child") {
        child(&args[pos + 1]);
        return;
    }
    let exe = std::env::current_exe().unwrap();
    println!(
        "memory: RSS per pending task ({TASKS} tasks parked on a never-ready future, 2 workers)"
    );
    let mut results = Vec::new();
    for which in ["rt", "rt_no_pool", "tokio", "async-executor"] {
        let out = Command::new(&exe)
            .args(["--child", which])
            .output()
            .unwrap();
        assert!(out.status.success(), "{which} child failed: {out:?}");
        let per: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        println!("  {which:<14} {per:>8.1} bytes/task");
        results.push(per);
    }
    println!(
        "  ratio rt/tokio = {:.2}, rt/best_peer (async-executor) = {:.2}",
        results[0] / results[2],
        results[0] / results[3]
    );
}
