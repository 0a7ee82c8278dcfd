//! A reactor thread that dies does not hang the runtime: pending and later IO operations fail
//! with "rt-io reactor thread is gone".

mod support;

use std::pin::pin;

use rt_io::net::{TcpListener, TcpStream};
use rt_io::Handle;
use support::{poll_once, run, Flag};

#[test]
fn pending_and_later_io_fail_after_the_reactor_panics() {
    run(async {
        let handle = Handle::current();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut c = TcpStream::connect(addr).await.unwrap();
        let (_s, _) = listener.accept().await.unwrap();

        let read_flag = Flag::new();
        let accept_flag = Flag::new();
        let mut buf = [0u8; 8];
        let mut read = pin!(c.read(&mut buf));
        let mut accept = pin!(listener.accept());
        assert!(poll_once(read.as_mut(), &read_flag).is_pending());
        assert!(poll_once(accept.as_mut(), &accept_flag).is_pending());

        handle.kill_reactor_for_test();
        read_flag.wait();
        accept_flag.wait();
        assert!(!handle.is_running());

        let e = read.await.unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::Other);
        assert_eq!(e.to_string(), "rt-io reactor thread is gone");
        let e = accept.await.unwrap_err();
        assert_eq!(e.to_string(), "rt-io reactor thread is gone");

        // New sockets cannot register any more.
        let e = TcpListener::bind("127.0.0.1:0").await.unwrap_err();
        assert_eq!(e.to_string(), "rt-io reactor thread is gone");
    });
}
