//! The `rt-monitor` thread exists only with stall detection on (the default), and is gone once
//! the runtime is dropped. One test in this binary, so no other runtime's threads interfere.

fn monitors() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim() == "rt-monitor")
        .count()
}

/// Waits (up to a generous limit that only a failure reaches) until `monitors() == n`: a new
/// thread names itself, and an exited one leaves `/proc` a moment after its join.
fn settles_at(n: usize) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while monitors() != n {
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::yield_now();
    }
    true
}

#[test]
fn monitor_only_with_a_threshold() {
    let off = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .stall_threshold(None)
        .build()
        .unwrap();
    off.block_on(async {});
    assert_eq!(monitors(), 0, "a monitor thread with stall_threshold(None)");
    drop(off);
    let on = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    assert!(settles_at(1), "no monitor thread by default");
    drop(on);
    assert!(settles_at(0), "the monitor outlived its runtime");
}
