//! `rt_hyper::serve_with_shutdown`: once the signal completes, the listener is closed
//! (new connections are refused), a request in flight still gets its response, and the call
//! returns only after that connection has closed.

mod http_support;
#[path = "../../rt/tests/support/mod.rs"]
mod support;

use std::convert::Infallible;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use rt::net::{TcpListener, TcpStream};

#[test]
fn in_flight_request_finishes_after_shutdown() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            // The handler says it started, then waits for `release` before answering.
            let (started_tx, started_rx) = rt::sync::channel::unbounded::<()>();
            let (release_tx, release_rx) = rt::sync::channel::unbounded::<()>();
            let service = service_fn(move |_req: Request<Incoming>| {
                let started = started_tx.clone();
                let release = release_rx.clone();
                async move {
                    started.send(()).await.unwrap();
                    release.recv().await.unwrap();
                    Ok::<_, Infallible>(Response::new(Full::new(Bytes::from("done"))))
                }
            });

            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let (stop_tx, stop_rx) = rt::sync::oneshot::channel::<()>();
            let server = rt::spawn(rt_hyper::serve_with_shutdown(
                listener,
                service,
                async move {
                    let _ = stop_rx.await;
                },
            ));

            let mut client = http_support::http1_client::<http_body_util::Empty<Bytes>>(addr).await;
            let in_flight = rt::spawn(async move {
                let resp = client
                    .send_request(http_support::get("/slow"))
                    .await
                    .unwrap();
                (resp.status(), http_support::body_string(resp).await)
            });
            started_rx.recv().await.unwrap();

            stop_tx.send(()).unwrap();
            // The listener goes away: connecting is refused from then on. (A connect that
            // lands in the backlog just as the listener closes is reset instead.)
            loop {
                match TcpStream::connect(addr).await {
                    Ok(_) => rt::task::yield_now().await,
                    Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
                    Err(e) => {
                        assert_eq!(e.kind(), std::io::ErrorKind::ConnectionRefused);
                        break;
                    }
                }
            }
            // The request is still in flight, so the server has not returned.
            assert!(
                !server.is_finished(),
                "serve_with_shutdown returned with a request in flight"
            );

            release_tx.send(()).await.unwrap();
            let (status, body) = in_flight.await.unwrap();
            assert_eq!(status, StatusCode::OK);
            assert_eq!(body, "done");
            server.await.unwrap().unwrap();
        })
    });
}
