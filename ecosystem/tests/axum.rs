//! axum on rt, as a tokio user writes it: `axum::serve` with tower-http's `TimeoutLayer` and
//! `TraceLayer`, tower's `ConcurrencyLimitLayer`, and a graceful shutdown.

use std::time::Duration;

use axum::{routing::get, Router};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tower::limit::ConcurrencyLimitLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

async fn get_path(addr: std::net::SocketAddr, path: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_with_layers_and_graceful_shutdown() {
    #[allow(deprecated)]
    let timeout = TimeoutLayer::new(Duration::from_millis(200));
    let app = Router::new()
        .route("/", get(|| async { "hello" }))
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(60)).await;
                "too late"
            }),
        )
        .layer(timeout)
        .layer(TraceLayer::new_for_http())
        .layer(ConcurrencyLimitLayer::new(64));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                stop_rx.await.ok();
            })
            .await
            .unwrap();
    });

    assert!(get_path(addr, "/").await.ends_with("hello"));
    let slow = get_path(addr, "/slow").await;
    assert!(slow.starts_with("HTTP/1.1 408"), "{slow}");
    stop_tx.send(()).unwrap();
    server.await.unwrap();
    assert!(rt_ecosystem::rt_spawned_tasks() >= 3);
}
