//! `AsyncFd` over a plain non-blocking fd: readiness, `try_io` and clearing, `into_inner`.

mod support;

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::pin::pin;

use rt_io::io::{AsyncFd, Interest};
use support::{poll_once, run, Flag};

fn pair() -> (UnixStream, UnixStream) {
    let (a, b) = UnixStream::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    b.set_nonblocking(true).unwrap();
    (a, b)
}

#[test]
fn readable_wakes_when_data_arrives_and_try_io_clears() {
    run(async {
        let (a, mut b) = pair();
        let fd = AsyncFd::with_interest(a, Interest::READABLE).unwrap();

        let flag = Flag::new();
        let mut readable = pin!(fd.readable());
        assert!(
            poll_once(readable.as_mut(), &flag).is_pending(),
            "no data yet"
        );
        b.write_all(b"data").unwrap();
        flag.wait();
        let mut guard = readable.await.unwrap();
        assert!(guard.ready().is_readable());

        let mut buf = [0u8; 16];
        let n = guard
            .try_io(|fd| fd.get_ref().read(&mut buf))
            .expect("data was there")
            .unwrap();
        assert_eq!(&buf[..n], b"data");
        // Drained: the next try reports WouldBlock and clears the readiness...
        assert!(guard.try_io(|fd| fd.get_ref().read(&mut buf)).is_err());
        // ...so a new wait really waits.
        let flag = Flag::new();
        let mut readable = pin!(fd.readable());
        assert!(poll_once(readable.as_mut(), &flag).is_pending());
        b.write_all(b"more").unwrap();
        flag.wait();
        let mut guard = readable.await.unwrap();
        let n = guard.get_inner().read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"more");
        guard.clear_ready();
    });
}

#[test]
fn writable_and_into_inner() {
    run(async {
        let (a, b) = pair();
        let fd = AsyncFd::new(a).unwrap();
        let mut guard = fd.writable().await.unwrap();
        assert!(guard.ready().is_writable());
        let n = guard
            .try_io(|fd| fd.get_ref().write(b"x"))
            .unwrap()
            .unwrap();
        assert_eq!(n, 1);
        let mut a = fd.into_inner();
        a.write_all(b"y").unwrap();
        let mut b = b;
        let mut buf = [0u8; 2];
        b.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"xy");
    });
}

#[test]
fn peer_close_completes_a_read_wait() {
    run(async {
        let (a, b) = pair();
        let fd = AsyncFd::with_interest(a, Interest::READABLE).unwrap();
        let flag = Flag::new();
        let mut readable = pin!(fd.readable());
        assert!(poll_once(readable.as_mut(), &flag).is_pending());
        drop(b);
        flag.wait();
        let guard = readable.await.unwrap();
        assert!(guard.ready().is_read_closed());
        let mut buf = [0u8; 1];
        assert_eq!(guard.get_inner().read(&mut buf).unwrap(), 0);
    });
}

/// `Interest::PRIORITY` registers for `EPOLLPRI`: TCP out-of-band data completes a priority
/// wait with `Ready::PRIORITY`, which no readable or writable readiness does.
#[test]
fn out_of_band_data_completes_a_priority_wait() {
    use rt_io::io::Ready;
    use std::os::fd::AsRawFd;
    run(async {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        client.set_nonblocking(true).unwrap();
        // SAFETY: `client` owns its fd, and the `AsyncFd` owns `client` until it drops.
        let client =
            unsafe { AsyncFd::register_with_interest(client, Interest::PRIORITY) }.unwrap();
        let (server, _) = listener.accept().unwrap();

        let flag = Flag::new();
        let mut priority = pin!(client.ready(Interest::PRIORITY));
        assert!(
            poll_once(priority.as_mut(), &flag).is_pending(),
            "a fresh connection has no out-of-band data"
        );
        // SAFETY: `server` is an open socket; the buffer is valid for its length.
        let sent =
            unsafe { libc::send(server.as_raw_fd(), b"!".as_ptr().cast(), 1, libc::MSG_OOB) };
        assert_eq!(sent, 1);
        flag.wait();
        let guard = priority.await.unwrap();
        assert!(guard.ready().is_priority());
        assert_eq!(guard.ready() & Ready::WRITABLE, Ready::EMPTY);
    });
}

/// An error-only wait ignores the socket's readability and writability and completes on an
/// error: a UDP socket with `IP_RECVERR` learns that its datagram was refused.
#[test]
fn an_error_wait_completes_on_an_error_only() {
    use rt_io::io::Ready;
    use std::os::fd::AsRawFd;
    run(async {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        socket.set_nonblocking(true).unwrap();
        let on: libc::c_int = 1;
        // SAFETY: `socket` is open; `on` is a valid c_int for the option's length.
        let r = unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_IP,
                libc::IP_RECVERR,
                (&on as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        assert_eq!(r, 0);
        // A port nobody listens on: a closed socket's port.
        let closed = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let dest = closed.local_addr().unwrap();
        drop(closed);
        // SAFETY: `socket` owns its fd, and the `AsyncFd` owns `socket` until it drops.
        let fd = unsafe { AsyncFd::register(socket) }.unwrap();

        let flag = Flag::new();
        let mut error = pin!(fd.ready(Interest::ERROR));
        assert!(
            poll_once(error.as_mut(), &flag).is_pending(),
            "writable is not an error"
        );
        fd.get_ref().send_to(b"x", dest).unwrap();
        flag.wait();
        let guard = error.await.unwrap();
        assert_eq!(guard.ready(), Ready::ERROR);
    });
}

/// The unsafe constructors hand the value back when registering fails.
#[test]
fn register_hands_the_value_back_on_failure() {
    #[derive(Debug)]
    struct Invalid;
    impl std::os::fd::AsRawFd for Invalid {
        fn as_raw_fd(&self) -> std::os::fd::RawFd {
            -1
        }
    }
    run(async {
        let original = std::sync::Arc::new(Invalid);
        // SAFETY: registering fd -1 fails, so no `AsyncFd` ever owns it.
        let err = unsafe { AsyncFd::register(original.clone()) }.unwrap_err();
        let (back, _cause) = err.into_parts();
        assert!(std::sync::Arc::ptr_eq(&original, &back));
    });
}

/// `AsyncFd::try_io` calls its closure only while the readiness word says ready, and a
/// `WouldBlock` from it clears that.
#[test]
fn try_io_runs_only_when_ready() {
    run(async {
        let (a, mut b) = pair();
        let mut fd = AsyncFd::with_interest(a, Interest::READABLE).unwrap();
        let mut called = false;
        let r = fd.try_io_mut(Interest::READABLE, |_| {
            called = true;
            Ok(())
        });
        assert_eq!(r.unwrap_err().kind(), std::io::ErrorKind::WouldBlock);
        assert!(!called, "nothing to read yet");
        b.write_all(b"x").unwrap();
        let _ready = fd.readable().await.unwrap();
        let r = fd.try_io(Interest::READABLE, |_| {
            Err::<(), _>(std::io::ErrorKind::WouldBlock.into())
        });
        assert!(r.is_err());
        let r = fd.try_io(Interest::READABLE, |_| {
            called = true;
            Ok(())
        });
        assert!(
            r.is_err() && !called,
            "the WouldBlock cleared the readiness"
        );
    });
}
