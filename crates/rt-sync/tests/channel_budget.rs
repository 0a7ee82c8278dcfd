//! Channel operations that complete without waiting spend the cooperative budget: a loop over
//! an always-ready channel yields once the budget is spent.

mod channel_util;

use std::pin::pin;
use std::task::Poll;

use channel_util::{poll_with, CountWaker};
use rt_core::coop;
use rt_sync::channel;

#[test]
fn ready_receives_stop_when_the_budget_is_spent() {
    let (tx, rx) = channel::unbounded::<u32>();
    let n = coop::BUDGET as u32 + 10;
    for i in 0..n {
        tx.try_send(i).unwrap();
    }
    let w = CountWaker::new();
    let ready = coop::budget(|| {
        let mut ready = 0;
        for _ in 0..n {
            match poll_with(pin!(rx.recv()), &w) {
                Poll::Ready(Some(_)) => ready += 1,
                Poll::Ready(None) => unreachable!(),
                Poll::Pending => break,
            }
        }
        ready
    });
    assert_eq!(ready, coop::BUDGET as u32);
    assert_eq!(
        w.count(),
        1,
        "an exhausted budget wakes the task to run again"
    );
    // Nothing was lost: the rest is still there.
    assert_eq!(rx.len(), 10);
}

#[test]
fn ready_sends_stop_when_the_budget_is_spent() {
    let (tx, rx) = channel::bounded::<u32>(1000);
    let w = CountWaker::new();
    let sent = coop::budget(|| {
        let mut sent = 0;
        while let Poll::Ready(r) = poll_with(pin!(tx.send(sent)), &w) {
            r.unwrap();
            sent += 1;
        }
        sent
    });
    assert_eq!(sent, coop::BUDGET as u32);
    assert_eq!(rx.len(), coop::BUDGET as usize);
}

#[test]
fn waiting_does_not_spend_the_budget() {
    let (_tx, rx) = channel::bounded::<u32>(1);
    let w = CountWaker::new();
    coop::budget(|| {
        for _ in 0..(coop::BUDGET as usize * 2) {
            assert!(poll_with(pin!(rx.recv()), &w).is_pending());
        }
        assert!(coop::has_budget_remaining());
    });
    assert_eq!(w.count(), 0);
}
