//! [`Sleep`], [`sleep`] and [`sleep_until`]: a future that completes at a deadline.

use std::fmt;
use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll, Waker};
use std::time::Duration;

use super::Instant;

use rt_core::sync::Arc;

use super::driver::{Insert, TimeHandle, SHUTDOWN_PANIC};
use super::entry::{Entry, Fired};
use super::wheel::Key;

/// Waits until `duration` has elapsed. `Duration::MAX` (or any duration that overflows
/// `Instant`) waits about 30 years, which is to say forever.
///
/// No work is done until the returned future is first polled, and the time starts now, not at
/// the first poll. Resolution is a few microseconds: the sleep completes at or after its deadline,
/// usually within tens of microseconds of it on an idle machine.
///
/// # Panics
///
/// Outside an rt runtime.
///
/// ```no_run
/// # async fn f() {
/// rt_io::time::sleep(std::time::Duration::from_millis(10)).await;
/// # }
/// ```
#[track_caller]
///
/// # Cancel safety
/// Cancel safe: dropping a `Sleep` just cancels the timer.
pub fn sleep(duration: Duration) -> Sleep {
    let handle = TimeHandle::current();
    let deadline = Instant::from_std(handle.now()) + safe_delay(duration);
    Sleep::new_in(handle, deadline)
}

/// Waits until `deadline`. A deadline in the past completes at the first poll.
///
/// # Panics
///
/// Outside an rt runtime.
#[track_caller]
///
/// # Cancel safety
/// Cancel safe.
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep::new_in(TimeHandle::current(), deadline)
}

/// About 30 years: how far ahead "never" lies for rt's timers (as in tokio). The one such
/// constant of the workspace: [`far_future`] and the time driver's tick-to-`Instant` overflow
/// use it.
pub(crate) const FAR_FUTURE: Duration = Duration::from_secs(86400 * 365 * 30);

/// [`FAR_FUTURE`] from now on `handle`'s clock: the deadline of a sleep that should never end.
pub(crate) fn far_future(handle: &TimeHandle) -> Instant {
    Instant::from_std(handle.now()) + FAR_FUTURE
}

/// `duration`, at most [`FAR_FUTURE`] (tokio's `safe_delay`): a delay that can be added to now
/// without overflowing `Instant` (`Duration::MAX` means "never").
pub(crate) fn safe_delay(duration: Duration) -> Duration {
    duration.min(FAR_FUTURE)
}

/// Future returned by [`sleep`] and [`sleep_until`].
///
/// The timer is registered with the runtime's time driver when the sleep is first polled, and
/// removed when the sleep is dropped or reset: a dropped sleep never fires, and once its drop has
/// returned its waker is never called.
///
/// `Sleep` is `!Unpin`, as tokio's: pin it (`rt::pin!(sleep)` or `Box::pin`) to poll it by hand
/// or [`reset`](Sleep::reset) it, so code written against tokio's `Sleep` ports unchanged and
/// code written against rt's runs on tokio. (rt's timer entry lives in an `Arc` of its own, so
/// nothing here depends on the address; the marker keeps the two runtimes' contracts one.)
///
/// # Panics
///
/// Polling a sleep after its runtime has shut down panics (as tokio's does), unless the sleep
/// had already completed: whether it was waiting, never polled, or due (its deadline passed,
/// or its timer fired before the shutdown), a poll must not report time as having passed in a
/// runtime being torn down. The message opens with tokio's words ("A Tokio 1.x context was
/// found, but it is being shutdown."). Under the `tokio-face` feature a completed sleep polled
/// again after the shutdown panics too, as tokio's does; rt's own returns `Ready` again.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Sleep {
    deadline: Instant,
    handle: TimeHandle,
    state: State,
    _pinned: PhantomPinned,
}

enum State {
    /// Not in the wheel: never polled, or reset without a waker to carry over.
    Idle,
    /// In the wheel (or handed out of it to fire) under `key`.
    Registered { entry: Arc<Entry>, key: Key },
    /// In worker `stage`'s stage, or moved from there into the wheel (`stage.rs`).
    Staged { entry: Arc<Entry>, stage: usize },
    /// Completed for the current deadline.
    Elapsed,
}

impl Sleep {
    pub(crate) fn new_in(handle: TimeHandle, deadline: Instant) -> Sleep {
        Sleep {
            deadline,
            handle,
            state: State::Idle,
            _pinned: PhantomPinned,
        }
    }

    /// The time driver this sleep registers with.
    pub(crate) fn time_handle(&self) -> &TimeHandle {
        &self.handle
    }

