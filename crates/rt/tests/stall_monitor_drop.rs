//! A current-thread runtime dropped while the process-wide stall monitor is inside its
//! `on_stall` callback is gone at the drop: its file descriptors are closed and its trace file
//! is finished before `drop` returns, not when the callback ends on the monitor's thread.
//!
//! The callback reports the stall, then waits for the test to let it go; the runtime is
//! dropped in between, so the monitor is held inside a report for the whole check.
//!
//! One `#[test]` in this binary, so nothing else opens or closes descriptors while it counts.

mod trace_support;

use std::sync::{mpsc, Mutex};
use std::time::Duration;

use trace_support::{temp_path, Trace};

const DEADLOCK: Duration = Duration::from_secs(60);
const THRESHOLD: Duration = Duration::from_millis(20);

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("read /proc/self/fd")
        .count()
}

#[test]
fn a_runtime_dropped_during_a_stall_report_closes_at_the_drop() {
    // A runtime built and dropped first: whatever the process opens once for good is not
    // counted.
    drop(rt::Builder::new_current_thread().build().unwrap());
    let path = temp_path("stall-drop.json");
    let before = open_fds();

    let (reported_tx, reported_rx) = mpsc::channel::<()>();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let (reported_tx, release_rx) = (Mutex::new(reported_tx), Mutex::new(release_rx));
    let mut b = rt::Builder::new_current_thread();
    b.stall_threshold(Some(THRESHOLD))
        .trace_file(&path)
        .on_stall(move |info: &rt::StallInfo| {
            if info.ended() {
                return;
            }
            let _ = reported_tx.lock().unwrap().send(());
            // Held here, inside the report, until the test has checked the drop.
            let _ = release_rx.lock().unwrap().recv_timeout(DEADLOCK);
        });
    let rt = b.build().unwrap();
    rt.block_on(async move {
        // A task's poll (the `block_on` future's own are not reported) blocks the thread until
        // the monitor reports it.
        rt::spawn(async move {
            reported_rx
                .recv_timeout(DEADLOCK)
                .expect("the stall was not reported while the poll ran");
        })
        .await
        .unwrap();
    });
    drop(rt);

    let after = open_fds();
    let trace = std::panic::catch_unwind(|| Trace::check(&path));
    release_tx.send(()).unwrap();
    assert_eq!(
        after,
        before,
        "a runtime dropped while its stall was being reported left {} descriptors open",
        after as isize - before as isize
    );
    let trace = trace.expect("the trace file was not finished when the runtime dropped");
    assert_eq!(trace.count("i", "stall"), 1);
    let _ = std::fs::remove_file(&path);
}
