//! The runtime's clock, and paused time for tests: [`pause`], [`resume`], [`advance`], and
//! auto-advance.
//!
//! Each reactor's time driver owns one [`Clock`]. Until it is first paused it is std's
//! monotonic clock. Paused, it stands still at `base`: it moves only by [`advance`] and by
//! auto-advance. Resumed, it runs again from where it stood (`base` plus the real time since
//! the resume), so it never goes backwards.
//!
//! The cost when nothing is paused: [`now`] (behind `rt::time::Instant::now`) is one relaxed
//! load of the process-wide [`DID_PAUSE`] flag and then `std::time::Instant::now()`, kept in a
//! thread-local as the thread's [`recent`] reading; the time driver's own reads are one relaxed
//! load of the clock's `touched` flag more than std's.
//!
//! # Paused time: the rules
//!
//! This list is the one statement of how a paused clock moves; the code that keeps a rule cites
//! it (`rule P3`) in rt-io (`worker_driver.rs`, `handle.rs`, `time/driver.rs`), rt-sched
//! (`multi_thread/mod.rs`, `multi_thread/worker.rs`, `multi_thread/worker/park.rs`,
//! `blocking.rs`, `current_thread.rs`), rt-io's `held.rs` and the facade's `builder.rs`.
//!
//! - **P1 (what moves it).** Paused, the clock moves only by [`advance`] and by auto-advance
//!   (P2); resumed, it runs again from where it stood, so it never goes backwards.
//! - **P2 (when it jumps).** Auto-advance moves the clock to the next timer's deadline and fires
//!   that timer only while nothing in the runtime can make progress: every worker parked with
//!   nothing queued and no wake-up on its way (the scheduler's `all_idle`, P5), no closure of
//!   the blocking pool queued or running, no outside holder (P3) — and only with a timer
//!   pending: without one there is nothing to jump to, and taking the shards (P4) would only
//!   wake their owners, each of which would decide the same (a busy loop).
//! - **P3 (outside holders).** A `block_on` thread holds auto-advance back while it polls its
//!   future and from the moment the future is woken until that poll (`held.rs`'s `Held`,
//!   counted in the clock's `holds`). When the last hold goes while paused, shard 0 is unparked
//!   so that an idle worker decides again; the blocking pool going quiet does the same
//!   (`Handle::poke_auto_advance`).
//! - **P4 (who decides, and how).** A worker about to block decides
//!   (`WorkerDriver::try_drive_idle`), one decision at a time (`advance_lock`). It takes every
//!   shard of the reactor, setting `advancing` so that a thread blocked in one gives way
//!   instead of blocking again; polls each shard without waiting, so IO that is already ready
//!   runs before the clock jumps (tokio's rule; IO not ready yet does not hold the clock
//!   back); asks P2's question again, now that no turn runs anywhere; and only then jumps.
//! - **P5 (the order of the checks).** A unit of work moves between the places P2 looks at:
//!   from a worker to a `block_on` thread (a wake) and back (a spawn), from a worker to the
//!   blocking pool and back (its result wakes a task). The decision reads the outside holders,
//!   the pool, the scheduler (its queues before its unparked count: a task leaves a queue only
//!   into an unparked worker), the pool and the holders again, each with SeqCst or a lock, so
//!   whichever way a unit moves while the checks run, one of the reads sees it.
//! - **P6 (a parked worker's own wakes).** A task that a parked worker's own driver turn wakes
//!   into its LIFO slot, invisible to the other workers, counts in the scheduler's `settling`
//!   from the wake until the worker has left the sleepers list for it.
//! - **P7 (ticks).** The wheel counts 4.096 µs ticks, and `advance(1s)` stops on an instant
//!   that is rarely a tick's edge. Paused, `process` therefore fires the tick the clock stands
//!   in, and a sleep fired that way before its own deadline moves the paused clock on to it:
//!   nobody sees a sleep end before its deadline on the clock they read.
//! - **P8 (who can pause).** Only a reactor the runtime's workers drive can be paused
//!   (`start_paused` with `reactor_thread(true)` is refused): P4 needs the deciding worker to
//!   hold every shard.

use std::time::Duration;

use rt_core::sync::unmodelled;
use rt_core::sync::{AtomicBool, AtomicUsize, Mutex, Ordering};

use super::driver::TimeHandle;

/// Set (never cleared) when any clock in the process is first paused: until then
/// `Instant::now()` need not look for the runtime's clock. A hint outside every protocol
/// (`rt_core::sync::unmodelled`): a thread that misses the store reads std's clock, as it
/// would have a moment earlier.
static DID_PAUSE: unmodelled::AtomicUsize = unmodelled::AtomicUsize::new(0);

/// The panic message of `pause` while paused.
const ALREADY_PAUSED: &str = "time is already frozen: rt::time::pause() was called twice \
     (or on a runtime built with start_paused(true)); call rt::time::resume() first";
/// The panic message of `resume` and `advance` while not paused.
const NOT_PAUSED: &str = "time is not frozen: call rt::time::pause() (or build the runtime \
     with start_paused(true)) before rt::time::resume() or rt::time::advance()";

