//! The pool's process-wide counters: heap ids, and the slab counts [`stats`](super::stats)
//! reports. All are touched only on slow paths (a heap's first slab, mapping or releasing a
//! slab, abandonment), never per block.
//!
//! These are statistics and an id source, outside every protocol (all `Relaxed`, nothing waits on
//! them), so they are std atomics even under `cfg(loom)`: loom's atomics cannot live in a
//! `static`, and a `loom::lazy_static!` is dropped when the model's main closure returns, before
//! the other threads' thread-local destructors (the heap's, which abandons slabs) have run. Under
//! loom they are therefore shared by all executions and models of a test binary; models assert on
//! the per-thread `owned_slabs` instead, and loom's leak check covers the slabs themselves.

// Exception 2 in `sync.rs` (see above): std's atomics, by design.
use crate::sync::unmodelled::{AtomicUsize, Ordering};

/// Process-wide counters.
#[derive(Debug)]
pub(super) struct Counters {
    /// The next heap id to hand out; ids start at 1 and are never reused (0 means "no id yet").
    next_heap_id: AtomicUsize,
    /// Slabs mapped and not yet released, whoever holds them.
    live_slabs: AtomicUsize,
    /// Slabs abandoned by an exited thread (or detached) and not yet drained.
    abandoned_slabs: AtomicUsize,
}

static COUNTERS: Counters = Counters {
    next_heap_id: AtomicUsize::new(1),
    live_slabs: AtomicUsize::new(0),
    abandoned_slabs: AtomicUsize::new(0),
};

/// A fresh heap id: unique for the life of the process.
pub(super) fn next_heap_id() -> usize {
    COUNTERS.next_heap_id.fetch_add(1, Ordering::Relaxed)
}

pub(super) fn slab_mapped() {
    COUNTERS.live_slabs.fetch_add(1, Ordering::Relaxed);
}

pub(super) fn slab_released() {
    COUNTERS.live_slabs.fetch_sub(1, Ordering::Relaxed);
}

pub(super) fn slab_abandoned() {
    COUNTERS.abandoned_slabs.fetch_add(1, Ordering::Relaxed);
}

pub(super) fn abandoned_slab_drained() {
    COUNTERS.abandoned_slabs.fetch_sub(1, Ordering::Relaxed);
}

pub(super) fn live_slabs() -> usize {
    COUNTERS.live_slabs.load(Ordering::Relaxed)
}

pub(super) fn abandoned_slabs() -> usize {
    COUNTERS.abandoned_slabs.load(Ordering::Relaxed)
}
