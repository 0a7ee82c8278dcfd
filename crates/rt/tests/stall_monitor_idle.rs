//! Stall detection costs no wake-ups while every worker is parked: the `rt-monitor` thread
//! then sleeps without a timeout (seen from outside: it waits in `futex` with no timeout
//! argument, `/proc/self/task/TID/syscall`), and the first worker to unpark wakes it, so a
//! stall that starts after an idle stretch is still reported while it runs.

mod support;

use std::sync::mpsc;
use std::time::Duration;

const DEADLOCK: Duration = Duration::from_secs(60);

/// The thread id of this process's `rt-monitor` thread (waiting until the new thread has
/// named itself).
fn monitor_tid() -> String {
    loop {
        let found = std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(Result::ok)
            .find(|t| {
                std::fs::read_to_string(t.path().join("comm"))
                    .is_ok_and(|c| c.trim() == "rt-monitor")
            });
        if let Some(t) = found {
            return t.file_name().into_string().unwrap();
        }
        std::thread::yield_now();
    }
}

/// Whether thread `tid` sleeps in `futex` without a timeout (a condvar wait with no deadline):
/// `syscall` reads "NR arg1 .. arg6 sp pc", and `futex`'s fourth argument is the timeout.
fn waits_without_timeout(tid: &str) -> bool {
    let Ok(line) = std::fs::read_to_string(format!("/proc/self/task/{tid}/syscall")) else {
        return false;
    };
    let f: Vec<&str> = line.split_whitespace().collect();
    f.len() > 4 && f[0] == libc::SYS_futex.to_string() && f[4] == "0x0"
}

#[test]
fn the_monitor_sleeps_while_idle_and_a_later_stall_is_still_reported() {
    support::deadline(monitor_sleeps_then_reports);
}

fn monitor_sleeps_then_reports() {
    let (tx, rx) = mpsc::channel();
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .stall_threshold(Some(Duration::from_millis(20)))
        .on_stall(move |info: &rt::StallInfo| {
            let _ = tx.send(info.clone());
        })
        .build()
        .unwrap();
    // Some work first, then nothing: both workers park.
    rt.block_on(async { rt::spawn(async { 1 }).await.unwrap() });
    let tid = monitor_tid();
    while !waits_without_timeout(&tid) {
        std::thread::yield_now();
    }
    // Asleep. A poll that blocks its worker waits for its own report: the unpark of the
    // worker that runs it must have woken the monitor.
    let (seen_tx, seen_rx) = mpsc::channel::<()>();
    let h = rt.spawn(async move {
        seen_rx
            .recv_timeout(DEADLOCK)
            .expect("the stall was not reported: the monitor stayed asleep");
    });
    let first = rx.recv_timeout(DEADLOCK).expect("no stall report");
    assert!(!first.ended());
    seen_tx.send(()).unwrap();
    rt.block_on(h).unwrap();
}
