//! An axum app on rt: a `Router` with a JSON route and a route with a path parameter, served by
//! `rt_hyper::serve` (axum's own `serve` needs tokio's runtime; its `tower::Service` is
//! adapted with hyper-util's `TowerToHyperService`).
//!
//! Run: `cargo run --release --example axum_hello [ADDR]` (default 127.0.0.1:3000), then
//! `curl http://127.0.0.1:3000/status` and `curl http://127.0.0.1:3000/hello/you`.

use axum::extract::Path;
use axum::routing::get;
use axum::{Json, Router};
use hyper_util::service::TowerToHyperService;
use serde::Serialize;

#[derive(Serialize)]
struct Status {
    ok: bool,
    runtime: &'static str,
}

async fn status() -> Json<Status> {
    Json(Status {
        ok: true,
        runtime: "rt",
    })
}

async fn hello(Path(name): Path<String>) -> String {
    format!("Hello, {name}!\n")
}

#[rt::main]
async fn main() -> std::io::Result<()> {
    let app = Router::new()
        .route("/status", get(status))
        .route("/hello/{name}", get(hello));
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3000".to_string());
    let listener = rt::net::TcpListener::bind(addr.as_str()).await?;
    println!("axum_hello listening on http://{}", listener.local_addr()?);
    rt_hyper::serve(listener, TowerToHyperService::new(app)).await
}
