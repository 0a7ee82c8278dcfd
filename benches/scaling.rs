//! How each cost grows with the size of the work: rt against tokio and the smol-rs peers, in one
//! process, paired over rotating rounds (`rt_benches::paired_n`), per-unit costs printed.
//!
//! - `spawn`: a task spawns N trivial tasks and joins them, N = 10k / 100k / 1M (ns per task).
//! - `tcp_echo`: 50 / 500 / 2,000 loopback connections, 100,000 round trips of 64 B in all
//!   (ns per message); `RLIMIT_NOFILE` is raised to its hard limit first.
//! - `timers`: N tasks each sleeping 1 ms, N = 10k / 1M: (wall - 1 ms) / N is the insert + fire
//!   cost per timer; and the RSS per pending timer (N one-hour sleeps polled once, boxed).
//! - `oversubscription`: spawn_many_local and ping_pong (the one-shot workload of `peers.rs`) with
//!   2 / 8 / 32 workers on this 2-core machine.
//! - `channels`: 1 / 4 / 16 producers into a bounded channel of 1,024, 400,000 messages in all
//!   (ns per message).
//!
//! Run: `cargo bench -p rt-benches --bench scaling` (or `-- NAME` for one group).

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::time::{Duration, Instant};

use futures_lite::{AsyncReadExt, AsyncWriteExt};
use rt_benches::{paired_n, ping_pong, static_executor, Ex, Runtimes};

