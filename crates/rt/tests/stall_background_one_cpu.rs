//! With stall detection on, the runtime keeps no more workers awake than it has CPUs
//! (`max_awake`). On one CPU with two workers, a worker that blocks in a task while background
//! work waits in its own queue still counts as awake, and the take-over does not run
//! background work: the stall's substitute must wake the parked worker past the cap to steal
//! it (take-over rule S4), or the work waits for the blocked worker forever.
//!
//! The test thread pins itself to one CPU before building the runtime, so the runtime sees one
//! CPU and its workers inherit the mask. One `#[test]` in this binary: the mask is this
//! thread's.

use std::sync::mpsc;
use std::time::Duration;

use rt::task::Priority;

const DEADLOCK: Duration = Duration::from_secs(60);

/// Pins the calling thread to the CPU it runs on.
fn pin_to_one_cpu() {
    // SAFETY: `sched_getcpu` has no preconditions; `set` is a zeroed `cpu_set_t` written only
    // through `CPU_SET`, and `sched_setaffinity` reads `size_of::<cpu_set_t>()` bytes of it for
    // the calling thread (pid 0).
    unsafe {
        let cpu = usize::try_from(libc::sched_getcpu()).expect("sched_getcpu");
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        assert_eq!(
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set),
            0,
            "sched_setaffinity: {}",
            std::io::Error::last_os_error()
        );
    }
}

#[test]
fn background_work_queued_on_a_stalled_worker_runs_on_one_cpu() {
    pin_to_one_cpu();
    assert_eq!(num_cpus_seen(), 1);
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .stall_threshold(Some(Duration::from_millis(20)))
        .build()
        .unwrap();
    let ran = rt.block_on(async {
        rt::spawn(async {
            let (tx, rx) = mpsc::channel();
            // Queued on this worker's own background queue; the notify finds the cap (one
            // CPU) reached, as this worker is awake.
            let _bg = rt::task::Builder::new()
                .priority(Priority::Background)
                .spawn(async move {
                    let _ = tx.send(());
                })
                .unwrap();
            // Block this worker until the background task has run elsewhere.
            rx.recv_timeout(DEADLOCK).is_ok()
        })
        .await
        .unwrap()
    });
    assert!(
        ran,
        "background work queued on a stalled worker never ran on a one-CPU runtime"
    );
}

/// The parallelism the runtime will see (std reads the same affinity mask).
fn num_cpus_seen() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
