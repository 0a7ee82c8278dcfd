//! What the timer tests share: a runtime like the benchmarks' (2 workers), a waker that counts its
//! wakes, and a poll-rounds helper that turns "fired in deadline order" into a fact a test can
//! check without timing.
#![allow(dead_code)]

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use std::time::Duration;

use rt::time::{Instant, Sleep};

/// A multi-thread runtime with 2 workers.
pub fn runtime() -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("build the runtime")
}

/// Counts the wakes of the wakers made from it. `Arc::strong_count` of it tells how many waker
/// clones are alive (1 when none).
#[derive(Default)]
pub struct CountingWaker {
    wakes: AtomicUsize,
}

impl CountingWaker {
    pub fn new() -> (Arc<CountingWaker>, Waker) {
        let c = Arc::new(CountingWaker::default());
        let w = Waker::from(c.clone());
        (c, w)
    }

    pub fn wakes(&self) -> usize {
        self.wakes.load(Ordering::SeqCst)
    }
}

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
    }
}

/// Polls `sleep` once with `waker` (boxed: a `Sleep` is `!Unpin`, and the tests drop theirs).
pub fn poll_with(sleep: &mut Pin<Box<Sleep>>, waker: &Waker) -> Poll<()> {
    sleep.as_mut().poll(&mut Context::from_waker(waker))
}

/// A new sleep of `d`, polled once with `waker` and found pending (so registered with the
/// driver). A thread descheduled for longer than `d` between taking a sleep and polling it finds
/// it due and registers nothing; that is no failure, so a new sleep is taken then. A sleep found
/// complete before its deadline fails the test.
pub fn pending_sleep(d: Duration, waker: &Waker) -> Pin<Box<Sleep>> {
    loop {
        let mut s = Box::pin(rt::time::sleep(d));
        if poll_with(&mut s, waker).is_pending() {
            return s;
        }
        assert!(
            Instant::now() >= s.deadline(),
            "a fresh sleep completed before its deadline"
        );
    }
}

/// Polls all `sleeps` in one task until all completed; returns, for each, the number of the wake-up
/// round in which it was first seen complete.
///
/// The driver fires timers in deadline order, so a sleep with a later deadline is never seen
/// complete in an earlier round than one with an earlier deadline. That holds because each round
/// polls the sleeps latest deadline first: if a later one is seen complete (its deadline passed, or
/// the driver fired it), every earlier one polled after it in the same round is complete too.
pub async fn completion_rounds(sleeps: Vec<Sleep>) -> Vec<usize> {
    let mut sleeps: Vec<Pin<Box<Sleep>>> = sleeps.into_iter().map(Box::pin).collect();
    let mut order: Vec<usize> = (0..sleeps.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sleeps[i].deadline()));
    let mut rounds: Vec<Option<usize>> = vec![None; sleeps.len()];
    let mut round = 0;
    poll_fn(|cx| {
        round += 1;
        for &i in &order {
            if rounds[i].is_none() && sleeps[i].as_mut().poll(cx).is_ready() {
                rounds[i] = Some(round);
            }
        }
        if rounds.iter().all(Option::is_some) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    rounds.into_iter().map(Option::unwrap).collect()
}

/// Sleeps in short steps until `done()` holds, for at most 10,000 steps (a watchdog: with a working
/// driver the first step whose timer goes through the wheel suffices), then returns `done()`.
pub async fn settle(done: impl Fn() -> bool) -> bool {
    for _ in 0..10_000 {
        if done() {
            return true;
        }
        rt::time::sleep(std::time::Duration::from_micros(100)).await;
    }
    done()
}
