//! Shared helpers for the benchmarks: rt against tokio and the smol-rs peers (async-executor,
//! async-channel, async-lock, async-io).

use std::time::{Duration, Instant};

/// Runs `rt` and `tokio` alternately for `rounds` rounds (who goes first swaps every round) and
/// prints the median time of each side and the median of the per-round rt/tokio ratios.
///
/// Criterion measures one side and then the other, seconds apart; on a machine whose speed
/// drifts (this one has phases in which everything runs up to 1.7x slower), that ratio depends
/// on which phase each side landed in. Adjacent runs share their phase, so the median of the
/// per-round ratios is the steadier estimate; the benchmarks print both.
pub fn paired(name: &str, rounds: usize, mut rt: impl FnMut(), mut tokio: impl FnMut()) {
    fn time(f: &mut dyn FnMut()) -> Duration {
        let start = Instant::now();
        f();
        start.elapsed()
    }
    paired_measured(name, rounds, || time(&mut rt), || time(&mut tokio));
}

/// [`paired`] for workloads that time themselves: each call returns the time of the part to
/// compare (say, dropping a runtime, not building it).
pub fn paired_measured(
    name: &str,
    rounds: usize,
    mut rt: impl FnMut() -> Duration,
    mut tokio: impl FnMut() -> Duration,
) {
    let (mut rts, mut tokios, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (r, t) = if round % 2 == 0 {
            let r = rt();
            (r, tokio())
        } else {
            let t = tokio();
            (rt(), t)
        };
        rts.push(r);
        tokios.push(t);
        ratios.push(r.as_secs_f64() / t.as_secs_f64());
    }
    rts.sort();
    tokios.sort();
    ratios.sort_by(f64::total_cmp);
    let mid = rounds / 2;
    println!(
        "{name} paired ({rounds} alternating rounds): rt median {:.3?}, tokio median {:.3?}, \
         median of per-round rt/tokio = {:.2} (range {:.2}-{:.2})",
        rts[mid],
        tokios[mid],
        ratios[mid],
        ratios[0],
        ratios[rounds - 1]
    );
}

/// One contestant of [`paired_n`]: its name and one round of its workload.
pub type Contestant<'a> = (&'a str, &'a mut dyn FnMut());

/// [`paired`] for any number of contestants: every round runs each once, the order rotating by
/// one each round (so no contestant always runs first or last), and prints each one's median
/// time. The first contestant must be `rt` and the second `tokio`; the others are the peers,
/// except those whose name starts with `rt` (variants of rt, printed for comparison only).
/// Prints the median of the per-round `rt/tokio` ratios and of the per-round `rt/best_peer`
/// ratios, where the best peer is the peer with the lowest median time. Returns the median
/// `rt/best_peer` ratio (or `rt/tokio` when there is no peer).
pub fn paired_n(name: &str, rounds: usize, contestants: &mut [Contestant<'_>]) -> f64 {
    let n = contestants.len();
    assert!(n >= 2 && contestants[0].0 == "rt" && contestants[1].0 == "tokio");
    let mut times = vec![Vec::with_capacity(rounds); n];
    for round in 0..rounds {
        for k in 0..n {
            let i = (round + k) % n;
            let start = Instant::now();
            (contestants[i].1)();
            times[i].push(start.elapsed().as_secs_f64());
        }
    }
    let median = |v: &mut Vec<f64>| {
        let mut s = v.clone();
        s.sort_by(f64::total_cmp);
        s[s.len() / 2]
    };
    let medians: Vec<f64> = times.iter_mut().map(median).collect();
    let ratio_to = |j: usize| {
        let mut r: Vec<f64> = (0..rounds).map(|k| times[0][k] / times[j][k]).collect();
        r.sort_by(f64::total_cmp);
        (r[rounds / 2], r[0], r[rounds - 1])
    };
    let mut line = format!("{name} paired ({rounds} rotating rounds): medians");
    for (i, (c, _)) in contestants.iter().enumerate() {
        line.push_str(&format!(" {c} {:.3?}", Duration::from_secs_f64(medians[i])));
    }
    let (t, tlo, thi) = ratio_to(1);
    line.push_str(&format!("; rt/tokio = {t:.2} ({tlo:.2}-{thi:.2})"));
    let mut result = t;
    if n > 2 {
        let best = (2..n)
            .filter(|&i| !contestants[i].0.starts_with("rt"))
            .min_by(|&a, &b| medians[a].total_cmp(&medians[b]))
            .unwrap();
        let (p, plo, phi) = ratio_to(best);
        line.push_str(&format!(
            "; rt/best_peer = {p:.2} ({plo:.2}-{phi:.2}, best peer {})",
            contestants[best].0
        ));
        result = p;
    }
    println!("{line}");
    result
}

/// The `async-executor` peer: a leaked `&'static Executor` run by `threads` threads (smol's
/// fastest multi-threaded setup), as rt and tokio run 2 workers. The threads run until the
/// process exits.
pub fn static_executor(threads: usize) -> &'static async_executor::Executor<'static> {
    let ex: &'static async_executor::Executor<'static> =
        Box::leak(Box::new(async_executor::Executor::new()));
    for i in 0..threads {
        std::thread::Builder::new()
            .name(format!("async-executor-{i}"))
            .spawn(move || async_io::block_on(ex.run(std::future::pending::<()>())))
            .unwrap();
    }
    ex
}

/// Yields once to the executor (for peers without a `yield_now` of their own).
pub async fn yield_now() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            std::task::Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await
}

