//! Misuse panics name the caller's line, not a line inside rt (`#[track_caller]`), as tokio's:
//! `spawn_local` outside a `LocalSet`, `JoinError::into_panic` on a cancellation and
//! `task::id()` outside a task. One test, since the panic hook it swaps is process-wide.

use std::sync::{Arc, Mutex};

mod support;

/// Runs `f`, which must panic, and returns the file and line the panic reported.
fn panic_location(f: impl FnOnce()) -> (String, u32) {
    let seen = Arc::new(Mutex::new(None));
    let hook_seen = seen.clone();
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let loc = info.location().unwrap();
        *hook_seen.lock().unwrap() = Some((loc.file().to_string(), loc.line()));
    }));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(prev);
    assert!(result.is_err(), "expected a panic");
    let seen = seen.lock().unwrap().take();
    seen.unwrap()
}

#[test]
fn misuse_panics_point_at_the_caller() {
    let expected = line!() + 2;
    let got = panic_location(|| {
        drop(rt::task::spawn_local(async {}));
    });
    assert_eq!(got, (file!().to_string(), expected), "spawn_local");

    let rt = support::current_thread();
    let join = rt.spawn(std::future::pending::<()>());
    join.abort();
    let err = rt.block_on(join).unwrap_err();
    let expected = line!() + 2;
    let got = panic_location(|| {
        drop(err.into_panic());
    });
    assert_eq!(got, (file!().to_string(), expected), "into_panic");

    let expected = line!() + 2;
    let got = panic_location(|| {
        rt::task::id();
    });
    assert_eq!(
        got,
        (file!().to_string(), expected),
        "task::id outside a task"
    );
}
