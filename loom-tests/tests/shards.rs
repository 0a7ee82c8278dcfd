#![cfg(loom)]
//! loom model of the multi-thread scheduler over a sharded IO driver (one shard per worker,
//! `rt-sched/src/multi_thread/worker.rs`): an idle worker blocks in its own shard instead of on
//! its parker, and a notify for it must reach it there (`Shared::unpark_worker` reads the
//! worker's `on_driver` flag after taking it off the sleepers list; the worker publishes the
//! flag before it re-checks that list).
//!
//! The driver is a mock with loom-visible parts: per shard a try-lock (one thread in the
//! shard at a time) and a "pending unpark" flag with a condvar. loom has no time, so a
//! blocking turn with a timeout waits like one without (the model then checks that no wake-up
//! depends on a timeout); a zero timeout never blocks.
//!
//! * `remote_spawn_reaches_a_worker_blocked_in_its_shard`: a task spawned from outside while
//!   both workers go idle in their shards runs. A lost notify (both workers blocked in their
//!   shards, the task in the injector) is a deadlock, which loom reports.
//! * `io_event_wakes_its_task_through_the_shard`: a task waits on an "IO event" of shard 0's;
//!   the model thread fires it (the waker is stored with the shard, the shard unparked) and the
//!   worker that turns shard 0 wakes the task, which then runs.

mod task_support;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::{Arc, Condvar, Mutex};
use rt_core::task::next_id;
use rt_sched::current_thread::park_block_on;
use rt_sched::multi_thread::{Config, MultiThread};
use rt_sched::IoDriver;
use task_support::model;

#[derive(Default)]
struct Shard {
    /// Held by the thread inside `try_drive` of this shard.
    busy: AtomicBool,
    /// An unpark (or an event) not yet consumed by a turn; wakers of fired "IO events".
    pending: Mutex<(bool, Vec<Waker>)>,
    cv: Condvar,
}

struct MockDriver {
    shards: Vec<Shard>,
}

impl MockDriver {
    fn new(n: usize) -> std::sync::Arc<MockDriver> {
        std::sync::Arc::new(MockDriver {
            shards: (0..n).map(|_| Shard::default()).collect(),
        })
    }

    /// An IO event on `shard`: its waker runs at the shard's next turn.
    fn fire(&self, shard: usize, waker: Waker) {
        let s = &self.shards[shard];
        let mut p = s.pending.lock().unwrap();
        p.0 = true;
        p.1.push(waker);
        s.cv.notify_one();
    }
}

impl IoDriver for MockDriver {
    fn shards(&self) -> usize {
        self.shards.len()
    }

    fn try_drive(
        &self,
        shard: usize,
        timeout: Option<Duration>,
        unless: &dyn Fn() -> bool,
    ) -> bool {
        let s = &self.shards[shard];
        if s.busy.swap(true, Ordering::Acquire) {
            return false;
        }
        let block = timeout != Some(Duration::ZERO) && !unless();
        let wakers = {
            let mut p = s.pending.lock().unwrap();
            if block {
                while !p.0 {
                    p = s.cv.wait(p).unwrap();
                }
            }
            p.0 = false;
            std::mem::take(&mut p.1)
        };
        s.busy.store(false, Ordering::Release);
        // As the real reactor does: the wakes of one turn run on the driving thread.
        for w in wakers {
            w.wake();
        }
        true
    }

    fn unpark(&self, shard: usize) {
        let s = &self.shards[shard];
        s.pending.lock().unwrap().0 = true;
        s.cv.notify_one();
    }
}

fn config(driver: std::sync::Arc<MockDriver>) -> Config {
    task_support::mt_config(2, Some(driver))
}

#[test]
fn remote_spawn_reaches_a_worker_blocked_in_its_shard() {
    model(|| {
        let driver = MockDriver::new(2);
        let mut rt = MultiThread::new(config(driver));
        rt.start().unwrap();
        let ran = Arc::new(AtomicBool::new(false));
        let join = {
            let ran = ran.clone();
            rt.handle().spawn(
                async move {
                    ran.store(true, Ordering::Release);
                },
                next_id(),
            )
        };
        park_block_on(join).unwrap();
        assert!(ran.load(Ordering::Acquire));
        rt.shutdown(None);
        assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
    });
}

/// Ready once the model thread has fired the event (set `done`, then `fire`d the waker).
struct IoWait {
    registered: Arc<Mutex<Option<Waker>>>,
    done: Arc<AtomicBool>,
}

impl Future for IoWait {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.done.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        *self.registered.lock().unwrap() = Some(cx.waker().clone());
        if self.done.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

#[test]
fn io_event_wakes_its_task_through_the_shard() {
    model(|| {
        let driver = MockDriver::new(2);
        let mut rt = MultiThread::new(config(driver.clone()));
        rt.start().unwrap();
        let registered = Arc::new(Mutex::new(None::<Waker>));
        let done = Arc::new(AtomicBool::new(false));
        let join = rt.handle().spawn(
            IoWait {
                registered: registered.clone(),
                done: done.clone(),
            },
            next_id(),
        );
        // The "reactor" side: readiness first, then the event with whatever waker the task
        // left (none if it has not polled yet: then it sees `done` when it does).
        done.store(true, Ordering::Release);
        if let Some(w) = registered.lock().unwrap().take() {
            driver.fire(0, w);
        }
        park_block_on(join).unwrap();
        rt.shutdown(None);
        assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
        // Wakers nobody needed any more (the task saw `done` by itself).
        registered.lock().unwrap().take();
        driver.shards[0].pending.lock().unwrap().1.clear();
    });
}
