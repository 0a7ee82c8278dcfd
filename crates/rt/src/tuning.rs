//! The facade's heuristic constants, each with its value, its reason and the benchmark that set
//! it. The schedulers' (the defaults of most `Builder` options, the blocking pool's keep-alive)
//! are in `rt_sched::tuning`, the IO driver's in `rt_io::tuning`, the channels' and locks' in
//! rt-sync's `tuning.rs`, the cooperative budget and frame pool's in `rt_core::tuning`.

/// How many spawns of a `JoinSet` share one lock round trip to bind their abort handles
/// (`task/join_set.rs`): one lock per batch instead of one per task. The batched bind was
/// measured with `benches/task_groups.rs` (spawn and join of a `JoinSet`, against tokio's);
/// the batch size itself was not varied.
pub(crate) const JOIN_SET_BIND_BATCH: usize = 32;
