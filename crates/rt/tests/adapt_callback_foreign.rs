//! `adapt::callback` completed from a foreign std thread (as a C library's callback thread
//! would), awaited inside a runtime and, with no runtime at all, from a plain thread.

use std::future::Future;
use std::pin::pin;
use std::sync::mpsc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread;

use rt::adapt::{callback, Completer};

/// A callback API of the usual C shape: the callback runs later, on a thread of the library's.
fn register(start: mpsc::Receiver<()>, cb: impl FnOnce(String) + Send + 'static) {
    thread::spawn(move || {
        start.recv().unwrap();
        cb(format!("from {:?}", thread::current().id()));
    });
}

#[test]
fn completed_from_a_foreign_thread_inside_a_runtime() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (go, start) = mpsc::channel();
    let got = rt.block_on(async move {
        let fut = callback(|done: Completer<String>| {
            register(start, move |v| {
                assert!(!done.is_cancelled());
                done.complete(v)
            })
        });
        go.send(()).unwrap();
        fut.await
    });
    let got = got.unwrap();
    assert!(got.starts_with("from ThreadId"), "{got}");
}

struct Unpark(thread::Thread);
impl Wake for Unpark {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.unpark();
    }
}

#[test]
fn completed_from_a_foreign_thread_without_a_runtime() {
    let (go, start) = mpsc::channel();
    let mut fut = pin!(callback(|done: Completer<String>| register(
        start,
        move |v| done.complete(v)
    )));
    let waker = Waker::from(std::sync::Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    assert!(
        fut.as_mut().poll(&mut cx).is_pending(),
        "not completed before `go`"
    );
    go.send(()).unwrap();
    let got = loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(v) => break v,
            Poll::Pending => thread::park(),
        }
    };
    assert!(got.unwrap().starts_with("from ThreadId"));
}
