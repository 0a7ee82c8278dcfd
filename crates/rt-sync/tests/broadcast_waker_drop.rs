//! A broadcast receiver's waker may send on the same channel from its `Drop` (a task whose last
//! waker owns a sender): the channel never drops a waker while holding its lock, so this does
//! not deadlock.

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Wake, Waker};

use rt_sync::broadcast;

/// A waker that sends `7` on the channel when its last clone is dropped.
struct SendOnDrop(Mutex<Option<broadcast::Sender<u32>>>);

impl Wake for SendOnDrop {
    fn wake(self: Arc<Self>) {}
}

impl Drop for SendOnDrop {
    fn drop(&mut self) {
        if let Some(tx) = self.0.lock().unwrap().take() {
            let _ = tx.send(7);
        }
    }
}

fn sending_waker(tx: &broadcast::Sender<u32>) -> Waker {
    Waker::from(Arc::new(SendOnDrop(Mutex::new(Some(tx.clone())))))
}

#[test]
fn replacing_a_registered_waker_that_sends_in_drop() {
    let (tx, mut rx) = broadcast::channel::<u32>(4);
    let mut other = tx.subscribe();
    {
        let mut recv = pin!(rx.recv());
        let waker = sending_waker(&tx);
        assert!(recv
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending());
        drop(waker);
        // A second poll with another waker replaces (and drops) the sending one.
        let _ = recv.as_mut().poll(&mut Context::from_waker(Waker::noop()));
    }
    assert_eq!(other.try_recv(), Ok(7));
}

#[test]
fn dropping_a_waiting_recv_whose_waker_sends_in_drop() {
    let (tx, mut rx) = broadcast::channel::<u32>(4);
    let mut other = tx.subscribe();
    {
        let mut recv = pin!(rx.recv());
        let waker = sending_waker(&tx);
        assert!(recv
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending());
        drop(waker);
    }
    assert_eq!(other.try_recv(), Ok(7));
}
