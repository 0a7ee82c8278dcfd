//! Stall reports: a poll that blocks its worker past the threshold is reported while it still
//! runs (id, name, spawn location, worker, elapsed), then once more when it returns
//! (`ended()`, its total length); `metrics().stall_count()` counts it. The blocking poll waits on a
//! channel that the `on_stall` callback feeds, so the first report must come while it blocks;
//! the receive timeouts only turn a missing report into a failure, they measure nothing.

use std::sync::mpsc;
use std::time::Duration;

const DEADLOCK: Duration = Duration::from_secs(60);
const THRESHOLD: Duration = Duration::from_millis(50);

fn runtime(workers: usize, tx: mpsc::Sender<rt::StallInfo>) -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(workers)
        .stall_threshold(Some(THRESHOLD))
        .on_stall(move |info: &rt::StallInfo| {
            let _ = tx.send(info.clone());
        })
        .build()
        .unwrap()
}

#[test]
fn named_stall_is_reported_while_running_then_ended() {
    let (tx, rx) = mpsc::channel();
    let rt = runtime(1, tx);
    // The blocked poll waits for the report made about it.
    let (seen_tx, seen_rx) = mpsc::channel::<rt::StallInfo>();
    let (line, h) = rt.block_on(async move {
        let h = rt::task::Builder::new().name("sleepy").spawn(async move {
            let info = seen_rx
                .recv_timeout(DEADLOCK)
                .expect("the stall was not reported while the poll ran");
            assert!(!info.ended());
        });
        (line!() - 6, h.unwrap())
    });
    let id = h.id().as_u64();
    let first = rx.recv_timeout(DEADLOCK).expect("no stall report");
    seen_tx.send(first.clone()).unwrap();
    assert!(!first.ended());
    assert_eq!(first.task_id(), id);
    assert_eq!(first.name(), Some("sleepy"));
    assert_eq!(first.location().file(), file!());
    assert_eq!(first.location().line(), line);
    assert_eq!(first.location(), h.spawn_location());
    assert_eq!(first.worker(), 0);
    assert!(first.elapsed() >= THRESHOLD, "{:?}", first.elapsed());
    rt.block_on(h).unwrap();
    let end = rx
        .recv_timeout(DEADLOCK)
        .expect("no follow-up when the stall ended");
    assert!(end.ended());
    assert_eq!(end.task_id(), id);
    assert_eq!(end.name(), Some("sleepy"));
    assert!(end.elapsed() >= first.elapsed());
    assert_eq!(rt.metrics().stall_count(), 1);
    assert!(
        rx.try_recv().is_err(),
        "a stall is reported once, then ended once"
    );
}

#[test]
fn unnamed_stall_on_the_second_worker() {
    let (tx, rx) = mpsc::channel();
    let rt = runtime(2, tx);
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let h = rt.spawn(async move {
        release_rx.recv_timeout(DEADLOCK).unwrap();
    });
    let line = line!() - 3;
    let info = rx.recv_timeout(DEADLOCK).expect("no stall report");
    assert!(!info.ended());
    assert_eq!(info.task_id(), h.id().as_u64());
    assert_eq!(info.name(), None);
    assert_eq!(info.location().line(), line);
    assert_eq!(info.location(), h.spawn_location());
    assert!(info.worker() < 2);
    release_tx.send(()).unwrap();
    rt.block_on(h).unwrap();
    let end = rx.recv_timeout(DEADLOCK).expect("no follow-up");
    assert!(end.ended());
    assert_eq!(end.worker(), info.worker());
    assert_eq!(rt.metrics().stall_count(), 1);
}
