//! HTTP/1.1 keep-alive "hello world": hyper on rt (`rt_hyper::serve`) vs hyper on tokio
//! (hyper-util's `TokioIo`, `TokioExecutor`, `TokioTimer`, the same auto builder), 2 workers
//! each, driven by the same load generator.
//!
//! The load generator is `wrk` (install it with `scripts/setup-bench.sh`): `wrk -t2 -cN -dSs
//! --latency`, at 50 and 256 connections. Without `wrk` (or with `HTTP_BENCH_CLIENT=inprocess`)
//! an in-process client takes its place: an rt runtime of 2 workers running N hyper HTTP/1.1
//! connections that each send requests back to back for the same duration.
//!
//! Rounds are paired: rt and tokio alternate (who goes first swaps every round), so both sides
//! of a round see the same machine. Per connection count it prints each side's median
//! requests/s, p50 and p99 latency, and the median of the per-round rt/tokio throughput ratios.
//!
//! Run: `scripts/setup-bench.sh && cargo bench -p rt-benches --bench http`
//! Knobs (environment): `HTTP_BENCH_SECS` (per run, default 5), `HTTP_BENCH_ROUNDS` (pairs,
//! default 3), `HTTP_BENCH_CONNS` (default `50,256`), `HTTP_BENCH_CLIENT` (`wrk` or `inprocess`),
//! `HTTP_BENCH_METRICS` (set: print rt's per-worker metrics after each rt run).
//!
//! Server only, for profiling one side (`perf stat -e 'syscalls:sys_enter_*'`, `perf record`,
//! `strace -c`) with the load generator outside the measured process:
//! `HTTP_BENCH_SERVE=rt` (or `tokio`) serves on `HTTP_BENCH_ADDR` (default `127.0.0.1:18080`)
//! until its standard input closes, e.g.
//! `{ sleep 1; wrk -t2 -c50 -d3s --latency http://127.0.0.1:18080/; } | HTTP_BENCH_SERVE=rt <bench binary> --bench`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Empty, Full};
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper::{Request, Response};

const WORKERS: usize = 2;

async fn hello(_req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(
        b"Hello, world!",
    ))))
}

/// A server under test; dropping it shuts its runtime down.
enum Server {
    Rt(#[allow(dead_code)] rt::Runtime),
    Tokio(#[allow(dead_code)] tokio::runtime::Runtime),
}

fn rt_server() -> (Server, SocketAddr) {
    rt_server_on("127.0.0.1:0")
}

fn rt_server_on(bind: &str) -> (Server, SocketAddr) {
    let mut builder = rt::Builder::new_multi_thread();
    builder.worker_threads(WORKERS);
    // Knobs for A/B runs of rt's own settings (unset: rt's defaults).
    if let Ok(us) = std::env::var("HTTP_BENCH_RT_OS_YIELD_US") {
        let us: u64 = us
            .parse()
            .expect("HTTP_BENCH_RT_OS_YIELD_US: microseconds, 0 = never");
        builder.os_yield_after((us > 0).then(|| Duration::from_micros(us)));
    }
    if let Ok(n) = std::env::var("HTTP_BENCH_RT_EVENT_INTERVAL") {
        builder.event_interval(n.parse().expect("HTTP_BENCH_RT_EVENT_INTERVAL: a number"));
    }
    let runtime = builder.build().unwrap();
    let addr = runtime.block_on(async {
        let listener = rt::net::TcpListener::bind(bind).await.unwrap();
        let addr = listener.local_addr().unwrap();
        rt::spawn(rt_hyper::serve(listener, service_fn(hello)));
        addr
    });
    (Server::Rt(runtime), addr)
}

fn tokio_server() -> (Server, SocketAddr) {
    tokio_server_on("127.0.0.1:0")
}

fn tokio_server_on(bind: &str) -> (Server, SocketAddr) {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use hyper_util::server::conn::auto::Builder;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .enable_all()
        .build()
        .unwrap();
    let addr = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(bind).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut builder = Builder::new(TokioExecutor::new());
        builder.http1().timer(TokioTimer::new());
        builder.http2().timer(TokioTimer::new());
        let builder = Arc::new(builder);
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let builder = builder.clone();
                tokio::spawn(async move {
                    let _ = builder
                        .serve_connection_with_upgrades(TokioIo::new(stream), service_fn(hello))
                        .await;
                });
            }
        });
        addr
    });
    (Server::Tokio(runtime), addr)
}

