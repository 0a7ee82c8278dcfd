//! `rt::select!` drops the futures of the losing branches before it returns (before the
//! winner's handler runs), and never polls them again.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

/// A future that never finishes and counts its drops.
struct Loser(Arc<AtomicUsize>);

impl Future for Loser {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        Poll::Pending
    }
}

impl Drop for Loser {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn losers_are_dropped_before_the_handler_runs() {
    let drops = Arc::new(AtomicUsize::new(0));
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let seen_in_handler = rt.block_on(async {
        let (tx, rx) = rt::sync::oneshot::channel::<u8>();
        let sender = async move {
            rt::task::yield_now().await;
            tx.send(1).unwrap();
        };
        let handle = rt::spawn(sender);
        let seen = rt::select! {
            _ = Loser(drops.clone()) => unreachable!(),
            v = rx => {
                assert_eq!(v.unwrap(), 1);
                drops.load(Ordering::SeqCst)
            }
            _ = Loser(drops.clone()) => unreachable!(),
        };
        handle.await.unwrap();
        seen
    });
    assert_eq!(seen_in_handler, 2, "both losers dropped before the handler");
    assert_eq!(drops.load(Ordering::SeqCst), 2);
}

#[test]
fn a_borrowed_future_survives_for_the_next_call() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let (tx, mut rx) = rt::sync::oneshot::channel::<u8>();
        let mut rounds = 0;
        loop {
            rt::select! {
                biased;
                v = &mut rx => {
                    assert_eq!(v.unwrap(), 9);
                    break;
                }
                _ = rt::task::yield_now() => {
                    rounds += 1;
                    if rounds == 3 {
                        // Sending only now proves `rx` was kept, not dropped, by the
                        // earlier calls.
                        tx.send(9).unwrap();
                        break;
                    }
                }
            }
        }
        assert_eq!(rounds, 3);
        // The value sent on the last round is still in the kept receiver.
        assert_eq!(rx.await.unwrap(), 9);
    });
}
