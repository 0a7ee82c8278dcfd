//! Unix signals: [`signal`], [`SignalKind`], [`Signal`] (see the `signal` module docs for the
//! design and the merging of deliveries).

use std::fmt;
use std::future::poll_fn;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::task::{Context, Poll};

use rt_io::io::{AsyncFd, Interest};

/// Which signal: tokio's `SignalKind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SignalKind(libc::c_int);

impl SignalKind {
    /// Any signal by number (`libc::SIGUSR1`, …).
    pub const fn from_raw(signum: libc::c_int) -> SignalKind {
        SignalKind(signum)
    }

    /// The signal's number.
    pub const fn as_raw_value(&self) -> libc::c_int {
        self.0
    }

    /// SIGALRM.
    pub const fn alarm() -> SignalKind {
        SignalKind(libc::SIGALRM)
    }

    /// SIGCHLD.
    pub const fn child() -> SignalKind {
        SignalKind(libc::SIGCHLD)
    }

    /// SIGHUP.
    pub const fn hangup() -> SignalKind {
        SignalKind(libc::SIGHUP)
    }

    /// SIGINT (Ctrl-C).
    pub const fn interrupt() -> SignalKind {
        SignalKind(libc::SIGINT)
    }

    /// SIGIO.
    pub const fn io() -> SignalKind {
        SignalKind(libc::SIGIO)
    }

    /// SIGPIPE.
    pub const fn pipe() -> SignalKind {
        SignalKind(libc::SIGPIPE)
    }

    /// SIGQUIT.
    pub const fn quit() -> SignalKind {
        SignalKind(libc::SIGQUIT)
    }

    /// SIGTERM.
    pub const fn terminate() -> SignalKind {
        SignalKind(libc::SIGTERM)
    }

    /// SIGUSR1.
    pub const fn user_defined1() -> SignalKind {
        SignalKind(libc::SIGUSR1)
    }

    /// SIGUSR2.
    pub const fn user_defined2() -> SignalKind {
        SignalKind(libc::SIGUSR2)
    }

    /// SIGWINCH.
    pub const fn window_change() -> SignalKind {
        SignalKind(libc::SIGWINCH)
    }
}

impl From<libc::c_int> for SignalKind {
    fn from(signum: libc::c_int) -> SignalKind {
        SignalKind(signum)
    }
}

impl From<SignalKind> for libc::c_int {
    fn from(kind: SignalKind) -> libc::c_int {
        kind.0
    }
}

/// A listener of one signal: [`Signal::recv`] completes after each delivery (merged when
/// several arrive between two `recv`s). Dropping it removes its action.
pub struct Signal {
    kind: SignalKind,
    /// The eventfd the action writes to; readable once a delivery is pending.
    fd: AsyncFd<std::fs::File>,
    id: signal_hook_registry::SigId,
}

/// Starts listening for `kind`: tokio's `signal`.
///
/// An error for a signal that cannot be caught or must not be (SIGKILL, SIGSTOP, SIGILL,
/// SIGFPE, SIGSEGV) and for numbers that are not signals.
///
/// ```
/// use rt::signal::unix::{signal, SignalKind};
/// # rt::Runtime::new()?.block_on(async {
/// let mut usr1 = signal(SignalKind::user_defined1())?;
/// // SAFETY: raise(3) sends a signal to this thread; rt's action for it is installed.
/// unsafe { libc::raise(libc::SIGUSR1) };
/// assert_eq!(usr1.recv().await, Some(()));
/// # Ok::<(), std::io::Error>(()) })?;
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Panics
/// Outside an rt runtime, and on one built without IO (under the `tokio` face, a `Builder`
/// without `enable_io`): before `kind` is looked at, as in tokio.
#[track_caller]
pub fn signal(kind: SignalKind) -> io::Result<Signal> {
    // The reactor the eventfd below registers with; its checks come first.
    let _ = rt_io::Handle::current_for_io();
    let signum = kind.0;
    if signal_hook_registry::FORBIDDEN.contains(&signum) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("refusing to register signal {signum}: it cannot be handled safely"),
        ));
    }
    if signum <= 0 || signum > libc::SIGRTMAX() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{signum} is not a signal number"),
        ));
    }
    // SAFETY: eventfd takes an initial value and flags; no memory is passed.
    let raw =
        rt_io::syscall::cvt(unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) })?;
    // SAFETY: a new fd that nothing else owns.
    let read = unsafe { OwnedFd::from_raw_fd(raw) };
    // The action's own copy: closed only when the registry drops the action, which it does
    // only once no handler is still running it, so a handler never writes to a reused fd.
    let write = read.try_clone()?;
    let fd = AsyncFd::with_interest(std::fs::File::from(read), Interest::READABLE)?;
    let action = move || {
        let one: u64 = 1;
        // SAFETY: write(2) is async-signal-safe; `write` is open for as long as the action
        // exists, and the buffer is 8 valid bytes. The result is ignored: the only failure
        // possible is a counter at its maximum, which is already readable.
        unsafe { libc::write(write.as_raw_fd(), (&one as *const u64).cast(), 8) };
    };
    // SAFETY: the action only calls write(2) (async-signal-safe), touches no globals, does not
    // allocate and cannot panic; `signum` is not in FORBIDDEN (checked above).
    let id = unsafe { signal_hook_registry::register(signum, action) }?;
    Ok(Signal { kind, fd, id })
}

impl Signal {
    /// Waits for the next delivery; `None` once the runtime's reactor has shut down (no more
    /// deliveries can be seen).
    ///
    /// # Cancel safety
    /// Cancel safe: a delivery seen by a cancelled `recv` stays pending for the next.
    pub async fn recv(&mut self) -> Option<()> {
        poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Polls for the next delivery (see [`Signal::recv`]).
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<()>> {
        loop {
            let mut guard = match self.fd.poll_read_ready(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(_)) => return Poll::Ready(None),
                Poll::Ready(Ok(g)) => g,
            };
            let mut count = [0u8; 8];
            // Reading an eventfd resets its counter: the deliveries since the last read merge.
            match guard.try_io(|fd| (&mut fd.get_ref()).read(&mut count)) {
                Ok(Ok(_)) => return Poll::Ready(Some(())),
                Ok(Err(_)) => return Poll::Ready(None),
                Err(_would_block) => continue,
            }
        }
    }

    /// The signal this listener listens for.
    pub fn kind(&self) -> SignalKind {
        self.kind
    }
}

impl AsRawFd for Signal {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

impl Drop for Signal {
    fn drop(&mut self) {
        signal_hook_registry::unregister(self.id);
    }
}

impl fmt::Debug for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signal").field("kind", &self.kind).finish()
    }
}
