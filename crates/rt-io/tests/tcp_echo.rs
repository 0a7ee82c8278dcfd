//! TCP echo over 127.0.0.1: bytes written come back intact, in order, and end-of-stream is seen.

mod support;

use rt_io::net::{TcpListener, TcpSocket, TcpStream};
use support::{run, spawn};

async fn echo_once(listener: TcpListener) {
    let (mut s, _) = listener.accept().await.unwrap();
    let mut buf = [0u8; 1024];
    loop {
        let n = s.read(&mut buf).await.unwrap();
        if n == 0 {
            break;
        }
        s.write_all(&buf[..n]).await.unwrap();
    }
}

#[test]
fn echoes_messages_and_sees_end_of_stream() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = spawn(echo_once(listener));

        let mut c = TcpStream::connect(addr).await.unwrap();
        c.set_nodelay(true).unwrap();
        assert!(c.nodelay().unwrap());
        assert_eq!(c.peer_addr().unwrap(), addr);
        for i in 0..100u32 {
            let msg = [i as u8; 64];
            c.write_all(&msg).await.unwrap();
            let mut back = [0u8; 64];
            assert_eq!(c.read_exact(&mut back).await.unwrap(), 64);
            assert_eq!(back, msg);
        }
        c.shutdown().await.unwrap();
        let mut rest = [0u8; 8];
        assert_eq!(
            c.read(&mut rest).await.unwrap(),
            0,
            "server closed after our shutdown"
        );
        server.await;
    });
}

#[test]
fn large_transfer_survives_partial_writes() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = spawn(echo_once(listener));
        let c = TcpStream::connect(addr).await.unwrap();
        let (mut r, mut w) = c.into_split();
        // 4 MiB exceeds the socket buffers both ways: writes must wait for the reader.
        let data: Vec<u8> = (0..4 << 20).map(|i: u32| (i % 251) as u8).collect();
        let expected = data.clone();
        let writer = spawn(async move {
            w.write_all(&data).await.unwrap();
            w.shutdown().await.unwrap();
        });
        let mut got = Vec::with_capacity(expected.len());
        let mut buf = vec![0u8; 64 << 10];
        loop {
            let n = r.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got.len(), expected.len());
        assert!(got == expected);
        writer.await;
        server.await;
    });
}

#[test]
fn peek_leaves_data_and_try_read_takes_it() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut c = TcpStream::connect(addr).await.unwrap();
        let (s, _) = listener.accept().await.unwrap();
        c.write_all(b"hello").await.unwrap();

        let mut buf = [0u8; 16];
        let n = s.peek(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], &b"hello"[..n]);
        let mut got = Vec::new();
        while got.len() < 5 {
            s.readable().await.unwrap();
            match s.try_read(&mut buf) {
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(got, b"hello");
        // Nothing more is there: try_read reports WouldBlock rather than waiting.
        match s.try_read(&mut buf) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Ok(n) => panic!("unexpected {n} bytes"),
            Err(e) => panic!("{e}"),
        }
        s.writable().await.unwrap();
        assert_eq!(s.try_write(b"x").unwrap(), 1);
        let mut one = [0u8; 1];
        c.read_exact(&mut one).await.unwrap();
        assert_eq!(&one, b"x");
    });
}

#[test]
fn read_after_peer_close_returns_zero() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut c = TcpStream::connect(addr).await.unwrap();
        let (mut s, _) = listener.accept().await.unwrap();
        s.write_all(b"bye").await.unwrap();
        drop(s);
        let mut buf = [0u8; 8];
        assert_eq!(c.read_exact(&mut buf[..3]).await.unwrap(), 3);
        assert_eq!(c.read(&mut buf).await.unwrap(), 0);
        assert_eq!(c.read(&mut buf).await.unwrap(), 0, "end-of-stream stays");
        let e = c.read_exact(&mut buf).await.unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
    });
}

/// Reads that fill the buffer exactly: with data left they must not clear readiness (the rest
/// is read at once), and when they drained the socket (TCP_INQ says 0) later data still wakes
/// the reader.
#[test]
fn exact_reads_see_the_rest_and_later_data() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut c = TcpStream::connect(addr).await.unwrap();
        let (mut s, _) = listener.accept().await.unwrap();
        let server = spawn(async move {
            s.write_all(&[1u8; 128]).await.unwrap();
            let mut go = [0u8; 1];
            s.read_exact(&mut go).await.unwrap();
            s.write_all(&[2u8; 64]).await.unwrap();
        });
        let mut buf = [0u8; 64];
        for _ in 0..2 {
            assert_eq!(c.read_exact(&mut buf).await.unwrap(), 64);
            assert_eq!(buf, [1u8; 64]);
        }
        // The socket is empty now; the next bytes are sent only after this write.
        c.write_all(b"g").await.unwrap();
        assert_eq!(c.read_exact(&mut buf).await.unwrap(), 64);
        assert_eq!(buf, [2u8; 64]);
        server.await;
        assert_eq!(
            c.read(&mut buf).await.unwrap(),
            0,
            "end-of-stream after the server left"
        );
    });
}

