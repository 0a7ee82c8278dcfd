//! `JoinError` says which task failed and why (Display and Debug carry the id and the panic
//! message); `rt::task::id()` inside a task is its `JoinHandle`'s id; ids are unique.

mod support;

use std::collections::HashSet;
use std::error::Error;

use support::{quiet_expected_panics, runtimes, EXPECTED};

#[test]
fn a_panic_error_names_the_task_and_the_message() {
    quiet_expected_panics();
    for (flavor, rt) in runtimes() {
        let h = rt.spawn(async { panic!("{EXPECTED} the message") });
        let id = h.id();
        let err = rt.block_on(h).unwrap_err();
        assert_eq!(err.id(), id, "{flavor}");
        let display = err.to_string();
        let debug = format!("{err:?}");
        for text in [&display, &debug] {
            assert!(
                text.contains(&id.to_string()),
                "{flavor}: {text:?} lacks id {id}"
            );
            assert!(
                text.contains("the message"),
                "{flavor}: {text:?} lacks the message"
            );
        }
        assert!(display.contains("panicked"), "{flavor}: {display}");
        assert!(debug.contains("Panic"), "{flavor}: {debug}");
        // A `std::error::Error`, convertible to `io::Error` with the same text.
        let as_error: &dyn Error = &err;
        assert_eq!(as_error.to_string(), display);
        assert_eq!(std::io::Error::from(err).to_string(), display);
    }
}

#[test]
fn a_panic_without_a_message_still_names_the_task() {
    for (flavor, rt) in runtimes() {
        let h = rt.spawn(async {
            std::panic::resume_unwind(Box::new(17u8));
        });
        let id = h.id();
        let err = rt.block_on(h).unwrap_err();
        assert!(err.is_panic(), "{flavor}");
        assert!(err.to_string().contains(&id.to_string()), "{flavor}: {err}");
        assert!(
            format!("{err:?}").contains(&id.to_string()),
            "{flavor}: {err:?}"
        );
    }
}

#[test]
fn a_cancellation_error_names_the_task() {
    for (flavor, rt) in runtimes() {
        let h = rt.spawn(std::future::pending::<()>());
        let id = h.id();
        h.abort();
        let err = rt.block_on(h).unwrap_err();
        assert!(err.is_cancelled() && !err.is_panic(), "{flavor}");
        assert_eq!(err.id(), id, "{flavor}");
        let (display, debug) = (err.to_string(), format!("{err:?}"));
        assert!(
            display.contains(&id.to_string()) && display.contains("cancel"),
            "{display}"
        );
        assert!(
            debug.contains(&id.to_string()) && debug.contains("Cancel"),
            "{debug}"
        );
        // A cancellation has no payload: `try_into_panic` hands the error back.
        let err = err.try_into_panic().expect_err("no payload");
        assert!(err.is_cancelled());
        let into = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| err.into_panic()));
        assert!(into.is_err(), "into_panic on a cancellation panics");
    }
}

#[test]
fn the_task_id_inside_a_task_is_its_handles_id() {
    for (flavor, rt) in runtimes() {
        let h = rt.spawn(async {
            let before = rt::task::id();
            rt::task::yield_now().await;
            // Still the same task after a suspension, and inside a nested spawn another id.
            let child = rt::spawn(async { rt::task::id() });
            let child_handle_id = child.id();
            let child_id = child.await.unwrap();
            assert_eq!(child_id, child_handle_id);
            assert_ne!(child_id, before);
            assert_eq!(rt::task::try_id(), Some(before));
            before
        });
        let id = h.id();
        assert_eq!(rt.block_on(h).unwrap(), id, "{flavor}");
        // block_on's own future is not a task.
        assert_eq!(rt.block_on(async { rt::task::try_id() }), None, "{flavor}");
        let blocking = rt.spawn_blocking(rt::task::try_id);
        let blocking_id = blocking.id();
        assert_eq!(
            rt.block_on(blocking).unwrap(),
            Some(blocking_id),
            "{flavor}"
        );
    }
    assert_eq!(rt::task::try_id(), None);
}

#[test]
fn ids_are_unique_across_ten_thousand_tasks() {
    let mut seen = HashSet::new();
    for (flavor, rt) in runtimes() {
        // Spawned from the test thread, from tasks, and from plain threads: ids come from
        // per-thread blocks, and must not collide between them.
        let mut handles: Vec<_> = (0..2_000)
            .map(|_| rt.spawn(async { rt::task::id() }))
            .collect();
        let nested = rt.spawn(async {
            let hs: Vec<_> = (0..1_000)
                .map(|_| rt::spawn(async { rt::task::id() }))
                .collect();
            hs
        });
        handles.extend(rt.block_on(nested).unwrap());
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let handle = rt.handle().clone();
                std::thread::spawn(move || {
                    (0..1_000)
                        .map(|_| handle.spawn(async { rt::task::id() }))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for t in threads {
            handles.extend(t.join().unwrap());
        }
        assert_eq!(handles.len(), 5_000);
        rt.block_on(async {
            for h in handles {
                let id = h.id();
                assert_eq!(
                    h.await.unwrap(),
                    id,
                    "{flavor}: id() differs from the handle's"
                );
                assert!(seen.insert(id), "{flavor}: id {id} used twice");
            }
        });
    }
    assert_eq!(seen.len(), 10_000);
}
