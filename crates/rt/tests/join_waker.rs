//! The `JoinHandle`'s waker: completion wakes the waker of the latest poll (not an older one),
//! and no waker clone outlives the task, whether the handle is dropped before, during or after
//! completion.

mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use support::{runtimes, Gate};

/// A waker that counts its wakes and can report the first one on a channel.
struct Counting {
    wakes: AtomicUsize,
    tx: Mutex<Option<mpsc::Sender<()>>>,
}

impl Counting {
    fn new() -> (Arc<Counting>, mpsc::Receiver<()>) {
        let (tx, rx) = mpsc::channel();
        let c = Arc::new(Counting {
            wakes: AtomicUsize::new(0),
            tx: Mutex::new(Some(tx)),
        });
        (c, rx)
    }
}

impl Wake for Counting {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
        if let Some(tx) = self.tx.lock().unwrap().take() {
            let _ = tx.send(());
        }
    }
}

fn poll_with<F: Future + Unpin>(fut: &mut F, waker: &Arc<Counting>) -> Poll<F::Output> {
    let waker = Waker::from(waker.clone());
    Pin::new(fut).poll(&mut Context::from_waker(&waker))
}

#[test]
fn completion_wakes_the_latest_waker() {
    for (flavor, rt) in runtimes() {
        let gate = Arc::new(Gate::default());
        let g = gate.clone();
        let mut h = rt.spawn(async move {
            g.wait().await;
            9
        });
        let (first, _first_rx) = Counting::new();
        let (second, second_rx) = Counting::new();
        assert!(poll_with(&mut h, &first).is_pending(), "{flavor}");
        assert!(
            poll_with(&mut h, &first).is_pending(),
            "{flavor}: same waker again"
        );
        assert!(
            poll_with(&mut h, &second).is_pending(),
            "{flavor}: a new waker"
        );
        gate.open();
        if flavor == "current_thread" {
            // Only a thread inside block_on runs this runtime's tasks.
            rt.block_on(async {
                while !h.is_finished() {
                    rt::task::yield_now().await;
                }
            });
        }
        second_rx.recv().expect("the latest waker is woken");
        assert_eq!(
            first.wakes.load(Ordering::SeqCst),
            0,
            "{flavor}: a replaced waker woke"
        );
        match poll_with(&mut h, &second) {
            Poll::Ready(Ok(9)) => {}
            other => panic!("{flavor}: {other:?}"),
        }
        drop(h);
        drop(rt);
        assert_eq!(
            Arc::strong_count(&first),
            1,
            "{flavor}: a waker clone leaked"
        );
        assert_eq!(
            Arc::strong_count(&second),
            1,
            "{flavor}: a waker clone leaked"
        );
    }
}

#[test]
fn no_waker_outlives_a_task_whose_handle_is_dropped() {
    // Dropped before completion, racing it, and after it: each time the stored waker is
    // released by exactly one side.
    for (flavor, rt) in runtimes() {
        let (waker, _rx) = Counting::new();
        for i in 0..300 {
            let gate = Arc::new(Gate::default());
            let g = gate.clone();
            let mut h = rt.spawn(async move {
                g.wait().await;
            });
            assert!(poll_with(&mut h, &waker).is_pending());
            match i % 3 {
                0 => {
                    drop(h);
                    gate.open();
                }
                1 => {
                    let opener = std::thread::spawn(move || gate.open());
                    drop(h);
                    opener.join().unwrap();
                }
                _ => {
                    gate.open();
                    rt.block_on(async {
                        while !h.is_finished() {
                            rt::task::yield_now().await;
                        }
                    });
                    drop(h);
                }
            }
        }
        // Let every task finish, then tear down: all clones must be gone.
        rt.block_on(async {
            while rt::Handle::current().metrics().num_alive_tasks() > 0 {
                rt::task::yield_now().await;
            }
        });
        drop(rt);
        assert_eq!(
            Arc::strong_count(&waker),
            1,
            "{flavor}: a join waker leaked"
        );
    }
}
