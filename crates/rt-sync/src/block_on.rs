//! Blocking on a future from synchronous code (the `blocking_*` methods of the primitives, as
//! in tokio), without any runtime: the thread parks between polls.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Wake, Waker};

/// Runs `fut` to completion on this thread, parking it between polls (the `blocking_*`
/// methods: `mpsc`'s `blocking_send`/`blocking_recv`, `Mutex::blocking_lock`,
/// `RwLock::blocking_read`/`blocking_write`, `oneshot`'s and `broadcast`'s `blocking_recv`).
///
/// # Panics
/// On a thread that drives tasks, naming `what`.
#[track_caller]
pub(crate) fn block_on<F: Future>(what: &str, fut: F) -> F::Output {
    rt_core::driving::assert_may_block(what);

    struct Unparker(rt_core::sync::thread::Thread);
    impl Wake for Unparker {
        fn wake(self: rt_core::sync::StdArc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &rt_core::sync::StdArc<Self>) {
            self.0.unpark();
        }
    }

    let waker = Waker::from(rt_core::sync::StdArc::new(Unparker(
        rt_core::sync::thread::current(),
    )));
    let mut cx = Context::from_waker(&waker);
    let mut fut = pin!(fut);
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        rt_core::sync::thread::park();
    }
}
