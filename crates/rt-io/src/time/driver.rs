//! The time driver: the wheel under one lock, the clock, and the reactor's wake-up for timers.
//!
//! One time driver serves a whole reactor, whatever its number of shards. Its timerfd is
//! registered on shard 0 (and, in fallback mode, its `unpark` wakes shard 0's `poll`), but every
//! turn of every shard fires what is due: `turn` calls [`TimeDriver::process`] after each poll,
//! and [`TimeDriver::next_timeout`] bounds each shard's poll timeout.
//!
//! Threads and who does what:
//! - Worker threads create and poll [`Sleep`]s. On first poll a sleep inserts its entry
//!   ([`TimeHandle::insert`]); dropping or resetting an unfired sleep removes it
//!   ([`TimeHandle::remove`]). Both take the lock for an O(1) wheel operation.
//! - Whichever thread takes a reactor turn (a worker driving a shard, or the `rt-io` thread)
//!   calls [`TimeDriver::process`] after its poll: it hands due entries out of the wheel in
//!   batches of [`BATCH`] under the lock and fires them (calls their wakers) with the lock
//!   released, so threads inserting new timers wait at most one short batch. Two turns may
//!   process at once; the lock hands each due entry to one of them.
//!
//! Clock. Time is counted in ticks of `2^TICK_SHIFT` ns (4.096 µs) since the driver started. A
//! deadline rounds up to its tick and "now" rounds down, so a timer never fires before its
//! deadline, and fires at most one tick plus the wake-up latency late.
//!
//! Waking the reactor at the right time. epoll's timeout has millisecond granularity (and mio
//! rounds it up), which would make every sleep up to a millisecond late. So the driver arms a
//! `timerfd` (see `timerfd.rs`) on shard 0 and [`TimeDriver::next_timeout`] returns `None`: a
//! shard blocks until IO, an unpark, or (shard 0) the timerfd wakes it. The invariant, kept under the lock, is that `armed`,
//! the tick the timerfd is armed for, is at or before every deadline in the wheel:
//! - An insert whose deadline is earlier than `armed` (or with nothing armed) re-arms the timerfd
//!   for exactly that deadline, on whichever thread inserts, while it holds the lock. The kernel
//!   then wakes shard 0's `epoll_wait` at the new deadline, so an insert never has to wake a
//!   thread itself, and the common insert (a deadline later than the armed one) costs no syscall
//!   at all. Arming under the lock orders concurrent arms: the last one is for the earliest
//!   deadline.
//! - After firing, `process` arms for the wheel's next deadline: the earliest occupied slot's
//!   start, which is at or before every deadline in it (for a higher level, the moment its timers
//!   cascade down).
//! - A removal leaves `armed` alone: at worst the reactor wakes once for nothing.
//!
//! Latency compensation. Between the timerfd's expiry and the turn running lie the kernel's
//! wake-up of the blocked thread and, on a virtual machine, the host's wake-up of an idle vCPU:
//! 10–150 µs here, depending on how busy the host is, and the same for every runtime. So the
//! driver measures it (how late after the expiry `process` runs, averaged) and sets the timerfd
//! that much ahead of the deadline (at most [`MAX_LEAD`]). Woken early, `process` spins the rest
//! of the way to the deadline instead of sleeping again; since the lead is the average latency,
//! the spin is only the latency's jitter. Timers still fire only once their tick has come. Only
//! a thread that blocked for its turn measures the latency or spins: a busy worker's turn finds
//! the timerfd expired because it was running tasks, and its tasks must not wait behind a spin.
//!
//! Should the timerfd be unavailable (creation or arming fails), the driver falls back to epoll's
//! timeout: `next_timeout` returns the time to the next deadline and an insert of an earlier
//! deadline calls `unpark` to make shard 0 recompute it. Timers then fire up to a millisecond
//! late, never early.
//!
//! Shutdown. [`TimeDriver::shutdown`] fires every pending timer with the shutdown mark and refuses
//! new ones. As in tokio, a sleep that is polled after its driver shut down panics with
//! [`SHUTDOWN_PANIC`]: a runtime being torn down should not run timed logic as though time had
//! passed. That holds for a sleep whose deadline had passed too (first polled after the
//! shutdown, or fired before it and polled after): the poll that would complete it reads the
//! shutdown flag (`TimeHandle::is_shut_down`, one load, on that path only).
//!
//! [`Sleep`]: super::Sleep

use std::fmt;
use std::io;
use std::time::{Duration, Instant};

use rt_core::sync::{Arc, AtomicBool, Mutex, MutexGuard, Ordering};

use super::clock::Clock;
use super::entry::{Entry, Fired};
use super::stage::Stages;
use super::timerfd::TimerFd;
use super::wheel::{Key, Wheel};

/// One wheel tick is `2^TICK_SHIFT` ns: 4.096 µs.
const TICK_SHIFT: u32 = 12;

use crate::tuning::{BUSY_REARM, LOCK_SPINS, MAX_LEAD, TIMER_BATCH as BATCH};

