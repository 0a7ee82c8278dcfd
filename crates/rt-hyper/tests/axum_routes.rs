//! An axum `Router` served by rt through hyper (`TowerToHyperService`, not axum's own `serve`,
//! which needs tokio's runtime): a JSON route and a route with a path parameter.

mod http_support;
#[path = "../../rt/tests/support/mod.rs"]
mod support;

use axum::extract::Path;
use axum::routing::get;
use axum::{Json, Router};
use hyper::StatusCode;
use hyper_util::service::TowerToHyperService;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Status {
    ok: bool,
    runtime: String,
}

fn app() -> Router {
    Router::new()
        .route(
            "/status",
            get(|| async {
                Json(Status {
                    ok: true,
                    runtime: "rt".into(),
                })
            }),
        )
        .route(
            "/users/{id}",
            get(|Path(id): Path<u32>| async move { format!("user {id}") }),
        )
}

#[test]
fn axum_json_and_path_parameter() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            let addr = http_support::start(TowerToHyperService::new(app())).await;
            let mut client = http_support::http1_client(addr).await;

            let resp = client
                .send_request(http_support::get("/status"))
                .await
                .unwrap();
            assert_eq!(resp.status(), StatusCode::OK);
            assert_eq!(
                resp.headers()["content-type"].to_str().unwrap(),
                "application/json"
            );
            let status: Status =
                serde_json::from_str(&http_support::body_string(resp).await).unwrap();
            assert_eq!(
                status,
                Status {
                    ok: true,
                    runtime: "rt".into()
                }
            );

            client.ready().await.unwrap();
            let resp = client
                .send_request(http_support::get("/users/42"))
                .await
                .unwrap();
            assert_eq!(resp.status(), StatusCode::OK);
            assert_eq!(http_support::body_string(resp).await, "user 42");

            client.ready().await.unwrap();
            let resp = client
                .send_request(http_support::get("/users/not-a-number"))
                .await
                .unwrap();
            assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
        })
    });
}
