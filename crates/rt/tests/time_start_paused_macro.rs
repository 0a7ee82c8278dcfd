//! `#[rt::test(start_paused = true)]` builds the runtime with its clock paused, on both
//! flavours.

use std::time::Duration;

use rt::time::{advance, sleep, Instant};

#[rt::test(start_paused = true)]
async fn current_thread_starts_paused() {
    let start = Instant::now();
    advance(Duration::from_secs(30)).await;
    assert_eq!(start.elapsed(), Duration::from_secs(30));
    sleep(Duration::from_secs(3600)).await;
    assert!(start.elapsed() >= Duration::from_secs(3630));
}

#[rt::test(flavor = "multi_thread", worker_threads = 2, start_paused = true)]
async fn multi_thread_starts_paused() {
    let start = Instant::now();
    assert_eq!(Instant::now(), start);
    let h = rt::spawn(async { sleep(Duration::from_secs(86400)).await });
    h.await.unwrap();
    assert!(start.elapsed() >= Duration::from_secs(86400));
}

#[rt::test(start_paused = false)]
async fn start_paused_false_runs_the_real_clock() {
    let start = Instant::now();
    sleep(Duration::from_millis(2)).await;
    assert!(std::time::Instant::now() >= start.into_std() + Duration::from_millis(2));
}
