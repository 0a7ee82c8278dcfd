//! Task dumps on request: a small service of named and unnamed tasks prints `Handle::dump()`
//! each time the process gets `SIGQUIT` (Ctrl-\ in a terminal, or `kill -QUIT <pid>`), the
//! way a JVM prints its threads.
//!
//! Run: `cargo run --example dump` (sends itself one `SIGQUIT` after a moment, prints the dump
//! and exits), or `cargo run --example dump -- --wait` to keep running until `SIGINT` (Ctrl-C),
//! printing a dump on every Ctrl-\.
//!
//! What the dump shows here: `ticker` idle between ticks (its poll count grows), three
//! `conn-N` tasks idle on a channel, one `lost` task marked "no waker" (it awaits a future that
//! dropped its waker: nothing can ever wake it), one `busy` task running on a worker (it blocks
//! its thread, as a stalled task would), and one unnamed task listed by its spawn location.
//! (The `main` future waiting for the signal is `block_on`'s, not a task: it is not listed.)

use std::time::Duration;

use rt::signal::unix::{signal, SignalKind};

#[rt::main(worker_threads = 2)]
async fn main() -> std::io::Result<()> {
    let wait = std::env::args().any(|a| a == "--wait");
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
        // Ask for one dump, as an operator would.
        rt::time::sleep(Duration::from_millis(100)).await;
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
