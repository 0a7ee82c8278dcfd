//! [`Registration`]: one source's slot in the reactor, and the edge-triggered IO loop over it.
//!
//! Every IO operation follows the same loop: wait until the readiness word has a bit the operation
//! wants, try the non-blocking syscall, and on `WouldBlock` clear the readiness that was observed
//! (rule 3 in `scheduled_io.rs`) and wait again. Each operation spends one unit of the
//! cooperative budget (`rt_core::coop`), so a task whose socket is always ready still yields:
//! the `poll_*` paths when their wait completes, [`Registration::async_io`] before its syscall.
//! A bare readiness wait (`readable()`, `writable()`, `ready()`) spends none, as in tokio: it
//! does no IO, and a task that checks readiness before each `try_*` call spends in neither.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use std::os::fd::RawFd;

use rt_core::sync::{Arc, Ordering};

use crate::handle::{Handle, Shard};
use crate::readiness::Interest;
use crate::scheduled_io::{Direction, ReadyEvent, ScheduledIo};
use crate::shard_word::{ShardOps, ShardWord};

/// A source registered with the reactor. Dropping it releases the slot; the owner deregisters the
/// source itself first (`PollEvented`, `AsyncFd`), since mio needs the source to do so.
#[derive(Debug)]
pub(crate) struct Registration {
    handle: Handle,
    io: Arc<ScheduledIo>,
    index: usize,
    /// The reactor shard whose `poll` the source is registered with, and whether a thread is
    /// moving it to another (`shard_word.rs` owns the word and the move).
    shard: ShardWord,
    /// The source's file descriptor and interest, to move it between shards.
    fd: RawFd,
    interest: mio::Interest,
}

/// A move's effects on the real reactor: the source's fd through the shards' mio registries,
/// and the shards' source counts.
struct MioShards<'a> {
    shards: &'a [Shard],
    reg: &'a Registration,
}

impl ShardOps for MioShards<'_> {
    fn deregister(&self, shard: usize) -> io::Result<()> {
        self.shards[shard]
            .registry
            .deregister(&mut mio::unix::SourceFd(&self.reg.fd))
    }

    fn register(&self, shard: usize) -> io::Result<()> {
        // The token the source was registered with: its slot's, whose generation only changes
        // when the slot is released.
        let token = crate::slab::token(self.reg.index, self.reg.io.generation());
        self.shards[shard].registry.register(
            &mut mio::unix::SourceFd(&self.reg.fd),
            token,
            self.reg.interest,
        )
    }

    fn recount(&self, from: usize, to: usize) {
        self.shards[from].sources.fetch_sub(1, Ordering::Relaxed);
        self.shards[to].sources.fetch_add(1, Ordering::Relaxed);
    }
}

impl Registration {
    /// Registers `source` with `handle`'s reactor, edge-triggered, for `interest`.
    pub(crate) fn new(
        source: &mut impl mio::event::Source,
        fd: RawFd,
        interest: Interest,
        handle: Handle,
    ) -> io::Result<Registration> {
        Registration::new_near_cpu(source, fd, interest, handle, None)
    }

    /// [`Registration::new`], on the reactor shard nearest to `cpu` if there is one
    /// (see `Handle::shard_near_cpu`).
    pub(crate) fn new_near_cpu(
        source: &mut impl mio::event::Source,
        fd: RawFd,
        interest: Interest,
        handle: Handle,
        cpu: Option<usize>,
    ) -> io::Result<Registration> {
        let Some(slot) = handle.inner.slab.alloc() else {
            return Err(handle.stopped_error());
        };
        let slot = slot?;
        let shard = cpu
            .and_then(|cpu| handle.shard_near_cpu(cpu))
            .unwrap_or_else(|| handle.shard_for_new_source());
        let reg = Registration {
            handle,
            io: slot.io,
            index: slot.index,
            shard: ShardWord::new(shard),
            fd,
            interest: interest.to_mio(),
        };
        reg.handle.inner.shards[shard]
            .sources
            .fetch_add(1, Ordering::Relaxed);
        // On failure `reg` drops, releases the slot and uncounts itself.
        reg.handle.inner.shards[shard]
            .registry
            .register(source, slot.token, reg.interest)?;
        Ok(reg)
    }

    /// Removes `source` from the reactor. The slot is released when `self` drops.
    pub(crate) fn deregister(&self, source: &mut impl mio::event::Source) -> io::Result<()> {
        let shard = self.shard.current();
        self.handle.inner.shards[shard].registry.deregister(source)
    }

