//! `UnixDatagram`'s readiness, `try_*`, `poll_*` and `*_buf` methods, as tokio's.

use std::future::poll_fn;
use std::io;

use rt::io::ReadBuf;
use rt::net::UnixDatagram;

mod support;

#[test]
fn readiness_and_try_methods() {
    support::current_thread().block_on(async {
        let (a, b) = UnixDatagram::pair().unwrap();
        assert_eq!(
            b.try_recv(&mut [0; 4]).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        a.writable().await.unwrap();
        assert_eq!(a.try_send(b"ping").unwrap(), 4);
        b.readable().await.unwrap();
        let mut buf = [0; 8];
        assert_eq!(b.try_recv(&mut buf).unwrap(), 4);
        assert_eq!(&buf[..4], b"ping");
    });
}

#[test]
fn try_send_to_and_recv_from_by_path() {
    let dir = std::env::temp_dir().join(format!("rt-uds-dgram-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    support::current_thread().block_on(async {
        let server = UnixDatagram::bind(dir.join("server")).unwrap();
        let client = UnixDatagram::bind(dir.join("client")).unwrap();
        client.writable().await.unwrap();
        assert_eq!(client.try_send_to(b"hi", dir.join("server")).unwrap(), 2);
        server.readable().await.unwrap();
        let mut buf = [0; 4];
        let (n, from) = server.try_recv_from(&mut buf).unwrap();
        assert_eq!(
            (&buf[..n], from.as_pathname()),
            (&b"hi"[..], Some(&*dir.join("client")))
        );
    });
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn poll_forms() {
    support::current_thread().block_on(async {
        let (a, b) = UnixDatagram::pair().unwrap();
        poll_fn(|cx| a.poll_send_ready(cx)).await.unwrap();
        assert_eq!(poll_fn(|cx| a.poll_send(cx, b"one")).await.unwrap(), 3);
        poll_fn(|cx| b.poll_recv_ready(cx)).await.unwrap();
        let mut mem = [0; 8];
        let mut buf = ReadBuf::new(&mut mem);
        poll_fn(|cx| b.poll_recv(cx, &mut buf)).await.unwrap();
        assert_eq!(buf.filled(), b"one");
        a.send(b"two").await.unwrap();
        let mut mem = [0; 8];
        let mut buf = ReadBuf::new(&mut mem);
        let from = poll_fn(|cx| b.poll_recv_from(cx, &mut buf)).await.unwrap();
        assert_eq!(buf.filled(), b"two");
        assert!(from.is_unnamed());
    });
}

#[test]
fn buf_receives() {
    support::current_thread().block_on(async {
        let (a, b) = UnixDatagram::pair().unwrap();
        a.send(b"abc").await.unwrap();
        let mut buf = Vec::with_capacity(8);
        assert_eq!(b.recv_buf(&mut buf).await.unwrap(), 3);
        a.send(b"de").await.unwrap();
        let (n, _) = b.recv_buf_from(&mut buf).await.unwrap();
        assert_eq!((n, &buf[..]), (2, &b"abcde"[..]));
        assert_eq!(
            b.try_recv_buf(&mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        a.send(b"f").await.unwrap();
        b.readable().await.unwrap();
        assert_eq!(b.try_recv_buf_from(&mut buf).unwrap().0, 1);
        assert_eq!(buf, b"abcdef");
    });
}