/// The panic message of a timer used after its driver shut down. It opens with tokio's sentence,
/// which ported code matches on.
pub(crate) const SHUTDOWN_PANIC: &str = "A Tokio 1.x context was found, but it is being shutdown. \
     (timer error: the rt runtime's time driver has shut down; a sleep, timeout or interval was \
     polled after its runtime shut down)";

/// The time driver, owned by the reactor. See the module docs.
pub(crate) struct TimeDriver {
    handle: TimeHandle,
}

/// A reference to the time driver, held by every timer.
///
/// Two levels of counting: the timers (`Timers`) are counted once per [`Counted`], and each
/// thread that enters the runtime gets a `Counted` of its own (`for_thread`, through
/// [`TimeHandle::current`]), which the sleeps made on that thread clone. A sleep per request
/// (hyper's header-read timeout) then bumps a count only its thread touches, not one that every
/// worker bumps and whose cache line would move between their CPUs on each sleep (that clone
/// was 0.7 % of a hyper server's samples, nearly all of it the line's transfer).
#[derive(Clone)]
pub(crate) struct TimeHandle {
    inner: Arc<Counted>,
}

/// One thread's count of references to the timers (see [`TimeHandle`]).
struct Counted {
    timers: Arc<Timers>,
}

impl std::ops::Deref for Counted {
    type Target = Timers;

    fn deref(&self) -> &Timers {
        &self.timers
    }
}

/// The timers of one reactor: the wheel, the clock and the timerfd, shared by every
/// [`TimeHandle`].
struct Timers {
    /// Tick 0.
    start: Instant,
    locked: Mutex<Locked>,
    /// `None` if it could not be created; then `use_timerfd` is false.
    timerfd: Option<TimerFd>,
    /// Whether the timerfd wakes the reactor. Cleared (under the lock) if arming it ever fails.
    use_timerfd: AtomicBool,
    /// Set once, under the lock, by [`TimeDriver::shutdown`]: inserts (under the lock) are
    /// refused from then on, and a sleep about to complete reads it without the lock.
    shutdown: AtomicBool,
    /// Wakes a shard's `poll`: shard 0's in fallback mode, and any shard for staging's rule 4.
    unpark: std::sync::Arc<dyn Fn(usize) + Send + Sync>,
    /// "Now" for every timer of this reactor: std's clock, or the paused one
    /// (`clock.rs`). While paused the timerfd is never armed: the clock moves only by
    /// `advance` and auto-advance, which fire what they pass themselves.
    clock: Clock,
    /// Far-off timers kept off the wheel, one stage per worker (`stage.rs`).
    stages: Stages,
    /// Whether the wheel held timers when its lock was last let go (written by [`LockedGuard`]'s
    /// drop): read without the lock by idle workers deciding whether shard 0 (the timerfd's)
    /// needs watching while its owner is busy.
    pending: AtomicBool,
}

/// The wheel's lock held; letting it go records whether the wheel holds timers
/// ([`Timers::pending`]).
struct LockedGuard<'a> {
    guard: MutexGuard<'a, Locked>,
    pending: &'a AtomicBool,
}

impl std::ops::Deref for LockedGuard<'_> {
    type Target = Locked;
    fn deref(&self) -> &Locked {
        &self.guard
    }
}

impl std::ops::DerefMut for LockedGuard<'_> {
    fn deref_mut(&mut self) -> &mut Locked {
        &mut self.guard
    }
}

impl Drop for LockedGuard<'_> {
    fn drop(&mut self) {
        // Written only when it changes: idle workers read it, and a store on every release
        // would take the line from them each time.
        let pending = self.guard.wheel.len() > 0;
        if self.pending.load(Ordering::Relaxed) != pending {
            self.pending.store(pending, Ordering::Relaxed);
        }
    }
}

struct Locked {
    wheel: Wheel,
    /// The tick by which the reactor will wake for timers: the timerfd's expiry, or in fallback
    /// mode the poll timeout last handed out. `None`: no wake-up planned. Invariant: at or before
    /// every deadline in the wheel.
    armed: Option<u64>,
    /// The timerfd expired (or is about to) and its expiration has not been read yet.
    unread: bool,
    /// How much earlier than a deadline the timerfd is set to expire: the recent wake-up
    /// latency (an average of how late the reactor got to run after the timerfd expired), at
    /// most [`MAX_LEAD`]. See "Latency compensation" in the module docs.
    lead: Duration,
    /// When the armed timerfd expires (the deadline minus `lead`).
    expires: Option<Instant>,
}

/// The outcome of [`TimeHandle::insert`].
#[derive(Debug)]
pub(crate) enum Insert {
    /// In the wheel under this key.
    Registered(Key),
    /// The deadline has passed: the entry was not stored.
    Due,
    /// The driver has shut down: the entry was not stored.
    Shutdown,
}

