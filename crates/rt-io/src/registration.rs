//! [`Registration`]: one source's slot in the reactor, and the edge-triggered IO loop over it.
//!
//! Every IO operation follows the same loop: wait until the readiness word has a bit the operation
//! wants, try the non-blocking syscall, and on `WouldBlock` clear the readiness that was observed
//! (rule 3 in `scheduled_io.rs`) and wait again. Each completed wait spends one unit of the
//! cooperative budget (`rt_core::coop`), so a task whose socket is always ready still yields.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use rt_core::sync::Arc;

use crate::handle::Handle;
use crate::readiness::Interest;
use crate::scheduled_io::{Direction, ReadyEvent, ScheduledIo};

/// A source registered with the reactor. Dropping it releases the slot; the owner deregisters the
/// source itself first (`PollEvented`, `AsyncFd`), since mio needs the source to do so.
#[derive(Debug)]
pub(crate) struct Registration {
    handle: Handle,
    io: Arc<ScheduledIo>,
    index: usize,
}

fn mio_interest(interest: Interest) -> mio::Interest {
    match (interest.is_readable(), interest.is_writable()) {
        (true, true) => mio::Interest::READABLE | mio::Interest::WRITABLE,
        (false, true) => mio::Interest::WRITABLE,
        _ => mio::Interest::READABLE,
    }
}

impl Registration {
    /// Registers `source` with `handle`'s reactor, edge-triggered, for `interest`.
    pub(crate) fn new(
        source: &mut impl mio::event::Source,
        interest: Interest,
        handle: Handle,
    ) -> io::Result<Registration> {
        let Some(slot) = handle.inner.slab.alloc() else {
            return Err(handle.stopped_error());
        };
        let slot = slot?;
        let reg = Registration {
            handle,
            io: slot.io,
            index: slot.index,
        };
        // On failure `reg` drops and releases the slot.
        reg.handle
            .inner
            .registry
            .register(source, slot.token, mio_interest(interest))?;
        Ok(reg)
    }

    /// Removes `source` from the reactor. The slot is released when `self` drops.
    pub(crate) fn deregister(&self, source: &mut impl mio::event::Source) -> io::Result<()> {
        self.handle.inner.registry.deregister(source)
    }

    fn check(&self, ev: ReadyEvent) -> io::Result<ReadyEvent> {
        if ev.shutdown {
            Err(self.handle.stopped_error())
        } else {
            Ok(ev)
        }
    }

    /// Waits (single-waker slot of `direction`) until the source is ready for it.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        let coop = ready!(rt_core::coop::poll_proceed(cx));
        let ev = ready!(self.io.poll_ready(cx, direction));
        coop.made_progress();
        Poll::Ready(self.check(ev))
    }

    /// Waits (list waiter, so many tasks may wait at once) until the source is ready for `interest`.
    pub(crate) fn readiness(&self, interest: Interest) -> Readiness<'_> {
        Readiness {
            io: &self.io,
            interest,
            key: None,
        }
    }

    /// Awaits [`Registration::readiness`] and checks for a stopped reactor.
    pub(crate) async fn ready(&self, interest: Interest) -> io::Result<ReadyEvent> {
        let ev = self.readiness(interest).await;
        self.check(ev)
    }

    /// Forgets readiness observed in `ev` after the syscall returned `WouldBlock`.
    pub(crate) fn clear_readiness(&self, ev: ReadyEvent) {
        self.io.clear_readiness(ev);
    }

    /// The edge-triggered loop over a list waiter.
    pub(crate) async fn async_io<R>(
        &self,
        interest: Interest,
        mut f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        loop {
            let ev = self.ready(interest).await?;
            match f() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.clear_readiness(ev),
                r => return r,
            }
        }
    }

    /// One attempt without waiting: `WouldBlock` unless the word says `interest` is ready.
    pub(crate) fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        let Some(ev) = self.io.ready_now(interest) else {
            return Err(io::ErrorKind::WouldBlock.into());
        };
        let ev = self.check(ev)?;
        match f() {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.clear_readiness(ev);
                Err(e)
            }
            r => r,
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.handle.inner.slab.release(self.index);
    }
}

/// The future of [`Registration::readiness`]: a list waiter, removed from the list on drop.
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub(crate) struct Readiness<'a> {
    io: &'a ScheduledIo,
    interest: Interest,
    key: Option<u64>,
}

impl Future for Readiness<'_> {
    type Output = ReadyEvent;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ReadyEvent> {
        let coop = ready!(rt_core::coop::poll_proceed(cx));
        let this = &mut *self;
        let ev = ready!(this.io.poll_waiter(cx, this.interest, &mut this.key));
        coop.made_progress();
        Poll::Ready(ev)
    }
}

impl Drop for Readiness<'_> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.io.cancel_waiter(key);
        }
    }
}
