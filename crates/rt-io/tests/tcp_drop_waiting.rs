//! A stream dropped while a task waits on it deregisters cleanly, and the slot's next owner is not
//! disturbed by events meant for the old one.

mod support;

use std::pin::pin;

use rt_io::net::{TcpListener, TcpStream};
use rt_io::Handle;
use support::{poll_once, run, Flag};

#[test]
fn dropping_a_waiting_read_releases_the_registration() {
    run(async {
        let handle = Handle::current();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let baseline = handle.registration_count();

        let mut c = TcpStream::connect(addr).await.unwrap();
        let (mut s, _) = listener.accept().await.unwrap();
        assert_eq!(handle.registration_count(), baseline + 2);

        // A read that waits (no data yet), abandoned with its stream, as a cancelled task would.
        let old = Flag::new();
        {
            let mut buf = [0u8; 8];
            let mut read = pin!(c.read(&mut buf));
            assert!(poll_once(read.as_mut(), &old).is_pending());
        }
        drop(c);
        assert_eq!(handle.registration_count(), baseline + 1);

        // The server side sees the close.
        let mut buf = [0u8; 8];
        assert_eq!(s.read(&mut buf).await.unwrap(), 0);

        // A new connection reuses the freed slot; the old waker is never woken by its traffic.
        let mut c2 = TcpStream::connect(addr).await.unwrap();
        let (mut s2, _) = listener.accept().await.unwrap();
        s2.write_all(b"new").await.unwrap();
        let mut got = [0u8; 3];
        c2.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"new");
        assert!(!old.is_woken(), "a dropped waiter was woken");
        drop((s, s2, c2));
        assert_eq!(handle.registration_count(), baseline);
    });
}

#[test]
fn dropping_a_waiting_accept_leaves_the_listener_usable() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let flag = Flag::new();
        {
            let mut accept = pin!(listener.accept());
            assert!(poll_once(accept.as_mut(), &flag).is_pending());
        }
        // The abandoned accept left no waiter behind: a new one completes normally.
        let c = TcpStream::connect(addr).await.unwrap();
        let (_s, peer) = listener.accept().await.unwrap();
        assert_eq!(peer, c.local_addr().unwrap());
    });
}
