//! A local task woken from another thread (a waker sent to a plain thread, a channel sender
//! there, an `AbortHandle` used there) is queued for the set's thread and wakes the future that
//! drives the set; it is polled, completed and dropped only on the set's thread.

mod support;

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::mpsc;
use std::task::{Context, Poll, Waker};
use std::thread::{self, ThreadId};

use rt::task::LocalSet;
use support::{deadline, runtimes};

/// Pending until woken once: sends its waker to `out` at the first poll.
struct WakeFromElsewhere {
    out: Option<mpsc::Sender<Waker>>,
}

impl Future for WakeFromElsewhere {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match self.out.take() {
            Some(out) => {
                out.send(cx.waker().clone()).unwrap();
                Poll::Pending
            }
            None => Poll::Ready(()),
        }
    }
}

struct DropOn(mpsc::Sender<ThreadId>);

impl Drop for DropOn {
    fn drop(&mut self) {
        let _ = self.0.send(thread::current().id());
    }
}

#[test]
fn a_waker_fired_on_another_thread_resumes_the_task_here() {
    deadline(|| {
        for (name, rt) in runtimes() {
            let local = LocalSet::new();
            let here = thread::current().id();
            let (wtx, wrx) = mpsc::channel::<Waker>();
            let waker_thread = thread::spawn(move || {
                for w in wrx {
                    w.wake();
                }
            });
            let polled_on = local.block_on(&rt, async move {
                let hs: Vec<_> = (0..10)
                    .map(|_| {
                        let wtx = wtx.clone();
                        let marker = Rc::new(()); // keeps the future !Send
                        rt::task::spawn_local(async move {
                            WakeFromElsewhere { out: Some(wtx) }.await;
                            let _m = marker;
                            thread::current().id()
                        })
                    })
                    .collect();
                drop(wtx);
                let mut ids = Vec::new();
                for h in hs {
                    ids.push(h.await.unwrap());
                }
                ids
            });
            waker_thread.join().unwrap();
            assert!(polled_on.iter().all(|t| *t == here), "{name}");
        }
    });
}

#[test]
fn a_channel_sender_on_another_thread() {
    deadline(|| {
        for (name, rt) in runtimes() {
            let local = LocalSet::new();
            let (tx, rx) = rt::sync::oneshot::channel::<u32>();
            let got = local.block_on(&rt, async move {
                let h = rt::task::spawn_local(async move { Rc::new(rx.await.unwrap()) });
                let sender = thread::spawn(move || tx.send(9).unwrap());
                let v = h.await.unwrap();
                sender.join().unwrap();
                *v
            });
            assert_eq!(got, 9, "{name}");
        }
    });
}

#[test]
fn abort_from_another_thread_drops_the_future_on_the_set_thread() {
    deadline(|| {
        for (name, rt) in runtimes() {
            let local = LocalSet::new();
            let here = thread::current().id();
            let (dtx, drx) = mpsc::channel();
            let dropped_on = local.block_on(&rt, async move {
                let guard = DropOn(dtx);
                let h = rt::task::spawn_local(async move {
                    let _g = guard;
                    let _rc = Rc::new(());
                    std::future::pending::<()>().await;
                });
                rt::task::yield_now().await; // let it start
                let abort = h.abort_handle();
                thread::spawn(move || abort.abort()).join().unwrap();
                assert!(h.await.unwrap_err().is_cancelled());
                drx.recv().unwrap()
            });
            assert_eq!(dropped_on, here, "{name}");
        }
    });
}
