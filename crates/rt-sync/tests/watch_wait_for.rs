//! `watch::Receiver::wait_for` (the current value first, then each new one; fails only when
//! the sender is gone and the last value does not qualify), `mark_changed` /
//! `mark_unchanged`, and `Sender::send_if_modified` (notifies only when told the value
//! changed), as in tokio.

mod channel_util;

use std::pin::pin;
use std::task::Poll;
use std::thread;

use channel_util::{block_on, poll_with, CountWaker};
use rt_sync::watch;

#[test]
fn wait_for_takes_the_current_value_when_it_qualifies() {
    let (_tx, mut rx) = watch::channel(7);
    rx.borrow_and_update(); // seen: wait_for still checks it
    let r = block_on(rx.wait_for(|v| *v == 7)).unwrap();
    assert_eq!(*r, 7);
    assert!(!r.has_changed());
}

#[test]
fn wait_for_waits_for_a_qualifying_value_and_marks_it_seen() {
    let (tx, mut rx) = watch::channel(0);
    let w = CountWaker::new();
    {
        let mut f = pin!(rx.wait_for(|v| *v >= 3));
        assert!(poll_with(f.as_mut(), &w).is_pending());
        tx.send(1).unwrap(); // does not qualify: woken, checks, waits again
        assert_eq!(w.count(), 1);
        assert!(poll_with(f.as_mut(), &w).is_pending());
        tx.send(3).unwrap();
        assert_eq!(w.count(), 2);
        match poll_with(f.as_mut(), &w) {
            Poll::Ready(Ok(r)) => {
                assert_eq!(*r, 3);
            }
            other => panic!(
                "expected the value 3, got {:?}",
                other.map(|r| r.map(|v| *v))
            ),
        }
    }
    assert_eq!(
        rx.has_changed(),
        Ok(false),
        "wait_for marks what it returns seen"
    );

    // From another thread, values in a row: the qualifying one is found.
    let sender = thread::spawn(move || {
        for i in 4..=10 {
            tx.send(i).unwrap();
        }
        tx
    });
    assert_eq!(*block_on(rx.wait_for(|v| *v == 10)).unwrap(), 10);
    drop(sender.join().unwrap());
}

#[test]
fn wait_for_fails_only_when_the_sender_is_gone_and_nothing_qualifies() {
    let (tx, mut rx) = watch::channel(0);
    tx.send(5).unwrap();
    drop(tx);
    // The last value qualifies: found even though the sender is gone.
    assert_eq!(*block_on(rx.wait_for(|v| *v == 5)).unwrap(), 5);
    // It does not: the sender is gone, so nothing can ever qualify.
    assert!(block_on(rx.wait_for(|v| *v == 6)).is_err());

    // A receiver waiting when the sender drops is woken with the error.
    let (tx, mut rx) = watch::channel(0);
    let w = CountWaker::new();
    let mut f = pin!(rx.wait_for(|v| *v == 1));
    assert!(poll_with(f.as_mut(), &w).is_pending());
    drop(tx);
    assert_eq!(w.count(), 1);
    assert!(matches!(poll_with(f.as_mut(), &w), Poll::Ready(Err(_))));
}

#[test]
fn mark_changed_and_mark_unchanged() {
    let (tx, mut rx) = watch::channel(0);
    assert_eq!(rx.has_changed(), Ok(false));
    rx.mark_changed();
    assert_eq!(rx.has_changed(), Ok(true));
    assert!(rx.borrow().has_changed());
    // `changed` completes at once for a receiver marked changed.
    let w = CountWaker::new();
    assert_eq!(poll_with(pin!(rx.changed()), &w), Poll::Ready(Ok(())));
    assert_eq!(rx.has_changed(), Ok(false));

    tx.send(1).unwrap();
    assert_eq!(rx.has_changed(), Ok(true));
    rx.mark_unchanged();
    assert_eq!(rx.has_changed(), Ok(false));
    assert!(poll_with(pin!(rx.changed()), &w).is_pending());
    assert_eq!(*rx.borrow(), 1, "mark_unchanged does not touch the value");
}

#[test]
fn send_if_modified_notifies_only_when_modified() {
    let (tx, mut rx) = watch::channel(vec![1]);
    let w = CountWaker::new();
    let mut f = Box::pin(rx.changed());
    assert!(poll_with(f.as_mut(), &w).is_pending());
    // Not modified: no wake, no new version.
    assert!(!tx.send_if_modified(|v| {
        if v.len() > 5 {
            v.clear();
            true
        } else {
            false
        }
    }));
    assert_eq!(w.count(), 0);
    assert!(poll_with(f.as_mut(), &w).is_pending());
    // Modified: woken, and the change is seen.
    assert!(tx.send_if_modified(|v| {
        v.push(2);
        true
    }));
    assert_eq!(w.count(), 1);
    assert_eq!(poll_with(f.as_mut(), &w), Poll::Ready(Ok(())));
    drop(f);
    assert_eq!(*rx.borrow(), vec![1, 2]);
    assert_eq!(rx.has_changed(), Ok(false));
}
