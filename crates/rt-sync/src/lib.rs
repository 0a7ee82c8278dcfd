//! `rt-sync`: the primitives tasks coordinate with, exported by the facade as `rt::sync`.
//!
//! Runtime-agnostic: they need only `Waker`, `rt_core::sync` (so loom sees them) and
//! `rt_core::coop` (so an always-ready loop still yields). Waiters are served FIFO and every
//! future is cancellation-safe: dropping it mid-wait loses no permit and no value.
//!
//! Architecture invariant: rt-sync does not depend on rt-sched or rt-io.

// Locks and coordination (semaphore is the base the locks are built on).
pub mod barrier;
pub mod condvar;
pub mod mutex;
pub mod notify;
pub mod once_cell;
pub mod rwlock;
pub mod semaphore;
pub mod wait_group;

// Channels.
pub mod broadcast;
pub mod channel;
pub mod oneshot;
pub mod watch;
