//! `net::unix::pipe`: anonymous pipes and FIFOs, their readiness, the `try_*` calls, and the
//! checks of `from_file`.

mod support;

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::pin::pin;

use rt_io::io::Interest;
use rt_io::net::unix::pipe;
use support::{poll_once, run, Flag, TempDir};

fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `c` is a NUL-terminated path, live for the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

fn is_nonblocking(fd: &impl AsRawFd) -> bool {
    // SAFETY: `F_GETFL` takes no pointer.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    flags & libc::O_NONBLOCK != 0
}

#[test]
fn an_anonymous_pipe_carries_bytes_and_ends() {
    run(async {
        let (mut tx, mut rx) = pipe::pipe().unwrap();
        tx.write_all(b"hello").await.unwrap();
        let mut buf = [0u8; 5];
        rx.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"hello");
        drop(tx);
        assert_eq!(rx.read(&mut buf).await.unwrap(), 0, "the writer is gone");
    });
}

#[test]
fn try_read_blocks_until_a_write_and_readable_wakes() {
    run(async {
        let (tx, rx) = pipe::pipe().unwrap();
        let mut buf = [0u8; 8];
        let e = rx.try_read(&mut buf).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock);
        let flag = Flag::new();
        let mut readable = pin!(rx.readable());
        assert!(poll_once(readable.as_mut(), &flag).is_pending());
        assert_eq!(tx.try_write(b"abc").unwrap(), 3);
        flag.wait();
        readable.await.unwrap();
        assert_eq!(rx.try_read(&mut buf).unwrap(), 3);
        assert_eq!(&buf[..3], b"abc");
        let mut v = Vec::with_capacity(8);
        assert_eq!(
            rx.try_read_buf(&mut v).unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock
        );
        tx.try_write(b"xy").unwrap();
        rx.ready(Interest::READABLE).await.unwrap();
        assert_eq!(rx.try_read_buf(&mut v).unwrap(), 2);
        assert_eq!(v, b"xy");
    });
}

/// On a current-thread runtime, so no reactor turn runs between the last `try_write` and the
/// check that the pipe is not writable (a turn could deliver the registration's own first
/// writable edge, a harmless spurious wake).
#[test]
fn a_full_pipe_is_not_writable_until_read() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let (tx, rx) = pipe::pipe().unwrap();
        let chunk = [7u8; 4096];
        let mut written = 0;
        loop {
            match tx.try_write(&chunk) {
                Ok(n) => written += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => panic!("{e}"),
            }
        }
        let flag = Flag::new();
        let mut writable = pin!(tx.writable());
        assert!(poll_once(writable.as_mut(), &flag).is_pending(), "full");
        let mut buf = vec![0u8; written];
        let mut got = 0;
        while got < written {
            rx.readable().await.unwrap();
            match rx.try_read(&mut buf[got..]) {
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => panic!("{e}"),
            }
        }
        // The reads made room: the wait completes (the timeout is a hang guard only).
        rt_io::time::timeout(std::time::Duration::from_secs(20), writable)
            .await
            .expect("the writer was never woken")
            .unwrap();
    });
}

#[test]
fn a_fifo_opens_as_both_ends() {
    let dir = TempDir::new("pipe-fifo");
    let path = dir.path("fifo");
    mkfifo(&path);
    run(async move {
        // No reader yet: a write-only open fails (ENXIO).
        let e = pipe::OpenOptions::new().open_sender(&path).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENXIO));
        let mut rx = pipe::OpenOptions::new().open_receiver(&path).unwrap();
        let mut tx = pipe::OpenOptions::new().open_sender(&path).unwrap();
        tx.write_all(b"fifo").await.unwrap();
        let mut buf = [0u8; 4];
        rx.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"fifo");
        // A read-write receiver never sees the end of the stream.
        let rw = pipe::OpenOptions::new()
            .read_write(true)
            .open_receiver(&path)
            .unwrap();
        drop(tx);
        let mut buf = [0u8; 1];
        assert_eq!(
            rw.try_read(&mut buf).unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock
        );
    });
}

#[test]
fn from_file_checks_the_file_and_sets_nonblocking() {
    let dir = TempDir::new("pipe-from-file");
    let plain = dir.path("plain");
    std::fs::File::create(&plain).unwrap();
    let fifo = dir.path("fifo");
    mkfifo(&fifo);
    run(async move {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&plain)
            .unwrap();
        let e = pipe::Sender::from_file(file).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
        let e = pipe::OpenOptions::new().open_receiver(&plain).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);

        // Both ends open, so the blocking opens below do not wait for a peer.
        let _reader = pipe::OpenOptions::new().open_receiver(&fifo).unwrap();
        let _writer = pipe::OpenOptions::new().open_sender(&fifo).unwrap();
        let read_only = std::fs::File::open(&fifo).unwrap();
        assert!(!is_nonblocking(&read_only));
        let e = pipe::Sender::from_file(read_only.try_clone().unwrap()).unwrap_err();
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::InvalidInput,
            "wrong access mode"
        );
        let rx = pipe::Receiver::from_file(read_only).unwrap();
        assert!(is_nonblocking(&rx));
        let fd = rx.into_blocking_fd().unwrap();
        assert!(!is_nonblocking(&fd));
    });
}

#[test]
fn into_fd_hands_back_a_usable_end() {
    run(async {
        let (tx, rx) = pipe::pipe().unwrap();
        let mut tx = std::fs::File::from(tx.into_blocking_fd().unwrap());
        tx.write_all(b"z").unwrap();
        let mut rx = std::fs::File::from(rx.into_nonblocking_fd().unwrap());
        let mut buf = [0u8; 1];
        assert_eq!(rx.read(&mut buf).unwrap(), 1);
        assert_eq!(&buf, b"z");
    });
}
