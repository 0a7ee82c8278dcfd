//! Running the ecosystem on rt: adapters for libraries written against tokio.
//!
//! - `hyper` (cargo feature `hyper`): hyper 1's runtime traits over rt (`HyperExecutor`,
//!   `HyperTimer`, `HyperIo`) and `serve` / `serve_with_shutdown`, which serve HTTP/1.1 and
//!   HTTP/2 (auto-detected) on an [`rt::net::TcpListener`](crate::net::TcpListener) — axum
//!   routers included, through hyper-util's `TowerToHyperService`.
//! - `tokio` (cargo feature `tokio-compat`): `Compat`, which runs a future that needs tokio's
//!   reactor or timers (a tokio-only client library) inside an rt task.

#[cfg(feature = "hyper")]
pub mod hyper;
#[cfg(feature = "tokio-compat")]
pub mod tokio;
