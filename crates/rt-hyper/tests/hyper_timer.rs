//! `rt_hyper::HyperTimer`: its sleeps are rt timers that fire, and `reset` moves a
//! sleep's deadline in place (the same allocation), including after it was first polled.

#[path = "../../rt/tests/support/mod.rs"]
mod support;

use std::pin::Pin;
use std::time::{Duration, Instant};

use hyper::rt::{Sleep, Timer};
use rt_hyper::HyperTimer;

fn addr(s: &Pin<Box<dyn Sleep>>) -> *const u8 {
    &**s as *const dyn Sleep as *const u8
}

#[test]
fn reset_moves_the_deadline_in_place() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            let timer = HyperTimer::new();
            let mut sleep = timer.sleep(Duration::from_secs(3600));
            // Registered with the timer wheel before the reset.
            assert!(support::poll_once(&mut sleep).is_pending());
            let before = addr(&sleep);
            let deadline = Instant::now() + Duration::from_millis(5);
            timer.reset(&mut sleep, deadline);
            assert_eq!(addr(&sleep), before, "reset allocated a new sleep");
            sleep.as_mut().await;
            assert!(
                Instant::now() >= deadline,
                "the sleep completed before its new deadline"
            );

            // A deadline in the past completes at once.
            let past = timer.sleep_until(Instant::now());
            past.await;

            // Resetting a completed sleep re-arms it.
            let mut again = timer.sleep(Duration::ZERO);
            again.as_mut().await;
            let later = Instant::now() + Duration::from_millis(2);
            timer.reset(&mut again, later);
            std::future::poll_fn(|cx| again.as_mut().poll(cx)).await;
            assert!(Instant::now() >= later);
        })
    });
}
