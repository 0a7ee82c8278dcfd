//! Unix-domain sockets in a temp dir: stream echo, socket pairs, datagrams.

mod support;

use rt_io::net::{UnixDatagram, UnixListener, UnixStream};
use support::{run, spawn, TempDir};

#[test]
fn stream_echo_through_a_listener() {
    let dir = TempDir::new("unix-echo");
    let path = dir.path("echo.sock");
    run(async move {
        let listener = UnixListener::bind(&path).unwrap();
        assert_eq!(
            listener.local_addr().unwrap().as_pathname(),
            Some(path.as_path())
        );
        let server = spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 256];
            loop {
                let n = s.read(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                s.write_all(&buf[..n]).await.unwrap();
            }
        });
        let mut c = UnixStream::connect(&path).await.unwrap();
        for i in 0..50u8 {
            let msg = [i; 64];
            c.write_all(&msg).await.unwrap();
            let mut back = [0u8; 64];
            c.read_exact(&mut back).await.unwrap();
            assert_eq!(back, msg);
        }
        c.shutdown().await.unwrap();
        let mut buf = [0u8; 1];
        assert_eq!(c.read(&mut buf).await.unwrap(), 0);
        server.await;
    });
}

#[test]
fn connect_to_missing_path_fails() {
    let dir = TempDir::new("unix-missing");
    let path = dir.path("nobody.sock");
    run(async move {
        let e = UnixStream::connect(&path).await.unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    });
}

#[test]
fn stream_pair_talks_both_ways() {
    run(async {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        a.write_all(b"ping").await.unwrap();
        let mut buf = [0u8; 4];
        b.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ping");
        b.write_all(b"pong").await.unwrap();
        a.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"pong");
        drop(b);
        assert_eq!(a.read(&mut buf).await.unwrap(), 0);
    });
}

#[test]
fn datagrams_by_path_and_connected() {
    let dir = TempDir::new("unix-dgram");
    let server_path = dir.path("server.sock");
    let client_path = dir.path("client.sock");
    run(async move {
        let server = UnixDatagram::bind(&server_path).unwrap();
        let client = UnixDatagram::bind(&client_path).unwrap();
        client.send_to(b"hello", &server_path).await.unwrap();
        let mut buf = [0u8; 16];
        let (n, from) = server.recv_from(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"hello");
        assert_eq!(from.as_pathname(), Some(client_path.as_path()));
        server.send_to(b"back", &client_path).await.unwrap();
        let n = client.recv(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"back");

        let unbound = UnixDatagram::unbound().unwrap();
        unbound.connect(&server_path).unwrap();
        unbound.send(b"anon").await.unwrap();
        let (n, from) = server.recv_from(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"anon");
        assert!(from.is_unnamed());
    });
}

#[test]
fn datagram_pair() {
    run(async {
        let (a, b) = UnixDatagram::pair().unwrap();
        a.send(b"1").await.unwrap();
        a.send(b"22").await.unwrap();
        let mut buf = [0u8; 4];
        assert_eq!(b.recv(&mut buf).await.unwrap(), 1);
        assert_eq!(b.recv(&mut buf).await.unwrap(), 2);
    });
}
