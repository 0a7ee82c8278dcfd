//! oneshot as tokio's: `Receiver::is_terminated` after a completed poll or `try_recv`, and
//! `is_empty` before the send, after it, after the value was taken, and when the sender left.

mod lock_util;

use lock_util::{block_on, Task};
use rt_sync::oneshot::{self, error::TryRecvError};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[test]
fn is_empty_until_the_value_is_sent() {
    let (tx, mut rx) = oneshot::channel::<u32>();
    assert!(rx.is_empty() && !rx.is_terminated());
    tx.send(3).unwrap();
    assert!(!rx.is_empty());
    assert_eq!(rx.try_recv(), Ok(3));
    assert!(rx.is_empty() && rx.is_terminated());
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
}

#[test]
fn a_completed_poll_terminates_the_receiver() {
    let (tx, mut rx) = oneshot::channel::<u32>();
    {
        let mut t = Task::new(&mut rx);
        t.pending();
        tx.send(5).unwrap();
        assert!(t.woken());
        assert_eq!(t.ready(), Ok(5));
    }
    assert!(rx.is_terminated() && rx.is_empty());
}

#[test]
fn a_sender_gone_without_sending_leaves_it_empty_and_closed() {
    let (tx, mut rx) = oneshot::channel::<u32>();
    drop(tx);
    assert!(rx.is_empty() && !rx.is_terminated());
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    assert!(rx.is_terminated());
}

#[test]
fn try_recv_after_close_terminates_and_the_sender_sees_it() {
    let (mut tx, mut rx) = oneshot::channel::<u32>();
    rx.close();
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    assert!(rx.is_terminated());
    assert!(tx.is_closed());
    block_on(tx.closed());
    assert_eq!(tx.send(1), Err(1));
}

#[test]
fn an_empty_try_recv_does_not_terminate() {
    let (tx, mut rx) = oneshot::channel::<u32>();
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    assert!(!rx.is_terminated());
    tx.send(9).unwrap();
    assert_eq!(block_on(rx), Ok(9));
}

#[test]
fn values_are_dropped_exactly_once_through_every_terminating_path() {
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    // Taken by try_recv, then dropped by the test.
    let (tx, mut rx) = oneshot::channel();
    tx.send(Counted(drops.clone())).ok().unwrap();
    drop(rx.try_recv().ok().unwrap());
    drop(rx);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    // Never taken: dropped with the receiver.
    let (tx, rx) = oneshot::channel();
    tx.send(Counted(drops.clone())).ok().unwrap();
    assert!(!rx.is_empty());
    drop(rx);
    assert_eq!(drops.load(Ordering::SeqCst), 2);
}

#[test]
fn errors_live_under_tokios_paths() {
    // `use tokio::sync::{oneshot, broadcast, watch}::error::…` ports by a rename.
    let _: Option<rt_sync::oneshot::error::RecvError> = None;
    let _: Option<rt_sync::broadcast::error::RecvError> =
        Some(rt_sync::broadcast::error::RecvError::Lagged(1));
    let _: Option<rt_sync::broadcast::error::SendError<u8>> = None;
    let _: Option<rt_sync::broadcast::error::TryRecvError> = None;
    let _: Option<rt_sync::watch::error::RecvError> = None;
    let _: Option<rt_sync::watch::error::SendError<u8>> = None;
}
