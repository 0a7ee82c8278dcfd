//! The idle side of a worker: parking (on its parker or in the IO driver), watching the shards
//! of busy workers, and a substitute's yield before a park.

use std::time::Duration;

use super::*;
use crate::tuning::{OWN_SHARD_TRIES, TRIM_AFTER, WATCH_INTERVAL};

impl WorkerContext {
    pub(super) fn park(&self, parker: &Parker) {
        let shared = self.shared();
        // The user's hooks, around the whole park; declared first, so `on_unpark` runs last,
        // after the park/unpark count is even again. A task `on_park` spawns lands on this
        // worker's queues (LIFO slot included), which the check below sees.
        let _unpark_hook = shared.park_hooks.enter();
        if !self.queues_empty() {
            return;
        }
        let was_searching = self.is_searching.replace(false);
        if shared
            .idle
            .transition_worker_to_parked(self.index, was_searching)
            == LeftSearching::WasLastSearcher
        {
            // Idle rule 4.
            shared.notify_if_work_pending();
        }
        let _unpark = (self.trace.as_ref().filter(|_| rt_core::OBSERVE))
            .map(crate::trace::WorkerTrace::parked);
        let parked_at = std::time::Instant::now();
        self.tune_global_interval(parked_at);
        // Ends the busy period now; the next one starts when this guard drops (we wake).
        let _busy = self.counters().park(shared.counters.epoch(), parked_at);
        let mut trimmed = false;
        loop {
            if shared.is_shutdown() {
                return;
            }
            if self.reclaimed() {
                // A substitute whose lender wants its context back (`super::block_in_place`):
                // leave the sleepers list ourselves, not searching, and stop.
                if shared.idle.unpark_worker_by_id(self.index) == UnparkById::NotParked {
                    // A notify took us off the list first and counted us as searching.
                    self.is_searching.set(true);
                }
                return;
            }
            if let Some(driver) = &shared.io_driver {
                let until_trim = (!trimmed).then(|| TRIM_AFTER.saturating_sub(parked_at.elapsed()));
                match self.park_in_driver(driver.as_ref(), until_trim) {
                    Drove::NotifiedMeanwhile => break,
                    Drove::OwnWork => return,
                    Drove::Idle => {
                        if !trimmed && parked_at.elapsed() >= TRIM_AFTER {
                            // Idle that long: give memory back.
                            rt_core::pool::trim();
                            trimmed = true;
                        }
                        continue;
                    }
                    Drove::Busy if self.owns_shard && driver.is_running() => {
                        // Our shard stayed busy (see `park_in_driver`): come back to it soon.
                        parker.park_timeout(WATCH_INTERVAL);
                        if !shared.idle.is_parked(self.index) {
                            break;
                        }
                        continue;
                    }
                    Drove::Busy => {}
                }
            }
            if trimmed {
                parker.park();
            } else {
                // (Under loom a timed park is a park: loom's condvar never times out, so the
                // models run this same code.)
                parker.park_timeout(TRIM_AFTER);
                if shared.idle.is_parked(self.index) && !shared.is_shutdown() {
                    // Still asleep after a long while: give idle pool memory back once.
                    rt_core::pool::trim();
                    trimmed = true;
                    continue;
                }
            }
            if !shared.idle.is_parked(self.index) {
                break;
            }
        }
        // Woken by `worker_to_notify`, which counted us as searching.
        self.is_searching.set(true);
    }

