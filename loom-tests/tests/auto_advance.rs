#![cfg(loom)]
//! loom model of the "all parked" decision behind auto-advance of a paused clock (rt-io's
//! `time/clock.rs`): a parked worker about to block in its driver shard hands the driver
//! `IoDriver::try_drive_idle`'s `idle` check — its own LIFO slot and queue empty, then
//! `Shared::all_idle` in `rt-sched/src/multi_thread/mod.rs` (injector and every local queue
//! empty, no driver turn settling, no worker unparked) — and the driver jumps the clock only
//! when it holds.
//!
//! * `no_auto_advance_while_a_task_is_in_flight`: 2 workers blocking in their own shards (a
//!   mock driver, as in `shards.rs`); the model thread spawns one task from outside (it goes
//!   through the injector and a notify), then marks it spawned. The mock driver, each time it
//!   is asked, reads "spawned" first and then the check; if the check says "idle" while the
//!   task was spawned and has not run, the clock would jump with a task in flight: the model
//!   fails. The task marks itself done when it runs.
//!
//! Dropping the unparked-count check from `all_idle` makes the model fail within seconds (the
//! decision is then made while a woken worker runs the task); it finishes in about a minute at
//! `LOOM_MAX_PREEMPTIONS=2` in release mode on the 2-core machine.
//!
//! What it does not cover: the shards (the real driver takes every shard before it asks, so a
//! driver turn that wakes a task cannot be half done; `shards.rs` models the shard hand-off),
//! the blocking pool and `block_on` threads (checked around the scheduler by the facade and
//! rt-io, with locks and SeqCst counters).

mod task_support;

use std::time::Duration;

use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use loom::sync::{Arc, Condvar, Mutex};
use rt_core::task::next_id;
use rt_sched::current_thread::park_block_on;
use rt_sched::multi_thread::MultiThread;
use rt_sched::IoDriver;
use task_support::model;

#[derive(Default)]
struct Shard {
    busy: AtomicBool,
    pending: Mutex<bool>,
    cv: Condvar,
}

#[derive(Default)]
struct Flags {
    spawned: AtomicBool,
    done: AtomicBool,
    /// Times the check said "idle" (the clock would have jumped).
    advances: AtomicUsize,
}

struct MockDriver {
    shards: Vec<Shard>,
    flags: Arc<Flags>,
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
        {
            let mut p = s.pending.lock().unwrap();
            if block {
                while !*p {
                    p = s.cv.wait(p).unwrap();
                }
            }
            *p = false;
        }
        s.busy.store(false, Ordering::Release);
        true
    }

    fn try_drive_idle(
        &self,
        shard: usize,
        timeout: Option<Duration>,
        unless: &dyn Fn() -> bool,
        idle: &dyn Fn() -> bool,
    ) -> bool {
        let spawned = self.flags.spawned.load(Ordering::SeqCst);
        if !unless() && idle() {
            assert!(
                !spawned || self.flags.done.load(Ordering::SeqCst),
                "auto-advance decided while the task was in flight"
            );
            self.flags.advances.fetch_add(1, Ordering::SeqCst);
        }
        self.try_drive(shard, timeout, unless)
    }

    fn unpark(&self, shard: usize) {
        let s = &self.shards[shard];
        *s.pending.lock().unwrap() = true;
        s.cv.notify_one();
    }
}

#[test]
fn no_auto_advance_while_a_task_is_in_flight() {
    model(|| {
        let flags = Arc::new(Flags::default());
        let driver = std::sync::Arc::new(MockDriver {
            shards: (0..2).map(|_| Shard::default()).collect(),
            flags: flags.clone(),
        });
        let mut rt = MultiThread::new(task_support::mt_config(2, Some(driver)));
        rt.start().unwrap();
        let join = {
            let flags = flags.clone();
            rt.handle().spawn(
                async move {
                    flags.done.store(true, Ordering::SeqCst);
                },
                next_id(),
            )
        };
        flags.spawned.store(true, Ordering::SeqCst);
        park_block_on(join).unwrap();
        rt.shutdown(None);
    });
}
