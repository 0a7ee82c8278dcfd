//! UnixStream with more of tokio's API: `peer_cred` (the connecting process's credentials),
//! `try_read_vectored`/`try_write_vectored`, and `try_io`/`async_io` for own syscalls.

mod support;

use std::io::{ErrorKind, IoSlice, IoSliceMut, Read};

use rt_io::io::Interest;
use rt_io::net::unix::{UCred, UnixListener, UnixStream};
use support::run;

#[test]
fn peer_cred_names_the_connecting_process() {
    run(async {
        let dir = std::env::temp_dir().join(format!("rt-ucred-{}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        let listener = UnixListener::bind(&dir).unwrap();
        let client = UnixStream::connect(&dir).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let cred: UCred = server.peer_cred().unwrap();
        // SAFETY: getuid/getgid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        assert_eq!(cred.uid(), uid);
        assert_eq!(cred.gid(), gid);
        assert_eq!(cred.pid(), Some(std::process::id() as libc::pid_t));
        assert_eq!(
            client.peer_cred().unwrap(),
            cred,
            "both ends are this process"
        );
        std::fs::remove_file(&dir).unwrap();
    });
}

#[test]
fn vectored_try_read_and_write() {
    run(async {
        let (a, b) = UnixStream::pair().unwrap();
        a.writable().await.unwrap();
        let n = a
            .try_write_vectored(&[IoSlice::new(b"12"), IoSlice::new(b"345")])
            .unwrap();
        assert_eq!(n, 5);
        b.readable().await.unwrap();
        let (mut x, mut y) = ([0u8; 2], [0u8; 8]);
        let n = b
            .try_read_vectored(&mut [IoSliceMut::new(&mut x), IoSliceMut::new(&mut y)])
            .unwrap();
        assert_eq!((n, &x, &y[..3]), (5, b"12", &b"345"[..]));
        let mut none = [0u8; 4];
        let err = b
            .try_read_vectored(&mut [IoSliceMut::new(&mut none)])
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
    });
}

#[test]
fn try_io_and_async_io_run_our_own_syscalls() {
    run(async {
        let (mut a, b) = UnixStream::pair().unwrap();
        let view = {
            use std::os::fd::{AsRawFd, FromRawFd};
            // SAFETY: the fd stays open while `b` lives; the view is forgotten, not closed.
            unsafe { std::os::unix::net::UnixStream::from_raw_fd(b.as_raw_fd()) }
        };
        let mut buf = [0u8; 8];
        let err = b
            .try_io(Interest::READABLE, || (&view).read(&mut buf))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        a.write_all(b"ok").await.unwrap();
        let n = b
            .async_io(Interest::READABLE, || (&view).read(&mut buf))
            .await
            .unwrap();
        assert_eq!(&buf[..n], b"ok");
        std::mem::forget(view);
    });
}
