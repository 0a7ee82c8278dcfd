//! Timer entries are reused per thread (a dropped or completed sleep's entry serves the next
//! registration): a reused entry starts unfired, wakes only its new owner, and keeps no waker
//! of its old one.

mod time_support;

use std::time::Duration;

use rt::time::{sleep, Instant};
use time_support::{pending_sleep, poll_with, CountingWaker};

#[test]
fn an_entry_from_a_dropped_sleep_wakes_only_its_new_owner() {
    let rt = time_support::runtime();
    rt.block_on(async {
        for _ in 0..50 {
            let (old, old_waker) = CountingWaker::new();
            let mut dropped = Box::pin(sleep(Duration::from_secs(30)));
            assert!(poll_with(&mut dropped, &old_waker).is_pending());
            drop(dropped);
            drop(old_waker);
            assert_eq!(
                std::sync::Arc::strong_count(&old),
                1,
                "a deregistered entry kept its waker"
            );

            let (new, new_waker) = CountingWaker::new();
            let next = pending_sleep(Duration::from_micros(300), &new_waker);
            assert!(
                time_support::settle(|| new.wakes() == 1).await,
                "the new owner was never woken"
            );
            assert!(next.is_elapsed());
            assert_eq!(new.wakes(), 1, "the new owner was woken twice");
            assert_eq!(old.wakes(), 0, "the dropped sleep's waker was called");
        }
    });
}

#[test]
fn an_entry_from_a_completed_sleep_starts_unfired() {
    let rt = time_support::runtime();
    rt.block_on(async {
        for _ in 0..50 {
            // Completes through the wheel (registered, fired), so its entry goes back to the
            // thread's cache.
            sleep(Duration::from_micros(100)).await;
            let (count, waker) = CountingWaker::new();
            // Fails if the first poll finds the sleep complete before its deadline.
            let next = pending_sleep(Duration::from_millis(2), &waker);
            // Another worker fires it once its deadline has passed, not before.
            assert!(
                !next.is_elapsed() || Instant::now() >= next.deadline(),
                "a fresh sleep's entry was already fired"
            );
            let deadline = next.deadline();
            next.await;
            assert!(Instant::now() >= deadline, "early");
            drop(waker);
            assert!(
                time_support::settle(|| std::sync::Arc::strong_count(&count) == 1).await,
                "a completed entry kept its waker"
            );
        }
    });
}
