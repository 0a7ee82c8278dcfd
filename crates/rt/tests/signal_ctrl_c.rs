//! `rt::signal::ctrl_c()` completes after a SIGINT delivered with `libc::raise`, on both
//! flavours (the process is not ended: rt's action replaced SIGINT's default).

mod support;

use std::future::{poll_fn, Future};
use std::task::Poll;

#[test]
fn ctrl_c_on_both_flavours() {
    for (name, rt) in support::runtimes() {
        rt.block_on(async {
            let mut ctrl_c = Box::pin(rt::signal::ctrl_c());
            // The first poll installs the listener; SIGINT is not pending yet.
            poll_fn(|cx| {
                assert!(ctrl_c.as_mut().poll(cx).is_pending(), "{name}");
                Poll::Ready(())
            })
            .await;
            // SAFETY: raise(3) sends SIGINT to this thread; rt's action for it is installed.
            assert_eq!(unsafe { libc::raise(libc::SIGINT) }, 0);
            ctrl_c.await.unwrap();
        });
    }
}
