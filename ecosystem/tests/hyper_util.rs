//! hyper-util on rt: `TokioIo`, `TokioExecutor`, `TokioTimer`, the auto (HTTP/1 and HTTP/2)
//! server, and hyper-util's legacy pooled client.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Full};
use hyper::{body::Incoming, service::service_fn, Request, Response};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;

async fn hello(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from(format!(
        "hello {}",
        req.uri().path()
    )))))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_server_and_pooled_client() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            tokio::spawn(async move {
                let mut builder = auto::Builder::new(TokioExecutor::new());
                builder
                    .http1()
                    .timer(TokioTimer::new())
                    .header_read_timeout(Duration::from_secs(5));
                builder
                    .serve_connection(TokioIo::new(stream), service_fn(hello))
                    .await
                    .unwrap();
            });
        }
    });

    let http1 = Client::builder(TokioExecutor::new())
        .pool_timer(TokioTimer::new())
        .build_http::<Empty<Bytes>>();
    let http2 = Client::builder(TokioExecutor::new())
        .http2_only(true)
        .build_http::<Empty<Bytes>>();
    for (client, path) in [(&http1, "/one"), (&http2, "/two")] {
        let uri = format!("http://{addr}{path}").parse().unwrap();
        let response = client.get(uri).await.unwrap();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(body, format!("hello {path}"));
    }
    assert!(rt_ecosystem::rt_spawned_tasks() >= 3);
}
