//! Task dumps: [`Handle::dump`](crate::Handle::dump) lists every live task of a runtime with
//! its id, name, spawn location and state, like a thread dump of a JVM.
//!
//! A dump walks the scheduler's table of live tasks (rt-core's `OwnedTasks::for_each_live`)
//! without stopping the runtime: it never waits for a task, so it returns even when a task is
//! stuck in a poll, and it may be taken from any thread, a task of the same runtime included.
//! Tasks that complete during the walk may or may not be listed; every task live for the whole
//! walk is.

use std::fmt;
use std::panic::Location;
use std::time::{Duration, Instant};

use rt_core::task::TaskSnapshot;

use crate::handle::{RuntimeInner, Scheduler};
use crate::task::Id;

/// Where a live task stands, as a dump saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskState {
    /// Waiting to be woken (nothing has scheduled it).
    Idle,
    /// Woken and queued, waiting for a worker.
    Scheduled,
    /// Being polled.
    Running {
        /// The worker polling it, when the runtime can tell (a task inside
        /// `block_in_place` may show none once its substitute thread runs other tasks; a
        /// current-thread runtime's thread is worker 0).
        worker: Option<usize>,
        /// When this poll started, where kept (named tasks: see [`TaskDump::polls`]).
        since: Option<Instant>,
    },
}

/// One live task in a [`Dump`].
///
/// Poll count and the times of the last poll and wake are kept only where they cost no clock
/// read on the hot path: for named tasks (`rt::task::Builder::name`) and, while a `tracing`
/// subscriber records `rt.task` spans, for every task spawned meanwhile. For other tasks they
/// are `None`.
#[derive(Clone, Debug)]
pub struct TaskDump {
    id: Id,
    name: Option<String>,
    location: &'static Location<'static>,
    priority: crate::task::Priority,
    state: TaskState,
    cancelled: bool,
    lost_waker: bool,
    polls: Option<u64>,
    last_poll: Option<Instant>,
    last_wake: Option<Instant>,
    taken: Instant,
}

impl TaskDump {
    fn new(t: TaskSnapshot, taken: Instant) -> TaskDump {
        let state = if t.running {
            TaskState::Running {
                worker: t.worker,
                since: t.last_poll,
            }
        } else if t.notified {
            TaskState::Scheduled
        } else {
            TaskState::Idle
        };
        TaskDump {
            id: t.id,
            name: t.name,
            location: t.location,
            priority: t.priority,
            state,
            cancelled: t.cancelled,
            lost_waker: t.no_waker,
            polls: t.polls,
            last_poll: t.last_poll,
            last_wake: t.last_wake,
            taken,
        }
    }

    /// The task's id.
    pub fn id(&self) -> Id {
        self.id
    }

    /// Its name, if it was spawned with one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Where it was spawned.
    pub fn location(&self) -> &'static Location<'static> {
        self.location
    }

    /// Its priority (`rt::task::Builder::priority`, or inherited from its spawner).
    pub fn priority(&self) -> crate::task::Priority {
        self.priority
    }

    /// Idle, scheduled or running.
    pub fn state(&self) -> TaskState {
        self.state
    }

    /// It was aborted (or its runtime is shutting down) and has not been dropped yet.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled
    }

    /// It is idle and no waker of it exists, so nothing can wake it: it stays pending until
    /// it is aborted or the runtime shuts down (tokio-console's "lost waker"). Never true of a
    /// task that has an `AbortHandle` (its reference cannot be told from a waker's).
    pub fn lost_waker(&self) -> bool {
        self.lost_waker
    }

    /// Polls so far, where kept.
    pub fn polls(&self) -> Option<u64> {
        self.polls
    }

    /// Time from the start of its last poll to the dump, where kept and polled at least once.
    pub fn since_last_poll(&self) -> Option<Duration> {
        self.last_poll
            .map(|t| self.taken.saturating_duration_since(t))
    }

    /// Time from its last wake to the dump, where kept and woken at least once.
    pub fn since_last_wake(&self) -> Option<Duration> {
        self.last_wake
            .map(|t| self.taken.saturating_duration_since(t))
    }
}

