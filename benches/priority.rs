//! One runtime for latency and batch work (task priorities): request latency of a TCP echo
//! server under a fixed request rate while background CPU work saturates the cores.
//!
//! The load generator is ours, on plain threads outside every runtime, and open-loop: request
//! `k` is due at `start + k / rate`, whatever happened to the earlier ones, and its latency is
//! measured from that due time (so a stall of the server, or of the sender, is not hidden by a
//! late send). One thread sends (round robin over the connections), one receives (`poll(2)`
//! over them). Every request is 64 bytes carrying its sequence number; the echo returns it.
//!
//! Background work: `PRIO_BG_TASKS` tasks (8), each looping over units of ~`PRIO_UNIT_US`
//! (100 µs, calibrated at start) of arithmetic with a `consume_budget().await` between units;
//! the work done is counted in units per second over the load window.
//!
//! Setups, each with 2 worker threads unless named:
//! 1. `rt floor`, `tokio floor`: no background work (the generator against an idle server);
//! 2. `tokio mixed`: one runtime, both kinds of work (what a naive user does);
//! 3. `tokio 2+2`, `tokio 1+1`: an IO runtime and a CPU runtime (the DedicatedExecutor
//!    pattern) with 2 + 2 and 1 + 1 threads;
//! 4. `rt normal mixed`: rt, one runtime, background work at the default priority;
//!    `rt bg S`: rt, one runtime, background work at `Priority::Background`, slice `S` µs
//!    (each value of `PRIO_SLICES_US`, default `200`);
//! 5. `rt bg stall`: as `rt bg` but the background tasks never reach a budget check (their
//!    units run back to back in one poll), with stall detection at `PRIO_STALL_MS` (2 ms): the
//!    stall take-over serves the requests (only with `PRIO_STALL=1`).
//!
//! Rounds (`PRIO_ROUNDS`, 3) run every setup once each, the order rotating by one per round;
//! each run is `PRIO_SECS` (3) seconds at `PRIO_RATE` (4,000) requests/s over `PRIO_CONNS` (8)
//! connections. Printed per setup: medians over the rounds of p50/p99/p999 latency (µs), of the
//! background units per second, and the number of responses missing at the end (lost: not
//! answered within 2 s after the last send). `PRIO_ONLY` (comma-separated name prefixes) runs
//! only those setups; `PRIO_OS_YIELD_US` sets rt's `os_yield_after`.
//!
//! Run: `cargo bench -p rt-benches --bench priority`

use std::hint::black_box;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rt_benches::env_usize;

const MESSAGE: usize = 64;

/// The knobs of one run, from the environment.
#[derive(Clone, Copy)]
struct Load {
    rate: u64,
    secs: f64,
    conns: usize,
    bg_tasks: usize,
    /// Arithmetic iterations per background unit (calibrated).
    unit_iters: u64,
}

/// What one run measured.
#[derive(Clone, Copy, Debug)]
struct Run {
    p50: Duration,
    p99: Duration,
    p999: Duration,
    bg_per_s: f64,
    lost: usize,
}

/// The background tasks' shared state: the stop flag and the unit count.
#[derive(Default)]
struct Background {
    stop: AtomicBool,
    units: AtomicU64,
}

/// One unit of background work: `iters` rounds of integer arithmetic.
fn unit(iters: u64) -> u64 {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..iters {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i)) ^ (x >> 29);
    }
    x
}

/// Iterations of [`unit`] that take about `target` on an otherwise idle core: the fastest of
/// several timings (a noisy machine only ever makes one slower).
fn calibrate(target: Duration) -> u64 {
    let mut iters = 1_000u64;
    while {
        let t = Instant::now();
        black_box(unit(iters));
        t.elapsed() < Duration::from_millis(5)
    } {
        iters *= 2;
    }
    let best = (0..20)
        .map(|_| {
            let t = Instant::now();
            black_box(unit(iters));
            t.elapsed()
        })
        .min()
        .unwrap();
    (iters as f64 * target.as_secs_f64() / best.as_secs_f64()).max(1.0) as u64
}

/// Sets this thread's timer slack to 1 µs, so its sleeps end on time.
fn tight_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK takes one integer (nanoseconds) and changes only this
    // thread's timer slack; no pointer is passed.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1_000 as libc::c_ulong);
    }
}

