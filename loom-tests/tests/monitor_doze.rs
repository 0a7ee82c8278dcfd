#![cfg(loom)]
//! loom model of the stall monitor's doze (rules D1 and D2 in rt-sched's `idle.rs`), on the
//! real idle word: the monitor marks itself asleep only while every worker is parked, and a
//! worker that unparks meanwhile — by a notifier's `worker_to_notify`-like increment or by its
//! own `unpark_worker_by_id` — either makes the mark fail or finds it and takes it off (and
//! would then wake the monitor). So the monitor never stays asleep while a worker runs.
//!
//! Not modelled: the condvar wait and notify under the detector's lock (std's; the wait's loop
//! re-checks the mark under that lock), and the monitor's clock.

use loom::sync::atomic::{AtomicBool, Ordering::SeqCst};
use loom::sync::Arc;
use loom::thread;
use rt_sched::idle::{Idle, UnparkById};

#[test]
fn an_unparking_worker_never_leaves_the_monitor_asleep() {
    loom::model(|| {
        let idle = Arc::new(Idle::new(2, 2));
        // Both workers park.
        let _ = idle.transition_worker_to_parked(0, false);
        let _ = idle.transition_worker_to_parked(1, false);
        let roused = Arc::new(AtomicBool::new(false));
        let worker = {
            let (idle, roused) = (idle.clone(), roused.clone());
            thread::spawn(move || {
                // Worker 1 leaves its park (its driver turn woke a task), then rule D2.
                assert_eq!(idle.unpark_worker_by_id(1), UnparkById::Unparked);
                if idle.rouse_monitor() {
                    roused.store(true, SeqCst);
                }
            })
        };
        let slept = idle.try_doze();
        worker.join().unwrap();
        // Worker 1 runs: the monitor is not left asleep, either because its mark failed or
        // because the worker took the mark off (and woke it).
        assert!(
            !idle.monitor_dozing(),
            "the monitor sleeps while a worker runs"
        );
        if slept {
            assert!(roused.load(SeqCst), "marked asleep, and nobody woke it");
        }
        assert_eq!(idle.num_unparked(), 1);
    });
}

#[test]
fn two_unparking_workers_wake_the_monitor_once() {
    loom::model(|| {
        let idle = Arc::new(Idle::new(2, 2));
        let _ = idle.transition_worker_to_parked(0, false);
        let _ = idle.transition_worker_to_parked(1, false);
        assert!(idle.try_doze(), "every worker is parked");
        let wakers: Vec<_> = (0..2)
            .map(|i| {
                let idle = idle.clone();
                thread::spawn(move || {
                    assert_eq!(idle.unpark_worker_by_id(i), UnparkById::Unparked);
                    idle.rouse_monitor()
                })
            })
            .collect();
        let roused: usize = wakers
            .into_iter()
            .map(|t| usize::from(t.join().unwrap()))
            .sum();
        assert_eq!(roused, 1, "exactly one worker wakes the monitor");
        assert!(!idle.monitor_dozing());
        assert_eq!(idle.num_unparked(), 2);
    });
}

#[test]
fn the_monitor_does_not_doze_while_a_worker_runs() {
    loom::model(|| {
        let idle = Idle::new(2, 2);
        let _ = idle.transition_worker_to_parked(0, false);
        assert!(!idle.try_doze(), "worker 1 is running");
        assert!(!idle.monitor_dozing());
        assert!(!idle.rouse_monitor(), "nothing to wake");
    });
}
