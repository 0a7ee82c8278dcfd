//! `rt-sync`: the primitives tasks coordinate with, exported by the facade as `rt::sync`.
//!
//! Runtime-agnostic: they need only `Waker`, `rt_core::sync` (so loom sees them) and
//! `rt_core::coop` (so an always-ready loop still yields). Waiters are served FIFO (the `Mutex`
//! is eventually fair instead: barging, with a direct hand-off once the oldest waiter has waited
//! 0.5 ms) and every future is cancellation-safe: dropping it mid-wait loses no permit and no value.
//!
//! Architecture invariant: rt-sync depends on rt-core alone (never on rt-sched or rt-io). The
//! timer behind `Condvar::wait_timeout` and `mpsc::Sender::send_timeout` is `rt_core::timer`'s
//! hook, which rt-io installs when a runtime starts; everything else runs on any executor.
#![warn(missing_docs)]

// `value_error!`, for the channels' error types (before the modules that use it).
#[macro_use]
mod value_error;

// The lock guards' shared `map`/`try_map` and trait impls (before the locks that use them).
#[macro_use]
mod guard;

// Locks and coordination (semaphore is the base the locks are built on).
pub mod barrier;
pub mod cancellation_token;
pub mod condvar;
pub mod mutex;
pub mod notify;
pub mod once_cell;
pub mod rwlock;
pub mod semaphore;
pub mod set_once;
pub mod wait_group;

// The intrusive waiter list the primitives above queue on.
mod tuning;
mod waiters;

// Parking a thread on a future (`blocking_lock`, `blocking_recv`, ...).
mod block_on;

pub use barrier::{Barrier, BarrierWaitResult};
pub use cancellation_token::{
    CancellationToken, DropGuard, WaitForCancellationFuture, WaitForCancellationFutureOwned,
};
pub use condvar::Condvar;
pub use condvar::WaitTimeoutResult;
pub use mutex::{
    MappedMutexGuard, Mutex, MutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard, TryLockError,
};
pub use notify::{Notified, Notify, OwnedNotified};
pub use once_cell::{OnceCell, SetError};
pub use rwlock::{
    OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock,
    RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard,
};
pub use semaphore::{
    AcquireError, OwnedSemaphorePermit, Semaphore, SemaphorePermit, TryAcquireError,
};
pub use set_once::{SetOnce, SetOnceError};
pub use wait_group::WaitGroup;

// Channels.
pub mod broadcast;
pub mod channel;
pub mod mpsc;
pub mod oneshot;
pub mod watch;
