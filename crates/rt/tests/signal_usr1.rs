//! `signal(SignalKind::user_defined1())` sees SIGUSR1 delivered by `libc::raise` on both
//! flavours, from the runtime's thread and from another thread; deliveries between two `recv`s
//! merge into one; signals that must not be handled are an error.

mod support;

use std::future::{poll_fn, Future};
use std::task::Poll;

use rt::signal::unix::{signal, SignalKind};

fn raise_usr1() {
    // SAFETY: raise(3) sends SIGUSR1 to the calling thread; a listener (rt's action) exists.
    assert_eq!(unsafe { libc::raise(libc::SIGUSR1) }, 0);
}

#[test]
fn sigusr1_on_both_flavours() {
    for (name, rt) in support::runtimes() {
        rt.block_on(async {
            let mut usr1 = signal(SignalKind::user_defined1()).unwrap();
            assert_eq!(usr1.kind(), SignalKind::from_raw(libc::SIGUSR1));
            raise_usr1();
            assert_eq!(usr1.recv().await, Some(()), "{name}");

            // From a thread that is not the runtime's.
            std::thread::spawn(raise_usr1).join().unwrap();
            assert_eq!(usr1.recv().await, Some(()), "{name}");

            // Two deliveries before a recv: one wake-up, then nothing pending.
            raise_usr1();
            raise_usr1();
            assert_eq!(usr1.recv().await, Some(()), "{name}");
            poll_fn(|cx| {
                let mut recv = Box::pin(usr1.recv());
                assert!(
                    recv.as_mut().poll(cx).is_pending(),
                    "{name}: merged deliveries"
                );
                Poll::Ready(())
            })
            .await;

            // And the listener still works after that.
            raise_usr1();
            assert_eq!(usr1.recv().await, Some(()), "{name}");
        });
    }
}

#[test]
fn unhandleable_signals_are_an_error() {
    let rt = support::current_thread();
    rt.block_on(async {
        for bad in [libc::SIGKILL, libc::SIGSTOP, libc::SIGSEGV, 0, -1, 10_000] {
            let err = signal(SignalKind::from_raw(bad)).unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "signal {bad}");
        }
    });
}
