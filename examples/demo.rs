//! The runtime at its two jobs: first a storm of spawned tasks across the worker pool (how fast,
//! and how the work spread over the workers), then an echo server and a load generator on the
//! same runtime (throughput and latency percentiles).
//!
//! Run: `cargo run --release --example demo [CONNECTIONS] [SECONDS]` (defaults: 50 connections,
//! 3 seconds). Each connection sends a 64-byte message, waits for the echo, and repeats.

use rt::time::Instant;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rt::net::{TcpListener, TcpStream};

const MESSAGE: usize = 64;

async fn serve(listener: TcpListener) {
    loop {
        let Ok((mut s, _)) = listener.accept().await else {
            continue;
        };
        let _ = s.set_nodelay(true);
        rt::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = s.read(&mut buf).await {
                if n == 0 || s.write_all(&buf[..n]).await.is_err() {
                    return;
                }
            }
        });
    }
}

/// One connection's load: round trips until `end`, returning each one's latency in nanoseconds.
async fn client(addr: SocketAddr, end: Instant, done: Arc<AtomicU64>) -> io::Result<Vec<u64>> {
    let mut c = TcpStream::connect(addr).await?;
    c.set_nodelay(true)?;
    let msg = [42u8; MESSAGE];
    let mut back = [0u8; MESSAGE];
    let mut latencies = Vec::with_capacity(1 << 16);
    loop {
        let start = Instant::now();
        if start >= end {
            return Ok(latencies);
        }
        c.write_all(&msg).await?;
        c.read_exact(&mut back).await?;
        latencies.push(start.elapsed().as_nanos() as u64);
        done.fetch_add(1, Ordering::Relaxed);
    }
}

/// Tasks in the spawn storm: each of `STORM_SPAWNERS` tasks spawns its share and joins them.
const STORM_TASKS: usize = 1_000_000;
const STORM_SPAWNERS: usize = 100;

/// Spawns `STORM_TASKS` small tasks from `STORM_SPAWNERS` tasks and reports the rate and how the
/// polls and steals spread over the workers.
fn spawn_storm(runtime: &rt::Runtime) {
    let before = runtime.metrics().snapshot();
    let started = Instant::now();
    let sum = runtime.block_on(async {
        let spawners: Vec<_> = (0..STORM_SPAWNERS)
            .map(|s| {
                rt::spawn(async move {
                    let per = STORM_TASKS / STORM_SPAWNERS;
                    let handles: Vec<_> = (0..per)
                        .map(|i| rt::spawn(async move { (s * per + i) as u64 }))
                        .collect();
                    let mut sum = 0u64;
                    for h in handles {
                        sum += h.await.expect("storm task failed");
                    }
                    sum
                })
            })
            .collect();
        let mut sum = 0u64;
        for s in spawners {
            sum += s.await.expect("spawner failed");
        }
        sum
    });
    let elapsed = started.elapsed();
    let n = STORM_TASKS as u64;
    assert_eq!(sum, n * (n - 1) / 2, "every task ran exactly once");
    println!(
        "spawn storm: {STORM_TASKS} tasks from {STORM_SPAWNERS} spawners in {:.1} ms = {:.1} M tasks/s (spawn, run, join)",
        elapsed.as_secs_f64() * 1e3,
        STORM_TASKS as f64 / elapsed.as_secs_f64() / 1e6
    );
    let after = runtime.metrics().snapshot();
    for (i, (a, b)) in after.workers().iter().zip(before.workers()).enumerate() {
        println!(
            "  worker {i}: {:>8} polls, {:>6} steals, {:>5} parks, {:>5} unparks",
            a.polls() - b.polls(),
            a.steals() - b.steals(),
            a.parks() - b.parks(),
            a.unparks() - b.unparks()
        );
    }
}

fn percentile(sorted: &[u64], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    Duration::from_nanos(sorted[i])
}

fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1);
    let connections: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(50);
    let seconds: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());

    let runtime = rt::Builder::new_multi_thread()
        .worker_threads(workers)
        .build()?;
    println!(
        "runtime: rt multi-thread, {workers} workers (each polls its own IO reactor shard); \
         {connections} connections x {MESSAGE}-byte echo for {seconds} s on 127.0.0.1"
    );

    spawn_storm(&runtime);
    println!();

    runtime.block_on(async move {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        rt::spawn(serve(listener));

        let started = Instant::now();
        let end = started + Duration::from_secs(seconds);
        let done = Arc::new(AtomicU64::new(0));
        let clients: Vec<_> = (0..connections)
            .map(|_| rt::spawn(client(addr, end, done.clone())))
            .collect();

        let mut last = 0;
        for second in 1..=seconds {
            rt::time::sleep_until(started + Duration::from_secs(second)).await;
            let now = done.load(Ordering::Relaxed);
            println!(
                "[{second:>3} s] {:>9} requests total, {:>8} req/s",
                now,
                now - last
            );
            last = now;
        }

        let mut all = Vec::new();
        for c in clients {
            match c.await {
                Ok(Ok(lat)) => all.extend(lat),
                Ok(Err(e)) => eprintln!("client failed: {e}"),
                Err(e) => eprintln!("client task failed: {e:?}"),
            }
        }
        let elapsed = started.elapsed();
        all.sort_unstable();
        println!(
            "done: {} requests in {:.2} s = {:.0} req/s",
            all.len(),
            elapsed.as_secs_f64(),
            all.len() as f64 / elapsed.as_secs_f64()
        );
        println!(
            "latency: p50 {:?}  p99 {:?}  p99.9 {:?}  max {:?}",
            percentile(&all, 0.50),
            percentile(&all, 0.99),
            percentile(&all, 0.999),
            all.last()
                .map_or(Duration::ZERO, |&n| Duration::from_nanos(n)),
        );
        Ok(())
    })
}