impl TimeDriver {
    /// Creates the driver of a reactor with `shards` shards driven by `workers` workers (their
    /// stages, `stage.rs`). Its timerfd is registered in `registry` (shard 0's) under `token`;
    /// `unpark(k)` wakes shard `k`'s `poll`.
    pub(crate) fn new(
        registry: &mio::Registry,
        token: mio::Token,
        unpark: std::sync::Arc<dyn Fn(usize) + Send + Sync>,
        layout: (usize, usize),
        reactor: u64,
    ) -> io::Result<TimeDriver> {
        TimeDriver::build(registry, token, unpark, true, layout, reactor)
    }

    /// `new`, or with `timerfd: false` the fallback mode (epoll timeouts and unparks).
    fn build(
        registry: &mio::Registry,
        token: mio::Token,
        unpark: std::sync::Arc<dyn Fn(usize) + Send + Sync>,
        timerfd: bool,
        (workers, shards): (usize, usize),
        reactor: u64,
    ) -> io::Result<TimeDriver> {
        let start = Instant::now();
        let timerfd = if timerfd {
            TimerFd::new(registry, token).ok()
        } else {
            None
        };
        Ok(TimeDriver {
            handle: TimeHandle {
                inner: Arc::new(Counted {
                    timers: Arc::new(Timers {
                        start,
                        locked: Mutex::new(Locked {
                            wheel: Wheel::new(),
                            armed: None,
                            unread: false,
                            lead: Duration::ZERO,
                            expires: None,
                        }),
                        use_timerfd: AtomicBool::new(timerfd.is_some()),
                        shutdown: AtomicBool::new(false),
                        timerfd,
                        unpark: unpark.clone(),
                        clock: Clock::new(),
                        stages: Stages::new(workers, shards, reactor, start, unpark),
                        pending: AtomicBool::new(false),
                    }),
                }),
            },
        })
    }

    /// A handle for timers to register with.
    pub(crate) fn handle(&self) -> TimeHandle {
        self.handle.clone()
    }

    /// The longest a shard may block in poll before timers need it: `None` (forever) when the
    /// timerfd will wake shard 0, or when no timer is pending.
    pub(crate) fn next_timeout(&self) -> Option<Duration> {
        let inner = &*self.handle.inner;
        if inner.use_timerfd.load(Ordering::Acquire) || inner.clock.is_paused() {
            return None;
        }
        let mut locked = inner.lock();
        let next = locked.wheel.next_deadline();
        locked.armed = next;
        next.map(|tick| {
            inner
                .instant_of(tick)
                .saturating_duration_since(inner.clock.now())
        })
    }

