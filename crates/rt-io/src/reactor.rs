//! A reactor turn, on one shard: [`turn`], and [`run`], the loop of turns of the `rt-io` thread.
//!
//! Each turn: block in the shard's `poll` for at most the given timeout, translate the events
//! into readiness and collect the satisfied wakers under the slab lock, then — outside every
//! lock — wake them and fire the expired timers inside one `rt_core::batch::batch`, so the
//! scheduler sees the whole turn as one batch with at most one unpark.
//!
//! Who takes the turns. With a dedicated thread ([`Driver::start`](crate::Driver::start)) the
//! reactor has one shard and [`run`] turns it until the reactor stops; when the loop ends,
//! normally or by a panic, [`stop`] runs from a drop guard: the state becomes "shut down" or
//! "gone", the slab closes, and every waiter and timer is woken to find out. When the runtime's
//! workers drive IO ([`Driver::start_on_workers`](crate::Driver::start_on_workers)) each shard's
//! [`Core`] sits in `Shard::core` (`handle.rs`), and a thread takes a turn of it through
//! [`WorkerDriver::try_drive`](crate::WorkerDriver::try_drive): a worker on its own shard between
//! tasks and when idle (blocking in `poll` instead of on its parker), so the tasks an event wakes
//! are scheduled onto that worker without a cross-thread hop; `try_drive` calls [`stop`] itself
//! if a turn panics.

use std::io;
use std::task::Waker;
use std::time::Duration;

use crate::driver::{TIMER_TOKEN, WAKER_TOKEN};
use crate::handle::Handle;
use crate::readiness::Ready;

use crate::tuning::EVENTS_CAPACITY;

/// One shard's `mio::Poll` and the buffers a turn of it needs. Owned by the `rt-io` thread, or,
/// when the runtime's workers drive IO themselves, kept in its shard's `Shard::core` for
/// whichever thread takes the turn.
pub(crate) struct Core {
    poll: mio::Poll,
    /// A turn that may wait takes at most this buffer's capacity of events
    /// (`ReactorConfig::max_events_per_tick`); the kernel keeps the rest for the next turn.
    events: mio::Events,
    /// A busy turn's (one that does not wait) smaller buffer
    /// (`ReactorConfig::max_events_per_busy_tick`), when it is smaller.
    busy_events: Option<mio::Events>,
    ready: Vec<(mio::Token, Ready)>,
    wakers: Vec<Waker>,
}

impl Core {
    pub(crate) fn new(poll: mio::Poll, config: ReactorConfig) -> Core {
        let per_tick = config.max_events_per_tick;
        let busy = config.max_events_per_busy_tick;
        Core {
            poll,
            events: mio::Events::with_capacity(per_tick),
            busy_events: (busy < per_tick).then(|| mio::Events::with_capacity(busy)),
            ready: Vec::with_capacity(per_tick),
            wakers: Vec::with_capacity(per_tick),
        }
    }
}

/// How many events a reactor turn takes from the OS (tokio's `max_io_events_per_tick` and
/// `max_io_events_per_busy_tick`). Events beyond them stay in the kernel for the next turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReactorConfig {
    /// The most events one turn takes. Default 1024.
    pub max_events_per_tick: usize,
    /// The most events a turn that does not wait takes (a worker that still has tasks to run
    /// polls without waiting, and each event may wake a task onto its queue). Default: as
    /// `max_events_per_tick`.
    pub max_events_per_busy_tick: usize,
    /// Whether sources may register (tokio's `Builder::enable_io`). Default `true`; `false`
    /// makes every registration (a socket, an `AsyncFd`, a signal) panic at its caller, as
    /// tokio does on a runtime built without `enable_io`. rt's `Builder` leaves it on unless
    /// it is the `tokio` face's (rt's `tokio-face` feature).
    pub enable_io: bool,
    /// Whether timers may be created (tokio's `Builder::enable_time`). Default `true`; `false`
    /// makes `sleep`, `timeout` and `interval` panic at their caller, as tokio does on a
    /// runtime built without `enable_time`.
    pub enable_time: bool,
}

