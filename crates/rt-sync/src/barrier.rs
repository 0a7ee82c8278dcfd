//! A reusable barrier: `n` tasks wait until all `n` have arrived, then all go on.
//!
//! The count of arrivals and the generation live under a small mutex; the last arrival of a
//! generation (the leader) bumps the generation and wakes the others through a [`Notify`]. Each
//! follower creates its `Notified` under that mutex, before the leader can bump the generation, so
//! the leader's `notify_waiters` (which reaches every `Notified` created before it) cannot miss it.
//!
//! Cancelling a follower's `wait` before its generation completes withdraws its arrival, so a
//! dropped waiter does not count towards the `n`.

use crate::notify::{Notified, Notify};
use rt_core::sync::Mutex;
use std::fmt;

/// Makes `n` tasks wait for each other; reusable once a generation completes.
///
/// ```
/// # use rt_core::test_support::block_on;
/// use rt_sync::barrier::Barrier;
///
/// let barrier = Barrier::new(1);
/// assert!(block_on(barrier.wait()).is_leader());
/// ```
pub struct Barrier {
    n: usize,
    state: Mutex<State>,
    notify: Notify,
}

#[derive(Debug)]
struct State {
    /// Tasks of the current generation that have arrived and not withdrawn.
    arrived: usize,
    /// Completed generations.
    generation: usize,
}

/// What [`Barrier::wait`] returns: exactly one task per generation is the leader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BarrierWaitResult(bool);

impl BarrierWaitResult {
    /// Whether this task was the last to arrive (one per generation).
    pub fn is_leader(&self) -> bool {
        self.0
    }
}

impl Barrier {
    /// A barrier for `n` tasks (`0` behaves as `1`, as in tokio).
    pub fn new(n: usize) -> Barrier {
        Barrier {
            n: n.max(1),
            state: Mutex::new(State {
                arrived: 0,
                generation: 0,
            }),
            notify: Notify::new(),
        }
    }

    /// Arrives and waits for the other `n - 1` tasks of this generation.
    ///
    /// # Cancel safety
    /// Not cancel safe: a task that has arrived counts towards the barrier even if the future is dropped before the barrier releases.
    pub async fn wait(&self) -> BarrierWaitResult {
        let Some((generation, notified)) = self.arrive() else {
            rt_core::coop::consume_budget().await;
            return BarrierWaitResult(true);
        };
        let withdraw = Withdraw {
            barrier: self,
            generation,
        };
        notified.await;
        debug_assert_ne!(self.lock().generation, generation);
        std::mem::forget(withdraw);
        BarrierWaitResult(false)
    }

    /// Counts an arrival. The leader completes the generation and gets `None`; a follower gets its
    /// generation and a `Notified` created under the lock.
    fn arrive(&self) -> Option<(usize, Notified<'_>)> {
        let mut state = self.lock();
        state.arrived += 1;
        if state.arrived < self.n {
            return Some((state.generation, self.notify.notified()));
        }
        state.arrived = 0;
        state.generation = state.generation.wrapping_add(1);
        drop(state);
        self.notify.notify_waiters();
        None
    }

    fn lock(&self) -> rt_core::sync::MutexGuard<'_, State> {
        // No code panics with this lock held.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Withdraws a follower's arrival if its `wait` is dropped before the generation completes.
struct Withdraw<'a> {
    barrier: &'a Barrier,
    generation: usize,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        let mut state = self.barrier.lock();
        if state.generation == self.generation {
            state.arrived -= 1;
        }
    }
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Barrier")
            .field("n", &self.n)
            .field("state", &*self.lock())
            .finish()
    }
}
