//! [`WorkerDriver`]: the scheduler's side of a reactor whose shards the runtime's own worker
//! threads drive ([`Driver::start_on_workers`](crate::Driver::start_on_workers)).
//!
//! A scheduler needs a handful of calls a socket never does: take a turn of a shard (blocking in
//! its `poll` when idle), interrupt a shard's `poll`, look at a shard's turn count and source
//! count, and bind each worker thread to its shard. They live here, on a type only the
//! [`Driver`](crate::Driver) hands out, instead of on [`Handle`], which every socket and timer
//! holds. The facade (`rt/src/builder.rs`) implements `rt_sched::IoDriver` with it.

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use rt_core::sync::{unmodelled, Ordering};

use crate::handle::Handle;
use crate::reactor;

/// The scheduler's handle to a reactor whose shards its worker threads drive. Obtained from
/// [`Driver::worker_driver`](crate::Driver::worker_driver); clones share the reactor.
#[derive(Clone)]
pub struct WorkerDriver {
    handle: Handle,
}

use crate::tuning::CPU_REFRESH_TURNS;

impl WorkerDriver {
    pub(crate) fn new(handle: Handle) -> WorkerDriver {
        WorkerDriver { handle }
    }

    /// How many shards (`mio::Poll`s) the reactor has (at least one).
    pub fn shards(&self) -> usize {
        self.handle.inner.shards.len()
    }

    /// Makes `shard` of this reactor the calling thread's own: the sources it creates from now
    /// on register there, and a source whose task keeps waiting on this thread moves there. Each
    /// worker binds its own shard when it starts. The binding names this reactor: the thread
    /// has no own shard in any other.
    pub fn bind_thread(&self, shard: usize) {
        self.handle.bind_thread(shard);
    }

    /// Makes the calling thread worker `worker` of this reactor, whatever the shards' layout:
    /// the far-off timers it registers wait in that worker's stage, off the shared wheel, until
    /// a turn of shard `worker % shards` moves them there (`time/stage.rs`). Each worker binds
    /// itself when it starts, as does a thread that takes a worker's place. Without it, the
    /// thread's timers go to the wheel directly.
    pub fn bind_worker(&self, worker: usize) {
        self.handle.bind_worker(worker);
    }

    /// Drives `shard` on this thread, if no other thread does: blocks in its `poll` until an IO
    /// event, a timer, [`WorkerDriver::unpark`] or `timeout`, then wakes what became ready (the
    /// wakes run here). Returns `false` at once when another thread is driving the shard, or
    /// when the reactor has stopped. Timers are processed on every shard's turn, and bound
    /// every shard's timeout, so they fire whichever thread is idle.
    ///
    /// The turn does not block if `unless` returns `true`. `unless` runs once this thread holds
    /// the shard, so a wake-up sent after it returned `false` stays in the shard's `poll` for
    /// this turn: no other thread can take it first with a turn of its own. (A scheduler passes
    /// "I was notified meanwhile".)
    ///
    /// A panic inside the reactor is contained here: the reactor is then "gone" and every IO
    /// operation fails with an error that says so, but the calling thread carries on.
    pub fn try_drive(
        &self,
        shard: usize,
        timeout: Option<Duration>,
        unless: &dyn Fn() -> bool,
    ) -> bool {
        let handle = &self.handle;
        if !handle.is_running() {
            return false;
        }
        let reactor = &handle.inner;
        if timeout != Some(Duration::ZERO)
            && reactor.time.is_paused()
            && reactor.advancing.load(Ordering::SeqCst)
        {
            // Rule P4 (`time/clock.rs`): another thread is taking every shard to decide on
            // auto-advance: give way rather than block in this one (the caller parks briefly
            // and comes back).
            return false;
        }
        let shard_ref = &reactor.shards[shard];
        let Ok(mut guard) = shard_ref.core.try_lock() else {
            return false;
        };
        let Some(core) = guard.as_mut() else {
            return false;
        };
        let timeout = if unless() {
            Some(Duration::ZERO)
        } else {
            timeout
        };
        // Staging rule 1 (`time/stage.rs`): this shard's staged timers due soon go to the
        // wheel before the wheel's next deadline is read, and the turn blocks no longer than
        // until the next staged one is due.
        let staged = reactor.time.flush_stage(shard);
        let min = |a: Option<Duration>, b: Option<Duration>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let timeout = min(min(timeout, staged), reactor.time.next_timeout());
        let turns = shard_ref.turns.fetch_add(1, Ordering::Relaxed);
        if turns.is_multiple_of(CPU_REFRESH_TURNS)
            && reactor.shards.len() > 1
            && handle.is_home(shard)
        {
            shard_ref.cpu.store(current_cpu(), Ordering::Relaxed);
        }
        let turn = || match (&shard_ref.listen, timeout) {
            (Some(listen), t) if t != Some(Duration::ZERO) && listen.take_armed() => {
                // Wait where the shards this one was asked to hear can end the wait too
                // (`listen.rs`), then take the own shard's events without waiting, unless
                // only heard shards had some.
                if listen.wait(timeout) {
                    reactor::turn(handle, core, Some(Duration::ZERO), false, true)
                } else {
                    0
                }
            }
            // A turn that does not wait is a busy one: the thread has work to get back to.
            _ => {
                let busy = timeout == Some(Duration::ZERO);
                reactor::turn(handle, core, timeout, busy, !busy)
            }
        };
        match catch_unwind(AssertUnwindSafe(turn)) {
            Ok(events) => shard_ref.count_events(events),
            Err(_) => {
                drop(guard);
                reactor::stop(handle, true);
            }
        }
        true
    }

