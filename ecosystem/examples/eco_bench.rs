//! Throughput of three ecosystem workloads, for `scripts/ecosystem-bench.py`, which builds this
//! program twice — through the `tokio` face (rt) and against crates.io tokio — and runs the two
//! in alternating rounds. 2 worker threads, default settings.
//!
//! `eco_bench sqlx|reqwest|tonic [OPS]` prints `<workload> <ops> <seconds> <ops/s>`.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http::uri::PathAndQuery;
use tonic::body::Body;
use tonic::server::{Grpc, NamedService, UnaryService};
use tonic::{Request, Response, Status};
use tonic_prost::ProstCodec;

/// Concurrent clients of each workload.
const CLIENTS: usize = 32;

fn main() {
    let mut args = std::env::args().skip(1);
    let workload = args.next().unwrap_or_else(|| "sqlx".into());
    let ops: usize = args.next().map_or(20_000, |n| n.parse().unwrap());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let elapsed = runtime.block_on(async {
        match workload.as_str() {
            "sqlx" => sqlx_queries(ops).await,
            "reqwest" => reqwest_gets(ops).await,
            "tonic" => tonic_unary(ops).await,
            other => panic!("unknown workload {other}: sqlx, reqwest or tonic"),
        }
    });
    let secs = elapsed.as_secs_f64();
    println!("{workload} {ops} {secs:.4} {:.0}", ops as f64 / secs);
}

/// Runs `ops` calls of `call` from `CLIENTS` tasks; returns the time they took.
async fn drive<F, Fut>(ops: usize, call: F) -> Duration
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send,
{
    let call = Arc::new(call);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for client in 0..CLIENTS {
        let call = call.clone();
        let n = ops / CLIENTS + usize::from(client < ops % CLIENTS);
        tasks.push(tokio::spawn(async move {
            for _ in 0..n {
                call().await;
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    start.elapsed()
}

async fn sqlx_queries(ops: usize) -> Duration {
    let pool = sqlx::sqlite::SqlitePoolOptions::new()
        .max_connections(4)
        .connect("sqlite::memory:")
        .await
        .unwrap();
    drive(ops, move || {
        let pool = pool.clone();
        async move {
            let v: i64 = sqlx::query_scalar("SELECT ?1 * 2")
                .bind(21i64)
                .fetch_one(&pool)
                .await
                .unwrap();
            assert_eq!(v, 42);
        }
    })
    .await
}

async fn reqwest_gets(ops: usize) -> Duration {
    let app = axum::Router::new().route("/", axum::routing::get(|| async { "hello" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let client = reqwest::Client::new();
    let url = format!("http://{addr}/");
    drive(ops, move || {
        let request = client.get(&url);
        async move {
            let body = request.send().await.unwrap().bytes().await.unwrap();
            assert_eq!(&body[..], b"hello");
        }
    })
    .await
}

#[derive(Clone, PartialEq, prost::Message)]
struct Num {
    #[prost(int64, tag = "1")]
    n: i64,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

#[derive(Clone)]
struct Double;

impl NamedService for Double {
    const NAME: &'static str = "bench.Double";
}

impl UnaryService<Num> for Double {
    type Response = Num;
    type Future = BoxFuture<Result<Response<Num>, Status>>;
    fn call(&mut self, request: Request<Num>) -> Self::Future {
        Box::pin(async move {
            Ok(Response::new(Num {
                n: request.into_inner().n * 2,
            }))
        })
    }
}

impl tower::Service<http::Request<Body>> for Double {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Self::Response, Infallible>>;
    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }
    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        Box::pin(async move {
            let mut grpc = Grpc::new(ProstCodec::<Num, Num>::default());
            Ok(grpc.unary(Double, request).await)
        })
    }
}

async fn tonic_unary(ops: usize) -> Duration {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(Double)
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );
    let channel = tonic::transport::Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    drive(ops, move || {
        let mut client = tonic::client::Grpc::new(channel.clone());
        async move {
            client.ready().await.unwrap();
            let reply: Response<Num> = client
                .unary(
                    Request::new(Num { n: 21 }),
                    PathAndQuery::from_static("/bench.Double/Double"),
                    ProstCodec::default(),
                )
                .await
                .unwrap();
            assert_eq!(reply.into_inner().n, 42);
        }
    })
    .await
}
