//! `rt::runtime::is_rt_shutdown_err`, as tokio's: true for the error an IO operation returns
//! because its runtime shut down, false for everything else.

use std::io;

mod support;

#[test]
fn io_on_a_shut_down_runtime_is_recognised() {
    let first = support::current_thread();
    let listener =
        first.block_on(async { rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap() });
    drop(first);
    let second = support::current_thread();
    let err = second.block_on(async { listener.accept().await.unwrap_err() });
    assert!(rt::runtime::is_rt_shutdown_err(&err), "{err}");
}

#[test]
fn other_errors_are_not() {
    assert!(!rt::runtime::is_rt_shutdown_err(&io::Error::other("x")));
    assert!(!rt::runtime::is_rt_shutdown_err(
        &io::ErrorKind::NotFound.into()
    ));
    // The same words are not the same error.
    let words = io::Error::other("rt-io reactor has shut down");
    assert!(!rt::runtime::is_rt_shutdown_err(&words));
    let rt = support::current_thread();
    let join = rt.spawn(std::future::pending::<()>());
    join.abort();
    let cancelled: io::Error = rt.block_on(join).unwrap_err().into();
    assert!(!rt::runtime::is_rt_shutdown_err(&cancelled));
}
