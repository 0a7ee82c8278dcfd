//! `rt-io`: a sharded mio reactor, sockets and timers. Linux only (`timerfd`, `TCP_INQ`,
//! `SO_INCOMING_CPU`, `sched_getcpu`): elsewhere the crate stops with a `compile_error!`.
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
//! - `registration.rs` — a source's slot and shard, the edge-triggered IO loop;
//!   `shard_word.rs` — the shard word (index and MOVING bit) and the move of a source to the
//!   shard of the worker its task runs on (modelled in `loom-tests/tests/registration_move.rs`).
//! - `reactor.rs` — one turn of a shard, and the loop of turns of the `rt-io` thread;
//!   `driver.rs` — starting and stopping the reactor; `handle.rs` — the thread's current
//!   reactor, its shards, and each worker's own shard (tied to the reactor it was bound for);
//!   `worker_driver.rs` — [`WorkerDriver`], the calls only a scheduler makes (take a turn of a
//!   shard, unpark it, bind a worker to its shard).
//! - `syscall.rs` — the one place a libc return value becomes an `io::Result`.
//! - [`net`] — TCP, UDP and Unix sockets; [`io`] — [`io::AsyncFd`] for any fd, and rt's IO traits
//!   and toolkit (`io/util/`: tokio's names and semantics, rt's own code; the helpers that never
//!   wait spend rt-core's cooperative budget).
//! - [`time`] — timers, fired by every turn of every shard (their timerfd is on shard 0).
//!
//! Cargo feature `test-hooks` (off; rt-io's own tests turn it on): `Handle::kill_reactor_for_test`
//! and `Handle::registration_count`. Without it no test hook is compiled into the reactor.
//!
//! Architecture invariants:
//! - This is the only crate of the workspace that names mio.
//! - The wakes of one reactor turn reach the scheduler as one `rt_core::batch` (one unpark).
//! - A reactor that stops — shut down, or its thread panicked — never leaves a task waiting: every
//!   waiter is woken and every IO operation then fails with an `io::Error` saying which.
//! - Generations make a reused registration slot immune to events meant for its previous owner.
#![warn(missing_docs)]

// rt-io is Linux-only: the timers use `timerfd`, TCP streams `TCP_INQ`, accepted connections
// `SO_INCOMING_CPU`, and the shards `sched_getcpu`. Say so at once rather than with a page of
// unresolved libc names.
#[cfg(not(target_os = "linux"))]
compile_error!(
    "rt targets Linux only: rt-io uses timerfd, TCP_INQ, SO_INCOMING_CPU and sched_getcpu"
);

#[macro_use]
pub mod io;
mod driver;
mod handle;
#[doc(hidden)]
pub mod held;
mod listen;
pub mod net;
mod reactor;
mod readiness;
mod registration;
#[doc(hidden)]
pub mod scheduled_io;
#[doc(hidden)]
pub mod shard_word;
mod slab;
mod stopped;
#[doc(hidden)]
pub mod syscall;
pub mod time;
pub mod tuning;
mod worker_driver;

pub use driver::{BlockingSpawner, Driver};
pub use handle::{EnterGuard, Handle};
pub use reactor::ReactorConfig;
pub use stopped::{is_rt_shutdown_err, shutdown_error};
pub use worker_driver::WorkerDriver;
