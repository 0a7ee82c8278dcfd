//! `rt::join!` and `rt::try_join!`: all futures run concurrently in the calling task, outputs
//! come back as a tuple in declaration order, and `try_join!` returns the first `Err` and drops
//! the rest.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

mod support;
use support::DropCount;

#[test]
fn join_returns_outputs_in_order() {
    let out = support::current_thread().block_on(async {
        rt::join!(
            async {
                rt::task::yield_now().await;
                1u8
            },
            async { "two" },
            async {
                rt::task::yield_now().await;
                rt::task::yield_now().await;
                3.0f32
            },
        )
    });
    assert_eq!(out, (1, "two", 3.0));
}

#[test]
fn join_runs_futures_concurrently_in_one_task() {
    // Each side waits for the other: this only finishes if both are polled concurrently.
    support::current_thread().block_on(async {
        let (tx_a, rx_a) = rt::sync::oneshot::channel::<u8>();
        let (tx_b, rx_b) = rt::sync::oneshot::channel::<u8>();
        let (a, b) = rt::join!(
            async move {
                tx_a.send(1).unwrap();
                rx_b.await.unwrap()
            },
            async move {
                let got = rx_a.await.unwrap();
                tx_b.send(got + 1).unwrap();
                got
            }
        );
        assert_eq!((a, b), (2, 1));
    });
}

#[test]
fn join_sixteen_futures() {
    let out = support::current_thread().block_on(async {
        rt::join!(
            async { 0 },
            async { 1 },
            async { 2 },
            async { 3 },
            async { 4 },
            async { 5 },
            async { 6 },
            async { 7 },
            async { 8 },
            async { 9 },
            async { 10 },
            async { 11 },
            async { 12 },
            async { 13 },
            async { 14 },
            async { 15 }
        )
    });
    let (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) = out;
    assert_eq!(
        [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p],
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    );
}

#[test]
fn try_join_all_ok() {
    let out: Result<(u8, &str), ()> = support::current_thread()
        .block_on(async { rt::try_join!(async { Ok(1) }, async { Ok("two") }) });
    assert_eq!(out, Ok((1, "two")));
}

#[test]
fn try_join_returns_first_err_and_drops_the_rest() {
    let drops = Arc::new(AtomicUsize::new(0));
    let guard = DropCount(drops.clone());
    let out: Result<((), u8), &str> = support::current_thread().block_on(async {
        rt::try_join!(
            async move {
                let _guard = guard;
                // Never finishes on its own.
                std::future::pending::<()>().await;
                Ok(())
            },
            async {
                rt::task::yield_now().await;
                Err("failed")
            }
        )
    });
    assert_eq!(out, Err("failed"));
    assert_eq!(
        drops.load(Ordering::SeqCst),
        1,
        "the pending future was dropped"
    );
}

/// The size of `fut`'s future.
fn size_of_future<F: std::future::Future>(_: &F) -> usize {
    std::mem::size_of::<F>()
}

#[test]
fn a_join_future_holds_each_future_once_and_little_else() {
    use rt::__private::MaybeDone;
    use std::future::{ready, Ready};
    use std::mem::size_of;
    // What a `join!` of `n` futures keeps across its await: the futures (each with room for
    // its output), one reference to them and a `u32` rotator (a word with padding), and the
    // block's state (a word with padding). No pinned reference per future.
    let word = size_of::<usize>();
    let one = size_of::<MaybeDone<Ready<i32>>>();
    let f1 = async { rt::join!(ready(0i32)) };
    assert!(
        size_of_future(&f1) <= one + 3 * word,
        "{}",
        size_of_future(&f1)
    );
    let f3 = async { rt::join!(ready(0i32), ready(0i32), ready(0i32)) };
    assert!(
        size_of_future(&f3) <= 3 * one + 3 * word,
        "{}",
        size_of_future(&f3)
    );
    let one_try = size_of::<MaybeDone<Ready<Result<i32, ()>>>>();
    let t3 = async { rt::try_join!(ready(Ok::<i32, ()>(0)), ready(Ok(0)), ready(Ok(0))) };
    assert!(
        size_of_future(&t3) <= 3 * one_try + 3 * word,
        "{}",
        size_of_future(&t3)
    );
    // `biased;` has no rotator at all.
    let b3 = async { rt::join!(biased; ready(0i32), ready(0i32), ready(0i32)) };
    assert!(
        size_of_future(&b3) <= 3 * one + 2 * word,
        "{}",
        size_of_future(&b3)
    );
    let tb3 = async { rt::try_join!(biased; ready(Ok::<i32, ()>(0)), ready(Ok(0)), ready(Ok(0))) };
    assert!(
        size_of_future(&tb3) <= 3 * one_try + 2 * word,
        "{}",
        size_of_future(&tb3)
    );
}
