//! `Runtime`, `Handle`, `JoinHandle` and the sockets are `UnwindSafe + RefUnwindSafe`, as tokio's (this file does
//! not compile otherwise).

use std::panic::{RefUnwindSafe, UnwindSafe};

fn assert_unwind_safe<T: UnwindSafe + RefUnwindSafe>() {}

#[test]
fn runtime_handle_join_handle_and_sockets() {
    assert_unwind_safe::<rt::Runtime>();
    assert_unwind_safe::<rt::Handle>();
    assert_unwind_safe::<rt::task::JoinHandle<std::cell::Cell<u8>>>();
    assert_unwind_safe::<rt::net::TcpListener>();
    assert_unwind_safe::<rt::net::TcpSocket>();
    assert_unwind_safe::<rt::net::TcpStream>();
    assert_unwind_safe::<rt::net::UdpSocket>();
    assert_unwind_safe::<rt::net::UnixDatagram>();
    assert_unwind_safe::<rt::net::UnixListener>();
    assert_unwind_safe::<rt::net::UnixStream>();
}
