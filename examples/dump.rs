//! Task dumps on request: a small service of named and unnamed tasks prints `Handle::dump()`
//! each time the process gets `SIGQUIT` (Ctrl-\ in a terminal, or `kill -QUIT <pid>`), the
//! way a JVM prints its threads.
//!
//! Run: `cargo run --example dump` (sends itself one `SIGQUIT` after a moment, prints the dump
//! and exits), or `cargo run --example dump -- --wait` to keep running until `SIGINT` (Ctrl-C),
//! printing a dump on every Ctrl-\. `cargo run --release --example dump -- --cost N` times
//! dumps of `N` idle tasks (half of them named) instead.
//!
//! What the dump shows here: `ticker` idle between ticks (its poll count grows), three
//! `conn-N` tasks idle on a channel, one `lost` task marked "no waker" (it awaits a future that
//! dropped its waker: nothing can ever wake it), one `busy` task running on a worker (it blocks
//! its thread: the stall monitor reports it on stderr, by name and spawn location, after
//! 100 ms), and one unnamed task listed by its spawn location.
//! (The `main` future waiting for the signal is `block_on`'s, not a task: it is not listed.)

use std::time::Duration;

use rt::signal::unix::{signal, SignalKind};

/// `--cost N`: how long a dump of `N` idle tasks takes, from outside the runtime.
fn cost(n: usize) -> std::io::Result<()> {
    let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
    let (tx, rx) = rt::sync::watch::channel(());
    let mut handles = Vec::with_capacity(n);
    for i in 0..n {
        let mut rx = rx.clone();
        let fut = async move {
            let _ = rx.changed().await;
        };
        handles.push(if i % 2 == 0 {
            rt::task::Builder::new()
                .name("named")
                .spawn_on(fut, rt.handle())?
        } else {
            rt.spawn(fut)
        });
    }
    // Wait until every task has run once and waits.
    while rt.dump().iter().any(|t| t.state() != rt::TaskState::Idle) {
        std::thread::yield_now();
    }
    let mut times = Vec::new();
    for _ in 0..11 {
        let start = std::time::Instant::now();
        let d = rt.dump();
        times.push(start.elapsed());
        assert_eq!(d.len(), n);
    }
    times.sort();
    let start = std::time::Instant::now();
    let text = rt.dump().to_string();
    let print = start.elapsed();
    println!(
        "{n} idle tasks: dump median {:?} (min {:?}, max {:?}), dump + Display {:?} ({} bytes)",
        times[5],
        times[0],
        times[10],
        print,
        text.len()
    );
    drop(tx);
    for h in handles {
        rt.block_on(h).unwrap();
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--cost") {
        let n = args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(10_000);
        return cost(n);
    }
    serve(args.iter().any(|a| a == "--wait"))
}

fn serve(wait: bool) -> std::io::Result<()> {
    // Stall detection is on by default (100 ms); `on_stall` prints each report. The `busy`
    // task below trips it: one report while it blocks, while the other worker's substitute
    // keeps serving what that worker held.
    rt::Builder::new_multi_thread()
        .worker_threads(2)
        .on_stall(|info: &rt::StallInfo| {
            eprintln!(
                "stall: task {} {:?} spawned at {} has blocked worker {} for {:?}{}",
                info.task_id(),
                info.name().unwrap_or("-"),
                info.location(),
                info.worker(),
                info.elapsed(),
                if info.ended() { " (ended)" } else { "" },
            )
        })
        .build()?
        .block_on(services(wait))
}

async fn services(wait: bool) -> std::io::Result<()> {
    let mut quit = signal(SignalKind::quit())?;
    println!(
        "pid {}: send SIGQUIT (Ctrl-\\) for a task dump",
        std::process::id()
    );

    rt::task::Builder::new().name("ticker").spawn(async {
        let mut tick = rt::time::interval(Duration::from_millis(10));
        loop {
            tick.tick().await;
        }
    })?;
    let mut senders = Vec::new();
    for i in 0..3 {
        let (tx, rx) = rt::sync::oneshot::channel::<()>();
        senders.push(tx);
        rt::task::Builder::new()
            .name(&format!("conn-{i}"))
            .spawn(async move {
                let _ = rx.await;
            })?;
    }
    rt::task::Builder::new()
        .name("lost")
        .spawn(std::future::pending::<()>())?;
    // Blocks its worker in a poll until the process ends (a stand-in for a stuck task).
    rt::task::Builder::new().name("busy").spawn(async {
        std::thread::sleep(Duration::from_secs(3600));
    })?;
    // Unnamed: listed with its spawn location, no statistics.
    rt::spawn(async {
        loop {
            rt::time::sleep(Duration::from_secs(1)).await;
        }
    });

    if !wait {
        // Ask for one dump, as an operator would (after the stall report).
        rt::time::sleep(Duration::from_millis(300)).await;
        std::process::Command::new("kill")
            .args(["-QUIT", &std::process::id().to_string()])
            .status()?;
    }
    let mut interrupt = signal(SignalKind::interrupt())?;
    loop {
        rt::select! {
            _ = quit.recv() => {
                println!("{}", rt::Handle::current().dump());
                if !wait {
                    break;
                }
            }
            _ = interrupt.recv() => break,
        }
    }
    drop(senders);
    // The `busy` task holds a worker: leave without waiting for it.
    std::process::exit(0)
}
