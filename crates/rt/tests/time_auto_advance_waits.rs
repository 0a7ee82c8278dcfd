//! Auto-advance never fires while something in the runtime can still make progress: a task
//! that yields 1,000 times while a one-hour sleep is pending finishes its loop before the
//! sleep completes, on both flavours, whether the loop runs in a spawned task or in the
//! `block_on` future; and a blocking-pool closure that is still running holds the clock back.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rt::time::{sleep, Instant};

const HOUR: Duration = Duration::from_secs(3600);
const YIELDS: usize = 1000;

fn runtimes() -> Vec<(&'static str, rt::Runtime)> {
    vec![
        (
            "current_thread",
            rt::Builder::new_current_thread()
                .start_paused(true)
                .build()
                .unwrap(),
        ),
        (
            "multi_thread",
            rt::Builder::new_multi_thread()
                .worker_threads(4)
                .start_paused(true)
                .build()
                .unwrap(),
        ),
    ]
}

#[test]
fn a_yielding_task_keeps_the_clock_still() {
    for (flavor, rt) in runtimes() {
        rt.block_on(async {
            let yields = Arc::new(AtomicUsize::new(0));
            let sleeper = {
                let yields = yields.clone();
                rt::spawn(async move {
                    sleep(HOUR).await;
                    yields.load(Ordering::SeqCst)
                })
            };
            let looper = {
                let yields = yields.clone();
                rt::spawn(async move {
                    for _ in 0..YIELDS {
                        yields.fetch_add(1, Ordering::SeqCst);
                        rt::task::yield_now().await;
                    }
                })
            };
            let seen = sleeper.await.unwrap();
            looper.await.unwrap();
            assert_eq!(
                seen, YIELDS,
                "{flavor}: the sleep completed while a task was runnable"
            );
        });
    }
}

#[test]
fn a_yielding_block_on_future_keeps_the_clock_still() {
    for (flavor, rt) in runtimes() {
        rt.block_on(async {
            let done = Arc::new(AtomicBool::new(false));
            let sleeper = {
                let done = done.clone();
                rt::spawn(async move {
                    sleep(HOUR).await;
                    done.load(Ordering::SeqCst)
                })
            };
            let start = Instant::now();
            for _ in 0..YIELDS {
                rt::task::yield_now().await;
            }
            assert_eq!(
                Instant::now(),
                start,
                "{flavor}: the clock jumped during the loop"
            );
            done.store(true, Ordering::SeqCst);
            assert!(
                sleeper.await.unwrap(),
                "{flavor}: the sleep completed first"
            );
        });
    }
}

#[test]
fn a_running_blocking_closure_holds_the_clock_back() {
    for (flavor, rt) in runtimes() {
        rt.block_on(async {
            let (go, wait) = std::sync::mpsc::channel::<()>();
            let finished = Arc::new(AtomicBool::new(false));
            let blocking = {
                let finished = finished.clone();
                rt::spawn_blocking(move || {
                    wait.recv().unwrap();
                    finished.store(true, Ordering::SeqCst);
                })
            };
            let sleeper = {
                let finished = finished.clone();
                rt::spawn(async move {
                    sleep(HOUR).await;
                    finished.load(Ordering::SeqCst)
                })
            };
            // Let the runtime go idle with the closure still running: only the pool is busy.
            for _ in 0..100 {
                rt::task::yield_now().await;
            }
            go.send(()).unwrap();
            blocking.await.unwrap();
            assert!(
                sleeper.await.unwrap(),
                "{flavor}: the clock jumped while the pool was busy"
            );
        });
    }
}
