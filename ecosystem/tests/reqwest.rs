//! reqwest on rt, async and `reqwest::blocking`, against an axum server on loopback.

use axum::{routing::post, Json, Router};
use serde_json::{json, Value};

async fn server() -> std::net::SocketAddr {
    let app = Router::new().route(
        "/echo",
        post(|Json(body): Json<Value>| async move { Json(json!({ "got": body })) }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_client() {
    let addr = server().await;
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(10))
        .build()
        .unwrap();
    for i in 0..3 {
        let got: Value = client
            .post(format!("http://{addr}/echo"))
            .json(&json!({ "n": i }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(got, json!({ "got": { "n": i } }));
    }
}

#[test]
fn blocking_client() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let addr = runtime.block_on(server());
    // reqwest::blocking runs its own runtime on a thread of its own: rt's, under the patch.
    let got: Value = reqwest::blocking::Client::new()
        .post(format!("http://{addr}/echo"))
        .json(&json!({ "blocking": true }))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(got, json!({ "got": { "blocking": true } }));
}
