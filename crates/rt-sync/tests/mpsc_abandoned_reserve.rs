//! A `reserve` that waited for a slot and then fails (the channel closed) or is cancelled gives
//! the slot the semaphore had assigned it back, and wakes a closed receiver waiting for that
//! last slot, so the receiver sees the end of the channel (as in tokio); a slot that is not the
//! last one out does not wake it.

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

/// A closed receiver is woken only when the last slot comes back, not by a permit returned
/// while a waiting `reserve_many` still holds a slot (tokio's rule: woken when the channel is
/// idle).
#[test]
fn a_closed_receiver_is_woken_by_the_last_slot_only() {
    for cancel in [false, true] {
        let (tx, mut rx) = mpsc::channel::<()>(2);
        let permit = tx.try_reserve().unwrap();
        // Takes the free slot and waits for the one `permit` holds.
        let mut reserve = Task::new(async { tx.reserve_many(2).await.map(|p| p.len()) });
        reserve.pending();
        rx.close();
        let mut recv = Task::new(rx.recv());
        recv.pending();
        drop(permit);
        assert!(!recv.woken(), "the reserve still holds a slot");
        if cancel {
            drop(reserve);
        } else {
            assert!(reserve.ready().is_err(), "the channel is closed");
        }
        assert!(recv.woken(), "the last slot is back (cancelled: {cancel})");
        assert_eq!(recv.ready(), None);
    }
}

/// The same for unused permits alone: of two given back, only the second wakes the receiver.
#[test]
fn of_two_unused_permits_the_second_wakes_the_closed_receiver() {
    let (tx, mut rx) = mpsc::channel::<()>(2);
    let mut permits = tx.try_reserve_many(2).unwrap();
    let (first, second) = (permits.next().unwrap(), permits.next().unwrap());
    rx.close();
    let mut recv = Task::new(rx.recv());
    recv.pending();
    drop(first);
    assert!(!recv.woken(), "a permit is still out");
    recv.pending();
    drop(second);
    assert!(recv.woken());
    assert_eq!(recv.ready(), None);
}