    /// The instant at which the sleep completes.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Whether the deadline has passed: the sleep completed, or its timer fired and the next poll
    /// completes it.
    pub fn is_elapsed(&self) -> bool {
        match &self.state {
            State::Idle => false,
            State::Registered { entry, .. } | State::Staged { entry, .. } => {
                let fired = entry.fired() == Fired::Elapsed;
                if fired {
                    // As the poll that completes it would (tokio-util's `DelayQueue` reads
                    // this and does not poll): nobody sees the sleep end before its deadline.
                    self.catch_up_paused_clock();
                }
                fired
            }
            State::Elapsed => true,
        }
    }

    /// Paused, a timer fires with the clock anywhere in its tick (see the time driver's
    /// `process`): the clock then moves on to the deadline, so that nobody sees the sleep end
    /// before it. Such a timer still in the wheel when the clock resumes may fire up to that
    /// tick early: wait out the rest (under 4.1 µs).
    fn catch_up_paused_clock(&self) {
        let clock = self.handle.clock();
        if clock.was_paused() {
            let deadline = self.deadline.into_std();
            while clock.now() < deadline {
                if clock.advance_to(deadline) {
                    break;
                }
                std::hint::spin_loop();
            }
        }
    }

    /// Moves the deadline to `deadline`, whether or not the sleep has completed. A task waiting
    /// on the sleep stays registered: it is woken at the new deadline (at once if it has passed).
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        // SAFETY: no field of `Sleep` is pinned (the timer entry is an `Arc` of its own), and
        // nothing is moved out of `*this`.
        unsafe { self.get_unchecked_mut() }.reset_unpinned(deadline);
    }

    /// [`reset`](Sleep::reset) for a sleep held in place by its owner (`Interval`): nothing in
    /// a `Sleep` depends on its address, so rt-io's own types poll and reset theirs unpinned.
    pub(crate) fn reset_unpinned(&mut self, deadline: Instant) {
        let this = self;
        let waker = this.deregister();
        this.deadline = deadline;
        let Some(waker) = waker else { return };
        if self_now(&this.handle) >= deadline {
            waker.wake();
            return;
        }
        let entry = new_entry(waker);
        match this.handle.insert(deadline.into_std(), entry.clone()) {
            Insert::Registered(key) => this.state = State::Registered { entry, key },
            Insert::Due => wake_carried(&entry),
            // Stays idle: the next poll reports the shutdown.
            Insert::Shutdown => wake_carried(&entry),
        }
    }

    /// Moves the deadline without keeping the registration: the next poll registers anew. For
    /// [`Interval`](super::Interval), which resets from inside a poll that returns `Ready`.
    pub(crate) fn reset_lazy(&mut self, deadline: Instant) {
        drop(self.deregister());
        self.deadline = deadline;
    }

    /// Takes the timer out of the driver (if registered) and returns its waker, if it still held
    /// one. Leaves the state `Idle`.
    fn deregister(&mut self) -> Option<Waker> {
        match std::mem::replace(&mut self.state, State::Idle) {
            State::Registered { entry, key } => {
                let waker = entry.cancel();
                if entry.fired() == Fired::No {
                    // Still in the wheel, or being handed out: `remove` tells them apart.
                    self.handle.remove(key, &entry);
                }
                recycle(entry);
                waker
            }
            State::Staged { entry, stage } => {
                let waker = entry.cancel();
                // Staging rule 2: out of the stage, or out of the wheel if a flush moved it.
                self.handle.unstage(stage, &entry);
                recycle(entry);
                waker
            }
            State::Idle | State::Elapsed => None,
        }
    }

    fn poll_elapsed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let fired = match &self.state {
            State::Elapsed => {
                // tokio's sleep panics at every poll after the shutdown, a completed one's too.
                #[cfg(feature = "tokio-face")]
                self.panic_if_shut_down();
                return Poll::Ready(());
            }
            State::Idle => {
                let now = recent_lower_bound(&self.handle, self.deadline)
                    .unwrap_or_else(|| self_now(&self.handle));
                if now >= self.deadline {
                    // Due without a registration: the shutdown is not reported by the driver.
                    self.panic_if_shut_down();
                    self.state = State::Elapsed;
                    return Poll::Ready(());
                }
                let entry = new_entry(cx.waker().clone());
                let deadline = self.deadline.into_std();
                if let Some(stage) = self.handle.stage(deadline, now.into_std(), &entry) {
                    self.state = State::Staged { entry, stage };
                    return Poll::Pending;
                }
                match self.handle.insert(deadline, entry.clone()) {
                    Insert::Registered(key) => {
                        self.state = State::Registered { entry, key };
                        return Poll::Pending;
                    }
                    Insert::Due => Fired::Elapsed,
                    Insert::Shutdown => Fired::Shutdown,
                }
            }
            State::Registered { entry, .. } | State::Staged { entry, .. } => match entry.fired() {
                Fired::No => entry.register(cx.waker()),
                fired => fired,
            },
        };
        match fired {
            Fired::No => Poll::Pending,
            Fired::Elapsed => {
                // Fired before the shutdown, polled after it.
                self.panic_if_shut_down();
                // Fired: the wheel no longer holds the entry, so it needs no removal.
                match std::mem::replace(&mut self.state, State::Elapsed) {
                    State::Registered { entry, .. } | State::Staged { entry, .. } => recycle(entry),
                    State::Idle | State::Elapsed => {}
                }
                self.catch_up_paused_clock();
                Poll::Ready(())
            }
            Fired::Shutdown => panic!("{SHUTDOWN_PANIC}"),
        }
    }

    /// A sleep about to complete after its runtime shut down panics instead, as tokio's (see
    /// the type's docs).
    fn panic_if_shut_down(&self) {
        if self.handle.is_shut_down() {
            panic!("{SHUTDOWN_PANIC}");
        }
    }
}