    /// Called when a wait on this source starts (the task is about to return `Pending`).
    /// Events wake a task on the worker that polls them, so a source's shard decides where its
    /// task runs; a source whose task waits `MOVE_AFTER` times in a row on another worker (it
    /// was stolen, and keeps running there) moves to that worker's shard. Load balancing by
    /// stealing then carries the IO along, instead of each event sending the task back. The
    /// protocol, and why no event is lost by a move, is `shard_word.rs`'s.
    fn follow_task(&self) {
        if let Some(home) = self.handle.home_shard() {
            self.shard.follow_task(home, &self.mio_shards());
        }
    }

    fn mio_shards(&self) -> MioShards<'_> {
        MioShards {
            shards: &self.handle.inner.shards,
            reg: self,
        }
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
        let Poll::Ready(ev) = self.io.poll_ready(cx, direction) else {
            self.follow_task();
            return Poll::Pending;
        };
        coop.made_progress();
        Poll::Ready(self.check(ev))
    }

    /// Waits (list waiter, so many tasks may wait at once) until the source is ready for `interest`.
    pub(crate) fn readiness(&self, interest: Interest) -> Readiness<'_> {
        Readiness {
            reg: self,
            interest,
            key: None,
        }
    }

    /// Awaits [`Registration::readiness`] and checks for a stopped reactor.
    pub(crate) async fn ready(&self, interest: Interest) -> io::Result<ReadyEvent> {
        let ev = self.readiness(interest).await;
        self.check(ev)
    }

    /// Marks the new source ready for `ready` before any event (an accepted stream, a fresh
    /// pair): its first read or write tries the syscall instead of waiting for the reactor's
    /// first event. A wrong guess costs one `WouldBlock`, which clears it.
    pub(crate) fn assume_ready(&self, ready: crate::readiness::Ready) {
        self.io.assume_ready(ready);
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
            let coop = std::future::poll_fn(rt_core::coop::poll_proceed).await;
            match f() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.clear_readiness(ev),
                r => {
                    coop.made_progress();
                    return r;
                }
            }
        }
    }

    /// One attempt without waiting: `WouldBlock` unless the word says `interest` is ready (the
    /// reactor's stopped error when it stopped and nothing is ready).
    pub(crate) fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        let Some(ev) = self.io.ready_now(interest) else {
            return Err(io::ErrorKind::WouldBlock.into());
        };
        // Readiness set before the reactor stopped still holds (the data is in the kernel):
        // try it. With none, the stopped reactor will never set any: say so.
        if ev.ready.is_empty() {
            self.check(ev)?;
        }
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
        let shard = self.shard.current();
        self.handle.inner.shards[shard]
            .sources
            .fetch_sub(1, Ordering::Relaxed);
        self.handle.inner.slab.release(self.index);
    }
}

/// The future of [`Registration::readiness`]: a list waiter, removed from the list on drop.
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub(crate) struct Readiness<'a> {
    reg: &'a Registration,
    interest: Interest,
    key: Option<rt_core::wait_queue::Key>,
}

impl Future for Readiness<'_> {
    type Output = ReadyEvent;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ReadyEvent> {
        let this = &mut *self;
        let Poll::Ready(ev) = this.reg.io.poll_waiter(cx, this.interest, &mut this.key) else {
            this.reg.follow_task();
            return Poll::Pending;
        };
        Poll::Ready(ev)
    }
}