    /// Fires every timer whose deadline has passed, and arms the timerfd for the next one. Called
    /// after every poll of every shard, by the thread that took the turn, inside
    /// `rt_core::batch::batch`. `waited`: the thread blocked for this turn, so it has nothing
    /// else to do and may spin to a deadline it was woken early for; a busy thread never spins
    /// (its tasks would wait behind the spin), it arms the timerfd for the deadline instead.
    pub(crate) fn process(&self, waited: bool) {
        let inner = &*self.handle.inner;
        let mut spun = Duration::ZERO;
        let mut due: Vec<Arc<Entry>> = Vec::new();
        'wake: loop {
            let now_instant = inner.clock.now();
            // Rule P7 (`clock.rs`). Paused, the clock stands on exact instants (`advance` by
            // whole seconds) that rarely fall on a tick: fire the tick it stands in, so that a timer due at exactly
            // that instant fires. One in the same tick but later than the clock fires up to a
            // tick early; its `Sleep` then moves the paused clock on to its deadline (never
            // early on the clock it reads).
            let now = if inner.clock.is_paused() {
                inner.tick_ceil(now_instant)
            } else {
                inner.tick_floor(now_instant)
            };
            loop {
                let (more, spin_to) = {
                    let mut locked = inner.lock();
                    // The planned wake-up has come: the timerfd's expiry (set `lead` ahead of
                    // the armed tick), or in fallback mode the armed tick.
                    let expired = match locked.expires {
                        Some(expires) => expires <= now_instant,
                        None => locked.armed.is_some_and(|armed| armed <= now),
                    };
                    let mut expiry = None;
                    if expired {
                        locked.armed = None;
                        expiry = locked.expires.take();
                        locked.unread = inner.use_timerfd.load(Ordering::Relaxed);
                    }
                    let mut fired = false;
                    if locked.unread && inner.timerfd.as_ref().is_some_and(TimerFd::drain) {
                        locked.unread = false;
                        fired = true;
                        // Only a blocked thread's lateness is wake-up latency; a busy one's is
                        // the length of its tasks.
                        if let Some(expires) = expiry.filter(|_| waited) {
                            let late = now_instant.saturating_duration_since(expires);
                            locked.lead = next_lead(locked.lead, late);
                        }
                    }
                    while due.len() < BATCH {
                        match locked.wheel.poll(now) {
                            Some(entry) => due.push(entry),
                            None => break,
                        }
                    }
                    let more = due.len() == BATCH;
                    let mut spin_to = None;
                    if !more {
                        if let Some(next) = locked.wheel.next_deadline() {
                            let at = inner.instant_of(next);
                            let wait = at.saturating_duration_since(now_instant);
                            // Woken early on purpose: spin the rest rather than sleep again.
                            if waited
                                && fired
                                && next > now
                                && wait <= locked.lead
                                && spun + wait <= MAX_LEAD
                                && !inner.clock.is_paused()
                            {
                                spin_to = Some(at);
                            } else if locked.armed != Some(next) {
                                // A timerfd that expires at once wakes the threads blocked on
                                // it for timers a busy caller fires in its own next turn.
                                let min = if waited { Duration::ZERO } else { BUSY_REARM };
                                inner.arm(&mut locked, next, min);
                            }
                        }
                    }
                    (more, spin_to)
                };
                for entry in due.drain(..) {
                    entry.fire(false);
                }
                if let Some(at) = spin_to {
                    let from = Instant::now();
                    while inner.clock.now() < at {
                        std::hint::spin_loop();
                    }
                    spun += from.elapsed();
                    continue 'wake;
                }
                if !more {
                    return;
                }
            }
        }
    }

    /// Auto-advance (rules P2 and P4 in `clock.rs`): moves the paused clock to the wheel's next deadline and
    /// fires what is due. Returns `false` when there is no timer to jump to (or the clock is
    /// not paused). Called by the thread that decided that nothing can make progress, inside
    /// `rt_core::batch::batch`.
    pub(crate) fn auto_advance(&self) -> bool {
        let inner = &*self.handle.inner;
        let next = inner.lock().wheel.next_deadline();
        let Some(tick) = next else { return false };
        // To the first instant of the tick, not its end: `process` fires the tick the paused
        // clock stands in, and each `Sleep` it wakes moves the clock on to its own deadline, so
        // the clock stops at exact deadlines (a 500 ms sleep reads 500 ms, as on tokio).
        if !inner.clock.advance_to(inner.first_instant_of(tick)) {
            return false;
        }
        self.process(false);
        true
    }

    /// Makes the thread worker `worker`, as `Handle::bind_worker` does (tests drive the
    /// timers without a reactor).
    #[cfg(test)]
    fn bind_worker(&self, worker: usize) {
        crate::handle::bind_worker(self.handle.inner.stages.reactor(), worker);
    }

    /// Staging rule 1 for a turn of `shard` (`stage.rs`): see [`TimeHandle::flush_stage`].
    pub(crate) fn flush_stage(&self, shard: usize) -> Option<Duration> {
        self.handle.flush_stage(shard, false)
    }

    /// Whether any timer is pending.
    pub(crate) fn has_timers(&self) -> bool {
        self.handle.inner.lock().wheel.len() > 0
    }

    /// Whether the wheel held timers when its lock was last let go: one relaxed load, possibly
    /// stale (a hint for idle workers; `has_timers` is exact).
    pub(crate) fn may_have_timers(&self) -> bool {
        self.handle.inner.pending.load(Ordering::Relaxed)
    }

    /// Whether the clock is paused (a relaxed load).
    pub(crate) fn is_paused(&self) -> bool {
        self.handle.inner.clock.is_paused()
    }

    /// Fires every pending timer with the shutdown mark; timers registered later panic when
    /// polled (see the module docs).
    pub(crate) fn shutdown(&self) {
        let mut all = Vec::new();
        {
            let mut locked = self.handle.inner.lock();
            self.handle.inner.shutdown.store(true, Ordering::Release);
            locked.wheel.drain(|entry| all.push(entry));
        }
        // Staging rule 3: nothing is staged from here on, and what was staged fires too.
        all.extend(self.handle.inner.stages.close());
        for entry in all {
            entry.fire(true);
        }
    }
}

impl TimeHandle {
    /// The time driver of the thread's current runtime.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime (with the reactor handle's message), and in one built without
    /// timers (`ReactorConfig::enable_time`).
    #[track_caller]
    pub(crate) fn current() -> TimeHandle {
        match crate::handle::current_time() {
            Some(Some(t)) => t,
            Some(None) => panic!("{}", rt_core::messages::TIME_DISABLED),
            // `Handle::current`'s panic, with its message.
            None => crate::Handle::current().time().handle(),
        }
    }

    /// A handle to the same timers with a reference count of its own, for one thread (see
    /// [`TimeHandle`]).
    pub(crate) fn for_thread(&self) -> TimeHandle {
        TimeHandle {
            inner: Arc::new(Counted {
                timers: self.inner.timers.clone(),
            }),
        }
    }

    /// Whether the driver has shut down ([`TimeDriver::shutdown`]): a sleep polled now panics
    /// with [`SHUTDOWN_PANIC`] rather than complete.
    pub(crate) fn is_shut_down(&self) -> bool {
        self.inner.shutdown.load(Ordering::Acquire)
    }

    /// The clock of these timers.
    pub(crate) fn clock(&self) -> &Clock {
        &self.inner.clock
    }

    /// Now, on these timers' clock.
    pub(crate) fn now(&self) -> Instant {
        self.inner.clock.now()
    }

