//! A background task stolen by another worker stays background (it runs as background there,
//! and what it spawns inherits that). Worker A's task spawns the background task onto A's own
//! background queue and then blocks A until the task has run: only worker B, stealing from
//! A's background queue, can run it.

use std::sync::mpsc;
use std::time::Duration;

use rt::task::{current_priority, Priority};

const DEADLOCK: Duration = Duration::from_secs(60);

#[test]
fn a_stolen_background_task_stays_background() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (blocked_on, ran_on, ran_as, child_as) = rt.block_on(async {
        rt::spawn(async {
            let (tx, rx) = mpsc::channel();
            let stolen = rt::task::Builder::new()
                .priority(Priority::Background)
                .spawn(async move {
                    let child = rt::spawn(async { current_priority() }).await.unwrap();
                    tx.send((std::thread::current().id(), current_priority(), child))
                        .unwrap();
                })
                .unwrap();
            // Block this worker (a test only: it holds the worker until the other one has
            // stolen and run the task).
            let (ran_on, ran_as, child_as) =
                rx.recv_timeout(DEADLOCK).expect("the task was not stolen");
            // The blocked worker is this one now; after the `await` below the task may resume
            // on the other worker.
            let blocked_on = std::thread::current().id();
            stolen.await.unwrap();
            (blocked_on, ran_on, ran_as, child_as)
        })
        .await
        .unwrap()
    });
    assert_ne!(blocked_on, ran_on, "the task ran on the blocked worker");
    assert_eq!(ran_as, Priority::Background);
    assert_eq!(child_as, Priority::Background);
}
