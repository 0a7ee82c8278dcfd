//! `rt`: a multi-threaded, work-stealing async runtime.
//!
//! ```
//! let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
//! let h: rt::task::JoinHandle<u32> = rt.spawn(async { 1 });
//! assert_eq!(rt.block_on(h)?, 1);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! The API follows tokio's names and shapes: `Runtime`, `Builder`, `Handle`, `spawn`,
//! `spawn_blocking`, `task::JoinHandle`, `net`, `time`, `sync`, `#[rt::main]`, `#[rt::test]`.
//!
//! The network half of tokio's ecosystem runs on rt too: `rt::io` has tokio's IO traits and
//! toolkit under tokio's names (rt's own code, in rt-io), `rt::stream` has tokio-stream's
//! wrappers, and the `rt-hyper` crate has hyper 1 support (`serve`, which also serves axum
//! routers).
//!
//! Architecture invariant: this crate is the only public API boundary. The crates under it
//! (`rt-core`, `rt-sched`, `rt-io`, `rt-sync`) are implementation detail; users name `rt::`.
//!
//! # `select!`, `join!`, `try_join!`
//!
//! tokio's syntax and semantics: `pattern = future (, if condition)? => handler`, `else =>`,
//! `biased;`; otherwise each call starts polling at a random branch. Losers are dropped before the
//! handler runs; every rt future's rustdoc has a `# Cancel safety` section.
//!
//! ```rust
//! let rt = rt::Builder::new_current_thread().build()?;
//! rt.block_on(async {
//!     let (tx, mut rx) = rt::sync::oneshot::channel::<u32>();
//!     tx.send(7).unwrap();
//!     let got = rt::select! {
//!         v = &mut rx => v.unwrap(),
//!         _ = std::future::pending::<()>() => 0,
//!     };
//!     assert_eq!(got, 7);
//!
//!     let (a, b) = rt::join!(async { 1 }, async { "two" });
//!     assert_eq!((a, b), (1, "two"));
//!     let r: Result<(u8, u8), &str> = rt::try_join!(async { Ok(1) }, async { Err("no") });
//!     assert_eq!(r, Err("no"));
//! });
//! # Ok::<(), std::io::Error>(())
//! ```
#![warn(missing_docs)]

pub mod adapt;
mod builder;
mod context;
pub mod coro;
mod dump;
mod flavor;
pub mod fs;
mod handle;
pub mod io;
mod local_runtime;
#[doc(hidden)]
pub mod macros;
pub mod process;
pub mod runtime;
mod runtime_id;
pub mod signal;
mod stall;
pub mod stream;
pub mod task;
mod trace_file;
mod tuning;
mod unhandled;
mod worker_index;

pub use builder::Builder;
pub use context::EnterGuard;
pub use dump::{Dump, TaskDump, TaskState};
pub use handle::Handle;
pub use rt_macros::{main, test};
pub use runtime::Runtime;
pub use stall::StallInfo;
pub use unhandled::UnhandledPanic;

#[doc(hidden)]
pub mod __private {
    pub use crate::macros::{
        poll_budget_available, thread_rng_n, BiasedRotator, BranchMask, Branches, Disabled,
        JoinRotator, MaybeDone, Out,
    };
    pub use rt_macros::select_clean_pattern;
}

pub mod metrics;
pub mod net;
pub mod sync;
pub mod time;

use std::future::Future;

/// Spawns a task onto the current runtime.
///
/// # Panics
/// Outside a runtime, with a message that says how to get one.
#[track_caller]
pub fn spawn<F>(future: F) -> task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    // Borrowed, not cloned: `#[track_caller]` does not reach through the closure, so the
    // caller's location is taken here.
    let meta = rt_core::task::SpawnMeta::caller();
    match context::with_current(|h| h.spawn_with(future, meta)) {
        Some(join) => join,
        None => context::no_runtime(
            "rt::spawn called outside of an rt runtime: call it from a task, inside \
             Runtime::block_on or #[rt::main], or spawn through a Handle \
             (Runtime::handle().spawn(..)) from other threads",
        ),
    }
}

/// Runs a blocking closure on the current runtime's blocking pool.
///
/// # Panics
/// Outside a runtime.
#[track_caller]
pub fn spawn_blocking<F, R>(f: F) -> task::JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    match context::try_current() {
        Some(h) => h.spawn_blocking(f),
        None => context::no_runtime(
            "rt::spawn_blocking called outside of an rt runtime: call it from a task, inside \
             Runtime::block_on or #[rt::main], or through a Handle (Runtime::handle())",
        ),
    }
}

/// The README's Rust examples, compiled and run as doctests so they cannot rot.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