    /// Parks in the IO driver (this worker's shard) instead of on the parker, if no other
    /// thread drives it, for at most `until_trim` (`None`: no limit).
    fn park_in_driver(&self, driver: &dyn crate::IoDriver, until_trim: Option<Duration>) -> Drove {
        let _settling = Settling::enter(self);
        let shared = self.shared();
        // Publish before the re-check; `Shared::unpark_worker` reads it after taking us off the
        // sleepers list, so a notify is never lost between the check and the block.
        shared.on_driver[self.index].store(true, rt_core::sync::Ordering::SeqCst);
        if !shared.idle.is_parked(self.index) {
            shared.on_driver[self.index].store(false, rt_core::sync::Ordering::SeqCst);
            return Drove::NotifiedMeanwhile;
        }
        let mut timeout = until_trim;
        let watching = self.owns_shard && self.others_busy_with_events(driver);
        if watching {
            timeout = Some(timeout.map_or(WATCH_INTERVAL, |t| t.min(WATCH_INTERVAL)));
            self.listen_to_busy(driver);
        }
        // Checked again once we hold the shard: a notify whose unpark another thread's turn
        // of this shard took before we got it would otherwise leave us blocked.
        let notified = || !shared.idle.is_parked(self.index) || self.reclaimed();
        // For auto-advance of a paused clock: nothing anywhere can make progress (rule P2 in
        // rt-io's `time/clock.rs`).
        let all_idle = || self.queues_empty() && shared.all_idle();
        let mut drove = driver.try_drive_idle(self.shard, timeout, &notified, &all_idle);
        let mut tries = 0;
        while !drove && self.owns_shard && tries < OWN_SHARD_TRIES && driver.is_running() {
            // Our own shard: another worker is polling it without blocking (`watch_others`)
            // and lets go at once. Nobody else blocks in it, so wait our turn.
            if !shared.idle.is_parked(self.index) {
                shared.on_driver[self.index].store(false, rt_core::sync::Ordering::SeqCst);
                return Drove::NotifiedMeanwhile;
            }
            rt_core::sync::thread::yield_now();
            drove = driver.try_drive(self.shard, timeout, &notified);
            tries += 1;
        }
        shared.on_driver[self.index].store(false, rt_core::sync::Ordering::SeqCst);
        if !drove {
            return Drove::Busy;
        }
        let mut no_work = self.queues_empty();
        if no_work && watching {
            self.watch_others(driver, true);
            no_work = self.queues_empty();
        }
        if no_work {
            return if shared.idle.is_parked(self.index) {
                Drove::Idle
            } else {
                Drove::NotifiedMeanwhile
            };
        }
        // The events woke tasks onto this worker: leave the sleepers ourselves, not searching.
        if shared.idle.unpark_worker_by_id(self.index) == UnparkById::Unparked {
            if !self.local.is_empty() || !self.bg_local.is_empty() {
                // More than the LIFO slot's one task: the notify `push_local` held back
                // during the turn, now that it cannot pick us.
                shared.notify_parked();
            }
            Drove::OwnWork
        } else {
            Drove::NotifiedMeanwhile
        }
    }

    /// Whether events may arrive on this worker's shard (`IoDriver::may_have_events`).
    pub(super) fn shard_may_have_events(&self) -> bool {
        self.shared()
            .io_driver
            .as_ref()
            .is_some_and(|d| d.may_have_events(self.shard))
    }

    pub(super) fn shard_has_sources(&self) -> bool {
        self.shared()
            .io_driver
            .as_ref()
            .is_some_and(|d| d.has_sources(self.shard))
    }

    /// Whether some other worker is running (not parked).
    fn others_busy(&self) -> bool {
        self.others_busy_where(|_| true)
    }

    /// Whether some other worker is running with a shard that may have events
    /// (`IoDriver::may_have_events`), so those events may go unpolled: then an idle worker
    /// watches (a shard with no sources and no timers delivers nothing to watch for).
    fn others_busy_with_events(&self, driver: &dyn crate::IoDriver) -> bool {
        self.others_busy_where(|i| driver.may_have_events(i))
    }

    /// Whether some other worker `i` is running (not parked) and `also(i)` holds.
    fn others_busy_where(&self, also: impl Fn(usize) -> bool) -> bool {
        let shared = self.shared();
        (0..shared.stealers.len()).any(|i| i != self.index && !shared.idle.is_parked(i) && also(i))
    }

    /// Before blocking in our own shard: let IO on a busy worker's shard end the wait
    /// (`IoDriver::listen_to`), so we serve it at once (`watch_others` from the park).
    fn listen_to_busy(&self, driver: &dyn crate::IoDriver) {
        let shared = self.shared();
        for k in 0..self.seen_turns.len() {
            if k != self.shard
                && !shared.idle.is_parked(k)
                && self.deaf_at[k].get() != driver.turns(k)
                && driver.may_have_events(k)
            {
                driver.listen_to(self.shard, k);
            }
        }
    }

    /// Polls, without blocking, the shards of other workers that are not parked, whose
    /// sockets' events would otherwise wait for their owner.
    ///
    /// From a busy worker (`from_park == false`, every `event_interval` ticks) only a shard that
    /// took no turn since this worker last looked: its owner is stuck in a long task or
    /// descheduled. From a park (woken in our own shard with nothing to do there) every busy
    /// worker's shard, without waiting for it to stand still: we are idle, so its events are
    /// better run here now than after its owner's current task (tokio's idle worker, in its one
    /// shared poll, takes every connection's events the same way); a shard found held by its
    /// owner (between being notified and running, or in a turn) is not listened to again until
    /// it turns (`deaf_at`), as hearing it would only wake us again at once.
    fn watch_others(&self, driver: &dyn crate::IoDriver, from_park: bool) {
        let shared = self.shared();
        for (k, seen) in self.seen_turns.iter().enumerate() {
            if k == self.shard {
                continue;
            }
            let turns = driver.turns(k);
            if !shared.idle.is_parked(k)
                && (from_park || turns == seen.get())
                && driver.may_have_events(k)
            {
                let drove = driver.try_drive(k, Some(Duration::ZERO), &|| false);
                if from_park {
                    self.deaf_at[k].set(if drove { u64::MAX } else { driver.turns(k) });
                }
                seen.set(driver.turns(k));
            } else {
                seen.set(turns);
            }
        }
    }

