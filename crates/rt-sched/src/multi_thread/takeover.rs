//! Stall detection and the take-over of a stalled worker (rules in the module docs of
//! `multi_thread`, "Stalls").
//!
//! - The monitor thread (`rt-monitor`, started only with a stall threshold) samples every
//!   worker's poll stamp (`crate::stall::PollStamp`) every `threshold / 4` (at least 1 ms, at
//!   most 10 ms), sleeping on a condvar with that timeout so that shutdown stops it at once. A
//!   stamp that names a task and has not moved for longer than the threshold is reported
//!   (`tracing::warn!`, the `on_stall` callback, the `stalls` metric, `record_stall`) while the
//!   poll still runs, and once more, with its total length, when it has moved on. The loop
//!   and the report are `crate::stall::Detector`'s (the current-thread scheduler runs the same
//!   one over its single stamp).
//! - With the report, the stalled worker's substitute (one thread per worker, started at its
//!   first stall and then parked between stalls) serves what only that worker would: the task
//!   in its LIFO slot (`crate::lifo`), its local queue (taking tasks one by one through its
//!   stealer), its IO shard and the timers on it; and, when those are empty, the injector. It
//!   stops as soon as the worker's stamp moves (the stalled poll returned).

use rt_core::sync::{thread, Condvar, Mutex};

use super::{Arc, Shared};
use crate::stall::{Detector, StallConfig, StampSample};

use crate::tuning::SUBSTITUTE_WAIT;

/// Stall detection's shared state (`Shared::takeover`).
pub(super) struct Takeover {
    /// The monitor's loop, its settings and stop flag, and the stall count (`crate::stall`).
    detector: Detector,
    /// Per worker: its substitute.
    subs: Box<[Substitute]>,
}

struct Substitute {
    state: Mutex<SubState>,
    wake: Condvar,
}

#[derive(Default)]
struct SubState {
    /// The stamp of the stalled poll being served (`None`: parked).
    active: Option<StampSample>,
    thread: Option<thread::JoinHandle<()>>,
}

fn lock<T>(m: &Mutex<T>) -> rt_core::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Takeover {
    pub(super) fn new(config: StallConfig, workers: usize) -> Takeover {
        Takeover {
            detector: Detector::new(config),
            subs: (0..workers)
                .map(|_| Substitute {
                    state: Mutex::new(SubState::default()),
                    wake: Condvar::new(),
                })
                .collect(),
        }
    }

    /// Stalls reported so far (`Metrics::stalls`).
    pub(super) fn stalls(&self) -> u64 {
        self.detector.stalls()
    }

    /// A worker that took the monitor's asleep mark off wakes it (`stall::Doze`).
    pub(super) fn rouse_monitor(&self) {
        self.detector.rouse();
    }

    /// Stops the monitor and the substitutes (after the scheduler's shutdown flag is set).
    /// Returns the threads to join.
    pub(super) fn stop(&self) -> Vec<thread::JoinHandle<()>> {
        self.detector.stop();
        let mut threads = Vec::new();
        for s in self.subs.iter() {
            let mut st = lock(&s.state);
            st.active = None;
            threads.extend(st.thread.take());
            drop(st);
            s.wake.notify_all();
        }
        threads
    }
}

/// Starts the monitor thread.
pub(super) fn start_monitor(shared: &Arc<Shared>) -> std::io::Result<thread::JoinHandle<()>> {
    let shared = shared.clone();
    thread::Builder::new()
        .name("rt-monitor".into())
        .spawn(move || monitor(&shared))
}

/// The monitor thread: `Detector::run` over the workers' stamps, each report starting the
/// stalled worker's take-over and each end finishing it.
fn monitor(shared: &Arc<Shared>) {
    let Some(t) = shared.takeover.as_ref() else {
        return;
    };
    t.detector.run(
        shared.stamps.len(),
        |i| shared.stamps[i].sample(),
        |s| s.task_id().and_then(|id| describe_task(shared, id)),
        shared.trace.as_deref(),
        &shared.idle,
        |i, s| start_takeover(shared, t, i, s),
        |i, s| end_takeover(t, i, s),
    );
}

/// The name and spawn location of live task `id`, found by one walk of the owned list (a
/// worker's stamp holds only the id, so the poll path stores one word less; a walk per stall
/// report is rare). `None`: the task is gone, so the stalled poll has returned.
fn describe_task(shared: &Shared, id: u64) -> Option<rt_core::task::MetaInfo> {
    let mut found = None;
    shared.owned.for_each_live(|h| {
        if found.is_none() && h.id().as_u64() == id {
            found = Some(rt_core::task::MetaInfo {
                name: h.name().map(Into::into),
                location: h.spawn_location(),
                priority: h.priority(),
            });
        }
    });
    found
}

