//! Synchronisation primitives and channels, usable from any runtime.
//!
//! They need only a `Waker`: no rt runtime has to run them. Waiters are served FIFO (the
//! [`Mutex`] is eventually fair instead: barging, with a direct hand-off once the oldest waiter
//! has waited 0.5 ms) and every future is cancellation-safe: dropping it mid-wait loses no
//! permit and no value. Inside a task an always-ready loop over them still yields, as they
//! spend the cooperative budget.
//!
//! tokio's modules are here under tokio's names ([`mpsc`], [`oneshot`], [`broadcast`],
//! [`watch`], [`futures`]); [`channel`] is rt's MPMC channel (bounded, unbounded and
//! rendezvous).

pub use rt_sync::{
    AcquireError, Barrier, BarrierWaitResult, CancellationToken, Condvar, DropGuard,
    MappedMutexGuard, Mutex, MutexGuard, Notify, OnceCell, OwnedMappedMutexGuard, OwnedMutexGuard,
    OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, OwnedSemaphorePermit,
    RwLock, RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard, Semaphore, SemaphorePermit,
    SetError, SetOnce, SetOnceError, TryAcquireError, TryLockError, WaitForCancellationFuture,
    WaitForCancellationFutureOwned, WaitGroup, WaitTimeoutResult,
};
// `Notified` and `OwnedNotified` at the root too, where rt has always had them (tokio has them
// only in `sync::futures`).
pub use rt_sync::{Notified, OwnedNotified};

pub use rt_sync::{broadcast, channel, mpsc, oneshot, watch};

/// Named future types of the primitives (tokio's `sync::futures`).
pub mod futures {
    pub use rt_sync::{Notified, OwnedNotified};
}

/// The `Mutex`'s fairness bound: how long the oldest waiter waits before the lock is handed to
/// it directly.
pub mod mutex {
    pub use rt_sync::mutex::DEFAULT_FAIRNESS_BOUND;
}
