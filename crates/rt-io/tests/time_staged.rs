//! Far-off timers registered on a worker wait in its shard's stage, off the shared wheel
//! (`time/stage.rs`). They must keep every promise a wheel timer keeps: fire at their deadline,
//! even while the worker that staged them is stuck in a task; be seen by auto-advance once the
//! clock is paused; and be woken by shutdown.

mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use rt::time::{sleep, Instant, Sleep};
use support::{poll_once, Flag};

/// Far enough ahead to be staged (`STAGE_MIN` is 1 s), near enough for a test.
const FAR: Duration = Duration::from_millis(1200);

/// Runs `body` on a thread of its own; fails the test if it has not returned after 20 s (a
/// hang guard, not a timing assertion).
fn with_deadline<T: Send + 'static>(body: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || drop(tx.send(body())));
    rx.recv_timeout(Duration::from_secs(20))
        .expect("the test body hung (or panicked)")
}

fn runtime() -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

#[test]
fn a_staged_timer_fires_at_its_deadline() {
    let rt = runtime();
    let late = with_deadline(move || {
        rt.block_on(rt.spawn(async {
            let deadline = Instant::now() + FAR;
            rt::time::sleep_until(deadline).await;
            Instant::now() >= deadline
        }))
        .unwrap()
    });
    assert!(late, "the sleep ended at or after its deadline");
}

/// The worker that staged the timer blocks (in the task itself) until the timer's waker runs:
/// only a turn of its shard by the other worker can move the timer into the wheel. Without
/// that, `Flag::wait` gives up after 20 s and the test fails.
#[test]
fn a_timer_staged_by_a_blocked_worker_still_fires() {
    let rt = runtime();
    let fired_after_deadline = rt
        .block_on(rt.spawn(async {
            let flag = Flag::new();
            let deadline = Instant::now() + FAR;
            let mut s = Box::pin(rt::time::sleep_until(deadline));
            assert!(poll_once(s.as_mut(), &flag).is_pending());
            // Block this worker, not the task: nothing here yields until the timer fires.
            flag.wait();
            Instant::now() >= deadline
        }))
        .unwrap();
    assert!(fired_after_deadline);
}

/// `pause` moves staged timers into the wheel, so auto-advance can jump to them: an hour-long
/// sleep staged before the pause ends at once afterwards (without the move it would wait for
/// its flush, half a second before the real hour is up).
#[test]
fn pause_hands_staged_timers_to_auto_advance() {
    let rt = runtime();
    let moved = with_deadline(move || {
        rt.block_on(rt.spawn(async {
            let start = Instant::now();
            let mut s = Box::pin(sleep(Duration::from_secs(3600)));
            let flag = Flag::new();
            assert!(poll_once(s.as_mut(), &flag).is_pending());
            rt::time::pause();
            s.await;
            Instant::now() - start
        }))
        .unwrap()
    });
    assert!(moved >= Duration::from_secs(3600), "{moved:?}");
}

struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A staged sleep is woken by its runtime's shutdown, and polling it afterwards panics with
/// the shutdown message, as a wheel timer does (`time_shutdown.rs`).
#[test]
#[allow(clippy::async_yields_async)] // the task hands its polled sleep back, on purpose
fn shutdown_wakes_a_staged_sleep() {
    let rt = runtime();
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(count.clone());
    let mut s: Pin<Box<Sleep>> = rt
        .block_on(rt.spawn({
            let waker = waker.clone();
            async move {
                let mut s = Box::pin(sleep(Duration::from_secs(3600)));
                let pending = s.as_mut().poll(&mut Context::from_waker(&waker));
                assert!(pending.is_pending());
                s
            }
        }))
        .unwrap();
    drop(rt);
    assert_eq!(count.0.load(Ordering::SeqCst), 1, "the shutdown woke it");
    let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        s.as_mut().poll(&mut Context::from_waker(&waker))
    }));
    let err = polled.expect_err("a sleep polled after shutdown panics");
    let msg = err
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|m| m.to_string()))
        .unwrap_or_default();
    assert!(msg.contains("shut down"), "{msg}");
}

/// Many staged sleeps dropped before their deadline, on both workers and across them (a sleep
/// staged on one worker and dropped on the other): none fires, and a near timer registered
/// after them still does.
#[test]
fn staged_sleeps_dropped_early_never_fire() {
    let rt = runtime();
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let counted = count.clone();
    with_deadline(move || {
        rt.block_on(async move {
            let count = counted;
            let mut tasks = Vec::new();
            for i in 0..64 {
                let count = count.clone();
                tasks.push(rt::spawn(async move {
                    let waker = Waker::from(count);
                    let mut s = Box::pin(sleep(FAR));
                    let pending = s.as_mut().poll(&mut Context::from_waker(&waker));
                    assert_eq!(pending, Poll::Pending);
                    if i % 2 == 0 {
                        // Move to whichever worker runs the next poll; dropped there.
                        rt::task::yield_now().await;
                    }
                    drop(s);
                }));
            }
            for t in tasks {
                t.await.unwrap();
            }
            // Past every dropped deadline.
            sleep(FAR + Duration::from_millis(100)).await;
        })
    });
    assert_eq!(count.0.load(Ordering::SeqCst), 0, "no dropped sleep fired");
}

/// A far-looking sleep's first poll may take this thread's last reading of the clock for now
/// (`recent_lower_bound` in `time/sleep.rs`), and that reading can be old: here it is 700 ms old
/// when a sleep due in 400 ms is first polled, so the sleep looks 1.1 s away and is staged. It
/// must still end at its deadline (the next turn of the shard moves it into the wheel), never
/// before it.
#[test]
fn a_sleep_polled_after_a_stale_clock_reading_ends_at_its_deadline() {
    let rt = runtime();
    let at_deadline = with_deadline(move || {
        rt.block_on(rt.spawn(async {
            // This thread's last reading of rt's clock before the sleep.
            let _ = Instant::now();
            let start = std::time::Instant::now();
            while start.elapsed() < Duration::from_millis(700) {
                std::hint::spin_loop();
            }
            let deadline =
                Instant::from_std(std::time::Instant::now() + Duration::from_millis(400));
            rt::time::sleep_until(deadline).await;
            Instant::now() >= deadline
        }))
        .unwrap()
    });
    assert!(at_deadline, "the sleep ended at or after its deadline");
}
