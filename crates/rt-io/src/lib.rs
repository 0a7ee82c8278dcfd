//! `rt-io`: a mio reactor (one shard per worker, or one on its own thread), sockets and timers.
//!
//! Linux only: it uses epoll (through mio), `timerfd`, `TCP_INQ`, `SO_INCOMING_CPU` and
//! `sched_getcpu`; elsewhere the crate stops with a compile error that says so.
//!
//! # Bird's-eye view
//!
//! A [`Driver`] owns the reactor: one `mio::Poll` on a dedicated thread named `rt-io`
//! ([`Driver::start`]), or one `mio::Poll` per worker — a *shard* — that the runtime's workers
//! drive themselves ([`Driver::start_on_workers`], the default of a multi-thread runtime: a
//! source registers on the shard of the worker that creates it and moves with a task that keeps
//! running elsewhere). The model is readiness, not completion: the reactor records what
//! the OS reports and wakes the waiting tasks; each task does its own non-blocking syscall and, on
//! `WouldBlock`, clears the readiness it saw and waits for the next edge.
//!
//! - `readiness.rs` — the readiness word's bit layout (readiness, shutdown, tick, generation).
//! - `scheduled_io.rs` — one registration's word and wakers, and the protocol between reactor and
//!   tasks (modelled in `loom-tests/tests/readiness.rs`).
//! - `slab.rs` — registrations by token (index + generation).
//! - `registration.rs` — a source's slot and shard, the edge-triggered IO loop, and the move of a
//!   source to the shard of the worker its task runs on.
//! - `reactor.rs` — the loop of the `rt-io` thread; `driver.rs` — starting and stopping it;
//!   `handle.rs` — the thread's current reactor, its shards, and each thread's own shard.
//! - [`net`] — TCP, UDP and Unix sockets; [`io`] — [`io::AsyncFd`] for any fd.
//! - [`time`] — timers, driven by the same thread.
//!
//! Architecture invariants:
//! - This is the only crate of the workspace that names mio.
//! - The wakes of one reactor turn reach the scheduler as one `rt_core::batch` (one unpark).
//! - A reactor that stops — shut down, or its thread panicked — never leaves a task waiting: every
//!   waiter is woken and every IO operation then fails with an `io::Error` saying which.
//! - Generations make a reused registration slot immune to events meant for its previous owner.

#[cfg(not(target_os = "linux"))]
compile_error!(
    "rt targets Linux: rt-io uses epoll, timerfd, TCP_INQ, SO_INCOMING_CPU and sched_getcpu, \
     which this target does not have"
);

#[macro_use]
pub mod io;
mod driver;
mod handle;
pub mod net;
mod reactor;
mod readiness;
mod registration;
#[doc(hidden)]
pub mod scheduled_io;
mod slab;
mod sys;
pub mod time;

pub use driver::Driver;
pub use handle::{EnterGuard, Handle};
