//! `rt::task::coop`, as tokio's: `unconstrained` lifts the budget for a future, `cooperative`
//! makes an always-ready future spend it, `has_budget_remaining` and `poll_proceed` read and
//! spend it by hand.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use rt::task::coop;

mod support;

/// Counts how many times in a row a loop of `consume_budget` finishes without the task
/// yielding; a spawned counter task that runs between shows a yield.
async fn runs_before_yield<F, Fut>(iterations: usize, step: F) -> bool
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    let yielded = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = yielded.clone();
    rt::spawn(async move { flag.store(true, std::sync::atomic::Ordering::SeqCst) });
    for _ in 0..iterations {
        step().await;
    }
    yielded.load(std::sync::atomic::Ordering::SeqCst)
}

#[test]
fn consume_budget_yields_once_the_budget_is_spent() {
    let yielded = support::current_thread().block_on(async {
        rt::spawn(runs_before_yield(1_000, coop::consume_budget))
            .await
            .unwrap()
    });
    assert!(yielded, "1,000 units is past one poll's budget");
}

#[test]
fn unconstrained_never_runs_out() {
    let yielded = support::current_thread().block_on(async {
        rt::spawn(coop::unconstrained(runs_before_yield(1_000, || async {
            coop::consume_budget().await;
            assert!(coop::has_budget_remaining());
        })))
        .await
        .unwrap()
    });
    assert!(!yielded, "no budget was imposed");
}

#[test]
fn cooperative_spends_budget_on_an_always_ready_future() {
    let yielded = support::current_thread().block_on(async {
        rt::spawn(runs_before_yield(1_000, || {
            coop::cooperative(std::future::ready(()))
        }))
        .await
        .unwrap()
    });
    assert!(yielded);
}

/// A hand-written resource: spends a unit per completed poll through `poll_proceed`.
struct Resource;

impl Future for Resource {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let restore = std::task::ready!(coop::poll_proceed(cx));
        restore.made_progress();
        Poll::Ready(())
    }
}

#[test]
fn poll_proceed_spends_and_runs_out() {
    support::current_thread().block_on(async {
        rt::spawn(async {
            let mut completed = 0;
            while coop::has_budget_remaining() {
                Resource.await;
                completed += 1;
            }
            assert!(completed > 0);
            // Out of budget: the next poll of the resource is `Pending` (the task yields), and
            // it completes on the fresh budget of the next poll.
            Resource.await;
            assert!(coop::has_budget_remaining());
        })
        .await
        .unwrap();
    });
}
