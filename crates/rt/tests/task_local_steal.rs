//! A task-local value follows its task across `yield_now` and across workers: on a 4-worker
//! runtime, a scoped task that is made to move to another worker (its worker is blocked while
//! it waits in that worker's queue, so another worker steals it) still sees its own value, and
//! many concurrent tasks each keep their own value through many yields.

mod support;

use std::sync::mpsc;
use std::thread::{self, ThreadId};

use support::{deadline, multi_thread};

rt::task_local! {
    static VALUE: u64;
    pub static NAME: String;
}

/// Blocks this worker until `go` fires, but only if it runs on `home`; elsewhere it returns.
async fn block_if_on(home: ThreadId, go: mpsc::Receiver<()>) {
    if thread::current().id() == home {
        let _ = go.recv();
    }
}

#[test]
fn value_follows_a_stolen_task() {
    deadline(|| {
        let rt = multi_thread(4);
        let moved = rt.block_on(rt.spawn(VALUE.scope(42, async {
            let home = thread::current().id();
            assert_eq!(VALUE.get(), 42);
            loop {
                // A blocker spawned here lands on this worker; once it runs there it holds
                // the worker until this task reports from another one.
                let (tx, rx) = mpsc::channel();
                rt::spawn(block_if_on(home, rx));
                rt::task::yield_now().await;
                assert_eq!(VALUE.get(), 42);
                let now = thread::current().id();
                let _ = tx.send(());
                if now != home {
                    return (home, now);
                }
            }
        })));
        let (home, now) = moved.unwrap();
        assert_ne!(home, now, "the task ran on two workers");
    });
}

#[test]
fn many_tasks_keep_their_own_values() {
    deadline(|| {
        let rt = multi_thread(4);
        let handles: Vec<_> = (0..64u64)
            .map(|i| {
                rt.spawn(VALUE.scope(
                    i,
                    NAME.scope(format!("task-{i}"), async move {
                        let mut threads = std::collections::HashSet::new();
                        for _ in 0..200 {
                            threads.insert(thread::current().id());
                            assert_eq!(VALUE.get(), i);
                            NAME.with(|n| assert_eq!(*n, format!("task-{i}")));
                            rt::task::yield_now().await;
                        }
                        threads.len()
                    }),
                ))
            })
            .collect();
        for h in handles {
            assert!(rt.block_on(h).unwrap() >= 1);
        }
        // Outside every scope, nothing is set on the workers or here.
        assert!(VALUE.try_with(|_| ()).is_err());
        assert!(rt
            .block_on(rt.spawn(async { NAME.try_with(|_| ()).is_err() }))
            .unwrap());
    });
}
