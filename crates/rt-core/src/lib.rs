//! `rt-core`: the task.
//!
//! One allocation per task holds a [`task`] header (state word, vtable, scheduler, id) and the
//! future or its output; wakers point at the header; a [`JoinHandle`](task::JoinHandle) reads the
//! output. Task cells come from the [`pool`], a size-classed slab allocator with per-thread free
//! lists. [`sync`] is the loom shim every other crate uses, [`coop`] the cooperative budget, and
//! [`batch`] lets a waking thread coalesce unparks. [`wait_queue`] is the keyed FIFO waiter
//! queue that rt-sync's channels and rt-io's readiness slots share.
//!
//! Architecture invariants:
//! - rt-core never spawns a thread and never blocks: it is driven by a scheduler (rt-sched).
//! - The task state word's layout is owned by `task/state.rs`; nobody else masks its bits.

pub mod batch;
pub mod coop;
pub mod driving;
pub mod pool;
pub mod sync;
pub mod task;
#[doc(hidden)]
pub mod test_support;
pub mod wait_queue;
