//! TcpSocket and TcpStream with more of tokio's API: socket options before connecting
//! (keepalive, buffer sizes, nodelay, linger, tos), `from_std_stream`, and on a stream
//! `linger`, `poll_peek` (with `ReadBuf`), `try_read_vectored`/`try_write_vectored`,
//! `try_io`/`async_io`.

mod support;

use std::future::poll_fn;
use std::io::{ErrorKind, IoSlice, IoSliceMut, Read};
use std::mem::MaybeUninit;
use std::time::Duration;

use rt_io::io::Interest;
use rt_io::io::ReadBuf;
use rt_io::net::{TcpListener, TcpSocket, TcpStream};
use support::run;

async fn connected() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let client = TcpStream::connect(addr).await.unwrap();
    let (server, _) = listener.accept().await.unwrap();
    (client, server)
}

#[test]
fn socket_options_before_connecting() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_keepalive(true).unwrap();
        assert!(socket.keepalive().unwrap());
        socket.set_send_buffer_size(64 * 1024).unwrap();
        assert!(socket.send_buffer_size().unwrap() >= 64 * 1024);
        socket.set_recv_buffer_size(64 * 1024).unwrap();
        assert!(socket.recv_buffer_size().unwrap() >= 64 * 1024);
        socket.set_nodelay(true).unwrap();
        assert!(socket.nodelay().unwrap());
        assert_eq!(socket.linger().unwrap(), None);
        socket.set_linger(Some(Duration::from_secs(3))).unwrap();
        assert_eq!(socket.linger().unwrap(), Some(Duration::from_secs(3)));
        socket.set_tos(0x10).unwrap();
        assert_eq!(socket.tos().unwrap(), 0x10);
        let stream = socket
            .connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        // The options came along with the connected stream.
        assert!(stream.nodelay().unwrap());
        assert_eq!(stream.linger().unwrap(), Some(Duration::from_secs(3)));
    });
}

#[test]
fn from_std_stream_sets_options_on_a_connected_socket() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let stream = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let socket = TcpSocket::from_std_stream(stream);
    socket.set_keepalive(true).unwrap();
    assert!(socket.keepalive().unwrap());
}

#[test]
fn poll_peek_leaves_the_bytes_for_the_next_read() {
    run(async {
        let (mut client, mut server) = connected().await;
        client.write_all(b"peekaboo").await.unwrap();
        let mut storage = [MaybeUninit::<u8>::uninit(); 4];
        let mut buf = ReadBuf::uninit(&mut storage);
        let n = poll_fn(|cx| server.poll_peek(cx, &mut buf)).await.unwrap();
        assert_eq!((n, buf.filled()), (4, &b"peek"[..]));
        let mut all = [0u8; 8];
        server.read_exact(&mut all).await.unwrap();
        assert_eq!(&all, b"peekaboo");
    });
}

#[test]
fn vectored_try_read_and_write() {
    run(async {
        let (client, server) = connected().await;
        client.writable().await.unwrap();
        let n = client
            .try_write_vectored(&[IoSlice::new(b"ab"), IoSlice::new(b"cd")])
            .unwrap();
        assert_eq!(n, 4);
        let (mut x, mut y) = ([0u8; 1], [0u8; 8]);
        let n = loop {
            server.readable().await.unwrap();
            match server.try_read_vectored(&mut [IoSliceMut::new(&mut x), IoSliceMut::new(&mut y)])
            {
                Ok(n) => break n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                Err(e) => panic!("{e}"),
            }
        };
        assert_eq!(n, 4);
        assert_eq!((&x, &y[..3]), (b"a", &b"bcd"[..]));
        let mut none = [0u8; 4];
        assert_eq!(
            server
                .try_read_vectored(&mut [IoSliceMut::new(&mut none)])
                .unwrap_err()
                .kind(),
            ErrorKind::WouldBlock
        );
    });
}

#[test]
fn try_io_and_async_io_run_our_own_syscalls() {
    run(async {
        let (mut client, server) = connected().await;
        // A std view of the server's fd (forgotten, never closed, below).
        let view = {
            use std::os::fd::{AsRawFd, FromRawFd};
            // SAFETY: the fd stays open while `server` lives; the view is forgotten, not closed.
            unsafe { std::net::TcpStream::from_raw_fd(server.as_raw_fd()) }
        };
        let mut buf = [0u8; 8];
        assert_eq!(
            server
                .try_io(Interest::READABLE, || (&view).read(&mut buf))
                .unwrap_err()
                .kind(),
            ErrorKind::WouldBlock
        );
        client.write_all(b"hi").await.unwrap();
        let n = server
            .async_io(Interest::READABLE, || (&view).read(&mut buf))
            .await
            .unwrap();
        assert_eq!(&buf[..n], b"hi");
        std::mem::forget(view);
    });
}