    /// Makes the next blocking turn of `shard` end when `other` has IO events, or at once if it
    /// has some now; one turn only, so a scheduler arms it each time, before it blocks while
    /// `other`'s owner is busy, and then polls `other` itself (`listen.rs`; a turn begun with
    /// nothing armed waits in its own poll alone, and is not ended by a later arm). Nothing happens with a single shard or a reactor thread of its own.
    pub fn listen_to(&self, shard: usize, other: usize) {
        let shards = &self.handle.inner.shards;
        if let (Some(listen), true) = (&shards[shard].listen, shard != other) {
            listen.arm(
                other,
                std::os::fd::AsRawFd::as_raw_fd(&shards[other].registry),
            );
        }
    }

    /// [`WorkerDriver::try_drive`] for a thread that is about to block because it has nothing
    /// to do, with auto-advance of the paused clock (rules P2 and P4 in `time/clock.rs`): `idle`
    /// says whether the
    /// whole scheduler is idle — every thread parked, nothing queued, no wake-up on its way, no
    /// blocking closure running. When the clock is paused and `idle()` holds, this thread takes
    /// every shard (a thread blocked in one is unparked and gives way, see `try_drive`), polls
    /// each without waiting so that ready IO runs first (tokio's rule), asks `idle()` again —
    /// now that no turn runs anywhere, nothing the scheduler does can be in flight unseen — and
    /// only then moves the clock to the next timer and fires it. Returns `true` if it did
    /// that, or if the polls woke something; otherwise it is `try_drive`.
    ///
    /// When the clock is not paused this is `try_drive` plus one relaxed load.
    pub fn try_drive_idle(
        &self,
        shard: usize,
        timeout: Option<Duration>,
        unless: &dyn Fn() -> bool,
        idle: &dyn Fn() -> bool,
    ) -> bool {
        let reactor = &self.handle.inner;
        if timeout != Some(Duration::ZERO)
            && reactor.time.is_paused()
            && self.try_auto_advance(unless, idle)
        {
            return true;
        }
        self.try_drive(shard, timeout, unless)
    }

