//! `rt::select!` branch rules: a false `if` precondition disables a branch (its future is
//! created but never polled), an output that does not match its pattern disables that branch
//! and the others go on, `else` runs when every branch is disabled, and without `else` that
//! panics. Handlers may `break` and `return` out of the caller's code.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

mod support;

/// A ready future that counts its polls.
struct CountPolls(Arc<AtomicUsize>);

impl Future for CountPolls {
    type Output = u8;
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<u8> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Poll::Ready(0)
    }
}

#[test]
fn false_precondition_disables_the_branch() {
    let polls = Arc::new(AtomicUsize::new(0));
    let got = support::current_thread().block_on(async {
        let enabled = false;
        rt::select! {
            _ = CountPolls(polls.clone()), if enabled => "disabled",
            _ = async { rt::task::yield_now().await } => "other",
        }
    });
    assert_eq!(got, "other");
    assert_eq!(polls.load(Ordering::SeqCst), 0);
}

#[test]
fn pattern_mismatch_disables_only_that_branch() {
    let got = support::current_thread().block_on(async {
        rt::select! {
            biased;
            Some(mut v) = std::future::ready(None::<String>) => {
                v.push('!');
                v
            }
            Some(ref v) = async {
                rt::task::yield_now().await;
                Some(String::from("second"))
            } => v.clone(),
        }
    });
    assert_eq!(got, "second");
}

#[test]
fn else_runs_when_every_branch_is_disabled() {
    let got = support::current_thread().block_on(async {
        rt::select! {
            Some(v) = std::future::ready(None::<u8>) => v,
            v = std::future::ready(1u8), if false => v,
            else => 42,
        }
    });
    assert_eq!(got, 42);
}

#[test]
#[should_panic(expected = "all branches are disabled and there is no else branch")]
fn no_else_panics_when_every_branch_is_disabled() {
    support::current_thread().block_on(async {
        rt::select! {
            Some(v) = std::future::ready(None::<u8>) => v,
            v = std::future::ready(1u8), if false => v,
        }
    });
}

#[test]
fn handlers_control_the_callers_flow() {
    async fn first_even(values: Vec<u8>) -> Option<u8> {
        for v in values {
            rt::select! {
                x = std::future::ready(v) => {
                    if x % 2 == 0 {
                        return Some(x);
                    }
                    continue;
                }
            }
        }
        None
    }
    assert_eq!(
        support::current_thread().block_on(first_even(vec![1, 3, 4, 5])),
        Some(4)
    );
    assert_eq!(
        support::current_thread().block_on(first_even(vec![1, 3])),
        None
    );
}
