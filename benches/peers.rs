//! rt against every peer a user would pick instead, in one process and one run, 2 workers each:
//! tokio, and smol's pieces — `async-executor` (a leaked `&'static Executor` run by 2 threads),
//! `async-channel`, `async-lock`, `async-io` (timers, TCP).
//!
//! Every workload is measured with `rt_benches::paired_n`: rotating rounds, the median of the
//! per-round `rt/tokio` and `rt/best_peer` ratios. `mutex` also prints the longest time any one
//! `lock().await` waited, over many short rounds (the workload is bimodal: the 8 tasks land on
//! one worker or on both). `sleep_lateness` prints p50/p99 lateness of 1 ms sleeps (no ratio).
//! No workload here is single-threaded, so `LocalExecutor` has no entry.
//!
//! Run: `cargo bench -p rt-benches --bench peers` (or `-- NAME` for the workloads whose name
//! contains NAME).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use futures_lite::{AsyncReadExt, AsyncWriteExt};
use rt_benches::{paired_n, ping_pong, yield_now, Ex, Runtimes};

const SPAWNS: usize = 10_000;
const YIELD_TASKS: usize = 200;
const YIELDS: usize = 1_000;
const CHAIN: usize = 1_000;
const PRODUCERS: u64 = 4;
const PER_PRODUCER: u64 = 100_000;
const CAPACITY: usize = 1_024;
const LOCK_TASKS: usize = 8;
const LOCK_OPS: usize = 10_000;
const TIMERS: usize = 10_000;
const CONNECTIONS: usize = 50;
const ECHO_TRIPS: usize = 2_000;
const MESSAGE: usize = 64;

fn spawn_many_local(r: &Runtimes) {
    let ex = r.ex;
    paired_n(
        "spawn_many_local (x20)",
        30,
        &mut [
            ("rt", &mut || {
                for _ in 0..20 {
                    r.rt.block_on(async {
                        rt::spawn(async {
                            let hs: Vec<_> = (0..SPAWNS).map(|_| rt::spawn(async {})).collect();
                            for h in hs {
                                h.await.unwrap();
                            }
                        })
                        .await
                        .unwrap()
                    })
                }
            }),
            ("tokio", &mut || {
                for _ in 0..20 {
                    r.tokio.block_on(async {
                        tokio::spawn(async {
                            let hs: Vec<_> = (0..SPAWNS).map(|_| tokio::spawn(async {})).collect();
                            for h in hs {
                                h.await.unwrap();
                            }
                        })
                        .await
                        .unwrap()
                    })
                }
            }),
            ("async-executor", &mut || {
                for _ in 0..20 {
                    r.smol(async move {
                        let hs: Vec<_> = (0..SPAWNS).map(|_| ex.spawn(async {})).collect();
                        for h in hs {
                            h.await;
                        }
                    })
                }
            }),
        ],
    );
}

/// Spawns `SPAWNS` counting tasks through `spawn` from this thread and waits for the last.
fn remote(spawn: &dyn Fn(Box<dyn FnOnce() + Send>)) {
    let (tx, rx) = mpsc::sync_channel(1);
    let rem = Arc::new(AtomicUsize::new(SPAWNS));
    for _ in 0..SPAWNS {
        let (tx, rem) = (tx.clone(), rem.clone());
        spawn(Box::new(move || {
            if rem.fetch_sub(1, Ordering::Relaxed) == 1 {
                tx.send(()).unwrap();
            }
        }));
    }
    rx.recv().unwrap();
}

fn spawn_many_remote(r: &Runtimes) {
    paired_n(
        "spawn_many_remote (x20)",
        30,
        &mut [
            ("rt", &mut || {
                for _ in 0..20 {
                    remote(&|f| drop(r.rt.spawn(async move { f() })))
                }
            }),
            ("tokio", &mut || {
                for _ in 0..20 {
                    remote(&|f| drop(r.tokio.spawn(async move { f() })))
                }
            }),
            ("async-executor", &mut || {
                for _ in 0..20 {
                    remote(&|f| r.ex.spawn(async move { f() }).detach())
                }
            }),
        ],
    );
}

