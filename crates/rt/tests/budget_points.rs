//! Where the facade's own pieces meet the cooperative budget, as in tokio: `JoinSet` spends it
//! per outcome, `block_in_place` lifts it for its closure, and a current-thread `block_on`
//! future that yields on a spent budget runs again before a task that yields in a loop runs
//! twice. Also: a `JoinSet` drops the waker it replaces outside its lock.

mod support;

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use rt::task::coop::{consume_budget, has_budget_remaining};
use rt::task::JoinSet;

/// Spends what is left of the current poll's budget without yielding.
async fn spend_budget() {
    while has_budget_remaining() {
        consume_budget().await;
    }
}

#[test]
fn join_next_spends_the_budget_and_yields_with_outcomes_waiting() {
    const TASKS: usize = 300;
    let rt = support::current_thread();
    rt.block_on(async {
        let done = Arc::new(AtomicUsize::new(0));
        let mut set = JoinSet::new();
        for i in 0..TASKS {
            let done = done.clone();
            set.spawn(async move {
                done.fetch_add(1, Ordering::SeqCst);
                i
            });
        }
        while done.load(Ordering::SeqCst) < TASKS {
            rt::task::yield_now().await;
        }
        let (mut joined, mut yields) = (0, 0);
        loop {
            let mut cx = Context::from_waker(Waker::noop());
            match set.poll_join_next(&mut cx) {
                Poll::Ready(Some(r)) => {
                    r.unwrap();
                    joined += 1;
                }
                Poll::Ready(None) => break,
                Poll::Pending => {
                    assert!(!has_budget_remaining(), "Pending with outcomes waiting");
                    yields += 1;
                    rt::task::yield_now().await;
                }
            }
        }
        assert_eq!(joined, TASKS);
        assert!(yields >= 1, "{TASKS} outcomes never spent the budget");
    });
}

#[test]
fn an_empty_join_set_spends_nothing() {
    let rt = support::current_thread();
    rt.block_on(async {
        let mut set = JoinSet::<()>::new();
        spend_budget().await;
        assert!(set.join_next().await.is_none());
    });
}

/// A waker whose drop drives a runtime: the set's task ends inside it.
struct DriveOnDrop(Option<rt::Runtime>);

impl Wake for DriveOnDrop {
    fn wake(self: Arc<Self>) {}
}

impl Drop for DriveOnDrop {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.block_on(rt::task::yield_now());
        }
    }
}

#[test]
fn a_replaced_waker_is_dropped_outside_the_sets_lock() {
    let rt = support::current_thread();
    let mut set = JoinSet::new();
    set.spawn_on(async { 7 }, rt.handle());
    let waker = Waker::from(Arc::new(DriveOnDrop(Some(rt))));
    assert!(set
        .poll_join_next(&mut Context::from_waker(&waker))
        .is_pending());
    drop(waker);
    // Replacing the waker drops the last reference: the drop runs the task, whose end takes
    // the set's lock.
    assert!(set
        .poll_join_next(&mut Context::from_waker(Waker::noop()))
        .is_pending());
    assert_eq!(set.try_join_next().unwrap().unwrap(), 7);
}

/// Polls `consume_budget` `n` times with a no-op waker; returns how many were ready.
fn ready_units(n: usize) -> usize {
    let mut cx = Context::from_waker(Waker::noop());
    (0..n)
        .filter(|_| pin!(consume_budget()).poll(&mut cx).is_ready())
        .count()
}

#[test]
fn block_in_place_lifts_the_budget_and_gives_it_back() {
    let rt = support::multi_thread(2);
    // In a task, on a worker (the lend path), and in `block_on` (the path that just runs it).
    let in_task = rt
        .block_on(rt.spawn(async {
            spend_budget().await;
            let inside = rt::task::block_in_place(|| ready_units(1_000));
            (inside, has_budget_remaining())
        }))
        .unwrap();
    assert_eq!(in_task, (1_000, false));
    let in_block_on = rt.block_on(async {
        spend_budget().await;
        let inside = rt::task::block_in_place(|| ready_units(1_000));
        (inside, has_budget_remaining())
    });
    assert_eq!(in_block_on, (1_000, false));
}

#[test]
fn a_block_on_future_out_of_budget_runs_before_a_yielding_task_runs_twice() {
    const ROUNDS: usize = 8;
    let rt = support::current_thread();
    let spins = Arc::new(AtomicUsize::new(0));
    let s = spins.clone();
    rt.block_on(async move {
        rt::spawn(async move {
            loop {
                s.fetch_add(1, Ordering::SeqCst);
                rt::task::yield_now().await;
            }
        });
        // `ROUNDS` budgets' worth of units (128 a poll, as tokio's): the future yields
        // `ROUNDS - 1` times on a spent budget, and the spinning task runs once in each.
        for _ in 0..ROUNDS * 128 {
            consume_budget().await;
        }
    });
    assert_eq!(spins.load(Ordering::SeqCst), ROUNDS - 1);
}
