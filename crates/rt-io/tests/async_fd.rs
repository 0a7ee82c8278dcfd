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