/// Prints the medians of a `paired_n` run again as a cost per unit.
fn per_unit(name: &str, units: usize, rounds: usize, c: &mut [rt_benches::Contestant<'_>]) {
    let mut medians = Vec::new();
    for (label, f) in c.iter_mut() {
        let mut t: Vec<f64> = (0..rounds.min(5))
            .map(|_| {
                let s = Instant::now();
                f();
                s.elapsed().as_secs_f64()
            })
            .collect();
        t.sort_by(f64::total_cmp);
        medians.push(format!(
            "{label} {:.1} ns",
            t[t.len() / 2] * 1e9 / units as f64
        ));
    }
    let ratio = paired_n(name, rounds, c);
    println!(
        "  {name}: per unit {} (paired rt/best = {ratio:.2})",
        medians.join(", ")
    );
}

fn spawn_local(r: &Runtimes, n: usize, rounds: usize) {
    let ex = r.ex;
    per_unit(
        &format!("spawn {n} (workers {})", r.workers),
        n,
        rounds,
        &mut [
            ("rt", &mut || {
                r.rt.block_on(async move {
                    rt::spawn(async move {
                        let hs: Vec<_> = (0..n).map(|_| rt::spawn(async {})).collect();
                        for h in hs {
                            h.await.unwrap();
                        }
                    })
                    .await
                    .unwrap()
                })
            }),
            ("tokio", &mut || {
                r.tokio.block_on(async move {
                    tokio::spawn(async move {
                        let hs: Vec<_> = (0..n).map(|_| tokio::spawn(async {})).collect();
                        for h in hs {
                            h.await.unwrap();
                        }
                    })
                    .await
                    .unwrap()
                })
            }),
            ("async-executor", &mut || {
                r.smol(async move {
                    let hs: Vec<_> = (0..n).map(|_| ex.spawn(async {})).collect();
                    for h in hs {
                        h.await;
                    }
                })
            }),
        ],
    );
}

fn spawn(_: &Runtimes2) {
    let r = Runtimes::new(2);
    for (n, rounds) in [(10_000, 30), (100_000, 10), (1_000_000, 5)] {
        spawn_local(&r, n, rounds);
    }
}

fn ping_pong(r: &Runtimes) {
    use ping_pong::{PAIRS, TRIPS};
    per_unit(
        &format!("ping_pong 1000x10 (x20) (workers {})", r.workers),
        20 * PAIRS * TRIPS,
        20,
        &mut [
            ("rt", &mut || (0..20).for_each(|_| ping_pong::rt(&r.rt))),
            ("tokio", &mut || {
                (0..20).for_each(|_| ping_pong::tokio(&r.tokio))
            }),
            ("async-executor", &mut || {
                (0..20).for_each(|_| ping_pong::smol(r))
            }),
        ],
    );
}

fn oversubscription(_: &Runtimes2) {
    for workers in [2, 8, 32] {
        let r = Runtimes::new(workers);
        spawn_local(&r, 10_000, 30);
        ping_pong(&r);
    }
}

fn channels(_: &Runtimes2) {
    const TOTAL: u64 = 400_000;
    const CAP: usize = 1_024;
    let r = Runtimes::new(2);
    let ex = r.ex;
    for producers in [1u64, 4, 16] {
        let per = TOTAL / producers;
        let expect = TOTAL * (TOTAL - 1) / 2;
        per_unit(
            &format!("channel {producers} producers x {per}"),
            TOTAL as usize,
            10,
            &mut [
                ("rt", &mut || {
                    r.rt.block_on(async move {
                        let (tx, rx) = rt::sync::channel::bounded::<u64>(CAP);
                        for p in 0..producers {
                            let tx = tx.clone();
                            rt::spawn(async move {
                                for i in 0..per {
                                    tx.send(p * per + i).await.unwrap();
                                }
                            });
                        }
                        drop(tx);
                        let mut sum = 0u64;
                        while let Some(v) = rx.recv().await {
                            sum = sum.wrapping_add(v);
                        }
                        assert_eq!(sum, expect);
                    })
                }),
                ("tokio", &mut || {
                    r.tokio.block_on(async move {
                        let (tx, mut rx) = tokio::sync::mpsc::channel::<u64>(CAP);
                        for p in 0..producers {
                            let tx = tx.clone();
                            tokio::spawn(async move {
                                for i in 0..per {
                                    tx.send(p * per + i).await.unwrap();
                                }
                            });
                        }
                        drop(tx);
                        let mut sum = 0u64;
                        while let Some(v) = rx.recv().await {
                            sum = sum.wrapping_add(v);
                        }
                        assert_eq!(sum, expect);
                    })
                }),
                ("async-channel", &mut || {
                    r.smol(async move {
                        let (tx, rx) = async_channel::bounded::<u64>(CAP);
                        for p in 0..producers {
                            let tx = tx.clone();
                            ex.spawn(async move {
                                for i in 0..per {
                                    tx.send(p * per + i).await.unwrap();
                                }
                            })
                            .detach();
                        }
                        drop(tx);
                        let mut sum = 0u64;
                        while let Ok(v) = rx.recv().await {
                            sum = sum.wrapping_add(v);
                        }
                        assert_eq!(sum, expect);
                    })
                }),
            ],
        );
    }
}

fn rss_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("read /proc/self/statm");
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("statm resident field");
    pages * 4096
}

/// Polls every future once with `cx`, keeping them pending; returns the RSS growth per future.
fn rss_per_pending<F: Future>(
    futs: impl Fn() -> F,
    n: usize,
    cx: &mut std::task::Context<'_>,
) -> f64 {
    let before = rss_bytes();
    let mut v: Vec<Pin<Box<F>>> = Vec::with_capacity(n);
    for _ in 0..n {
        let mut f = Box::pin(futs());
        assert!(f.as_mut().poll(cx).is_pending());
        v.push(f);
    }
    let per = rss_bytes().saturating_sub(before) as f64 / n as f64;
    drop(v);
    per
}