    /// Pauses the clock and disarms the reactor's timer wake-up (see `clock.rs`).
    ///
    /// # Panics
    /// When already paused.
    #[track_caller]
    pub(crate) fn pause(&self) {
        let inner = &*self.inner;
        let mut locked = inner.lock();
        inner.clock.pause();
        // No real-time wake-up while paused; an expiration already on its way is drained by
        // the next `process`.
        locked.armed = None;
        locked.expires = None;
        locked.unread = inner.use_timerfd.load(Ordering::Relaxed);
        drop(locked);
        // Staging rule 3: the clock is paused, so nothing is staged from here on; move what
        // is into the wheel, where auto-advance and `advance` see it.
        for shard in 0..inner.stages.shards() {
            self.flush_stage(shard, true);
        }
    }

    /// Lets the clock run again and plans the reactor's wake-up for the next timer.
    ///
    /// # Panics
    /// When not paused.
    #[track_caller]
    pub(crate) fn resume(&self) {
        let inner = &*self.inner;
        let unpark = {
            let mut locked = inner.lock();
            inner.clock.resume();
            locked.armed = None;
            match locked.wheel.next_deadline() {
                Some(next) => inner.arm(&mut locked, next, Duration::ZERO),
                None => false,
            }
        };
        if unpark {
            (inner.unpark)(0);
        }
    }

    /// `advance`: moves the paused clock to `target`, firing the timers it passes in deadline
    /// order, each with the clock at its deadline.
    pub(crate) fn advance_to(&self, target: Instant) {
        let inner = &*self.inner;
        let driver = TimeDriver {
            handle: self.clone(),
        };
        loop {
            let next = inner.lock().wheel.next_deadline();
            match next.map(|tick| inner.first_instant_of(tick)) {
                Some(at) if at <= target => {
                    inner.clock.advance_to(at);
                    rt_core::batch::batch(|| driver.process(false));
                }
                _ => break,
            }
        }
        inner.clock.advance_to(target);
        rt_core::batch::batch(|| driver.process(false));
    }

    /// Stores `entry` to fire at `deadline`.
    pub(crate) fn insert(&self, deadline: Instant, entry: Arc<Entry>) -> Insert {
        let inner = &*self.inner;
        let (insert, unpark) = inner.insert_locked(&mut inner.lock(), deadline, entry);
        if unpark {
            (inner.unpark)(0);
        }
        insert
    }

    /// Removes the entry inserted under `key`, if the wheel still holds it (it does not once it
    /// has been handed out to fire).
    pub(crate) fn remove(&self, key: Key, entry: &Arc<Entry>) {
        self.inner.lock().wheel.remove(key, entry);
    }

    /// Stages `entry` instead of inserting it (`stage.rs`), if its deadline is far enough
    /// ahead of `now` and this thread is a worker of this reactor: returns its stage.
    pub(crate) fn stage(
        &self,
        deadline: Instant,
        now: Instant,
        entry: &Arc<Entry>,
    ) -> Option<usize> {
        let inner = &*self.inner;
        inner
            .stages
            .stage(deadline, now, || inner.clock.is_paused(), entry)
    }

    /// Takes a staged sleep's entry out of the timers (staging rule 2): out of stage `stage`,
    /// or, if a flush moved it, out of the wheel.
    pub(crate) fn unstage(&self, stage: usize, entry: &Arc<Entry>) {
        // As for a registered sleep: a fired entry is in no wheel (nor stage) any more.
        if !self.inner.stages.unstage(stage, entry) && entry.fired() == Fired::No {
            let mut locked = self.inner.lock();
            // The flush wrote the key under this lock; `remove` checks that the node holds this
            // very entry, so an entry fired (and so removed) meanwhile is left alone.
            locked.wheel.remove(entry.key(), entry);
        }
    }

    /// Staging rule 1 for a turn of `shard`: moves its stages' entries that are due soon (all
    /// of them if `all`) into the wheel. Returns how long the turn may block before the next
    /// one is due.
    pub(crate) fn flush_stage(&self, shard: usize, all: bool) -> Option<Duration> {
        let inner = &*self.inner;
        let mut fire = Vec::new();
        let mut unpark = false;
        let next = inner.stages.flush(shard, inner.clock.now(), all, |due| {
            let mut locked = inner.lock();
            for (deadline, entry) in due {
                let held = entry.clone();
                let (insert, u) = inner.insert_locked(&mut locked, deadline, entry);
                unpark |= u;
                match insert {
                    Insert::Registered(key) => held.set_key(key),
                    Insert::Due => fire.push((held, false)),
                    Insert::Shutdown => fire.push((held, true)),
                }
            }
        });
        for (entry, shutdown) in fire {
            entry.fire(shutdown);
        }
        if unpark {
            (inner.unpark)(0);
        }
        next
    }
}

/// The new lead after a wake-up `late` behind the timerfd's expiry: an average over about
/// eight wakes, each sample capped so one stall (a busy driver thread) cannot swing it far.
fn next_lead(lead: Duration, late: Duration) -> Duration {
    let late = late.min(2 * MAX_LEAD);
    ((lead * 7 + late) / 8).min(MAX_LEAD)
}