use crate::tuning::ENTRY_CACHE;

rt_core::sync::thread_local! {
    /// Entries of timers that this thread deregistered or completed, each held by nobody else,
    /// ready for the next registration: a sleep registered and dropped per request (hyper's
    /// header-read timeout) then allocates nothing. Not used under loom (`new_entry` and
    /// `recycle` allocate and free there), so the models see the plain protocol.
    static ENTRIES: std::cell::RefCell<Vec<Arc<Entry>>> = std::cell::RefCell::new(Vec::new());
}

/// A fresh entry holding `waker`: one from this thread's cache, or a new allocation.
fn new_entry(waker: Waker) -> Arc<Entry> {
    if !cfg!(loom) {
        // `try_with`: during thread teardown the cache may be gone already.
        let cached = ENTRIES
            .try_with(|c| c.try_borrow_mut().ok().and_then(|mut c| c.pop()))
            .ok()
            .flatten();
        if let Some(mut entry) = cached {
            if let Some(e) = Arc::get_mut(&mut entry) {
                e.reuse(waker);
                return entry;
            }
        }
    }
    Arc::new(Entry::new(Some(waker)))
}

/// Gives up the owner's reference to `entry`; if it was the last one (the wheel and any firing
/// thread have let go), keeps the entry in this thread's cache for [`new_entry`], without its
/// waker, so a cached entry keeps no task alive.
fn recycle(mut entry: Arc<Entry>) {
    if cfg!(loom) {
        return;
    }
    let Some(e) = Arc::get_mut(&mut entry) else {
        return;
    };
    // Dropped after the cache is let go: a waker's drop may drop a task, and its timers.
    let _waker = e.take_waker();
    let _ = ENTRIES.try_with(|c| {
        if let Ok(mut c) = c.try_borrow_mut() {
            if c.len() < ENTRY_CACHE {
                c.push(entry);
            }
        }
    });
}

/// For the first poll of a sleep: a lower bound on now, if this thread read `handle`'s clock
/// before and the deadline lies beyond that reading (`clock::recent`), sparing a clock read
/// (`sleep(d)` read the clock a moment ago, as hyper does just before it makes its per-request
/// header-read sleep). The timer is then registered as with an exact now, as tokio's is (it
/// compares a deadline with the wheel's last turn, not with the clock):
/// - the wheel rounds the deadline up to its tick and refuses one already passed (`Insert::Due`:
///   the sleep completes at once); one that passed since the reading but not by the wheel's
///   last turn is armed for, so the next turn fires it, never early;
/// - a stale reading can make a timer due within `FLUSH_AHEAD` staged, and then the next turn
///   of its shard moves it into the wheel (staging rule 1), the same turn that would fire it
///   from there.
///
/// Only for a clock that was never paused: then it is std's, whose readings are what `recent`
/// holds.
fn recent_lower_bound(handle: &TimeHandle, deadline: Instant) -> Option<Instant> {
    if cfg!(loom) || handle.clock().was_paused() {
        return None;
    }
    let recent = Instant::from_std(super::clock::recent()?);
    (deadline > recent).then_some(recent)
}

/// Now on `handle`'s clock.
fn self_now(handle: &TimeHandle) -> Instant {
    Instant::from_std(handle.now())
}

/// The entry of a reset that could not be registered: hand its waker a wake-up now.
fn wake_carried(entry: &Arc<Entry>) {
    if let Some(waker) = entry.cancel() {
        waker.wake();
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: as in `reset`: no field is pinned and nothing is moved out.
        unsafe { self.get_unchecked_mut() }.poll_unpinned(cx)
    }
}

impl Sleep {
    /// [`Future::poll`] for a sleep held in place by its owner (see `reset_unpinned`).
    pub(crate) fn poll_unpinned(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let coop = ready!(rt_core::coop::poll_proceed(cx));
        let poll = self.poll_elapsed(cx);
        if poll.is_ready() {
            coop.made_progress();
        }
        poll
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        drop(self.deregister());
    }
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            State::Idle => "idle",
            State::Registered { .. } => "registered",
            State::Staged { .. } => "staged",
            State::Elapsed => "elapsed",
        };
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline)
            .field("state", &state)
            .finish()
    }
}
