//! Tasks: spawning, joining, yielding.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pub use rt_core::coop::consume_budget;
pub use rt_core::task::{id, try_id, AbortHandle, Id, JoinError, JoinHandle};

pub use crate::{spawn, spawn_blocking};
mod builder;
pub use builder::Builder;
mod join_set;
pub use join_set::JoinSet;
mod group;
pub use group::{GroupError, PanicPayload, TaskGroup};

mod local;
mod task_local;
pub use local::{spawn_local, LocalSet, RunUntil};
pub use task_local::{AccessError, LocalKey, TaskLocalFuture};

/// Yields to the scheduler once: the task goes to the back of its worker's queue and runs
/// again after the tasks queued before it.
pub async fn yield_now() {
    YieldNow { yielded: false }.await
}

struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
