//! A peer that resets the connection (SO_LINGER 0, then close) surfaces as `ConnectionReset`.

mod support;

use std::time::Duration;

use rt_io::net::{TcpListener, TcpStream};
use support::run;

#[test]
fn peer_reset_is_connection_reset() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut c = TcpStream::connect(addr).await.unwrap();
        let (s, _) = listener.accept().await.unwrap();

        // Make sure the server side is established and has seen data flow both ways.
        c.write_all(b"x").await.unwrap();
        let mut one = [0u8; 1];
        let mut s = s;
        s.read_exact(&mut one).await.unwrap();

        s.set_linger(Some(Duration::ZERO)).unwrap();
        drop(s); // sends RST

        let mut buf = [0u8; 16];
        let e = c.read(&mut buf).await.unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}");
    });
}

#[test]
fn pending_read_is_woken_by_reset() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut c = TcpStream::connect(addr).await.unwrap();
        let (s, _) = listener.accept().await.unwrap();

        let flag = support::Flag::new();
        let mut buf = [0u8; 16];
        let mut read = std::pin::pin!(c.read(&mut buf));
        assert!(support::poll_once(read.as_mut(), &flag).is_pending());

        s.set_linger(Some(Duration::ZERO)).unwrap();
        drop(s);
        flag.wait();
        let e = read.await.unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}");
    });
}
