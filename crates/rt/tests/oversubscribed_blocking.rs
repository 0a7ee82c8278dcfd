//! More workers than CPUs, as many of them blocked in a task as there are CPUs: queued work is
//! not held hostage. The scheduler wakes a parked worker only while fewer workers than CPUs are
//! awake (`idle.rs`, `max_awake`), and a worker blocked outside `block_in_place` counts as
//! awake; what then runs the work is an awake worker that is not blocked, or the stall
//! take-over (the cap is on only with stall detection).
//!
//! Nothing is timed: each blocking task blocks its worker until a task spawned from outside the
//! runtime after every blocker had started has run (it sets a flag the blockers wait on). If
//! that task were held hostage behind the blocked workers, nothing would ever set the flag; the
//! long wait timeout only turns that hang into a failure.

use std::sync::{mpsc, Arc, Barrier, Condvar, Mutex};
use std::time::Duration;

const DEADLOCK: Duration = Duration::from_secs(60);

#[test]
fn work_queued_while_cpus_many_workers_block_still_runs() {
    let cpus = num_cpus::get().max(1);
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(cpus + 2)
        .stall_threshold(Some(Duration::from_millis(50)))
        .build()
        .unwrap();
    // Set by the late task; the blockers wait for it, blocking their workers meanwhile.
    let ran = Arc::new((Mutex::new(false), Condvar::new()));
    // Every blocker, and this thread, meet here: then all `cpus` blockers hold a worker each.
    let started = Arc::new(Barrier::new(cpus + 1));
    let blockers: Vec<_> = (0..cpus)
        .map(|_| {
            let ran = ran.clone();
            let started = started.clone();
            rt.spawn(async move {
                started.wait();
                let (flag, cv) = &*ran;
                let (flag, _) = cv
                    .wait_timeout_while(flag.lock().unwrap(), DEADLOCK, |ran| !*ran)
                    .unwrap();
                *flag
            })
        })
        .collect();
    started.wait();
    let (tx, rx) = mpsc::channel();
    let r = ran.clone();
    let late = rt.spawn(async move {
        *r.0.lock().unwrap() = true;
        r.1.notify_all();
        tx.send(()).unwrap();
    });
    rx.recv_timeout(DEADLOCK).unwrap();
    for (i, b) in blockers.into_iter().enumerate() {
        assert!(
            rt.block_on(b).unwrap(),
            "blocker {i}: the task spawned while every blocker blocked never ran"
        );
    }
    rt.block_on(late).unwrap();
}
