//! Timers and runtime shutdown, and timers outside a runtime: tokio's behaviour. A sleep polled
//! after its runtime shut down panics with a message that says so; creating one outside a runtime
//! panics too.

mod time_support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use rt::time::sleep;
use time_support::{poll_with, CountingWaker};

fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn pending_sleep_is_woken_by_shutdown_and_then_panics() {
    let rt = time_support::runtime();
    let (count, waker) = CountingWaker::new();
    let mut s = {
        let _g = rt.enter();
        Box::pin(sleep(Duration::from_secs(3600)))
    };
    assert_eq!(poll_with(&mut s, &waker), Poll::Pending);
    drop(rt);
    assert_eq!(count.wakes(), 1, "the shutdown woke the sleep");
    let err = catch_unwind(AssertUnwindSafe(|| poll_with(&mut s, &waker))).unwrap_err();
    assert!(panic_message(err).contains("shut down"));
    drop(s);
}

#[test]
fn sleep_first_polled_after_shutdown_panics() {
    let rt = time_support::runtime();
    let mut s = {
        let _g = rt.enter();
        Box::pin(sleep(Duration::from_secs(1)))
    };
    drop(rt);
    let (_c, waker) = CountingWaker::new();
    let err = catch_unwind(AssertUnwindSafe(|| poll_with(&mut s, &waker))).unwrap_err();
    assert!(panic_message(err).contains("shut down"));
}

#[test]
fn due_sleep_first_polled_after_shutdown_panics() {
    let rt = time_support::runtime();
    let (mut zero, mut past) = {
        let _g = rt.enter();
        let now = rt::time::Instant::now();
        (
            Box::pin(sleep(Duration::ZERO)),
            Box::pin(rt::time::sleep_until(now - Duration::from_millis(1))),
        )
    };
    drop(rt);
    let (count, waker) = CountingWaker::new();
    for s in [&mut zero, &mut past] {
        let err = catch_unwind(AssertUnwindSafe(|| poll_with(s, &waker))).unwrap_err();
        assert!(panic_message(err).contains("shut down"));
    }
    assert_eq!(count.wakes(), 0);
}

#[test]
fn sleep_fired_before_shutdown_and_polled_after_panics() {
    let rt = time_support::runtime();
    let (count, waker) = CountingWaker::new();
    let mut s = {
        let _g = rt.enter();
        Box::pin(sleep(Duration::from_millis(1)))
    };
    assert_eq!(poll_with(&mut s, &waker), Poll::Pending);
    // The timer fires on the runtime's workers and wakes the waker.
    while count.wakes() == 0 {
        std::thread::yield_now();
    }
    drop(rt);
    let err = catch_unwind(AssertUnwindSafe(|| poll_with(&mut s, &waker))).unwrap_err();
    assert!(panic_message(err).contains("shut down"));
}

#[test]
fn completed_sleep_polled_again_after_shutdown() {
    let rt = time_support::runtime();
    let mut s = {
        let _g = rt.enter();
        Box::pin(sleep(Duration::ZERO))
    };
    let (_c, waker) = CountingWaker::new();
    assert_eq!(poll_with(&mut s, &waker), Poll::Ready(()));
    drop(rt);
    let again = catch_unwind(AssertUnwindSafe(|| poll_with(&mut s, &waker)));
    if cfg!(feature = "tokio-face") {
        // tokio's sleep panics at every poll after the shutdown.
        assert!(panic_message(again.unwrap_err()).contains("shut down"));
    } else {
        // rt's keeps its result.
        assert_eq!(again.unwrap(), Poll::Ready(()));
    }
}

#[test]
fn runtime_drop_with_sleeping_tasks_drops_them() {
    struct Count(Arc<AtomicUsize>);
    impl Drop for Count {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let dropped = Arc::new(AtomicUsize::new(0));
    let rt = time_support::runtime();
    for _ in 0..100 {
        let c = Count(dropped.clone());
        rt.spawn(async move {
            let _c = c;
            sleep(Duration::from_secs(3600)).await;
        });
    }
    // Let them all start sleeping.
    rt.block_on(async {
        for _ in 0..10 {
            rt::task::yield_now().await;
        }
    });
    drop(rt);
    assert_eq!(dropped.load(Ordering::SeqCst), 100);
}

#[test]
fn sleep_outside_a_runtime_panics() {
    let err = catch_unwind(|| sleep(Duration::from_millis(1))).unwrap_err();
    let msg = panic_message(err);
    assert!(msg.contains("rt"), "{msg}");
}
