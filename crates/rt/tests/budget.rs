//! The cooperative budget: a task looping on `rt::task::consume_budget().await` forever (which
//! never waits on anything) still yields now and then, so other tasks on the same thread run.

mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use support::{deadline, until_count};

/// Counts the polls of the future it wraps.
struct CountPolls<F> {
    inner: Pin<Box<F>>,
    polls: Arc<AtomicUsize>,
}

impl<F: Future> Future for CountPolls<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.polls.fetch_add(1, Ordering::SeqCst);
        self.inner.as_mut().poll(cx)
    }
}

struct Looper {
    stop: Arc<AtomicBool>,
    iterations: Arc<AtomicUsize>,
    polls: Arc<AtomicUsize>,
}

fn spawn_looper(rt: &rt::Runtime) -> (Looper, rt::task::JoinHandle<()>) {
    let l = Looper {
        stop: Arc::default(),
        iterations: Arc::default(),
        polls: Arc::default(),
    };
    let (stop, iterations) = (l.stop.clone(), l.iterations.clone());
    let h = rt.spawn(CountPolls {
        inner: Box::pin(async move {
            while !stop.load(Ordering::SeqCst) {
                iterations.fetch_add(1, Ordering::SeqCst);
                rt::task::consume_budget().await;
            }
        }),
        polls: l.polls.clone(),
    });
    (l, h)
}

fn others_run_next_to_a_budget_loop(rt: rt::Runtime) {
    let (looper, h) = spawn_looper(&rt);
    rt.block_on(async {
        until_count(&looper.iterations, 1_000).await;
        // Spawned while the loop runs; needs several turns of its own.
        let other = rt::spawn(async {
            for _ in 0..10 {
                rt::task::yield_now().await;
            }
            7
        });
        assert_eq!(other.await.unwrap(), 7);
        assert!(!h.is_finished(), "the loop was still looping");
        looper.stop.store(true, Ordering::SeqCst);
        h.await.unwrap();
    });
    let (iterations, polls) = (
        looper.iterations.load(Ordering::SeqCst),
        looper.polls.load(Ordering::SeqCst),
    );
    assert!(polls > 1, "the loop yielded");
    // consume_budget yields only when the budget is spent, not on every call.
    assert!(
        iterations > polls,
        "{iterations} iterations in {polls} polls"
    );
}

#[test]
fn a_budget_loop_does_not_starve_others_current_thread() {
    deadline(|| others_run_next_to_a_budget_loop(support::current_thread()));
}

#[test]
fn a_budget_loop_does_not_starve_others_on_one_worker() {
    deadline(|| others_run_next_to_a_budget_loop(support::multi_thread(1)));
}

#[test]
fn consume_budget_outside_a_task_is_unconstrained() {
    // A plain thread has no budget: consume_budget is always ready at once.
    let mut fut = Box::pin(async {
        for _ in 0..10_000 {
            rt::task::consume_budget().await;
        }
    });
    assert!(support::poll_once(&mut fut).is_ready());
}
