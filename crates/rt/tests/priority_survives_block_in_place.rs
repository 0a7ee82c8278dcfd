//! A background task's priority survives `block_in_place`: inside the closure and after it
//! the task is still background (so what it spawns is too), and the background task it
//! queued before the call runs on the worker's substitute meanwhile (the lent context carries
//! the background queue along with the normal one).

use std::sync::mpsc;
use std::time::Duration;

use rt::task::{current_priority, Priority};

const DEADLOCK: Duration = Duration::from_secs(60);

#[test]
fn priority_and_background_queue_survive_block_in_place() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let (before, inside, after, queued, spawned_after) = rt.block_on(async {
        rt::task::Builder::new()
            .priority(Priority::Background)
            .spawn(async {
                let before = current_priority();
                let (tx, rx) = mpsc::channel();
                // Queued on this worker's background queue (inherited priority).
                let queued = rt::spawn(async move {
                    tx.send(current_priority()).unwrap();
                });
                let inside = rt::task::block_in_place(|| {
                    // Runs on the substitute, from the lent background queue.
                    let ran_as = rx
                        .recv_timeout(DEADLOCK)
                        .expect("the queued task did not run");
                    assert_eq!(ran_as, Priority::Background);
                    current_priority()
                });
                let after = current_priority();
                queued.await.unwrap();
                let spawned_after = rt::spawn(async { current_priority() }).await.unwrap();
                (before, inside, after, Priority::Background, spawned_after)
            })
            .unwrap()
            .await
            .unwrap()
    });
    assert_eq!(before, Priority::Background);
    assert_eq!(inside, Priority::Background);
    assert_eq!(after, Priority::Background);
    assert_eq!(queued, Priority::Background);
    assert_eq!(spawned_after, Priority::Background);
}
