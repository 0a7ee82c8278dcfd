//! Paused time stops at exact deadlines: a sleep of 500 ms reads 500 ms, whether the sleep is
//! polled to completion or only asked `is_elapsed` (tokio-util's `DelayQueue` does that), as
//! on tokio.

use std::future::{poll_fn, Future};
use std::task::Poll;
use std::time::Duration;

use rt::time::{sleep, sleep_until, Instant};

#[rt::test(start_paused = true)]
async fn a_sleep_ends_with_the_clock_at_its_deadline() {
    let start = Instant::now();
    for ms in [500u64, 1_000, 1_001, 2_000] {
        sleep_until(start + Duration::from_millis(ms)).await;
        assert_eq!(start.elapsed(), Duration::from_millis(ms));
    }
}

#[rt::test(start_paused = true)]
async fn is_elapsed_moves_the_clock_to_the_deadline_too() {
    let start = Instant::now();
    let mut first = std::pin::pin!(sleep(Duration::from_millis(300)));
    // Registers the timer.
    assert!(poll_fn(|cx| Poll::Ready(first.as_mut().poll(cx).is_pending())).await);
    // Another sleep in the same tick range drives auto-advance; the first one's timer fires.
    sleep(Duration::from_millis(300)).await;
    assert!(first.is_elapsed());
    assert_eq!(start.elapsed(), Duration::from_millis(300));
}

#[rt::test(flavor = "multi_thread", worker_threads = 2, start_paused = true)]
async fn multi_thread_sleeps_end_at_their_deadlines() {
    let start = Instant::now();
    let mut tasks = Vec::new();
    for ms in [7u64, 70, 700] {
        tasks.push(rt::spawn(async move {
            sleep(Duration::from_millis(ms)).await;
            start.elapsed() >= Duration::from_millis(ms)
        }));
    }
    for task in tasks {
        assert!(task.await.unwrap());
    }
    sleep_until(start + Duration::from_secs(1)).await;
    assert_eq!(start.elapsed(), Duration::from_secs(1));
}