#[derive(Debug, Clone, Copy)]
struct Sample {
    rps: f64,
    p50: Duration,
    p99: Duration,
}

/// `1.23ms` / `456.78us` / `1.2s` → a duration.
fn parse_wrk_duration(s: &str) -> Option<Duration> {
    let (num, unit) = s.split_at(s.find(|c: char| c.is_ascii_alphabetic())?);
    let v: f64 = num.parse().ok()?;
    let secs = match unit {
        "us" => v / 1e6,
        "ms" => v / 1e3,
        "s" => v,
        "m" => v * 60.0,
        _ => return None,
    };
    Some(Duration::from_secs_f64(secs))
}

fn wrk(addr: SocketAddr, conns: usize, secs: u64) -> Sample {
    let out = Command::new("wrk")
        .args([
            "-t2",
            &format!("-c{conns}"),
            &format!("-d{secs}s"),
            "--latency",
            &format!("http://{addr}/"),
        ])
        .output()
        .expect("run wrk");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut rps = None;
    let (mut p50, mut p99) = (None, None);
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("Requests/sec:"), Some(v)) => rps = v.parse().ok(),
            (Some("50%"), Some(v)) => p50 = parse_wrk_duration(v),
            (Some("99%"), Some(v)) => p99 = parse_wrk_duration(v),
            _ => {}
        }
    }
    match (rps, p50, p99) {
        (Some(rps), Some(p50), Some(p99)) => Sample { rps, p50, p99 },
        _ => panic!("could not read wrk's output:\n{text}"),
    }
}

/// The fallback load generator: `conns` keep-alive connections on an rt runtime of 2 workers.
fn in_process(addr: SocketAddr, conns: usize, secs: u64) -> Sample {
    use rt_hyper::HyperIo;

    let runtime = rt::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .build()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut latencies: Vec<Duration> = runtime.block_on(async move {
        let mut tasks = Vec::new();
        for _ in 0..conns {
            tasks.push(rt::spawn(async move {
                let stream = rt::net::TcpStream::connect(addr).await.unwrap();
                stream.set_nodelay(true).unwrap();
                let (mut sender, conn) =
                    hyper::client::conn::http1::handshake(HyperIo::new(stream))
                        .await
                        .unwrap();
                rt::spawn(async move {
                    let _ = conn.await;
                });
                let mut lat = Vec::new();
                while Instant::now() < deadline {
                    let req = Request::get("/")
                        .header("host", "localhost")
                        .body(Empty::<Bytes>::new())
                        .unwrap();
                    let start = Instant::now();
                    sender.ready().await.unwrap();
                    let resp = sender.send_request(req).await.unwrap();
                    resp.into_body().collect().await.unwrap();
                    lat.push(start.elapsed());
                }
                lat
            }));
        }
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        all
    });
    latencies.sort_unstable();
    let pct = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
    Sample {
        rps: latencies.len() as f64 / secs as f64,
        p50: pct(0.50),
        p99: pct(0.99),
    }
}

/// `HTTP_BENCH_METRICS=1`: where rt's server spent the run, per worker (to stderr).
fn print_rt_metrics(runtime: &rt::Runtime) {
    let m = runtime.metrics().snapshot();
    for w in 0..m.num_workers() {
        eprintln!(
            "    rt worker {w}: polls {} local_sched {} lifo_hits {} steals {} ({} ops) parks {} unparks {} \
             reactor turns {} events {} busy {:?}",
            m.worker_poll_count(w),
            m.worker_local_schedule_count(w),
            m.worker_lifo_hit_count(w),
            m.worker_steal_count(w),
            m.worker_steal_operations(w),
            m.worker_park_count(w),
            m.worker_unpark_count(w),
            m.worker_reactor_turn_count(w),
            m.worker_reactor_event_count(w),
            m.worker_total_busy_duration(w),
        );
    }
    eprintln!("    rt remote_schedule {}", m.remote_schedule_count());
}

