//! hyper's HTTP/2 on rt: the server's auto-detection picks HTTP/2 for a prior-knowledge client,
//! and many requests run concurrently over one connection (streams spawned on `HyperExecutor`).

mod http_support;
#[path = "../../rt/tests/support/mod.rs"]
mod support;

use hyper::service::service_fn;
use hyper::{StatusCode, Version};

#[test]
fn http2_multiplexes_concurrent_requests() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            let addr = http_support::start(service_fn(http_support::echo_path)).await;
            let client = http_support::http2_client(addr).await;
            let mut tasks = Vec::new();
            for i in 0..16 {
                let mut client = client.clone();
                tasks.push(rt::spawn(async move {
                    client.ready().await.unwrap();
                    let resp = client
                        .send_request(http_support::get(&format!("/s{i}")))
                        .await
                        .unwrap();
                    assert_eq!(resp.status(), StatusCode::OK);
                    assert_eq!(resp.version(), Version::HTTP_2);
                    http_support::body_string(resp).await
                }));
            }
            for (i, t) in tasks.into_iter().enumerate() {
                assert_eq!(t.await.unwrap(), format!("GET /s{i}"));
            }
        })
    });
}
