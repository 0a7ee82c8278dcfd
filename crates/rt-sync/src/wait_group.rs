//! Go's `sync.WaitGroup`: wait until a counter of outstanding work drops to zero.
//!
//! Design choice: the methods take `&self` (share it through an `Arc`, like the other primitives
//! of this crate) rather than being a clonable handle, so `add` and `done` stay explicit, as in Go,
//! and a handle's drop never counts as `done` by accident.
//!
//! The counter is an atomic; `done` taking it to zero calls `Notify::notify_waiters`. A waiter
//! creates its `Notified` *before* reading the counter, and both the read and `done`'s decrement
//! are `SeqCst`, so either the waiter sees zero or the `notify_waiters` that follows the decrement
//! reaches its `Notified` (which counts every call made after its creation).

use crate::notify::Notify;
use rt_core::sync::{AtomicUsize, Ordering};
use std::fmt;

/// Waits for a count of outstanding work to reach zero.
///
/// ```
/// # use rt_core::test_support::block_on;
/// use rt_sync::wait_group::WaitGroup;
///
/// let wg = WaitGroup::new();
/// wg.add(2);
/// wg.done();
/// wg.done();
/// block_on(wg.wait()); // the count is zero: returns at once
/// ```
pub struct WaitGroup {
    count: AtomicUsize,
    notify: Notify,
}

impl WaitGroup {
    /// A wait group with a count of zero.
    pub fn new() -> WaitGroup {
        WaitGroup {
            count: AtomicUsize::new(0),
            notify: Notify::new(),
        }
    }

    /// Adds `n` to the count of outstanding work.
    ///
    /// # Panics
    ///
    /// If the count overflows.
    pub fn add(&self, n: usize) {
        let added = self
            .count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| c.checked_add(n));
        assert!(added.is_ok(), "WaitGroup counter overflow");
    }

    /// Marks one unit of work done; at zero, wakes every waiter.
    ///
    /// # Panics
    ///
    /// If the count is already zero (Go's "negative WaitGroup counter").
    pub fn done(&self) {
        let prev = self
            .count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| c.checked_sub(1));
        match prev {
            Ok(1) => self.notify.notify_waiters(),
            Ok(_) => {}
            Err(_) => panic!("WaitGroup::done called more times than added"),
        }
    }

    /// The count of outstanding work now.
    pub fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    /// Waits until the count is zero.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn wait(&self) {
        loop {
            let notified = self.notify.notified();
            if self.count.load(Ordering::SeqCst) == 0 {
                rt_core::coop::consume_budget().await;
                return;
            }
            notified.await;
        }
    }
}

impl Default for WaitGroup {
    fn default() -> WaitGroup {
        WaitGroup::new()
    }
}

impl fmt::Debug for WaitGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaitGroup")
            .field("count", &self.count())
            .finish()
    }
}