/// One reactor's clock. See the module docs.
pub(crate) struct Clock {
    /// Paused at least once: `now` must look at `state`.
    touched: AtomicBool,
    /// Paused now (a copy of `state.paused`, for the time driver's cheap checks).
    paused: AtomicBool,
    state: Mutex<State>,
    /// Awake `block_on` threads and other outside holders of auto-advance. Written on every
    /// `block_on` poll, so boxed: away from the flags that every timer and turn reads.
    holds: Box<AtomicUsize>,
}

struct State {
    paused: bool,
    /// Paused: the time. Running: the time at `unfrozen`.
    base: std::time::Instant,
    /// Running after a resume: the real instant of the resume.
    unfrozen: Option<std::time::Instant>,
}

impl Clock {
    pub(crate) fn new() -> Clock {
        Clock {
            touched: AtomicBool::new(false),
            paused: AtomicBool::new(false),
            state: Mutex::new(State {
                paused: false,
                base: std::time::Instant::now(),
                unfrozen: None,
            }),
            holds: Box::new(AtomicUsize::new(0)),
        }
    }

    fn lock(&self) -> rt_core::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Now, on this clock.
    #[inline]
    pub(crate) fn now(&self) -> std::time::Instant {
        if !self.touched.load(Ordering::Relaxed) {
            return std_now();
        }
        let s = self.lock();
        State::now(&s)
    }

    /// Whether the clock was ever paused (a relaxed load): until then it is std's.
    #[inline]
    pub(crate) fn was_paused(&self) -> bool {
        self.touched.load(Ordering::Relaxed)
    }

    /// Whether the clock is paused (a relaxed load).
    #[inline]
    pub(crate) fn is_paused(&self) -> bool {
        self.paused.load(Ordering::Relaxed)
    }

    /// Stops the clock where it stands.
    ///
    /// # Panics
    /// When already paused.
    #[track_caller]
    pub(crate) fn pause(&self) {
        let mut s = self.lock();
        assert!(!s.paused, "{ALREADY_PAUSED}");
        s.base = State::now(&s);
        s.unfrozen = None;
        s.paused = true;
        DID_PAUSE.store(1, unmodelled::Ordering::Relaxed);
        self.touched.store(true, Ordering::Relaxed);
        self.paused.store(true, Ordering::SeqCst);
    }

    /// Lets the clock run again from where it stands.
    ///
    /// # Panics
    /// When not paused.
    #[track_caller]
    pub(crate) fn resume(&self) {
        let mut s = self.lock();
        assert!(s.paused, "{NOT_PAUSED}");
        s.paused = false;
        s.unfrozen = Some(std::time::Instant::now());
        self.paused.store(false, Ordering::SeqCst);
    }

    /// Moves the paused clock forward to `to` (never back). Returns `false` when not paused.
    pub(crate) fn advance_to(&self, to: std::time::Instant) -> bool {
        let mut s = self.lock();
        if !s.paused {
            return false;
        }
        s.base = s.base.max(to);
        true
    }

    /// `now() + by`, checking that the clock is paused.
    ///
    /// # Panics
    /// When not paused.
    #[track_caller]
    pub(crate) fn paused_now_plus(&self, by: Duration) -> std::time::Instant {
        let s = self.lock();
        assert!(s.paused, "{NOT_PAUSED}");
        s.base
            .checked_add(by)
            .unwrap_or_else(|| s.base + super::sleep::FAR_FUTURE)
    }

    /// One more holder of auto-advance.
    pub(crate) fn hold(&self) {
        self.holds.fetch_add(1, Ordering::SeqCst);
    }

    /// One holder fewer; returns whether that was the last one while the clock is paused (the
    /// caller then has an idle worker re-decide).
    pub(crate) fn release(&self) -> bool {
        let prev = self.holds.fetch_sub(1, Ordering::SeqCst);
        debug_assert!(prev > 0, "auto-advance hold released twice");
        prev == 1 && self.is_paused()
    }

    /// Whether nothing outside the scheduler holds auto-advance back.
    pub(crate) fn unheld(&self) -> bool {
        self.holds.load(Ordering::SeqCst) == 0
    }
}

impl State {
    fn now(&self) -> std::time::Instant {
        match self.unfrozen {
            Some(at) if !self.paused => self.base + at.elapsed(),
            _ if self.paused => self.base,
            _ => std::time::Instant::now(),
        }
    }
}

std::thread_local! {
    /// This thread's last reading of std's clock through [`std_now`]. Readings only grow, so
    /// it is a lower bound on now whenever it is read, however old.
    static RECENT: std::cell::Cell<Option<std::time::Instant>> =
        const { std::cell::Cell::new(None) };
}

/// `std::time::Instant::now()`, remembered as this thread's [`recent`] reading.
#[inline]
fn std_now() -> std::time::Instant {
    let now = std::time::Instant::now();
    let _ = RECENT.try_with(|r| r.set(Some(now)));
    now
}

