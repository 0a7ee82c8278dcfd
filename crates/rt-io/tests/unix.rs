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

/// Owned halves in two tasks: the read half waits while the write half writes; dropping the
/// write half shuts the write side down (the peer reads end-of-stream).
#[test]
fn stream_owned_halves_in_two_tasks() {
    run(async {
        let (a, mut b) = UnixStream::pair().unwrap();
        let (mut r, mut w) = a.into_split();
        let reader = spawn(async move {
            let mut got = Vec::new();
            let mut buf = [0u8; 64];
            loop {
                let n = r.read(&mut buf).await.unwrap();
                if n == 0 {
                    return got;
                }
                got.extend_from_slice(&buf[..n]);
            }
        });
        let writer = spawn(async move {
            for i in 0..100u8 {
                w.write_all(&[i]).await.unwrap();
            }
        });
        writer.await;
        let mut echoed = [0u8; 100];
        b.read_exact(&mut echoed).await.unwrap();
        assert!(echoed.iter().enumerate().all(|(i, &v)| v == i as u8));
        assert_eq!(b.read(&mut echoed).await.unwrap(), 0, "write half dropped");
        b.write_all(b"bye").await.unwrap();
        drop(b);
        assert_eq!(reader.await, b"bye");
    });
}

/// Borrowed halves: both sides of one stream in use at once in one task.
#[test]
fn stream_borrowed_halves_concurrently() {
    run(async {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        let echo = spawn(async move {
            let mut buf = [0u8; 4096];
            loop {
                let n = b.read(&mut buf).await.unwrap();
                if n == 0 {
                    return;
                }
                b.write_all(&buf[..n]).await.unwrap();
            }
        });
        let (mut r, mut w) = a.split();
        // More than the socket buffers hold: the writer blocks until the reader drains.
        let total = 1 << 20;
        let write = async {
            let chunk = [9u8; 8192];
            for _ in 0..total / chunk.len() {
                w.write_all(&chunk).await.unwrap();
            }
            w.shutdown().await.unwrap();
        };
        let read = async {
            let mut buf = [0u8; 8192];
            let mut got = 0;
            loop {
                let n = r.read(&mut buf).await.unwrap();
                if n == 0 {
                    return got;
                }
                assert!(buf[..n].iter().all(|&v| v == 9));
                got += n;
            }
        };
        let ((), got) = support::join2(write, read).await;
        assert_eq!(got, total);
        echo.await;
    });
}