/// The yield_many workload on rt, run inside a task or `block_on`: `tasks` tasks each yield
/// `yields` times; returns once all have finished.
pub async fn rt_yielders(tasks: usize, yields: usize) {
    let hs: Vec<_> = (0..tasks)
        .map(|_| {
            rt::spawn(async move {
                for _ in 0..yields {
                    rt::task::yield_now().await;
                }
            })
        })
        .collect();
    for h in hs {
        h.await.unwrap();
    }
}

/// [`rt_yielders`] on tokio.
pub async fn tokio_yielders(tasks: usize, yields: usize) {
    let hs: Vec<_> = (0..tasks)
        .map(|_| {
            tokio::spawn(async move {
                for _ in 0..yields {
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    for h in hs {
        h.await.unwrap();
    }
}

/// The three contestants of the peer benchmarks (`peers.rs`, `scaling.rs`): rt, tokio and the
/// `async-executor` peer, each with the same number of worker threads.
pub struct Runtimes {
    /// Worker threads of each.
    pub workers: usize,
    pub rt: rt::Runtime,
    pub tokio: tokio::runtime::Runtime,
    /// The peer: a leaked static executor on `workers` threads ([`static_executor`]).
    pub ex: Ex,
}

impl std::fmt::Debug for Runtimes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtimes")
            .field("workers", &self.workers)
            .finish_non_exhaustive()
    }
}

/// The `async-executor` peer's handle.
pub type Ex = &'static async_executor::Executor<'static>;

impl Runtimes {
    /// All three with `workers` worker threads.
    pub fn new(workers: usize) -> Runtimes {
        Runtimes {
            workers,
            rt: rt::Builder::new_multi_thread()
                .worker_threads(workers)
                .build()
                .unwrap(),
            tokio: tokio::runtime::Builder::new_multi_thread()
                .worker_threads(workers)
                .enable_all()
                .build()
                .unwrap(),
            ex: static_executor(workers),
        }
    }

    /// Runs `f` as a task on the peer executor and waits for it from this (non-worker) thread.
    pub fn smol<T: Send + 'static>(
        &self,
        f: impl std::future::Future<Output = T> + Send + 'static,
    ) -> T {
        async_io::block_on(self.ex.spawn(f))
    }
}

/// The ping-pong workload, one round per call: `PAIRS` pingers each do `TRIPS` round trips with
/// a partner task through one-shot channels (for the peer: an `async-channel` of capacity 1,
/// used once); each reply carries the sender for the next ping, a recursive type.
pub mod ping_pong {
    use super::Runtimes;

    /// Pinger/partner pairs per round.
    pub const PAIRS: usize = 1_000;
    /// Round trips per pair.
    pub const TRIPS: usize = 10;

    struct RtTx(rt::sync::oneshot::Sender<RtTx>);
    struct TkTx(tokio::sync::oneshot::Sender<TkTx>);
    struct AcTx(async_channel::Sender<AcTx>);

    /// One round on rt.
    pub fn rt(rt: &rt::Runtime) {
        rt.block_on(async {
            let hs: Vec<_> = (0..PAIRS)
                .map(|_| {
                    rt::spawn(async {
                        let (tx, mut rx) = rt::sync::oneshot::channel::<RtTx>();
                        rt::spawn(async move {
                            while let Ok(RtTx(reply)) = rx.await {
                                let (ntx, nrx) = rt::sync::oneshot::channel();
                                if reply.send(RtTx(ntx)).is_err() {
                                    return;
                                }
                                rx = nrx;
                            }
                        });
                        let mut tx = tx;
                        for _ in 0..TRIPS {
                            let (rtx, rrx) = rt::sync::oneshot::channel();
                            assert!(tx.send(RtTx(rtx)).is_ok());
                            tx = rrx.await.unwrap().0;
                        }
                    })
                })
                .collect();
            for h in hs {
                h.await.unwrap();
            }
        });
    }

    /// One round on tokio.
    pub fn tokio(tokio: &tokio::runtime::Runtime) {
        tokio.block_on(async {
            let hs: Vec<_> = (0..PAIRS)
                .map(|_| {
                    tokio::spawn(async {
                        let (tx, mut rx) = tokio::sync::oneshot::channel::<TkTx>();
                        tokio::spawn(async move {
                            while let Ok(TkTx(reply)) = rx.await {
                                let (ntx, nrx) = tokio::sync::oneshot::channel();
                                if reply.send(TkTx(ntx)).is_err() {
                                    return;
                                }
                                rx = nrx;
                            }
                        });
                        let mut tx = tx;
                        for _ in 0..TRIPS {
                            let (rtx, rrx) = tokio::sync::oneshot::channel();
                            assert!(tx.send(TkTx(rtx)).is_ok());
                            tx = rrx.await.unwrap().0;
                        }
                    })
                })
                .collect();
            for h in hs {
                h.await.unwrap();
            }
        });
    }

    /// One round on the `async-executor` peer.
    pub fn smol(r: &Runtimes) {
        let ex = r.ex;
        r.smol(async move {
            let hs: Vec<_> = (0..PAIRS)
                .map(|_| {
                    ex.spawn(async move {
                        let (tx, rx) = async_channel::bounded::<AcTx>(1);
                        ex.spawn(async move {
                            let mut rx = rx;
                            while let Ok(AcTx(reply)) = rx.recv().await {
                                let (ntx, nrx) = async_channel::bounded(1);
                                if reply.try_send(AcTx(ntx)).is_err() {
                                    return;
                                }
                                rx = nrx;
                            }
                        })
                        .detach();
                        let mut tx = tx;
                        for _ in 0..TRIPS {
                            let (rtx, rrx) = async_channel::bounded(1);
                            assert!(tx.try_send(AcTx(rtx)).is_ok());
                            tx = rrx.recv().await.unwrap().0;
                        }
                    })
                })
                .collect();
            for h in hs {
                h.await;
            }
        });
    }
}

/// CPU time of the whole process so far, in ns (`CLOCK_PROCESS_CPUTIME_ID`): every thread's,
/// so a CPU-time A/B is not blurred by other processes' load (`spawn_cpu`, `channel_cpu`).
pub fn cpu_ns() -> u128 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes the `timespec` we pass and nothing else.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u128 * 1_000_000_000 + ts.tv_nsec as u128
}

/// The environment variable `name` as a number, or `default` when unset or not a number.
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
