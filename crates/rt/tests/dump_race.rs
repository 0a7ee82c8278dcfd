//! Dumps race tasks that finish and are freed meanwhile, and the runtime's shutdown: no crash,
//! no task freed under the walk (the debug build's assertions and the frame pool's checks would
//! catch a double free), and every task live for the whole walk is listed exactly once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const LONG: usize = 16;

#[test]
fn dumps_race_finishing_tasks_and_shutdown() {
    for round in 0..20 {
        let rt = rt::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        // Tasks that stay live until the end of the round (half of them named).
        let mut senders = Vec::new();
        let mut long = Vec::new();
        for i in 0..LONG {
            let (tx, rx) = rt::sync::oneshot::channel::<()>();
            senders.push(tx);
            let fut = async move {
                let _ = rx.await;
            };
            let h = if i % 2 == 0 {
                rt::task::Builder::new()
                    .name("long")
                    .spawn_on(fut, rt.handle())
                    .unwrap()
            } else {
                rt.spawn(fut)
            };
            long.push(h);
        }
        let long_ids: Vec<_> = long.iter().map(|h| h.id()).collect();
        // Churn: short tasks (some named) spawned, woken and finished on both workers.
        let stop = Arc::new(AtomicBool::new(false));
        let churn = {
            let stop = stop.clone();
            rt.spawn(async move {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let mut hs = Vec::new();
                    for i in 0..32 {
                        let fut = async {
                            rt::task::yield_now().await;
                        };
                        hs.push(if i % 4 == 0 {
                            rt::task::Builder::new().name("short").spawn(fut).unwrap()
                        } else {
                            rt::spawn(fut)
                        });
                    }
                    for h in hs {
                        h.await.unwrap();
                        n += 1;
                    }
                }
                n
            })
        };
        // A dumper inside the runtime too: two walks at a time (they take turns).
        let inner = rt.spawn(async {
            for _ in 0..50 {
                let d = rt::Handle::current().dump();
                assert!(!d.is_empty());
                rt::task::yield_now().await;
            }
        });
        for _ in 0..100 {
            let d = rt.dump();
            for id in &long_ids {
                let n = d.iter().filter(|t| t.id() == *id).count();
                assert_eq!(n, 1, "round {round}: task {id} listed {n} times:\n{d}");
            }
            let _ = d.to_string();
        }
        rt.block_on(inner).unwrap();
        stop.store(true, Ordering::Relaxed);
        assert!(rt.block_on(churn).unwrap() > 0);

        // Dumps racing the shutdown (which cancels the long tasks) from another thread.
        let handle = rt.handle().clone();
        let dumper = std::thread::spawn(move || {
            let mut seen = 0;
            loop {
                let d = handle.dump();
                seen += 1;
                if d.is_empty() && seen > 10 {
                    return seen;
                }
            }
        });
        drop(rt);
        assert!(dumper.join().unwrap() > 10);
        for h in long {
            assert!(h.is_finished());
        }
        drop(senders);
    }
}
