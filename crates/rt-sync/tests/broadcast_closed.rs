//! broadcast `Sender::closed`, as tokio's: it completes once every receiver is gone.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use rt_sync::broadcast;

#[test]
fn closed_completes_when_the_last_receiver_goes() {
    let (tx, rx1) = broadcast::channel::<u32>(1);
    let rx2 = tx.subscribe();
    let mut closed = pin!(tx.closed());
    let mut cx = Context::from_waker(Waker::noop());
    assert!(closed.as_mut().poll(&mut cx).is_pending());
    drop(rx1);
    assert!(
        closed.as_mut().poll(&mut cx).is_pending(),
        "rx2 is still there"
    );
    drop(rx2);
    assert_eq!(closed.as_mut().poll(&mut cx), Poll::Ready(()));
}

#[test]
fn closed_is_ready_at_once_without_receivers() {
    let tx = broadcast::Sender::<u32>::new(1);
    rt_core::test_support::block_on(tx.closed());
}

#[test]
fn closed_wakes_a_waiting_task() {
    let (tx, rx) = broadcast::channel::<u32>(1);
    let dropper = std::thread::spawn(move || drop(rx));
    rt_core::test_support::block_on(tx.closed());
    dropper.join().unwrap();
}
