//! `rt-hyper`: hyper 1 on rt — the runtime pieces hyper asks for, and a server loop.
//!
//! - [`HyperExecutor`]: `hyper::rt::Executor`, spawning on the current rt runtime (HTTP/2's
//!   connection and stream tasks).
//! - [`HyperTimer`]: `hyper::rt::Timer` over rt's timers; its `reset` moves the rt sleep's
//!   deadline in place instead of allocating a new sleep.
//! - [`HyperIo`]: `hyper::rt::Read` + `Write` for any rt stream (any `rt::io::AsyncRead` /
//!   `AsyncWrite`), reading into hyper's uninitialised buffer without zeroing it; and rt's
//!   traits for anything hyper hands back (an upgraded connection).
//! - [`serve`] / [`serve_with_shutdown`]: accept on a listener and serve each connection with
//!   hyper-util's auto builder (HTTP/1.1 or HTTP/2 by the client's first bytes), the executor and
//!   timer installed, so a header-read timeout works instead of panicking (hyper #3919).
//!
//! These are the shapes of hyper-util's `TokioExecutor`, `TokioTimer` and `TokioIo`: porting
//! is a rename.
//!
//! It is its own crate, outside `rt`'s dependency graph: hyper, h2 and hyper-util depend on
//! crates.io `tokio` (for its IO traits), which `rt` itself does not.
//!
//! ```no_run
//! use std::convert::Infallible;
//! use http_body_util::Full;
//! use hyper::body::{Bytes, Incoming};
//! use hyper::{Request, Response};
//!
//! async fn hello(_: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
//!     Ok(Response::new(Full::new(Bytes::from("hello"))))
//! }
//!
//! #[rt::main]
//! async fn main() -> std::io::Result<()> {
//!     let listener = rt::net::TcpListener::bind("127.0.0.1:3000").await?;
//!     rt_hyper::serve(listener, hyper::service::service_fn(hello)).await
//! }
//! ```
//!
//! A server and a client on one runtime:
//!
//! ```
//! use std::convert::Infallible;
//! use http_body_util::{BodyExt, Empty, Full};
//! use hyper::body::{Bytes, Incoming};
//! use hyper::{service::service_fn, Request, Response};
//! use rt_hyper::HyperIo;
//!
//! async fn hello(_: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
//!     Ok(Response::new(Full::new(Bytes::from("Hello, world!"))))
//! }
//!
//! # rt::Runtime::new()?.block_on(async {
//! let listener = rt::net::TcpListener::bind("127.0.0.1:0").await?;
//! let addr = listener.local_addr()?;
//! rt::spawn(rt_hyper::serve(listener, service_fn(hello)));
//!
//! let stream = rt::net::TcpStream::connect(addr).await?;
//! let (mut client, conn) = hyper::client::conn::http1::handshake(HyperIo::new(stream)).await?;
//! rt::spawn(conn);
//! let req = Request::get("/").header("host", "localhost").body(Empty::<Bytes>::new())?;
//! let body = client.send_request(req).await?.into_body().collect().await?.to_bytes();
//! assert_eq!(body, "Hello, world!");
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! # }).unwrap();
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! An axum `Router` is a tower service: hyper-util's `TowerToHyperService` hands it to
//! [`serve`] ([`serve_with_shutdown`] adds a graceful shutdown). The README's example:
//!
//! ```
//! use axum::{routing::get, Router};
//! use hyper_util::service::TowerToHyperService;
//! use rt::io::AsyncReadExt;
//!
//! # rt::Runtime::new()?.block_on(async {
//! let app = Router::new().route("/", get(|| async { "hello" }));
//! let listener = rt::net::TcpListener::bind("127.0.0.1:0").await?;
//! let addr = listener.local_addr()?;
//! rt::spawn(rt_hyper::serve(listener, TowerToHyperService::new(app)));
//!
//! let mut stream = rt::net::TcpStream::connect(addr).await?;
//! stream.write_all(b"GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").await?;
//! let mut response = String::new();
//! stream.read_to_string(&mut response).await?;
//! assert!(response.ends_with("hello"));
//! # rt::io::Result::Ok(())
//! # })?;
//! # Ok::<(), std::io::Error>(())
//! ```

#![warn(missing_docs)]

mod executor;
mod io;
mod serve;
mod timer;

pub use executor::HyperExecutor;
pub use io::HyperIo;
pub use serve::{serve, serve_with_shutdown};
pub use timer::HyperTimer;