impl Drop for Readiness<'_> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.reg.io.cancel_waiter(key);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering as StdOrdering};
    use std::task::{Context, Wake, Waker};
    use std::time::Duration;

    use super::*;
    use crate::Driver;

    struct Flag(AtomicBool);

    impl Wake for Flag {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.store(true, StdOrdering::SeqCst);
        }
    }

    use crate::shard_word::MOVE_AFTER;

    fn shard_of(reg: &Registration) -> usize {
        reg.shard.current()
    }

    /// A Unix stream registered with the current reactor, and its peer (not registered).
    fn registered_pair() -> (
        crate::io::poll_evented::PollEvented<mio::net::UnixStream>,
        std::os::unix::net::UnixStream,
    ) {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let a =
            crate::io::poll_evented::PollEvented::new(mio::net::UnixStream::from_std(a)).unwrap();
        (a, b)
    }

    /// Driven by hand from two threads standing in for two workers: a source created on
    /// "worker 0" whose task keeps waiting on "worker 1" moves to shard 1, and its events then
    /// come from shard 1's poll, not from shard 0's.
    #[test]
    fn a_source_follows_its_task_to_another_shard() {
        let driver = Driver::start_on_workers(2).unwrap();
        let handle = driver.handle();
        let workers = driver.worker_driver().unwrap();
        let (ours, mut peer) = std::thread::scope(|s| {
            s.spawn(|| {
                workers.bind_thread(0);
                let _g = handle.enter();
                registered_pair()
            })
            .join()
            .unwrap()
        });
        assert_eq!(shard_of(ours.registration()), 0);
        let flag = std::sync::Arc::new(Flag(AtomicBool::new(false)));
        std::thread::scope(|s| {
            s.spawn(|| {
                workers.bind_thread(1);
                let _g = handle.enter();
                let waker = Waker::from(flag.clone());
                let mut cx = Context::from_waker(&waker);
                let reg = ours.registration();
                // Nothing to read yet: each poll waits. Clear the initial writable-only
                // readiness as a failed read would.
                for _ in 0..MOVE_AFTER {
                    assert!(reg.poll_ready(&mut cx, Direction::Read).is_pending());
                }
                assert_eq!(
                    shard_of(reg),
                    1,
                    "the source moved to the shard of its task"
                );
            });
        });
        peer.write_all(b"x").unwrap();
        // Shard 0 no longer sees the source's events.
        assert!(workers.try_drive(0, Some(Duration::ZERO), &|| false));
        assert!(!flag.0.load(StdOrdering::SeqCst));
        // Shard 1 does (bounded: a hang guard, the event is already there).
        for _ in 0..1000 {
            if flag.0.load(StdOrdering::SeqCst) {
                break;
            }
            assert!(workers.try_drive(1, Some(Duration::from_millis(10)), &|| false));
        }
        assert!(
            flag.0.load(StdOrdering::SeqCst),
            "the event came from shard 1"
        );
        drop(ours);
        assert_eq!(handle.registration_count(), 0);
    }

    /// Moving back and forth keeps one registration (one slot) and the source keeps working.
    #[test]
    fn moving_keeps_the_registration() {
        let driver = Driver::start_on_workers(2).unwrap();
        let handle = driver.handle();
        let workers = driver.worker_driver().unwrap();
        let _g = handle.enter();
        let (a, _b) = registered_pair();
        let reg = a.registration();
        let from = shard_of(reg);
        assert!(workers.has_sources(from) && !workers.has_sources(1 - from));
        reg.shard.move_to(from, 1 - from, &reg.mio_shards());
        assert_eq!(shard_of(reg), 1 - from);
        assert!(!workers.has_sources(from) && workers.has_sources(1 - from));
        reg.shard.move_to(1 - from, from, &reg.mio_shards());
        assert_eq!(shard_of(reg), from);
        assert_eq!(handle.registration_count(), 1);
        drop(a);
        assert!(!workers.has_sources(0) && !workers.has_sources(1));
    }

    /// A worker's own shard belongs to the reactor it was bound for: in another reactor the
    /// thread is like any other, so its sources go to the shards in turn and a task waiting on
    /// it does not pull them to the shard with the same number.
    #[test]
    fn a_home_shard_belongs_to_its_reactor() {
        let ours = Driver::start_on_workers(2).unwrap();
        let other = Driver::start_on_workers(2).unwrap();
        let (ours_h, other_h) = (ours.handle(), other.handle());
        std::thread::scope(|s| {
            s.spawn(|| {
                ours.worker_driver().unwrap().bind_thread(1);
                assert_eq!(ours_h.home_shard(), Some(1));
                assert_eq!(other_h.home_shard(), None);
                let _g = other_h.enter();
                let (a, _b) = registered_pair();
                let reg = a.registration();
                assert_eq!(
                    shard_of(reg),
                    0,
                    "the first of the shards in turn, not shard 1"
                );
                let waker = Waker::from(std::sync::Arc::new(Flag(AtomicBool::new(false))));
                let mut cx = Context::from_waker(&waker);
                for _ in 0..MOVE_AFTER {
                    assert!(reg.poll_ready(&mut cx, Direction::Read).is_pending());
                }
                assert_eq!(
                    shard_of(reg),
                    0,
                    "no move to another reactor's shard number"
                );
            })
            .join()
            .unwrap();
        });
    }

    /// An accepted stream registers on the shard whose owner runs on the CPU its packets came
    /// in on; with no such shard (CPU not known) it falls back to the usual choice.
    #[test]
    fn a_source_near_a_cpu_goes_to_that_cpus_shard() {
        let driver = Driver::start_on_workers(2).unwrap();
        let handle = driver.handle();
        handle.inner.shards[1].cpu.store(7, Ordering::Relaxed);
        assert_eq!(handle.shard_near_cpu(7), Some(1));
        assert_eq!(handle.shard_near_cpu(3), None);
        let _g = handle.enter();
        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let mut a = mio::net::UnixStream::from_std(a);
        let fd = std::os::fd::AsRawFd::as_raw_fd(&a);
        let near = Registration::new_near_cpu(
            &mut a,
            fd,
            Interest::READABLE | Interest::WRITABLE,
            handle.clone(),
            Some(7),
        )
        .unwrap();
        assert_eq!(shard_of(&near), 1);
        near.deregister(&mut a).unwrap();
    }
}
