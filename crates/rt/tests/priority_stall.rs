//! A background task whose CPU work never reaches a budget check cannot be sliced: it is a
//! stall. The stall report names its priority, and the stalled worker's take-over runs the
//! normal task queued behind it while it still blocks. The blocking poll waits on channels fed
//! by `on_stall` and by the normal task; the receive timeouts only turn a missing report or
//! take-over into a failure.

use std::sync::{mpsc, Mutex};
use std::time::Duration;

use rt::task::Priority;

const DEADLOCK: Duration = Duration::from_secs(60);

#[test]
fn a_stalled_background_poll_is_reported_with_its_priority_and_taken_over() {
    let (tx, rx) = mpsc::channel::<rt::StallInfo>();
    let tx = Mutex::new(tx);
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .stall_threshold(Some(Duration::from_millis(50)))
        .on_stall(move |info: &rt::StallInfo| {
            let _ = tx.lock().unwrap().send(info.clone());
        })
        .build()
        .unwrap();
    let (info, id) = rt.block_on(async move {
        let h = rt::task::Builder::new()
            .priority(Priority::Background)
            .spawn(async move {
                let (ran_tx, ran_rx) = mpsc::channel();
                // Queued on this worker (its LIFO slot) behind the stalled poll.
                rt::task::Builder::new()
                    .priority(Priority::Normal)
                    .spawn(async move { ran_tx.send(rt::task::current_priority()).unwrap() })
                    .unwrap();
                let info = rx
                    .recv_timeout(DEADLOCK)
                    .expect("the stall was not reported");
                let ran = ran_rx
                    .recv_timeout(DEADLOCK)
                    .expect("the take-over did not run the normal task");
                assert_eq!(ran, Priority::Normal);
                info
            })
            .unwrap();
        let id = h.id();
        (h.await.unwrap(), id)
    });
    assert_eq!(info.task_id(), id.as_u64());
    assert_eq!(info.priority(), Priority::Background);
    assert!(!info.ended());
}
