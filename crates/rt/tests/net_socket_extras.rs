//! Socket methods and conversions tokio has: `set_zero_linger`, `poll_read_ready` /
//! `poll_write_ready`, `try_read_buf`, `peek` on read halves, `TryFrom` the std sockets,
//! `AsFd`, and on UDP `peek_sender`, the `*_buf` receives and `tos_v4` / `tclass_v6`.

use std::future::poll_fn;
use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::time::Duration;

use rt::net::{TcpListener, TcpSocket, TcpStream, UdpSocket};

mod support;

async fn pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (client, accepted) = rt::join!(TcpStream::connect(addr), listener.accept());
    (client.unwrap(), accepted.unwrap().0)
}

#[test]
fn zero_linger() {
    support::current_thread().block_on(async {
        let (a, _b) = pair().await;
        a.set_zero_linger().unwrap();
        assert_eq!(a.linger().unwrap(), Some(Duration::ZERO));
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_zero_linger().unwrap();
        assert_eq!(socket.linger().unwrap(), Some(Duration::ZERO));
    });
}

#[test]
fn readiness_polls_and_try_read_buf() {
    support::current_thread().block_on(async {
        let (mut a, b) = pair().await;
        poll_fn(|cx| b.poll_write_ready(cx)).await.unwrap();
        let mut buf = Vec::with_capacity(16);
        assert_eq!(
            b.try_read_buf(&mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        a.write_all(b"hello").await.unwrap();
        poll_fn(|cx| b.poll_read_ready(cx)).await.unwrap();
        assert_eq!(b.try_read_buf(&mut buf).unwrap(), 5);
        assert_eq!(buf, b"hello");
    });
}

#[test]
fn peek_on_read_halves() {
    support::current_thread().block_on(async {
        let (mut a, mut b) = pair().await;
        a.write_all(b"xy").await.unwrap();
        let (mut read, _write) = b.split();
        let mut buf = [0; 2];
        assert_eq!(read.peek(&mut buf).await.unwrap(), 2);
        let (mut read, _write) = b.into_split();
        let mut again = [0; 2];
        assert_eq!(
            read.peek(&mut again).await.unwrap(),
            2,
            "peek left it queued"
        );
        assert_eq!(&again, b"xy");
    });
}

#[test]
fn try_from_std_and_as_fd() {
    support::current_thread().block_on(async {
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        std_listener.set_nonblocking(true).unwrap();
        let raw = std_listener.as_raw_fd();
        let listener = TcpListener::try_from(std_listener).unwrap();
        assert_eq!(listener.as_fd().as_raw_fd(), raw);
        let std_udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        std_udp.set_nonblocking(true).unwrap();
        let udp = UdpSocket::try_from(std_udp).unwrap();
        assert_eq!(udp.as_fd().as_raw_fd(), udp.as_raw_fd());
        let addr = listener.local_addr().unwrap();
        let std_stream = std::net::TcpStream::connect(addr).unwrap();
        std_stream.set_nonblocking(true).unwrap();
        let stream = TcpStream::try_from(std_stream).unwrap();
        assert_eq!(stream.peer_addr().unwrap(), addr);
    });
}

#[test]
fn udp_peek_sender_and_buf_receives() {
    support::current_thread().block_on(async {
        let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let a_addr = a.local_addr().unwrap();
        assert_eq!(
            b.try_peek_sender().unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        a.send_to(b"one", b.local_addr().unwrap()).await.unwrap();
        assert_eq!(b.peek_sender().await.unwrap(), a_addr);
        assert_eq!(poll_fn(|cx| b.poll_peek_sender(cx)).await.unwrap(), a_addr);
        let mut buf = Vec::with_capacity(8);
        assert_eq!(b.recv_buf_from(&mut buf).await.unwrap(), (3, a_addr));
        assert_eq!(buf, b"one");

        b.connect(a_addr).await.unwrap();
        a.send_to(b"two", b.local_addr().unwrap()).await.unwrap();
        let mut buf = Vec::with_capacity(8);
        assert_eq!(b.recv_buf(&mut buf).await.unwrap(), 3);
        assert_eq!(buf, b"two");
        assert_eq!(
            b.try_recv_buf(&mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
    });
}

#[test]
fn tos_and_tclass_round_trip() {
    support::current_thread().block_on(async {
        let v4 = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        v4.set_tos_v4(0x10).unwrap();
        assert_eq!(v4.tos_v4().unwrap(), 0x10);
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_tos_v4(0x08).unwrap();
        assert_eq!(socket.tos_v4().unwrap(), 0x08);
        if let Ok(v6) = UdpSocket::bind("[::1]:0").await {
            v6.set_tclass_v6(0x20).unwrap();
            assert_eq!(v6.tclass_v6().unwrap(), 0x20);
        }
    });
}

#[test]
fn unix_abstract_names_and_addr_forms() {
    use std::os::linux::net::SocketAddrExt;
    support::current_thread().block_on(async {
        let name = format!("rt-test-{}", std::process::id());
        let listener = rt::net::UnixListener::bind(format!("\0{name}")).unwrap();
        let client = rt::net::UnixStream::connect(format!("\0{name}"))
            .await
            .unwrap();
        let (_server, _) = listener.accept().await.unwrap();
        assert!(client.peer_addr().unwrap().as_abstract_name().is_some());

        let addr = std::os::unix::net::SocketAddr::from_abstract_name(format!("{name}-2")).unwrap();
        let listener = rt::net::UnixListener::bind_addr(&addr).unwrap();
        let client = rt::net::UnixStream::connect_addr(&addr).await.unwrap();
        let (_server, _) = listener.accept().await.unwrap();
        assert_eq!(
            client.peer_addr().unwrap().as_abstract_name(),
            Some(format!("{name}-2").as_bytes())
        );
    });
}

#[test]
fn quickack_round_trip() {
    support::current_thread().block_on(async {
        let (a, _b) = pair().await;
        a.set_quickack(true).unwrap();
        assert!(a.quickack().unwrap());
        a.set_quickack(false).unwrap();
        assert!(!a.quickack().unwrap());
    });
}
