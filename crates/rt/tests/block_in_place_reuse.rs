//! `rt::task::block_in_place` reuses its substitute threads: a task calling it again and again
//! — with closures that return at once, and with closures that wait for a task the blocked
//! worker holds, so that a substitute must really take over — starts far fewer threads than
//! it makes calls (a thread per call would start at least one per waiting call), and every
//! thread started has stopped once the runtime is dropped.
//!
//! The closures that wait use a std channel with a one-minute timeout: without a substitute
//! they would wait forever; the timeout only turns that into a failure with a message.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

const QUICK_CALLS: usize = 2_000;
const WAITING_CALLS: usize = 200;

#[test]
fn substitutes_are_reused_and_stopped_at_drop() {
    let starts = Arc::new(AtomicUsize::new(0));
    let stops = Arc::new(AtomicUsize::new(0));
    let rt = {
        let (starts, stops) = (starts.clone(), stops.clone());
        rt::Builder::new_multi_thread()
            .worker_threads(2)
            .on_thread_start(move || {
                starts.fetch_add(1, Ordering::SeqCst);
            })
            .on_thread_stop(move || {
                stops.fetch_add(1, Ordering::SeqCst);
            })
            .build()
            .unwrap()
    };
    let served = rt.block_on(async {
        rt::spawn(async {
            for i in 0..QUICK_CALLS {
                assert_eq!(rt::task::block_in_place(move || i + 1), i + 1);
            }
            let mut served = 0;
            for i in 0..WAITING_CALLS {
                // The child sits in this worker's LIFO slot: only a substitute can run it
                // while the closure blocks the worker's thread.
                let (tx, rx) = mpsc::channel();
                rt::spawn(async move { tx.send(i).unwrap() });
                let got = rt::task::block_in_place(move || {
                    rx.recv_timeout(Duration::from_secs(60))
                        .expect("the task held by the blocked worker never ran")
                });
                assert_eq!(got, i);
                served += 1;
            }
            served
        })
        .await
        .unwrap()
    });
    assert_eq!(served, WAITING_CALLS);
    let started = starts.load(Ordering::SeqCst);
    // 2 workers, the blocking pool's threads (none here) and the substitutes.
    assert!(
        started < 2 + WAITING_CALLS / 2,
        "{started} threads started for {QUICK_CALLS} + {WAITING_CALLS} block_in_place calls: \
         substitutes are not reused"
    );
    eprintln!("threads started: {started}");
    drop(rt);
    assert_eq!(
        stops.load(Ordering::SeqCst),
        starts.load(Ordering::SeqCst),
        "a runtime thread outlived the runtime"
    );
}
