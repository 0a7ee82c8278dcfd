//! Helpers for the HTTP tests (`http1_keepalive.rs`, `http2.rs`, `http_body_chunks.rs`,
//! `http_header_timeout.rs`, `axum_routes.rs`): a server on a loopback port, hyper clients.

#![allow(dead_code)]

use std::convert::Infallible;
use std::error::Error as StdError;
use std::net::SocketAddr;

use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes, Incoming};
use hyper::service::Service;
use hyper::{Request, Response};
use rt::net::{TcpListener, TcpStream};
use rt_hyper::{HyperExecutor, HyperIo};

/// Binds a loopback port and serves `service` there with `rt_hyper::serve` in a task.
pub async fn start<S, B>(service: S) -> SocketAddr
where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn StdError + Send + Sync>>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(rt::spawn(async move {
        rt_hyper::serve(listener, service).await.unwrap();
    }));
    addr
}

/// An HTTP/1.1 client connection to `addr`, its connection task spawned.
pub async fn http1_client<B>(addr: SocketAddr) -> hyper::client::conn::http1::SendRequest<B>
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let stream = TcpStream::connect(addr).await.unwrap();
    let (sender, conn) = hyper::client::conn::http1::handshake(HyperIo::new(stream))
        .await
        .unwrap();
    drop(rt::spawn(async move {
        let _ = conn.await;
    }));
    sender
}

/// An HTTP/2 client connection to `addr` (prior knowledge), its connection task spawned.
pub async fn http2_client<B>(addr: SocketAddr) -> hyper::client::conn::http2::SendRequest<B>
where
    B: Body + Send + Unpin + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let stream = TcpStream::connect(addr).await.unwrap();
    let (sender, conn) =
        hyper::client::conn::http2::handshake(HyperExecutor::new(), HyperIo::new(stream))
            .await
            .unwrap();
    drop(rt::spawn(async move {
        let _ = conn.await;
    }));
    sender
}

/// A `GET` of `path` with an empty body.
pub fn get(path: &str) -> Request<http_body_util::Empty<Bytes>> {
    Request::get(path)
        .header("host", "localhost")
        .body(http_body_util::Empty::new())
        .unwrap()
}

/// The whole body of `resp` as a string.
pub async fn body_string(resp: Response<Incoming>) -> String {
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// A handler answering `"{method} {path}"`.
pub async fn echo_path(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let text = format!("{} {}", req.method(), req.uri().path());
    Ok(Response::new(Full::new(Bytes::from(text))))
}
