//! A task that waits with no waker alive is marked (tokio-console's "lost waker"); one whose
//! waker is held somewhere is not.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use rt::TaskState;

fn find(d: &rt::Dump, id: rt::task::Id) -> &rt::TaskDump {
    d.iter()
        .find(|t| t.id() == id)
        .unwrap_or_else(|| panic!("task {id} missing from the dump:\n{d}"))
}

/// Pending forever; leaves its waker in `slot` on each poll.
struct Parked(Arc<Mutex<Option<Waker>>>);

impl Future for Parked {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        *self.0.lock().unwrap() = Some(cx.waker().clone());
        Poll::Pending
    }
}

#[test]
fn current_thread_marks_tasks_without_a_waker() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let lost = rt.spawn(std::future::pending::<()>());
    let detached = rt.spawn(std::future::pending::<()>());
    let detached_id = detached.id();
    drop(detached);
    let (_tx, rx) = rt::sync::oneshot::channel::<()>();
    let waiting = rt.spawn(async move {
        let _ = rx.await;
    });
    let slot = Arc::new(Mutex::new(None));
    let parked = rt.spawn(Parked(slot.clone()));
    let timer = rt.spawn(async { rt::time::sleep(Duration::from_secs(3600)).await });
    let abortable = rt.spawn(std::future::pending::<()>());
    let abort = abortable.abort_handle();

    // Before any poll: scheduled, so not lost.
    assert!(rt.dump().iter().all(|t| !t.lost_waker()));
    rt.block_on(async {
        for _ in 0..4 {
            rt::task::yield_now().await;
        }
    });
    let d = rt.dump();
    assert_eq!(d.len(), 6, "{d}");
    assert!(d.iter().all(|t| t.state() == TaskState::Idle), "{d}");
    assert!(find(&d, lost.id()).lost_waker(), "{d}");
    assert!(find(&d, detached_id).lost_waker(), "{d}");
    assert!(!find(&d, waiting.id()).lost_waker(), "{d}");
    assert!(!find(&d, parked.id()).lost_waker(), "{d}");
    assert!(!find(&d, timer.id()).lost_waker(), "{d}");
    // Documented false negative: an AbortHandle's reference looks like a waker's.
    assert!(!find(&d, abortable.id()).lost_waker(), "{d}");
    assert!(d.to_string().contains("idle, no waker"), "{d}");

    // The parked task's waker is dropped without a wake: now it is lost too.
    drop(slot.lock().unwrap().take());
    let d = rt.dump();
    assert!(find(&d, parked.id()).lost_waker(), "{d}");
    // Without its AbortHandle the abortable task is lost as well.
    drop(abort);
    assert!(find(&rt.dump(), abortable.id()).lost_waker());
}

#[test]
fn multi_thread_marks_a_pending_forever_task() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let lost = rt.spawn(std::future::pending::<()>());
    let (tx, rx) = rt::sync::oneshot::channel::<()>();
    let waiting = rt.spawn(async move {
        let _ = rx.await;
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    let d = loop {
        let d = rt.dump();
        if d.iter().all(|t| t.state() == TaskState::Idle) {
            break d;
        }
        assert!(Instant::now() < deadline, "never idle:\n{d}");
        std::thread::yield_now();
    };
    assert!(find(&d, lost.id()).lost_waker(), "{d}");
    assert!(!find(&d, waiting.id()).lost_waker(), "{d}");
    tx.send(()).unwrap();
    rt.block_on(waiting).unwrap();
}
