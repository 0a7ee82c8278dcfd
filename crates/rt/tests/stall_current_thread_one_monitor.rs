//! Every current-thread runtime of a process is watched by one monitor thread: building and
//! driving several (stall detection on, the default) starts one thread in all, the
//! `rt-monitor`, which outlives them, asleep, and watches the next one.
#![cfg(target_os = "linux")]

use std::time::{Duration, Instant};

/// The names of this process's threads (a thread is listed from its creation; its name may
/// come a moment later).
fn threads() -> Vec<String> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|name| name.trim_end().to_owned())
        .collect()
}

#[test]
fn one_monitor_thread_for_all_current_thread_runtimes() {
    let before = threads().len();
    let rts: Vec<rt::Runtime> = (0..3)
        .map(|_| rt::Builder::new_current_thread().build().unwrap())
        .collect();
    for rt in &rts {
        rt.block_on(async { rt::spawn(async {}).await.unwrap() });
    }
    assert_eq!(threads().len(), before + 1, "{:?}", threads());
    // That thread is the monitor (a generous deadline, only for the name to be set).
    let deadline = Instant::now() + Duration::from_secs(60);
    while !threads().iter().any(|n| n == "rt-monitor") {
        assert!(Instant::now() < deadline, "{:?}", threads());
        std::thread::yield_now();
    }
    drop(rts);
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {});
    assert_eq!(threads().len(), before + 1, "{:?}", threads());
    let monitors = threads().iter().filter(|n| *n == "rt-monitor").count();
    assert_eq!(monitors, 1);
}
