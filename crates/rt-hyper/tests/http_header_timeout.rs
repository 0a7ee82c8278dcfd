//! hyper's HTTP/1 header-read timeout fires on rt's timer: a client that sends half a request
//! and stalls is disconnected with a timeout error, instead of hyper panicking for want of a timer
//! (hyper #3919) or waiting for ever.

mod http_support;
#[path = "../../rt/tests/support/mod.rs"]
mod support;

use std::time::Duration;

use hyper::service::service_fn;
use hyper_util::server::conn::auto::Builder;
use rt::io::AsyncReadExt;
use rt::net::{TcpListener, TcpStream};
use rt_hyper::{HyperExecutor, HyperIo, HyperTimer};

#[test]
fn stalled_headers_time_out() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let server = rt::spawn(async move {
                let (stream, _) = listener.accept().await.unwrap();
                let mut builder = Builder::new(HyperExecutor::new());
                builder
                    .http1()
                    .timer(HyperTimer::new())
                    .header_read_timeout(Duration::from_millis(50));
                builder
                    .serve_connection(HyperIo::new(stream), service_fn(http_support::echo_path))
                    .await
            });

            let mut client = TcpStream::connect(addr).await.unwrap();
            // Half a request line, then nothing.
            client
                .write_all(b"GET / HTTP/1.1\r\nHost: lo")
                .await
                .unwrap();
            let err = server
                .await
                .unwrap()
                .expect_err("the connection must fail with the header-read timeout");
            let hyper_err = err
                .downcast_ref::<hyper::Error>()
                .unwrap_or_else(|| panic!("expected a hyper::Error, got {err}"));
            assert!(
                hyper_err.is_timeout(),
                "expected a timeout, got {hyper_err}"
            );
            // The server closed the connection: the client reads to the end.
            let mut rest = Vec::new();
            let _ = client.read_to_end(&mut rest).await;
        })
    });
}
