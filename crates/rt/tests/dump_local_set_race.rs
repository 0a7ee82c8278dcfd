//! Dumps taken from other threads while `LocalSet`s are driven, finish tasks and are dropped
//! with tasks still live: every dump returns, and every local future is dropped on its set's
//! thread, never on a dumping thread (a walk that met a set's close would shut its tasks down
//! itself, so a set leaves the dump's list before it closes).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::{self, ThreadId};

use rt::task::LocalSet;

const ROUNDS: usize = 300;
const TASKS: usize = 40;

/// Counts the drops made on a thread other than `home`.
struct DropOn {
    home: ThreadId,
    wrong: Arc<AtomicUsize>,
}

impl Drop for DropOn {
    fn drop(&mut self) {
        if thread::current().id() != self.home {
            self.wrong.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[test]
fn concurrent_dumps_never_drop_a_local_future_off_its_thread() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let dumps = Arc::new(AtomicUsize::new(0));
    let dumpers: Vec<_> = (0..2)
        .map(|_| {
            let (h, stop, dumps) = (rt.handle().clone(), stop.clone(), dumps.clone());
            thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let d = h.dump();
                    assert!(d.len() <= TASKS + 1, "{d}");
                    dumps.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let wrong = Arc::new(AtomicUsize::new(0));
    let home = thread::current().id();
    for _ in 0..ROUNDS {
        let local = LocalSet::new();
        local.block_on(&rt, async {
            for k in 0..TASKS {
                let guard = DropOn {
                    home,
                    wrong: wrong.clone(),
                };
                let _rc = std::rc::Rc::new(());
                if k % 2 == 0 {
                    // Finishes (its future dropped by the set as it completes).
                    rt::task::spawn_local(async move {
                        rt::task::yield_now().await;
                        drop(guard);
                    });
                } else {
                    // Live until the set's drop cancels it.
                    rt::task::spawn_local(async move {
                        let _g = guard;
                        std::future::pending::<()>().await
                    });
                }
            }
            rt::task::yield_now().await;
        });
        drop(local);
    }
    stop.store(true, Ordering::Relaxed);
    for d in dumpers {
        d.join().unwrap();
    }
    assert_eq!(
        wrong.load(Ordering::Relaxed),
        0,
        "local futures dropped off their thread"
    );
    assert!(dumps.load(Ordering::Relaxed) > 0);
}
