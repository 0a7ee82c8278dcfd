//! rt-sync's heuristic constants, each with its value, its reason and the benchmark (or the
//! reference) that set it. Sizes that loom models need smaller (`#[cfg(loom)]`) are written
//! here too; each is in `rt_core::sync`'s list of sizes.

use std::time::Duration;

/// How long the oldest waiter of a [`Mutex`](crate::Mutex) waits before an unlock hands the
/// lock straight to it (the default of `Mutex::with_fairness_bound`): below it an unlocker may
/// retake the lock (throughput), past it the waiter gets it (bounded wait). `benches/sync.rs`
/// compares it with a zero bound (strictly FIFO, `rt_fifo` in `docs/BENCHMARKS.md`). Zero with
/// the cargo feature `fifo-mutex`, which the `tokio` face turns on: tokio documents its mutex as
/// strictly FIFO.
pub const DEFAULT_FAIRNESS_BOUND: Duration = if cfg!(feature = "fifo-mutex") {
    Duration::ZERO
} else {
    Duration::from_micros(500)
};

/// Wakers a notifier collects under its lock before it releases the lock to wake them
/// (`WakeList`, and a broadcast send waking many receivers): tokio's `NUM_WAKERS`, 32. Bounds
/// the lock hold of a wake-all and the stack the batch takes.
pub(crate) const WAKE_BATCH: usize = 32;

/// The largest capacity `channel`'s bounded flavour serves with its lock-free slot ring
/// (`channel/ring_chan.rs`): its slots are allocated up front, so larger bounded channels keep
/// `chan.rs`'s growing buffer (module docs of `channel`). `benches/channel.rs` and
/// `benches/channel_cpu.rs` measured the ring at capacities up to this. A size: under loom 2,
/// so the models reach the locked flavour's bounded ring with capacity 3.
#[cfg(not(loom))]
pub(crate) const CHANNEL_RING_MAX: usize = 4096;
#[cfg(loom)]
pub(crate) const CHANNEL_RING_MAX: usize = 2;

/// A receiver that pops while senders are blocked refills once per this many slots, at most
/// (`channel/ring_chan.rs`'s rule 3 batch).
pub(crate) const REFILL_EVERY_MAX: usize = 64;

/// `channel/ring_chan.rs`'s rule 3 batch is `cap / REFILL_DIVISOR` slots, between 1 and
/// `REFILL_EVERY_MAX`: set by `benches/channel_cpu.rs` (CPU per message with blocked senders).
/// A size: under loom every capacity batches, so the models with capacity 2 reach the pops
/// that do not refill.
#[cfg(not(loom))]
pub(crate) const REFILL_DIVISOR: usize = 16;
#[cfg(loom)]
pub(crate) const REFILL_DIVISOR: usize = 1;

/// Upper bound on the up-front allocation of `channel/chan.rs`'s buffer; a larger bounded
/// channel grows on demand (memory for a large bound that is never filled).
pub(crate) const PREALLOCATE_MAX: usize = 4096;

/// A receiver of `channel/chan.rs` lowers `head_len` once per this many values taken from
/// `head` (a power of two): one shared write per batch instead of one per value, which
/// `benches/channel.rs` (producer and consumer on different workers) showed as contention.
pub(crate) const HEAD_LEN_EVERY: usize = 32;
const _: () = assert!(HEAD_LEN_EVERY.is_power_of_two());

/// The largest bound `mpsc` serves with its lock-free slot ring (`mpsc/permit_ring.rs`): its slots are
/// allocated up front, so larger bounded channels keep the semaphore in front of the unbounded
/// (growing) channel. `benches/channel.rs` measured the ring at bounds up to this.
pub(crate) const MPSC_RING_MAX: usize = 4096;
