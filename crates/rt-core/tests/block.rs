//! `rt_core::block`: a thread blocked on a future sleeps until the future's waker fires from
//! another thread, and a block nested inside a poll of another one on the same thread does not
//! consume the outer one's wake.

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// A future that is ready once `fire` was called, from any thread.
#[derive(Clone, Default)]
struct Flag(Arc<Mutex<(bool, Option<Waker>)>>);

impl Flag {
    fn fire(&self) {
        let waker = {
            let mut s = self.0.lock().unwrap();
            s.0 = true;
            s.1.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

impl Future for Flag {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = self.0.lock().unwrap();
        if s.0 {
            Poll::Ready(())
        } else {
            s.1 = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

#[test]
fn a_wake_from_another_thread_ends_the_block() {
    let flag = Flag::default();
    let (pending_tx, pending_rx) = mpsc::channel();
    let f = flag.clone();
    let firer = std::thread::spawn(move || {
        pending_rx.recv().unwrap();
        f.fire();
    });
    let mut told = false;
    rt_core::block::poll_until_ready(|cx| {
        let out = Pin::new(&mut flag.clone()).poll(cx);
        if out.is_pending() && !told {
            told = true;
            pending_tx.send(()).unwrap();
        }
        out
    });
    firer.join().unwrap();
    // The thread's blocker is reused: a second block works the same.
    assert_eq!(rt_core::block::block_on(async { 7 }), 7);
}

#[test]
fn a_nested_block_leaves_the_outer_wake_to_the_outer_block() {
    let (outer, inner) = (Flag::default(), Flag::default());
    let (inner_pending_tx, inner_pending_rx) = mpsc::channel();
    let (o, i) = (outer.clone(), inner.clone());
    // Fires the outer flag while the inner block sleeps, then the inner one.
    let firer = std::thread::spawn(move || {
        inner_pending_rx.recv().unwrap();
        o.fire();
        i.fire();
    });
    let mut nested_once = false;
    let mut outer_polls = 0;
    rt_core::block::poll_until_ready(|cx| {
        outer_polls += 1;
        let out = Pin::new(&mut outer.clone()).poll(cx);
        if out.is_pending() && !nested_once {
            nested_once = true;
            let mut told = false;
            rt_core::block::poll_until_ready(|cx| {
                let r = Pin::new(&mut inner.clone()).poll(cx);
                if r.is_pending() && !told {
                    told = true;
                    inner_pending_tx.send(()).unwrap();
                }
                r
            });
        }
        out
    });
    firer.join().unwrap();
    assert!(outer_polls >= 2);
}
