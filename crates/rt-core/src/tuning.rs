//! rt-core's heuristic constants, each with its value, its reason and the benchmark (or the
//! reference) that set it. Sizes that loom models need smaller (`#[cfg(loom)]`) are written
//! here too; each is in `rt_core::sync`'s list of sizes. The frame pool's geometry (block and
//! slab sizes) stays with its size classes in `pool/class.rs`.

/// Units of cooperative budget handed to each task poll (`coop`): tokio's value, so a task
/// ported from tokio yields as often. `benches/channel.rs` and `benches/net.rs` show a change
/// (a busy channel or socket loop yields every this many operations).
pub const COOP_BUDGET: u8 = 128;

/// Fully free slabs a thread's frame pool keeps for reuse before it releases further ones to
/// the OS: a burst of spawns after a quiet spell finds memory without `mmap`. Not varied by a
/// benchmark; `benches/memory.rs` (RSS) and `benches/spawn.rs` are the ones that show a change.
#[cfg(not(loom))]
pub(crate) const POOL_IDLE_CAP_SLABS: usize = 4;
#[cfg(loom)]
pub(crate) const POOL_IDLE_CAP_SLABS: usize = 1;

/// Idle slabs a frame pool's `trim` (an idle worker's, rt-sched's `TRIM_AFTER`) leaves behind.
#[cfg(not(loom))]
pub(crate) const POOL_TRIM_FLOOR_SLABS: usize = 1;
#[cfg(loom)]
pub(crate) const POOL_TRIM_FLOOR_SLABS: usize = 0;

/// Slabs the frame pool's allocation slow path inspects before it takes a fresh one: bounds
/// the slow path's cost against the memory a partly free slab would save. Not varied by a
/// benchmark; `benches/memory.rs` and `rt-core/benches/pool.rs` show a change.
#[cfg(not(loom))]
pub(crate) const POOL_SCAN_BUDGET: usize = 8;
#[cfg(loom)]
pub(crate) const POOL_SCAN_BUDGET: usize = 2;

/// Indices of `OwnedTasks`' slots moved between a thread's cache and the shared free list at a
/// time (`task/list.rs`): one lock per this many spawns. `benches/spawn.rs` shows a change.
#[cfg(not(loom))]
pub(crate) const OWNED_BATCH: usize = 128;
#[cfg(loom)]
pub(crate) const OWNED_BATCH: usize = 2;
