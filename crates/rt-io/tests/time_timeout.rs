//! `timeout`: a never-ready future elapses, a ready one returns `Ok`, and a stalled TCP read
//! times out.

mod time_support;

use rt::time::Instant;
use std::future::{pending, poll_fn, ready};
use std::io::{self, ErrorKind};
use std::pin::Pin;
use std::time::Duration;

use rt::io::futures::AsyncRead;
use rt::time::{error::Elapsed, sleep, timeout, timeout_at};

#[test]
fn never_ready_future_elapses() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let start = Instant::now();
        let r = timeout(Duration::from_millis(3), pending::<()>()).await;
        assert!(r.is_err());
        assert!(start.elapsed() >= Duration::from_millis(3));
        let deadline = Instant::now() + Duration::from_millis(1);
        assert!(timeout_at(deadline, pending::<u8>()).await.is_err());
        assert!(Instant::now() >= deadline);
    });
}

#[test]
fn ready_future_returns_ok() {
    let rt = time_support::runtime();
    rt.block_on(async {
        assert_eq!(timeout(Duration::from_millis(50), ready(7)).await, Ok(7));
        assert_eq!(timeout(Duration::ZERO, ready("now")).await, Ok("now"));
        assert_eq!(timeout(Duration::MAX, ready(1)).await, Ok(1));
        let later = async {
            sleep(Duration::from_micros(200)).await;
            5
        };
        assert_eq!(timeout(Duration::from_secs(3600), later).await, Ok(5));
    });
}

#[test]
fn elapsed_error_describes_itself() {
    let rt = time_support::runtime();
    let e: Elapsed = rt
        .block_on(async { timeout(Duration::ZERO, pending::<()>()).await })
        .unwrap_err();
    assert_eq!(e.to_string(), "deadline has elapsed");
    let source: &dyn std::error::Error = &e;
    assert!(source.source().is_none());
    assert_eq!(io::Error::from(e).kind(), ErrorKind::TimedOut);
}

#[test]
fn stalled_tcp_read_times_out() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let rt = time_support::runtime();
    rt.block_on(async {
        let mut stream = rt::net::TcpStream::connect(addr).await.unwrap();
        // Accepted and kept open, never written to.
        let (_peer, _) = listener.accept().unwrap();
        let mut buf = [0u8; 16];
        let read = poll_fn(|cx| Pin::new(&mut stream).poll_read(cx, &mut buf));
        let start = Instant::now();
        let r = timeout(Duration::from_millis(20), read).await;
        assert!(r.is_err(), "the read returned {r:?}");
        assert!(start.elapsed() >= Duration::from_millis(20));
    });
}
