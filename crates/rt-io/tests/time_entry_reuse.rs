//! Timer entries are reused per thread (a dropped or completed sleep's entry serves the next
//! registration): a reused entry starts unfired, wakes only its new owner, and keeps no waker
//! of its old one.

mod time_support;

use std::time::Duration;

use rt::time::{sleep, Instant};
use time_support::{poll_with, CountingWaker};

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
            let mut next = Box::pin(sleep(Duration::from_micros(300)));
            assert!(poll_with(&mut next, &new_waker).is_pending());
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
            let start = Instant::now();
            let mut next = Box::pin(sleep(Duration::from_millis(2)));
            let (count, waker) = CountingWaker::new();
            assert!(
                poll_with(&mut next, &waker).is_pending(),
                "a fresh sleep completed at once"
            );
            assert!(
                !next.is_elapsed(),
                "a fresh sleep's entry was already fired"
            );
            next.await;
            assert!(Instant::now() >= start + Duration::from_millis(2), "early");
            drop(waker);
            assert!(
                time_support::settle(|| std::sync::Arc::strong_count(&count) == 1).await,
                "a completed entry kept its waker"
            );
        }
    });
}
