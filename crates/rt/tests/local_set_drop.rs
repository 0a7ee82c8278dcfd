//! A dropped `LocalSet` drops its unfinished tasks' futures — started and never started ones —
//! on the thread that owns the set, and their `JoinHandle`s then report a cancellation.

mod support;

use std::sync::mpsc;
use std::thread::{self, ThreadId};

use rt::task::LocalSet;
use support::{current_thread, deadline};

/// Reports the thread it is dropped on.
struct DropOn(mpsc::Sender<ThreadId>);

impl Drop for DropOn {
    fn drop(&mut self) {
        let _ = self.0.send(thread::current().id());
    }
}

#[test]
fn dropped_set_drops_pending_tasks_on_its_thread() {
    deadline(|| {
        let (tx, rx) = mpsc::channel();
        let (joins_tx, joins_rx) = mpsc::channel();
        let owner = thread::spawn(move || {
            let rt = current_thread();
            let local = LocalSet::new();
            let mut handles = Vec::new();
            for started in [true, false] {
                for _ in 0..5 {
                    let guard = DropOn(tx.clone());
                    let fut = async move {
                        let _g = guard;
                        std::future::pending::<()>().await;
                    };
                    // The second five are spawned after the set last ran: never polled.
                    handles.push(local.spawn_local(fut));
                }
                if started {
                    // Let the first five start (each parks on `pending`).
                    local.block_on(&rt, async {
                        for _ in 0..3 {
                            rt::task::yield_now().await;
                        }
                    });
                }
            }
            drop(local);
            drop(tx);
            let cancelled = handles
                .into_iter()
                .all(|h| rt.block_on(h).unwrap_err().is_cancelled());
            joins_tx.send(cancelled).unwrap();
            thread::current().id()
        });
        let owner_id = owner.join().unwrap();
        let drops: Vec<ThreadId> = rx.iter().collect();
        assert_eq!(drops.len(), 10);
        assert!(
            drops.iter().all(|t| *t == owner_id),
            "every future dropped on the owner"
        );
        assert!(
            joins_rx.recv().unwrap(),
            "every handle reports a cancellation"
        );
    });
}
