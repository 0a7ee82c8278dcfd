//! The other forms of `join!` and `try_join!`, as tokio's: `biased;` polls in the order
//! written, otherwise each poll starts one future later; `IntoFuture` operands; no operands.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

mod support;

/// Pending on its first `polls` polls, recording each poll in `log` under its name.
struct Logged {
    name: u8,
    polls: u8,
    log: Arc<Mutex<Vec<u8>>>,
}

impl Future for Logged {
    type Output = u8;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u8> {
        self.log.lock().unwrap().push(self.name);
        if self.polls == 0 {
            return Poll::Ready(self.name);
        }
        self.polls -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

fn logged(log: &Arc<Mutex<Vec<u8>>>, name: u8, polls: u8) -> Logged {
    Logged {
        name,
        polls,
        log: log.clone(),
    }
}

#[test]
fn each_poll_starts_one_future_later() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let out = support::current_thread()
        .block_on(async { rt::join!(logged(&log, 1, 2), logged(&log, 2, 2), logged(&log, 3, 2)) });
    assert_eq!(out, (1, 2, 3));
    assert_eq!(*log.lock().unwrap(), [1, 2, 3, 2, 3, 1, 3, 1, 2]);
}

#[test]
fn biased_polls_in_the_order_written() {
    let log = Arc::new(Mutex::new(Vec::new()));
    support::current_thread().block_on(async {
        rt::join!(biased; logged(&log, 1, 2), logged(&log, 2, 2), logged(&log, 3, 2))
    });
    assert_eq!(*log.lock().unwrap(), [1, 2, 3, 1, 2, 3, 1, 2, 3]);
}

#[test]
fn try_join_biased_and_rotating() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let out: Result<(u8, u8), ()> = support::current_thread().block_on(async {
        rt::try_join!(biased; async { Ok(logged(&log, 1, 1).await) }, async {
            Ok(logged(&log, 2, 1).await)
        })
    });
    assert_eq!(out, Ok((1, 2)));
    assert_eq!(*log.lock().unwrap(), [1, 2, 1, 2]);
    log.lock().unwrap().clear();
    let out: Result<(u8, u8), ()> = support::current_thread().block_on(async {
        rt::try_join!(async { Ok(logged(&log, 1, 1).await) }, async {
            Ok(logged(&log, 2, 1).await)
        })
    });
    assert_eq!(out, Ok((1, 2)));
    assert_eq!(*log.lock().unwrap(), [1, 2, 2, 1]);
}

/// Not a future itself; turns into one.
struct Later(u32);

impl IntoFuture for Later {
    type Output = u32;
    type IntoFuture = std::future::Ready<u32>;
    fn into_future(self) -> Self::IntoFuture {
        std::future::ready(self.0)
    }
}

#[test]
fn operands_may_be_into_future() {
    let rt = support::current_thread();
    assert_eq!(rt.block_on(async { rt::join!(Later(1), Later(2)) }), (1, 2));
    let r: Result<(u32,), ()> =
        rt.block_on(async { rt::try_join!(async { Ok::<_, ()>(Later(3).await) }) });
    assert_eq!(r, Ok((3,)));
}

#[test]
fn no_operands() {
    let rt = support::current_thread();
    rt.block_on(async {
        let () = rt::join!();
        let () = rt::join!(biased;);
        let r: Result<(), ()> = rt::try_join!();
        assert_eq!(r, Ok(()));
    });
}