/// Spawns `SPAWNS` empty tasks from this (non-worker) thread, then awaits every `JoinHandle`
/// in `block_on` (the shape of a program whose main thread fans work out).
fn spawn_remote_join(r: &Runtimes) {
    paired_n(
        "spawn_remote_join (x20)",
        30,
        &mut [
            ("rt", &mut || {
                for _ in 0..20 {
                    let hs: Vec<_> = (0..SPAWNS).map(|_| r.rt.spawn(async {})).collect();
                    r.rt.block_on(async {
                        for h in hs {
                            h.await.unwrap();
                        }
                    })
                }
            }),
            ("tokio", &mut || {
                for _ in 0..20 {
                    let hs: Vec<_> = (0..SPAWNS).map(|_| r.tokio.spawn(async {})).collect();
                    r.tokio.block_on(async {
                        for h in hs {
                            h.await.unwrap();
                        }
                    })
                }
            }),
            ("async-executor", &mut || {
                for _ in 0..20 {
                    let hs: Vec<_> = (0..SPAWNS).map(|_| r.ex.spawn(async {})).collect();
                    async_io::block_on(async {
                        for h in hs {
                            h.await;
                        }
                    })
                }
            }),
        ],
    );
}

/// `TIMERS` tasks each sleeping 1 ms, spawned from this (non-worker) thread and awaited in
/// `block_on`: spawn to last wake-up (the floor is 1 ms).
fn timers_10k_remote(r: &Runtimes) {
    let ms = Duration::from_millis(1);
    paired_n(
        "timers_10k_remote",
        30,
        &mut [
            ("rt", &mut || {
                let hs: Vec<_> = (0..TIMERS)
                    .map(|_| r.rt.spawn(async move { rt::time::sleep(ms).await }))
                    .collect();
                r.rt.block_on(async {
                    for h in hs {
                        h.await.unwrap();
                    }
                })
            }),
            ("tokio", &mut || {
                let hs: Vec<_> = (0..TIMERS)
                    .map(|_| r.tokio.spawn(async move { tokio::time::sleep(ms).await }))
                    .collect();
                r.tokio.block_on(async {
                    for h in hs {
                        h.await.unwrap();
                    }
                })
            }),
            ("async-executor", &mut || {
                let hs: Vec<_> = (0..TIMERS)
                    .map(|_| {
                        r.ex.spawn(async move {
                            async_io::Timer::after(ms).await;
                        })
                    })
                    .collect();
                async_io::block_on(async {
                    for h in hs {
                        h.await;
                    }
                })
            }),
        ],
    );
}

