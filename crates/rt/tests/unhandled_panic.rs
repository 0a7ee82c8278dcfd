//! `Builder::unhandled_panic`: with `ShutdownRuntime`, a panic in any spawned task (its
//! `JoinHandle` held or not) shuts the runtime down — its other tasks are cancelled — and makes
//! `block_on` panic with the task's own payload, on both flavours; with the default `Ignore`
//! the panic goes to the `JoinHandle` and the runtime keeps serving.

mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;

use rt::runtime::UnhandledPanic;
use support::{deadline, panic_text, quiet_expected_panics, DropSignal, EXPECTED};

fn build(flavour: &str, behaviour: UnhandledPanic) -> rt::Runtime {
    let mut b = match flavour {
        "multi_thread" => rt::Builder::new_multi_thread(),
        _ => rt::Builder::new_current_thread(),
    };
    if flavour == "multi_thread" {
        b.worker_threads(2);
    }
    b.unhandled_panic(behaviour).build().unwrap()
}

const FLAVOURS: [&str; 2] = ["multi_thread", "current_thread"];

fn boom(flavour: &str) -> String {
    format!("{EXPECTED} boom on {flavour}")
}

#[test]
fn block_on_panics_with_the_task_payload() {
    quiet_expected_panics();
    for flavour in FLAVOURS {
        deadline(move || {
            let rt = build(flavour, UnhandledPanic::ShutdownRuntime);
            let msg = boom(flavour);
            // The JoinHandle is dropped at once: the panic is unhandled all the same.
            drop(rt.spawn(async move { panic!("{msg}") }));
            let err = catch_unwind(AssertUnwindSafe(|| {
                rt.block_on(std::future::pending::<()>())
            }))
            .unwrap_err();
            assert_eq!(
                err.downcast_ref::<String>(),
                Some(&boom(flavour)),
                "{flavour}"
            );
        });
    }
}

#[test]
fn awaiting_the_panicking_task_panics_too_and_other_tasks_are_cancelled() {
    quiet_expected_panics();
    for flavour in FLAVOURS {
        deadline(move || {
            let rt = build(flavour, UnhandledPanic::ShutdownRuntime);
            let (tx, dropped) = mpsc::channel();
            let sig = DropSignal(tx);
            // A task that would wait forever: the shutdown drops its future.
            rt.spawn(async move {
                let _sig = sig;
                std::future::pending::<()>().await;
            });
            let msg = boom(flavour);
            let h = rt.spawn(async move {
                rt::task::yield_now().await;
                panic!("{msg}")
            });
            let err = catch_unwind(AssertUnwindSafe(|| rt.block_on(h))).unwrap_err();
            assert_eq!(
                err.downcast_ref::<String>(),
                Some(&boom(flavour)),
                "{flavour}"
            );
            dropped
                .recv()
                .expect("the pending task's future was dropped");
            // Shut down: a new task never runs; its handle reports the cancellation.
            let late = rt.spawn(async { 1 });
            let res = rt::Handle::block_on(rt.handle(), late);
            assert!(res.unwrap_err().is_cancelled(), "{flavour}");
        });
    }
}

#[test]
fn ignore_keeps_the_runtime_serving() {
    quiet_expected_panics();
    for flavour in FLAVOURS {
        deadline(move || {
            let rt = build(flavour, UnhandledPanic::Ignore);
            let msg = boom(flavour);
            let h = rt.spawn(async move { panic!("{msg}") });
            let err = rt.block_on(h).unwrap_err();
            assert!(err.is_panic(), "{flavour}");
            assert_eq!(panic_text(&*err.into_panic()), boom(flavour));
            assert_eq!(rt.block_on(rt.spawn(async { 7 })).unwrap(), 7, "{flavour}");
        });
    }
}

#[test]
fn the_default_is_ignore() {
    assert_eq!(UnhandledPanic::default(), UnhandledPanic::Ignore);
    assert_eq!(
        rt::UnhandledPanic::Ignore,
        rt::runtime::UnhandledPanic::Ignore
    );
}
