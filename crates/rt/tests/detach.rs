//! Dropping a `JoinHandle` detaches the task: it still runs to completion, through any number of
//! suspensions, and its output is dropped by the runtime.

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use support::{runtimes, until_count, DropCount, Gate};

#[test]
fn a_detached_task_runs_through_suspensions_to_the_end() {
    for (flavor, rt) in runtimes() {
        let gate = Arc::new(Gate::default());
        let steps = Arc::new(AtomicUsize::new(0));
        let outputs = Arc::new(AtomicUsize::new(0));
        for _ in 0..100 {
            let (gate, steps, out) = (gate.clone(), steps.clone(), DropCount(outputs.clone()));
            drop(rt.spawn(async move {
                steps.fetch_add(1, Ordering::SeqCst);
                gate.wait().await;
                rt::task::yield_now().await;
                steps.fetch_add(1, Ordering::SeqCst);
                out // the output: dropped by the runtime, as nobody joins
            }));
        }
        rt.block_on(until_count(&steps, 100));
        assert_eq!(
            outputs.load(Ordering::SeqCst),
            0,
            "{flavor}: still parked on the gate"
        );
        // Opened from a plain thread: the wakes come from outside the runtime.
        let g = gate.clone();
        std::thread::spawn(move || g.open()).join().unwrap();
        rt.block_on(until_count(&outputs, 100));
        assert_eq!(steps.load(Ordering::SeqCst), 200, "{flavor}");
        assert_eq!(
            outputs.load(Ordering::SeqCst),
            100,
            "{flavor}: each output dropped once"
        );
    }
}

#[test]
fn a_detached_task_spawned_from_a_task_runs() {
    for (flavor, rt) in runtimes() {
        let (tx, rx) = mpsc::channel();
        rt.block_on(rt.spawn(async move {
            for i in 0..10 {
                let tx = tx.clone();
                drop(rt::spawn(async move {
                    rt::task::yield_now().await;
                    tx.send(i).unwrap();
                }));
            }
        }))
        .unwrap();
        // The current-thread runtime runs tasks only inside block_on: drive it until all sent.
        let got: Vec<i32> = rt.block_on(async {
            let mut got = Vec::new();
            while got.len() < 10 {
                match rx.try_recv() {
                    Ok(i) => got.push(i),
                    Err(_) => rt::task::yield_now().await,
                }
            }
            got.sort();
            got
        });
        assert_eq!(got, (0..10).collect::<Vec<_>>(), "{flavor}");
    }
}