/// This thread's last reading of std's clock by rt's clocks (a clock never paused reads std's):
/// at or before now, possibly long before. `Sleep`'s first poll uses it to spare a clock read
/// when the deadline lies far beyond it (hyper reads the clock just before it makes its
/// per-request header-read sleep).
#[inline]
pub(crate) fn recent() -> Option<std::time::Instant> {
    RECENT.try_with(std::cell::Cell::get).ok().flatten()
}

/// Now on the current runtime's clock; std's outside a runtime.
#[inline]
pub(crate) fn now() -> std::time::Instant {
    if DID_PAUSE.load(unmodelled::Ordering::Relaxed) == 0 {
        return std_now();
    }
    match crate::Handle::try_current() {
        Some(h) => h.time().handle().clock().now(),
        None => std::time::Instant::now(),
    }
}

/// Pauses the current runtime's clock: from now on it moves only by [`advance`] and, when
/// nothing in the runtime can make progress, by jumping to the next timer (auto-advance), so a
/// test of a one-hour timeout runs in milliseconds. [`Instant::now`](super::Instant::now) reads
/// the paused clock.
///
/// Works on both runtime flavours (tokio allows it on the current-thread runtime only): on the
/// multi-thread runtime auto-advance waits until every worker is parked with nothing queued or
/// on its way, no blocking-pool closure runs and no `block_on` thread is awake. IO that is
/// ready is handled before the clock jumps (every reactor shard is polled without waiting
/// first); IO that is not ready yet does not hold the clock back — as in tokio.
///
/// # Panics
///
/// Outside an rt runtime; when the clock is already paused (tokio's behaviour); on a runtime
/// built with `reactor_thread(true)`, whose reactor runs on a thread the workers cannot see
/// into (auto-advance needs the default, worker-driven reactor).
///
/// ```
/// # let rt = rt::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// use std::time::Duration;
/// rt::time::pause();
/// let start = rt::time::Instant::now();
/// rt::time::sleep(Duration::from_secs(3600)).await; // auto-advance: no real hour passes
/// assert!(start.elapsed() >= Duration::from_secs(3600));
/// # });
/// ```
#[track_caller]
pub fn pause() {
    let handle = paused_capable_handle("rt::time::pause");
    handle.time().handle().pause();
}

/// Lets the current runtime's clock run again, from where it stands.
///
/// # Panics
///
/// Outside an rt runtime, or when the clock is not paused.
#[track_caller]
pub fn resume() {
    let handle = current_for("rt::time::resume");
    handle.time().handle().resume();
}

/// Moves the paused clock forward by `duration` (from where it stands at the first poll), firing every timer whose deadline it passes,
/// in deadline order (each with the clock at its deadline), then yields once so the tasks they
/// woke can run. Returns once the clock reads `now + duration`.
///
/// # Panics
///
/// Outside an rt runtime, or when the clock is not paused.
///
/// ```
/// # let rt = rt::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// use std::time::Duration;
/// rt::time::pause();
/// let start = rt::time::Instant::now();
/// rt::time::advance(Duration::from_secs(5)).await;
/// assert_eq!(start.elapsed(), Duration::from_secs(5));
/// # });
/// ```
#[track_caller]
pub fn advance(duration: Duration) -> Advance {
    let handle = current_for("rt::time::advance");
    let time = handle.time().handle();
    // Checked now, for a panic where the call is; the clock moves at the first poll.
    time.clock().paused_now_plus(duration);
    Advance {
        time,
        duration,
        done: false,
        _pinned: std::marker::PhantomPinned,
    }
}

/// Future returned by [`advance`]. `!Unpin`, as tokio's (an `async fn` there).
#[must_use = "futures do nothing unless you `.await` or poll them"]
#[derive(Debug)]
pub struct Advance {
    time: TimeHandle,
    duration: Duration,
    done: bool,
    _pinned: std::marker::PhantomPinned,
}

impl std::future::Future for Advance {
    type Output = ();

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        // SAFETY: no field is pinned, and nothing is moved out.
        let this = unsafe { self.get_unchecked_mut() };
        if this.done {
            return std::task::Poll::Ready(());
        }
        this.done = true;
        let target = this.time.clock().paused_now_plus(this.duration);
        this.time.advance_to(target);
        // Yield once (as tokio's `advance` does), so the tasks the timers woke get to run.
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

#[track_caller]
fn current_for(what: &str) -> crate::Handle {
    match crate::Handle::try_current() {
        Some(h) => h,
        None => panic!(
            "{what} called outside of an rt runtime: time can only be paused, resumed or \
             advanced from inside one (a task, Runtime::block_on, #[rt::test])"
        ),
    }
}

#[track_caller]
fn paused_capable_handle(what: &str) -> crate::Handle {
    let handle = current_for(what);
    assert!(
        handle.workers_drive(),
        "{what}: this runtime's reactor runs on its own thread (Builder::reactor_thread(true)); \
         paused time needs the default reactor that the workers drive, so that auto-advance \
         knows when they are all idle"
    );
    handle
}