impl ReactorConfig {
    /// The default number of events per turn.
    pub const DEFAULT_EVENTS_PER_TICK: usize = EVENTS_CAPACITY;
}

impl Default for ReactorConfig {
    fn default() -> Self {
        ReactorConfig {
            max_events_per_tick: Self::DEFAULT_EVENTS_PER_TICK,
            max_events_per_busy_tick: Self::DEFAULT_EVENTS_PER_TICK,
            enable_io: true,
            enable_time: true,
        }
    }
}

impl std::fmt::Debug for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("reactor::Core").finish_non_exhaustive()
    }
}

/// One turn: block in `poll` for at most `timeout`, then dispatch readiness and fire timers.
/// The wakes run on the calling thread, inside one batch. Returns how many IO readiness events
/// the turn delivered (wake-ups and timer ticks not counted), for the metrics.
///
/// `busy`: the caller has work waiting (it polls without waiting for that reason), so the turn
/// takes at most `max_events_per_busy_tick` events. `waited`: the thread blocked for this turn
/// (it had nothing else to do), so the timer driver may spin the last microseconds to a
/// deadline it was woken early for (`time/driver.rs`).
pub(crate) fn turn(
    handle: &Handle,
    core: &mut Core,
    timeout: Option<Duration>,
    busy: bool,
    waited: bool,
) -> usize {
    let inner = &handle.inner;
    let events = match (&mut core.busy_events, busy) {
        (Some(small), true) => small,
        _ => &mut core.events,
    };
    match core.poll.poll(events, timeout) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
        Err(e) => panic!("rt-io: mio::Poll::poll failed: {e}"),
    }
    #[cfg(feature = "test-hooks")]
    if inner.kill.load(rt_core::sync::Ordering::Acquire) {
        panic!("rt-io reactor thread killed by the test hook");
    }
    core.ready.extend(
        events
            .iter()
            .filter(|e| e.token() != WAKER_TOKEN && e.token() != TIMER_TOKEN)
            .map(|e| (e.token(), readiness_of(e))),
    );
    let events = core.ready.len();
    inner.slab.dispatch(core.ready.drain(..), &mut core.wakers);
    let wakers = &mut core.wakers;
    rt_core::batch::batch(|| {
        // A panicking waker costs its task only, not the shard (`rt_core::wake`).
        rt_core::wake::wake_all(wakers.drain(..));
        inner.time.process(waited);
    });
    events
}

/// The body of the `rt-io` thread.
pub(crate) fn run(mut core: Core, handle: Handle) {
    struct ExitGuard<'a>(&'a Handle);
    impl Drop for ExitGuard<'_> {
        fn drop(&mut self) {
            stop(self.0, std::thread::panicking());
        }
    }
    let _exit = ExitGuard(&handle);
    let _enter = handle.enter();
    while handle.is_running() {
        let timeout = handle.inner.time.next_timeout();
        let events = turn(&handle, &mut core, timeout, false, true);
        handle.inner.shards[0].count_events(events);
    }
}

/// Marks the reactor stopped and wakes everyone still waiting on it. Idempotent.
pub(crate) fn stop(handle: &Handle, panicked: bool) {
    handle.mark_stopped(panicked);
    let mut wakers = Vec::new();
    handle.inner.slab.close(&mut wakers);
    rt_core::batch::batch(|| {
        rt_core::wake::wake_all(wakers);
        handle.time().shutdown();
    });
}

fn readiness_of(event: &mio::event::Event) -> Ready {
    let mut r = Ready::EMPTY;
    if event.is_readable() {
        r |= Ready::READABLE;
    }
    if event.is_writable() {
        r |= Ready::WRITABLE;
    }
    if event.is_read_closed() {
        r |= Ready::READ_CLOSED;
    }
    if event.is_write_closed() {
        r |= Ready::WRITE_CLOSED;
    }
    if event.is_error() {
        r |= Ready::ERROR;
    }
    if event.is_priority() {
        r |= Ready::PRIORITY;
    }
    r
}
