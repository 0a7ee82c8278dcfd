//! The reactor loop that runs on the `rt-io` thread.
//!
//! Each turn: block in `poll` for at most the timers' next deadline, translate the events into
//! readiness and collect the satisfied wakers under the slab lock, then — outside every lock —
//! wake them and fire the expired timers inside one `rt_core::batch::batch`, so the scheduler sees
//! the whole turn as one batch with at most one unpark.
//!
//! When the loop ends, normally or by a panic, [`stop`] runs from a drop guard: the state becomes
//! "shut down" or "gone", the slab closes, and every waiter and timer is woken to find out.

use std::io;
use std::task::Waker;

use rt_core::sync::Ordering;

use crate::driver::{TIMER_TOKEN, WAKER_TOKEN};
use crate::handle::Handle;
use crate::readiness::Ready;

/// Events taken from the OS per `poll` call.
const EVENTS_CAPACITY: usize = 1024;

/// The body of the `rt-io` thread.
pub(crate) fn run(mut poll: mio::Poll, handle: Handle) {
    struct ExitGuard<'a>(&'a Handle);
    impl Drop for ExitGuard<'_> {
        fn drop(&mut self) {
            stop(self.0, std::thread::panicking());
        }
    }
    let _exit = ExitGuard(&handle);
    let _enter = handle.enter();

    let mut events = mio::Events::with_capacity(EVENTS_CAPACITY);
    let mut ready = Vec::with_capacity(EVENTS_CAPACITY);
    let mut wakers: Vec<Waker> = Vec::with_capacity(EVENTS_CAPACITY);
    let inner = &handle.inner;
    while handle.is_running() {
        let timeout = inner.time.next_timeout();
        match poll.poll(&mut events, timeout) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => panic!("rt-io: mio::Poll::poll failed: {e}"),
        }
        if inner.kill.load(Ordering::Acquire) {
            panic!("rt-io reactor thread killed by the test hook");
        }
        ready.extend(
            events
                .iter()
                .filter(|e| e.token() != WAKER_TOKEN && e.token() != TIMER_TOKEN)
                .map(|e| (e.token(), readiness_of(e))),
        );
        inner.slab.dispatch(ready.drain(..), &mut wakers);
        rt_core::batch::batch(|| {
            for w in wakers.drain(..) {
                w.wake();
            }
            inner.time.process();
        });
    }
}

/// Marks the reactor stopped and wakes everyone still waiting on it. Idempotent.
pub(crate) fn stop(handle: &Handle, panicked: bool) {
    handle.mark_stopped(panicked);
    let mut wakers = Vec::new();
    handle.inner.slab.close(&mut wakers);
    rt_core::batch::batch(|| {
        for w in wakers {
            w.wake();
        }
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
    r
}