fn timers(_: &Runtimes2) {
    let r = Runtimes::new(2);
    let ex = r.ex;
    let ms = Duration::from_millis(1);
    for (n, rounds) in [(10_000usize, 20), (1_000_000, 4)] {
        let name = format!("timers {n} x sleep(1 ms)");
        let mut medians = Vec::new();
        let mut c: [rt_benches::Contestant<'_>; 3] = [
            ("rt", &mut || {
                r.rt.block_on(async move {
                    rt::spawn(async move {
                        let hs: Vec<_> = (0..n).map(|_| rt::spawn(rt::time::sleep(ms))).collect();
                        for h in hs {
                            h.await.unwrap();
                        }
                    })
                    .await
                    .unwrap()
                })
            }),
            ("tokio", &mut || {
                r.tokio.block_on(async move {
                    tokio::spawn(async move {
                        let hs: Vec<_> = (0..n)
                            .map(|_| tokio::spawn(tokio::time::sleep(ms)))
                            .collect();
                        for h in hs {
                            h.await.unwrap();
                        }
                    })
                    .await
                    .unwrap()
                })
            }),
            ("async-executor+async-io", &mut || {
                r.smol(async move {
                    let hs: Vec<_> = (0..n)
                        .map(|_| ex.spawn(async move { async_io::Timer::after(ms).await }))
                        .collect();
                    for h in hs {
                        h.await;
                    }
                })
            }),
        ];
        for (label, f) in c.iter_mut() {
            let mut t: Vec<f64> = (0..3)
                .map(|_| {
                    let s = Instant::now();
                    f();
                    s.elapsed().as_secs_f64()
                })
                .collect();
            t.sort_by(f64::total_cmp);
            let per = (t[1] - ms.as_secs_f64()).max(0.0) * 1e9 / n as f64;
            medians.push(format!("{label} {per:.1} ns"));
        }
        let ratio = paired_n(&name, rounds, &mut c);
        println!(
            "  {name}: (wall - 1 ms) per timer {} (paired rt/best = {ratio:.2})",
            medians.join(", ")
        );
    }
    // Memory per pending timer: each runtime in a fresh child process (this binary re-executes
    // itself), so one side's freed-but-retained heap never hides the other's allocations.
    let exe = std::env::current_exe().unwrap();
    let mut line = String::from("timers: RSS per pending timer (1,000,000 one-hour sleeps, boxed, polled once, own process):");
    for which in ["rt", "tokio", "async-io"] {
        let out = std::process::Command::new(&exe)
            .args(["--timer-child", which])
            .output()
            .unwrap();
        assert!(out.status.success(), "{which} child failed: {out:?}");
        line.push_str(&format!(
            " {which} {} B",
            String::from_utf8_lossy(&out.stdout).trim()
        ));
    }
    println!("{line}");
}

/// The child of `timers`: prints the RSS per pending boxed sleep of one runtime.
fn timer_child(which: &str) {
    let hour = Duration::from_secs(3600);
    const N: usize = 1_000_000;
    let per = match which {
        "rt" => {
            let rt = rt::Builder::new_multi_thread()
                .worker_threads(2)
                .build()
                .unwrap();
            rt.block_on(async move {
                rt::spawn(async move {
                    std::future::poll_fn(|cx| {
                        std::task::Poll::Ready(rss_per_pending(|| rt::time::sleep(hour), N, cx))
                    })
                    .await
                })
                .await
                .unwrap()
            })
        }
        "tokio" => {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                tokio::spawn(async move {
                    std::future::poll_fn(|cx| {
                        std::task::Poll::Ready(rss_per_pending(|| tokio::time::sleep(hour), N, cx))
                    })
                    .await
                })
                .await
                .unwrap()
            })
        }
        "async-io" => {
            let ex = static_executor(2);
            async_io::block_on(ex.spawn(async move {
                std::future::poll_fn(|cx| {
                    std::task::Poll::Ready(rss_per_pending(|| async_io::Timer::after(hour), N, cx))
                })
                .await
            }))
        }
        other => panic!("unknown runtime {other}"),
    };
    println!("{per:.1}");
}

fn raise_nofile() {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `lim` is a valid, writable rlimit.
    assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) }, 0);
    lim.rlim_cur = lim.rlim_max;
    // SAFETY: as above; raising the soft limit up to the hard limit needs no privilege.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) }, 0);
    assert!(
        lim.rlim_cur >= 5_000,
        "RLIMIT_NOFILE hard limit {} < 5,000",
        lim.rlim_max
    );
}