fn yield_many(r: &Runtimes) {
    let ex = r.ex;
    paired_n(
        "yield_many",
        20,
        &mut [
            ("rt", &mut || {
                r.rt.block_on(async {
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
            }),
            ("tokio", &mut || {
                r.tokio.block_on(async {
                    let hs: Vec<_> = (0..YIELD_TASKS)
                        .map(|_| {
                            tokio::spawn(async {
                                for _ in 0..YIELDS {
                                    tokio::task::yield_now().await;
                                }
                            })
                        })
                        .collect();
                    for h in hs {
                        h.await.unwrap();
                    }
                })
            }),
            ("async-executor", &mut || {
                r.smol(async move {
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
                })
            }),
        ],
    );
}

fn rt_chain(n: usize, tx: mpsc::SyncSender<()>) {
    if n == 0 {
        tx.send(()).unwrap();
    } else {
        rt::spawn(async move { rt_chain(n - 1, tx) });
    }
}

fn tokio_chain(n: usize, tx: mpsc::SyncSender<()>) {
    if n == 0 {
        tx.send(()).unwrap();
    } else {
        tokio::spawn(async move { tokio_chain(n - 1, tx) });
    }
}

fn ex_chain(ex: Ex, n: usize, tx: mpsc::SyncSender<()>) {
    if n == 0 {
        tx.send(()).unwrap();
    } else {
        ex.spawn(async move { ex_chain(ex, n - 1, tx) }).detach();
    }
}

fn chained_spawn(r: &Runtimes) {
    let ex = r.ex;
    paired_n(
        "chained_spawn (x20)",
        30,
        &mut [
            ("rt", &mut || {
                for _ in 0..20 {
                    let (tx, rx) = mpsc::sync_channel(1);
                    r.rt.spawn(async move { rt_chain(CHAIN, tx) });
                    rx.recv().unwrap();
                }
            }),
            ("tokio", &mut || {
                for _ in 0..20 {
                    let (tx, rx) = mpsc::sync_channel(1);
                    r.tokio.spawn(async move { tokio_chain(CHAIN, tx) });
                    rx.recv().unwrap();
                }
            }),
            ("async-executor", &mut || {
                for _ in 0..20 {
                    let (tx, rx) = mpsc::sync_channel(1);
                    ex.spawn(async move { ex_chain(ex, CHAIN, tx) }).detach();
                    rx.recv().unwrap();
                }
            }),
        ],
    );
}

fn ping_pong(r: &Runtimes) {
    paired_n(
        "ping_pong (x20)",
        30,
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

/// `PRODUCERS` tasks send `PER_PRODUCER` values each into a bounded channel of `CAPACITY`; one
/// consumer sums them.
fn bounded(r: &Runtimes) {
    let ex = r.ex;
    let n = PRODUCERS * PER_PRODUCER;
    let expect = n * (n - 1) / 2;
    paired_n(
        "bounded 4x100,000 cap 1024",
        12,
        &mut [
            ("rt", &mut || {
                r.rt.block_on(async {
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
                    assert_eq!(sum.await.unwrap(), expect);
                })
            }),
            ("tokio", &mut || {
                r.tokio.block_on(async {
                    let (tx, mut rx) = tokio::sync::mpsc::channel::<u64>(CAPACITY);
                    for p in 0..PRODUCERS {
                        let tx = tx.clone();
                        tokio::spawn(async move {
                            for i in 0..PER_PRODUCER {
                                tx.send(p * PER_PRODUCER + i).await.unwrap();
                            }
                        });
                    }
                    drop(tx);
                    let sum = tokio::spawn(async move {
                        let mut sum = 0u64;
                        while let Some(v) = rx.recv().await {
                            sum = sum.wrapping_add(v);
                        }
                        sum
                    });
                    assert_eq!(sum.await.unwrap(), expect);
                })
            }),
            ("async-executor", &mut || {
                r.smol(async move {
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
                    assert_eq!(sum.await, expect);
                })
            }),
        ],
    );
}

/// The longest single `lock().await` wait seen, in nanoseconds, shared by one round's tasks.
type MaxWait = Arc<std::sync::atomic::AtomicU64>;

fn note_wait(max: &MaxWait, since: Instant) {
    max.fetch_max(since.elapsed().as_nanos() as u64, Ordering::Relaxed);
}

/// `LOCK_TASKS` tasks each lock `LOCK_OPS` times and increment; with `max`, each lock's wait is
/// timed (`Instant::now` twice per lock, so those rounds are not the throughput rounds).
macro_rules! mutex_round {
    ($spawn:expr, $join:ident, $mutex:expr, $max:expr) => {{
        let m = Arc::new($mutex);
        let max: Option<MaxWait> = $max;
        let hs: Vec<_> = (0..LOCK_TASKS)
            .map(|_| {
                let (m, max) = (m.clone(), max.clone());
                $spawn(async move {
                    for _ in 0..LOCK_OPS {
                        match &max {
                            None => *m.lock().await += 1,
                            Some(max) => {
                                let since = Instant::now();
                                let mut g = m.lock().await;
                                note_wait(max, since);
                                *g += 1;
                            }
                        }
                    }
                })
            })
            .collect();
        for h in hs {
            $join!(h);
        }
        assert_eq!(*m.lock().await, (LOCK_TASKS * LOCK_OPS) as u64);
    }};
}

macro_rules! join_unwrap {
    ($h:expr) => {
        $h.await.unwrap()
    };
}
macro_rules! join_plain {
    ($h:expr) => {
        $h.await
    };
}

/// One round of the mutex workload, optionally timing every lock's wait.
type MutexRound<'a> = dyn Fn(Option<MaxWait>) + 'a;

fn mutex(r: &Runtimes) {
    let ex = r.ex;
    let rounds = 60;
    let rt_round = |max: Option<MaxWait>| {
        r.rt.block_on(async {
            mutex_round!(rt::spawn, join_unwrap, rt::sync::Mutex::new(0u64), max)
        })
    };
    let rt_fifo_round = |max: Option<MaxWait>| {
        r.rt.block_on(async {
            mutex_round!(
                rt::spawn,
                join_unwrap,
                rt::sync::Mutex::with_fairness_bound(0u64, Some(Duration::ZERO)),
                max
            )
        })
    };
    let tokio_round = |max: Option<MaxWait>| {
        r.tokio.block_on(async {
            mutex_round!(
                tokio::spawn,
                join_unwrap,
                tokio::sync::Mutex::new(0u64),
                max
            )
        })
    };
    let smol_round = |max: Option<MaxWait>| {
        r.smol(async move {
            mutex_round!(
                |f| ex.spawn(f),
                join_plain,
                async_lock::Mutex::new(0u64),
                max
            )
        })
    };
    paired_n(
        "mutex 8x10,000",
        rounds,
        &mut [
            ("rt", &mut || rt_round(None)),
            ("tokio", &mut || tokio_round(None)),
            ("async-lock", &mut || smol_round(None)),
            ("rt_fifo", &mut || rt_fifo_round(None)),
        ],
    );
    // The longest wait: a separate set of rounds, each lock timed.
    let mut line = format!("mutex 8x10,000 longest single lock wait over {rounds} rounds:");
    let runs: [(&str, &MutexRound<'_>); 4] = [
        ("rt", &rt_round),
        ("tokio", &tokio_round),
        ("async-lock", &smol_round),
        ("rt_fifo", &rt_fifo_round),
    ];
    let maxes: Vec<MaxWait> = runs.iter().map(|_| MaxWait::default()).collect();
    for _ in 0..rounds {
        for ((_, run), max) in runs.iter().zip(&maxes) {
            run(Some(max.clone()));
        }
    }
    for ((name, _), max) in runs.iter().zip(&maxes) {
        let ns = max.load(Ordering::Relaxed);
        line.push_str(&format!(" {name} {:.3?}", Duration::from_nanos(ns)));
    }
    println!("{line}");
}

fn timers_10k(r: &Runtimes) {
    let ex = r.ex;
    let ms = Duration::from_millis(1);
    paired_n(
        "timers 10,000 x sleep(1 ms)",
        30,
        &mut [
            ("rt", &mut || {
                r.rt.block_on(async {
                    rt::spawn(async move {
                        let hs: Vec<_> = (0..TIMERS)
                            .map(|_| rt::spawn(rt::time::sleep(ms)))
                            .collect();
                        for h in hs {
                            h.await.unwrap();
                        }
                    })
                    .await
                    .unwrap()
                })
            }),
            ("tokio", &mut || {
                r.tokio.block_on(async {
                    tokio::spawn(async move {
                        let hs: Vec<_> = (0..TIMERS)
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
                    let hs: Vec<_> = (0..TIMERS)
                        .map(|_| ex.spawn(async move { async_io::Timer::after(ms).await }))
                        .collect();
                    for h in hs {
                        h.await;
                    }
                })
            }),
        ],
    );
}

fn sleep_lateness(r: &Runtimes) {
    const SAMPLES: usize = 200;
    let ms = Duration::from_millis(1);
    let (mut rt_s, mut tk_s, mut sm_s) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..SAMPLES {
        rt_s.push(r.rt.block_on(async {
            rt::spawn(async move {
                let t = Instant::now();
                rt::time::sleep(ms).await;
                t.elapsed() - ms
            })
            .await
            .unwrap()
        }));
        tk_s.push(r.tokio.block_on(async {
            tokio::spawn(async move {
                let t = Instant::now();
                tokio::time::sleep(ms).await;
                t.elapsed() - ms
            })
            .await
            .unwrap()
        }));
        sm_s.push(r.smol(async move {
            let t = Instant::now();
            async_io::Timer::after(ms).await;
            t.elapsed() - ms
        }));
    }
    let mut line = format!("sleep_lateness 1 ms ({SAMPLES} interleaved samples each):");
    for (name, s) in [
        ("rt", &mut rt_s),
        ("tokio", &mut tk_s),
        ("async-io", &mut sm_s),
    ] {
        s.sort();
        line.push_str(&format!(
            " {name} p50 {:.1?} p99 {:.1?};",
            s[SAMPLES / 2],
            s[SAMPLES * 99 / 100]
        ));
    }
    println!("{line}");
}

async fn rt_echo() {
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
    let clients: Vec<_> = (0..CONNECTIONS)
        .map(|_| {
            rt::spawn(async move {
                let mut c = rt::net::TcpStream::connect(addr).await.unwrap();
                c.set_nodelay(true).unwrap();
                let (msg, mut back) = ([7u8; MESSAGE], [0u8; MESSAGE]);
                for _ in 0..ECHO_TRIPS {
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

async fn tokio_echo() {
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
    let clients: Vec<_> = (0..CONNECTIONS)
        .map(|_| {
            tokio::spawn(async move {
                let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
                c.set_nodelay(true).unwrap();
                let (msg, mut back) = ([7u8; MESSAGE], [0u8; MESSAGE]);
                for _ in 0..ECHO_TRIPS {
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

async fn smol_echo(ex: Ex) {
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
    let clients: Vec<_> = (0..CONNECTIONS)
        .map(|_| {
            ex.spawn(async move {
                let mut c = Async::<TcpStream>::connect(addr).await.unwrap();
                c.get_ref().set_nodelay(true).unwrap();
                let (msg, mut back) = ([7u8; MESSAGE], [0u8; MESSAGE]);
                for _ in 0..ECHO_TRIPS {
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

fn tcp_echo(r: &Runtimes) {
    let ex = r.ex;
    paired_n(
        "tcp_echo 50 connections x 2,000 round trips",
        8,
        &mut [
            ("rt", &mut || r.rt.block_on(rt_echo())),
            ("tokio", &mut || r.tokio.block_on(tokio_echo())),
            ("async-executor+async-io", &mut || r.smol(smol_echo(ex))),
        ],
    );
}

/// One named workload of `main`.
type Workload = fn(&Runtimes);

fn main() {
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .unwrap_or_default();
    let r = Runtimes::new(2);
    let workloads: [(&str, Workload); 12] = [
        ("spawn_many_local", spawn_many_local),
        ("spawn_many_remote", spawn_many_remote),
        ("spawn_remote_join", spawn_remote_join),
        ("yield_many", yield_many),
        ("chained_spawn", chained_spawn),
        ("ping_pong", ping_pong),
        ("bounded", bounded),
        ("mutex", mutex),
        ("timers_10k", timers_10k),
        ("timers_10k_remote", timers_10k_remote),
        ("sleep_lateness", sleep_lateness),
        ("tcp_echo", tcp_echo),
    ];
    for (name, run) in workloads {
        if name.contains(filter.as_str()) {
            run(&r);
        }
    }
}
