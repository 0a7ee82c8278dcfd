//! `rt::io::unix::AsyncFd` with tokio's whole API: the `_mut` waits and guards, `async_io` and
//! `async_io_mut`, `clear_ready_matching`, and `try_new` handing the value back on failure.

use std::future::Future;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::pin::pin;
use std::task::{Context, Waker};

use rt::io::unix::{AsyncFd, AsyncFdReadyMutGuard, AsyncFdTryNewError};
use rt::io::{Interest, Ready};

/// `EPERM`: what `epoll_ctl` says to a regular file.
const EPERM: i32 = 1;

fn pair() -> (UnixStream, UnixStream) {
    let (a, b) = UnixStream::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    b.set_nonblocking(true).unwrap();
    (a, b)
}

fn is_pending<F: Future>(fut: std::pin::Pin<&mut F>) -> bool {
    fut.poll(&mut Context::from_waker(Waker::noop()))
        .is_pending()
}

#[rt::test]
async fn readable_mut_lends_the_value_mutably_and_try_io_clears() {
    let (a, mut b) = pair();
    let mut fd = AsyncFd::with_interest(a, Interest::READABLE).unwrap();
    b.write_all(b"hello").unwrap();
    let mut buf = [0u8; 16];
    let n = {
        let mut guard: AsyncFdReadyMutGuard<'_, UnixStream> = fd.readable_mut().await.unwrap();
        assert!(guard.ready().is_readable());
        let n = guard
            .try_io(|fd| fd.get_mut().read(&mut buf))
            .expect("data was there")
            .unwrap();
        // Drained: the next try clears the readiness.
        assert!(guard.try_io(|fd| fd.get_mut().read(&mut buf)).is_err());
        assert!(guard.ready().is_empty());
        n
    };
    assert_eq!(&buf[..n], b"hello");
    // Cleared: a new wait really waits, until more data comes.
    {
        let mut wait = pin!(fd.readable_mut());
        assert!(is_pending(wait.as_mut()));
        b.write_all(b"more").unwrap();
        let mut guard = wait.await.unwrap();
        let n = guard.get_inner_mut().read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"more");
        guard.clear_ready();
    }
}

#[rt::test]
async fn async_io_loops_until_the_operation_goes_through() {
    let (a, mut b) = pair();
    let fd = AsyncFd::new(a).unwrap();
    let mut reader = pin!(fd.async_io(Interest::READABLE, |s| {
        let mut buf = [0u8; 8];
        let n = (&*s).read(&mut buf)?;
        Ok(buf[..n].to_vec())
    }));
    // Nothing to read: the first try blocks and the future waits.
    assert!(is_pending(reader.as_mut()));
    b.write_all(b"abc").unwrap();
    assert_eq!(reader.await.unwrap(), b"abc");
}

#[rt::test]
async fn async_io_mut_passes_the_value_mutably() {
    let (a, mut b) = pair();
    let mut fd = AsyncFd::new(a).unwrap();
    let mut calls = 0;
    b.write_all(b"xyz").unwrap();
    let got = fd
        .async_io_mut(Interest::READABLE, |s| {
            calls += 1;
            let mut buf = [0u8; 8];
            let n = s.read(&mut buf)?;
            Ok(buf[..n].to_vec())
        })
        .await
        .unwrap();
    assert_eq!(got, b"xyz");
    assert_eq!(calls, 1);
    // A write through the same value, the other way.
    fd.async_io_mut(Interest::WRITABLE, |s| s.write(b"back"))
        .await
        .unwrap();
    let mut buf = [0u8; 8];
    let n = b.read(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"back");
}

#[rt::test]
async fn clear_ready_matching_keeps_the_other_direction() {
    let (a, mut b) = pair();
    let fd = AsyncFd::new(a).unwrap();
    b.write_all(b"1").unwrap();
    // Both directions ready: readable (data) and writable (empty send buffer).
    let mut guard = fd
        .ready(Interest::READABLE | Interest::WRITABLE)
        .await
        .unwrap();
    let both = guard.ready();
    assert!(both.is_readable() && both.is_writable(), "{both:?}");
    let mut buf = [0u8; 4];
    assert_eq!(guard.get_inner().read(&mut buf).unwrap(), 1);
    guard.clear_ready_matching(Ready::READABLE);
    assert_eq!(guard.ready(), both - Ready::READABLE);
    // Writable is still known: a write wait completes at once...
    let mut w = pin!(fd.writable());
    assert!(!is_pending(w.as_mut()));
    // ...while readable was cleared: a read wait waits.
    let mut r = pin!(fd.readable());
    assert!(is_pending(r.as_mut()));
    b.write_all(b"2").unwrap();
    r.await.unwrap().clear_ready();
}

#[rt::test]
async fn try_new_hands_the_value_back_when_registration_fails() {
    // A regular file cannot be registered with epoll (EPERM): the value comes back with the cause.
    let file = std::fs::File::open("/proc/self/stat").unwrap();
    let raw = std::os::fd::AsRawFd::as_raw_fd(&file);
    let err: AsyncFdTryNewError<std::fs::File> = match AsyncFd::try_new(file) {
        Ok(_) => panic!("a regular file registered with epoll"),
        Err(e) => e,
    };
    assert!(!err.to_string().is_empty());
    let (file, cause) = err.into_parts();
    assert_eq!(std::os::fd::AsRawFd::as_raw_fd(&file), raw);
    assert_eq!(cause.raw_os_error(), Some(EPERM));
    // The plain constructor turns the same failure into an io::Error.
    let io_err = AsyncFd::new(file).unwrap_err();
    assert_eq!(io_err.raw_os_error(), Some(EPERM));
}

#[test]
fn ready_and_interest_set_operations() {
    let rw = Ready::READABLE | Ready::WRITABLE;
    assert_eq!(rw & Ready::READABLE, Ready::READABLE);
    assert_eq!(rw - Ready::READABLE, Ready::WRITABLE);
    assert_eq!(Ready::ALL - Ready::ALL, Ready::EMPTY);
    assert!((Ready::ALL & Ready::ERROR).is_error());
    let both = Interest::READABLE | Interest::WRITABLE;
    assert_eq!(both.remove(Interest::READABLE), Some(Interest::WRITABLE));
    assert_eq!(Interest::READABLE.remove(Interest::READABLE), None);
    let mut i = Interest::READABLE;
    i |= Interest::WRITABLE;
    assert_eq!(i, both);
}
