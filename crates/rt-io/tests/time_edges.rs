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

/// About 30 years: what a `Duration::MAX` period or delay is taken as (tokio's `safe_delay`).
const THIRTY_YEARS: Duration = Duration::from_secs(86400 * 365 * 30);

#[test]
fn interval_with_duration_max_saturates_instead_of_overflowing() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let (count, waker) = CountingWaker::new();
        let mut cx = std::task::Context::from_waker(&waker);
        let mut forever = rt::time::interval(Duration::MAX);
        assert_eq!(forever.period(), THIRTY_YEARS);
        // The first tick is at once; the next never comes.
        assert!(forever.poll_tick(&mut cx).is_ready());
        assert!(forever.poll_tick(&mut cx).is_pending());
        // Restarting one period ahead, or `Duration::MAX` ahead, does not overflow `Instant`.
        forever.reset();
        assert!(forever.poll_tick(&mut cx).is_pending());
        let mut short = rt::time::interval(Duration::from_millis(1));
        assert!(short.poll_tick(&mut cx).is_ready());
        short.reset_after(Duration::MAX);
        assert!(short.poll_tick(&mut cx).is_pending());
        assert_eq!(short.period(), Duration::from_millis(1));
        sleep(Duration::from_millis(2)).await;
        assert!(
            short.poll_tick(&mut cx).is_pending(),
            "the tick is 30 years away"
        );
        assert_eq!(count.wakes(), 0);
    });
}

#[test]
fn sleep_and_timeout_of_duration_max_are_thirty_years() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let before = Instant::now();
        let s = sleep(Duration::MAX);
        let after = Instant::now();
        assert!(s.deadline() >= before + THIRTY_YEARS && s.deadline() <= after + THIRTY_YEARS);
        // A future that is ready wins over any deadline.
        assert_eq!(timeout(Duration::MAX, async { 7 }).await, Ok(7));
        // `Sleep::reset` of a registered sleep to the far deadline a `Duration::MAX` sleep has
        // keeps it pending: a deadline that wrapped to the past or near would fire by the end of
        // the 2 ms sleep below. (The sleep reset is an hour long, not shorter: a thread
        // descheduled past a short one between its poll and the reset would see it fire.)
        let (count, waker) = CountingWaker::new();
        let mut long = Box::pin(sleep(Duration::from_secs(3600)));
        assert_eq!(poll_with(&mut long, &waker), Poll::Pending);
        long.as_mut().reset(s.deadline());
        assert_eq!(long.deadline(), s.deadline());
        sleep(Duration::from_millis(2)).await;
        assert_eq!(poll_with(&mut long, &waker), Poll::Pending);
        assert_eq!(count.wakes(), 0);
    });
}