impl Timers {
    fn lock(&self) -> LockedGuard<'_> {
        // A panic under this lock leaves the wheel consistent (no user code runs under it).
        LockedGuard {
            guard: self.lock_spinning(),
            pending: &self.pending,
        }
    }

    /// The wheel lock, spinning up to `LOCK_SPINS` tries before blocking: its holds are short
    /// (a few wheel operations, at most one `timerfd` call), so the holder lets go sooner than
    /// a sleeping waiter could be woken (a `futex` sleep and wake-up, two context switches).
    fn lock_spinning(&self) -> MutexGuard<'_, Locked> {
        for i in 0..LOCK_SPINS {
            match self.locked.try_lock() {
                Ok(guard) => return guard,
                Err(std::sync::TryLockError::Poisoned(e)) => return e.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {}
            }
            for _ in 0..(1u32 << i.min(6)) {
                rt_core::sync::spin_loop();
            }
        }
        self.locked.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// [`TimeHandle::insert`] under the lock; the `bool` says whether to unpark the reactor
    /// (after letting go of the lock).
    fn insert_locked(
        &self,
        locked: &mut Locked,
        deadline: Instant,
        entry: Arc<Entry>,
    ) -> (Insert, bool) {
        if self.shutdown.load(Ordering::Relaxed) {
            // Relaxed: set under the lock we hold.
            return (Insert::Shutdown, false);
        }
        let when = self.tick_ceil(deadline);
        let key = match locked.wheel.insert(when, entry) {
            Ok(key) => key,
            Err(_) => return (Insert::Due, false),
        };
        if locked.armed.is_some_and(|armed| armed <= when) {
            return (Insert::Registered(key), false);
        }
        (
            Insert::Registered(key),
            self.arm(locked, when, Duration::ZERO),
        )
    }

    /// Plans the reactor's wake-up for `tick`: arms the timerfd, or in fallback mode asks for an
    /// unpark (returns `true`) so that the reactor recomputes its poll timeout. The timerfd
    /// expires no sooner than `min_after` from now.
    fn arm(&self, locked: &mut Locked, tick: u64, min_after: Duration) -> bool {
        locked.armed = Some(tick);
        if self.clock.is_paused() {
            // Paused: real time brings nothing due (see `clock.rs`).
            locked.armed = None;
            return false;
        }
        if self.use_timerfd.load(Ordering::Relaxed) {
            let fd = self
                .timerfd
                .as_ref()
                .expect("use_timerfd implies a timerfd");
            let now = self.clock.now();
            let after = self
                .instant_of(tick)
                .saturating_duration_since(now)
                .saturating_sub(locked.lead)
                .max(min_after);
            if fd.arm(after).is_ok() {
                locked.unread = false;
                locked.expires = Some(now + after);
                return false;
            }
            self.use_timerfd.store(false, Ordering::Release);
        }
        true
    }

    /// The first tick at or after `t`.
    fn tick_ceil(&self, t: Instant) -> u64 {
        let nanos = t.saturating_duration_since(self.start).as_nanos();
        let ticks = nanos.div_ceil(1 << TICK_SHIFT);
        u64::try_from(ticks).unwrap_or(u64::MAX)
    }

    /// The last tick at or before `t`.
    fn tick_floor(&self, t: Instant) -> u64 {
        let nanos = t.saturating_duration_since(self.start).as_nanos();
        u64::try_from(nanos >> TICK_SHIFT).unwrap_or(u64::MAX)
    }

    /// The earliest instant whose `tick_ceil` is `tick`: where paused time stands to fire it.
    fn first_instant_of(&self, tick: u64) -> Instant {
        match tick.checked_sub(1) {
            Some(before) => self.instant_of(before) + Duration::from_nanos(1),
            None => self.start,
        }
    }

    fn instant_of(&self, tick: u64) -> Instant {
        let nanos = u64::try_from(u128::from(tick) << TICK_SHIFT).unwrap_or(u64::MAX);
        self.start
            .checked_add(Duration::from_nanos(nanos))
            .unwrap_or_else(|| self.start + super::sleep::FAR_FUTURE)
    }
}

impl fmt::Debug for TimeDriver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.handle.fmt(f)
    }
}

