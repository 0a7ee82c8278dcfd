//! Task dumps: what a dump reads of one live task, and the statistics a task keeps for it.
//!
//! A dump walks the scheduler's `OwnedTasks` (`list.rs`, `OwnedTasks::for_each_live`, which
//! owns the walk's protocol) and calls [`TaskSnapshot::of`] on each task's header while it
//! holds the list's reference to that task. Everything here is read with plain loads: the
//! state word (one `Acquire` load), the spawn meta (immutable after spawn) and, for a task
//! with a side record (`meta.rs`: named tasks, or every task while a tracing subscriber wants
//! `rt.task` spans), its [`Stats`].
//!
//! The statistics are kept only in the side record: an unnamed task's cell does not grow and
//! its poll reads no clock. A named task pays one clock read per poll and one per wake.

use std::panic::Location;
use std::time::{Duration, Instant};

use super::core::Header;
use super::id::Id;
// Statistics in no protocol (nothing waits on them, all `Relaxed`): std's atomics even under
// loom, exception 2 in `sync.rs`.
use crate::sync::unmodelled::{AtomicU64, OnceLock, Ordering::Relaxed};

/// A task's poll count and the times of its last poll and last wake (for dumps).
pub(crate) struct Stats {
    /// Written only by the holder of RUNNING (a load and a store, no read-modify-write).
    polls: AtomicU64,
    /// [`stamp`] at the start of the last poll; 0: never polled. Written by the holder of
    /// RUNNING.
    last_poll: AtomicU64,
    /// [`stamp`] of the last wake (any thread; the last writer wins); 0: never woken.
    last_wake: AtomicU64,
}

impl Stats {
    pub(crate) fn new() -> Stats {
        Stats {
            polls: AtomicU64::new(0),
            last_poll: AtomicU64::new(0),
            last_wake: AtomicU64::new(0),
        }
    }

    /// At the start of a poll, by the holder of RUNNING.
    #[inline]
    pub(crate) fn on_poll(&self) {
        self.polls.store(self.polls.load(Relaxed) + 1, Relaxed);
        self.last_poll.store(stamp(), Relaxed);
    }

    /// On a wake (`wake`, `wake_by_ref`), from any thread.
    #[inline]
    pub(crate) fn on_wake(&self) {
        self.last_wake.store(stamp(), Relaxed);
    }
}

/// The process's dump clock origin: every stamp is nanoseconds since it, plus one.
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn stamp() -> u64 {
    let e = epoch();
    (e.elapsed().as_nanos() as u64).saturating_add(1)
}

fn instant(stamp: u64) -> Option<Instant> {
    stamp
        .checked_sub(1)
        .map(|ns| epoch() + Duration::from_nanos(ns))
}

/// One live task as a dump saw it. The scheduler fills in `worker`.
#[derive(Clone, Debug)]
pub struct TaskSnapshot {
    /// The task's id.
    pub id: Id,
    /// Its name, if spawned with one.
    pub name: Option<String>,
    /// Where it was spawned.
    pub location: &'static Location<'static>,
    /// Its priority (fixed at spawn).
    pub priority: super::Priority,
    /// A thread is polling it (RUNNING).
    pub running: bool,
    /// It is scheduled to run (NOTIFIED); with `running`, it was woken during the poll.
    pub notified: bool,
    /// It was aborted (or the runtime is shutting down); the next poll drops it instead.
    pub cancelled: bool,
    /// It waits and no waker of it is alive ("lost waker"; `state.rs`,
    /// `Snapshot::waits_without_waker`).
    pub no_waker: bool,
    /// Polls so far, where kept (tasks with a side record).
    pub polls: Option<u64>,
    /// When its last poll started, where kept and polled at least once.
    pub last_poll: Option<Instant>,
    /// When it was last woken, where kept and woken at least once.
    pub last_wake: Option<Instant>,
    /// The worker polling it, if `running` and the scheduler can tell.
    pub worker: Option<usize>,
}

impl TaskSnapshot {
    /// Reads `header`, whose task the caller keeps alive with its owned list's reference
    /// (`owned` references, 1 for a task of an `OwnedTasks`). `None` for a complete task (it is
    /// leaving the list).
    pub fn of(header: &Header, owned: usize) -> Option<TaskSnapshot> {
        let state = header.state.load();
        if state.is_complete() {
            return None;
        }
        let stats = header.meta.stats();
        Some(TaskSnapshot {
            id: header.id,
            name: header.name().map(str::to_owned),
            location: header.spawn_location(),
            priority: header.priority(),
            running: state.is_running(),
            notified: state.is_notified(),
            cancelled: state.is_cancelled(),
            no_waker: state.waits_without_waker(owned),
            polls: stats.map(|s| s.polls.load(Relaxed)),
            last_poll: stats.and_then(|s| instant(s.last_poll.load(Relaxed))),
            last_wake: stats.and_then(|s| instant(s.last_wake.load(Relaxed))),
            worker: None,
        })
    }
}