#[test]
fn tcp_socket_reuseport_listen_and_connect() {
    run(async {
        let a = TcpSocket::new_v4().unwrap();
        a.set_reuseaddr(true).unwrap();
        a.set_reuseport(true).unwrap();
        assert!(a.reuseaddr().unwrap() && a.reuseport().unwrap());
        a.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = a.local_addr().unwrap();
        // A second socket may bind the same port because both set SO_REUSEPORT.
        let b = TcpSocket::new_v4().unwrap();
        b.set_reuseport(true).unwrap();
        b.bind(addr).unwrap();
        let la = a.listen(16).unwrap();
        let lb = b.listen(16).unwrap();
        assert_eq!(la.local_addr().unwrap(), lb.local_addr().unwrap());

        let client = TcpSocket::new_v4().unwrap();
        let mut c = client.connect(addr).await.unwrap();
        c.write_all(b"ping").await.unwrap();
        c.shutdown().await.unwrap();
        // The kernel hands the connection to one of the two listeners.
        let l = std::sync::Arc::new((la, lb));
        let a1 = spawn({
            let l = l.clone();
            async move { l.0.accept().await.map(|(s, _)| s) }
        });
        let mut s = match support::select_first(a1, {
            let l = l.clone();
            async move { l.1.accept().await.map(|(s, _)| s) }
        })
        .await
        {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        let mut buf = [0u8; 4];
        s.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ping");
    });
}

#[test]
fn connect_to_closed_port_fails() {
    run(async {
        // Bind then drop to find a port nobody listens on.
        let addr = {
            let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
            l.local_addr().unwrap()
        };
        let e = TcpStream::connect(addr).await.unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::ConnectionRefused);
    });
}

#[test]
fn from_std_and_into_std_round_trip() {
    run(async {
        let std_l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = std_l.local_addr().unwrap();
        let l = TcpListener::from_std(std_l).unwrap();
        let std_c = std::net::TcpStream::connect(addr).unwrap();
        let mut c = TcpStream::from_std(std_c).unwrap();
        let (s, _) = l.accept().await.unwrap();
        c.write_all(b"abc").await.unwrap();
        let mut std_s = s.into_std().unwrap();
        std_s.set_nonblocking(false).unwrap();
        let mut buf = [0u8; 3];
        std::io::Read::read_exact(&mut std_s, &mut buf).unwrap();
        assert_eq!(&buf, b"abc");
    });
}

/// `TCP_INQ` on the socket, as the kernel reports it.
fn tcp_inq(s: &TcpStream) -> i32 {
    use std::os::fd::AsRawFd;
    let mut v: libc::c_int = -1;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: the pointers describe `v` and `len`, live for the call.
    let r = unsafe {
        libc::getsockopt(
            s.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INQ,
            (&mut v as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    assert_eq!(
        r,
        0,
        "getsockopt(TCP_INQ): {}",
        std::io::Error::last_os_error()
    );
    v
}

/// A stream whose reads are all short (a request-response protocol with a roomy buffer, as
/// hyper's) never turns `TCP_INQ` on, which makes the kernel work out the queue length on every
/// read; nor does one full read among short ones. Two full reads in a row (a `read_exact`
/// loop) turn it on, and reads still see every byte.
#[test]
fn tcp_inq_waits_for_full_reads() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut c = TcpStream::connect(addr).await.unwrap();
        let (mut s, _) = listener.accept().await.unwrap();
        let mut buf = [0u8; 64];
        for i in 0..3u8 {
            c.write_all(&[i; 10]).await.unwrap();
            assert_eq!(s.read(&mut buf).await.unwrap(), 10);
            assert_eq!(buf[..10], [i; 10]);
        }
        assert_eq!(tcp_inq(&s), 0, "short reads only: TCP_INQ stays off");
        c.write_all(&[5u8; 64]).await.unwrap();
        assert_eq!(s.read_exact(&mut buf).await.unwrap(), 64);
        c.write_all(&[6u8; 10]).await.unwrap();
        assert_eq!(s.read(&mut buf).await.unwrap(), 10);
        assert_eq!(
            tcp_inq(&s),
            0,
            "one full read between short ones: still off"
        );
        c.write_all(&[7u8; 164]).await.unwrap();
        assert_eq!(s.read_exact(&mut buf).await.unwrap(), 64);
        assert_eq!(s.read_exact(&mut buf).await.unwrap(), 64);
        assert_eq!(tcp_inq(&s), 1, "two full reads in a row turn TCP_INQ on");
        assert_eq!(s.read_exact(&mut buf[..36]).await.unwrap(), 36);
        assert_eq!(buf[..36], [7u8; 36]);
        c.write_all(b"x").await.unwrap();
        assert_eq!(s.read(&mut buf).await.unwrap(), 1);
        assert_eq!(&buf[..1], b"x");
    });
}
