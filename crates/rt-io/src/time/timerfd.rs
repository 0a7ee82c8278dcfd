//! A Linux `timerfd` on `CLOCK_MONOTONIC` (the clock behind `std::time::Instant` on Linux),
//! registered in the reactor's mio registry so that it wakes the reactor at the exact next
//! deadline, with the kernel's high-resolution timers instead of epoll's millisecond timeout.
//!
//! Arming is relative ("fire in `d`"), measured from a moment at or after the caller read the
//! clock, so the fd never becomes readable before the deadline the caller computed `d` from.
//!
//! rt targets Linux only (see `lib.rs`); where `timerfd_create` fails anyway (a seccomp filter,
//! an old kernel) [`TimerFd::new`] returns the error and the driver uses its fallback (the poll
//! timeout, see `driver.rs`).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

use mio::unix::SourceFd;
use mio::{Interest, Registry, Token};

use crate::syscall::cvt;

/// An owned, non-blocking timerfd. Closing it (on drop) also removes it from the epoll set.
#[derive(Debug)]
pub(crate) struct TimerFd {
    fd: OwnedFd,
}

impl TimerFd {
    /// Creates a disarmed timerfd and registers it for readability under `token`.
    pub(crate) fn new(registry: &Registry, token: Token) -> io::Result<TimerFd> {
        // SAFETY: plain syscall with constant arguments; the result is checked.
        let fd = cvt(unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        })?;
        // SAFETY: `fd` is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        registry.register(&mut SourceFd(&fd.as_raw_fd()), token, Interest::READABLE)?;
        Ok(TimerFd { fd })
    }

    /// Arms the timer to expire once, `after` from now (a zero `after` expires at once: the
    /// kernel would read zero as "disarm").
    pub(crate) fn arm(&self, after: Duration) -> io::Result<()> {
        let after = after.max(Duration::from_nanos(1));
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: after.as_secs().min(libc::time_t::MAX as u64) as libc::time_t,
                tv_nsec: after.subsec_nanos() as libc::c_long,
            },
        };
        // SAFETY: `fd` is our open timerfd; `spec` is a valid itimerspec that outlives the
        // call; a null old-value pointer is allowed.
        cvt(unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) })?;
        Ok(())
    }

    /// Consumes a pending expiration, so the fd stops being readable and the next expiration is
    /// a new edge for epoll. Returns whether there was one (`false`: not expired yet).
    pub(crate) fn drain(&self) -> bool {
        let mut count = 0u64;
        // SAFETY: reads at most 8 bytes into a local `u64`; the fd is non-blocking, so the call
        // returns at once (EAGAIN when nothing expired).
        let n = cvt(unsafe {
            libc::read(
                self.fd.as_raw_fd(),
                (&mut count as *mut u64).cast(),
                std::mem::size_of::<u64>(),
            )
        });
        n.is_ok_and(|n| n == std::mem::size_of::<u64>() as isize)
    }
}