async fn rt_echo(conns: usize, trips: usize) {
    let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = rt::spawn(async move {
        loop {
            let (mut s, _) = listener.accept().await.unwrap();
            s.set_nodelay(true).unwrap();
            rt::spawn(async move {
                let mut buf = [0u8; 4096];
                while let Ok(n @ 1..) = s.read(&mut buf).await {
                    if s.write_all(&buf[..n]).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    let clients: Vec<_> = (0..conns)
        .map(|_| {
            rt::spawn(async move {
                let mut c = rt::net::TcpStream::connect(addr).await.unwrap();
                c.set_nodelay(true).unwrap();
                let (msg, mut back) = ([7u8; 64], [0u8; 64]);
                for _ in 0..trips {
                    c.write_all(&msg).await.unwrap();
                    c.read_exact(&mut back).await.unwrap();
                }
            })
        })
        .collect();
    for c in clients {
        c.await.unwrap();
    }
    server.abort();
}

async fn tokio_echo(conns: usize, trips: usize) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        loop {
            let (mut s, _) = listener.accept().await.unwrap();
            s.set_nodelay(true).unwrap();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                while let Ok(n @ 1..) = s.read(&mut buf).await {
                    if s.write_all(&buf[..n]).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    let clients: Vec<_> = (0..conns)
        .map(|_| {
            tokio::spawn(async move {
                let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
                c.set_nodelay(true).unwrap();
                let (msg, mut back) = ([7u8; 64], [0u8; 64]);
                for _ in 0..trips {
                    c.write_all(&msg).await.unwrap();
                    c.read_exact(&mut back).await.unwrap();
                }
            })
        })
        .collect();
    for c in clients {
        c.await.unwrap();
    }
    server.abort();
}

async fn smol_echo(ex: Ex, conns: usize, trips: usize) {
    use async_io::Async;
    use std::net::{TcpListener, TcpStream};
    let listener = Async::<TcpListener>::bind(([127, 0, 0, 1], 0)).unwrap();
    let addr: SocketAddr = listener.get_ref().local_addr().unwrap();
    let server = ex.spawn(async move {
        loop {
            let (mut s, _) = listener.accept().await.unwrap();
            s.get_ref().set_nodelay(true).unwrap();
            ex.spawn(async move {
                let mut buf = [0u8; 4096];
                while let Ok(n @ 1..) = s.read(&mut buf).await {
                    if s.write_all(&buf[..n]).await.is_err() {
                        return;
                    }
                }
            })
            .detach();
        }
    });
    let clients: Vec<_> = (0..conns)
        .map(|_| {
            ex.spawn(async move {
                let mut c = Async::<TcpStream>::connect(addr).await.unwrap();
                c.get_ref().set_nodelay(true).unwrap();
                let (msg, mut back) = ([7u8; 64], [0u8; 64]);
                for _ in 0..trips {
                    c.write_all(&msg).await.unwrap();
                    c.read_exact(&mut back).await.unwrap();
                }
            })
        })
        .collect();
    for c in clients {
        c.await;
    }
    drop(server);
}

fn tcp_echo(_: &Runtimes2) {
    raise_nofile();
    let r = Runtimes::new(2);
    let ex = r.ex;
    for conns in [50usize, 500, 2_000] {
        let trips = 100_000 / conns;
        per_unit(
            &format!("tcp_echo {conns} connections x {trips}"),
            conns * trips,
            6,
            &mut [
                ("rt", &mut || r.rt.block_on(rt_echo(conns, trips))),
                ("tokio", &mut || r.tokio.block_on(tokio_echo(conns, trips))),
                ("async-executor+async-io", &mut || {
                    r.smol(smol_echo(ex, conns, trips))
                }),
            ],
        );
    }
}

/// One named group of `main`.
type Group = fn(&Runtimes2);

/// Groups build their own runtimes (sizes differ); the unit type keeps one signature.
struct Runtimes2;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(pos) = args.iter().position(|a| a == "--timer-child") {
        timer_child(&args[pos + 1]);
        return;
    }
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .unwrap_or_default();
    let groups: [(&str, Group); 5] = [
        ("spawn", spawn),
        ("tcp_echo", tcp_echo),
        ("timers", timers),
        ("oversubscription", oversubscription),
        ("channels", channels),
    ];
    for (name, run) in groups {
        if name.contains(filter.as_str()) {
            run(&Runtimes2);
        }
    }
}
