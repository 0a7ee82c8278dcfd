//! A new source's first readiness: an accepted stream is assumed readable and writable, and a
//! fresh pair (or pipe) writable, so the first `try_*` call tries the syscall instead of
//! waiting for the reactor's first event. A wrong guess costs one `WouldBlock`.
//!
//! On a current-thread runtime the reactor turns only when the test's task yields, so nothing
//! here can have been delivered by an event.

use std::io::Write;

use rt_io::net::{TcpListener, UnixDatagram, UnixListener, UnixStream};

mod support;

fn current_thread<F: std::future::Future>(f: F) -> F::Output {
    rt::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

/// Waits (without the reactor) until `n` bytes are queued on `fd`.
fn wait_until_queued(fd: &impl std::os::fd::AsRawFd, n: usize) {
    let mut buf = [0u8; 64];
    for _ in 0..100_000 {
        // SAFETY: `buf` is writable for its length; MSG_PEEK leaves the data queued.
        let m = unsafe {
            libc::recv(
                fd.as_raw_fd(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                libc::MSG_PEEK | libc::MSG_DONTWAIT,
            )
        };
        if m >= n as isize {
            return;
        }
        std::thread::yield_now();
    }
    panic!("the peer's bytes never arrived");
}

#[test]
fn an_accepted_tcp_stream_reads_and_writes_without_an_event() {
    current_thread(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        client.write_all(b"hello").unwrap();
        let (stream, _) = listener.accept().await.unwrap();
        wait_until_queued(&stream, 5);
        let mut buf = [0u8; 16];
        assert_eq!(stream.try_read(&mut buf).unwrap(), 5);
        assert_eq!(stream.try_write(b"world").unwrap(), 5);
        // Drained: the next read finds nothing and clears the assumed readiness.
        let e = stream.try_read(&mut buf).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock);
        let e = stream.try_read(&mut buf).unwrap_err();
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::WouldBlock,
            "cleared: no syscall"
        );
    });
}

#[test]
fn an_accepted_unix_stream_reads_without_an_event() {
    let dir = support::TempDir::new("first-readiness");
    let path = dir.path("s.sock");
    current_thread(async move {
        let listener = UnixListener::bind(&path).unwrap();
        let mut client = std::os::unix::net::UnixStream::connect(&path).unwrap();
        client.write_all(b"hello").unwrap();
        let (stream, _) = listener.accept().await.unwrap();
        let mut buf = [0u8; 16];
        assert_eq!(stream.try_read(&mut buf).unwrap(), 5);
    });
}

#[test]
fn fresh_pairs_start_writable() {
    current_thread(async {
        let (a, b) = UnixStream::pair().unwrap();
        assert_eq!(a.try_write(b"x").unwrap(), 1);
        assert_eq!(b.try_write(b"y").unwrap(), 1);
        let (a, _b) = UnixDatagram::pair().unwrap();
        assert_eq!(a.try_send(b"d").unwrap(), 1);
        let (tx, _rx) = rt_io::net::unix::pipe::pipe().unwrap();
        assert_eq!(tx.try_write(b"p").unwrap(), 1);
    });
}
