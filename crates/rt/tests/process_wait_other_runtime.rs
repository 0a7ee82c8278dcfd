//! A child spawned on one runtime is waited on from another, after the first was dropped: its
//! exit is then watched from the runtime of the wait (as tokio's), not reported as the dropped
//! runtime's shutdown error.

mod support;

use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::Duration;

use rt::process::Command;

#[test]
fn wait_after_the_spawning_runtime_was_dropped() {
    for spawn_on in 0..2 {
        for wait_on in 0..2 {
            let (spawn_name, spawner) = support::runtimes().swap_remove(spawn_on);
            let (wait_name, waiter) = support::runtimes().swap_remove(wait_on);
            let pair = format!("{spawn_name} -> {wait_name}");
            let mut child = spawner.block_on(async {
                Command::new("sleep")
                    .arg("1000")
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .kill_on_drop(true)
                    .spawn()
                    .unwrap()
            });
            drop(spawner);
            waiter.block_on(async {
                // Still running: the wait is pending on this runtime's reactor, not failed
                // with the dropped one's shutdown error.
                let pending = rt::time::timeout(Duration::from_millis(20), child.wait()).await;
                assert!(pending.is_err(), "{pair}: {pending:?}");
                child.start_kill().unwrap();
                let status = child.wait().await.unwrap();
                assert_eq!(status.signal(), Some(libc::SIGKILL), "{pair}");
            });
        }
    }
}

#[test]
fn wait_outside_any_runtime_after_the_spawning_one_was_dropped() {
    let (_, spawner) = support::runtimes().swap_remove(0);
    let mut child = spawner.block_on(async {
        Command::new("sleep")
            .arg("1000")
            .kill_on_drop(true)
            .spawn()
            .unwrap()
    });
    drop(spawner);
    // No runtime to watch the child from: the dropped runtime's shutdown error.
    let mut wait = Box::pin(child.wait());
    match support::poll_once(&mut wait) {
        std::task::Poll::Ready(Err(e)) => assert!(rt::runtime::is_rt_shutdown_err(&e), "{e}"),
        other => panic!("{other:?}"),
    }
}
