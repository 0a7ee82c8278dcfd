//! Hearing other shards while blocked in one's own: a worker that parks in its shard can be
//! woken at once by IO that arrives on a busy worker's shard, instead of finding it only at
//! its next watch timeout.
//!
//! Each shard `k` (when the workers drive a reactor of more than one shard) has a *listen*
//! epoll `L_k` beside its `mio::Poll` `E_k`. `L_k` holds `E_k` (level-triggered, always armed)
//! and every other shard's `E_t` (`EPOLLONESHOT`, disarmed until [`Listen::arm`]). A blocking
//! turn of shard `k` waits in `L_k` and then polls `E_k` without waiting: whatever makes `E_k`
//! ready (an event, a waker, the timerfd) ends the wait as before, and so does an event on an
//! armed `E_t`. Arming is `EPOLL_CTL_MOD`, which looks at `E_t`'s readiness at once, so events
//! already pending there end the wait immediately; each arming ends at most one wait (one-shot).
//! Epoll instances may nest but not in a cycle, which is why the listen epolls are separate:
//! no `E` holds an `L`.
//!
//! Each nested wait costs a second `epoll_wait` (the own poll's, after the listen epoll's), so
//! a blocking turn pays it only when it can be of use: a turn for which nothing was armed since
//! the last wait blocks in `E_k` itself, as without listening (an entry armed earlier that did
//! not fire stays armed in `L_k`; it can only end one later wait early, which a turn allows);
//! and a wait that the heard shards alone ended (`E_k` not among its events) skips the own
//! poll, since nothing was ready there (a due timer or a wake-up makes `E_k` ready).
//!
//! Only the turn's blocking step changes; who holds a shard, and every wake-up rule of
//! `WorkerDriver::try_drive`, stay as they were. The scheduler decides whom to hear
//! (`rt_sched::IoDriver::listen_to`: the shards of workers that are busy when it parks) and
//! polls those shards itself when woken.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

use rt_core::sync::{AtomicBool, Ordering::Relaxed};

use crate::syscall::cvt;

/// One shard's listen epoll, `L_k` (see the module docs).
#[derive(Debug)]
pub(crate) struct Listen {
    fd: OwnedFd,
    /// `E_k`, the shard's own `mio::Poll`.
    own: RawFd,
    /// Some other shard was armed since the last wait: the next blocking turn waits here
    /// rather than in `E_k` alone. Set by [`Listen::arm`] and taken by the turn, both on the
    /// thread that is about to block in this shard (the scheduler arms its own shard's listen
    /// just before its turn), so `Relaxed` suffices: it only decides which of two waits runs.
    armed: AtomicBool,
}

/// The `epoll_event::u64` of the shard's own poll in its listen epoll; another shard's poll
/// carries its index.
const OWN: u64 = u64::MAX;

impl Listen {
    /// Builds `L_k` for shard `own_index` out of every shard's poll fd (`polls[t]` is `E_t`).
    pub(crate) fn new(own_index: usize, polls: &[RawFd]) -> io::Result<Listen> {
        // SAFETY: no pointer arguments; the result is checked by `cvt`.
        let fd = cvt(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        // SAFETY: `epoll_create1` returned a new descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let listen = Listen {
            fd,
            own: polls[own_index],
            armed: AtomicBool::new(false),
        };
        listen.ctl(libc::EPOLL_CTL_ADD, listen.own, libc::EPOLLIN as u32, OWN)?;
        for (t, &poll) in polls.iter().enumerate() {
            if t != own_index {
                // Disarmed: a one-shot entry without `EPOLLIN` reports nothing.
                listen.ctl(
                    libc::EPOLL_CTL_ADD,
                    poll,
                    libc::EPOLLONESHOT as u32,
                    t as u64,
                )?;
            }
        }
        Ok(listen)
    }

    fn ctl(&self, op: libc::c_int, fd: RawFd, events: u32, data: u64) -> io::Result<()> {
        let mut ev = libc::epoll_event { events, u64: data };
        // SAFETY: `self.fd` is a live epoll descriptor and `fd` a live one (a shard's poll,
        // which lives as long as the reactor that owns `self`); `ev` outlives the call.
        cvt(unsafe { libc::epoll_ctl(self.fd.as_raw_fd(), op, fd, &mut ev) })?;
        Ok(())
    }

    /// Makes the next blocking wait in this listen epoll end when `other` (shard `index`'s poll)
    /// has events, or at once if it has some now. One wait only. (A wait already under way in
    /// the own poll alone, begun with nothing armed, is not ended by it: arm before the turn.)
    pub(crate) fn arm(&self, index: usize, other: RawFd) {
        let events = (libc::EPOLLIN | libc::EPOLLONESHOT) as u32;
        // Fails only if the descriptors are gone (the reactor is being dropped); the watch
        // timeout of the scheduler then still bounds the wait.
        let _ = self.ctl(libc::EPOLL_CTL_MOD, other, events, index as u64);
        self.armed.store(true, Relaxed);
    }

    /// Whether a shard was armed since the last call (see the module docs): if not, a blocking
    /// turn waits in its own poll alone, one `epoll_wait` instead of two.
    pub(crate) fn take_armed(&self) -> bool {
        self.armed.swap(false, Relaxed)
    }

