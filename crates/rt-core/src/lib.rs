//! `rt-core`: the task.
//!
//! One allocation per task holds a [`task`] header (state word, vtable, scheduler, id) and the
//! future or its output; wakers point at the header; a [`JoinHandle`](task::JoinHandle) reads the
//! output. Task cells come from the [`pool`], a size-classed slab allocator with per-thread free
//! lists. [`sync`] is the loom shim every other crate uses, [`coop`] the cooperative budget, and
//! [`batch`] lets a waking thread coalesce unparks. [`wait_queue`] is the keyed FIFO waiter
//! queue that rt-sync's channels and rt-io's readiness slots share; [`wake`] is how a driver calls
//! other code's wakers without letting a panicking one take the driver down. [`timer`] is the
//! hook through which code below the IO driver (rt-sync's timeouts) sleeps on rt-io's timer;
//! [`block`] blocks a thread on a future, parking it between polls.
//!
//! Architecture invariants:
//! - rt-core never spawns a thread and never blocks: it is driven by a scheduler (rt-sched).
//! - The task state word's layout is owned by `task/state.rs`; nobody else masks its bits.
#![warn(missing_docs)]

pub mod asym;
pub mod batch;
pub mod block;
pub mod coop;
pub mod driving;
pub mod messages;
pub mod pool;
pub mod sync;
pub mod task;
#[doc(hidden)]
pub mod test_support;
pub mod timer;
pub mod tuning;
pub mod wait_queue;
pub mod wake;

/// Whether the runtime's built-in observation (spawn locations and names, stall stamps, the
/// default metrics counters, trace hooks) is compiled in. `true` unless the workspace is built
/// with `RUSTFLAGS="--cfg rt_unobserved"`, which exists for one purpose: the cost benchmarks
/// (issue 11) compare a normal build against one with every observation hook compiled out.
///
/// Hot-path recording is written `if rt_core::OBSERVE { .. }`, so the unobserved build folds it
/// away and both builds type-check the same code.
pub const OBSERVE: bool = !cfg!(rt_unobserved);