/// The open-loop generator: `load.rate` requests/s for `load.secs` over `load.conns`
/// connections to `addr`; returns each answered request's latency from its due time, and how
/// many were not answered.
fn generate(addr: SocketAddr, load: &Load) -> (Vec<Duration>, usize) {
    let conns: Vec<std::net::TcpStream> = (0..load.conns)
        .map(|_| {
            let s = std::net::TcpStream::connect(addr).unwrap();
            s.set_nodelay(true).unwrap();
            s
        })
        .collect();
    let total = (load.rate as f64 * load.secs) as u64;
    let period = Duration::from_secs_f64(1.0 / load.rate as f64);
    // Warm the connections (accepted and served once) before the clock starts.
    for mut c in &conns {
        c.write_all(&[0xFF; MESSAGE]).unwrap();
        let mut b = [0u8; MESSAGE];
        c.read_exact(&mut b).unwrap();
    }
    let start = Instant::now() + Duration::from_millis(10);
    let readers: Vec<std::net::TcpStream> = conns.iter().map(|c| c.try_clone().unwrap()).collect();
    let receiver = std::thread::spawn(move || receive(readers, start, period, total));
    tight_timer_slack();
    for seq in 0..total {
        let due = start + period.mul_f64(seq as f64);
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        let mut msg = [0u8; MESSAGE];
        msg[..8].copy_from_slice(&seq.to_le_bytes());
        let mut c = &conns[seq as usize % conns.len()];
        c.write_all(&msg).unwrap();
    }
    let latencies = receiver.join().unwrap();
    let lost = total as usize - latencies.len();
    drop(conns);
    (latencies, lost)
}

/// The generator's receiving side: reads every connection until `total` responses came or 2 s
/// passed after the last request was due.
fn receive(
    conns: Vec<std::net::TcpStream>,
    start: Instant,
    period: Duration,
    total: u64,
) -> Vec<Duration> {
    for c in &conns {
        c.set_nonblocking(true).unwrap();
    }
    let end = start + period.mul_f64(total as f64) + Duration::from_secs(2);
    let mut bufs: Vec<(Vec<u8>, usize)> = conns.iter().map(|_| (vec![0u8; 4096], 0)).collect();
    let mut fds: Vec<libc::pollfd> = conns
        .iter()
        .map(|c| libc::pollfd {
            fd: c.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let mut latencies = Vec::with_capacity(total as usize);
    while (latencies.len() as u64) < total && Instant::now() < end {
        // SAFETY: `fds` is a live array of `fds.len()` pollfds for open descriptors (the
        // streams in `conns` outlive the loop).
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 100) };
        if n <= 0 {
            continue;
        }
        for (i, fd) in fds.iter_mut().enumerate() {
            if fd.revents == 0 {
                continue;
            }
            fd.revents = 0;
            let (buf, filled) = &mut bufs[i];
            let mut c = &conns[i];
            loop {
                match c.read(&mut buf[*filled..]) {
                    Ok(0) => break,
                    Ok(n) => *filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) => panic!("read: {e}"),
                }
                let now = Instant::now();
                let whole = *filled / MESSAGE * MESSAGE;
                for m in buf[..whole].chunks(MESSAGE) {
                    let seq = u64::from_le_bytes(m[..8].try_into().unwrap());
                    let due = start + period.mul_f64(seq as f64);
                    latencies.push(now.saturating_duration_since(due));
                }
                buf.copy_within(whole..*filled, 0);
                *filled -= whole;
            }
        }
    }
    latencies
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 * q) as usize).min(sorted.len() - 1)]
}

/// Runs the generator against `addr` while `bg` counts background units.
fn measure(addr: SocketAddr, load: &Load, bg: &Background) -> Run {
    // Let the background tasks get going before the window opens.
    std::thread::sleep(Duration::from_millis(100));
    let (u0, t0) = (bg.units.load(Ordering::Relaxed), Instant::now());
    let (mut lat, lost) = generate(addr, load);
    let (u1, t1) = (bg.units.load(Ordering::Relaxed), Instant::now());
    bg.stop.store(true, Ordering::Relaxed);
    lat.sort_unstable();
    Run {
        p50: percentile(&lat, 0.50),
        p99: percentile(&lat, 0.99),
        p999: percentile(&lat, 0.999),
        bg_per_s: (u1 - u0) as f64 / (t1 - t0).as_secs_f64(),
        lost,
    }
}

mod rt_side {
    use super::*;
    use rt::net::TcpListener;

