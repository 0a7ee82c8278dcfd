//! A panicking task becomes a `JoinError::Panic` whose payload the `JoinHandle`'s owner can take,
//! and the runtime goes on serving: its worker threads survive any number of panics.

mod support;

use std::sync::{Arc, Barrier};

use support::{panic_text, quiet_expected_panics, runtimes, EXPECTED};

#[test]
fn panic_becomes_a_join_error_with_the_payload() {
    quiet_expected_panics();
    for (flavor, rt) in runtimes() {
        let err = rt
            .block_on(rt.spawn(async { panic!("{EXPECTED} boom {}", 7) }))
            .expect_err(flavor);
        assert!(err.is_panic(), "{flavor}: {err}");
        assert!(!err.is_cancelled(), "{flavor}: {err}");
        let payload = err.into_panic();
        assert_eq!(
            panic_text(payload.as_ref()),
            format!("{EXPECTED} boom 7"),
            "{flavor}"
        );
    }
}

#[test]
fn a_non_string_payload_comes_back_as_it_was_thrown() {
    quiet_expected_panics();
    #[derive(Debug, PartialEq)]
    struct Payload(u32);
    // `resume_unwind` skips the panic hook, so this panic prints nothing.
    for (flavor, rt) in runtimes() {
        let h = rt.spawn(async {
            std::panic::resume_unwind(Box::new(Payload(42)));
        });
        let err = rt.block_on(h).expect_err(flavor);
        assert!(err.is_panic(), "{flavor}");
        let payload = err
            .try_into_panic()
            .expect("a panic error gives its payload");
        assert_eq!(
            payload.downcast_ref::<Payload>(),
            Some(&Payload(42)),
            "{flavor}"
        );
    }
}

#[test]
fn a_panic_after_an_await_is_caught_too() {
    quiet_expected_panics();
    for (flavor, rt) in runtimes() {
        let err = rt
            .block_on(rt.spawn(async {
                rt::task::yield_now().await;
                rt::spawn(async { 1 }).await.unwrap();
                panic!("{EXPECTED} after await");
            }))
            .expect_err(flavor);
        assert_eq!(
            panic_text(err.into_panic().as_ref()),
            format!("{EXPECTED} after await")
        );
    }
}

#[test]
fn a_task_awaiting_a_panicked_task_sees_the_error_and_carries_on() {
    quiet_expected_panics();
    for (flavor, rt) in runtimes() {
        let out = rt.block_on(rt.spawn(async {
            let err = rt::spawn(async { panic!("{EXPECTED} inner") })
                .await
                .expect_err("the inner task panicked");
            assert!(err.is_panic());
            5
        }));
        assert_eq!(out.unwrap(), 5, "{flavor}");
    }
}

#[test]
fn runtime_keeps_serving_after_a_thousand_panics() {
    quiet_expected_panics();
    for (flavor, rt) in runtimes() {
        let panicking: Vec<_> = (0..1_000)
            .map(|i| rt.spawn(async move { panic!("{EXPECTED} task {i}") }))
            .collect();
        rt.block_on(async {
            for (i, h) in panicking.into_iter().enumerate() {
                let err = h.await.expect_err("the task panicked");
                assert_eq!(
                    panic_text(err.into_panic().as_ref()),
                    format!("{EXPECTED} task {i}")
                );
            }
        });
        let normal: Vec<_> = (0..1_000u64)
            .map(|i| rt.spawn(async move { i * 2 }))
            .collect();
        let sum = rt.block_on(async {
            let mut sum = 0;
            for h in normal {
                sum += h.await.expect("a normal task after the panics");
            }
            sum
        });
        assert_eq!(sum, 999 * 1_000, "{flavor}");
    }
}

#[test]
fn every_worker_thread_survives_panics() {
    quiet_expected_panics();
    let rt = support::multi_thread(2);
    // Panics on whichever worker runs each task, from both workers' queues.
    let handles: Vec<_> = (0..1_000)
        .map(|i| {
            rt.spawn(async move {
                if i % 2 == 0 {
                    rt::task::yield_now().await;
                }
                panic!("{EXPECTED} {i}")
            })
        })
        .collect();
    for h in handles {
        assert!(rt.block_on(h).unwrap_err().is_panic());
    }
    // Two tasks that each block their worker until the other arrives: they only finish if two
    // workers are still alive.
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
}
