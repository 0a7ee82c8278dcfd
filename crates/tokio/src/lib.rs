//! tokio's API on the rt runtime.
//!
//! This crate is named `tokio` so that a tokio application, and every library in its graph,
//! runs on rt with one patch:
//!
//! ```toml
//! [patch.crates-io]
//! tokio = { path = "<rt checkout>/crates/tokio" }
//! ```
//!
//! `cargo tree -i tokio` then shows this crate alone. `#[tokio::main]`, `tokio::spawn`,
//! `tokio::time::sleep` and `tokio::net::TcpStream` — in the application and inside reqwest,
//! tonic, axum or sqlx — are rt's scheduler, timers and reactor, with rt's stall detection,
//! dumps, traces and metrics.
//!
//! Everything here is a re-export of `rt` under tokio's module tree, so `tokio::net::TcpStream`
//! and `rt::net::TcpStream` are one type and code can mix the two paths. Where rt's default
//! differs from tokio's on purpose, this crate gives tokio's documented behaviour:
//! `tokio::sync::Mutex` is strictly FIFO (rt's is eventually fair); a runtime built without
//! `Builder::enable_io` / `enable_time` (or `enable_all`) panics where a socket or a timer is
//! created, as tokio's does (rt's always has both; `#[tokio::main]`, `#[tokio::test]` and
//! `Runtime::new` turn both on); and calls made outside a runtime panic with tokio's messages.
//! The rest of what differs is in rt's `docs/PORTING.md`.
//!
//! ```
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() {
//!     let (tx, rx) = tokio::sync::oneshot::channel();
//!     tokio::spawn(async move { tx.send(7).unwrap() });
//!     assert_eq!(rx.await.unwrap(), 7);
//!     // The runtime underneath is rt's.
//!     assert_eq!(tokio::runtime::Handle::current().metrics().num_workers(), 1);
//! }
//! ```
#![warn(missing_docs)]

pub use rt::{join, pin, select, spawn, task_local, try_join};
/// Marks the `async fn main` that a runtime runs: tokio's attribute, on rt's runtime, with
/// tokio's options (`flavor`, `worker_threads`, `start_paused`, `unhandled_panic`, `crate`).
pub use rt_macros::tokio_main as main;
/// Marks an `async fn` test that a runtime runs: tokio's attribute, on rt's runtime.
pub use rt_macros::tokio_test as test;

/// Asynchronous filesystem operations, on rt's blocking pool.
pub mod fs {
    pub use rt::fs::*;
}

/// IO traits, helpers and type definitions: rt's, under tokio's names.
pub mod io {
    pub use rt::io::*;
}

/// TCP, UDP and Unix-domain sockets on rt's reactor.
pub mod net {
    pub use rt::net::*;
}

/// Child processes, seen through pidfds on rt's reactor.
pub mod process {
    pub use rt::process::*;
}

/// The runtime: rt's `Runtime`, `Builder` and `Handle` under tokio's names.
pub mod runtime {
    pub use rt::runtime::*;
}

/// Signals through rt's reactor.
pub mod signal {
    pub use rt::signal::*;
}

/// Synchronisation primitives and channels. `Mutex::new` makes a strictly FIFO lock here, as
/// tokio documents (this crate turns on rt's `fifo-mutex`).
pub mod sync {
    pub use rt::sync::*;
}

/// Tasks: spawning, `JoinHandle`, `JoinSet`, `LocalSet`, task-locals, the cooperative budget.
pub mod task {
    pub use rt::task::*;

    /// Named future types of the task module (tokio's `task::futures`).
    pub mod futures {
        pub use rt::task::TaskLocalFuture;
    }
}

/// Timers: `sleep`, `timeout`, `interval`, paused time.
pub mod time {
    pub use rt::time::*;
}

/// What tokio's macros name at `tokio::macros::support` (`poll_fn`), at the same path.
#[doc(hidden)]
pub mod macros {
    pub use rt::macros::support;
}
