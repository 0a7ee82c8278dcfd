//! Signals through the reactor: tokio's `signal` shape ([`ctrl_c`], [`unix::signal`]).
//!
//! Each listener ([`unix::Signal`]) owns an `eventfd` registered with the runtime's reactor
//! (an [`rt_io::io::AsyncFd`]) and one action installed for its signal with the
//! `signal-hook-registry` crate. The action — run inside the signal handler, so it only does
//! an async-signal-safe `write` — adds 1 to the eventfd; the listener's `recv` waits for the
//! eventfd to be readable and reads (resets) it. So:
//!
//! - any number of listeners of one signal, in any number of runtimes of either flavour, are
//!   each woken after every delivery;
//! - deliveries that arrive before a listener's next `recv` are merged into one wake-up — and the
//!   kernel itself merges repeats of a standard signal that is already pending — so count
//!   `recv`s as "at least one signal since the last `recv`", never as a number of signals;
//! - a signal delivered before a listener exists is not seen by it.
//!
//! As with tokio, once a listener for a signal has existed, the signal's default action (for
//! SIGINT and SIGTERM: ending the process) is replaced for the rest of the process, even after
//! every listener is dropped; handlers installed before rt's are still called first.
//!
//! Layering: the facade, because a listener needs only rt-io's public `AsyncFd`, libc and
//! signal-hook-registry; rt-io's reactor knows nothing of signals.
//!
//! ```no_run
//! # async fn serve() {}
//! # rt::Runtime::new()?.block_on(async {
//! rt::select! {
//!     _ = serve() => {}
//!     r = rt::signal::ctrl_c() => { r?; println!("shutting down"); }
//! }
//! # Ok::<(), std::io::Error>(()) })?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Signals (`rt::signal`)
//!
//! ```rust,no_run
//! use rt::signal::unix::{signal, SignalKind};
//!
//! #[rt::main]
//! async fn main() -> std::io::Result<()> {
//!     let mut hangup = signal(SignalKind::hangup())?;
//!     loop {
//!         rt::select! {
//!             r = rt::signal::ctrl_c() => { r?; break; }
//!             _ = hangup.recv() => println!("reloading"),
//!         }
//!     }
//!     Ok(())
//! }
//! ```
//!
//! Each listener is woken at least once after every delivery; deliveries between two `recv`s merge
//! into one (and the kernel merges repeats of a pending signal), as in tokio. Once a listener for a
//! signal has existed, its default action (ending the process, for SIGINT) stays replaced.

pub mod unix;

use std::io;

/// Waits for the next SIGINT (Ctrl-C) after the call is first polled: tokio's `ctrl_c`.
///
/// The first poll installs rt's SIGINT action for the rest of the process: Ctrl-C no longer
/// ends the program by itself (see the module docs).
///
/// # Panics
/// Outside an rt runtime.
pub async fn ctrl_c() -> io::Result<()> {
    let mut s = unix::signal(unix::SignalKind::interrupt())?;
    match s.recv().await {
        Some(()) => Ok(()),
        None => Err(io::Error::other(
            "the runtime's reactor shut down while waiting for ctrl-c",
        )),
    }
}
