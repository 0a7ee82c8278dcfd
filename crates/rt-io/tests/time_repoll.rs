//! A sleep re-polled with a new waker wakes the new one, not the old; re-polled with the same
//! waker it keeps a single clone.

mod time_support;

use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use rt::time::sleep;
use time_support::{pending_sleep, poll_with, settle, CountingWaker};

#[test]
fn repoll_with_a_new_waker_replaces_the_old() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let (old, old_waker) = CountingWaker::new();
        let (new, new_waker) = CountingWaker::new();
        let mut s = pending_sleep(Duration::from_millis(2), &old_waker);
        if poll_with(&mut s, &new_waker).is_ready() {
            // Preempted past the deadline between the polls: the fire took the old waker.
            return;
        }
        // The new waker was stored before the fire, so the fire wakes it, and only it.
        assert!(settle(|| new.wakes() > 0).await, "the new waker is woken");
        assert_eq!(new.wakes(), 1);
        assert_eq!(old.wakes(), 0, "the replaced waker is not woken");
        assert_eq!(Arc::strong_count(&old), 2, "the replaced clone was dropped");
        assert_eq!(poll_with(&mut s, &new_waker), Poll::Ready(()));
    });
}

#[test]
fn repoll_with_the_same_waker_keeps_one_clone() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let (count, waker) = CountingWaker::new();
        let mut s = Box::pin(sleep(Duration::from_secs(3600)));
        for _ in 0..10 {
            assert_eq!(poll_with(&mut s, &waker), Poll::Pending);
        }
        // Ours and the one the timer holds.
        assert_eq!(Arc::strong_count(&count), 3);
        drop(s);
        assert_eq!(
            Arc::strong_count(&count),
            2,
            "dropping the sleep frees its clone"
        );
        assert_eq!(count.wakes(), 0);
    });
}
