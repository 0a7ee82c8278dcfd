//! A `reserve` that waited for a slot and then fails (the channel closed) or is cancelled gives
//! the slot the semaphore had assigned it back, and wakes a closed receiver waiting for that
//! last slot, so the receiver sees the end of the channel (as in tokio).

mod lock_util;

use lock_util::Task;
use rt_sync::mpsc;

#[test]
fn a_cancelled_reserve_wakes_the_closed_receiver() {
    let (tx, mut rx) = mpsc::channel::<()>(1);
    let permit = tx.try_reserve().unwrap();
    let mut reserve = Task::new(tx.reserve());
    reserve.pending();
    // The slot goes to the waiting reserve, which is woken but not polled yet.
    drop(permit);
    assert!(reserve.woken());
    rx.close();
    let mut recv = Task::new(rx.recv());
    recv.pending();
    drop(reserve);
    assert!(recv.woken());
    assert_eq!(recv.ready(), None);
}

#[test]
fn a_failed_reserve_wakes_the_closed_receiver() {
    let (tx, mut rx) = mpsc::channel::<()>(1);
    let permit = tx.try_reserve().unwrap();
    let mut reserve = Task::new(tx.reserve());
    reserve.pending();
    drop(permit);
    rx.close();
    let mut recv = Task::new(rx.recv());
    recv.pending();
    assert!(reserve.ready().is_err(), "the channel is closed");
    assert!(recv.woken());
    assert_eq!(recv.ready(), None);
}

#[test]
fn a_cancelled_reserve_many_wakes_the_closed_receiver() {
    let (tx, mut rx) = mpsc::channel::<()>(2);
    let permits = tx.try_reserve_many(2).unwrap();
    let mut reserve = Task::new(async { tx.reserve_many(2).await.map(|p| p.len()) });
    reserve.pending();
    drop(permits);
    rx.close();
    let mut recv = Task::new(rx.recv());
    recv.pending();
    drop(reserve);
    assert!(recv.woken());
    assert_eq!(recv.ready(), None);
}
