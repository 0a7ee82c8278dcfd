//! A sleep dropped before its deadline never fires: its waker is never called, and every waker
//! clone it took is released.

mod time_support;

use rt::time::Instant;
use std::time::Duration;

use rt::time::{sleep, sleep_until};
use time_support::{poll_with, CountingWaker};

#[test]
fn dropped_sleep_never_wakes() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let (count, waker) = CountingWaker::new();
        let deadline = Instant::now() + Duration::from_millis(20);
        let mut doomed: Vec<_> = (0..100).map(|_| Box::pin(sleep_until(deadline))).collect();
        for s in &mut doomed {
            let _ = poll_with(s, &waker);
        }
        drop(doomed);
        // Zero unless this thread was preempted past `deadline` before the drop.
        let at_drop = count.wakes();
        // Timers fire in deadline order: once this later one has gone through the wheel, a timer
        // of `deadline` still in it would have been fired, and its waker called, before it.
        sleep_until(deadline + Duration::from_millis(3)).await;
        assert_eq!(count.wakes(), at_drop, "a dropped sleep woke its task");
        // Removed from the wheel: the entries, and the waker clones they held, are freed.
        drop(waker);
        assert!(
            time_support::settle(|| std::sync::Arc::strong_count(&count) == 1).await,
            "the dropped sleeps' waker clones were never freed"
        );
    });
}

#[test]
fn dropping_while_the_driver_fires_never_wakes_after_the_drop() {
    let rt = time_support::runtime();
    rt.block_on(async {
        // Drops racing fires: each sleep is dropped right around its deadline.
        for i in 0..200u64 {
            let (count, waker) = CountingWaker::new();
            let mut s = Box::pin(sleep(Duration::from_micros(i % 20)));
            if poll_with(&mut s, &waker).is_pending() {
                while !s.is_elapsed() && i % 2 == 0 {
                    std::hint::spin_loop();
                }
            }
            drop(s);
            let after_drop = count.wakes();
            assert!(after_drop <= 1);
            // Any wake the driver still makes comes before a later timer fires.
            sleep(Duration::from_micros(50)).await;
            assert_eq!(count.wakes(), after_drop, "woken after the drop returned");
        }
    });
}

#[test]
fn never_polled_sleep_registers_nothing() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let s = sleep(Duration::from_micros(10));
        assert!(!s.is_elapsed());
        drop(s);
        sleep(Duration::from_micros(100)).await;
    });
}
