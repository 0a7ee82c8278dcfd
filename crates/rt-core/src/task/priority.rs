//! A task's priority: fixed at spawn, kept as one bit of the header's meta word (`meta.rs` owns
//! that word's layout), read by the schedulers when they queue the task and by the harness
//! when it polls it.

/// How a scheduler treats a task relative to the others ("Priorities" in the `rt` crate's task
/// docs).
///
/// - [`Priority::Normal`], the default, is latency-sensitive work: request handlers, IO loops.
///   A worker runs every queued normal task before a background one, and steals normal work
///   first.
/// - [`Priority::Background`] is batch work that soaks up the cycles normal tasks leave. Its
///   polls run in time slices: once a background poll has run longer than the runtime's slice
///   while normal work waits (queued, or ready IO), its next budget check (`consume_budget`,
///   any rt future that spends the budget) returns `Pending`, and the worker serves the
///   waiting work first. A share of the worker's turns still goes to background work, so it
///   never starves.
///
/// A task spawned without an explicit priority inherits the priority of the task that spawns
/// it (so the tasks a library spawns from background work are background too); spawned from
/// outside any task, it is `Normal`. The priority never changes afterwards: a wake, from any
/// task or thread, queues the task with its own priority.
///
/// Non-exhaustive: a level between the two may come if a workload shows the need.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Priority {
    /// Latency-sensitive: runs before background work (the default).
    #[default]
    Normal,
    /// Batch work: runs when no normal task waits, in time slices, with a guaranteed share.
    Background,
}

impl Priority {
    /// Whether this is [`Priority::Background`].
    #[inline]
    pub fn is_background(self) -> bool {
        matches!(self, Priority::Background)
    }

    /// The lower-case name, as the task dump, the trace and the stall report print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Normal => "normal",
            Priority::Background => "background",
        }
    }
}

impl std::fmt::Display for Priority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
