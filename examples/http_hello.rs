//! A hyper HTTP server on rt: answers every request with "Hello, world!" over HTTP/1.1 or HTTP/2,
//! until killed.
//!
//! Run: `cargo run --release --example http_hello [ADDR]` (default 127.0.0.1:3000), then
//! `curl http://127.0.0.1:3000/` (or `cargo run --release --example http_client`).

use std::convert::Infallible;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper::{Request, Response};

async fn hello(_req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(
        b"Hello, world!\n",
    ))))
}

#[rt::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3000".to_string());
    let listener = rt::net::TcpListener::bind(addr.as_str()).await?;
    println!("http_hello listening on http://{}", listener.local_addr()?);
    rt_hyper::serve(listener, service_fn(hello)).await
}