/// Every live task of a runtime at one moment ([`Handle::dump`](crate::Handle::dump)),
/// longest-idle first: tasks whose last poll time is kept, by time since that poll (for a
/// running task, since the poll began), then the others in spawn order (by id, oldest first).
///
/// `Display` prints a table; iterate with [`iter`](Dump::iter) or `for t in &dump`.
///
/// `LocalSet` tasks are listed once their set has been driven (or spawned onto) inside the
/// runtime: they are "running" only while their set polls them (on worker 0 for a set driven
/// by a current-thread runtime's `block_on` thread; with no worker on a multi-thread runtime,
/// whose `block_on` thread is none of its workers). Not listed: finished tasks (a task leaves
/// the table when it completes, even while its output waits in a `JoinHandle`),
/// `spawn_blocking` closures, the tasks of a `LocalSet` never driven in the runtime, and the
/// future given to `block_on`.
#[derive(Clone, Debug)]
pub struct Dump {
    tasks: Vec<TaskDump>,
}

impl Dump {
    fn new(tasks: Vec<TaskSnapshot>) -> Dump {
        let taken = Instant::now();
        let mut tasks: Vec<TaskDump> = tasks.into_iter().map(|t| TaskDump::new(t, taken)).collect();
        // Longest idle first: known last-poll times oldest first, then unknown ones by id.
        tasks.sort_by(|a, b| match (a.last_poll, b.last_poll) {
            (Some(x), Some(y)) => x.cmp(&y).then(a.id.cmp(&b.id)),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.id.cmp(&b.id),
        });
        Dump { tasks }
    }

    /// The tasks, longest-idle first.
    pub fn iter(&self) -> std::slice::Iter<'_, TaskDump> {
        self.tasks.iter()
    }

    /// How many tasks were live.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether no task was live.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }
}

impl<'a> IntoIterator for &'a Dump {
    type Item = &'a TaskDump;
    type IntoIter = std::slice::Iter<'a, TaskDump>;

    fn into_iter(self) -> Self::IntoIter {
        self.tasks.iter()
    }
}

impl IntoIterator for Dump {
    type Item = TaskDump;
    type IntoIter = std::vec::IntoIter<TaskDump>;

    fn into_iter(self) -> Self::IntoIter {
        self.tasks.into_iter()
    }
}

/// `1.2s`, `35ms`, `80µs`, or `-` when unknown.
struct Ago(Option<Duration>);

impl fmt::Display for Ago {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self.0 {
            None => "-".to_string(),
            Some(d) if d >= Duration::from_secs(1) => format!("{:.1}s", d.as_secs_f64()),
            Some(d) if d >= Duration::from_millis(1) => format!("{}ms", d.as_millis()),
            Some(d) => format!("{}µs", d.as_micros()),
        };
        f.pad(&s)
    }
}

impl fmt::Display for TaskState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            TaskState::Idle => "idle".to_string(),
            TaskState::Scheduled => "scheduled".to_string(),
            TaskState::Running {
                worker: Some(w), ..
            } => format!("running on worker {w}"),
            TaskState::Running { worker: None, .. } => "running".to_string(),
        };
        f.pad(&s)
    }
}

impl fmt::Display for TaskDump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut state = self.state.to_string();
        if self.lost_waker {
            state.push_str(", no waker");
        }
        if self.cancelled {
            state.push_str(", cancelled");
        }
        let polls = self.polls.map_or("-".to_string(), |n| n.to_string());
        write!(
            f,
            "{:<8} {:<32} {:<10} {:>7} {:>10} {:>10}  {:<16}  {}",
            self.id.as_u64(),
            state,
            self.priority.as_str(),
            polls,
            Ago(self.since_last_poll()),
            Ago(self.since_last_wake()),
            self.name.as_deref().unwrap_or("-"),
            self.location,
        )
    }
}

impl fmt::Display for Dump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} live tasks (longest idle first)", self.tasks.len())?;
        writeln!(
            f,
            "{:<8} {:<32} {:<10} {:>7} {:>10} {:>10}  {:<16}  SPAWNED AT",
            "ID", "STATE", "PRIORITY", "POLLS", "LAST POLL", "LAST WAKE", "NAME"
        )?;
        for t in &self.tasks {
            writeln!(f, "{t}")?;
        }
        Ok(())
    }
}

/// The dump of a runtime's live tasks: its scheduler's, then those of the `LocalSet`s driven
/// in it (`rt_sched::local::Observer`).
pub(crate) fn capture(inner: &RuntimeInner) -> Dump {
    let (mut tasks, running) = match &inner.scheduler {
        Scheduler::MultiThread(h) => (h.dump(), h.running_tasks()),
        Scheduler::CurrentThread(h) => (h.dump(), vec![h.running_task()]),
    };
    tasks.extend(inner.locals.dump(&running));
    Dump::new(tasks)
}