    pub(super) fn lifo_is_empty(&self) -> bool {
        self.lifo().is_empty()
    }

    /// The LIFO slot and both local queues are empty.
    fn queues_empty(&self) -> bool {
        self.lifo_is_empty() && self.local.is_empty() && self.bg_local.is_empty()
    }

    /// Out of work: polls the IO driver without blocking, if no other thread is driving it,
    /// and returns a task the events woke onto this worker.
    pub(super) fn poll_driver_when_out_of_work(&self) -> Option<Notified<Handle>> {
        if !self.turn_driver_nonblocking() {
            return None;
        }
        if let Some(t) = self.lifo().take() {
            self.counters().lifo_hit();
            return Some(t);
        }
        self.local.pop().or_else(|| self.bg_local.pop())
    }

    /// Every `event_interval` ticks: let IO and timers in even while this worker is busy; and
    /// serve any other worker's shard that took no turn since we last looked while its owner
    /// is not parked (descheduled by the OS, or in a long poll), whose sockets' events would
    /// otherwise wait for that owner (`watch_others`; an idle worker does the same from its
    /// park, `park_in_driver`).
    pub(super) fn poll_driver_on_interval(&self) {
        if self.tune {
            self.tune_global_interval(std::time::Instant::now());
        }
        self.maybe_yield_cpu();
        self.yield_turn.set(false);
        self.turn_driver_nonblocking();
        if self.owns_shard {
            if let Some(driver) = self.shared().io_driver.as_deref() {
                self.watch_others(driver, false);
            }
        }
    }

    /// Yields this thread's CPU to the OS once if the worker has run tasks for
    /// `os_yield_after` without a break ("Yielding the CPU" in the module docs).
    fn maybe_yield_cpu(&self) {
        let Some(after) = self.shared().os_yield_after else {
            return;
        };
        let now = std::time::Instant::now();
        if now.saturating_duration_since(self.last_break.get()) >= after {
            std::thread::yield_now();
            self.counters().os_yield();
            self.last_break.set(std::time::Instant::now());
        }
    }

    /// A substitute (`block_in_place`) out of work, before it parks, while another worker
    /// runs: gives its CPU to the OS once (per stretch without tasks) and returns true, for the
    /// caller to look for work again before it parks. Its lender may want the context back any
    /// moment, and a yield notices that sooner than a park and unpark. A worker parks at once:
    /// a pause before the park ("Yielding the CPU" in the module docs) is a timer wake-up that
    /// finds nothing wherever the next work comes from threads it does not help. Off when
    /// `os_yield_after` is `None`. Not under loom: it only delays the park.
    pub(super) fn yield_before_park(&self) -> bool {
        if cfg!(loom)
            || self.reclaim.get().is_null()
            || self.yielded_idle.get()
            || self.shared().os_yield_after.is_none()
            || !self.others_busy()
        {
            return false;
        }
        self.yielded_idle.set(true);
        rt_core::sync::thread::yield_now();
        self.counters().os_yield();
        self.last_break.set(std::time::Instant::now());
        true
    }

    /// One non-blocking turn of the IO driver, if there is one and no other thread drives it.
    /// Returns whether this thread drove.
    pub(super) fn turn_driver_nonblocking(&self) -> bool {
        self.shared()
            .io_driver
            .as_ref()
            .is_some_and(|driver| driver.try_drive(self.shard, Some(Duration::ZERO), &|| false))
    }
}

/// Marks a worker as parked and turning its driver (`WorkerContext::parked_turn`) for the
/// length of `park_in_driver`; undoes `Shared::settling`'s count if a wake put work on its queues.
struct Settling<'a>(&'a WorkerContext);

impl<'a> Settling<'a> {
    fn enter(cx: &'a WorkerContext) -> Settling<'a> {
        cx.parked_turn.set(1);
        Settling(cx)
    }
}

impl Drop for Settling<'_> {
    fn drop(&mut self) {
        if self.0.parked_turn.replace(0) == 2 {
            // Rule P6: work reached our queues, so we have left the sleepers list by now (for
            // it, or for a notify): the unparked count holds auto-advance back from here on.
            self.0
                .shared()
                .settling
                .fetch_sub(1, rt_core::sync::Ordering::SeqCst);
        }
    }
}

/// What parking in the IO driver came to.
enum Drove {
    /// Another thread drives: park on the parker instead.
    Busy,
    /// Nothing for us; still on the sleepers list: park again.
    Idle,
    /// A notify took us off the sleepers list (we count as searching).
    NotifiedMeanwhile,
    /// The driver woke tasks onto our own queue; we left the sleepers list ourselves.
    OwnWork,
}