/// Has worker `i`'s substitute serve the stall `stamp`, starting it if it has not run yet.
fn start_takeover(shared: &Arc<Shared>, t: &Takeover, i: usize, stamp: StampSample) {
    let sub = &t.subs[i];
    let mut st = lock(&sub.state);
    st.active = Some(stamp);
    if st.thread.is_none() {
        let sh = shared.clone();
        match shared.spawner.spawn(move || substitute(&sh, i), || {}) {
            Ok(h) => st.thread = Some(h),
            Err(e) => {
                st.active = None;
                tracing::warn!(error = %e, worker = i, "rt: could not start a thread to take over a stalled worker");
            }
        }
    }
    drop(st);
    sub.wake.notify_all();
}

fn end_takeover(t: &Takeover, i: usize, stamp: StampSample) {
    let mut st = lock(&t.subs[i].state);
    if st.active == Some(stamp) {
        st.active = None;
    }
}

/// A substitute thread's body: parked until its worker stalls, then serving it.
fn substitute(shared: &Arc<Shared>, i: usize) {
    rt_core::pool::set_thread_mode(rt_core::pool::ThreadMode::Recycling);
    let Some(t) = shared.takeover.as_ref() else {
        return;
    };
    let sub = &t.subs[i];
    loop {
        let stamp = {
            let mut st = lock(&sub.state);
            loop {
                if shared.is_shutdown() || t.detector.is_stopped() {
                    return;
                }
                if let Some(s) = st.active {
                    break s;
                }
                st = sub.wake.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        };
        serve(shared, sub, i, stamp);
        end_takeover(t, i, stamp);
    }
}

/// Runs one task that only worker `i` would run: from its LIFO slot, else its local queue.
/// Rule S2: each is taken by the slot's `steal` or the queue's, so the stalled thread (which may still spawn
/// into both, and pop from both once its poll returns) and this one never hold the same task.
/// Returns whether it ran one. (Under loom, `Handle::takeover_step`, for the model.)
pub(super) fn step(shared: &Shared, i: usize) -> bool {
    match shared.lifos[i]
        .steal()
        .or_else(|| shared.stealers[i].steal())
    {
        Some(task) => {
            task.run();
            true
        }
        None => false,
    }
}

/// Serves worker `i`'s LIFO slot, queue and shard while its stamp stays `stamp`.
fn serve(shared: &Shared, sub: &Substitute, i: usize, stamp: StampSample) {
    let stalled = || !shared.is_shutdown() && shared.stamps[i].sample() == stamp;
    let lifo = &shared.lifos[i];
    let queue = &shared.stealers[i];
    while stalled() {
        if step(shared, i) {
            continue;
        }
        if let Some(task) = shared.injector.pop() {
            task.run();
            continue;
        }
        // Rule S4: the stalled worker's background work, for another worker to steal.
        if shared.has_background() && !shared.bg_stealers[i].is_empty() {
            shared.notify_parked_past_cap();
        }
        // Rule S3: the stalled worker's IO and timers.
        let drove = shared.owns_shard()
            && shared.io_driver.as_ref().is_some_and(|d| {
                d.try_drive(shared.shard_of(i), Some(SUBSTITUTE_WAIT), &|| {
                    !stalled() || !lifo.is_empty() || !queue.is_empty()
                })
            });
        if !drove {
            let st = lock(&sub.state);
            if st.active == Some(stamp) {
                let _ = sub.wake.wait_timeout(st, SUBSTITUTE_WAIT);
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::super::{Config, MultiThread};
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn running_tasks_names_the_task_in_its_poll() {
        let mut rt = MultiThread::new(Config::new(1));
        rt.start().unwrap();
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let id = rt_core::task::next_id();
        let h = rt.handle().spawn(
            async move {
                started_tx.send(()).unwrap();
                release_rx.recv_timeout(Duration::from_secs(60)).unwrap();
            },
            id,
        );
        started_rx.recv_timeout(Duration::from_secs(60)).unwrap();
        assert_eq!(rt.handle().running_tasks(), vec![Some(id.as_u64())]);
        release_tx.send(()).unwrap();
        crate::current_thread::park_block_on(h).unwrap();
        rt.shutdown(None);
    }
}
