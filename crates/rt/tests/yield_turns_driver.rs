//! A yield lets the IO driver in before the yielder runs again (tokio's deferred yields): data
//! written to a socket before `yield_now` is seen as readiness right after it, with nothing
//! else to run. On one worker, or in a current-thread `block_on` (a multi-thread `block_on`
//! thread drives no IO: there, as in tokio, a yield defers nothing).

mod support;

use std::io::Write;
use std::os::unix::net::UnixStream;

use rt::io::unix::AsyncFd;
use rt::io::Interest;

/// Whether `try_io` finds `fd` readable now.
fn readable_now(fd: &AsyncFd<UnixStream>) -> bool {
    let mut called = false;
    let _ = fd.try_io(Interest::READABLE, |_| {
        called = true;
        Ok(())
    });
    called
}

/// Writes a byte to a socket pair between two yields; returns whether the reading end was
/// readable before the write and after it.
async fn readable_before_and_after_a_yield() -> (bool, bool) {
    let (a, mut b) = UnixStream::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    let fd = AsyncFd::with_interest(a, Interest::READABLE).unwrap();
    rt::task::yield_now().await;
    let before = readable_now(&fd);
    b.write_all(&[1]).unwrap();
    rt::task::yield_now().await;
    (before, readable_now(&fd))
}

#[test]
fn a_yield_in_block_on_lets_readiness_in() {
    let rt = support::current_thread();
    assert_eq!(
        rt.block_on(readable_before_and_after_a_yield()),
        (false, true)
    );
}

#[test]
fn a_yield_in_a_task_lets_readiness_in() {
    for (name, rt) in [
        ("current_thread", support::current_thread()),
        ("one worker", support::multi_thread(1)),
    ] {
        let seen = rt
            .block_on(rt.spawn(readable_before_and_after_a_yield()))
            .unwrap();
        assert_eq!(seen, (false, true), "{name}");
    }
}
