//! Shared by the ecosystem tests: proof that the work ran on rt.

/// How many tasks the current runtime has spawned, from rt's metrics: a hidden tokio runtime
/// would not count here.
pub fn rt_spawned_tasks() -> u64 {
    let metrics = tokio::runtime::Handle::current().metrics();
    metrics.spawned_tasks_count()
}