impl fmt::Debug for TimeHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &*self.inner;
        let mut d = f.debug_struct("TimeDriver");
        d.field("start", &inner.start)
            .field("timerfd", &inner.use_timerfd.load(Ordering::Relaxed));
        if let Ok(locked) = inner.locked.try_lock() {
            d.field("timers", &locked.wheel.len())
                .field("elapsed_ticks", &locked.wheel.elapsed())
                .field("armed_tick", &locked.armed);
        }
        d.field("shutdown", &inner.shutdown.load(Ordering::Relaxed));
        d.finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::mpsc;
    use std::task::{Wake, Waker};
    use std::thread::JoinHandle;

    use rt_core::sync::Mutex;

    use super::*;

    /// Long enough that only a broken driver (a lost wake-up) reaches it.
    const WATCHDOG: Duration = Duration::from_secs(20);

    /// A reactor of our own: a `mio::Poll` driven on a thread, as `reactor.rs` drives it.
    struct Harness {
        driver: Arc<TimeDriver>,
        waker: std::sync::Arc<mio::Waker>,
        stop: Arc<AtomicBool>,
        thread: Option<JoinHandle<()>>,
    }

    impl Harness {
        fn start(timerfd: bool) -> Harness {
            let mut poll = mio::Poll::new().unwrap();
            let waker =
                std::sync::Arc::new(mio::Waker::new(poll.registry(), mio::Token(0)).unwrap());
            let unpark: std::sync::Arc<dyn Fn(usize) + Send + Sync> = {
                let waker = waker.clone();
                std::sync::Arc::new(move |_| waker.wake().unwrap())
            };
            let driver = Arc::new(
                TimeDriver::build(
                    poll.registry(),
                    mio::Token(1),
                    unpark,
                    timerfd,
                    (1, 1),
                    crate::handle::next_reactor_id(),
                )
                .unwrap(),
            );
            assert_eq!(
                driver.handle.inner.use_timerfd.load(Ordering::Relaxed),
                timerfd
            );
            let stop = Arc::new(AtomicBool::new(false));
            let thread = {
                let (driver, stop) = (driver.clone(), stop.clone());
                std::thread::spawn(move || {
                    let mut events = mio::Events::with_capacity(16);
                    while !stop.load(Ordering::Acquire) {
                        poll.poll(&mut events, driver.next_timeout()).unwrap();
                        rt_core::batch::batch(|| driver.process(true));
                    }
                })
            };
            Harness {
                driver,
                waker,
                stop,
                thread: Some(thread),
            }
        }
    }

    impl Drop for Harness {
        fn drop(&mut self) {
            self.stop.store(true, Ordering::Release);
            self.waker.wake().unwrap();
            self.thread.take().unwrap().join().unwrap();
        }
    }

    /// Sends `(id, when woken)` on each wake.
    struct Report(usize, Mutex<mpsc::Sender<(usize, Instant)>>);

    impl Wake for Report {
        fn wake(self: std::sync::Arc<Self>) {
            let _ = self.1.lock().unwrap().send((self.0, Instant::now()));
        }
    }

    fn reporting(id: usize, tx: &mpsc::Sender<(usize, Instant)>) -> Arc<Entry> {
        let waker = Waker::from(std::sync::Arc::new(Report(id, Mutex::new(tx.clone()))));
        Arc::new(Entry::new(Some(waker)))
    }

    #[test]
    fn lead_follows_the_wake_latency_within_bounds() {
        let mut lead = Duration::ZERO;
        for _ in 0..64 {
            lead = next_lead(lead, Duration::from_micros(40));
        }
        assert!(lead > Duration::from_micros(35) && lead <= Duration::from_micros(40));
        // A stall moves it by at most an eighth of the cap, and it never passes MAX_LEAD.
        let after_stall = next_lead(lead, Duration::from_secs(1));
        assert!(after_stall <= lead + 2 * MAX_LEAD / 8);
        for _ in 0..64 {
            lead = next_lead(lead, Duration::from_secs(1));
        }
        assert_eq!(lead, MAX_LEAD);
    }

    fn fires_in_order_never_early(timerfd: bool) {
        let h = Harness::start(timerfd);
        let time = h.driver.handle();
        let (tx, rx) = mpsc::channel();
        // Deadlines from 20 ms on: the five inserts are done long before the first is due,
        // however slow the machine (a deadline already past would be `Insert::Due`).
        let base = Instant::now() + Duration::from_millis(20);
        // Inserted latest first, so each insert is the earliest so far and re-arms.
        let offsets_us = [3000u64, 1500, 700, 200, 50];
        for (id, us) in offsets_us.iter().enumerate() {
            let deadline = base + Duration::from_micros(*us);
            let entry = reporting(id, &tx);
            assert!(matches!(
                time.insert(deadline, entry),
                Insert::Registered(_)
            ));
        }
        let mut order = Vec::new();
        for _ in 0..offsets_us.len() {
            let (id, at) = rx.recv_timeout(WATCHDOG).expect("timer fired");
            assert!(
                at >= base + Duration::from_micros(offsets_us[id]),
                "timer {id} early"
            );
            order.push(id);
        }
        assert_eq!(order, [4, 3, 2, 1, 0], "deadline order");
    }

    /// Staging rules 1 and 2 (`stage.rs`) on a bound thread: a far entry is staged, not in the
    /// wheel; unstaged from the stage it never reaches the wheel; flushed (all, as `pause`
    /// does) it is in the wheel under the key written into it, and unstaging then removes it
    /// from the wheel.
    #[test]
    fn staged_entries_leave_by_the_stage_or_by_the_wheel() {
        let h = Harness::start(true);
        let time = h.driver.handle();
        let (tx, _rx) = mpsc::channel();
        let now = Instant::now();
        let far = now + Duration::from_secs(30);
        let entry = reporting(0, &tx);
        assert_eq!(
            time.stage(far, now, &entry),
            None,
            "an unbound thread does not stage"
        );
        h.driver.bind_worker(0);
        assert_eq!(
            time.stage(now + Duration::from_millis(10), now, &entry),
            None,
            "too near"
        );
        assert_eq!(time.stage(far, now, &entry), Some(0));
        assert!(!h.driver.has_timers(), "staged, not in the wheel");
        let next = h.driver.flush_stage(0).expect("one staged entry");
        assert!(
            next > Duration::from_secs(29) - crate::time::stage::FLUSH_AHEAD,
            "{next:?}"
        );
        time.unstage(0, &entry);
        assert!(!h.driver.has_timers(), "left from the stage");
        assert_eq!(
            std::sync::Arc::strong_count(&entry),
            1,
            "the stage let go of it"
        );

        assert_eq!(time.stage(far, now, &entry), Some(0));
        assert_eq!(time.flush_stage(0, true), None, "nothing left staged");
        assert!(h.driver.has_timers(), "flushed into the wheel");
        time.unstage(0, &entry);
        assert!(
            !h.driver.has_timers(),
            "left from the wheel, by the key the flush wrote"
        );
        assert_eq!(entry.fired(), Fired::No);
        assert_eq!(
            std::sync::Arc::strong_count(&entry),
            1,
            "the wheel let go of it"
        );
    }

    #[test]
    fn timerfd_fires_in_deadline_order_never_early() {
        fires_in_order_never_early(true);
    }

    #[test]
    fn poll_timeout_fallback_fires_in_deadline_order_never_early() {
        fires_in_order_never_early(false);
    }

    #[test]
    fn earlier_insert_from_another_thread_rearms() {
        let h = Harness::start(true);
        let time = h.driver.handle();
        let (tx, rx) = mpsc::channel();
        let far = reporting(0, &tx);
        let Insert::Registered(far_key) =
            time.insert(Instant::now() + Duration::from_secs(3600), far.clone())
        else {
            panic!("registered");
        };
        let near_deadline = Instant::now() + Duration::from_micros(300);
        std::thread::spawn({
            let (time, tx) = (time.clone(), tx.clone());
            move || {
                assert!(matches!(
                    time.insert(near_deadline, reporting(1, &tx)),
                    Insert::Registered(_)
                ))
            }
        })
        .join()
        .unwrap();
        let (id, at) = rx.recv_timeout(WATCHDOG).expect("near timer fired");
        assert_eq!(id, 1);
        assert!(at >= near_deadline);
        assert!(
            far.cancel().is_some(),
            "the far timer's waker was never taken"
        );
        time.remove(far_key, &far);
    }

    #[test]
    fn removed_entry_never_fires() {
        let h = Harness::start(true);
        let time = h.driver.handle();
        let (tx, rx) = mpsc::channel();
        let doomed = reporting(0, &tx);
        let Insert::Registered(key) =
            time.insert(Instant::now() + Duration::from_micros(200), doomed.clone())
        else {
            panic!("registered");
        };
        assert!(doomed.cancel().is_some());
        time.remove(key, &doomed);
        let later = Instant::now() + Duration::from_millis(2);
        assert!(matches!(
            time.insert(later, reporting(1, &tx)),
            Insert::Registered(_)
        ));
        let (id, _) = rx.recv_timeout(WATCHDOG).expect("later timer fired");
        assert_eq!(id, 1, "only the kept timer fires");
        assert_eq!(doomed.fired(), Fired::No);
        assert_eq!(
            h.driver.handle.inner.lock().wheel.len(),
            0,
            "nothing left in the wheel"
        );
    }

    #[test]
    fn past_deadline_is_due_at_once() {
        let h = Harness::start(true);
        let time = h.driver.handle();
        let entry = Arc::new(Entry::new(None));
        let past = Instant::now() - Duration::from_millis(1);
        // Before the wheel advanced past it, a past deadline is stored and fired at the next turn;
        // once the wheel has advanced, it is reported due. Both complete without waiting.
        h.driver.process(false);
        match time.insert(past, entry.clone()) {
            Insert::Due => {}
            other => panic!("expected Due, got {other:?}"),
        }
    }

    #[test]
    fn shutdown_fires_pending_and_refuses_new() {
        let h = Harness::start(true);
        let time = h.driver.handle();
        let (tx, rx) = mpsc::channel();
        let entry = reporting(7, &tx);
        assert!(matches!(
            time.insert(Instant::now() + Duration::from_secs(3600), entry.clone()),
            Insert::Registered(_)
        ));
        h.driver.shutdown();
        assert_eq!(
            rx.recv_timeout(WATCHDOG).unwrap().0,
            7,
            "woken by the shutdown"
        );
        assert_eq!(entry.fired(), Fired::Shutdown);
        let late = Arc::new(Entry::new(None));
        assert!(matches!(
            time.insert(Instant::now() + Duration::from_secs(1), late),
            Insert::Shutdown
        ));
    }
}
