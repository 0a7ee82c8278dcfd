//! hyper's HTTP/1.1 server and client on rt: several requests answered in turn over one kept-alive
//! connection (one TCP stream, one handshake).

mod http_support;
#[path = "../../rt/tests/support/mod.rs"]
mod support;

use hyper::service::service_fn;
use hyper::{StatusCode, Version};

#[test]
fn http1_requests_share_one_connection() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            let addr = http_support::start(service_fn(http_support::echo_path)).await;
            let mut client = http_support::http1_client(addr).await;
            for i in 0..5 {
                client.ready().await.unwrap();
                let resp = client
                    .send_request(http_support::get(&format!("/r{i}")))
                    .await
                    .unwrap();
                assert_eq!(resp.status(), StatusCode::OK);
                assert_eq!(resp.version(), Version::HTTP_11);
                assert_eq!(http_support::body_string(resp).await, format!("GET /r{i}"));
            }
            // The connection is still open after five requests: it was kept alive.
            assert!(!client.is_closed());
        })
    });
}