    pub fn runtime(
        workers: usize,
        slice: Option<Duration>,
        stall: Option<Duration>,
    ) -> rt::Runtime {
        let mut b = rt::Builder::new_multi_thread();
        b.worker_threads(workers);
        if let Some(s) = slice {
            b.background_time_slice(s);
        }
        if let Some(t) = stall {
            b.stall_threshold(Some(t));
        }
        if let Ok(us) = std::env::var("PRIO_OS_YIELD_US") {
            b.os_yield_after(Some(Duration::from_micros(us.parse().unwrap())));
        }
        b.build().unwrap()
    }

    /// An echo server on `rt`; its tasks are normal.
    pub fn echo_server(rt: &rt::Runtime) -> SocketAddr {
        rt.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            rt::spawn(async move {
                loop {
                    let (mut s, _) = listener.accept().await.unwrap();
                    s.set_nodelay(true).unwrap();
                    rt::spawn(async move {
                        let mut buf = [0u8; 4096];
                        loop {
                            match s.read(&mut buf).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => {
                                    if s.write_all(&buf[..n]).await.is_err() {
                                        return;
                                    }
                                }
                            }
                        }
                    });
                }
            });
            addr
        })
    }

    /// The background tasks, at `priority`; `checks`: a budget check between units (else the
    /// units run back to back in one poll until `stop`).
    pub fn background(
        rt: &rt::Runtime,
        load: &Load,
        bg: &Arc<Background>,
        priority: rt::task::Priority,
        checks: bool,
    ) {
        for _ in 0..load.bg_tasks {
            let (bg, iters) = (bg.clone(), load.unit_iters);
            rt::task::Builder::new()
                .priority(priority)
                .spawn_on(
                    async move {
                        while !bg.stop.load(Ordering::Relaxed) {
                            black_box(unit(iters));
                            bg.units.fetch_add(1, Ordering::Relaxed);
                            if checks {
                                rt::task::consume_budget().await;
                            }
                        }
                    },
                    rt.handle(),
                )
                .unwrap();
        }
    }
}

mod tokio_side {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    pub fn runtime(workers: usize) -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
            .unwrap()
    }

    pub fn echo_server(rt: &tokio::runtime::Runtime) -> SocketAddr {
        rt.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            tokio::spawn(async move {
                loop {
                    let (mut s, _) = listener.accept().await.unwrap();
                    s.set_nodelay(true).unwrap();
                    tokio::spawn(async move {
                        let mut buf = [0u8; 4096];
                        loop {
                            match s.read(&mut buf).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => {
                                    if s.write_all(&buf[..n]).await.is_err() {
                                        return;
                                    }
                                }
                            }
                        }
                    });
                }
            });
            addr
        })
    }

    pub fn background(rt: &tokio::runtime::Runtime, load: &Load, bg: &Arc<Background>) {
        for _ in 0..load.bg_tasks {
            let (bg, iters) = (bg.clone(), load.unit_iters);
            rt.spawn(async move {
                while !bg.stop.load(Ordering::Relaxed) {
                    black_box(unit(iters));
                    bg.units.fetch_add(1, Ordering::Relaxed);
                    tokio::task::coop::consume_budget().await;
                }
            });
        }
    }
}

/// One setup: its name and how to run it once.
struct Setup {
    name: String,
    run: Box<dyn Fn(&Load) -> Run>,
}