    /// The decision of [`WorkerDriver::try_drive_idle`]. Returns whether it drove (jumped, or
    /// the polls woke work).
    fn try_auto_advance(&self, unless: &dyn Fn() -> bool, idle: &dyn Fn() -> bool) -> bool {
        let handle = &self.handle;
        let reactor = &handle.inner;
        // Rule P5 (`time/clock.rs`): the outside holders (P3) before and after the scheduler:
        // a task's wake can move from a worker to a `block_on` thread and a spawn back, so one
        // of the two reads sees it whichever way it goes.
        let clock = reactor.time.handle();
        let quiet = || clock.clock().unheld() && !unless() && idle() && clock.clock().unheld();
        // Rule P2: no timer, no decision (nothing to jump to; taking the shards would only wake
        // their owners, each of which would then decide the same).
        if !reactor.time.has_timers() || !quiet() {
            return false;
        }
        let Ok(_one_at_a_time) = reactor.advance_lock.try_lock() else {
            return false;
        };
        reactor.advancing.store(true, Ordering::SeqCst);
        struct Clear<'a>(&'a rt_core::sync::AtomicBool);
        impl Drop for Clear<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::SeqCst);
            }
        }
        let _clear = Clear(&reactor.advancing);
        let mut cores = Vec::with_capacity(reactor.shards.len());
        for shard in reactor.shards.iter() {
            loop {
                if !handle.is_running() {
                    return false;
                }
                if let Ok(core) = shard.core.try_lock() {
                    cores.push(core);
                    break;
                }
                if !quiet() {
                    return false;
                }
                // Its owner is blocked in it (or takes a short turn): wake it; it gives way.
                let _ = shard.waker.wake();
                rt_core::sync::thread::yield_now();
            }
        }
        // Rule P4: IO that is ready runs before the clock jumps (tokio's rule).
        for (k, core) in cores.iter_mut().enumerate() {
            let Some(core) = core.as_mut() else {
                return false;
            };
            reactor.shards[k].turns.fetch_add(1, Ordering::Relaxed);
            let zero = Some(Duration::ZERO);
            match catch_unwind(AssertUnwindSafe(|| {
                reactor::turn(handle, core, zero, false, false)
            })) {
                Ok(events) => reactor.shards[k].count_events(events),
                Err(_) => {
                    drop(cores);
                    reactor::stop(handle, true);
                    return false;
                }
            }
        }
        // Rule P4: every shard is held, so no turn runs anywhere and what the polls and turns
        // woke is in the scheduler's queues (or holds it back) by now: ask again.
        if !quiet() {
            return true;
        }
        rt_core::batch::batch(|| reactor.time.auto_advance())
    }

    /// Interrupts the thread inside [`WorkerDriver::try_drive`] of `shard`; a wake-up sent
    /// while nobody drives it makes the next turn of that shard return at once.
    pub fn unpark(&self, shard: usize) {
        let _ = self.handle.inner.shards[shard].waker.wake();
    }

    /// Whether the reactor still delivers events (`try_drive` returns `false` for good once it
    /// stopped).
    pub fn is_running(&self) -> bool {
        self.handle.is_running()
    }

    /// Turns taken on `shard` so far (a counter that only grows): a worker that sees another's
    /// shard stand still while that worker is busy polls the shard for it.
    pub fn turns(&self, shard: usize) -> u64 {
        self.handle.inner.shards[shard]
            .turns
            .load(Ordering::Relaxed)
    }

    /// IO readiness events delivered by turns of `shard` so far (wake-ups and timer ticks not
    /// counted): a statistic that only grows, for the runtime's metrics.
    pub fn events(&self, shard: usize) -> u64 {
        self.handle.inner.shards[shard]
            .events
            .load(unmodelled::Ordering::Relaxed)
    }

    /// Whether `shard` has events ready now — IO readiness, its waker, and on shard 0 a due
    /// timer (the timers' timerfd) — asked without taking a turn or consuming any: `poll(2)`
    /// of its epoll descriptor, which is readable while its ready list is not empty. A worker
    /// asks it at a background task's slice boundary, from inside that task's poll.
    pub fn has_ready(&self, shard: usize) -> bool {
        let fd = std::os::fd::AsRawFd::as_raw_fd(&self.handle.inner.shards[shard].registry);
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: `pfd` is one writable `pollfd` and the count is 1; a zero timeout never
        // blocks; `fd` is the shard's epoll descriptor, open while `self.handle` lives.
        let ready = crate::syscall::cvt(unsafe { libc::poll(&mut pfd, 1, 0) });
        ready.is_ok_and(|n| n > 0)
    }

    /// Whether any source is registered on `shard`: a worker polls its shard before it looks
    /// for work elsewhere only when events may be waiting there (the poll is a syscall).
    pub fn has_sources(&self, shard: usize) -> bool {
        self.handle.inner.shards[shard]
            .sources
            .load(Ordering::Relaxed)
            != 0
    }

    /// Whether events may arrive on `shard`: sources are registered on it, or it is shard 0
    /// (the timerfd's) and timers are pending (a hint read without the wheel's lock). An idle
    /// worker watches a busy worker's shard, and polls its own before looking elsewhere, only
    /// if so: a shard with neither delivers nothing but its unparks.
    pub fn may_have_events(&self, shard: usize) -> bool {
        self.has_sources(shard) || (shard == 0 && self.handle.inner.time.may_have_timers())
    }
}

impl fmt::Debug for WorkerDriver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorkerDriver")
            .field("reactor", &self.handle)
            .field("shards", &self.shards())
            .finish()
    }
}

/// The CPU this thread runs on, or `usize::MAX` if the OS does not say.
fn current_cpu() -> usize {
    // SAFETY: `sched_getcpu` has no preconditions.
    let cpu = unsafe { libc::sched_getcpu() };
    usize::try_from(cpu).unwrap_or(usize::MAX)
}
