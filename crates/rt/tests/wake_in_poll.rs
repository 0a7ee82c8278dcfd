//! A task that wakes itself from inside its own poll is rescheduled, not polled recursively:
//! the wake only marks it, and it runs again after the poll returns, once however many wakes
//! the poll made.

mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use support::runtimes;

const ROUNDS: usize = 1_000;

#[derive(Clone, Copy, Debug)]
enum How {
    WakeByRef,
    CloneAndWake,
    /// `wake_by_ref`, then a clone's `wake`, then `wake_by_ref` again: still one reschedule.
    Thrice,
}

/// Wakes itself inside each poll and returns `Pending`, `ROUNDS` times; a poll entered while
/// another poll of it is on the stack (or running elsewhere) is recorded.
struct SelfWaking {
    how: How,
    polling: Arc<AtomicBool>,
    reentered: Arc<AtomicBool>,
    polls: Arc<AtomicUsize>,
    done: bool,
}

impl Future for SelfWaking {
    type Output = usize;
    // Waking a clone is the point: it is the by-value `wake` path, with its own reference.
    #[allow(clippy::waker_clone_wake)]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
        assert!(!self.done, "polled after it returned Ready");
        if self.polling.swap(true, Ordering::SeqCst) {
            self.reentered.store(true, Ordering::SeqCst);
        }
        let n = self.polls.fetch_add(1, Ordering::SeqCst) + 1;
        let out = if n > ROUNDS {
            // A wake right before Ready must not cause a poll after completion.
            cx.waker().wake_by_ref();
            self.done = true;
            Poll::Ready(n)
        } else {
            match self.how {
                How::WakeByRef => cx.waker().wake_by_ref(),
                How::CloneAndWake => cx.waker().clone().wake(),
                How::Thrice => {
                    cx.waker().wake_by_ref();
                    cx.waker().clone().wake();
                    cx.waker().wake_by_ref();
                }
            }
            Poll::Pending
        };
        self.polling.store(false, Ordering::SeqCst);
        out
    }
}

#[test]
fn a_wake_inside_the_poll_reschedules_without_recursion() {
    for how in [How::WakeByRef, How::CloneAndWake, How::Thrice] {
        for (flavor, rt) in runtimes() {
            let reentered = Arc::new(AtomicBool::new(false));
            let polls = Arc::new(AtomicUsize::new(0));
            let h = rt.spawn(SelfWaking {
                how,
                polling: Arc::default(),
                reentered: reentered.clone(),
                polls: polls.clone(),
                done: false,
            });
            assert_eq!(rt.block_on(h).unwrap(), ROUNDS + 1, "{flavor} {how:?}");
            assert!(
                !reentered.load(Ordering::SeqCst),
                "{flavor} {how:?}: polled recursively"
            );
            // Exactly one poll per round: repeated wakes in one poll coalesce into one.
            rt.block_on(rt::task::yield_now());
            assert_eq!(polls.load(Ordering::SeqCst), ROUNDS + 1, "{flavor} {how:?}");
        }
    }
}

#[test]
fn many_self_waking_tasks_at_once() {
    for (flavor, rt) in runtimes() {
        let reentered = Arc::new(AtomicBool::new(false));
        let handles: Vec<_> = (0..16)
            .map(|i| {
                rt.spawn(SelfWaking {
                    how: [How::WakeByRef, How::CloneAndWake, How::Thrice][i % 3],
                    polling: Arc::default(),
                    reentered: reentered.clone(),
                    polls: Arc::default(),
                    done: false,
                })
            })
            .collect();
        rt.block_on(async {
            for h in handles {
                assert_eq!(h.await.unwrap(), ROUNDS + 1, "{flavor}");
            }
        });
        assert!(
            !reentered.load(Ordering::SeqCst),
            "{flavor}: a task was polled twice at once"
        );
    }
}
