//! Panics in `Drop` are contained: a future whose drop panics during abort gives its
//! `JoinHandle` a panic error, and during shutdown it does not stop the shutdown; an output
//! whose drop panics never reaches the thread that drops the `JoinHandle`, and, for a detached
//! task, never kills a worker.

mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::task::{Context, Poll};

use support::{
    panic_text, poll_once, quiet_expected_panics, runtimes, until_count, DropCount, Never, EXPECTED,
};

/// Panics when dropped, after counting the drop.
struct PanicOnDrop(Arc<AtomicUsize>);

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
        panic!("{EXPECTED} drop");
    }
}

fn parked_with_panicking_drop(
    drops: &Arc<AtomicUsize>,
    polls: &Arc<AtomicUsize>,
) -> impl Future<Output = ()> + Send + 'static {
    let (bomb, never) = (
        PanicOnDrop(drops.clone()),
        Never {
            polls: polls.clone(),
        },
    );
    async move {
        let _bomb = bomb;
        never.await
    }
}

#[test]
fn a_panicking_drop_during_abort_becomes_a_panic_error() {
    quiet_expected_panics();
    for (flavor, rt) in runtimes() {
        let (drops, polls) = (Arc::default(), Arc::default());
        let h = rt.spawn(parked_with_panicking_drop(&drops, &polls));
        rt.block_on(until_count(&polls, 1));
        h.abort();
        let err = rt.block_on(h).expect_err("aborted");
        assert!(err.is_panic(), "{flavor}: {err}");
        assert_eq!(
            panic_text(err.into_panic().as_ref()),
            format!("{EXPECTED} drop")
        );
        assert_eq!(drops.load(Ordering::SeqCst), 1, "{flavor}");
        // The runtime carries on.
        assert_eq!(rt.block_on(rt.spawn(async { 3 })).unwrap(), 3, "{flavor}");
    }
}

#[test]
fn a_panicking_drop_during_shutdown_does_not_stop_it() {
    quiet_expected_panics();
    for (flavor, rt) in runtimes() {
        let (bombs, polls, normal) = (
            Arc::default(),
            Arc::default(),
            Arc::new(AtomicUsize::new(0)),
        );
        let mut joined = Vec::new();
        for i in 0..20 {
            if i % 2 == 0 {
                joined.push(rt.spawn(parked_with_panicking_drop(&bombs, &polls)));
            } else {
                let (guard, never) = (
                    DropCount(normal.clone()),
                    Never {
                        polls: polls.clone(),
                    },
                );
                drop(rt.spawn(async move {
                    let _guard = guard;
                    never.await
                }));
            }
        }
        rt.block_on(until_count(&polls, 20));
        drop(rt);
        assert_eq!(bombs.load(Ordering::SeqCst), 10, "{flavor}");
        assert_eq!(
            normal.load(Ordering::SeqCst),
            10,
            "{flavor}: the other futures still dropped"
        );
        for h in &mut joined {
            match poll_once(h) {
                Poll::Ready(Err(e)) => assert!(e.is_panic(), "{flavor}: {e}"),
                other => panic!("{flavor}: {other:?}"),
            }
        }
    }
}

#[test]
fn a_panicking_output_drop_does_not_reach_the_join_handle_dropper() {
    quiet_expected_panics();
    for (flavor, rt) in runtimes() {
        let drops = Arc::new(AtomicUsize::new(0));
        let d = drops.clone();
        let h = rt.spawn(async move { PanicOnDrop(d) });
        rt.block_on(async {
            while !h.is_finished() {
                rt::task::yield_now().await;
            }
        });
        assert_eq!(
            drops.load(Ordering::SeqCst),
            0,
            "{flavor}: the output waits for the handle"
        );
        let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(h)));
        assert!(res.is_ok(), "{flavor}: dropping the JoinHandle panicked");
        assert_eq!(
            drops.load(Ordering::SeqCst),
            1,
            "{flavor}: the output was dropped"
        );
    }
}

#[test]
fn a_panicking_output_of_a_detached_task_does_not_kill_a_worker() {
    quiet_expected_panics();
    for (flavor, rt) in runtimes() {
        let drops = Arc::new(AtomicUsize::new(0));
        for _ in 0..100 {
            let d = drops.clone();
            drop(rt.spawn(async move {
                rt::task::yield_now().await;
                PanicOnDrop(d)
            }));
        }
        rt.block_on(until_count(&drops, 100));
        if flavor == "multi_thread" {
            // Both workers alive: two tasks that block until the other arrives.
            support::deadline(move || {
                let barrier = Arc::new(Barrier::new(2));
                let both: Vec<_> = (0..2)
                    .map(|_| {
                        let b = barrier.clone();
                        rt.spawn(async move {
                            b.wait();
                        })
                    })
                    .collect();
                for h in both {
                    rt.block_on(h).expect("a worker is alive");
                }
            });
        } else {
            assert_eq!(rt.block_on(rt.spawn(async { 1 })).unwrap(), 1);
        }
    }
}

/// Ready at once, but holds a field whose drop panics: the runtime drops the future after it
/// completed.
struct ReadyThenPanicOnDrop {
    _bomb: PanicOnDrop,
}

impl Future for ReadyThenPanicOnDrop {
    type Output = u32;
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<u32> {
        Poll::Ready(5)
    }
}

#[test]
fn a_future_whose_drop_panics_after_ready_gives_a_panic_error() {
    quiet_expected_panics();
    for (flavor, rt) in runtimes() {
        let drops = Arc::new(AtomicUsize::new(0));
        let h = rt.spawn(ReadyThenPanicOnDrop {
            _bomb: PanicOnDrop(drops.clone()),
        });
        let err = rt.block_on(h).expect_err("the drop panicked");
        assert!(err.is_panic(), "{flavor}: {err}");
        assert_eq!(drops.load(Ordering::SeqCst), 1, "{flavor}");
        assert_eq!(rt.block_on(rt.spawn(async { 2 })).unwrap(), 2, "{flavor}");
    }
}
