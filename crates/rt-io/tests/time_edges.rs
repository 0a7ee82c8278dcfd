//! Edge deadlines: `Duration::MAX` saturates to a deadline that never comes, and deadlines in the
//! past complete at the first poll.

mod time_support;

use rt::time::Instant;
use std::future::{pending, poll_fn, Future};
use std::task::Poll;
use std::time::Duration;

use rt::time::{sleep, sleep_until, timeout};
use time_support::{poll_with, CountingWaker};

#[test]
fn duration_max_never_fires() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let (count, waker) = CountingWaker::new();
        let mut forever = Box::pin(sleep(Duration::MAX));
        assert!(forever.deadline() > Instant::now() + Duration::from_secs(86400 * 365 * 20));
        assert_eq!(poll_with(&mut forever, &waker), Poll::Pending);
        let mut never = Box::pin(timeout(Duration::MAX, pending::<()>()));
        let mut polled = false;
        poll_fn(|cx| {
            if !polled {
                polled = true;
                assert!(never.as_mut().poll(cx).is_pending());
            }
            Poll::Ready(())
        })
        .await;
        sleep(Duration::from_millis(2)).await;
        assert!(!forever.is_elapsed());
        assert_eq!(count.wakes(), 0);
        assert_eq!(poll_with(&mut forever, &waker), Poll::Pending);
    });
}

#[test]
fn past_deadlines_complete_at_the_first_poll() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let (count, waker) = CountingWaker::new();
        let past = Instant::now() - Duration::from_millis(5);
        let mut s = Box::pin(sleep_until(past));
        assert_eq!(poll_with(&mut s, &waker), Poll::Ready(()));
        assert!(s.is_elapsed());
        let mut zero = Box::pin(sleep(Duration::ZERO));
        assert_eq!(poll_with(&mut zero, &waker), Poll::Ready(()));
        assert_eq!(count.wakes(), 0, "completed without a wake-up");
        // An instant from before the runtime (and its clock) started.
        let ancient = Instant::now().checked_sub(Duration::from_secs(3600));
        if let Some(ancient) = ancient {
            sleep_until(ancient).await;
        }
    });
}
