//! tonic on rt: `Server::builder()` with a unary and a server-streaming method, and a `Channel`
//! client with deadlines. The service is what tonic's code generator writes, by hand (no protoc
//! in the build).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http::uri::PathAndQuery;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;
use tonic::body::Body;
use tonic::server::{Grpc, NamedService, ServerStreamingService, UnaryService};
use tonic::transport::{Channel, Server};
use tonic::{Code, Request, Response, Status};
use tonic_prost::ProstCodec;

#[derive(Clone, PartialEq, prost::Message)]
struct Say {
    #[prost(string, tag = "1")]
    text: String,
    #[prost(uint32, tag = "2")]
    times: u32,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

#[derive(Clone)]
struct Echo;

impl NamedService for Echo {
    const NAME: &'static str = "echo.Echo";
}

struct Unary;

impl UnaryService<Say> for Unary {
    type Response = Say;
    type Future = BoxFuture<Result<Response<Say>, Status>>;
    fn call(&mut self, request: Request<Say>) -> Self::Future {
        Box::pin(async move {
            let say = request.into_inner();
            if say.text == "slow" {
                tokio::time::sleep(Duration::from_secs(60)).await;
            }
            Ok(Response::new(Say {
                text: say.text.to_uppercase(),
                times: 1,
            }))
        })
    }
}

struct Repeat;

impl ServerStreamingService<Say> for Repeat {
    type Response = Say;
    type ResponseStream = ReceiverStream<Result<Say, Status>>;
    type Future = BoxFuture<Result<Response<Self::ResponseStream>, Status>>;
    fn call(&mut self, request: Request<Say>) -> Self::Future {
        Box::pin(async move {
            let say = request.into_inner();
            let (tx, rx) = tokio::sync::mpsc::channel(4);
            tokio::spawn(async move {
                for i in 0..say.times {
                    let item = Say {
                        text: say.text.clone(),
                        times: i,
                    };
                    if tx.send(Ok(item)).await.is_err() {
                        break;
                    }
                }
            });
            Ok(Response::new(ReceiverStream::new(rx)))
        })
    }
}

impl tower::Service<http::Request<Body>> for Echo {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        match request.uri().path() {
            "/echo.Echo/Unary" => Box::pin(async move {
                let mut grpc = Grpc::new(ProstCodec::<Say, Say>::default());
                Ok(grpc.unary(Unary, request).await)
            }),
            "/echo.Echo/Repeat" => Box::pin(async move {
                let mut grpc = Grpc::new(ProstCodec::<Say, Say>::default());
                Ok(grpc.server_streaming(Repeat, request).await)
            }),
            _ => Box::pin(async { Ok(Status::unimplemented("no such method").into_http()) }),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unary_streaming_and_deadlines() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(
        Server::builder()
            .add_service(Echo)
            .serve_with_incoming_shutdown(
                tokio_stream::wrappers::TcpListenerStream::new(listener),
                async {
                    stop_rx.await.ok();
                },
            ),
    );

    let channel = Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .timeout(Duration::from_secs(10))
        .connect()
        .await
        .unwrap();
    let mut client = tonic::client::Grpc::new(channel);

    client.ready().await.unwrap();
    let reply: Response<Say> = client
        .unary(
            Request::new(Say {
                text: "hi".into(),
                times: 0,
            }),
            PathAndQuery::from_static("/echo.Echo/Unary"),
            ProstCodec::default(),
        )
        .await
        .unwrap();
    assert_eq!(reply.into_inner().text, "HI");

    client.ready().await.unwrap();
    let stream = client
        .server_streaming(
            Request::new(Say {
                text: "again".into(),
                times: 3,
            }),
            PathAndQuery::from_static("/echo.Echo/Repeat"),
            ProstCodec::<Say, Say>::default(),
        )
        .await
        .unwrap()
        .into_inner();
    let items: Vec<u32> = stream.map(|item| item.unwrap().times).collect().await;
    assert_eq!(items, [0, 1, 2]);

    // A deadline: the server's handler sleeps far longer; the call ends at the deadline.
    client.ready().await.unwrap();
    let mut slow = Request::new(Say {
        text: "slow".into(),
        times: 0,
    });
    slow.set_timeout(Duration::from_millis(100));
    let started = tokio::time::Instant::now();
    let status = client
        .unary::<Say, Say, _>(
            slow,
            PathAndQuery::from_static("/echo.Echo/Unary"),
            ProstCodec::default(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(status.code(), Code::Cancelled | Code::DeadlineExceeded),
        "{status:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(30));

    stop_tx.send(()).unwrap();
    server.await.unwrap().unwrap();
    assert!(rt_ecosystem::rt_spawned_tasks() >= 3);
}
