//! An async condition variable for [`Mutex`](crate::mutex::Mutex) (tokio has none).
//!
//! Built on [`Notify`]: `wait` creates a `Notified`, *enables* it (links its node into the
//! notify list) while the mutex guard is still held, and only then releases the mutex. So a
//! notifier that changes the condition under the lock and then calls `notify_*` always finds the
//! waiter registered: no notification sent after the waiter checked its condition is lost.
//!
//! `notify_one` wakes the longest-waiting task and does nothing when none waits (it stores no
//! permit, unlike `Notify::notify_one`); `notify_all` wakes every task waiting now. A waiter picked
//! by `notify_one` and cancelled before it took the mutex again passes the notification on to the
//! next waiter. Spurious wake-ups are not produced, but callers should still re-check their
//! condition (or use [`Condvar::wait_while`]): another task may change it first.

use crate::mutex::MutexGuard;
use crate::notify::Notify;
use std::fmt;
use std::pin::pin;
use std::{future::Future, task::Poll, time::Duration};

/// A condition variable tasks wait on with a [`MutexGuard`].
///
/// ```
/// # use rt_core::test_support::block_on;
/// use rt_sync::{condvar::Condvar, mutex::Mutex};
/// use std::{future::Future, pin::pin, task::{Context, Waker}};
///
/// let (m, cv) = (Mutex::new(false), Condvar::new());
/// let mut waiter = pin!(async {
///     let ready = cv.wait_while(m.lock().await, |ready| !*ready).await;
///     assert!(*ready);
/// });
/// let mut cx = Context::from_waker(Waker::noop());
/// assert!(waiter.as_mut().poll(&mut cx).is_pending());
/// block_on(async { *m.lock().await = true });
/// cv.notify_one();
/// assert!(waiter.as_mut().poll(&mut cx).is_ready());
/// ```
pub struct Condvar {
    notify: Notify,
}

impl Condvar {
    /// Creates a condition variable with no waiters.
    pub fn new() -> Condvar {
        Condvar {
            notify: Notify::new(),
        }
    }

    /// Releases the mutex, waits for a notification, then locks the mutex again and returns the
    /// new guard. The wait is registered before the mutex is released.
    ///
    /// Cancel-safe in the sense that dropping the future releases everything it holds; the guard
    /// passed in is gone either way.
    ///
    /// # Cancel safety
    /// Cancel safe in that no notification is consumed by a dropped waiter, but the guard passed in is dropped with the future: the mutex is not held afterwards.
    pub async fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        let mutex = MutexGuard::mutex(&guard);
        let mut notified = pin!(self.notify.notified());
        notified.as_mut().enable();
        drop(guard);
        notified.await;
        mutex.lock().await
    }

    /// Waits until `condition` returns false, checking it under the lock before each wait.
    ///
    /// # Cancel safety
    /// As `wait`: the guard is dropped with the future.
    pub async fn wait_while<'a, T>(
        &self,
        mut guard: MutexGuard<'a, T>,
        mut condition: impl FnMut(&mut T) -> bool,
    ) -> MutexGuard<'a, T> {
        while condition(&mut guard) {
            guard = self.wait(guard).await;
        }
        guard
    }

    /// Like [`Condvar::wait`], but gives up after `timeout`: returns the re-locked guard and
    /// whether the wait timed out (a notification that arrives with the deadline counts as a
    /// notification). The timer is the runtime's (`rt_core::timer`, which rt-io provides).
    ///
    /// # Panics
    ///
    /// Outside an rt runtime (the timer needs one).
    ///
    /// # Cancel safety
    /// As `wait`: the guard is dropped with the future.
    pub async fn wait_timeout<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        timeout: Duration,
    ) -> (MutexGuard<'a, T>, WaitTimeoutResult) {
        let mutex = MutexGuard::mutex(&guard);
        // `notified` drops at the end of this block, before the re-lock: a `notify_one` that
        // picked this waiter after it timed out goes on to the next waiter at once.
        let timed_out = {
            let mut notified = pin!(self.notify.notified());
            notified.as_mut().enable();
            let mut sleep = rt_core::timer::sleep(timeout);
            drop(guard);
            std::future::poll_fn(|cx| {
                if notified.as_mut().poll(cx).is_ready() {
                    Poll::Ready(false)
                } else if sleep.as_mut().poll(cx).is_ready() {
                    Poll::Ready(true)
                } else {
                    Poll::Pending
                }
            })
            .await
        };
        (mutex.lock().await, WaitTimeoutResult(timed_out))
    }

    /// Wakes the task that has waited longest, if any. Stores nothing when no task waits.
    pub fn notify_one(&self) {
        self.notify.notify_one_waiter();
    }

    /// Wakes every task waiting now.
    pub fn notify_all(&self) {
        self.notify.notify_waiters();
    }
}

/// Whether [`Condvar::wait_timeout`] returned because its time ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    /// True if the wait timed out rather than being notified.
    pub fn timed_out(&self) -> bool {
        self.0
    }
}

impl Default for Condvar {
    fn default() -> Condvar {
        Condvar::new()
    }
}

impl fmt::Debug for Condvar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Condvar").finish_non_exhaustive()
    }
}
