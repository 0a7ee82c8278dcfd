//! `UnixSocket`: bind before listening or connecting (to a path or an abstract name), the
//! datagram form, and the errors for the wrong kind of socket.

mod support;

use rt_io::net::UnixSocket;
use support::{run, spawn, TempDir};

#[test]
fn a_bound_stream_socket_connects_to_a_bound_listener() {
    let dir = TempDir::new("unix-socket-stream");
    let server_path = dir.path("server.sock");
    let peer_path = dir.path("peer.sock");
    run(async move {
        let listener = {
            let s = UnixSocket::new_stream().unwrap();
            s.bind(&server_path).unwrap();
            s.listen(16).unwrap()
        };
        let accept = spawn(async move { listener.accept().await.unwrap() });
        let mut client = {
            let s = UnixSocket::new_stream().unwrap();
            s.bind(&peer_path).unwrap();
            s.connect(&server_path).await.unwrap()
        };
        let (mut server, from) = accept.await;
        assert_eq!(from.as_pathname(), Some(peer_path.as_path()));
        assert_eq!(
            server.peer_addr().unwrap().as_pathname(),
            Some(peer_path.as_path())
        );
        client.write_all(b"hello").await.unwrap();
        let mut buf = [0u8; 5];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"hello");
    });
}

#[test]
fn a_datagram_socket_bound_to_an_abstract_name() {
    let name = format!("\0rt-unix-socket-{}", std::process::id());
    run(async move {
        let server = {
            let s = UnixSocket::new_datagram().unwrap();
            s.bind(&name).unwrap();
            s.datagram().unwrap()
        };
        let addr = server.local_addr().unwrap();
        use std::os::linux::net::SocketAddrExt;
        assert_eq!(
            addr.as_abstract_name(),
            Some(&name.as_bytes()[1..]),
            "bound to the abstract name, not a file"
        );
        let client = std::os::unix::net::UnixDatagram::unbound().unwrap();
        client.send_to_addr(b"ping", &addr).unwrap();
        let mut buf = [0u8; 8];
        let (n, _) = server.recv_from(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"ping");
    });
}

#[test]
fn the_wrong_kind_of_socket_is_an_error() {
    run(async {
        let e = UnixSocket::new_datagram()
            .unwrap()
            .connect("/nonexistent.sock")
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "connect cannot be called on a datagram socket"
        );
        let e = UnixSocket::new_datagram().unwrap().listen(1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "listen cannot be called on a datagram socket"
        );
        let e = UnixSocket::new_stream().unwrap().datagram().unwrap_err();
        assert_eq!(
            e.to_string(),
            "datagram cannot be called on a stream socket"
        );
    });
}

/// `UnixDatagram::bind`, `connect` and `send_to` take a Linux abstract name (a path that starts
/// with a NUL byte), as tokio's do.
#[test]
fn datagrams_bind_connect_and_send_to_abstract_names() {
    let a = format!("\0rt-dgram-a-{}", std::process::id());
    let b = format!("\0rt-dgram-b-{}", std::process::id());
    run(async move {
        let server = rt_io::net::UnixDatagram::bind(&a).unwrap();
        let client = rt_io::net::UnixDatagram::bind(&b).unwrap();
        client.send_to(b"one", &a).await.unwrap();
        let mut buf = [0u8; 8];
        let (n, from) = server.recv_from(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"one");
        use std::os::linux::net::SocketAddrExt;
        assert_eq!(from.as_abstract_name(), Some(&b.as_bytes()[1..]));
        server.connect(&b).unwrap();
        server.send(b"two").await.unwrap();
        let n = client.recv(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"two");
    });
}