    /// Blocks until the own poll or an armed other shard is ready, or `timeout` (`None`: no
    /// limit). The events themselves stay where they are, for the turns that follow. Returns
    /// whether the own poll may have something: it was among the ready ones, or the wait timed
    /// out or failed (a due timer is processed by the own turn). `false` means only heard
    /// shards ended the wait, and the own poll can be skipped.
    pub(crate) fn wait(&self, timeout: Option<Duration>) -> bool {
        let ms = match timeout {
            None => -1,
            // Rounded up: a wait must not end before its timeout (and 0 must stay 0).
            Some(t) => {
                libc::c_int::try_from(t.as_nanos().div_ceil(1_000_000)).unwrap_or(libc::c_int::MAX)
            }
        };
        let mut events = [libc::epoll_event { events: 0, u64: 0 }; 4];
        // SAFETY: `self.fd` is a live epoll descriptor; `events` is writable for its length.
        // An error (EINTR) only ends the wait early, which a turn allows.
        let n = unsafe {
            libc::epoll_wait(
                self.fd.as_raw_fd(),
                events.as_mut_ptr(),
                events.len() as libc::c_int,
                ms,
            )
        };
        // A full array may have left ready entries out, the own poll among them.
        let Ok(n @ 1..) = usize::try_from(n) else {
            return true;
        };
        events[..n.min(events.len())]
            .iter()
            .any(|e| ({ e.u64 }) == OWN)
            || n == events.len()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::mpsc;
    use std::time::Duration;

    use crate::Driver;

    /// A thread blocked in shard 1's turn with no timeout, told to hear shard 0, wakes when
    /// a socket on shard 0 becomes readable (without `listen_to` it would block for good: the
    /// hang guard below is what fails then).
    #[test]
    fn a_blocked_turn_ends_on_an_event_of_a_heard_shard() {
        let driver = Driver::start_on_workers(2).unwrap();
        let handle = driver.handle();
        let workers = driver.worker_driver().unwrap();
        let (a, mut peer) = std::os::unix::net::UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let ours = std::thread::scope(|s| {
            s.spawn(|| {
                workers.bind_thread(0);
                let _g = handle.enter();
                crate::io::poll_evented::PollEvented::new(mio::net::UnixStream::from_std(a))
                    .unwrap()
            })
            .join()
            .unwrap()
        });
        // Take the registration's first (writable) event, and any wake-up, off both shards.
        assert!(workers.try_drive(0, Some(Duration::ZERO), &|| false));
        assert!(workers.try_drive(1, Some(Duration::ZERO), &|| false));
        let (done_tx, done_rx) = mpsc::channel();
        let (armed_tx, armed_rx) = mpsc::channel();
        std::thread::scope(|s| {
            s.spawn(|| {
                workers.listen_to(1, 0);
                armed_tx.send(()).unwrap();
                assert!(workers.try_drive(1, None, &|| false));
                done_tx.send(()).unwrap();
            });
            armed_rx.recv().unwrap();
            peer.write_all(b"x").unwrap();
            let heard = done_rx.recv_timeout(Duration::from_secs(30));
            if heard.is_err() {
                workers.unpark(1); // release the blocked thread before failing
            }
            assert!(
                heard.is_ok(),
                "the event on shard 0 did not end shard 1's wait"
            );
        });
        // The event is still shard 0's to deliver.
        assert!(workers.try_drive(0, Some(Duration::ZERO), &|| false));
        drop(ours);
    }

    /// A listen wait that both the heard shard and the own shard end delivers the own shard's
    /// event in the same turn: the own poll is skipped only when the wait's ready entries do
    /// not include it (were it skipped here, the waker below would not run).
    #[test]
    fn a_wait_ended_by_both_shards_delivers_the_own_event() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        use std::task::{Context, Wake, Waker};

        struct Flag(AtomicBool);
        impl Wake for Flag {
            fn wake(self: Arc<Self>) {
                self.0.store(true, Ordering::SeqCst);
            }
        }

        let driver = Driver::start_on_workers(2).unwrap();
        let handle = driver.handle();
        let workers = driver.worker_driver().unwrap();
        let register = |shard: usize| {
            let (a, peer) = std::os::unix::net::UnixStream::pair().unwrap();
            a.set_nonblocking(true).unwrap();
            let io = std::thread::scope(|s| {
                s.spawn(|| {
                    workers.bind_thread(shard);
                    let _g = handle.enter();
                    crate::io::poll_evented::PollEvented::new(mio::net::UnixStream::from_std(a))
                        .unwrap()
                })
                .join()
                .unwrap()
            });
            (io, peer)
        };
        let (heard, mut heard_peer) = register(0);
        let (own, mut own_peer) = register(1);
        // Take the registrations' first (writable) events, and any wake-up, off both shards.
        assert!(workers.try_drive(0, Some(Duration::ZERO), &|| false));
        assert!(workers.try_drive(1, Some(Duration::ZERO), &|| false));
        let flag = Arc::new(Flag(AtomicBool::new(false)));
        let waker = Waker::from(flag.clone());
        let mut buf = [0u8; 8];
        assert!(own
            .poll_read(&mut Context::from_waker(&waker), &mut buf)
            .is_pending());
        heard_peer.write_all(b"x").unwrap();
        own_peer.write_all(b"y").unwrap();
        workers.listen_to(1, 0);
        // Both are ready before the wait, so it returns at once with both entries.
        assert!(workers.try_drive(1, None, &|| false));
        assert!(
            flag.0.load(Ordering::SeqCst),
            "the own shard's event was not delivered by the turn its wait ended"
        );
        drop((heard, own));
    }
}