fn median<T: Copy + PartialOrd>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `HTTP_BENCH_SERVE=rt|tokio`: serve on `HTTP_BENCH_ADDR` until standard input closes.
fn serve_only(which: &str) {
    let bind = std::env::var("HTTP_BENCH_ADDR").unwrap_or_else(|_| "127.0.0.1:18080".into());
    let (server, addr) = match which {
        "rt" => rt_server_on(&bind),
        "tokio" => tokio_server_on(&bind),
        other => panic!("HTTP_BENCH_SERVE: `rt` or `tokio`, not `{other}`"),
    };
    eprintln!("serving ({which}) on http://{addr}/ until standard input closes");
    std::io::copy(&mut std::io::stdin(), &mut std::io::sink()).unwrap();
    if let (true, Server::Rt(runtime)) = (std::env::var_os("HTTP_BENCH_METRICS").is_some(), &server)
    {
        print_rt_metrics(runtime);
    }
}

fn main() {
    if let Ok(which) = std::env::var("HTTP_BENCH_SERVE") {
        return serve_only(&which);
    }
    let secs: u64 = env_or("HTTP_BENCH_SECS", 5);
    let rounds: usize = env_or("HTTP_BENCH_ROUNDS", 3);
    let conns: Vec<usize> = std::env::var("HTTP_BENCH_CONNS")
        .unwrap_or_else(|_| "50,256".into())
        .split(',')
        .map(|c| {
            c.trim()
                .parse()
                .expect("HTTP_BENCH_CONNS: numbers, comma-separated")
        })
        .collect();
    let have_wrk = Command::new("wrk").arg("--version").output().is_ok();
    let use_wrk = match std::env::var("HTTP_BENCH_CLIENT").as_deref() {
        Ok("inprocess") => false,
        Ok("wrk") => true,
        _ => have_wrk,
    };
    let client = if use_wrk {
        "wrk -t2"
    } else {
        "in-process rt client"
    };
    println!(
        "HTTP/1.1 keep-alive hello world, hyper on rt vs tokio ({WORKERS} workers each), \
         load: {client}, {secs} s per run, {rounds} paired rounds"
    );
    let load = |addr, c| {
        if use_wrk {
            wrk(addr, c, secs)
        } else {
            in_process(addr, c, secs)
        }
    };
    let show_metrics = std::env::var_os("HTTP_BENCH_METRICS").is_some();
    let run = |make: fn() -> (Server, SocketAddr), c: usize| {
        let (server, addr) = make();
        let s = load(addr, c);
        if let (true, Server::Rt(runtime)) = (show_metrics, &server) {
            print_rt_metrics(runtime);
        }
        drop(server);
        s
    };
    println!("| conns | rt req/s | tokio req/s | rt/tokio (median of rounds) | rt p50 | tokio p50 | rt p99 | tokio p99 |");
    println!("|---|---|---|---|---|---|---|---|");
    for &c in &conns {
        let (mut rts, mut tokios, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            let (r, t) = if round % 2 == 0 {
                let r = run(rt_server, c);
                (r, run(tokio_server, c))
            } else {
                let t = run(tokio_server, c);
                (run(rt_server, c), t)
            };
            eprintln!(
                "  c={c} round {round}: rt {:.0} req/s p50 {:?} p99 {:?} | tokio {:.0} req/s p50 {:?} p99 {:?}",
                r.rps, r.p50, r.p99, t.rps, t.p50, t.p99
            );
            ratios.push(r.rps / t.rps);
            rts.push(r);
            tokios.push(t);
        }
        let med = |v: &Vec<Sample>, f: fn(&Sample) -> f64| median(v.iter().map(f).collect());
        let ms = |d: f64| format!("{:.2} ms", d * 1e3);
        println!(
            "| {c} | {:.0} | {:.0} | {:.2} | {} | {} | {} | {} |",
            med(&rts, |s| s.rps),
            med(&tokios, |s| s.rps),
            median(ratios),
            ms(med(&rts, |s| s.p50.as_secs_f64())),
            ms(med(&tokios, |s| s.p50.as_secs_f64())),
            ms(med(&rts, |s| s.p99.as_secs_f64())),
            ms(med(&tokios, |s| s.p99.as_secs_f64())),
        );
    }
}