fn setups(slices: &[u64], stall: Option<Duration>) -> Vec<Setup> {
    use rt::task::Priority;
    let mut v: Vec<Setup> = vec![
        Setup {
            name: "rt floor".into(),
            run: Box::new(|load| {
                let rt = rt_side::runtime(2, None, None);
                let addr = rt_side::echo_server(&rt);
                measure(addr, load, &Background::default())
            }),
        },
        Setup {
            name: "tokio floor".into(),
            run: Box::new(|load| {
                let rt = tokio_side::runtime(2);
                let addr = tokio_side::echo_server(&rt);
                measure(addr, load, &Background::default())
            }),
        },
        Setup {
            name: "tokio mixed".into(),
            run: Box::new(|load| {
                let rt = tokio_side::runtime(2);
                let addr = tokio_side::echo_server(&rt);
                let bg = Arc::new(Background::default());
                tokio_side::background(&rt, load, &bg);
                measure(addr, load, &bg)
            }),
        },
    ];
    for (io, cpu) in [(2, 2), (1, 1)] {
        v.push(Setup {
            name: format!("tokio {io}+{cpu}"),
            run: Box::new(move |load| {
                let io_rt = tokio_side::runtime(io);
                let cpu_rt = tokio_side::runtime(cpu);
                let addr = tokio_side::echo_server(&io_rt);
                let bg = Arc::new(Background::default());
                tokio_side::background(&cpu_rt, load, &bg);
                measure(addr, load, &bg)
            }),
        });
    }
    v.push(Setup {
        name: "rt normal mixed".into(),
        run: Box::new(|load| {
            let rt = rt_side::runtime(2, None, None);
            let addr = rt_side::echo_server(&rt);
            let bg = Arc::new(Background::default());
            rt_side::background(&rt, load, &bg, Priority::Normal, true);
            measure(addr, load, &bg)
        }),
    });
    for &us in slices {
        v.push(Setup {
            name: format!("rt bg {us}"),
            run: Box::new(move |load| {
                let rt = rt_side::runtime(2, Some(Duration::from_micros(us)), None);
                let addr = rt_side::echo_server(&rt);
                let bg = Arc::new(Background::default());
                rt_side::background(&rt, load, &bg, Priority::Background, true);
                measure(addr, load, &bg)
            }),
        });
    }
    if let Some(threshold) = stall {
        v.push(Setup {
            name: "rt bg stall".into(),
            run: Box::new(move |load| {
                let rt = rt_side::runtime(2, None, Some(threshold));
                let addr = rt_side::echo_server(&rt);
                let bg = Arc::new(Background::default());
                rt_side::background(&rt, load, &bg, Priority::Background, false);
                let r = measure(addr, load, &bg);
                // The background polls end at their next unit (`stop` is set).
                rt.shutdown_timeout(Duration::from_secs(5));
                r
            }),
        });
    }
    v
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is taken from the command line.
    let unit_us = env_usize("PRIO_UNIT_US", 100) as u64;
    let load = Load {
        rate: env_usize("PRIO_RATE", 4_000) as u64,
        secs: env_usize("PRIO_SECS", 3) as f64,
        conns: env_usize("PRIO_CONNS", 8),
        bg_tasks: env_usize("PRIO_BG_TASKS", 8),
        unit_iters: calibrate(Duration::from_micros(unit_us)),
    };
    let rounds = env_usize("PRIO_ROUNDS", 3);
    let slices: Vec<u64> = std::env::var("PRIO_SLICES_US")
        .unwrap_or_else(|_| "200".into())
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .expect("PRIO_SLICES_US: comma-separated µs")
        })
        .collect();
    let stall = (env_usize("PRIO_STALL", 0) == 1)
        .then(|| Duration::from_millis(env_usize("PRIO_STALL_MS", 2) as u64));
    let mut setups = setups(&slices, stall);
    if let Ok(only) = std::env::var("PRIO_ONLY") {
        // Comma-separated name prefixes.
        setups.retain(|s| only.split(',').any(|p| s.name.starts_with(p.trim())));
    }
    println!(
        "priority: {} req/s for {} s over {} connections, {} background tasks of {unit_us} µs \
         units ({} iterations), {rounds} rounds",
        load.rate, load.secs, load.conns, load.bg_tasks, load.unit_iters
    );
    let mut results: Vec<Vec<Run>> = setups.iter().map(|_| Vec::new()).collect();
    for round in 0..rounds {
        for k in 0..setups.len() {
            let i = (k + round) % setups.len();
            let r = (setups[i].run)(&load);
            eprintln!(
                "  round {round} {:<16} p50 {:>8.1} p99 {:>8.1} p999 {:>8.1} µs, bg {:>8.0}/s, lost {}",
                setups[i].name,
                r.p50.as_secs_f64() * 1e6,
                r.p99.as_secs_f64() * 1e6,
                r.p999.as_secs_f64() * 1e6,
                r.bg_per_s,
                r.lost
            );
            results[i].push(r);
        }
    }
    println!(
        "{:<16} {:>10} {:>10} {:>10} {:>12} {:>6}",
        "setup", "p50 µs", "p99 µs", "p999 µs", "bg units/s", "lost"
    );
    for (s, runs) in setups.iter().zip(&results) {
        let m = |f: &dyn Fn(&Run) -> f64| median(runs.iter().map(f).collect());
        println!(
            "{:<16} {:>10.1} {:>10.1} {:>10.1} {:>12.0} {:>6}",
            s.name,
            m(&|r| r.p50.as_secs_f64() * 1e6),
            m(&|r| r.p99.as_secs_f64() * 1e6),
            m(&|r| r.p999.as_secs_f64() * 1e6),
            m(&|r| r.bg_per_s),
            runs.iter().map(|r| r.lost).max().unwrap_or(0)
        );
    }
}
