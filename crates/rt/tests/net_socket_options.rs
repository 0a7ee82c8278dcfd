//! `set_ttl` / `ttl` and `take_error` on TCP streams and listeners and UDP sockets (tokio's
//! names): a TTL set is read back; a fresh socket has no pending error.

use rt::net::{TcpListener, TcpStream, UdpSocket, UnixStream};

#[rt::test]
async fn ttl_round_trips_and_no_pending_error() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.set_ttl(17).unwrap();
    assert_eq!(listener.ttl().unwrap(), 17);
    assert!(listener.take_error().unwrap().is_none());

    let stream = TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    stream.set_ttl(33).unwrap();
    assert_eq!(stream.ttl().unwrap(), 33);
    assert!(stream.take_error().unwrap().is_none());

    let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    udp.set_ttl(5).unwrap();
    assert_eq!(udp.ttl().unwrap(), 5);
    assert!(udp.take_error().unwrap().is_none());

    let (a, _b) = UnixStream::pair().unwrap();
    assert!(a.take_error().unwrap().is_none());
}
