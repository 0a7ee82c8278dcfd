//! The synchronous `resume` of a body that awaits something not ready blocks the calling thread
//! until it is woken, here by a foreign thread completing a oneshot; no runtime anywhere.

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc;
use std::task::{Context, Poll};
use std::thread;

use rt::coro::{Co, Coroutine, Resumed};

/// Polls the receiver, and tells `registered` once its first poll returned `Pending` (so the
/// sender below certainly completes it after the resume found it not ready).
struct Announce {
    rx: rt::sync::oneshot::Receiver<u32>,
    registered: Option<mpsc::Sender<()>>,
}

impl Future for Announce {
    type Output = u32;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        match Pin::new(&mut self.rx).poll(cx) {
            Poll::Ready(v) => Poll::Ready(v.unwrap()),
            Poll::Pending => {
                if let Some(tx) = self.registered.take() {
                    tx.send(()).unwrap();
                }
                Poll::Pending
            }
        }
    }
}

#[test]
fn sync_resume_blocks_until_the_body_is_woken() {
    let (value_tx, value_rx) = rt::sync::oneshot::channel::<u32>();
    let (reg_tx, reg_rx) = mpsc::channel();
    let sender = thread::spawn(move || {
        reg_rx.recv().unwrap();
        value_tx.send(41).unwrap();
    });
    let mut co: Coroutine<u32, (), u32> = Coroutine::new(move |co: Co<u32>, ()| async move {
        let v = Announce {
            rx: value_rx,
            registered: Some(reg_tx),
        }
        .await;
        co.yield_(v).await;
        v + 1
    });
    assert!(matches!(co.resume(()), Ok(Resumed::Yield(41))));
    assert!(matches!(co.resume(()), Ok(Resumed::Return(42))));
    sender.join().unwrap();
}
