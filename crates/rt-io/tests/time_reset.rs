//! `Sleep::reset`: moves the deadline before or after the sleep completed, and keeps the waiting
//! task's waker registered for the new deadline.

mod time_support;

use rt::time::Instant;
use std::task::Poll;
use std::time::Duration;

use rt::time::{sleep, sleep_until};
use time_support::{poll_with, CountingWaker};

#[test]
fn reset_to_earlier_and_later_deadlines() {
    let rt = time_support::runtime();
    rt.block_on(async {
        // Earlier: an hour-long sleep that is not reset would hang this test.
        let mut s = Box::pin(sleep(Duration::from_secs(3600)));
        let (_c, waker) = CountingWaker::new();
        assert_eq!(poll_with(&mut s, &waker), Poll::Pending);
        let earlier = Instant::now() + Duration::from_millis(1);
        s.as_mut().reset(earlier);
        assert_eq!(s.deadline(), earlier);
        (&mut s).await;
        assert!(Instant::now() >= earlier);
        assert!(s.is_elapsed());

        // After completion, to a later deadline: it runs again.
        let later = Instant::now() + Duration::from_millis(2);
        s.as_mut().reset(later);
        assert!(!s.is_elapsed());
        (&mut s).await;
        assert!(Instant::now() >= later);
    });
}

#[test]
fn reset_keeps_the_waiting_waker() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let (count, waker) = CountingWaker::new();
        let mut s = Box::pin(sleep(Duration::from_secs(3600)));
        assert_eq!(poll_with(&mut s, &waker), Poll::Pending);
        let new_deadline = Instant::now() + Duration::from_millis(1);
        // Reset without polling again, as a select loop would.
        s.as_mut().reset(new_deadline);
        sleep_until(new_deadline).await;
        assert!(
            time_support::settle(|| count.wakes() > 0).await,
            "the old waker is woken at the new deadline"
        );
        assert_eq!(count.wakes(), 1);
        assert!(Instant::now() >= new_deadline);
        assert_eq!(poll_with(&mut s, &waker), Poll::Ready(()));
    });
}

#[test]
fn reset_to_the_past_wakes_at_once() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let (count, waker) = CountingWaker::new();
        let mut s = Box::pin(sleep(Duration::from_secs(3600)));
        assert_eq!(poll_with(&mut s, &waker), Poll::Pending);
        s.as_mut().reset(Instant::now() - Duration::from_millis(1));
        assert_eq!(count.wakes(), 1);
        assert_eq!(poll_with(&mut s, &waker), Poll::Ready(()));
    });
}
